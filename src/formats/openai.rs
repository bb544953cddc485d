//! Canonical ⇄ OpenAI Chat Completions conversion (spec §1).
//!
//! | canonical                                   | OpenAI                                                      |
//! |---------------------------------------------|-------------------------------------------------------------|
//! | `role`                                      | `role`, as received                                         |
//! | one plain `text` item (only `$type`, `text`) | `content: "..."`                                            |
//! | no items besides calls                      | `content: null`                                             |
//! | any other items                             | `content: [parts]`, each item with `$type` renamed `type`    |
//! | `functionCall` items (after all others)     | `tool_calls: [{"id", "type": "function", "function": {"name", "arguments": "<JSON text>"}}]` (`"{}"` for a call without arguments: Chat Completions requires the string), other call members kept on the entry |
//! | `tool` message with one `functionResult` whose `result` is a string | `{"role": "tool", "tool_call_id", "content": "<result>"}` |
//! | other message members                       | the same members                                            |
//!
//! Approval requests and responses, and opaque items, travel as content parts
//! (`{"type": "toolApprovalRequest", "requestId": ...}`). What OpenAI cannot
//! carry is an error, never a silent change: several results in one tool
//! message, a non-string result, a call before other content, members whose
//! names collide with OpenAI's. For every history that converts,
//! `from_openai(to_openai(h)) == h` (as JSON values), but that a call
//! without `arguments` comes back with `arguments: {}`.
//!
//! **The view** ([`super::view_message`]): a `tool` message is one result,
//! its `tool_call_id` (whatever else it carries). Any other message has its
//! `content` (a string is one text item; an array gives one item per part,
//! classified by its `type` as canonical items are by `$type`, except that
//! `functionCall` and `functionResult` parts are opaque), then one call per
//! `tool_calls` entry (its `id`). Calls and tool results are not elements
//! of the `content` array, so removing a tool message's result drops the
//! message ([`super::strip_items`]).

use super::canonical::classify_tagged;
use super::{
    content_items, convert_all, copy_members, copy_other, member, object_and_role, refuse_members,
    rename_tag, string_field, ConvertError, ItemSink, Members,
};
use crate::terms::{ItemKind, Role, ShapeError};
use serde_json::{Map, Value};

fn err(index: usize, problem: impl Into<String>) -> ConvertError {
    ShapeError::new(index, None, problem)
}

/// The items of an OpenAI message with role `role` (see the module doc),
/// into `sink`.
pub(crate) fn items(
    obj: &Map<String, Value>,
    role: Role,
    index: usize,
    sink: &mut dyn ItemSink,
) -> Result<(), ShapeError> {
    if role == Role::Tool {
        let id = string_field(obj, "tool_call_id", index, None, "tool message")?;
        sink.item(ItemKind::Result, id, None);
    } else {
        content_items(
            obj,
            index,
            &|o, tag, i| match tag {
                "functionCall" | "functionResult" => Ok((ItemKind::Opaque, "")),
                _ => classify_tagged(o, tag, index, i),
            },
            sink,
        )?;
    }
    match member(obj, "tool_calls") {
        None | Some(Value::Null) => {}
        Some(Value::Array(calls)) => {
            for (i, c) in calls.iter().enumerate() {
                let o = c.as_object().ok_or_else(|| {
                    ShapeError::new(index, None, format!("tool_calls[{i}] is not an object"))
                })?;
                let id = match member(o, "id") {
                    Some(Value::String(s)) => s.as_str(),
                    _ => string_field(o, "id", index, None, &format!("tool_calls[{i}]"))?,
                };
                sink.item(ItemKind::Call, id, None);
            }
        }
        Some(_) => return Err(ShapeError::new(index, None, "`tool_calls` is not an array")),
    }
    Ok(())
}

/// Converts a canonical history to OpenAI Chat Completions messages, one
/// message for one message.
///
/// # Errors
///
/// [`ConvertError`] for the first message OpenAI cannot carry (see the
/// module doc).
pub fn to_openai(messages: &[Value]) -> Result<Vec<Value>, ConvertError> {
    convert_all(messages, message_to_openai)
}

