//! `reducer-kit reduce`: the reference reducer on the command line, under
//! a message budget or a token budget (spec §13.5: `--max-tokens`,
//! `--tokens FILE`, `--costs text-length`, `--count-pinned`, or the
//! envelope's `maxTokens`, `tokens`, `countPinned`).
//!
//! The input is read without building its values (each message is a slice
//! of the input text, classified by [`read_history_raw`]); every history is
//! reduced to a [`Selection`] first ([`Reference::reduce`] on an
//! [`Input::history`]: indices, no values), so that nothing is written on
//! error, and the kept messages are then written from their
//! input bytes, laid out as before ([`Relayer`]: pretty for one history,
//! one line per history for JSON Lines). Only a message that loses items
//! is parsed and re-serialised. Token budgets take the same path: the
//! costs are read before the messages (an envelope's members, the
//! `--tokens` file), and `--costs text-length` parses each message once for
//! its compact JSON.

use super::{invalid, BudgetArgs, BudgetSource, Histories, PolicyArg, ProviderArg};
use reducer_kit::formats::{read_history_raw, Format};
use reducer_kit::input::{parse_raw_entries, read_input, source_name, RawEntry};
use reducer_kit::json::Relayer;
use reducer_kit::protocol::lead_with_system_cost;
use reducer_kit::reduce::{Input, Reference, Selection};
use reducer_kit::terms::provider::{server_id, ProviderRule};
use reducer_kit::terms::{Budget, Policy, Provider};
use serde_json::value::RawValue;
use serde_json::Value;
use std::io::Write;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub budget: BudgetArgs,
    /// The policy.
    #[arg(long, value_enum, default_value_t = PolicyArg::Turns)]
    pub policy: PolicyArg,
    /// Honour a provider profile (spec §15.4).
    #[arg(long, value_enum)]
    pub provider: Option<ProviderArg>,
    #[command(flatten)]
    pub input: Histories,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let text = match read_input(&args.input.file, args.input.limit.max_input) {
        Ok(t) => t,
        Err(e) => return Ok(super::input_failure(&e)),
    };
    let entries = match parse_raw_entries(&text, source_name(&args.input.file)) {
        Ok(e) => e,
        Err(e) => return Ok(super::input_failure(&e)),
    };
    let format = Format::from(args.input.format);
    or_exit!(super::refuse_other_format(
        format,
        entries
            .iter()
            .map(|e| (&e.origin, super::parsed(&e.messages)))
    ));
    let policy = Policy::from(args.policy);
    let jsonl = entries.len() > 1 || entries.first().is_some_and(|e| e.origin.line.is_some());
    // In a format with a top-level system prompt (Anthropic and Bedrock
    // `system`, Gemini `systemInstruction`) that member is the pinned
    // system message, the first of the kit's list, as check, serve and
    // certify read it (spec §1.5, §14): it is kept and, with
    // countPinned, counted. Its cost is the envelope's `systemTokens`
    // before its `tokens`, the first cost of a --tokens file, or its text
    // length. The member itself is written back as it came.
    let pseudo: Vec<Option<Box<RawValue>>> = entries
        .iter()
        .map(|e| super::system_pseudo(format, e))
        .collect();
    let entries = super::lead_with_pseudo(entries, &pseudo);
    // A repair reads no budget (spec §17.1): without one, none is asked
    // for, and one that limits nothing stands in (not written back).
    let unbudgeted = policy == Policy::Repair
        && args.budget.max.is_none()
        && args.budget.max_tokens.is_none()
        && entries
            .iter()
            .all(|e| e.member("maxMessages").is_none() && e.member("maxTokens").is_none());
    let budget_args = if unbudgeted {
        BudgetArgs {
            max: Some(Value::from(u64::MAX)),
            ..args.budget.clone()
        }
    } else {
        args.budget.clone()
    };
    let mut budgets = match budget_args.fields(&entries, args.input.limit.max_input) {
        Ok(b) => b,
        Err(code) => return Ok(code),
    };
    if args.budget.tokens.is_none() && args.budget.costs.is_none() {
        for ((e, fields), p) in entries.iter().zip(&mut budgets).zip(&pseudo) {
            if p.is_some() {
                lead_with_system_cost(fields.tokens.as_mut(), e.member("systemTokens"));
            }
        }
    }
    // Each entry's budget and history are read, then reduced; the first
    // error, in entry order, is the one reported. The histories are read
    // up to the first entry that cannot be (its error comes after those of
    // the entries before it), then the entries before it are reduced.
    let mut read = Vec::with_capacity(entries.len());
    let mut unreadable = None;
    for (e, fields) in entries.iter().zip(&budgets) {
        let budget = match Budget::read(fields, e.messages.len()) {
            Ok(b) => b,
            Err(err) => {
                unreadable = Some(format!("{}: {err}", e.origin));
                break;
            }
        };
        match read_history_raw(format, &e.messages) {
            Ok(h) => read.push((budget, h)),
            Err(err) => {
                unreadable = Some(format!("{}: {err}", e.origin));
                break;
            }
        }
    }
    let provider: Option<Provider> = args.provider.map(Into::into);
    let reference = Reference::new(policy, format).with_provider(provider);
    // The server ids a profile's `required-reasoning` rule reads (spec
    // §15.3), from each message's text: only under such a profile.
    let needs_ids = provider.is_some_and(|p| p.rules().contains(&ProviderRule::RequiredReasoning));
    let mut reduced = Vec::with_capacity(read.len());
    for (e, (budget, history)) in entries.iter().zip(&read) {
        let owned: Vec<Option<String>> = if needs_ids {
            e.messages
                .iter()
                .map(|m| {
                    serde_json::from_str::<Value>(m.get())
                        .ok()
                        .and_then(|v| server_id(&v).map(str::to_string))
                })
                .collect()
        } else {
            Vec::new()
        };
        let ids: Vec<Option<&str>> = owned.iter().map(Option::as_deref).collect();
        let mut input = Input::history(history).budget(budget);
        if needs_ids {
            input = input.server_ids(&ids);
        }
        match reference.reduce(input) {
            Ok(s) => reduced.push(s),
            Err(err) => return Ok(invalid(format!("{}: {err}", e.origin))),
        }
    }
    if let Some(message) = unreadable {
        return Ok(invalid(message));
    }
    // A closed stdout (piped into `head`) is not an error.
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let overrides = args.budget.envelope_overrides();
    for ((e, selection), p) in entries.iter().zip(&reduced).zip(&pseudo) {
        // The system pseudo-message (index 0) is written by its member.
        let written = write_entry(&mut out, e, &overrides, selection, p.is_some(), !jsonl);
        if written.is_err() {
            return Ok(ExitCode::SUCCESS);
        }
    }
    let _ = out.flush();
    Ok(ExitCode::SUCCESS)
}

