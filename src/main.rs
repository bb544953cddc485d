//! The `reducer-kit` command line. Exit codes: `commands::EXIT_CODES` (0 pass,
//! 1 a judged failure, 2 usage or unreadable input).

mod commands;

use clap::Parser;
use std::process::ExitCode;

/// mimalloc on Linux: the kit allocates and frees a `serde_json` value per
/// message and item (Cargo.toml); the system allocator elsewhere.
#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = commands::Cli::parse();
    match commands::run(cli) {
        Ok(code) => code,
        Err(e) => {
            commands::print_error(format!("{e:#}"));
            ExitCode::from(2)
        }
    }
}