fn message_to_openai(msg: &Value, index: usize) -> Result<Value, ConvertError> {
    let (obj, role) = object_and_role(msg, index)?;
    let empty = Vec::new();
    let contents = match obj.get("contents") {
        Some(Value::Array(a)) => a,
        None => &empty,
        Some(_) => return Err(err(index, "`contents` is not an array")),
    };
    let mut out = Map::new();
    out.insert("role".into(), Value::String(role.into()));
    refuse_members(
        obj,
        &["content", "tool_calls", "tool_call_id"],
        index,
        "OpenAI's",
    )?;
    let tag = |c: &Value| c.get("$type").and_then(Value::as_str).map(str::to_owned);
    if Role::parse(role) == Role::Tool {
        let [item] = contents.as_slice() else {
            return Err(err(index, format!("a tool message with {} content items has no OpenAI form (one result per tool message)", contents.len())));
        };
        let o = item
            .as_object()
            .filter(|_| tag(item).as_deref() == Some("functionResult"));
        let o = o.ok_or_else(|| {
            err(
                index,
                "a tool message whose content is not a functionResult has no OpenAI form",
            )
        })?;
        if let Some(k) = o
            .keys()
            .find(|k| !matches!(k.as_str(), "$type" | "callId" | "result"))
        {
            return Err(err(
                index,
                format!("functionResult member `{k}` has no OpenAI form"),
            ));
        }
        let call_id = o
            .get("callId")
            .cloned()
            .ok_or_else(|| err(index, "functionResult has no `callId`"))?;
        let result = match o.get("result") {
            Some(Value::String(s)) => Value::String(s.clone()),
            _ => {
                return Err(err(
                    index,
                    "a functionResult whose result is not a string has no OpenAI form",
                ))
            }
        };
        out.insert("tool_call_id".into(), call_id);
        out.insert("content".into(), result);
    } else {
        let mut parts = Vec::new();
        let mut calls = Vec::new();
        for (k, c) in contents.iter().enumerate() {
            let o = c
                .as_object()
                .ok_or_else(|| err(index, format!("content {k} is not an object")))?;
            let t = tag(c).ok_or_else(|| err(index, format!("content {k} has no `$type`")))?;
            match t.as_str() {
                "functionCall" => calls.push(call_to_openai(o, index)?),
                "functionResult" => {
                    return Err(err(
                        index,
                        "a functionResult outside a tool message has no OpenAI form",
                    ))
                }
                _ => {
                    if !calls.is_empty() {
                        return Err(err(
                            index,
                            format!("content {k} after a functionCall has no OpenAI form"),
                        ));
                    }
                    parts.push(rename_tag(o, "$type", "type", || {
                        err(
                            index,
                            format!("content {k} has a `type` member, which would collide"),
                        )
                    })?);
                }
            }
        }
        let plain_text = |p: &Value| {
            p.as_object().is_some_and(|o| {
                o.len() == 2
                    && o.get("type") == Some(&Value::String("text".into()))
                    && o.get("text").is_some_and(Value::is_string)
            })
        };
        let content = match parts.as_slice() {
            [] => Value::Null,
            [p] if plain_text(p) => p["text"].clone(),
            _ => Value::Array(parts),
        };
        out.insert("content".into(), content);
        if !calls.is_empty() {
            out.insert("tool_calls".into(), Value::Array(calls));
        }
    }
    copy_other(obj, &mut out, &["role", "contents"]);
    Ok(Value::Object(out))
}

