//! The Anthropic Messages format: views, conversion both ways, the system
//! pseudo-message, reference reduction and the checker on Anthropic
//! histories, and the round trip on generated histories.

use reducer_kit::certify::job::Unwatched;
use reducer_kit::certify::session::{InProcessSession, ReferenceSession, RunError};
use reducer_kit::check::{check_reducer, Outcome, Request};
use reducer_kit::formats::anthropic::{from_anthropic, to_anthropic};
use reducer_kit::formats::gemini::{from_gemini, to_gemini};
use reducer_kit::formats::{strip_items, view_history, view_message, Format};
use reducer_kit::generate::{seeded_cases, Config};
use reducer_kit::json::json_eq;
use reducer_kit::protocol::{join_system, split_system, Response};
use reducer_kit::reduce::{Input, Reference};
use reducer_kit::terms::{Budget, BudgetFields, Item, ItemKind, Policy, Role};
use reducer_kit::validate::{validate, Options};
use reducer_kit::{Certified, CertifyOptions, Protocol};
use serde_json::{json, Value};
use std::sync::Arc;

fn list(v: Value) -> Vec<Value> {
    serde_json::from_value(v).unwrap()
}

/// The seed example of the tool-group trimming document, canonical.
fn seed() -> Vec<Value> {
    list(json!([
        {"role": "user", "contents": [{"$type": "text", "text": "Check order 42 and its shipment."}]},
        {"role": "assistant", "contents": [
            {"$type": "functionCall", "callId": "order-1", "name": "GetOrder"},
            {"$type": "functionCall", "callId": "shipment-1", "name": "GetShipment"}]},
        {"role": "tool", "contents": [{"$type": "functionResult", "callId": "order-1", "result": "Paid"}]},
        {"role": "tool", "contents": [{"$type": "functionResult", "callId": "shipment-1", "result": "Shipped"}]},
        {"role": "assistant", "contents": [{"$type": "text", "text": "Your order has shipped."}]},
        {"role": "user", "contents": [{"$type": "text", "text": "When should it arrive?"}]}
    ]))
}

/// The seed example as Anthropic messages.
fn seed_anthropic() -> Vec<Value> {
    list(json!([
        {"role": "user", "content": "Check order 42 and its shipment."},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "order-1", "name": "GetOrder", "input": {}},
            {"type": "tool_use", "id": "shipment-1", "name": "GetShipment", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "order-1", "content": "Paid"}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "shipment-1", "content": "Shipped"}]},
        {"role": "assistant", "content": "Your order has shipped."},
        {"role": "user", "content": "When should it arrive?"}
    ]))
}

fn same(a: &[Value], b: &[Value]) -> bool {
    json_eq(&Value::Array(a.to_vec()), &Value::Array(b.to_vec()))
}

#[test]
fn format_names_the_variant_anthropic() {
    assert_eq!(Format::Anthropic.name(), "anthropic");
    assert_eq!(Format::Anthropic.to_string(), "anthropic");
    assert_eq!(Format::Anthropic.items_key(), "content");
    assert_eq!(
        serde_json::to_value(Format::Anthropic).unwrap(),
        json!("anthropic")
    );
    assert_eq!(
        serde_json::from_value::<Format>(json!("anthropic")).unwrap(),
        Format::Anthropic
    );
    assert_eq!("anthropic".parse::<Format>().unwrap(), Format::Anthropic);
}

#[test]
fn seed_example_converts_to_exact_anthropic_messages_and_back() {
    let a = to_anthropic(&seed()).unwrap();
    assert_eq!(a, seed_anthropic());
    // The seed's calls have no arguments: a `tool_use` block requires
    // `input` (spec §1.5), written `{}`, which comes back as arguments.
    let back = from_anthropic(&a).unwrap();
    let mut want = seed();
    for call in want[1]["contents"].as_array_mut().unwrap() {
        call["arguments"] = json!({});
    }
    assert_eq!(back, want);
    assert_eq!(to_anthropic(&back).unwrap(), a);
}

