//! cargo-fuzz target `checker_convicts`: see `reducer_kit::fuzzers::checker_convicts`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use reducer_kit::fuzzers::checker_convicts::Input;

/// mimalloc: see `fuzz/Cargo.toml`.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fuzz_target!(|input: Input| {
    let _ = input.run();
});
