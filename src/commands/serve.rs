//! `reducer-kit serve`: a reference reducer speaking runner protocol v1
//! (semantics §7), for certifying the kit against itself and as a model for
//! implementers.

use reducer_kit::format::Format;
use reducer_kit::reduce::{reduce, Policy};
use serde_json::{json, Value};
use std::io::{BufRead, Read, Write};
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The policy.
    #[arg(long, value_enum, default_value_t = Policy::Turns)]
    pub policy: Policy,
    /// JSON Lines: one request per line in, one response per line out.
    #[arg(long)]
    pub persistent: bool,
    /// The wire format of the messages.
    #[arg(long, value_enum, default_value_t = Format::Canonical)]
    pub format: Format,
}

/// Answers one request text with one response object.
pub fn answer(policy: Policy, format: Format, text: &str) -> Value {
    let request: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => return json!({ "error": format!("the request is not JSON: {e}") }),
    };
    let Some(messages) = request.get("messages").and_then(Value::as_array) else {
        return json!({ "error": "the request has no `messages` array" });
    };
    let max = request.get("maxMessages").cloned().unwrap_or(Value::Null);
    let messages = match format {
        Format::Anthropic => {
            reducer_kit::anthropic::join_system(request.get("system").cloned(), messages.clone())
        }
        _ => messages.clone(),
    };
    match reduce(policy, format, &messages, &max) {
        Ok(out) => match format {
            Format::Anthropic => {
                let (system, rest) = reducer_kit::anthropic::split_system(&out);
                let mut r = json!({});
                if let Some(s) = system {
                    r["system"] = s;
                }
                r["messages"] = Value::Array(rest);
                r
            }
            _ => json!({ "messages": out }),
        },
        Err(e) => json!({ "error": e.to_string() }),
    }
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
            let response = answer(args.policy, args.format, &line);
            writeln!(stdout, "{response}")?;
            stdout.flush()?;
        }
    } else {
        let mut text = String::new();
        stdin.lock().read_to_string(&mut text)?;
        writeln!(stdout, "{}", answer(args.policy, args.format, &text))?;
    }
    Ok(ExitCode::SUCCESS)
}