#[test]
fn calls_with_arguments_text_and_members_map_to_blocks() {
    let h = list(json!([
        {"role": "system", "contents": [{"$type": "text", "text": "Be brief."}]},
        {"role": "user", "messageId": "m1", "contents": [
            {"$type": "text", "text": "Check order 42."},
            {"$type": "dataContent", "uri": "data:,", "mediaType": "text/plain"}]},
        {"role": "assistant", "contents": [
            {"$type": "text", "text": "Checking.", "additionalProperties": {"a": 1}},
            {"$type": "functionCall", "callId": "order-1", "name": "GetOrder",
             "arguments": {"id": 42}, "additionalProperties": {"k": true}}]},
        {"role": "tool", "authorName": "ops-bot", "contents": [
            {"$type": "functionResult", "callId": "order-1",
             "result": {"status": "Paid", "total": 19.99}, "additionalProperties": {"durationMs": 12}}]},
        {"role": "assistant", "contents": [
            {"$type": "toolApprovalRequest", "requestId": "r1",
             "toolCall": {"$type": "functionCall", "callId": "x", "name": "Refund"}}]},
        {"role": "user", "contents": [
            {"$type": "functionApprovalResponse", "id": "r1", "approved": false}]},
        {"role": "user", "contents": []},
        {"role": "assistant"}
    ]));
    let a = to_anthropic(&h).unwrap();
    assert_eq!(
        a,
        list(json!([
            {"role": "system", "content": "Be brief."},
            {"role": "user", "messageId": "m1", "content": [
                {"type": "text", "text": "Check order 42."},
                {"type": "dataContent", "uri": "data:,", "mediaType": "text/plain"}]},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Checking.", "additionalProperties": {"a": 1}},
                {"type": "tool_use", "id": "order-1", "name": "GetOrder",
                 "input": {"id": 42}, "additionalProperties": {"k": true}}]},
            {"role": "user", "authorName": "ops-bot", "content": [
                {"type": "tool_result", "tool_use_id": "order-1",
                 "content": {"status": "Paid", "total": 19.99}, "additionalProperties": {"durationMs": 12}}]},
            {"role": "assistant", "content": [
                {"type": "toolApprovalRequest", "requestId": "r1",
                 "toolCall": {"$type": "functionCall", "callId": "x", "name": "Refund"}}]},
            {"role": "user", "content": [
                {"type": "functionApprovalResponse", "id": "r1", "approved": false}]},
            {"role": "user", "content": []},
            {"role": "assistant"}
        ]))
    );
    assert!(same(&from_anthropic(&a).unwrap(), &h));
    let kinds = |f, m: &[Value]| -> Vec<(Role, Vec<(ItemKind, String)>)> {
        view_history(f, m)
            .unwrap()
            .into_iter()
            .map(|v| {
                (
                    v.role,
                    v.items.into_iter().map(|i| (i.kind, i.id)).collect(),
                )
            })
            .collect()
    };
    let av = kinds(Format::Anthropic, &a);
    let cv = kinds(Format::Canonical, &h);
    // Same roles and items everywhere but the system pseudo-message (no items).
    assert_eq!(av[0], (Role::System, vec![]));
    assert_eq!(cv[0], (Role::System, vec![(ItemKind::Text, String::new())]));
    assert_eq!(av[1..], cv[1..]);
    assert_eq!(
        av[3],
        (Role::Tool, vec![(ItemKind::Result, "order-1".to_string())])
    );
}

#[test]
fn views_read_blocks_ids_and_the_tool_role() {
    let m = json!({"role": "User", "content": [
        {"type": "tool_result", "tool_use_id": "a", "content": "1"},
        {"type": "toolApprovalResponse", "requestId": "r", "approved": true},
        {"type": "functionResult", "callId": "z"},
        {"type": "image", "source": {}},
        "bare"]});
    let v = view_message(Format::Anthropic, &m, 3).unwrap();
    assert_eq!(v.role, Role::Tool);
    assert_eq!(v.role_text, "User");
    assert_eq!(
        v.items,
        vec![
            Item {
                kind: ItemKind::Result,
                id: "a".into(),
                elem: Some(0)
            },
            Item {
                kind: ItemKind::ApprovalResponse,
                id: "r".into(),
                elem: Some(1)
            },
            Item {
                kind: ItemKind::Opaque,
                id: String::new(),
                elem: Some(2)
            },
            Item {
                kind: ItemKind::Opaque,
                id: String::new(),
                elem: Some(3)
            },
            Item {
                kind: ItemKind::Opaque,
                id: String::new(),
                elem: Some(4)
            },
        ]
    );
    let s = view_message(
        Format::Anthropic,
        &json!({"role": "user", "content": "hi"}),
        0,
    )
    .unwrap();
    assert_eq!(s.role, Role::User);
    assert!(s.is_turn_start());
    assert_eq!(
        s.items,
        vec![Item {
            kind: ItemKind::Text,
            id: String::new(),
            elem: None
        }]
    );
    let sys = json!({"role": "system", "content": [{"type": "text", "text": "x"}]});
    let v = view_message(Format::Anthropic, &sys, 0).unwrap();
    assert_eq!((v.role, v.items.len()), (Role::System, 0));
    let a = json!({"role": "assistant", "content": [
        {"type": "text", "text": "t"}, {"type": "tool_use", "id": "c", "name": "F", "input": {}},
        {"type": "functionApprovalRequest", "id": "q"}]});
    let v = view_message(Format::Anthropic, &a, 1).unwrap();
    assert_eq!(v.role, Role::Assistant);
    let kinds: Vec<_> = v.items.iter().map(|i| (i.kind, i.id.as_str())).collect();
    assert_eq!(
        kinds,
        vec![
            (ItemKind::Text, ""),
            (ItemKind::Call, "c"),
            (ItemKind::ApprovalRequest, "q")
        ]
    );
    assert_eq!(
        view_message(
            Format::Anthropic,
            &json!({"role": "assistant", "content": null}),
            0
        )
        .unwrap()
        .items,
        vec![]
    );
}

