//! Tests of the parent module.

use super::*;
use crate::terms::Budget;

fn history() -> Vec<Value> {
    vec![
        json!({"role": "system", "content": "Be brief."}),
        json!({"role": "user", "content": "Hi"}),
        json!({"role": "assistant", "content": "Hello."}),
    ]
}

#[test]
fn protocol_1_requests_are_what_they_were() {
    let h = history();
    let r = request_json(Format::OpenAi, &json!(2), &h);
    assert_eq!(
        r.to_string(),
        json!({"maxMessages": 2, "messages": h}).to_string()
    );
    let r = request_json(Format::Anthropic, &json!("x"), &h);
    assert_eq!(
        r.to_string(),
        json!({"maxMessages": "x", "system": "Be brief.", "messages": h[1..]}).to_string()
    );
    let back = request_from_json(Format::Anthropic, &r).unwrap();
    assert_eq!(back.max_messages, json!("x"));
    assert_eq!(back.budget, BudgetFields::messages(json!("x")));
    assert_eq!(back.messages, h);
}

#[test]
fn token_requests_carry_the_system_cost_apart_and_come_back_whole() {
    let h = history();
    let budget = Budget::of_tokens(9, vec![4, 1, 3], false).unwrap();
    for format in Format::ALL {
        let r = request(format, &budget.to_fields(), Some(2), &h);
        let back = request_from_json(format, &r).unwrap();
        assert_eq!(back.max_messages, Value::Null, "{format}");
        assert_eq!(
            Budget::read(&back.budget, 3),
            Ok(budget.clone()),
            "{format}"
        );
        assert_eq!(back.messages, h);
        assert_eq!(r["summary"], json!(true));
        assert_eq!(r["summaryTokens"], json!(2));
    }
    let r = request(Format::Anthropic, &budget.to_fields(), None, &h);
    assert_eq!(
        r.to_string(),
        r#"{"maxTokens":9,"tokens":[1,3],"countPinned":false,"system":"Be brief.","systemTokens":4,"messages":[{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello."}]}"#
    );
    // A message budget with summaries: S is 1 and not sent.
    let r = request(
        Format::OpenAi,
        &BudgetFields::messages(json!(2)),
        Some(1),
        &h,
    );
    assert_eq!(r.get("summaryTokens"), None);
    assert_eq!(r["summary"], json!(true));
}

#[test]
fn a_missing_system_cost_leaves_tokens_one_short() {
    let r = json!({"maxTokens": 5, "tokens": [1, 1], "system": "S",
                   "messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]});
    let back = request_from_json(Format::Anthropic, &r).unwrap();
    assert_eq!(back.messages.len(), 3);
    assert_eq!(
        Budget::read(&back.budget, 3).unwrap_err().to_string(),
        "tokens must be an array with one cost per message (3 messages), got 2 costs"
    );
    // In a format without a top-level system prompt, systemTokens is not read.
    let back = request_from_json(
        Format::OpenAi,
        &json!({"maxTokens": 5, "tokens": [1], "systemTokens": 3, "messages": [{"role": "user"}]}),
    )
    .unwrap();
    assert_eq!(back.budget.tokens, Some(json!([1])));
}

#[test]
fn a_response_read_by_value_is_the_response_read_by_reference() {
    let objects = [
        json!({"messages": history()}),
        json!({"system": "Be brief.", "messages": [{"role": "user", "content": "Hi"}]}),
        json!({"systemInstruction": {"parts": []}, "messages": []}),
        json!({"error": "maxMessages must be >= 1"}),
        json!({"messages": [], "error": "both"}),
        json!({"messages": {}}),
        json!({"error": 3}),
        json!({}),
        json!([]),
    ];
    for format in Format::ALL {
        for o in &objects {
            let by_ref = response_from_json(format, o).map_err(|e| e.to_string());
            let by_value = response_from_value(format, o.clone()).map_err(|e| e.to_string());
            assert_eq!(by_value, by_ref, "{format} {o}");
        }
    }
    assert_eq!(
        response_from_value(
            Format::Anthropic,
            json!({"system": "S", "messages": [{"role": "user", "content": "Hi"}]})
        )
        .unwrap(),
        Response::Messages(vec![
            json!({"role": "system", "content": "S"}),
            json!({"role": "user", "content": "Hi"})
        ])
    );
}

#[test]
fn request_text_is_the_request_objects_text() {
    let pseudo = json!({"role": "system", "content": "Be brief."});
    let histories = [
        history(),
        vec![],
        vec![pseudo.clone()],
        vec![
            json!({"content": "first", "role": "system"}),
            json!({"role": "user", "content": "Hi"}),
        ],
        vec![
            json!({"role": "system", "content": "S", "name": "x"}),
            json!({"role": "user", "content": "é\"\n"}),
        ],
    ];
    let budgets = [
        BudgetFields::messages(json!(3)),
        BudgetFields::messages(json!("3")),
        BudgetFields::messages(Value::Null),
        BudgetFields::tokens(json!(10), json!([4, 3, 2]), None),
        BudgetFields::tokens(json!(10), json!([]), Some(json!(true))),
        BudgetFields::tokens(json!(0), json!("3"), Some(json!("yes"))),
        BudgetFields {
            max_messages: Some(json!(2)),
            max_tokens: Some(json!(5)),
            tokens: Some(json!([1, 1, 1])),
            count_pinned: Some(json!(false)),
        },
        BudgetFields::default(),
    ];
    for format in Format::ALL {
        for h in &histories {
            for b in &budgets {
                for summary in [None, Some(2)] {
                    assert_eq!(
                        request_text(format, b, summary, h),
                        request(format, b, summary, h).to_string(),
                        "{format} {b:?} {summary:?} {h:?}"
                    );
                    // Every budget after every other, the text shared
                    // or not.
                    let before = OutgoingRequest::new(format, b, summary, h);
                    for other in &budgets {
                        assert_eq!(
                            before.with_budget(other).text(),
                            request(format, other, summary, h).to_string(),
                            "{format} {b:?} -> {other:?} {summary:?} {h:?}"
                        );
                    }
                }
            }
        }
    }
}
