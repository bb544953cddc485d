//! Tests of the parent module.

use super::*;
use crate::certify::generated_case;
use crate::formats::to_wire;
use crate::protocol::Protocol;

/// A selection of a history of `len` messages, with these indices.
fn selection(
    len: usize,
    kept: Vec<usize>,
    stripped: Vec<(usize, Vec<usize>)>,
) -> Selection<'static> {
    let user: Value =
        serde_json::json!({"role": "user", "contents": [{"$type": "text", "text": "q"}]});
    let messages = vec![user; len];
    let history = read_history(Format::Canonical, &messages).unwrap();
    Selection {
        kept,
        stripped,
        format: Format::Canonical,
        messages: None,
        history: std::borrow::Cow::Owned(history),
    }
}

/// `keeps_all` is true only for every message, in order, none losing
/// an item.
#[test]
fn keeps_all_means_the_history_itself() {
    assert!(selection(3, vec![0, 1, 2], vec![]).keeps_all());
    assert!(!selection(4, vec![0, 1, 2], vec![]).keeps_all());
    assert!(selection(0, vec![], vec![]).keeps_all());
    assert!(!selection(1, vec![], vec![]).keeps_all());
    assert!(!selection(2, vec![1, 2], vec![]).keeps_all());
    assert!(!selection(2, vec![0, 1], vec![(1, vec![0])]).keeps_all());
}

/// The reference answer on an input classified beforehand is the one
/// the reference gives on the messages alone, in every format, policy and provider
/// profile, under message and token budgets, errors included.
#[test]
fn a_classified_input_gets_the_same_answer() {
    let (mut kept, mut errors) = (0, 0);
    for format in Format::ALL {
        for n in 0..30 {
            let protocol = if n % 2 == 0 {
                Protocol::V1
            } else {
                Protocol::V2
            };
            let case = generated_case(5, n, format, protocol);
            let Ok(wire) = to_wire(format, &case.messages) else {
                continue;
            };
            let history = read_history(format, &wire).unwrap();
            for policy in Policy::ALL {
                for provider in std::iter::once(None).chain(Provider::ALL.map(Some)) {
                    let reference = Reference::new(policy, format).with_provider(provider);
                    let plain = Response::from(
                        reference.reduce(Input::new(&wire).budget_fields(&case.budget)),
                    );
                    let classified = Response::from(
                        reference
                            .reduce(Input::classified(&wire, &history).budget_fields(&case.budget)),
                    );
                    assert_eq!(
                        classified, plain,
                        "{format} {policy} {provider:?} {}",
                        case.id
                    );
                    match plain {
                        Response::Messages(_) => kept += 1,
                        Response::Error(_) => errors += 1,
                        Response::Unsupported(_) => {
                            unreachable!("the reference never answers unsupported")
                        }
                    }
                }
            }
        }
    }
    assert!(kept > 1_000 && errors > 0, "{kept} kept, {errors} errors");

    // A pinned system message that costs more than the budget counted
    // with it: the same error both ways.
    let wire: Vec<Value> = serde_json::from_str(
        r#"[{"role":"system","contents":[{"type":"text","text":"s"}]},
            {"role":"user","contents":[{"type":"text","text":"q"}]}]"#,
    )
    .unwrap();
    let budget = BudgetFields::tokens(
        Value::from(3),
        serde_json::json!([5, 1]),
        Some(Value::Bool(true)),
    );
    let history = read_history(Format::Canonical, &wire).unwrap();
    let turns = Reference::new(Policy::Turns, Format::Canonical);
    let plain = Response::from(turns.reduce(Input::new(&wire).budget_fields(&budget)));
    assert!(matches!(&plain, Response::Error(_)), "{plain:?}");
    assert_eq!(
        Response::from(turns.reduce(Input::classified(&wire, &history).budget_fields(&budget))),
        plain
    );
}