#[test]
fn missing_or_ill_typed_ids_name_message_and_content() {
    let e = |m: Value| {
        view_message(Format::Anthropic, &m, 5)
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        e(
            json!({"role": "assistant", "content": [{"type": "text"}, {"type": "tool_use", "name": "F"}]})
        ),
        "message 5, content 1: tool_use has no `id`"
    );
    assert_eq!(
        e(json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": 7}]})),
        "message 5, content 0: tool_result has a non-string `tool_use_id`"
    );
    assert_eq!(
        e(json!({"role": "user", "content": [{"type": "toolApprovalResponse", "approved": true}]})),
        "message 5, content 0: toolApprovalResponse has no `requestId`"
    );
    assert_eq!(
        e(json!({"role": "user", "content": 3})),
        "message 5: `content` is not a string, an array or null"
    );
}

#[test]
fn suffix_reduces_the_anthropic_seed_like_the_document_says() {
    let a = seed_anthropic();
    let run = |max: u64| {
        Reference::new(Policy::Suffix, Format::Anthropic)
            .reduce(Input::new(&a).max_messages(&json!(max)))
            .unwrap()
            .messages()
    };
    assert_eq!(run(3), a[4..].to_vec());
    assert_eq!(
        run(3),
        list(json!([
            {"role": "assistant", "content": "Your order has shipped."},
            {"role": "user", "content": "When should it arrive?"}
        ]))
    );
    assert_eq!(run(4), a[4..].to_vec());
    assert_eq!(run(5), a[1..].to_vec());
    assert_eq!(run(5).len(), 5);
    assert_eq!(run(6), a);
    // Under `turns` the same history gives one message for budgets 1-5.
    for b in 1..=5u64 {
        assert_eq!(
            Reference::new(Policy::Turns, Format::Anthropic)
                .reduce(Input::new(&a).max_messages(&json!(b)))
                .unwrap()
                .messages(),
            vec![json!({"role": "user", "content": "When should it arrive?"})],
            "budget {b}"
        );
    }
}

#[test]
fn checker_passes_the_reference_on_the_anthropic_seed() {
    let plain = seed_anthropic();
    let with_system = join_system(Some(json!("Be brief.")), seed_anthropic());
    // The first turn alone: its five messages overflow budgets 1-4.
    let first_turn = join_system(Some(json!("Be brief.")), seed_anthropic()[..5].to_vec());
    for policy in Policy::ALL {
        let reference = Reference::new(policy, Format::Anthropic);
        let mut judged = std::collections::BTreeSet::new();
        let mut passed = std::collections::BTreeSet::new();
        for messages in [&plain, &with_system, &first_turn] {
            let views = view_history(Format::Anthropic, messages).unwrap();
            assert!(validate(
                &views,
                Options {
                    allow_pending: false
                }
            )
            .is_empty());
            for b in 1..=7u64 {
                let max = json!(b);
                let req = Request {
                    format: Format::Anthropic,
                    policy,
                    budget: &BudgetFields::messages(max.clone()),
                    messages,
                    summary: None,
                    declared: Default::default(),
                    provider: None,
                };
                let verdicts = check_reducer(
                    &req,
                    |b, m| Response::from(reference.reduce(Input::new(m).budget_fields(b))),
                    Some(Response::from(reference.reduce(
                        Input::new(req.messages).max_messages(req.budget.max_messages_or_null()),
                    ))),
                )
                .unwrap();
                for v in &verdicts {
                    judged.insert(v.clause.id());
                    match &v.outcome {
                        Outcome::Pass => {
                            passed.insert(v.clause.id());
                        }
                        Outcome::NotJudged(why) => assert!(
                            matches!(
                                why.as_str(),
                                "the budget is valid"
                                    | "the budget is written as an integer (rejects-bad-budget and valid-output judge the answer)"
                                    | "the newest turn fits the budget"
                                    | "the input does not fit the budget"
                                    | "the input has no system message"
                                    | "needs the response for a smaller budget"
                                    | "the newest turn alone is over the budget (overflow-question applies)"
                            ),
                            "{policy} budget {b}: {v:?}"
                        ),
                        Outcome::Fail(_) => panic!("{policy} budget {b}: {v:?}"),
                    }
                }
            }
        }
        // Every clause but rejects-bad-budget and protocol-budget (all
        // budgets here are valid, written as integers) passed somewhere.
        judged.remove("rejects-bad-budget");
        judged.remove("protocol-budget");
        assert_eq!(passed, judged, "{policy}");
        assert!(passed.contains("matches-reference") && passed.contains("no-orphan-result"));
        if policy == Policy::Turns {
            assert!(passed.contains("overflow-question"));
        }
    }
    // The system pseudo-message is pinned: budget 1 keeps it plus the question.
    assert_eq!(
        Reference::new(Policy::Turns, Format::Anthropic)
            .reduce(Input::new(&with_system).max_messages(&json!(1)))
            .unwrap()
            .messages(),
        list(json!([
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "When should it arrive?"}
        ]))
    );
}

