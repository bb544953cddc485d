//! cargo-fuzz target `format_roundtrip`: see `reducer_kit::fuzzers::format_roundtrip`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use reducer_kit::fuzzers::format_roundtrip::Input;

/// mimalloc: see `fuzz/Cargo.toml`.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fuzz_target!(|input: Input| {
    let _ = input.run();
});
