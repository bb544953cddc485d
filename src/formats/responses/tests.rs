//! Tests of the parent module.

use super::*;
use crate::json::json_eq;
use serde_json::json;

fn list(v: Value) -> Vec<Value> {
    v.as_array().unwrap().clone()
}

fn round_trips(h: &[Value]) -> Vec<Value> {
    let wire = to_responses(h).unwrap();
    let back = from_responses(&wire).unwrap();
    assert!(
        json_eq(&Value::Array(back), &Value::Array(h.to_vec())),
        "{}",
        Value::Array(wire.clone())
    );
    let again = to_responses(&from_responses(&wire).unwrap()).unwrap();
    assert!(json_eq(&Value::Array(again), &Value::Array(wire.clone())));
    wire
}

#[test]
fn parallel_calls_become_consecutive_items_and_merge_back() {
    let h = list(json!([
        {"role": "user", "contents": [{"$type": "text", "text": "Weather in Paris and Rome?"}]},
        {"role": "assistant", "contents": [
            {"$type": "functionCall", "callId": "a", "name": "GetWeather", "arguments": {"city": "Paris"}},
            {"$type": "functionCall", "callId": "b", "name": "GetWeather", "arguments": {"city": "Rome"}}]},
        {"role": "tool", "contents": [{"$type": "functionResult", "callId": "a", "result": "sunny"}]},
        {"role": "tool", "contents": [{"$type": "functionResult", "callId": "b", "result": "rain"}]},
        {"role": "assistant", "contents": [{"$type": "text", "text": "Sunny and rain."}]}
    ]));
    let wire = round_trips(&h);
    assert_eq!(
        Value::Array(wire),
        json!([
            {"role": "user", "content": "Weather in Paris and Rome?"},
            {"type": "function_call", "call_id": "a", "name": "GetWeather", "arguments": "{\"city\":\"Paris\"}"},
            {"type": "function_call", "call_id": "b", "name": "GetWeather", "arguments": "{\"city\":\"Rome\"}"},
            {"type": "function_call_output", "call_id": "a", "output": "sunny"},
            {"type": "function_call_output", "call_id": "b", "output": "rain"},
            {"role": "assistant", "content": "Sunny and rain."}
        ])
    );
}

#[test]
fn approvals_reasoning_and_other_call_types() {
    let h = list(json!([
        {"role": "developer", "contents": [{"$type": "text", "text": "Be brief."}]},
        {"role": "user", "contents": [{"$type": "text", "text": "x"}, {"$type": "input_image", "image_url": "https://e/x.png"}], "type": "message"},
        {"role": "assistant", "contents": [{"$type": "reasoning", "id": "rs_1", "summary": []}]},
        {"role": "assistant", "contents": [{"$type": "toolApprovalRequest", "requestId": "r1", "name": "deploy", "arguments": "{}", "server_label": "ops"}]},
        {"role": "user", "contents": [{"$type": "toolApprovalResponse", "requestId": "r1", "approved": true}]},
        {"role": "assistant", "contents": [{"$type": "functionCall", "callId": "c", "type": "custom_tool_call", "name": "patch", "input": "diff"}]},
        {"role": "tool", "contents": [{"$type": "functionResult", "callId": "c", "result": "ok"}], "type": "custom_tool_call_output", "id": "ctco_1"},
        {"role": "assistant", "contents": [{"$type": "functionCall", "callId": "s", "type": "local_shell_call", "action": {"command": ["ls"]}}]},
        {"role": "tool", "contents": [{"$type": "functionResult", "callId": "s", "result": "a b"}], "type": "local_shell_call_output"}
    ]));
    let wire = round_trips(&h);
    assert_eq!(
        wire[1],
        json!({"role": "user", "content": [
        {"type": "input_text", "text": "x"}, {"type": "input_image", "image_url": "https://e/x.png"}], "type": "message"})
    );
    assert_eq!(
        wire[2],
        json!({"type": "reasoning", "id": "rs_1", "summary": []})
    );
    assert_eq!(
        wire[3],
        json!({"type": "mcp_approval_request", "id": "r1", "name": "deploy", "arguments": "{}", "server_label": "ops"})
    );
    assert_eq!(
        wire[4],
        json!({"type": "mcp_approval_response", "approval_request_id": "r1", "approve": true})
    );
    assert_eq!(
        wire[5],
        json!({"type": "custom_tool_call", "call_id": "c", "name": "patch", "input": "diff"})
    );
    assert_eq!(
        wire[6],
        json!({"type": "custom_tool_call_output", "call_id": "c", "output": "ok", "id": "ctco_1"})
    );
    assert_eq!(
        wire[8],
        json!({"type": "local_shell_call_output", "id": "s", "output": "a b"})
    );
}