#[test]
fn batched_results_stay_one_message_and_lose_only_orphan_blocks() {
    let h = list(json!([
        {"role": "user", "contents": [{"$type": "text", "text": "Check both."}]},
        {"role": "assistant", "contents": [
            {"$type": "functionCall", "callId": "a", "name": "GetOrder", "arguments": {"id": 1}},
            {"$type": "functionCall", "callId": "b", "name": "GetShipment", "arguments": {"id": 2}}]},
        {"role": "tool", "contents": [
            {"$type": "functionResult", "callId": "b", "result": "Shipped"},
            {"$type": "functionResult", "callId": "a", "result": "Paid"}]},
        {"role": "assistant", "contents": [{"$type": "text", "text": "Done."}]}
    ]));
    let a = to_anthropic(&h).unwrap();
    assert_eq!(a.len(), 4);
    assert_eq!(
        a[2],
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "b", "content": "Shipped"},
            {"type": "tool_result", "tool_use_id": "a", "content": "Paid"}]})
    );
    assert_eq!(from_anthropic(&a).unwrap(), h);

    // strip_items on the batched message removes one block, keeps the rest.
    let v = view_message(Format::Anthropic, &a[2], 2).unwrap();
    assert_eq!(v.role, Role::Tool);
    assert_eq!(
        strip_items(Format::Anthropic, &a[2], &v, &[0]),
        Some(json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "a", "content": "Paid"}]}))
    );
    assert_eq!(strip_items(Format::Anthropic, &a[2], &v, &[0, 1]), None);

    // A history whose call `b` was cut (invalid input): reduction removes
    // only the orphan block of the batched message.
    let cut = list(json!([
        {"role": "user", "content": "Check both."},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "a", "name": "GetOrder", "input": {"id": 1}}]},
        {"role": "user", "messageId": "m7", "content": [
            {"type": "tool_result", "tool_use_id": "b", "content": "Shipped"},
            {"type": "tool_result", "tool_use_id": "a", "content": "Paid"}]},
        {"role": "assistant", "content": "Done."}
    ]));
    let views = view_history(Format::Anthropic, &cut).unwrap();
    let rules: Vec<&str> = validate(
        &views,
        Options {
            allow_pending: false,
        },
    )
    .iter()
    .map(|v| v.rule.id())
    .collect();
    assert_eq!(rules, vec!["result-follows-call"]);
    for policy in Policy::ALL {
        let out = Reference::new(policy, Format::Anthropic)
            .reduce(Input::new(&cut).max_messages(&json!(10)))
            .unwrap()
            .messages();
        assert_eq!(
            out,
            list(json!([
                {"role": "user", "content": "Check both."},
                {"role": "assistant", "content": [
                    {"type": "tool_use", "id": "a", "name": "GetOrder", "input": {"id": 1}}]},
                {"role": "user", "messageId": "m7", "content": [
                    {"type": "tool_result", "tool_use_id": "a", "content": "Paid"}]},
                {"role": "assistant", "content": "Done."}
            ])),
            "{policy}"
        );
    }
}

/// A user message holding results beside text ("here is the result, and
/// my next question", spec §1.6) is one canonical tool message holding
/// text items beside its results, block for item; the reference takes a
/// result out of it and keeps the text.
#[test]
fn results_beside_text_are_one_tool_message_whose_text_stays() {
    let wire = list(json!([
        {"role": "user", "content": "Check order 1."},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "a", "name": "GetOrder", "input": {"id": 1}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "a", "content": "Paid"},
            {"type": "text", "text": "And order 2?"}]},
        {"role": "assistant", "content": "Order 1 is paid; checking 2."}
    ]));
    let canonical = from_anthropic(&wire).unwrap();
    assert_eq!(
        canonical[2],
        json!({"role": "tool", "contents": [
            {"$type": "functionResult", "callId": "a", "result": "Paid"},
            {"$type": "text", "text": "And order 2?"}]})
    );
    assert_eq!(to_anthropic(&canonical).unwrap(), wire);
    let v = view_message(Format::Anthropic, &wire[2], 2).unwrap();
    assert_eq!(v.role, Role::Tool);
    // One turn of four messages; budget 3 keeps the question and the last
    // two, and the result of the call left out goes, its text stays.
    let out = Reference::new(Policy::Turns, Format::Anthropic)
        .reduce(Input::new(&wire).max_messages(&json!(3)))
        .unwrap()
        .messages();
    assert_eq!(
        out,
        list(json!([
            {"role": "user", "content": "Check order 1."},
            {"role": "user", "content": [{"type": "text", "text": "And order 2?"}]},
            {"role": "assistant", "content": "Order 1 is paid; checking 2."}
        ]))
    );
}

