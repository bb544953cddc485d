//! Canonical ⇄ OpenAI Responses conversion (spec v2 §14.1).
//!
//! With `--format responses` a history is the Responses API's `input`: a
//! list of *items*, each one message of the kit's list (one budget unit).
//! It travels in the runner protocol as `messages`.
//!
//! | canonical                                                         | Responses item                                               |
//! |-------------------------------------------------------------------|--------------------------------------------------------------|
//! | a message (role `user`, `assistant`, `system` or `developer`)     | a message item `{"role", "content", ...}` (with `type: "message"` when the canonical message has that member) |
//! | one plain `text` item                                             | `content: "..."`                                             |
//! | `text` items                                                      | `input_text` parts (`output_text` in an `assistant` message) |
//! | other items                                                       | parts, `$type` renamed `type`                                |
//! | an `assistant` message of calls only (no other member)            | one call item per call, consecutive: `function_call` (`call_id`, `name`, `arguments` as JSON text), or the item type the call's `type` member names (`custom_tool_call`, `computer_call`, ...) |
//! | a `tool` message with one `functionResult` (`callId`, `result` only) | a `function_call_output` item (`call_id`, `output`), or the output type the message's `type` member names; the message's other members are the item's |
//! | an `assistant` message with one `toolApprovalRequest` (no other member) | `mcp_approval_request` (`id` = `requestId`, other members as they are) |
//! | a `user` message with one `toolApprovalResponse` (no other member) | `mcp_approval_response` (`approval_request_id`, `approve` = `approved`) |
//! | an `assistant` message with one item whose `$type` is `reasoning`, `web_search_call`, ... (no other member) | that item: `$type` renamed `type` |
//!
//! The reverse merges consecutive call items into one `assistant` message
//! (the parallel shape). What the Responses form could not give back
//! unchanged is an error, never a silent change: calls beside other items or
//! in a message with other members, a call-only message right after another
//! (the two would merge), several results in one tool message (batched),
//! members on a result item, a result that is neither a string nor an array
//! (`output` takes those), several approval items in one message, the older
//! `function*Approval*` names, roles other than lowercase `user`,
//! `assistant`, `system`, `developer` and `tool`, and members whose names
//! collide. For every history that converts,
//! `from_responses(to_responses(h)) == h` (as JSON values).
//!
//! **The view** (`view`): each item is one message.
//!
//! | item | role | items (id) |
//! |------|------|-----------|
//! | `message`, or no `type` and a `role` | its `role` | `content`: a string is one text item; parts `input_text` / `output_text` are text, others opaque |
//! | a call type ([`CALLS`]) | assistant | one call (`call_id`) |
//! | an output type ([`CALLS`]) | tool | one result (`call_id`; `id` for `local_shell_call_output`) |
//! | `mcp_approval_request` | assistant | one approval request (`id`) |
//! | `mcp_approval_response` | user | one approval response (`approval_request_id`): approval-only |
//! | `reasoning` | assistant | one opaque item, attached to the next item |
//! | any other type | assistant | one opaque item |
//!
//! Calls, results and approval items are the item itself (not an element of
//! an array), so removing a result or a response removes the whole item
//! ([`super::strip_items`]).

use super::{
    copy_members, copy_other, object_and_role, rename_tag, retag, string_field, ConvertError,
    Members, Retag,
};
use crate::terms::{Item, ItemKind, Role, ShapeError};
use serde_json::{json, Map, Value};

/// The client-answered call item types of the Responses API, each with its
/// output item type and the output's id member (the call's id member is
/// always `call_id`): the model asks, the client runs the tool and sends
/// the output back. From the API reference, "Create a model response",
/// parameter `input`.
pub const CALLS: [(&str, &str, &str); 6] = [
    ("function_call", "function_call_output", "call_id"),
    ("custom_tool_call", "custom_tool_call_output", "call_id"),
    ("computer_call", "computer_call_output", "call_id"),
    ("local_shell_call", "local_shell_call_output", "id"),
    ("shell_call", "shell_call_output", "call_id"),
    ("apply_patch_call", "apply_patch_call_output", "call_id"),
];

/// Item types the model produces and the server runs (or that carry no
/// tool traffic): opaque to reduction, each a one-item `assistant` message
/// in canonical form. `reasoning` is attached to the item after it.
pub const OPAQUE_ITEMS: [&str; 9] = [
    "reasoning",
    "web_search_call",
    "file_search_call",
    "image_generation_call",
    "code_interpreter_call",
    "mcp_call",
    "mcp_list_tools",
    "item_reference",
    "compaction",
];

