//! Canonical ⇄ Gemini `contents` conversion (spec §14.2).
//!
//! With `--format gemini` the messages are the `contents` of a Gemini
//! `generateContent` request: `{"role": "user" | "model", "parts": [...]}`,
//! each part a text (`{"text"}`), a call (`{"functionCall": {"id", "name",
//! "args"}}`) or a result (`{"functionResponse": {"id", "name",
//! "response"}}`), or something else (`inlineData`, `fileData`, ...),
//! opaque. They travel in the runner protocol as `messages`; the request's
//! top-level `systemInstruction` travels beside them, and inside the kit it
//! is the system pseudo-message `{"role": "system", "content":
//! <systemInstruction>}` first (as Anthropic's `system`, see
//! [`crate::protocol`]).
//!
//! | canonical | Gemini |
//! |-----------|--------|
//! | the first message, role `system`, text items only, no other member | the pseudo-message with `content: {"parts": [text parts]}` |
//! | `user` / `assistant` / `tool` | `user` / `model` / `user` |
//! | a `tool` message's items beside its results (at least one result) | the parts of a user content beside the `functionResponse` parts (spec §1.6) |
//! | `text` item | `{"text": ..., <other members>}` |
//! | `functionCall` item | `{"functionCall": {"id": callId, "name", "args": arguments}, <other members>}` (no `args` for a call without arguments: the API's `args` is optional) |
//! | `functionResult` item | `{"functionResponse": {"id": callId, "name", "response"}, <other members>}` |
//! | any other item but an approval | the item as it is |
//!
//! **Decided** — a result in `response`, which Gemini requires to be an
//! object: an object result travels as it is, any other result `r` as
//! `{"output": r}` (the key Google's documentation names for a function's
//! output), and a `response` whose only member is a non-object `output` is
//! read back as that output. An object result whose only member is a
//! non-object `output` would be read back wrongly and has no Gemini form.
//!
//! **The view**: role `model` is the assistant; a `user` content with at
//! least one `functionResponse` part is a tool message, never a turn start,
//! also when text parts sit beside its responses (the Vercel AI SDK's
//! Google provider writes a tool's image as `inlineData` and a text part
//! beside the responses; a client merging consecutive user turns writes
//! the user's next question there, spec §1.6): it is the canonical `tool`
//! message holding those items beside its results; a part with a `$type`
//! member is opaque. A call or result
//! without an `id` (older Gemini models send none) gets the id
//! `<name>#<k>`, for the k-th id-less call (result) of that name in its
//! content, so the k-th response of a name answers the k-th call of that
//! name, as Gemini pairs them; such parts have no canonical form.

use super::keyed::Keyed;
use super::ConvertError;
use crate::terms::{Item, Role, ShapeError};
use serde_json::{json, Map, Value};

fn wrap(r: &Value) -> Result<Value, String> {
    match r {
        Value::Object(o) if lone_output(o).is_some() => Err(
            "a functionResult whose result is an object with only a non-object `output` has no Gemini form (it would come back as that output)"
                .into(),
        ),
        Value::Object(_) => Ok(r.clone()),
        _ => Ok(json!({ "output": r })),
    }
}

/// The `output` of an object whose only member is a non-object `output`.
fn lone_output(o: &Map<String, Value>) -> Option<&Value> {
    match o.get("output") {
        Some(v) if o.len() == 1 && !v.is_object() => Some(v),
        _ => None,
    }
}

fn unwrap(v: &Value) -> Result<Value, String> {
    match v {
        Value::Object(o) => Ok(lone_output(o).unwrap_or(v).clone()),
        _ => {
            Err("a functionResponse whose `response` is not an object has no canonical form".into())
        }
    }
}

/// The Gemini format, for [`super::keyed`].
pub(crate) const GEMINI: Keyed = Keyed {
    title: "Gemini",
    items_key: "parts",
    model_role: "model",
    call: ("functionCall", "id", "args"),
    args_required: false,
    result: ("functionResponse", "id", "response"),
    result_inner: &["name"],
    wrap,
    unwrap,
    ids_from_names: true,
    system_value: |parts| json!({ "parts": parts }),
    system_parts: |v| {
        v.as_object()
            .filter(|o| o.len() == 1)
            .and_then(|o| o.get("parts"))
            .and_then(Value::as_array)
    },
};