/// Gemini carries the same shape (spec §1.6, §14.2 rule 6): a `user`
/// content holding responses beside the user's text is one tool message,
/// valid, and the reference takes a response out of it and keeps the text.
#[test]
fn gemini_responses_beside_text_are_one_valid_tool_message_whose_text_stays() {
    let wire = list(json!([
        {"role": "user", "parts": [{"text": "Weather in Paris?"}]},
        {"role": "model", "parts": [
            {"functionCall": {"id": "a", "name": "get_weather", "args": {"city": "Paris"}}}]},
        {"role": "user", "parts": [
            {"functionResponse": {"id": "a", "name": "get_weather", "response": {"output": "sunny"}}},
            {"text": "and tomorrow?"}]},
        {"role": "model", "parts": [{"text": "Sunny; checking tomorrow."}]}
    ]));
    let views = view_history(Format::Gemini, &wire).unwrap();
    assert_eq!(views[2].role, Role::Tool);
    assert_eq!(validate(&views, Options::default()), vec![]);
    let canonical = from_gemini(&wire).unwrap();
    assert_eq!(
        canonical[2],
        json!({"role": "tool", "contents": [
            {"$type": "functionResult", "callId": "a", "name": "get_weather", "result": "sunny"},
            {"$type": "text", "text": "and tomorrow?"}]})
    );
    assert_eq!(to_gemini(&canonical).unwrap(), wire);
    let out = Reference::new(Policy::Turns, Format::Gemini)
        .reduce(Input::new(&wire).max_messages(&json!(3)))
        .unwrap()
        .messages();
    assert_eq!(
        out,
        list(json!([
            {"role": "user", "parts": [{"text": "Weather in Paris?"}]},
            {"role": "user", "parts": [{"text": "and tomorrow?"}]},
            {"role": "model", "parts": [{"text": "Sunny; checking tomorrow."}]}
        ]))
    );
}

#[test]
fn system_pseudo_message_splits_and_joins() {
    let h = list(json!([
        {"role": "system", "contents": [
            {"$type": "text", "text": "Be brief."},
            {"$type": "text", "text": "Be kind.", "additionalProperties": {"cache": true}}]},
        {"role": "user", "contents": [{"$type": "text", "text": "Hi"}]}
    ]));
    let a = to_anthropic(&h).unwrap();
    assert_eq!(
        a[0],
        json!({"role": "system", "content": [
            {"type": "text", "text": "Be brief."},
            {"type": "text", "text": "Be kind.", "additionalProperties": {"cache": true}}]})
    );
    let (system, messages) = split_system(&a);
    assert_eq!(
        system,
        Some(json!([
            {"type": "text", "text": "Be brief."},
            {"type": "text", "text": "Be kind.", "additionalProperties": {"cache": true}}]))
    );
    assert_eq!(messages, vec![json!({"role": "user", "content": "Hi"})]);
    assert_eq!(join_system(system, messages), a);
    assert_eq!(from_anthropic(&a).unwrap(), h);

    // No system: nothing to split, nothing to join.
    let plain = seed_anthropic();
    assert_eq!(split_system(&plain), (None, plain.clone()));
    assert_eq!(join_system(None, plain.clone()), plain);
    assert_eq!(split_system(&[]), (None, vec![]));
    // A leading system message with other members is not a pseudo-message.
    let odd = vec![json!({"role": "system", "content": "x", "name": "n"})];
    assert_eq!(split_system(&odd), (None, odd.clone()));
    // A pinned system message that is one plain text item becomes a string.
    let one = to_anthropic(&list(json!([
        {"role": "system", "contents": [{"$type": "text", "text": "Be brief."}]}])))
    .unwrap();
    assert_eq!(split_system(&one), (Some(json!("Be brief.")), vec![]));
}

#[test]
fn what_anthropic_cannot_carry_is_an_error() {
    let to = |v: Value| to_anthropic(&list(v)).unwrap_err().to_string();
    assert_eq!(
        to(json!([{"role": "user", "contents": []}, {"role": "system", "contents": []}])),
        "message 1: a system message that is not the first message has no Anthropic form (only the first message becomes the top-level `system`)"
    );
    assert_eq!(
        to(json!([{"role": "developer", "contents": []}])),
        "message 0: role \"developer\" has no lossless Anthropic form (only lowercase user, assistant, tool and system)"
    );
    assert_eq!(
        to(json!([{"role": "Assistant", "contents": []}])),
        "message 0: role \"Assistant\" has no lossless Anthropic form (only lowercase user, assistant, tool and system)"
    );
    assert_eq!(
        to(json!([{"role": "system", "authorName": "app", "contents": []}])),
        "message 0: system message member `authorName` has no place in Anthropic's top-level `system`"
    );
    assert_eq!(
        to(json!([{"role": "system", "contents": [{"$type": "dataContent"}]}])),
        "message 0, content 0: a system message item that is not text has no Anthropic form (the top-level `system` takes only text blocks)"
    );
    assert_eq!(
        to(json!([{"role": "tool", "contents": [{"$type": "text", "text": "x"}]}])),
        "message 0: a tool message without results has no Anthropic form"
    );
    assert_eq!(
        to(json!([{"role": "tool", "contents": []}])),
        "message 0: a tool message without results has no Anthropic form"
    );
    assert_eq!(
        to(json!([{"role": "user", "contents": [{"$type": "functionResult", "callId": "a"}]}])),
        "message 0, content 0: a functionResult outside a tool message has no Anthropic form"
    );
    assert_eq!(
        to(json!([{"role": "user", "content": "x", "contents": []}])),
        "message 0: member `content` would collide with Anthropic's"
    );
    assert_eq!(
        to(json!([{"role": "user", "contents": [{"$type": "text", "type": "x"}]}])),
        "message 0, content 0: has a `type` member, which would collide"
    );
    assert_eq!(
        to(json!([{"role": "user", "contents": [{"$type": "tool_use", "id": "a"}]}])),
        "message 0, content 0: `$type` \"tool_use\" would collide with Anthropic's block type"
    );
    assert_eq!(
        to(json!([{"role": "assistant", "contents": [
            {"$type": "functionCall", "callId": "a", "input": {}}]}])),
        "message 0, content 0: functionCall member `input` would collide with Anthropic's"
    );
    assert_eq!(
        to(json!([{"role": "assistant", "contents": [{"$type": "functionCall", "callId": 1}]}])),
        "message 0, content 0: functionCall has no string `callId`"
    );

    let from = |v: Value| from_anthropic(&list(v)).unwrap_err().to_string();
    assert_eq!(
        from(json!([{"role": "user", "content": [{"type": "text", "$type": "text"}]}])),
        "message 0, content 0: has a `$type` member, which would collide"
    );
    assert_eq!(
        from(
            json!([{"role": "assistant", "content": [{"type": "tool_result", "tool_use_id": "a"}]}])
        ),
        "message 0: a tool_result block in an assistant message has no canonical form"
    );
    assert_eq!(
        from(json!([{"role": "user", "content": "x"}, {"role": "system", "content": "y"}])),
        "message 1: a system pseudo-message that is not the first message has no canonical form"
    );
    assert_eq!(
        from(json!([{"role": "tool", "content": "x"}])),
        "message 0: role \"tool\" is not an Anthropic role (user or assistant)"
    );
    assert_eq!(
        from(json!([{"role": "assistant", "content": [{"type": "functionCall", "callId": "a"}]}])),
        "message 0, content 0: a block of type \"functionCall\" has no canonical form (it would be read as a call or result)"
    );
    assert_eq!(
        from(json!([{"role": "assistant", "content": [{"type": "tool_use", "name": "F"}]}])),
        "message 0, content 0: tool_use has no string `id`"
    );
    assert_eq!(
        from(json!([{"role": "system", "content": [{"type": "image"}]}])),
        "message 0, content 0: a system block that is not a text block has no canonical form"
    );
    assert_eq!(
        from(json!([{"role": "user", "contents": [], "content": "x"}])),
        "message 0: member `contents` would collide with the canonical format"
    );
}

