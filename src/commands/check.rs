//! `reducer-kit check`: judge one output against every clause.
//!
//! Input and output pass the input gate (spec §8.11: regular files or
//! stdin, `--max-input`, the depth limit) and are read as `reduce` reads
//! its input: each file's text once, its messages as slices of it
//! ([`parse_raw_entries`]), each message's value built from its slice; the
//! text is let go before the next file is read. The reference answer is
//! the reference reducer's selection on the input
//! ([`reducer_kit::reduce::Selection`]), compared with the output message by
//! message: when they are equal the output itself is the reference
//! (borrowed, [`ExtrasRef`]), so that no third copy of the kept messages
//! is made; only a differing reference is built. Peak memory is the
//! input's and the output's values (with one file's text while its values
//! are built; benches/README.md).

use super::{input_failure, invalid, load_values, usage, BudgetArgs, FormatArg, InputLimit};
use super::{PolicyArg, ProviderArg};
use reducer_kit::check::{check, ExtrasRef, Outcome, Request};
use reducer_kit::formats::Format;
use reducer_kit::input::{check_text, read_input, source_name, Entry, Holds, TextError};
use reducer_kit::json::json_eq;
use reducer_kit::protocol::{join_system, lead_with_system_cost, Response};
use reducer_kit::reduce::{Input, Reference};
use reducer_kit::terminal::show;
use reducer_kit::terms::{Budget, BudgetFields, Policy, Provider};
use serde_json::Value;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub budget: BudgetArgs,
    /// The output may hold one summary message (spec §12): judge the summary clauses.
    #[arg(long)]
    pub summaries: bool,
    /// What a summary costs under a token budget (overrides the input envelope's summaryTokens) [default: 1].
    #[arg(long, value_name = "S", requires = "summaries")]
    pub summary_tokens: Option<u64>,
    /// The policy to judge.
    #[arg(long, value_enum)]
    pub policy: PolicyArg,
    /// The wire format of input and output.
    #[arg(long, value_enum, default_value_t = FormatArg::Canonical)]
    pub format: FormatArg,
    /// Judge under a provider profile (spec §15): `provider-accepts`.
    #[arg(long, value_enum)]
    pub provider: Option<ProviderArg>,
    #[command(flatten)]
    pub limit: InputLimit,
    /// The input: a bare array of messages, a request envelope, or JSON Lines of them; `-` for stdin.
    pub input: String,
    /// The output: a bare array of messages or a protocol response
    /// ({"messages": [...]} or {"error": "..."}); JSON Lines of them, one per input line; `-` for stdin
    /// (not both).
    pub output: String,
}

/// Reads the output file: one response, or JSON Lines of them. Each is a bare
/// array of messages, an object with `messages`, or `{"error": "..."}`.
/// Anything else is unreadable input (exit 2, [`super::EXIT_CODES`]). In
/// a format with a top-level system prompt ([`Format::system_member`]) an
/// object's member (`system`, `systemInstruction`) becomes the leading
/// system pseudo-message, as certify reads a response
/// ([`reducer_kit::protocol::response_from_json`]); an output without it has
/// dropped the system prompt.
fn read_responses(path: &str, format: Format, max: u64) -> Result<Vec<Response>, ExitCode> {
    let text = read_input(path, max).map_err(|e| input_failure(&e))?;
    let path = source_name(path);
    match check_text(&text, Holds::Histories) {
        Ok(()) => {}
        Err(TextError::TooDeep(e)) => {
            let line = e.line.map_or(String::new(), |l| format!(":{l}"));
            return Err(invalid(format!("{path}{line}: {e}")));
        }
        Err(e) => return Err(usage(format!("{path}: {e}"))),
    }
    let values: Vec<(String, Value)> = match serde_json::from_str::<Value>(&text) {
        Ok(v) => vec![(path.to_string(), v)],
        Err(e) if text.lines().filter(|l| !l.trim().is_empty()).count() <= 1 => {
            return Err(usage(format!("{path}: not JSON: {e}")))
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
                    Err(e) => return Err(usage(format!("{place}: not JSON: {e}"))),
                }
            }
            out
        }
    };
    // Each response takes its messages out of the parsed value (no copy).
    values
        .into_iter()
        .map(|(place, v)| match v {
            Value::Array(m) => {
                refuse_output_format(format, &place, &m)?;
                Ok(Response::Messages(m))
            }
            Value::Object(o) if o.contains_key("error") && !o.contains_key("messages") => {
                Response::from_json(&Value::Object(o)).map_err(|e| usage(format!("{place}: {e}")))
            }
            Value::Object(mut o) => match o.remove("messages") {
                Some(Value::Array(m)) => {
                    refuse_output_format(format, &place, &m)?;
                    let system = format.system_member().and_then(|k| o.remove(k));
                    Ok(Response::Messages(join_system(system, m)))
                }
                _ => Err(usage(format!("{place}: expected an array of messages, {{\"messages\": [...]}} or {{\"error\": \"...\"}}"))),
            },
            _ => Err(usage(format!("{place}: expected an array of messages, {{\"messages\": [...]}} or {{\"error\": \"...\"}}"))),
        })
        .collect()
}

/// Refuses an output whose messages are not in `format` at all (none has
/// its shape, some has another's), as the input is refused
/// ([`super::refuse_other_format`]): exit code 2 naming the output's place
/// (`FILE` or `FILE:LINE`) and the format its messages look like.
fn refuse_output_format(format: Format, place: &str, messages: &[Value]) -> Result<(), ExitCode> {
    reducer_kit::formats::sniff::format_mismatch(format, messages)
        .map_err(|e| usage(format!("{place}: {e}")))
}

