//! One message changed, one clause (spec §6.3, §9.1): an answer that is
//! the reference's but for a change to the pinned system message fails
//! `no-fabrication` alone, which says what changed; `budget` and
//! `system-pinned` read the changed message as the pinned one by its place
//! and role. On the tau-bench sample's conversations, in the OpenAI
//! format, under both policies.

use reducer_kit::check::{check, Extras, Outcome, Request};
use reducer_kit::formats::Format;
use reducer_kit::protocol::Response;
use reducer_kit::reduce::{Input, Reference};
use reducer_kit::terms::{BudgetFields, Policy};
use serde_json::{json, Value};

/// The first `n` conversations of the tau-bench sample (OpenAI format).
fn conversations(n: usize) -> Vec<Vec<Value>> {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/tau-bench/sample.jsonl"),
    )
    .unwrap();
    text.lines()
        .take(n)
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            v["messages"].as_array().unwrap().clone()
        })
        .collect()
}

/// The failed clauses of `output` as the answer to `input` under
/// `policy` and budget `max`, with their details.
fn failures(
    policy: Policy,
    max: u64,
    input: &[Value],
    output: Vec<Value>,
) -> Vec<(String, String)> {
    let budget = json!(max);
    let reference = respond(policy, Format::OpenAi, &budget, input);
    let req = Request {
        format: Format::OpenAi,
        policy,
        budget: &BudgetFields::messages(budget),
        messages: input,
        summary: None,
        declared: Default::default(),
        provider: None,
    };
    let extras = Extras {
        reference: Some(reference),
        ..Extras::default()
    };
    check(&req, &Response::Messages(output), &extras)
        .unwrap()
        .into_iter()
        .filter_map(|v| match v.outcome {
            Outcome::Fail(d) => Some((v.clause.id().to_string(), d)),
            _ => None,
        })
        .collect()
}

#[test]
fn a_changed_pinned_system_message_fails_no_fabrication_alone() {
    let mut cases = 0;
    for mut input in conversations(5) {
        assert_eq!(input[0]["role"], "system");
        // What the input's pinned message holds: a long integer, and a
        // NUL in its text.
        input[0]["metadata"] =
            serde_json::from_str(r#"{"big": 123456789012345678901234567890}"#).unwrap();
        let text = input[0]["content"].as_str().unwrap().to_string();
        let (head, tail) = text.split_at(text.len() / 2);
        input[0]["content"] = Value::String(format!("{head}\u{0}{tail}"));
        for policy in [Policy::Turns, Policy::Suffix] {
            for max in [3, 8, 20] {
                let Response::Messages(reference) =
                    respond(policy, Format::OpenAi, &json!(max), &input)
                else {
                    panic!("the reference answers")
                };
                assert_eq!(reference[0], input[0]);
                assert_eq!(failures(policy, max, &input, reference.clone()), []);
                // A reader of doubles writes the long integer back as the
                // nearest double; another writer escapes the NUL twice.
                let mut doubled = reference.clone();
                doubled[0]["metadata"]["big"] =
                    serde_json::from_str("1.2345678901234568e29").unwrap();
                let mut escaped = reference.clone();
                escaped[0]["content"] = Value::String(format!("{head}\\u0000{tail}"));
                for (changed, what) in [
                    (
                        doubled,
                        "changed at $.metadata.big: 123456789012345678901234567890 became 1.2345678901234568e+29",
                    ),
                    (escaped, "changed at $.content: "),
                ] {
                    let failed = failures(policy, max, &input, changed);
                    let clauses: Vec<&str> = failed.iter().map(|(c, _)| c.as_str()).collect();
                    assert_eq!(clauses, ["no-fabrication"], "{policy} {max}: {failed:?}");
                    let detail = &failed[0].1;
                    assert!(
                        detail.starts_with(
                            "output message 0 is no input message: it is input message 0 "
                        ) && detail.contains(what),
                        "{detail}"
                    );
                    cases += 1;
                }
            }
        }
    }
    assert_eq!(cases, 5 * 2 * 3 * 2);
}

/// A system message the output puts elsewhere, or that comes from another
/// input message, is not the pinned one by place: dropping the pinned
/// message still fails `system-pinned`, and a later system message put
/// first still counts against the budget.
#[test]
fn a_system_message_out_of_place_is_not_the_pinned_one() {
    let input = conversations(1).remove(0);
    let Response::Messages(reference) = respond(Policy::Suffix, Format::OpenAi, &json!(3), &input)
    else {
        panic!("the reference answers")
    };
    // The pinned message dropped: system-pinned fails.
    let failed = failures(Policy::Suffix, 3, &input, reference[1..].to_vec());
    assert!(
        failed.iter().any(|(c, _)| c == "system-pinned"),
        "{failed:?}"
    );
    // A changed pinned message moved to the end stands in no place of the
    // pinned one: system-pinned and no-fabrication fail.
    let mut moved = reference[1..].to_vec();
    let mut changed = reference[0].clone();
    changed["content"] = Value::String("changed".into());
    moved.push(changed);
    let failed = failures(Policy::Suffix, 3, &input, moved);
    let clauses: Vec<&str> = failed.iter().map(|(c, _)| c.as_str()).collect();
    assert!(
        clauses.contains(&"system-pinned") && clauses.contains(&"no-fabrication"),
        "{failed:?}"
    );
}

/// The reference's answer to `input` under `policy` and the budget
/// `maxMessages: max`, in `format`.
fn respond(policy: Policy, format: Format, max: &Value, input: &[Value]) -> Response {
    Response::from(Reference::new(policy, format).reduce(Input::new(input).max_messages(max)))
}
