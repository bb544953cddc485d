//! `reducer-kit check`: judge one output against every clause.

use super::{input_failure, invalid, load};
use reducer_kit::check::{check, Extras, Outcome, Request, Response};
use reducer_kit::format::Format;
use reducer_kit::input::{parse_entries, InputError};
use reducer_kit::reduce::Policy;
use serde_json::Value;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The budget the output was made for (overrides the input envelope's maxMessages).
    #[arg(long = "max", value_name = "N", allow_negative_numbers = true)]
    pub max: Option<i64>,
    /// The policy to judge.
    #[arg(long, value_enum)]
    pub policy: Policy,
    /// The wire format of input and output.
    #[arg(long, value_enum, default_value_t = Format::Canonical)]
    pub format: Format,
    /// The input: a bare array of messages or a request envelope.
    pub input: String,
    /// The output: a bare array of messages, or a protocol response
    /// ({"messages": [...]} or {"error": "..."}).
    pub output: String,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let inputs = match load(&args.input) {
        Ok(e) => e,
        Err(code) => return Ok(code),
    };
    if inputs.len() != 1 {
        return Ok(invalid(format!(
            "{}: holds {} histories; check takes one",
            args.input,
            inputs.len()
        )));
    }
    let input = &inputs[0];
    let text = match std::fs::read_to_string(&args.output) {
        Ok(t) => t,
        Err(error) => {
            return Ok(input_failure(&InputError::Io {
                source_name: args.output.clone(),
                error,
            }))
        }
    };
    let value: Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => return Ok(invalid(format!("{}: not JSON: {e}", args.output))),
    };
    let response = match &value {
        Value::Array(m) => Response::Messages(m.clone()),
        Value::Object(o) if o.contains_key("error") && !o.contains_key("messages") => {
            match Response::from_json(&value) {
                Ok(r) => r,
                Err(e) => return Ok(invalid(format!("{}: {e}", args.output))),
            }
        }
        _ => match parse_entries(&text, &args.output) {
            Ok(mut e) if e.len() == 1 => Response::Messages(e.remove(0).messages),
            Ok(_) => {
                return Ok(invalid(format!(
                    "{}: holds more than one history",
                    args.output
                )))
            }
            Err(e) => return Ok(input_failure(&e)),
        },
    };
    let max = match (args.max, &input.max_messages) {
        (Some(n), _) => Value::from(n),
        (None, Some(m)) => m.clone(),
        (None, None) => {
            return Ok(invalid(format!(
                "{}: no budget: pass --max N or give maxMessages",
                input.origin
            )))
        }
    };
    let req = Request {
        format: args.format,
        policy: args.policy,
        max_messages: &max,
        messages: &input.messages,
    };
    let verdicts = match check(&req, &response, &Extras::default()) {
        Ok(v) => v,
        Err(e) => return Ok(invalid(format!("{}: {e}", input.origin))),
    };
    let mut failed = 0;
    for v in &verdicts {
        match &v.outcome {
            Outcome::Pass => println!("pass        {}", v.clause),
            Outcome::Fail(d) => {
                failed += 1;
                println!("FAIL        {}: {d}", v.clause);
                println!("            ({})", v.clause.definition());
            }
            Outcome::NotJudged(why) => println!("not judged  {}: {why}", v.clause),
        }
    }
    let passed = verdicts
        .iter()
        .filter(|v| v.outcome == Outcome::Pass)
        .count();
    println!("{passed} passed, {failed} failed");
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