#[test]
fn what_responses_cannot_carry_is_an_error() {
    let no = |v: Value| to_responses(&list(v)).unwrap_err().to_string();
    assert_eq!(
        no(json!([{"role": "assistant", "contents": [{"$type": "text", "text": "hm"},
            {"$type": "functionCall", "callId": "a", "name": "f"}]}])),
        "message 0: calls beside other items have no Responses form (each call is an item of its own; text beside calls would come back as a message of its own)"
    );
    assert_eq!(
        no(json!([{"role": "tool", "contents": [
            {"$type": "functionResult", "callId": "a", "result": "1"},
            {"$type": "functionResult", "callId": "b", "result": "2"}]}])),
        "message 0: a tool message with 2 content items has no Responses form (one functionResult per output item)"
    );
    assert_eq!(
        no(json!([
            {"role": "assistant", "contents": [{"$type": "functionCall", "callId": "a"}]},
            {"role": "assistant", "contents": [{"$type": "functionCall", "callId": "b"}]}])),
        "message 1: an assistant message of calls right after another has no Responses form (the two would come back as one message)"
    );
    assert_eq!(
        no(json!([{"role": "assistant", "authorName": "x", "contents": [{"$type": "functionCall", "callId": "a"}]}])),
        "message 0: an assistant message with calls and members besides role and contents has no Responses form"
    );
    assert_eq!(
        no(json!([{"role": "tool", "contents": [{"$type": "functionResult", "callId": "a", "result": {"k": 1}}]}])),
        "message 0, content 0: a functionResult whose result is not a string or an array has no Responses form (`output` takes those)"
    );
    assert_eq!(
        no(json!([{"role": "User", "contents": []}])),
        "message 0: role \"User\" has no Responses form (only lowercase user, assistant, system, developer and tool)"
    );
    assert!(no(
        json!([{"role": "user", "contents": [{"$type": "functionApprovalResponse", "id": "r"}]}])
    )
    .contains("has no Responses form"));
}

#[test]
fn responses_items_the_canonical_form_cannot_hold() {
    let no = |v: Value| from_responses(&list(v)).unwrap_err().to_string();
    assert_eq!(
        no(json!([{"type": "web_search_preview_call_v9", "id": "x"}])),
        "message 0: item type \"web_search_preview_call_v9\" has no canonical form"
    );
    assert_eq!(
        no(json!([{"role": "assistant", "content": [{"type": "input_text", "text": "x"}]}])),
        "message 0, content 0: an input_text part in an assistant message has no canonical form (it would come back as output_text)"
    );
    assert_eq!(
        no(json!([{"type": "function_call", "call_id": "a", "name": "f", "arguments": "{"}]))
            .split(':')
            .nth(1)
            .unwrap(),
        " function_call `arguments` is not JSON text"
    );
    assert_eq!(
        no(json!([{"content": "x"}])),
        "message 0: item has no `type` and no `role`"
    );
}

#[test]
fn views_of_items() {
    let v = |item: Value| {
        let (role, text, items) = view(item.as_object().unwrap(), 3).unwrap();
        let items: Vec<_> = items.into_iter().map(|i| (i.kind, i.id, i.elem)).collect();
        (role, text.to_string(), items)
    };
    assert_eq!(
        v(json!({"type": "function_call", "call_id": "a", "name": "f"})),
        (
            Role::Assistant,
            "assistant".into(),
            vec![(ItemKind::Call, "a".into(), None)]
        )
    );
    assert_eq!(
        v(json!({"type": "local_shell_call_output", "id": "s", "output": "x"})),
        (
            Role::Tool,
            "tool".into(),
            vec![(ItemKind::Result, "s".into(), None)]
        )
    );
    assert_eq!(
        v(json!({"type": "mcp_approval_response", "approval_request_id": "r", "approve": false})),
        (
            Role::User,
            "user".into(),
            vec![(ItemKind::ApprovalResponse, "r".into(), None)]
        )
    );
    assert_eq!(
        v(json!({"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "x"}, {"type": "input_file", "file_id": "f"}]})),
        (
            Role::User,
            "user".into(),
            vec![
                (ItemKind::Text, String::new(), Some(0)),
                (ItemKind::Opaque, String::new(), Some(1))
            ]
        )
    );
    assert_eq!(
        v(json!({"type": "reasoning", "summary": []})),
        (
            Role::Assistant,
            "assistant".into(),
            vec![(ItemKind::Opaque, String::new(), None)]
        )
    );
    let e = view(
        json!({"type": "function_call_output", "output": "x"})
            .as_object()
            .unwrap(),
        4,
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "message 4: function_call_output has no `call_id`"
    );
}