/// The item type of the reasoning item (spec v2 §14.6).
pub const REASONING: &str = "reasoning";

/// The canonical item tags a Responses part must not take: the canonical
/// format would read them as calls, results or approval items, or as text.
const CANONICAL_TAGS: [&str; 7] = [
    "functionCall",
    "functionResult",
    "toolApprovalRequest",
    "toolApprovalResponse",
    "functionApprovalRequest",
    "functionApprovalResponse",
    "text",
];

fn err(index: usize, problem: impl Into<String>) -> ConvertError {
    ShapeError::new(index, None, problem)
}

fn item_err(index: usize, item: usize, problem: impl Into<String>) -> ConvertError {
    ShapeError::new(index, Some(item), problem)
}

/// What an item of a given `type` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A message item.
    Message,
    /// A call item (its type).
    Call(&'static str),
    /// An output item: its type and its id member.
    Output(&'static str, &'static str),
    /// `mcp_approval_request`.
    ApprovalRequest,
    /// `mcp_approval_response`.
    ApprovalResponse,
    /// Any other type (a known one of [`OPAQUE_ITEMS`] or not).
    Other,
}

fn kind_of(tag: &str) -> Kind {
    if tag == "message" {
        return Kind::Message;
    }
    if let Some((call, _, _)) = CALLS.iter().find(|(c, _, _)| *c == tag) {
        return Kind::Call(call);
    }
    if let Some((_, output, id)) = CALLS.iter().find(|(_, o, _)| *o == tag) {
        return Kind::Output(output, id);
    }
    match tag {
        "mcp_approval_request" => Kind::ApprovalRequest,
        "mcp_approval_response" => Kind::ApprovalResponse,
        _ => Kind::Other,
    }
}

/// The `type` of an item: `None` for an "easy" message (no `type`, a
/// `role`).
///
/// # Errors
///
/// When `type` is not a string, or is absent without a `role`.
fn item_type(obj: &Map<String, Value>, index: usize) -> Result<Option<&str>, ShapeError> {
    match obj.get("type") {
        Some(Value::String(t)) => Ok(Some(t)),
        Some(_) => Err(ShapeError::new(index, None, "item has a non-string `type`")),
        None if obj.contains_key("role") => Ok(None),
        None => Err(ShapeError::new(
            index,
            None,
            "item has no `type` and no `role`",
        )),
    }
}

/// Whether item `obj` is a `reasoning` item (spec v2 §14.6).
pub fn is_reasoning(obj: &Map<String, Value>) -> bool {
    obj.get("type").and_then(Value::as_str) == Some(REASONING)
}

/// Whether item `obj` is a client-answered call item ([`CALLS`]): a
/// member of a call group (spec v2 §14.5).
pub fn is_call_item(obj: &Map<String, Value>) -> bool {
    obj.get("type")
        .and_then(Value::as_str)
        .is_some_and(|t| matches!(kind_of(t), Kind::Call(_)))
}

/// The role, the role text and the items of Responses item `index` (see
/// the module doc).
///
/// # Errors
///
/// A [`ShapeError`] when the item has a non-string `type`, neither `type`
/// nor `role`, a message without a string `role` or with a `content` that
/// is not a string, an array or null, or a call, output or approval item
/// without its string id.
pub(crate) fn view(
    obj: &Map<String, Value>,
    index: usize,
) -> Result<(Role, &str, Vec<Item>), ShapeError> {
    let one = |kind, key: &str, what: &str| -> Result<Vec<Item>, ShapeError> {
        Ok(vec![Item {
            kind,
            id: string_field(obj, key, index, None, what)?.to_string(),
            elem: None,
        }])
    };
    let tag = item_type(obj, index)?;
    let kind = tag.map_or(Kind::Message, kind_of);
    let tag = tag.unwrap_or("message");
    let (role, role_text, items) = match kind {
        Kind::Message => {
            let role_text = string_field(obj, "role", index, None, "message")?;
            let mut items: Vec<Item> = Vec::new();
            super::content_items(
                obj,
                index,
                &|_, t, _| {
                    Ok(match t {
                        "input_text" | "output_text" => (ItemKind::Text, ""),
                        _ => (ItemKind::Opaque, ""),
                    })
                },
                &mut items,
            )?;
            return Ok((Role::parse(role_text), role_text, items));
        }
        Kind::Call(_) => (
            Role::Assistant,
            "assistant",
            one(ItemKind::Call, "call_id", tag)?,
        ),
        Kind::Output(_, id) => (Role::Tool, "tool", one(ItemKind::Result, id, tag)?),
        Kind::ApprovalRequest => (
            Role::Assistant,
            "assistant",
            one(ItemKind::ApprovalRequest, "id", tag)?,
        ),
        Kind::ApprovalResponse => (
            Role::User,
            "user",
            one(ItemKind::ApprovalResponse, "approval_request_id", tag)?,
        ),
        Kind::Other => (
            Role::Assistant,
            "assistant",
            vec![Item {
                kind: ItemKind::Opaque,
                id: String::new(),
                elem: None,
            }],
        ),
    };
    Ok((role, role_text, items))
}

