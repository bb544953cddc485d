//! Canonical ⇄ Amazon Bedrock Converse conversion (spec §14.3).
//!
//! With `--format bedrock` the messages are the `messages` of a Converse
//! request: `{"role": "user" | "assistant", "content": [blocks]}`, each
//! block a text (`{"text"}`), a call (`{"toolUse": {"toolUseId", "name",
//! "input"}}`), a result (`{"toolResult": {"toolUseId", "content",
//! "status"}}`) or something else (`image`, `document`, `reasoningContent`,
//! `cachePoint`, ...), opaque. Results travel in `user` messages, as in
//! Anthropic's format. The request's top-level `system` (an array of
//! `{"text"}` blocks) travels beside `messages`; inside the kit it is the
//! system pseudo-message `{"role": "system", "content": [...]}` first.
//!
//! | canonical | Bedrock |
//! |-----------|---------|
//! | the first message, role `system`, text items only, no other member | the pseudo-message with `content: [text blocks]` |
//! | `user` / `assistant` / `tool` | `user` / `assistant` / `user` |
//! | a `tool` message's items beside its results (at least one result) | the blocks of a user message beside the `toolResult` blocks (spec §1.6) |
//! | `text` item | `{"text": ..., <other members>}` |
//! | `functionCall` item | `{"toolUse": {"toolUseId": callId, "name", "input": arguments}, <other members>}` (`input` `{}` for a call without arguments: the API requires it) |
//! | `functionResult` item | `{"toolResult": {"toolUseId": callId, "content", "status"}, <other members>}` |
//! | any other item but an approval | the item as it is |
//!
//! **Decided** — a result in `toolResult.content`, which is a list of
//! blocks: a string result `s` travels as `[{"text": s}]`, any other result
//! `r` as `[{"json": r}]`; a result item's `status` member is the
//! `toolResult`'s `status`. Any other `content` (several blocks, images)
//! has no canonical form.
//!
//! **The view**: a `user` message with at least one `toolResult` block is
//! a tool message, never a turn start (as Anthropic's), also when text
//! blocks sit beside its results ("here is the result, and my next
//! question", spec §1.6): it is the canonical `tool` message holding those
//! text items beside its results; a block with a `$type` member is opaque.

use super::keyed::Keyed;
use super::ConvertError;
use crate::terms::{Item, Role, ShapeError};
use serde_json::{json, Map, Value};

fn wrap(r: &Value) -> Result<Value, String> {
    Ok(match r {
        Value::String(_) => json!([{ "text": r }]),
        _ => json!([{ "json": r }]),
    })
}

fn unwrap(v: &Value) -> Result<Value, String> {
    if let Some([Value::Object(block)]) = v.as_array().map(Vec::as_slice) {
        if block.len() == 1 {
            match (block.get("text"), block.get("json")) {
                (Some(s @ Value::String(_)), _) => return Ok(s.clone()),
                (_, Some(j)) if !j.is_string() => return Ok(j.clone()),
                _ => {}
            }
        }
    }
    Err("a toolResult `content` other than one text block or one non-string json block has no canonical form".into())
}

/// The Bedrock Converse format, for [`super::keyed`].
pub(crate) const BEDROCK: Keyed = Keyed {
    title: "Bedrock",
    items_key: "content",
    model_role: "assistant",
    call: ("toolUse", "toolUseId", "input"),
    args_required: true,
    result: ("toolResult", "toolUseId", "content"),
    result_inner: &["status"],
    wrap,
    unwrap,
    ids_from_names: false,
    system_value: Value::Array,
    system_parts: Value::as_array,
};

/// The role and items of a Bedrock message whose role string is
/// `role_text` (see the module doc).
pub(crate) fn role_and_items(
    obj: &Map<String, Value>,
    role_text: &str,
    index: usize,
) -> Result<(Role, Vec<Item>), ShapeError> {
    BEDROCK.view(obj, role_text, index)
}

/// Converts a canonical history to Bedrock Converse messages (the system
/// pseudo-message first when the history has a pinned system message), one
/// message for one message.
///
/// # Errors
///
/// [`ConvertError`] for the first message Bedrock cannot carry (as
/// [`super::gemini::to_gemini`], with Bedrock's members).
pub fn to_bedrock(messages: &[Value]) -> Result<Vec<Value>, ConvertError> {
    BEDROCK.write_wire(messages)
}