/// The generator config for Anthropic: the knobs whose histories have no
/// Anthropic form switched off (a pinned system message after the first
/// message, later system messages, `developer`, roles in other cases).
fn anthropic_config() -> Config {
    Config {
        pinned_not_first: false,
        later_system: false,
        developer_role: false,
        role_case: false,
        ..Config::default()
    }
}

#[test]
fn generated_histories_round_trip_and_reduce_alike() {
    let mut converted = 0;
    let mut checked = 0;
    let total = 2000;
    for (n, case) in seeded_cases(11, total, &anthropic_config()).enumerate() {
        let Ok(a) = to_anthropic(&case.messages) else {
            continue;
        };
        converted += 1;
        let back = from_anthropic(&a).unwrap();
        assert!(same(&back, &case.messages), "case {n}");
        // The kit reads the same roles and items in both formats.
        let av = view_history(Format::Anthropic, &a).unwrap();
        let cv = view_history(Format::Canonical, &case.messages).unwrap();
        for (k, (x, y)) in av.iter().zip(&cv).enumerate() {
            assert_eq!(x.role, y.role, "case {n} message {k}");
            if x.role != Role::System {
                let ids = |v: &reducer_kit::terms::MessageView| -> Vec<(ItemKind, String)> {
                    v.items.iter().map(|i| (i.kind, i.id.clone())).collect()
                };
                assert_eq!(ids(x), ids(y), "case {n} message {k}");
            }
        }
        let opts = Options {
            allow_pending: case.allow_pending,
        };
        assert_eq!(validate(&av, opts), validate(&cv, opts), "case {n}");
        // Reducing the Anthropic form gives the Anthropic form of the
        // canonical reduction.
        let max = json!(case.budget);
        for policy in Policy::ALL {
            let reference = Reference::new(policy, Format::Anthropic);
            let ra = reference
                .reduce(Input::new(&a).max_messages(&max))
                .unwrap()
                .messages();
            let rc = Reference::new(policy, Format::Canonical)
                .reduce(Input::new(&case.messages).max_messages(&max))
                .unwrap()
                .messages();
            assert!(same(&ra, &to_anthropic(&rc).unwrap()), "case {n} {policy}");
            if checked < 300 {
                let req = Request {
                    format: Format::Anthropic,
                    policy,
                    budget: &BudgetFields::messages(max.clone()),
                    messages: &a,
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
                    assert!(!v.failed(), "case {n} {policy}: {v:?}");
                }
            }
        }
        checked += 1;
    }
    // Only system messages with extra members (authorName, ...) remain
    // without an Anthropic form under this config.
    assert!(
        converted * 100 >= total * 90,
        "only {converted} of {total} converted"
    );
}

#[test]
fn default_generator_histories_convert_often_enough() {
    let total = 2000;
    let mut converted = 0;
    for case in seeded_cases(5, total, &Config::default()) {
        if let Ok(a) = to_anthropic(&case.messages) {
            converted += 1;
            assert!(same(&from_anthropic(&a).unwrap(), &case.messages));
        }
    }
    assert!(
        converted * 2 >= total,
        "only {converted} of {total} converted"
    );
}

