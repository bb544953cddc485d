//! Subcommands, one module each. Exit codes: 0 pass, 1 failed or invalid,
//! 2 usage or I/O error.

use clap::{Parser, Subcommand};
use reducer_kit::formats::Format;
use reducer_kit::input::{read_entries, Entry, InputError};
use reducer_kit::terms::Policy;
use std::process::ExitCode;

/// Prints a line to stdout. A closed stdout (the output piped into `head`)
/// is not an error: the rest of the output is dropped, and the command
/// still finishes its work (reports, saved files) and exits as it would.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout().lock(), $($arg)*);
    }};
}

/// The value of an `Ok`; for an `Err(code)`, returns `Ok(code)` from the
/// command (the error was reported where it was found).
macro_rules! or_exit {
    ($result:expr) => {
        match $result {
            Ok(v) => v,
            Err(code) => return Ok(code),
        }
    };
}

pub mod certify;
pub mod check;
pub mod corpus;
pub mod generate;
pub mod reduce;
pub mod serve;
pub mod validate;

/// Conformance test kit, reference reducers and fuzzer for chat-history reducers.
#[derive(Parser, Debug)]
#[command(name = "reducer-kit", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Reduce histories with a reference reducer and print the result.
    Reduce(reduce::Args),
    /// Check histories against the validator rules (tool-call / result pairing).
    Validate(validate::Args),
    /// Judge a reducer's output for one input against every clause.
    Check(check::Args),
    /// Run a reference reducer as an external reducer speaking protocol v1.
    Serve(serve::Args),
    /// Certify an external reducer: run every case against it and grade it.
    Certify(Box<certify::Args>),
    /// Write generated cases, one per line.
    Generate(generate::Args),
    /// Regression corpora: regen, check, add, min, seed-fuzz.
    Corpus(corpus::Args),
}

/// `--format`: the wire formats as the command line names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FormatArg {
    /// Microsoft.Extensions.AI `ChatMessage` JSON.
    #[value(
        help = "Microsoft.Extensions.AI ChatMessage JSON: role, contents of $type-tagged items"
    )]
    Canonical,
    /// OpenAI Chat Completions.
    #[value(
        name = "openai",
        help = "OpenAI Chat Completions: content, tool_calls, tool_call_id"
    )]
    OpenAi,
    /// Anthropic Messages.
    #[value(help = "Anthropic Messages: tool_use / tool_result blocks, top-level system")]
    Anthropic,
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Format {
        match f {
            FormatArg::Canonical => Format::Canonical,
            FormatArg::OpenAi => Format::OpenAi,
            FormatArg::Anthropic => Format::Anthropic,
        }
    }
}

/// The histories a command reads and their wire format: the arguments
/// `reduce` and `validate` share.
#[derive(clap::Args, Debug)]
pub struct Histories {
    /// The wire format of the messages.
    #[arg(long, value_enum, default_value_t = FormatArg::Canonical)]
    pub format: FormatArg,
    /// A bare array of messages, a request envelope, or JSON Lines of them; `-` for stdin.
    #[arg(default_value = "-")]
    pub file: String,
}

/// `--policy`: the policies as the command line names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum PolicyArg {
    /// Keep the newest whole turns that fit (spec §3).
    Turns,
    /// Keep the newest messages, never starting inside a tool group
    /// (spec §4).
    Suffix,
}

impl From<PolicyArg> for Policy {
    fn from(p: PolicyArg) -> Policy {
        match p {
            PolicyArg::Turns => Policy::Turns,
            PolicyArg::Suffix => Policy::Suffix,
        }
    }
}

/// Runs one parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Reduce(a) => reduce::run(a),
        Command::Validate(a) => validate::run(a),
        Command::Check(a) => check::run(a),
        Command::Serve(a) => serve::run(a),
        Command::Certify(a) => certify::run(*a),
        Command::Generate(a) => generate::run(a),
        Command::Corpus(a) => corpus::run(a),
    }
}

/// Prints an input error and gives its exit code: 2 for I/O, 1 for content.
pub fn input_failure(e: &InputError) -> ExitCode {
    eprintln!("reducer-kit: error: {e}");
    match e {
        InputError::Io { .. } => ExitCode::from(2),
        InputError::Invalid { .. } => ExitCode::from(1),
    }
}

/// Reads the entries of `path`, or reports and gives the exit code.
pub fn load(path: &str) -> Result<Vec<Entry>, ExitCode> {
    read_entries(path).map_err(|e| input_failure(&e))
}

/// Prints an error about invalid content and gives exit code 1.
pub fn invalid(text: impl std::fmt::Display) -> ExitCode {
    eprintln!("reducer-kit: error: {text}");
    ExitCode::from(1)
}