/// Converts Bedrock Converse messages (system pseudo-message first, when
/// there is one) to a canonical history; the inverse of [`to_bedrock`].
///
/// # Errors
///
/// [`ConvertError`] as [`super::gemini::from_gemini`], with Bedrock's
/// members, and for a `toolResult` `content` the module doc's rule cannot
/// read.
pub fn from_bedrock(messages: &[Value]) -> Result<Vec<Value>, ConvertError> {
    BEDROCK.read_wire(messages)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::json_eq;
    use crate::terms::ItemKind;

    #[test]
    fn tool_use_history_converts_both_ways() {
        let h = json!([
            {"role": "system", "contents": [{"$type": "text", "text": "Be brief."}]},
            {"role": "user", "contents": [{"$type": "text", "text": "order 42?"}]},
            {"role": "assistant", "contents": [
                {"$type": "text", "text": "Checking."},
                {"$type": "functionCall", "callId": "t1", "name": "GetOrder", "arguments": {"id": 42}}]},
            {"role": "tool", "contents": [
                {"$type": "functionResult", "callId": "t1", "result": {"status": "Paid"}, "status": "success"}]},
            {"role": "assistant", "contents": [{"$type": "text", "text": "Paid."}], "messageId": "m1"}
        ]);
        let h = h.as_array().unwrap();
        let b = to_bedrock(h).unwrap();
        assert_eq!(
            Value::Array(b.clone()),
            json!([
                {"role": "system", "content": [{"text": "Be brief."}]},
                {"role": "user", "content": [{"text": "order 42?"}]},
                {"role": "assistant", "content": [{"text": "Checking."},
                    {"toolUse": {"toolUseId": "t1", "name": "GetOrder", "input": {"id": 42}}}]},
                {"role": "user", "content": [{"toolResult": {"toolUseId": "t1", "status": "success", "content": [{"json": {"status": "Paid"}}]}}]},
                {"role": "assistant", "content": [{"text": "Paid."}], "messageId": "m1"}
            ])
        );
        let back = from_bedrock(&b).unwrap();
        assert!(json_eq(&Value::Array(back), &Value::Array(h.clone())));
        let (role, items) = role_and_items(b[3].as_object().unwrap(), "user", 3).unwrap();
        assert_eq!(role, Role::Tool);
        assert_eq!(items[0].id, "t1");
    }

    /// A user message holding results beside text (and beside other
    /// results) is a tool message holding text items beside its results,
    /// block for item, both ways (spec §1.6).
    #[test]
    fn results_beside_text_are_one_tool_message() {
        let wire = json!([
            {"role": "user", "content": [{"text": "two orders?"}]},
            {"role": "assistant", "content": [
                {"toolUse": {"toolUseId": "a", "name": "F", "input": {}}},
                {"toolUse": {"toolUseId": "b", "name": "F", "input": {}}}]},
            {"role": "user", "content": [
                {"toolResult": {"toolUseId": "a", "content": [{"text": "1"}]}},
                {"toolResult": {"toolUseId": "b", "content": [{"json": {"n": 2}}]}},
                {"text": "and the third?"}]}
        ]);
        let wire = wire.as_array().unwrap();
        let canonical = from_bedrock(wire).unwrap();
        assert_eq!(
            canonical[2],
            json!({"role": "tool", "contents": [
                {"$type": "functionResult", "callId": "a", "result": "1"},
                {"$type": "functionResult", "callId": "b", "result": {"n": 2}},
                {"$type": "text", "text": "and the third?"}]})
        );
        assert!(json_eq(
            &Value::Array(to_bedrock(&canonical).unwrap()),
            &Value::Array(wire.clone())
        ));
        let (role, items) = role_and_items(wire[2].as_object().unwrap(), "user", 2).unwrap();
        assert_eq!(role, Role::Tool);
        let kinds: Vec<_> = items.iter().map(|i| i.kind).collect();
        assert_eq!(kinds, [ItemKind::Result, ItemKind::Result, ItemKind::Text]);
        let text_only = json!([{"role": "tool", "contents": [{"$type": "text", "text": "x"}]}]);
        assert_eq!(
            to_bedrock(text_only.as_array().unwrap())
                .unwrap_err()
                .to_string(),
            "message 0: a tool message without results has no Bedrock form"
        );
    }

    #[test]
    fn results_travel_as_one_block() {
        for (result, content) in [
            (json!("ok"), json!([{"text": "ok"}])),
            (json!({"a": 1}), json!([{"json": {"a": 1}}])),
            (json!(3), json!([{"json": 3}])),
        ] {
            assert_eq!(wrap(&result).unwrap(), content);
            assert_eq!(unwrap(&content).unwrap(), result);
        }
        assert!(unwrap(&json!([{"json": "s"}])).is_err());
        assert!(unwrap(&json!([{"text": "a"}, {"text": "b"}])).is_err());
        let two = json!([{"role": "user", "content": [{"toolResult": {"toolUseId": "t", "content": [{"text": "a"}, {"text": "b"}]}}]}]);
        assert_eq!(
            from_bedrock(two.as_array().unwrap()).unwrap_err().to_string(),
            "message 0, content 0: a toolResult `content` other than one text block or one non-string json block has no canonical form"
        );
    }
}