// ---- canonical → Responses ------------------------------------------------

/// The shape of a canonical message as Responses carries it.
enum Shape<'a> {
    /// A message item.
    Message,
    /// Call items, one per item.
    Calls(&'a [Value]),
    /// An output item for the one result.
    Output(&'a Map<String, Value>),
    /// `mcp_approval_request`.
    ApprovalRequest(&'a Map<String, Value>),
    /// `mcp_approval_response`.
    ApprovalResponse(&'a Map<String, Value>),
    /// A reasoning (or other assistant-side) item.
    Item(&'a Map<String, Value>),
}

/// The `$type` of a canonical item, when it is an object with a string one.
fn tag(v: &Value) -> Option<&str> {
    v.get("$type").and_then(Value::as_str)
}

fn is_call(v: &Value) -> bool {
    tag(v) == Some("functionCall")
}

/// The shape of canonical message `index` (see the module doc).
fn shape<'a>(
    obj: &'a Map<String, Value>,
    role: &str,
    items: Option<&'a Vec<Value>>,
    index: usize,
) -> Result<Shape<'a>, ConvertError> {
    let bare = obj.keys().all(|k| k == "role" || k == "contents");
    let items: &[Value] = items.map_or(&[], Vec::as_slice);
    let single = match items {
        [one] => one.as_object(),
        _ => None,
    };
    let single_tag = single.and_then(|o| o.get("$type")).and_then(Value::as_str);
    if role == "tool" {
        return match (items, single) {
            ([_], Some(o)) if single_tag == Some("functionResult") => Ok(Shape::Output(o)),
            _ => Err(err(
                index,
                format!(
                    "a tool message with {} content items has no Responses form (one functionResult per output item)",
                    items.len()
                ),
            )),
        };
    }
    let calls = items.iter().filter(|c| is_call(c)).count();
    if calls > 0 {
        if role != "assistant" {
            return Err(err(
                index,
                format!("a call in a {role:?} message has no Responses form"),
            ));
        }
        if calls < items.len() {
            return Err(err(
                index,
                "calls beside other items have no Responses form (each call is an item of its own; text beside calls would come back as a message of its own)",
            ));
        }
        if !bare {
            return Err(err(
                index,
                "an assistant message with calls and members besides role and contents has no Responses form",
            ));
        }
        return Ok(Shape::Calls(items));
    }
    match (bare, role, single, single_tag) {
        (true, "assistant", Some(o), Some("toolApprovalRequest")) => {
            return Ok(Shape::ApprovalRequest(o))
        }
        (true, "user", Some(o), Some("toolApprovalResponse")) => {
            return Ok(Shape::ApprovalResponse(o))
        }
        (true, "assistant", Some(o), Some(t)) if OPAQUE_ITEMS.contains(&t) => {
            return Ok(Shape::Item(o))
        }
        _ => {}
    }
    if !matches!(role, "user" | "assistant" | "system" | "developer") {
        return Err(err(
            index,
            format!("role {role:?} has no Responses form (only lowercase user, assistant, system, developer and tool)"),
        ));
    }
    Ok(Shape::Message)
}

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
    if let Some(a) = o.get("arguments") {
        // After `name`, as the API writes it: rebuild in order.
        let mut ordered = Map::new();
        for (key, v) in std::mem::take(&mut out) {
            let after_name = key == "name";
            ordered.insert(key, v);
            if after_name {
                ordered.insert("arguments".into(), Value::String(a.to_string()));
            }
        }
        if !ordered.contains_key("arguments") {
            ordered.insert("arguments".into(), Value::String(a.to_string()));
        }
        out = ordered;
    }
    Ok(Value::Object(out))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::json_eq;

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
        assert!(no(json!([{"role": "user", "contents": [{"$type": "functionApprovalResponse", "id": "r"}]}]))
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
            v(
                json!({"type": "mcp_approval_response", "approval_request_id": "r", "approve": false})
            ),
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
}