fn call_to_openai(o: &Map<String, Value>, index: usize) -> Result<Value, ConvertError> {
    let mut entry = Map::new();
    entry.insert(
        "id".into(),
        o.get("callId")
            .cloned()
            .ok_or_else(|| err(index, "functionCall has no `callId`"))?,
    );
    entry.insert("type".into(), Value::String("function".into()));
    let mut function = Map::new();
    if let Some(n) = o.get("name") {
        function.insert("name".into(), n.clone());
    }
    // Chat Completions requires `function.arguments`, a string: a call
    // without arguments gets the empty object's text.
    let arguments = o
        .get("arguments")
        .map_or_else(|| "{}".into(), Value::to_string);
    function.insert("arguments".into(), Value::String(arguments));
    entry.insert("function".into(), Value::Object(function));
    let how = Members {
        skip: &["$type", "callId", "name", "arguments"],
        rename: &[],
        refuse: &["id", "type", "function"],
    };
    copy_members(o, &mut entry, &how, |k| {
        err(
            index,
            format!("functionCall member `{k}` would collide with OpenAI's"),
        )
    })?;
    Ok(Value::Object(entry))
}

/// Converts OpenAI Chat Completions messages to the canonical format, one
/// message for one message; the inverse of [`to_openai`].
///
/// # Errors
///
/// [`ConvertError`] when a message is not an object, has no string role, a
/// tool message has no string `tool_call_id` or `content`, a tool call's
/// `function.arguments` is not JSON text, or a content part has no `type`.
pub fn from_openai(messages: &[Value]) -> Result<Vec<Value>, ConvertError> {
    convert_all(messages, message_from_openai)
}

fn message_from_openai(msg: &Value, index: usize) -> Result<Value, ConvertError> {
    let (obj, role) = object_and_role(msg, index)?;
    refuse_members(obj, &["contents"], index, "the canonical format")?;
    let mut contents = Vec::new();
    let mut skip: &[&str] = &["role", "content", "tool_calls"];
    if Role::parse(role) == Role::Tool {
        skip = &["role", "content", "tool_call_id"];
        let id = obj
            .get("tool_call_id")
            .filter(|v| v.is_string())
            .ok_or_else(|| err(index, "tool message has no string `tool_call_id`"))?;
        let result = obj
            .get("content")
            .filter(|v| v.is_string())
            .ok_or_else(|| err(index, "tool message has no string `content`"))?;
        contents
            .push(serde_json::json!({"$type": "functionResult", "callId": id, "result": result}));
    } else {
        match obj.get("content") {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) => {
                contents.push(serde_json::json!({"$type": "text", "text": s}))
            }
            Some(Value::Array(parts)) => {
                for (k, p) in parts.iter().enumerate() {
                    let o = p
                        .as_object()
                        .ok_or_else(|| err(index, format!("content part {k} is not an object")))?;
                    if !o.get("type").is_some_and(Value::is_string) {
                        return Err(err(index, format!("content part {k} has no string `type`")));
                    }
                    contents.push(rename_tag(o, "type", "$type", || {
                        err(
                            index,
                            format!("content part {k} has a `$type` member, which would collide"),
                        )
                    })?);
                }
            }
            Some(_) => return Err(err(index, "`content` is not a string, an array or null")),
        }
        match obj.get("tool_calls") {
            None => {}
            Some(Value::Array(calls)) => {
                for (k, c) in calls.iter().enumerate() {
                    contents.push(call_from_openai(c, index, k)?);
                }
            }
            Some(_) => return Err(err(index, "`tool_calls` is not an array")),
        }
    }
    let mut out = Map::new();
    out.insert("role".into(), Value::String(role.into()));
    out.insert("contents".into(), Value::Array(contents));
    copy_other(obj, &mut out, skip);
    Ok(Value::Object(out))
}