/// A reducer that, when it takes the results out of a user message holding
/// the user's text beside them (spec §1.6), drops the whole message, text
/// included: the reference's answer with every message it kept in part
/// and holding no result any more left out.
fn drops_text_with_its_results(
    format: Format,
) -> impl Fn(&str) -> Result<String, RunError> + Clone {
    let reference = ReferenceSession {
        policy: Policy::Turns,
        format,
        provider: None,
        protocol: Protocol::V1,
    };
    move |text: &str| {
        let mut answer = reference.answer(text);
        let request = serde_json::from_str::<Value>(text).unwrap_or_default();
        let input = request["messages"].as_array().cloned().unwrap_or_default();
        if let Some(kept) = answer.get_mut("messages").and_then(Value::as_array_mut) {
            kept.retain(|m| {
                // Anthropic's and Bedrock's `content`, Gemini's `parts`.
                let blocks = m["content"].as_array().or(m["parts"].as_array());
                let results = blocks.is_some_and(|b| {
                    b.iter().any(|b| {
                        b["type"] == "tool_result"
                            || b.get("toolResult").is_some()
                            || b.get("functionResponse").is_some()
                    })
                });
                m["role"] != "user"
                    || results
                    || blocks.is_none()
                    || input.iter().any(|i| json_eq(i, m))
            });
        }
        Ok(answer.to_string())
    }
}

/// A reducer as a function of the request's text.
type Answer = dyn Fn(&str) -> Result<String, RunError> + Send + Sync;

/// The clauses with a defect, in report order.
fn defects(certified: &Certified) -> Vec<&'static str> {
    certified
        .grade
        .clauses
        .iter()
        .filter(|(_, t)| t.defects > 0)
        .map(|(c, _)| c.id())
        .collect()
}

/// The planted bug of losing the user's text with a removed result is
/// convicted at the default seed in Anthropic, Bedrock and Gemini runs, on
/// a clause that names it (the text is part of what §3 step 4 selects),
/// and the reference passes the same run.
#[test]
fn dropping_the_text_beside_a_removed_result_fails_at_the_default_seed() {
    for format in [Format::Anthropic, Format::Bedrock, Format::Gemini] {
        let options = CertifyOptions {
            format,
            jobs: Some(1),
            ..CertifyOptions::default()
        };
        let run = |answer: Box<Answer>| {
            let answer: Arc<Answer> = answer.into();
            let job = options
                .clone()
                .resolve()
                .unwrap()
                .with_sessions(move |settings| {
                    let answer = answer.clone();
                    Box::new(InProcessSession::new(settings, move |t: &str| answer(t)))
                });
            let plan = job.plan().unwrap();
            job.run(&plan, &[], &Unwatched).unwrap()
        };
        let planted = run(Box::new(drops_text_with_its_results(format)));
        assert_eq!(
            defects(&planted),
            ["overflow-question", "matches-reference"],
            "{format}"
        );
        let reference = ReferenceSession {
            policy: Policy::Turns,
            format,
            provider: None,
            protocol: Protocol::V1,
        };
        let passed = run(Box::new(move |t: &str| Ok(reference.answer(t).to_string())));
        assert!(passed.grade.passed(), "{format}: {:?}", defects(&passed));
    }
}

/// A message of results beside text whose text equals the turn's
/// question (Bedrock, spec §1.6): with its result taken out it is the
/// question's bytes. Under `turns` and `suffix` the answer's first message
/// of M is read as the question (spec §7), so the reference's overflow answer, the
/// question and the newest message, passes every clause (read as the
/// stripped message, it failed `overflow-question`).
#[test]
fn a_stripped_message_equal_to_the_question_is_read_as_the_question_under_turns() {
    let wire = list(json!([
        {"role": "user", "content": [{"text": "go on"}]},
        {"role": "assistant", "content": [
            {"toolUse": {"toolUseId": "a", "name": "GetOrder", "input": {}}}]},
        {"role": "user", "content": [
            {"toolResult": {"toolUseId": "a", "content": [{"text": "Paid"}]}},
            {"text": "go on"}]},
        {"role": "assistant", "content": [{"text": "Done."}]}
    ]));
    let budget = BudgetFields::messages(json!(2));
    let reference = Reference::new(Policy::Turns, Format::Bedrock);
    let out = reference
        .reduce(Input::new(&wire).budget_fields(&budget))
        .unwrap();
    assert_eq!(out.kept(), [0, 3]);
    assert_eq!(out.messages(), vec![wire[0].clone(), wire[3].clone()]);
    let alignment =
        reducer_kit::check::align::align(Format::Bedrock, Policy::Turns, &wire, &out.messages())
            .unwrap();
    assert_eq!(alignment.map, [Some(0), Some(3)]);
    // Under `suffix` too (a profile's fallback keeps the newest turn
    // start alone): a lone message read as the question, not as message 2
    // kept without its result (not a legal start).
    let lone = [wire[0].clone()];
    let alignment =
        reducer_kit::check::align::align(Format::Bedrock, Policy::Suffix, &wire, &lone).unwrap();
    assert_eq!(alignment.map, [Some(0)]);
    let req = Request {
        format: Format::Bedrock,
        policy: Policy::Turns,
        budget: &budget,
        messages: &wire,
        summary: None,
        declared: Default::default(),
        provider: None,
    };
    let verdicts = check_reducer(
        &req,
        |b, m| Response::from(reference.reduce(Input::new(m).budget_fields(b))),
        None,
    )
    .unwrap();
    let failed: Vec<_> = verdicts.iter().filter(|v| v.failed()).collect();
    assert!(failed.is_empty(), "{failed:?}");
}

