//! cargo-fuzz target `parse_no_panic`: see `reducer_kit::fuzzers::parse_no_panic`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use reducer_kit::fuzzers::parse_no_panic::Input;

/// mimalloc: see `fuzz/Cargo.toml`.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fuzz_target!(|input: Input| {
    let _ = input.run();
});
