//! Subcommands, one module each.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

pub mod generate;

/// Conformance test kit, reference reducers and fuzzer for chat-history reducers.
#[derive(Parser, Debug)]
#[command(name = "reducer-kit", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Write generated cases, one per line.
    Generate(generate::Args),
}

/// Runs one parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Generate(a) => generate::run(a),
    }
}
