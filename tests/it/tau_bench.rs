//! The committed tau-bench sample (real OpenAI-format tool-using
//! conversations): every conversation validates, and is reduced with every
//! budget from 1 to its length under both policies with every clause passing.

use reducer_kit::check::{check_reducer, Outcome, Request};
use reducer_kit::formats::{view_history, Format};
use reducer_kit::input::read_entries;
use reducer_kit::protocol::Response;
use reducer_kit::reduce::{Input, Reference};
use reducer_kit::terms::{BudgetFields, Policy};
use reducer_kit::validate::{validate, Options};
use serde_json::json;

fn sample() -> Vec<reducer_kit::input::Entry> {
    read_entries(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/corpus/tau-bench/sample.jsonl"
    ))
    .unwrap()
}

#[test]
fn sample_is_twenty_valid_conversations() {
    let entries = sample();
    assert_eq!(entries.len(), 20);
    for e in &entries {
        let views = view_history(Format::OpenAi, &e.messages).unwrap();
        assert_eq!(validate(&views, Options::default()), vec![], "{}", e.origin);
        assert_eq!(e.messages[0]["role"], "system", "{}", e.origin);
    }
}

#[test]
fn every_budget_both_policies_every_clause() {
    let mut judged = 0;
    for e in sample() {
        for policy in Policy::ALL {
            let reference = Reference::new(policy, Format::OpenAi);
            for budget in 1..=e.messages.len() {
                let max = json!(budget);
                let req = Request {
                    format: Format::OpenAi,
                    policy,
                    budget: &BudgetFields::messages(max.clone()),
                    messages: &e.messages,
                    summary: None,
                    declared: Default::default(),
                    provider: None,
                };
                for v in check_reducer(
                    &req,
                    |b, m| Response::from(reference.reduce(Input::new(m).budget_fields(b))),
                    Some(Response::from(reference.reduce(
                        Input::new(req.messages).max_messages(req.budget.max_messages_or_null()),
                    ))),
                )
                .unwrap()
                {
                    if let Outcome::Fail(d) = &v.outcome {
                        panic!("{} {policy} budget {budget}: {}: {d}", e.origin, v.clause);
                    }
                    judged += usize::from(v.outcome == Outcome::Pass);
                }
            }
        }
    }
    assert!(judged > 10_000, "only {judged} clause passes");
}

/// Conversation 8 of the sample (task 10): system, user, assistant, user,
/// assistant with a tool call, tool, assistant,
/// user, assistant call, tool — turns are [1,2], [3..=6], [7..=9].
#[test]
fn exact_selections_on_a_real_conversation() {
    let e = &sample()[8];
    assert_eq!(e.envelope.as_ref().unwrap()["task_id"], 10);
    let m = &e.messages;
    let pick = |idx: &[usize]| idx.iter().map(|&i| m[i].clone()).collect::<Vec<_>>();
    let run = |policy, max: u64| {
        Reference::new(policy, Format::OpenAi)
            .reduce(Input::new(m).max_messages(&json!(max)))
            .unwrap()
            .messages()
    };
    // turns, 4: the newest turn (3 messages) fits, the one before (4) does not.
    assert_eq!(run(Policy::Turns, 4), pick(&[0, 7, 8, 9]));
    // turns, 2: overflow; the question and the last message, a tool result
    // whose call was cut, so it is removed as an orphan.
    assert_eq!(run(Policy::Turns, 2), pick(&[0, 7]));
    // suffix, 2: the call and its result.
    assert_eq!(run(Policy::Suffix, 2), pick(&[0, 8, 9]));
    assert_eq!(m[8]["tool_calls"][0]["id"], m[9]["tool_call_id"]);
    // suffix, 1: the only candidate is a tool message, so nothing but the system prompt.
    assert_eq!(run(Policy::Suffix, 1), pick(&[0]));
    assert_eq!(run(Policy::Turns, 9), pick(&[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]));
}