fn call_from_openai(c: &Value, index: usize, k: usize) -> Result<Value, ConvertError> {
    let o = c
        .as_object()
        .ok_or_else(|| err(index, format!("tool_calls[{k}] is not an object")))?;
    let mut item = Map::new();
    item.insert("$type".into(), Value::String("functionCall".into()));
    item.insert(
        "callId".into(),
        o.get("id")
            .filter(|v| v.is_string())
            .cloned()
            .ok_or_else(|| err(index, format!("tool_calls[{k}] has no string `id`")))?,
    );
    let function = o
        .get("function")
        .and_then(Value::as_object)
        .ok_or_else(|| err(index, format!("tool_calls[{k}] has no `function` object")))?;
    if let Some(n) = function.get("name") {
        item.insert("name".into(), n.clone());
    }
    if let Some(a) = function.get("arguments") {
        let text = a.as_str().ok_or_else(|| {
            err(
                index,
                format!("tool_calls[{k}].function.arguments is not a string"),
            )
        })?;
        let parsed: Value = serde_json::from_str(text).map_err(|e| {
            err(
                index,
                format!("tool_calls[{k}].function.arguments is not JSON text: {e}"),
            )
        })?;
        item.insert("arguments".into(), parsed);
    }
    if let Some(extra) = function
        .keys()
        .find(|key| *key != "name" && *key != "arguments")
    {
        return Err(err(
            index,
            format!("tool_calls[{k}].function member `{extra}` has no canonical form"),
        ));
    }
    if let Some(t) = o.get("type").filter(|t| *t != "function") {
        return Err(err(
            index,
            format!("tool_calls[{k}] has type {t}, not \"function\""),
        ));
    }
    copy_other(o, &mut item, &["id", "function", "type"]);
    Ok(Value::Object(item))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::json_eq;
    use serde_json::json;

    #[test]
    fn seed_history_round_trips() {
        let h = json!([
            {"role": "system", "contents": [{"$type": "text", "text": "Be brief."}], "authorName": "app"},
            {"role": "user", "contents": [{"$type": "text", "text": "Check order 42."}]},
            {"role": "assistant", "contents": [
                {"$type": "text", "text": "Checking."},
                {"$type": "functionCall", "callId": "order-1", "name": "GetOrder", "arguments": {"id": 42}}]},
            {"role": "tool", "contents": [{"$type": "functionResult", "callId": "order-1", "result": "Paid"}]},
            {"role": "assistant", "contents": [{"$type": "toolApprovalRequest", "requestId": "r1", "toolCall": {"$type": "functionCall", "callId": "x", "name": "Refund"}}]},
            {"role": "user", "contents": [{"$type": "toolApprovalResponse", "requestId": "r1", "approved": true}]},
            {"role": "user", "contents": []}
        ]);
        let h = h.as_array().unwrap();
        let o = to_openai(h).unwrap();
        assert_eq!(
            o[2],
            json!({"role": "assistant", "content": "Checking.",
            "tool_calls": [{"id": "order-1", "type": "function", "function": {"name": "GetOrder", "arguments": "{\"id\":42}"}}]})
        );
        assert_eq!(
            o[3],
            json!({"role": "tool", "tool_call_id": "order-1", "content": "Paid"})
        );
        assert_eq!(
            o[0],
            json!({"role": "system", "content": "Be brief.", "authorName": "app"})
        );
        assert_eq!(o[6], json!({"role": "user", "content": null}));
        let back = from_openai(&o).unwrap();
        assert!(json_eq(&Value::Array(back), &Value::Array(h.clone())));
    }

    #[test]
    fn what_openai_cannot_carry_is_an_error() {
        let batched = json!([{"role": "tool", "contents": [
            {"$type": "functionResult", "callId": "a", "result": "1"},
            {"$type": "functionResult", "callId": "b", "result": "2"}]}]);
        assert_eq!(
            to_openai(batched.as_array().unwrap()).unwrap_err().to_string(),
            "message 0: a tool message with 2 content items has no OpenAI form (one result per tool message)"
        );
        let bad_args = json!([{"role": "assistant", "content": null, "tool_calls": [{"id": "a", "type": "function", "function": {"name": "f", "arguments": "{"}}]}]);
        assert!(from_openai(bad_args.as_array().unwrap())
            .unwrap_err()
            .to_string()
            .starts_with("message 0: tool_calls[0].function.arguments is not JSON text"));
    }
}
