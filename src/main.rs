//! The `reducer-kit` command line. Exit codes: 0 pass, 1 failed or invalid,
//! 2 usage or I/O error.

mod commands;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = commands::Cli::parse();
    match commands::run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("reducer-kit: error: {e:#}");
            ExitCode::from(2)
        }
    }
}
