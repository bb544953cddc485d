//! Responses → canonical ([`from_responses`]): consecutive call items
//! merged into one assistant message, the parallel shape (spec §14.1).

use serde_json::{json, Map, Value};

use super::*;

/// Converts Responses input items to a canonical history; the inverse of
/// [`to_responses`]: consecutive call items become one `assistant` message.
///
/// # Errors
///
/// [`ConvertError`] naming the item, when it is not an object; has a
/// non-string `type`, or neither `type` nor `role`; is a message whose role
/// is not `user`, `assistant`, `system` or `developer`, whose `content` is
/// not a string, an array or null, or that has a part without a string
/// `type`, a part `text`, an `input_text` part in an assistant message (an
/// `output_text` part elsewhere), or a part typed like a canonical call,
/// result or approval item; is a call, output or approval item without its
/// string id, or a `function_call` whose `arguments` is not JSON text; has
/// a member that would collide with the canonical form; or is of a type
/// that is neither a message, a call or output ([`CALLS`]), an MCP approval
/// item nor one of [`OPAQUE_ITEMS`].
pub fn from_responses(items: &[Value]) -> Result<Vec<Value>, ConvertError> {
    let mut out: Vec<Value> = Vec::with_capacity(items.len());
    let mut in_group = false;
    for (index, item) in items.iter().enumerate() {
        let obj = item
            .as_object()
            .ok_or_else(|| err(index, "is not a JSON object"))?;
        let t = item_type(obj, index)?;
        let kind = t.map_or(Kind::Message, kind_of);
        if let Kind::Call(call_type) = kind {
            let call = call_from_item(obj, call_type, index)?;
            match out.last_mut() {
                Some(Value::Object(m)) if in_group => {
                    if let Some(Value::Array(contents)) = m.get_mut("contents") {
                        contents.push(call);
                    }
                }
                _ => out.push(json!({"role": "assistant", "contents": [call]})),
            }
            in_group = true;
            continue;
        }
        in_group = false;
        let message = match kind {
            Kind::Message => message_from_item(obj, index)?,
            Kind::Call(_) => unreachable!("handled above"),
            Kind::Output(output_type, id_key) => output_from_item(obj, output_type, id_key, index)?,
            Kind::ApprovalRequest => {
                let how = Retag {
                    tag: ("$type", "toolApprovalRequest"),
                    id: ("id", "requestId"),
                    lead: &[],
                    rest: Members {
                        skip: &["type", "id"],
                        rename: &[],
                        refuse: &["$type", "requestId"],
                    },
                    what: "mcp_approval_request",
                    whose: "the canonical format",
                };
                let o = retag(obj, &how, |p| err(index, p))?;
                json!({"role": "assistant", "contents": [o]})
            }
            Kind::ApprovalResponse => {
                let how = Retag {
                    tag: ("$type", "toolApprovalResponse"),
                    id: ("approval_request_id", "requestId"),
                    lead: &[("approve", "approved")],
                    rest: Members {
                        skip: &["type", "approval_request_id", "approve"],
                        rename: &[],
                        refuse: &["$type", "requestId", "approved"],
                    },
                    what: "mcp_approval_response",
                    whose: "the canonical format",
                };
                let o = retag(obj, &how, |p| err(index, p))?;
                json!({"role": "user", "contents": [o]})
            }
            Kind::Other => {
                let t = t.expect("other kinds have a type");
                if !OPAQUE_ITEMS.contains(&t) {
                    return Err(err(index, format!("item type {t:?} has no canonical form")));
                }
                let o = rename_tag(obj, "type", "$type", || {
                    err(index, "has a `$type` member, which would collide")
                })?;
                json!({"role": "assistant", "contents": [o]})
            }
        };
        out.push(message);
    }
    Ok(out)
}

