//! `reducer-kit serve`: a reference reducer speaking runner protocol v1
//! (semantics §7), for certifying the kit against itself and as a model for
//! implementers.

use super::{FormatArg, PolicyArg};
use reducer_kit::formats::Format;
use reducer_kit::protocol::{read_request, response_json, Response};
use reducer_kit::reduce::respond;
use reducer_kit::terms::Policy;
use serde_json::Value;
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

/// Answers one request text with one response object: the reference
/// reducer's answer, or `{"error": ...}` for a request it cannot read.
pub fn answer(policy: Policy, format: Format, text: &str) -> Value {
    let response = match read_request(format, text) {
        Ok(r) => respond(policy, format, &r.max_messages, &r.messages),
        Err(e) => Response::Error(e.to_string()),
    };
    response_json(format, &response)
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    if args.persistent {
        for line in stdin.lock().lines() {
            let line = line?;
            if line.trim().is_empty() {
                continue;
            }
            let response = answer(Policy::from(args.policy), Format::from(args.format), &line);
            writeln!(stdout, "{response}")?;
            stdout.flush()?;
        }
    } else {
        let mut text = String::new();
        stdin.lock().read_to_string(&mut text)?;
        writeln!(
            stdout,
            "{}",
            answer(Policy::from(args.policy), Format::from(args.format), &text)
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
