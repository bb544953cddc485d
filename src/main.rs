//! The `reducer-kit` command line: a thin shim over [`reducer_kit::cli::run`]
//! (the commands live in the library, behind the `cli` feature, so that the
//! Python package runs the same command line in process). Exit codes:
//! `commands::EXIT_CODES` (0 pass, 1 a judged failure, 2 usage or
//! unreadable input).

use std::process::ExitCode;

/// mimalloc on Linux: the kit allocates and frees a `serde_json` value per
/// message and item (Cargo.toml); the system allocator elsewhere.
#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    reducer_kit::cli::run(std::env::args_os())
}
