//! Tests of the parent module.

use super::*;
use crate::certify::generated_case;
use crate::formats::to_wire;
use crate::protocol::Protocol;

/// `keeps_all` is true only for every message, in order, none losing
/// an item.
#[test]
fn keeps_all_means_the_history_itself() {
    let whole = Selection {
        kept: vec![0, 1, 2],
        stripped: vec![],
    };
    assert!(whole.keeps_all(3));
    assert!(!whole.keeps_all(4));
    assert!(Selection::default().keeps_all(0));
    assert!(!Selection::default().keeps_all(1));
    let fewer = Selection {
        kept: vec![1, 2],
        stripped: vec![],
    };
    assert!(!fewer.keeps_all(2));
    let stripped = Selection {
        kept: vec![0, 1],
        stripped: vec![(1, vec![0])],
    };
    assert!(!stripped.keeps_all(2));
}

/// The reference answer on an input classified beforehand is the one
/// `respond_request_with` gives, in every format, policy and provider
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
                    let plain = respond_request_with(policy, format, &case.budget, &wire, provider);
                    let classified = respond_request_classified(
                        policy,
                        format,
                        &case.budget,
                        &wire,
                        &history,
                        provider,
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
    let plain = respond_request_with(Policy::Turns, Format::Canonical, &budget, &wire, None);
    assert!(matches!(&plain, Response::Error(_)), "{plain:?}");
    assert_eq!(
        respond_request_classified(
            Policy::Turns,
            Format::Canonical,
            &budget,
            &wire,
            &history,
            None
        ),
        plain
    );
}
