//! cargo-fuzz target `terms_agree`: see `reducer_kit::fuzzers::terms_agree`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use reducer_kit::fuzzers::terms_agree::Input;

fuzz_target!(|input: Input| {
    let _ = input.run();
});
