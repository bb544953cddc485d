//! `reducer-kit serve`: a reference reducer speaking runner protocol v1
//! (semantics §7), for certifying the kit against itself and as a model for
//! implementers.

use super::{FormatArg, PolicyArg};
use reducer_kit::certify::session::ReferenceSession;
use reducer_kit::formats::Format;
use reducer_kit::terms::Policy;
use std::io::{BufRead, Read, Write};
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The policy.
    #[arg(long, value_enum, default_value_t = PolicyArg::Turns)]
    pub policy: PolicyArg,
    /// JSON Lines: one request per line in, one response per line out.
    #[arg(long)]
    pub persistent: bool,
    /// The wire format of the messages.
    #[arg(long, value_enum, default_value_t = FormatArg::Canonical)]
    pub format: FormatArg,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let reference = ReferenceSession {
        policy: Policy::from(args.policy),
        format: Format::from(args.format),
    };
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    if args.persistent {
        for line in stdin.lock().lines() {
            let line = line?;
            if line.trim().is_empty() {
                continue;
            }
            let response = reference.answer(&line);
            writeln!(stdout, "{response}")?;
            stdout.flush()?;
        }
    } else {
        let mut text = String::new();
        stdin.lock().read_to_string(&mut text)?;
        writeln!(stdout, "{}", reference.answer(&text))?;
    }
    Ok(ExitCode::SUCCESS)
}
