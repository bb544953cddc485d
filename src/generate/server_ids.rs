//! Server ids (spec §14.7): the `id` members the items of a stored
//! Responses conversation carry. The Responses API gives every item of a
//! model output an id (`rs_…` for a reasoning item, `msg_…` for a message,
//! `fc_…` for a function call), and a session that stores the output as it
//! came (the OpenAI Agents SDK's sessions do) sends them back. An item sent
//! with its id is one the provider knows: it rejects it when the reasoning
//! item that came before it in the same output is not sent too (rule
//! `required-reasoning`, spec §15.3).
//!
//! [`stamp`] gives the model's items of a generated history their server
//! ids: every `assistant` message that is not a reasoning item or an
//! approval request gets `id: "msg_<k>"`, every call of a message of calls
//! `id: "fc_<k>"` (the generator's reasoning items have their `rs_<k>`
//! already). The ids are members the kit does not otherwise interpret
//! (shape `extra-fields`), so the generator stamps a history only when
//! its config has reasoning items and `extra_fields` on.

use crate::terms::Role;
use serde_json::Value;

/// Gives the model's items of the canonical history `msgs` their server
/// ids (see the module doc), numbered from 1 in history order; an item
/// that has an `id` already keeps it.
///
/// # Examples
///
/// ```
/// use serde_json::json;
/// let mut h = vec![
///     json!({"role": "user", "contents": [{"$type": "text", "text": "q"}]}),
///     json!({"role": "assistant", "contents": [{"$type": "reasoning", "id": "rs_1", "summary": []}]}),
///     json!({"role": "assistant", "contents": [{"$type": "functionCall", "callId": "c1", "name": "f"}]}),
///     json!({"role": "tool", "contents": [{"$type": "functionResult", "callId": "c1", "result": "ok"}]}),
///     json!({"role": "assistant", "contents": [{"$type": "text", "text": "done"}]}),
/// ];
/// reducer_kit::generate::server_ids::stamp(&mut h);
/// assert_eq!(h[2]["contents"][0]["id"], "fc_1");
/// assert_eq!(h[4]["id"], "msg_2");
/// assert_eq!(h[1]["contents"][0]["id"], "rs_1");
/// assert!(h[0].get("id").is_none() && h[3].get("id").is_none());
/// ```
pub fn stamp(msgs: &mut [Value]) {
    fn kind(i: &Value) -> &str {
        i.get("$type").and_then(Value::as_str).unwrap_or("")
    }
    let mut k = 0;
    for m in msgs.iter_mut() {
        let assistant = m
            .get("role")
            .and_then(Value::as_str)
            .is_some_and(|r| Role::parse(r) == Role::Assistant);
        if !assistant {
            continue;
        }
        let Some(items) = m.get("contents").and_then(Value::as_array) else {
            continue;
        };
        if items.iter().any(|i| {
            matches!(
                kind(i),
                "reasoning"
                    | "toolApprovalRequest"
                    | "functionApprovalRequest"
                    | "toolApprovalResponse"
                    | "functionApprovalResponse"
            )
        }) {
            continue;
        }
        let calls = !items.is_empty() && items.iter().all(|i| kind(i) == "functionCall");
        if calls {
            let items = m["contents"].as_array_mut().expect("checked above");
            for item in items {
                if item.get("id").is_none() {
                    k += 1;
                    item["id"] = Value::String(format!("fc_{k}"));
                }
            }
        } else if m.get("id").is_none() {
            k += 1;
            m["id"] = Value::String(format!("msg_{k}"));
        }
    }
}
