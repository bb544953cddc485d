//! cargo-fuzz target `terms_agree`: see `reducer_kit::fuzzers::terms_agree`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use reducer_kit::fuzzers::terms_agree::Input;

/// mimalloc: see `fuzz/Cargo.toml`.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fuzz_target!(|input: Input| {
    let _ = input.run();
});