fn message_from_item(obj: &Map<String, Value>, index: usize) -> Result<Value, ConvertError> {
    let role = match obj.get("role") {
        Some(Value::String(r)) => r.as_str(),
        _ => return Err(err(index, "message item has no string `role`")),
    };
    if !matches!(role, "user" | "assistant" | "system" | "developer") {
        return Err(err(
            index,
            format!("a message item with role {role:?} has no canonical form (user, assistant, system or developer)"),
        ));
    }
    if obj.contains_key("contents") {
        return Err(err(
            index,
            "member `contents` would collide with the canonical format",
        ));
    }
    let (text_type, other_text) = if role == "assistant" {
        ("output_text", "input_text")
    } else {
        ("input_text", "output_text")
    };
    let mut out = Map::new();
    out.insert("role".into(), Value::String(role.into()));
    match obj.get("content") {
        None => {}
        Some(Value::Null) => {
            out.insert("contents".into(), Value::Null);
        }
        Some(Value::String(s)) => {
            out.insert("contents".into(), json!([{"$type": "text", "text": s}]));
        }
        Some(Value::Array(parts)) => {
            let mut items = Vec::with_capacity(parts.len());
            for (k, p) in parts.iter().enumerate() {
                let o = p
                    .as_object()
                    .ok_or_else(|| item_err(index, k, "is not an object"))?;
                let t = o
                    .get("type")
                    .and_then(Value::as_str)
                    .ok_or_else(|| item_err(index, k, "has no string `type`"))?;
                let item_tag = match t {
                    _ if t == text_type => "text",
                    _ if t == other_text => {
                        return Err(item_err(
                            index,
                            k,
                            format!("an {t} part in a{} {role} message has no canonical form (it would come back as {text_type})", if role == "assistant" { "n" } else { "" }),
                        ))
                    }
                    _ if CANONICAL_TAGS.contains(&t) => {
                        return Err(item_err(
                            index,
                            k,
                            format!("a part of type {t:?} has no canonical form"),
                        ))
                    }
                    _ => t,
                };
                let mut item = Map::new();
                item.insert("$type".into(), Value::String(item_tag.into()));
                copy_members(
                    o,
                    &mut item,
                    &Members {
                        skip: &["type"],
                        rename: &[],
                        refuse: &["$type"],
                    },
                    |_| item_err(index, k, "has a `$type` member, which would collide"),
                )?;
                items.push(Value::Object(item));
            }
            out.insert("contents".into(), Value::Array(items));
        }
        Some(_) => return Err(err(index, "`content` is not a string, an array or null")),
    }
    copy_other(obj, &mut out, &["role", "content"]);
    let bare = out.keys().all(|k| k == "role" || k == "contents");
    if bare && role == "assistant" {
        if let Some(Value::Array(items)) = out.get("contents") {
            if let [one] = items.as_slice() {
                if tag(one).is_some_and(|t| OPAQUE_ITEMS.contains(&t)) {
                    return Err(err(
                        index,
                        "an assistant message whose one part is typed like an item has no canonical form (it would come back as that item)",
                    ));
                }
            }
        }
    }
    Ok(Value::Object(out))
}

fn call_from_item(
    obj: &Map<String, Value>,
    call_type: &str,
    index: usize,
) -> Result<Value, ConvertError> {
    let error = |p: String| err(index, p);
    if call_type != "function_call" {
        let how = Retag {
            tag: ("$type", "functionCall"),
            id: ("call_id", "callId"),
            lead: &[("type", "type")],
            rest: Members {
                skip: &["call_id", "type"],
                rename: &[],
                refuse: &["$type", "callId"],
            },
            what: call_type,
            whose: "the canonical format",
        };
        return Ok(Value::Object(retag(obj, &how, error)?));
    }
    let how = Retag {
        tag: ("$type", "functionCall"),
        id: ("call_id", "callId"),
        lead: &[("name", "name")],
        rest: Members {
            skip: &["type", "call_id", "name", "arguments"],
            rename: &[],
            refuse: &["$type", "callId"],
        },
        what: "function_call",
        whose: "the canonical format",
    };
    let mut item = retag(obj, &how, error)?;
    if let Some(a) = obj.get("arguments") {
        let text = a
            .as_str()
            .ok_or_else(|| err(index, "function_call `arguments` is not a string"))?;
        let parsed: Value = serde_json::from_str(text).map_err(|e| {
            err(
                index,
                format!("function_call `arguments` is not JSON text: {e}"),
            )
        })?;
        let mut ordered = Map::new();
        for (key, v) in std::mem::take(&mut item) {
            let after_name = key == "name";
            ordered.insert(key, v);
            if after_name {
                ordered.insert("arguments".into(), parsed.clone());
            }
        }
        if !ordered.contains_key("arguments") {
            ordered.insert("arguments".into(), parsed);
        }
        item = ordered;
    }
    Ok(Value::Object(item))
}

fn output_from_item(
    obj: &Map<String, Value>,
    output_type: &str,
    id_key: &str,
    index: usize,
) -> Result<Value, ConvertError> {
    let id = obj
        .get(id_key)
        .filter(|v| v.is_string())
        .cloned()
        .ok_or_else(|| err(index, format!("{output_type} has no string `{id_key}`")))?;
    let mut result = Map::new();
    result.insert("$type".into(), Value::String("functionResult".into()));
    result.insert("callId".into(), id);
    if let Some(o) = obj.get("output") {
        result.insert("result".into(), o.clone());
    }
    let mut out = Map::new();
    out.insert("role".into(), Value::String("tool".into()));
    out.insert("contents".into(), json!([result]));
    if output_type != "function_call_output" {
        out.insert("type".into(), Value::String(output_type.into()));
    }
    copy_members(
        obj,
        &mut out,
        &Members {
            skip: &["type", id_key, "output"],
            rename: &[],
            refuse: &["role", "contents"],
        },
        |k| {
            err(
                index,
                format!("{output_type} member `{k}` would collide with the canonical format"),
            )
        },
    )?;
    Ok(Value::Object(out))
}