/// The role and items of a Gemini content whose role string is
/// `role_text` (see the module doc).
pub(crate) fn role_and_items(
    obj: &Map<String, Value>,
    role_text: &str,
    index: usize,
) -> Result<(Role, Vec<Item>), ShapeError> {
    GEMINI.view(obj, role_text, index)
}

/// Converts a canonical history to Gemini contents (the system
/// pseudo-message first when the history has a pinned system message), one
/// message for one message.
///
/// # Errors
///
/// [`ConvertError`] for the first message Gemini cannot carry: a system
/// message that is not first or has other members or non-text items, a
/// role other than lowercase `user`, `assistant`, `tool`, `system`, a tool
/// message without results, a `functionResult`
/// outside a tool message, an approval item, a text item without a string
/// `text`, a result the module doc's rule cannot carry, a member that would
/// collide (`parts` on a message, `functionCall` on an item, ...).
pub fn to_gemini(messages: &[Value]) -> Result<Vec<Value>, ConvertError> {
    GEMINI.write_wire(messages)
}

/// Converts Gemini contents (system pseudo-message first, when there is
/// one) to a canonical history; the inverse of [`to_gemini`].
///
/// # Errors
///
/// [`ConvertError`] when a content is not an object, its role is not
/// `user` or `model` (or `system` first), its `parts` is not an array or
/// null, a part is not an object, has two of `text`, `functionCall`,
/// `functionResponse`, has a `$type` naming a canonical kind, a call or
/// response without a string `id` or with another member, a `response`
/// that is not an object, or `functionResponse` parts in a `model` content.
pub fn from_gemini(messages: &[Value]) -> Result<Vec<Value>, ConvertError> {
    GEMINI.read_wire(messages)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::json_eq;
    use crate::terms::ItemKind;

    fn list(v: Value) -> Vec<Value> {
        v.as_array().unwrap().clone()
    }

    #[test]
    fn weather_history_converts_both_ways() {
        let h = list(json!([
            {"role": "system", "contents": [{"$type": "text", "text": "Be brief."}]},
            {"role": "user", "contents": [{"$type": "text", "text": "weather?"}]},
            {"role": "assistant", "contents": [{"$type": "functionCall", "callId": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]},
            {"role": "tool", "contents": [{"$type": "functionResult", "callId": "c1", "name": "get_weather", "result": "sunny"}]},
            {"role": "assistant", "contents": [{"$type": "text", "text": "sunny"}, {"$type": "dataContent", "uri": "data:,"}]}
        ]));
        let g = to_gemini(&h).unwrap();
        assert_eq!(
            Value::Array(g.clone()),
            json!([
                {"role": "system", "content": {"parts": [{"text": "Be brief."}]}},
                {"role": "user", "parts": [{"text": "weather?"}]},
                {"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "get_weather", "args": {"city": "Paris"}}}]},
                {"role": "user", "parts": [{"functionResponse": {"id": "c1", "name": "get_weather", "response": {"output": "sunny"}}}]},
                {"role": "model", "parts": [{"text": "sunny"}, {"$type": "dataContent", "uri": "data:,"}]}
            ])
        );
        let back = from_gemini(&g).unwrap();
        assert!(json_eq(&Value::Array(back), &Value::Array(h)));
    }

    #[test]
    fn results_travel_in_response_objects() {
        for (result, response) in [
            (json!("sunny"), json!({"output": "sunny"})),
            (json!({"temp": 21}), json!({"temp": 21})),
            (
                json!({"output": {"temp": 21}}),
                json!({"output": {"temp": 21}}),
            ),
            (json!([1, 2]), json!({"output": [1, 2]})),
            (Value::Null, json!({"output": null})),
        ] {
            assert_eq!(wrap(&result).unwrap(), response);
            assert_eq!(unwrap(&response).unwrap(), result);
        }
        assert!(wrap(&json!({"output": "x"})).is_err());
        assert!(unwrap(&json!("x")).is_err());
    }

    #[test]
    fn a_user_content_of_responses_only_is_a_tool_message() {
        let c = json!({"role": "user", "parts": [
            {"functionResponse": {"name": "f", "response": {}}},
            {"functionResponse": {"name": "f", "response": {}}},
            {"functionResponse": {"id": "x", "name": "g", "response": {}}}]});
        let (role, items) = role_and_items(c.as_object().unwrap(), "user", 0).unwrap();
        assert_eq!(role, Role::Tool);
        let ids: Vec<_> = items.iter().map(|i| (i.kind, i.id.as_str())).collect();
        assert_eq!(
            ids,
            vec![
                (ItemKind::Result, "f#1"),
                (ItemKind::Result, "f#2"),
                (ItemKind::Result, "x")
            ]
        );
        assert_eq!(
            from_gemini(&[c]).unwrap_err().to_string(),
            "message 0, content 0: functionResponse has no string `id` (the canonical form needs a call id)"
        );
    }

    /// A user content holding responses beside text (and beside other
    /// responses) is a tool message holding text items beside its results,
    /// part for item, both ways (spec §1.6); so is one holding a text part
    /// before its responses.
    #[test]
    fn results_beside_text_are_one_tool_message() {
        let wire = list(json!([
            {"role": "user", "parts": [{"text": "weather in Paris and Rome?"}]},
            {"role": "model", "parts": [
                {"functionCall": {"id": "a", "name": "get_weather", "args": {"city": "Paris"}}},
                {"functionCall": {"id": "b", "name": "get_weather", "args": {"city": "Rome"}}}]},
            {"role": "user", "parts": [
                {"functionResponse": {"id": "a", "name": "get_weather", "response": {"output": "sunny"}}},
                {"functionResponse": {"id": "b", "name": "get_weather", "response": {"temp": 21}}},
                {"text": "and tomorrow?"}]}
        ]));
        let canonical = from_gemini(&wire).unwrap();
        assert_eq!(
            canonical[2],
            json!({"role": "tool", "contents": [
                {"$type": "functionResult", "callId": "a", "name": "get_weather", "result": "sunny"},
                {"$type": "functionResult", "callId": "b", "name": "get_weather", "result": {"temp": 21}},
                {"$type": "text", "text": "and tomorrow?"}]})
        );
        assert_eq!(to_gemini(&canonical).unwrap(), wire);
        let (role, items) = role_and_items(wire[2].as_object().unwrap(), "user", 2).unwrap();
        assert_eq!(role, Role::Tool);
        let kinds: Vec<_> = items.iter().map(|i| (i.kind, i.id.as_str())).collect();
        assert_eq!(
            kinds,
            [
                (ItemKind::Result, "a"),
                (ItemKind::Result, "b"),
                (ItemKind::Text, "")
            ]
        );
        let before = json!({"role": "user", "parts": [
            {"text": "and?"}, {"functionResponse": {"id": "x", "name": "f", "response": {}}}]});
        assert_eq!(
            from_gemini(std::slice::from_ref(&before)).unwrap(),
            [json!({"role": "tool", "contents": [
                {"$type": "text", "text": "and?"},
                {"$type": "functionResult", "callId": "x", "name": "f", "result": {}}]})]
        );
        assert_eq!(
            to_gemini(&from_gemini(std::slice::from_ref(&before)).unwrap()).unwrap(),
            [before]
        );
        let text_only =
            list(json!([{"role": "tool", "contents": [{"$type": "text", "text": "x"}]}]));
        assert_eq!(
            to_gemini(&text_only).unwrap_err().to_string(),
            "message 0: a tool message without results has no Gemini form"
        );
    }

    #[test]
    fn what_gemini_cannot_carry_is_an_error() {
        let no = |v: Value| to_gemini(&list(v)).unwrap_err().to_string();
        assert_eq!(
            no(json!([{"role": "assistant", "contents": [{"$type": "toolApprovalRequest", "requestId": "r"}]}])),
            "message 0, content 0: a toolApprovalRequest item has no Gemini form (it has no approval items)"
        );
        assert_eq!(
            no(json!([{"role": "user", "contents": []}, {"role": "system", "contents": []}])),
            "message 1: a system message that is not the first message has no Gemini form (only the first message becomes the top-level system prompt)"
        );
        assert_eq!(
            no(json!([{"role": "Assistant", "contents": []}])),
            "message 0: role \"Assistant\" has no lossless Gemini form (only lowercase user, assistant, tool and system)"
        );
        assert_eq!(
            no(json!([{"role": "user", "contents": [{"text": "hi"}]}])),
            "message 0, content 0: an item without `$type` that has a `text` member has no Gemini form (it would be read as a text part)"
        );
    }
}