/// Writes one reduced entry and a newline: as the entry came (a bare array,
/// or its envelope with `messages` last), the kept messages from their
/// input bytes (with `without_system`, the system pseudo-message, index 0,
/// is left out: the envelope's member writes it). An envelope's budget members say the budget used:
/// `overrides` ([`super::BudgetArgs::envelope_overrides`]) replace a
/// member in place, add it before `messages`, or (`None`) drop it.
fn write_entry(
    out: &mut impl Write,
    e: &RawEntry,
    overrides: &[(&str, Option<Value>)],
    selection: &Selection,
    without_system: bool,
    pretty: bool,
) -> std::io::Result<()> {
    let mut r = Relayer::new(pretty);
    if let Some(members) = &e.envelope {
        r.feed("{", out)?;
        let mut member = |key: &str, value: &str, out: &mut _| -> std::io::Result<()> {
            r.feed(&serde_json::to_string(key)?, out)?;
            r.feed(":", out)?;
            r.feed(value, out)?;
            r.feed(",", out)
        };
        for (key, value) in members {
            match overrides.iter().find(|(k, _)| k == key) {
                None => member(key, value.get(), out)?,
                Some((_, Some(v))) => member(key, &v.to_string(), out)?,
                Some((_, None)) => {}
            }
        }
        for (key, value) in overrides {
            if let (Some(v), false) = (value, members.iter().any(|(k, _)| k == key)) {
                member(key, &v.to_string(), out)?;
            }
        }
        r.feed("\"messages\"", out)?;
        r.feed(":", out)?;
    }
    r.feed("[", out)?;
    let kept = selection.kept().iter().copied();
    for (n, m) in kept.filter(|&m| !without_system || m > 0).enumerate() {
        if n > 0 {
            r.feed(",", out)?;
        }
        let raw = e.messages[m].get();
        match selection.removed(m) {
            [] => r.feed(raw, out)?,
            _ => {
                let value: Value = serde_json::from_str(raw)?;
                r.feed(
                    &serde_json::to_string(&selection.kept_message(m, &value))?,
                    out,
                )?;
            }
        }
    }
    r.feed("]", out)?;
    if e.envelope.is_some() {
        r.feed("}", out)?;
    }
    out.write_all(b"\n")
}
