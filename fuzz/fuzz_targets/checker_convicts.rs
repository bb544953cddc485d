//! cargo-fuzz target `checker_convicts`: see `reducer_kit::fuzzers::checker_convicts`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use reducer_kit::fuzzers::checker_convicts::Input;

fuzz_target!(|input: Input| {
    let _ = input.run();
});