/// `corpus/tau-bench/sample.responses.jsonl` is the sample in OpenAI
/// Responses form (spec §14.1), made by the kit's own converters (OpenAI
/// → canonical → Responses), each line `{"task_id", "trial", "messages"}`
/// (`messages` holding the Responses `input` items, as the runner protocol
/// carries them);
/// converted back to canonical it is the sample's canonical form. A conversation Responses
/// cannot carry (an assistant message with text beside its call: the text
/// would come back as an item of its own) is left out, never altered.
/// `REDUCER_KIT_WRITE_SAMPLES=1` rewrites it.
#[test]
fn the_responses_sample_is_the_sample_converted_and_round_trips() {
    use reducer_kit::formats::{from_wire, to_wire};
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/corpus/tau-bench/sample.responses.jsonl"
    );
    let mut lines = String::new();
    let mut carried = Vec::new();
    let mut skipped = Vec::new();
    for e in sample() {
        let canonical = from_wire(Format::OpenAi, &e.messages).unwrap();
        let items = match to_wire(Format::Responses, &canonical) {
            Ok(items) => items,
            Err(err) => {
                skipped.push(format!("line {}: {err}", e.origin.line.unwrap_or(0)));
                continue;
            }
        };
        carried.push(e.clone());
        let obj = e.with_messages(items);
        lines.push_str(&serde_json::to_string(&obj).unwrap());
        lines.push('\n');
    }
    if std::env::var_os("REDUCER_KIT_WRITE_SAMPLES").is_some() {
        std::fs::write(path, &lines).unwrap();
    }
    let committed = std::fs::read_to_string(path).unwrap();
    assert_eq!(committed, lines, "rewrite with REDUCER_KIT_WRITE_SAMPLES=1");
    let mut items_total = 0;
    for (line, e) in committed.lines().zip(&carried) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let items = v["messages"].as_array().unwrap();
        items_total += items.len();
        let views = view_history(Format::Responses, items).unwrap();
        assert_eq!(validate(&views, Options::default()), vec![], "{}", e.origin);
        // Back to canonical: the same history as the OpenAI sample's
        // canonical form (arguments are JSON values there, so their text
        // spacing is not part of the history).
        let back = serde_json::Value::Array(from_wire(Format::Responses, items).unwrap());
        let want = serde_json::Value::Array(from_wire(Format::OpenAi, &e.messages).unwrap());
        assert!(reducer_kit::json::json_eq(&back, &want), "{}", e.origin);
    }
    eprintln!("{skipped:#?}");
    assert_eq!(committed.lines().count(), carried.len());
    assert_eq!((carried.len(), skipped.len(), items_total), (14, 6, 380));
    assert!(skipped[0].starts_with("line 6: message 24: calls beside other items"));
}

/// The Responses sample reduced at several budgets under both policies,
/// without a profile and with `openai-responses`: every clause passes.
#[test]
fn the_responses_sample_reduces_with_every_clause() {
    use reducer_kit::check::check_reducer;
    use reducer_kit::terms::Provider;
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/corpus/tau-bench/sample.responses.jsonl"
    );
    let mut judged = 0;
    for line in std::fs::read_to_string(path).unwrap().lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let items = v["messages"].as_array().unwrap();
        for provider in [None, Some(Provider::OpenAiResponses)] {
            for policy in Policy::ALL {
                for budget in [1, 2, 3, 5, 8, 13, 21, 1000] {
                    let max = json!(budget);
                    let req = Request {
                        format: Format::Responses,
                        policy,
                        budget: &BudgetFields::messages(max.clone()),
                        messages: items,
                        summary: None,
                        declared: Default::default(),
                        provider: None,
                    };
                    let reference =
                        Reference::new(policy, Format::Responses).with_provider(provider);
                    let expected =
                        Response::from(reference.reduce(Input::new(items).max_messages(&max)));
                    let verdicts = check_reducer(
                        &Request { provider, ..req },
                        |b, m| Response::from(reference.reduce(Input::new(m).budget_fields(b))),
                        Some(expected),
                    )
                    .unwrap();
                    let failed: Vec<_> = verdicts.iter().filter(|v| v.failed()).collect();
                    assert!(
                        failed.is_empty(),
                        "{policy} {budget} {provider:?}: {failed:?}"
                    );
                    judged += 1;
                }
            }
        }
    }
    assert_eq!(judged, 14 * 2 * 2 * 8);
}