/// The same shape in an overflow tail (Bedrock, spec §7): the newest
/// turn's question is over the token budget, so `turns` keeps the tail
/// after it, which begins with a message of results beside text, its result
/// taken out (its call is not kept). Its bytes equal an older question, but
/// a newer question lies between that one and the tail's next message:
/// read so, the output would keep a turn in part and skip a newer one, so
/// it is read as the stripped message, and the answer passes.
#[test]
fn a_stripped_message_that_begins_an_overflow_tail_is_not_an_older_question() {
    let wire = list(json!([
        {"role": "user", "content": [{"text": "ok"}]},
        {"role": "assistant", "content": [{"text": "Hello."}]},
        {"role": "user", "content": [{"text": "Where is my order?"}]},
        {"role": "assistant", "content": [
            {"toolUse": {"toolUseId": "a", "name": "GetOrder", "input": {}}}]},
        {"role": "user", "content": [
            {"toolResult": {"toolUseId": "a", "content": [{"text": "Paid"}]}},
            {"text": "ok"}]},
        {"role": "assistant", "content": [{"text": "Done."}]}
    ]));
    let budget = Budget::of_tokens(5, vec![1, 1, 50, 10, 1, 1], false)
        .unwrap()
        .to_fields();
    let reference = Reference::new(Policy::Turns, Format::Bedrock);
    let out = reference
        .reduce(Input::new(&wire).budget_fields(&budget))
        .unwrap();
    assert_eq!(out.kept(), [4, 5]);
    assert_eq!(out.messages()[0], wire[0]);
    let alignment =
        reducer_kit::check::align::align(Format::Bedrock, Policy::Turns, &wire, &out.messages())
            .unwrap();
    assert_eq!(alignment.map, [Some(4), Some(5)]);
    assert_bedrock_reference_passes(&reference, &wire, &budget, None);
}

/// Every clause of `turns` passes the Bedrock reference `reference`
/// (under `provider`) as a reducer on `wire` and its budget.
fn assert_bedrock_reference_passes(
    reference: &Reference,
    wire: &[Value],
    budget: &BudgetFields,
    provider: Option<reducer_kit::terms::provider::Provider>,
) {
    let req = Request {
        format: Format::Bedrock,
        policy: Policy::Turns,
        budget,
        messages: wire,
        summary: None,
        declared: Default::default(),
        provider,
    };
    let verdicts = check_reducer(
        &req,
        |b, m| Response::from(reference.reduce(Input::new(m).budget_fields(b))),
        None,
    )
    .unwrap();
    let failed: Vec<_> = verdicts.iter().filter(|v| v.failed()).collect();
    assert!(failed.is_empty(), "{failed:?}");
}

/// Under the Bedrock profile, a turn whose question does not fit ends in a
/// user message holding a result beside empty text, and an earlier question
/// is that same empty text. The tail alone (the result's call cut, so the
/// message stripped) is a `tool` message the profile rejects first, so the
/// reference falls back on the newest question that fits alone (spec §15.4
/// step 3). Its answer also equals the stripped tail message, and the
/// rules of spec §7 read it so; judged under both readings, the answer
/// passes.
#[test]
fn a_profile_fallback_equal_to_a_stripped_tail_message_passes() {
    let wire = list(json!([
        {"role": "user", "content": [{"text": "Hi"}]},
        {"role": "assistant", "content": [{"text": "Hello."}]},
        {"role": "user", "content": [{"text": ""}]},
        {"role": "assistant", "content": [{"text": "Yes?"}]},
        {"role": "user", "content": [{"text": "Where is my order?"}]},
        {"role": "assistant", "content": [
            {"toolUse": {"toolUseId": "a", "name": "GetOrder", "input": {}}}]},
        {"role": "user", "content": [
            {"toolResult": {"toolUseId": "a", "content": [{"text": "Paid"}]}},
            {"text": ""}]}
    ]));
    let budget = Budget::of_tokens(115, vec![19, 28, 27, 28, 125, 57, 67], false)
        .unwrap()
        .to_fields();
    let reference = Reference::new(Policy::Turns, Format::Bedrock)
        .with_provider(Some(reducer_kit::terms::provider::Provider::Bedrock));
    let out = reference
        .reduce(Input::new(&wire).budget_fields(&budget))
        .unwrap();
    assert_eq!(out.kept(), [2]);
    assert_eq!(
        out.messages(),
        [json!({"role": "user", "content": [{"text": ""}]})]
    );
    assert_bedrock_reference_passes(
        &reference,
        &wire,
        &budget,
        Some(reducer_kit::terms::provider::Provider::Bedrock),
    );
}