/// The kit's message list of an input entry (spec §1.5), as certify
/// sends it ([`reducer_kit::protocol::request_from_json`]): in a format with
/// a top-level system prompt, the envelope's member (`system`,
/// `systemInstruction`) leads the messages as the system pseudo-message,
/// and its `systemTokens` leads the envelope's `tokens`.
fn kit_entry(format: Format, mut entry: Entry) -> Entry {
    let Some(key) = format.system_member() else {
        return entry;
    };
    let Some(envelope) = entry.envelope.as_mut() else {
        return entry;
    };
    let Some(system) = envelope.remove(key) else {
        return entry;
    };
    let first = envelope.remove("systemTokens");
    lead_with_system_cost(envelope.get_mut("tokens"), first);
    entry.messages = join_system(Some(system), std::mem::take(&mut entry.messages));
    entry
}

/// The reference reducer's answer to the request (the budget read, the
/// input classified, the policy's selection under the provider profile),
/// made as a [`Selection`](reducer_kit::reduce::Selection) and compared with
/// `response` message by message (spec §1.3 equality): `None` when
/// `response` is that answer, so that the caller borrows it; otherwise
/// the answer, built.
fn reference_answer(
    policy: Policy,
    format: Format,
    budget: &BudgetFields,
    messages: &[Value],
    response: &Response,
    provider: Option<Provider>,
) -> Option<Response> {
    let selection = match Reference::new(policy, format)
        .with_provider(provider)
        .reduce(Input::new(messages).budget_fields(budget))
    {
        Ok(s) => s,
        Err(e) => return Some(Response::Error(e.to_string())),
    };
    let kept = |m: usize, out: &Value| json_eq(out, &selection.kept_message(m, &messages[m]));
    match response {
        Response::Messages(out)
            if out.len() == selection.kept().len()
                && selection.kept().iter().zip(out).all(|(&m, o)| kept(m, o)) =>
        {
            None
        }
        _ => Some(Response::Messages(selection.messages())),
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let format = Format::from(args.format);
    if args.input == "-" && args.output == "-" {
        return Ok(usage(
            "INPUT and OUTPUT cannot both be `-` (stdin): give one of them as a file",
        ));
    }
    let max = args.limit.max_input;
    let inputs = or_exit!(load_values(&args.input, max));
    or_exit!(super::refuse_other_format(
        format,
        inputs.iter().map(|e| (&e.origin, &e.messages))
    ));
    let inputs: Vec<Entry> = inputs.into_iter().map(|e| kit_entry(format, e)).collect();
    let responses = or_exit!(read_responses(&args.output, format, max));
    if inputs.len() != responses.len() {
        return Ok(usage(format!(
            "{} holds {} histories but {} holds {} responses",
            reducer_kit::input::source_name(&args.input),
            inputs.len(),
            reducer_kit::input::source_name(&args.output),
            responses.len()
        )));
    }
    let budgets = or_exit!(args.budget.fields(&inputs, max));
    let single = inputs.len() == 1;
    let (mut failed, mut passed) = (0usize, 0usize);
    for ((input, response), budget) in inputs.iter().zip(&responses).zip(&budgets) {
        let (format, policy) = (Format::from(args.format), Policy::from(args.policy));
        let summary = args.summaries.then(|| {
            if budget.max_tokens.is_none() {
                return 1;
            }
            args.summary_tokens
                .or_else(|| {
                    input
                        .envelope
                        .as_ref()
                        .and_then(|o| o.get("summaryTokens"))
                        .and_then(serde_json::Value::as_u64)
                })
                .unwrap_or(1)
        });
        let provider = args.provider.map(Into::into);
        let req = Request {
            format,
            policy,
            budget,
            messages: &input.messages,
            summary,
            declared: Default::default(),
            provider,
        };
        let reference =
            reference_answer(policy, format, budget, &input.messages, response, provider);
        let less_summary = summary.and_then(|s| {
            let b = Budget::read(budget, input.messages.len()).ok()?;
            Some(Response::from(
                Reference::new(policy, format)
                    .reduce(Input::new(&input.messages).budget(&b.less(s))),
            ))
        });
        let extras = ExtrasRef {
            reference: Some(reference.as_ref().unwrap_or(response)),
            reference_less_summary: less_summary.as_ref(),
            ..ExtrasRef::default()
        };
        let verdicts = match check(&req, response, extras) {
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
                        format!("{}: ", show(&input.origin.to_string()))
                    };
                    outln!("FAIL        {place}{}: {}", v.clause, show(d));
                    // A token budget or summaries are read as spec v2
                    // reads the clause (as certify --protocol 2 prints it).
                    let definition = if budget.max_tokens.is_some() || args.summaries {
                        v.clause.definition_v2()
                    } else {
                        v.clause.definition()
                    };
                    outln!("            ({definition})");
                }
                Outcome::NotJudged(why) => {
                    if single {
                        outln!("not judged  {}: {}", v.clause, show(why));
                    }
                }
            }
        }
    }
    if !single {
        outln!("{} histories judged", inputs.len());
    }
    outln!("{passed} passed, {failed} failed");
    // The process ends now: the histories' values (a million maps for a
    // history of a million messages) are left to the operating system,
    // not freed one by one.
    std::mem::forget(inputs);
    std::mem::forget(responses);
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
