//! The seed example of the tool-group trimming document, budgets 1–7 under
//! both policies: exact messages, call ids, names and payloads, and a clean
//! bill from the checker for the reference output.

use reducer_kit::check::{check, Extras, Outcome, Request};
use reducer_kit::formats::Format;
use reducer_kit::protocol::Response;
use reducer_kit::reduce::{Input, Reference};
use reducer_kit::terms::{BudgetFields, Policy};
use serde_json::{json, Value};

fn seed() -> Vec<Value> {
    serde_json::from_value(json!([
        {"role": "user", "contents": [{"$type": "text", "text": "Check order 42 and its shipment."}]},
        {"role": "assistant", "contents": [
            {"$type": "functionCall", "callId": "order-1", "name": "GetOrder"},
            {"$type": "functionCall", "callId": "shipment-1", "name": "GetShipment"}]},
        {"role": "tool", "contents": [{"$type": "functionResult", "callId": "order-1", "result": "Paid"}]},
        {"role": "tool", "contents": [{"$type": "functionResult", "callId": "shipment-1", "result": "Shipped"}]},
        {"role": "assistant", "contents": [{"$type": "text", "text": "Your order has shipped."}]},
        {"role": "user", "contents": [{"$type": "text", "text": "When should it arrive?"}]}
    ]))
    .unwrap()
}

fn texts(out: &[Value]) -> Vec<String> {
    out.iter()
        .map(|m| {
            let role = m["role"].as_str().unwrap();
            let items: Vec<String> = m["contents"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| match c["$type"].as_str().unwrap() {
                    "text" => c["text"].as_str().unwrap().to_string(),
                    "functionCall" => format!(
                        "call {} {}",
                        c["callId"].as_str().unwrap(),
                        c["name"].as_str().unwrap()
                    ),
                    "functionResult" => format!(
                        "result {} {}",
                        c["callId"].as_str().unwrap(),
                        c["result"].as_str().unwrap()
                    ),
                    other => panic!("unexpected {other}"),
                })
                .collect();
            format!("{role}: {}", items.join(", "))
        })
        .collect()
}

const ALL: [&str; 6] = [
    "user: Check order 42 and its shipment.",
    "assistant: call order-1 GetOrder, call shipment-1 GetShipment",
    "tool: result order-1 Paid",
    "tool: result shipment-1 Shipped",
    "assistant: Your order has shipped.",
    "user: When should it arrive?",
];

fn run(policy: Policy, budget: u64) -> Vec<Value> {
    Reference::new(policy, Format::Canonical)
        .reduce(Input::new(&seed()).max_messages(&json!(budget)))
        .unwrap()
        .messages()
}

#[test]
fn suffix_budgets_one_to_seven() {
    assert_eq!(texts(&run(Policy::Suffix, 1)), ALL[5..]);
    assert_eq!(texts(&run(Policy::Suffix, 2)), ALL[4..]);
    // Budgets 3 and 4 would start inside the tool group: the start moves past
    // both results, leaving the last two messages.
    assert_eq!(texts(&run(Policy::Suffix, 3)), ALL[4..]);
    assert_eq!(texts(&run(Policy::Suffix, 4)), ALL[4..]);
    // Budget 5: the whole group fits, with both calls and both results.
    let five = run(Policy::Suffix, 5);
    assert_eq!(texts(&five), ALL[1..]);
    assert_eq!(five[0]["contents"][0]["callId"], "order-1");
    assert_eq!(five[0]["contents"][1]["name"], "GetShipment");
    assert_eq!(five[1]["contents"][0]["result"], "Paid");
    assert_eq!(five[2]["contents"][0]["result"], "Shipped");
    assert_eq!(texts(&run(Policy::Suffix, 6)), ALL);
    assert_eq!(texts(&run(Policy::Suffix, 7)), ALL);
}

#[test]
fn turns_budgets_one_to_seven() {
    for budget in 1..=5 {
        assert_eq!(
            texts(&run(Policy::Turns, budget)),
            ["user: When should it arrive?"],
            "budget {budget}"
        );
    }
    assert_eq!(run(Policy::Turns, 6), seed());
    assert_eq!(run(Policy::Turns, 7), seed());
}

#[test]
fn reference_outputs_pass_every_clause() {
    let messages = seed();
    for policy in Policy::ALL {
        for budget in 1..=7u64 {
            let max = json!(budget);
            let req = Request {
                format: Format::Canonical,
                policy,
                budget: &BudgetFields::messages(max.clone()),
                messages: &messages,
                summary: None,
                declared: Default::default(),
                provider: None,
            };
            let out = Response::Messages(run(policy, budget));
            let kept = match &out {
                Response::Messages(m) => m,
                _ => unreachable!(),
            };
            let again = Response::Messages(
                Reference::new(policy, Format::Canonical)
                    .reduce(Input::new(kept).max_messages(&max))
                    .unwrap()
                    .messages(),
            );
            let smaller =
                (budget > 1).then(|| (budget - 1, Response::Messages(run(policy, budget - 1))));
            let extras = Extras {
                repeat: Some(out.clone()),
                again: Some(again),
                smaller,
                reference: Some(out.clone()),
                reference_less_summary: None,
            };
            for v in check(&req, &out, &extras).unwrap() {
                assert!(
                    !v.failed(),
                    "{policy} budget {budget}: {} {:?}",
                    v.clause,
                    v.outcome
                );
                if budget > 1 {
                    assert_ne!(
                        v.outcome,
                        Outcome::NotJudged("needs the response for a smaller budget".into()),
                        "{}",
                        v.clause
                    );
                }
            }
        }
    }
}

#[test]
fn take_last_four_is_convicted_of_orphan_results() {
    let messages = seed();
    let max = json!(4);
    let req = Request {
        format: Format::Canonical,
        policy: Policy::Suffix,
        budget: &BudgetFields::messages(max.clone()),
        messages: &messages,
        summary: None,
        declared: Default::default(),
        provider: None,
    };
    let naive = Response::Messages(messages[2..].to_vec());
    let extras = Extras {
        reference: Some(Response::from(
            Reference::new(Policy::Suffix, Format::Canonical)
                .reduce(Input::new(&messages).max_messages(&max)),
        )),
        ..Extras::default()
    };
    let verdicts = check(&req, &naive, &extras).unwrap();
    let failed: Vec<(&str, String)> = verdicts
        .iter()
        .filter_map(|v| match &v.outcome {
            Outcome::Fail(d) => Some((v.clause.id(), d.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        failed,
        vec![
            (
                "no-orphan-result",
                "output message 0: result \"order-1\" has no call earlier in the output"
                    .to_string()
            ),
            (
                "valid-output",
                "the output breaks result-follows-call: message 0, id \"order-1\"".to_string()
            ),
            (
                "matches-reference",
                "differs from the reference: expected 2, got 4 messages, first difference at $[0].role"
                    .to_string()
            ),
        ]
    );
}
