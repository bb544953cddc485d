//! cargo-fuzz target `validator_agrees`: see `reducer_kit::fuzzers::validator_agrees`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use reducer_kit::fuzzers::validator_agrees::Input;

/// mimalloc: see `fuzz/Cargo.toml`.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fuzz_target!(|input: Input| {
    let _ = input.run();
});
