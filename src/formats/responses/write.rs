//! Canonical → Responses ([`to_responses`]): one item per message, a call
//! item per call (spec §14.1).

use serde_json::{Map, Value};

use super::*;

/// Converts a canonical history to Responses input items (see the module
/// doc): one item per message, except that a message of calls becomes one
/// item per call.
///
/// # Errors
///
/// [`ConvertError`] for the first message the Responses API cannot carry,
/// e.g. `message 2: calls beside other items have no Responses form ...`,
/// `message 3: a tool message with 2 content items has no Responses form
/// ...`.
pub fn to_responses(messages: &[Value]) -> Result<Vec<Value>, ConvertError> {
    let mut out = Vec::with_capacity(messages.len());
    let mut after_calls = false;
    for (index, msg) in messages.iter().enumerate() {
        let (obj, role) = object_and_role(msg, index)?;
        let items = match obj.get("contents") {
            None | Some(Value::Null) => None,
            Some(Value::Array(a)) => Some(a),
            Some(_) => return Err(err(index, "`contents` is not an array")),
        };
        let shape = shape(obj, role, items, index)?;
        let calls = matches!(shape, Shape::Calls(_));
        if calls && after_calls {
            return Err(err(
                index,
                "an assistant message of calls right after another has no Responses form (the two would come back as one message)",
            ));
        }
        after_calls = calls;
        match shape {
            Shape::Message => out.push(message_to_item(obj, role, index)?),
            Shape::Calls(calls) => {
                for (k, c) in calls.iter().enumerate() {
                    out.push(call_to_item(c, index, k)?);
                }
            }
            Shape::Output(o) => out.push(output_to_item(obj, o, index)?),
            Shape::ApprovalRequest(o) => {
                let how = Retag {
                    tag: ("type", "mcp_approval_request"),
                    id: ("requestId", "id"),
                    lead: &[],
                    rest: Members {
                        skip: &["$type", "requestId"],
                        rename: &[],
                        refuse: &["type", "id"],
                    },
                    what: "toolApprovalRequest",
                    whose: "Responses'",
                };
                out.push(Value::Object(retag(o, &how, |p| item_err(index, 0, p))?));
            }
            Shape::ApprovalResponse(o) => {
                let how = Retag {
                    tag: ("type", "mcp_approval_response"),
                    id: ("requestId", "approval_request_id"),
                    lead: &[("approved", "approve")],
                    rest: Members {
                        skip: &["$type", "requestId", "approved"],
                        rename: &[],
                        refuse: &["type", "approval_request_id", "approve"],
                    },
                    what: "toolApprovalResponse",
                    whose: "Responses'",
                };
                out.push(Value::Object(retag(o, &how, |p| item_err(index, 0, p))?));
            }
            Shape::Item(o) => out.push(rename_tag(o, "$type", "type", || {
                item_err(index, 0, "has a `type` member, which would collide")
            })?),
        }
    }
    Ok(out)
}

/// A canonical message (not a tool message, no calls) as a message item.
fn message_to_item(
    obj: &Map<String, Value>,
    role: &str,
    index: usize,
) -> Result<Value, ConvertError> {
    if let Some(t) = obj.get("type").filter(|t| *t != "message") {
        return Err(err(
            index,
            format!("member `type` {t} would collide with Responses' item type (only \"message\" travels)"),
        ));
    }
    if obj.contains_key("content") {
        return Err(err(index, "member `content` would collide with Responses'"));
    }
    let mut out = Map::new();
    out.insert("role".into(), Value::String(role.into()));
    let text_type = if role == "assistant" {
        "output_text"
    } else {
        "input_text"
    };
    match obj.get("contents") {
        None => {}
        Some(Value::Array(items)) => {
            let mut parts = Vec::with_capacity(items.len());
            for (k, c) in items.iter().enumerate() {
                let o = c
                    .as_object()
                    .ok_or_else(|| item_err(index, k, "is not an object"))?;
                let t = tag(c).ok_or_else(|| item_err(index, k, "has no string `$type`"))?;
                let part_type = match t {
                    "text" => text_type,
                    "input_text" | "output_text" => {
                        return Err(item_err(
                            index,
                            k,
                            format!(
                                "`$type` {t:?} has no Responses form (it would come back as text)"
                            ),
                        ))
                    }
                    _ if CANONICAL_TAGS.contains(&t) => {
                        return Err(item_err(
                            index,
                            k,
                            format!("a {t} item in a message has no Responses form"),
                        ))
                    }
                    _ => t,
                };
                let mut part = Map::new();
                part.insert("type".into(), Value::String(part_type.into()));
                copy_members(
                    o,
                    &mut part,
                    &Members {
                        skip: &["$type"],
                        rename: &[],
                        refuse: &["type"],
                    },
                    |_| item_err(index, k, "has a `type` member, which would collide"),
                )?;
                parts.push(Value::Object(part));
            }
            let plain = |p: &Value| {
                p.as_object().is_some_and(|o| {
                    o.len() == 2
                        && o.get("type").and_then(Value::as_str) == Some(text_type)
                        && o.get("text").is_some_and(Value::is_string)
                })
            };
            let content = match parts.as_slice() {
                [p] if plain(p) => p["text"].clone(),
                _ => Value::Array(parts),
            };
            out.insert("content".into(), content);
        }
        Some(_) => {
            // `contents: null` (anything else was refused by `to_responses`).
            out.insert("content".into(), Value::Null);
        }
    }
    copy_other(obj, &mut out, &["role", "contents"]);
    Ok(Value::Object(out))
}

