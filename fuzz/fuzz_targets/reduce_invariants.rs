//! cargo-fuzz target `reduce_invariants`: see `reducer_kit::fuzzers::reduce_invariants`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use reducer_kit::fuzzers::reduce_invariants::Input;

fuzz_target!(|input: Input| {
    let _ = input.run();
});
