//! cargo-fuzz target `parse_no_panic`: see `reducer_kit::fuzzers::parse_no_panic`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use reducer_kit::fuzzers::parse_no_panic::Input;

fuzz_target!(|input: Input| {
    let _ = input.run();
});