/// A canonical `functionCall` item as a call item.
fn call_to_item(c: &Value, index: usize, k: usize) -> Result<Value, ConvertError> {
    let o = c
        .as_object()
        .expect("calls are objects with a string `$type`");
    let call_type = match o.get("type") {
        None => "function_call",
        Some(Value::String(t))
            if t != "function_call" && CALLS.iter().any(|(call, _, _)| call == t) =>
        {
            t.as_str()
        }
        Some(t) => {
            return Err(item_err(
                index,
                k,
                format!("functionCall member `type` {t} would collide with Responses' item type (only another call type travels)"),
            ))
        }
    };
    let error = |p: String| item_err(index, k, p);
    if call_type != "function_call" {
        let how = Retag {
            tag: ("type", call_type),
            id: ("callId", "call_id"),
            lead: &[],
            rest: Members {
                skip: &["$type", "callId", "type"],
                rename: &[],
                refuse: &["call_id"],
            },
            what: "functionCall",
            whose: "Responses'",
        };
        return Ok(Value::Object(retag(o, &how, error)?));
    }
    let how = Retag {
        tag: ("type", "function_call"),
        id: ("callId", "call_id"),
        lead: &[("name", "name")],
        rest: Members {
            skip: &["$type", "callId", "name", "arguments"],
            rename: &[],
            refuse: &["call_id"],
        },
        what: "functionCall",
        whose: "Responses'",
    };
    let mut out = retag(o, &how, error)?;
    // A `function_call` requires `arguments`, a string: a call without
    // arguments gets the empty object's text. After `name`, as the API
    // writes it: rebuild in order.
    let arguments = o
        .get("arguments")
        .map_or_else(|| "{}".into(), Value::to_string);
    let mut ordered = Map::new();
    for (key, v) in std::mem::take(&mut out) {
        let after_name = key == "name";
        ordered.insert(key, v);
        if after_name {
            ordered.insert("arguments".into(), Value::String(arguments.clone()));
        }
    }
    if !ordered.contains_key("arguments") {
        ordered.insert("arguments".into(), Value::String(arguments));
    }
    Ok(Value::Object(ordered))
}

/// A canonical tool message with one result as an output item.
fn output_to_item(
    msg: &Map<String, Value>,
    result: &Map<String, Value>,
    index: usize,
) -> Result<Value, ConvertError> {
    if let Some(k) = result
        .keys()
        .find(|k| !matches!(k.as_str(), "$type" | "callId" | "result"))
    {
        return Err(item_err(
            index,
            0,
            format!("functionResult member `{k}` has no Responses form (the output item's members are the message's)"),
        ));
    }
    let (output_type, id_key) = match msg.get("type") {
        None => ("function_call_output", "call_id"),
        Some(Value::String(t)) if t != "function_call_output" => CALLS
            .iter()
            .find(|(_, o, _)| o == t)
            .map(|(_, o, id)| (*o, *id))
            .ok_or_else(|| {
                err(
                    index,
                    format!("member `type` {t:?} of a tool message is not a Responses output type"),
                )
            })?,
        Some(t) => {
            return Err(err(
                index,
                format!("member `type` {t} of a tool message has no Responses form (function_call_output is implied)"),
            ))
        }
    };
    let call_id = result
        .get("callId")
        .filter(|v| v.is_string())
        .cloned()
        .ok_or_else(|| item_err(index, 0, "functionResult has no string `callId`"))?;
    let mut out = Map::new();
    out.insert("type".into(), Value::String(output_type.into()));
    out.insert(id_key.into(), call_id);
    if let Some(r) = result.get("result") {
        if !(r.is_string() || r.is_array()) {
            return Err(item_err(
                index,
                0,
                "a functionResult whose result is not a string or an array has no Responses form (`output` takes those)",
            ));
        }
        out.insert("output".into(), r.clone());
    }
    copy_members(
        msg,
        &mut out,
        &Members {
            skip: &["role", "contents", "type"],
            rename: &[],
            refuse: &[id_key, "output", "call_id"],
        },
        |k| err(index, format!("member `{k}` would collide with Responses'")),
    )?;
    Ok(Value::Object(out))
}

// ---- Responses → canonical ------------------------------------------------
