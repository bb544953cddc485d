//! The committed tau-bench sample (real OpenAI-format tool-using
//! conversations): every conversation validates, and is reduced with every
//! budget from 1 to its length under both policies with every clause passing.

use reducer_kit::check::{check_reducer, Outcome, Request};
use reducer_kit::formats::{view_history, Format};
use reducer_kit::input::read_entries;
use reducer_kit::reduce::{reduce, reference, respond};
use reducer_kit::terms::Policy;
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
            for budget in 1..=e.messages.len() {
                let max = json!(budget);
                let req = Request {
                    format: Format::OpenAi,
                    policy,
                    max_messages: &max,
                    messages: &e.messages,
                };
                for v in check_reducer(
                    &req,
                    reference(policy, Format::OpenAi),
                    Some(respond(
                        policy,
                        Format::OpenAi,
                        req.max_messages,
                        req.messages,
                    )),
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
    let run = |policy, max: u64| reduce(policy, Format::OpenAi, m, &json!(max)).unwrap();
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
