//! `reducer-kit reduce`: the reference reducer on the command line.

use super::{invalid, load, Histories, PolicyArg};
use reducer_kit::formats::Format;
use reducer_kit::reduce::reduce;
use reducer_kit::terms::Policy;
use std::io::Write;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The budget: most messages kept besides the pinned system message
    /// (overrides an envelope's maxMessages).
    #[arg(long = "max", value_name = "N", allow_negative_numbers = true)]
    pub max: Option<i64>,
    /// The policy.
    #[arg(long, value_enum, default_value_t = PolicyArg::Turns)]
    pub policy: PolicyArg,
    #[command(flatten)]
    pub input: Histories,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let entries = or_exit!(load(&args.input.file));
    let jsonl = entries.len() > 1 || entries.first().is_some_and(|e| e.origin.line.is_some());
    let mut out = String::new();
    for e in &entries {
        let max = match e.max_messages_or(args.max) {
            Ok(m) => m,
            Err(e) => return Ok(invalid(e)),
        };
        let reduced = match reduce(
            Policy::from(args.policy),
            Format::from(args.input.format),
            &e.messages,
            &max,
        ) {
            Ok(r) => r,
            Err(err) => return Ok(invalid(format!("{}: {err}", e.origin))),
        };
        let v = e.with_messages(reduced);
        if jsonl {
            out.push_str(&serde_json::to_string(&v)?);
        } else {
            out.push_str(&serde_json::to_string_pretty(&v)?);
        }
        out.push('\n');
    }
    // A closed stdout (piped into `head`) is not an error.
    let _ = std::io::stdout().lock().write_all(out.as_bytes());
    Ok(ExitCode::SUCCESS)
}
