//! cargo-fuzz target `repair_invariants`: see `reducer_kit::fuzzers::repair_invariants`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use reducer_kit::fuzzers::repair_invariants::Input;

/// mimalloc: see `fuzz/Cargo.toml`.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fuzz_target!(|input: Input| {
    let _ = input.run();
});
