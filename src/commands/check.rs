//! `reducer-kit check`: judge one output against every clause.

use super::{input_failure, invalid, load, FormatArg, PolicyArg};
use reducer_kit::check::{check, Extras, Outcome, Request};
use reducer_kit::formats::Format;
use reducer_kit::input::InputError;
use reducer_kit::protocol::Response;
use reducer_kit::reduce::respond;
use reducer_kit::terms::Policy;
use serde_json::Value;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The budget the output was made for (overrides the input envelope's maxMessages).
    #[arg(long = "max", value_name = "N", allow_negative_numbers = true)]
    pub max: Option<i64>,
    /// The policy to judge.
    #[arg(long, value_enum)]
    pub policy: PolicyArg,
    /// The wire format of input and output.
    #[arg(long, value_enum, default_value_t = FormatArg::Canonical)]
    pub format: FormatArg,
    /// The input: a bare array of messages, a request envelope, or JSON Lines of them.
    pub input: String,
    /// The output: a bare array of messages or a protocol response
    /// ({"messages": [...]} or {"error": "..."}); JSON Lines of them, one per input line.
    pub output: String,
}

/// Reads the output file: one response, or JSON Lines of them. Each is a bare
/// array of messages, an object with `messages`, or `{"error": "..."}`.
fn read_responses(path: &str) -> Result<Vec<Response>, ExitCode> {
    let text = std::fs::read_to_string(path).map_err(|error| {
        input_failure(&InputError::Io {
            source_name: path.to_string(),
            error,
        })
    })?;
    let values: Vec<(String, Value)> = match serde_json::from_str::<Value>(&text) {
        Ok(v) => vec![(path.to_string(), v)],
        Err(e) if text.lines().filter(|l| !l.trim().is_empty()).count() <= 1 => {
            return Err(invalid(format!("{path}: not JSON: {e}")))
        }
        Err(_) => {
            let mut out = Vec::new();
            for (n, line) in text.lines().enumerate() {
                if line.trim().is_empty() {
                    continue;
                }
                let place = format!("{path}:{}", n + 1);
                match serde_json::from_str(line) {
                    Ok(v) => out.push((place, v)),
                    Err(e) => return Err(invalid(format!("{place}: not JSON: {e}"))),
                }
            }
            out
        }
    };
    values
        .into_iter()
        .map(|(place, v)| match &v {
            Value::Array(m) => Ok(Response::Messages(m.clone())),
            Value::Object(o) if o.contains_key("error") && !o.contains_key("messages") => {
                Response::from_json(&v).map_err(|e| invalid(format!("{place}: {e}")))
            }
            Value::Object(o) => match o.get("messages") {
                Some(Value::Array(m)) => Ok(Response::Messages(m.clone())),
                _ => Err(invalid(format!("{place}: expected an array of messages, {{\"messages\": [...]}} or {{\"error\": \"...\"}}"))),
            },
            _ => Err(invalid(format!("{place}: expected an array of messages, {{\"messages\": [...]}} or {{\"error\": \"...\"}}"))),
        })
        .collect()
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let inputs = or_exit!(load(&args.input));
    let responses = or_exit!(read_responses(&args.output));
    if inputs.len() != responses.len() {
        return Ok(invalid(format!(
            "{} holds {} histories but {} holds {} responses",
            args.input,
            inputs.len(),
            args.output,
            responses.len()
        )));
    }
    let single = inputs.len() == 1;
    let (mut failed, mut passed) = (0usize, 0usize);
    for (input, response) in inputs.iter().zip(&responses) {
        let max = match input.max_messages_or(args.max) {
            Ok(m) => m,
            Err(e) => return Ok(invalid(e)),
        };
        let (format, policy) = (Format::from(args.format), Policy::from(args.policy));
        let req = Request {
            format,
            policy,
            max_messages: &max,
            messages: &input.messages,
        };
        let extras = Extras {
            reference: Some(respond(policy, format, &max, &input.messages)),
            ..Extras::default()
        };
        let verdicts = match check(&req, response, &extras) {
            Ok(v) => v,
            Err(e) => return Ok(invalid(format!("{}: {e}", input.origin))),
        };
        for v in &verdicts {
            match &v.outcome {
                Outcome::Pass => {
                    passed += 1;
                    if single {
                        outln!("pass        {}", v.clause);
                    }
                }
                Outcome::Fail(d) => {
                    failed += 1;
                    let place = if single {
                        String::new()
                    } else {
                        format!("{}: ", input.origin)
                    };
                    outln!("FAIL        {place}{}: {d}", v.clause);
                    outln!("            ({})", v.clause.definition());
                }
                Outcome::NotJudged(why) => {
                    if single {
                        outln!("not judged  {}: {why}", v.clause);
                    }
                }
            }
        }
    }
    if !single {
        outln!("{} histories judged", inputs.len());
    }
    outln!("{passed} passed, {failed} failed");
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
