//! Canonical ⇄ Anthropic Messages conversion (spec §1).
//!
//! Inside the kit a history is always a list of messages. For Anthropic that
//! list is the request's `messages`, preceded, when the request has a
//! top-level `system`, by the pseudo-message
//! `{"role": "system", "content": <system value>}`.
//! [`crate::protocol::split_system`] and [`crate::protocol::join_system`]
//! go between that list and the request's
//! `{"system"?, "messages"}` members.
//!
//! | canonical                                                     | Anthropic                                                        |
//! |---------------------------------------------------------------|------------------------------------------------------------------|
//! | the first message, role `system`                              | the pseudo-message `{"role": "system", "content": ...}` (first)  |
//! | `user` / `assistant` message                                  | the same role                                                    |
//! | `tool` message (at least one `functionResult`)                | `{"role": "user", "content": [blocks]}`: its results as `tool_result` blocks, several results in one message stay one message, and any other item (the user's text after the results, spec §1.6) as in a user message |
//! | exactly one plain text item (only `$type` and a string `text`) | `content: "..."`                                                 |
//! | any other items                                               | `content: [blocks]`, each item with `$type` renamed `type`       |
//! | `functionCall` item                                           | `{"type": "tool_use", "id": callId, "name": name, "input": arguments}` (`{}` for a call without arguments: the API requires `input`), other call members kept on the block |
//! | `functionResult` item                                         | `{"type": "tool_result", "tool_use_id": callId, "content": result}`, other result members kept on the block |
//! | no `contents` member / `contents: null`                       | no `content` member / `content: null` (not for system and tool messages) |
//! | other message members                                         | the same members (not on the system message)                     |
//!
//! Approval requests and responses, and opaque items, travel as blocks
//! (`{"type": "toolApprovalRequest", "requestId": ...}`); the system
//! message's items travel as text blocks. What Anthropic cannot carry is an
//! error, never a silent change: a system message that is not the first
//! message (or a second one), a role other than lowercase `user`,
//! `assistant`, `tool`, `system` (Anthropic has only `user` and `assistant`
//! plus the top-level `system`, so `developer` or `User` could not come back
//! as received), a system message with members besides `role` and
//! `contents` or with non-text items, a `functionResult` outside a tool
//! message, a tool message without a `functionResult`, and members whose names
//! collide (`content` on a canonical message, `type` on a canonical item,
//! `$type` on an Anthropic block, ...). For every history that converts,
//! `from_anthropic(to_anthropic(h)) == h` (as JSON values, see
//! [`crate::json::json_eq`]; but that a call without `arguments` comes
//! back with `arguments: {}`), and the kit reads every message with the same
//! role and the same calls, results, approval requests and responses (kinds
//! and ids, in order) in both formats ([`super::view_message`]; the
//! system pseudo-message has no items, its text does not matter to
//! reduction).
//!
//! Result payloads and call arguments are carried as they are: a
//! non-string `result` becomes a non-string `tool_result` `content`, which
//! the kit reads like any other value.
//!
//! **The view** ([`super::view_message`]): a `system` (or `developer`)
//! message has no items. Otherwise a string `content` is one text item and
//! an array `content` gives one item per block (`text`, `tool_use` → call,
//! `tool_result` → result, the four approval types as in canonical,
//! anything else opaque; `functionCall` / `functionResult` blocks are
//! opaque). A `user` message with at least one `tool_result` block has role
//! [`Role::Tool`] (its `role_text` stays as received): it is Anthropic's
//! form of a tool message.
//!
//! The request's top-level `system` is split off and joined back by
//! [`crate::protocol::split_system`] and [`crate::protocol::join_system`],
//! using [`system_message`] and [`system_content`].

use super::canonical::classify_tagged;
use super::{
    content_items, convert_all, copy_other, object_and_role, refuse_members, rename_tag, retag,
    string_field, ConvertError, ItemSink, Members, Retag,
};
use crate::terms::{ItemKind, Role, ShapeError};
use serde_json::{Map, Value};

fn err(index: usize, problem: impl Into<String>) -> ConvertError {
    ShapeError::new(index, None, problem)
}

fn item_err(index: usize, item: usize, problem: impl Into<String>) -> ConvertError {
    ShapeError::new(index, Some(item), problem)
}

/// The role of the pseudo-message that carries the top-level `system`.
const SYSTEM: &str = "system";

/// The system pseudo-message `{"role": "system", "content": content}` that
/// stands for a request's top-level `system` in the kit's message list.
pub fn system_message(content: Value) -> Value {
    serde_json::json!({"role": SYSTEM, "content": content})
}

/// When `msg` is the system pseudo-message (an object with exactly the
/// members `role: "system"` and `content`), its `content`.
pub fn system_content(msg: &Value) -> Option<&Value> {
    let obj = msg.as_object()?;
    if obj.len() == 2 && obj.get("role").and_then(Value::as_str) == Some(SYSTEM) {
        obj.get("content")
    } else {
        None
    }
}

/// The role of an Anthropic message read with role `role`, its items into
/// `sink` (see the module doc).
pub(crate) fn role_and_items(
    obj: &Map<String, Value>,
    role: Role,
    index: usize,
    sink: &mut dyn ItemSink,
) -> Result<Role, ShapeError> {
    if role == Role::System {
        return Ok(role);
    }
    let mut has_result = false;
    content_items(
        obj,
        index,
        &|o, tag, i| {
            let at = Some(i);
            match tag {
                "tool_use" => Ok((
                    ItemKind::Call,
                    string_field(o, "id", index, at, "tool_use")?,
                )),
                "tool_result" => Ok((
                    ItemKind::Result,
                    string_field(o, "tool_use_id", index, at, "tool_result")?,
                )),
                "functionCall" | "functionResult" => Ok((ItemKind::Opaque, "")),
                _ => classify_tagged(o, tag, index, i),
            }
        },
        &mut ResultSeen {
            inner: sink,
            seen: &mut has_result,
        },
    )?;
    Ok(if role == Role::User && has_result {
        Role::Tool
    } else {
        role
    })
}

/// An [`ItemSink`] that notes whether a result went through.
struct ResultSeen<'a> {
    inner: &'a mut dyn ItemSink,
    seen: &'a mut bool,
}

impl ItemSink for ResultSeen<'_> {
    fn item(&mut self, kind: ItemKind, id: &str, elem: Option<usize>) {
        *self.seen |= kind == ItemKind::Result;
        self.inner.item(kind, id, elem);
    }
}

/// Converts a canonical history to the kit's Anthropic message list (the
/// system pseudo-message first when the history has a pinned system
/// message), one message for one message.
///
/// # Errors
///
/// [`ConvertError`] for the first message Anthropic cannot carry (see the
/// module doc): e.g. `message 2: a system message that is not the first
/// message has no Anthropic form`, `message 0: role "developer" has no
/// lossless Anthropic form ...`, `message 3: a tool message without
/// results has no Anthropic form`.
pub fn to_anthropic(messages: &[Value]) -> Result<Vec<Value>, ConvertError> {
    convert_all(messages, message_to_anthropic)
}

/// The `$type` of a canonical item, when it is a string.
fn tag_of(o: &Map<String, Value>) -> Option<&str> {
    o.get("$type").and_then(Value::as_str)
}

/// Whether a block is plain text: exactly `type: "text"` and a string `text`.
fn plain_text(block: &Value) -> bool {
    block.as_object().is_some_and(|o| {
        o.len() == 2
            && o.get("type").and_then(Value::as_str) == Some("text")
            && o.get("text").is_some_and(Value::is_string)
    })
}

/// A string when the blocks are one plain text block, else the array.
fn blocks_to_content(blocks: Vec<Value>) -> Value {
    match blocks.as_slice() {
        [b] if plain_text(b) => b["text"].clone(),
        _ => Value::Array(blocks),
    }
}

fn message_to_anthropic(msg: &Value, index: usize) -> Result<Value, ConvertError> {
    let (obj, role) = object_and_role(msg, index)?;
    if Role::parse(role) == Role::System && index > 0 {
        return Err(err(
            index,
            "a system message that is not the first message has no Anthropic form (only the first message becomes the top-level `system`)",
        ));
    }
    if !matches!(role, "user" | "assistant" | "tool" | "system") {
        return Err(err(
            index,
            format!("role {role:?} has no lossless Anthropic form (only lowercase user, assistant, tool and system)"),
        ));
    }
    refuse_members(obj, &["content"], index, "Anthropic's")?;
    let contents = match obj.get("contents") {
        None => None,
        Some(Value::Null) => Some(None),
        Some(Value::Array(a)) => Some(Some(a)),
        Some(_) => return Err(err(index, "`contents` is not an array")),
    };
    match role {
        "system" => system_to_anthropic(obj, contents, index),
        "tool" => tool_to_anthropic(obj, contents, index),
        _ => {
            let mut out = Map::new();
            out.insert("role".into(), Value::String(role.into()));
            match contents {
                None => {}
                Some(None) => {
                    out.insert("content".into(), Value::Null);
                }
                Some(Some(items)) => {
                    let blocks = items
                        .iter()
                        .enumerate()
                        .map(|(k, c)| item_to_block(c, index, k))
                        .collect::<Result<Vec<_>, _>>()?;
                    out.insert("content".into(), blocks_to_content(blocks));
                }
            }
            copy_other(obj, &mut out, &["role", "contents"]);
            Ok(Value::Object(out))
        }
    }
}

fn system_to_anthropic(
    obj: &Map<String, Value>,
    contents: Option<Option<&Vec<Value>>>,
    index: usize,
) -> Result<Value, ConvertError> {
    if let Some(k) = obj.keys().find(|k| *k != "role" && *k != "contents") {
        return Err(err(
            index,
            format!("system message member `{k}` has no place in Anthropic's top-level `system`"),
        ));
    }
    let Some(Some(items)) = contents else {
        return Err(err(
            index,
            "a system message without a `contents` array has no Anthropic form",
        ));
    };
    let mut blocks = Vec::with_capacity(items.len());
    for (k, c) in items.iter().enumerate() {
        let is_text = c.as_object().is_some_and(|o| tag_of(o) == Some("text"));
        if !is_text {
            return Err(item_err(
                index,
                k,
                "a system message item that is not text has no Anthropic form (the top-level `system` takes only text blocks)",
            ));
        }
        blocks.push(item_to_block(c, index, k)?);
    }
    Ok(system_message(blocks_to_content(blocks)))
}

fn tool_to_anthropic(
    obj: &Map<String, Value>,
    contents: Option<Option<&Vec<Value>>>,
    index: usize,
) -> Result<Value, ConvertError> {
    let items = match contents {
        Some(Some(items)) if !items.is_empty() => items,
        _ => {
            return Err(err(
                index,
                "a tool message without results has no Anthropic form",
            ))
        }
    };
    let is_result = |c: &Value| {
        c.as_object()
            .is_some_and(|o| tag_of(o) == Some("functionResult"))
    };
    if !items.iter().any(is_result) {
        return Err(err(
            index,
            "a tool message without results has no Anthropic form",
        ));
    }
    let mut blocks = Vec::with_capacity(items.len());
    for (k, c) in items.iter().enumerate() {
        // Beside its results, a tool message may carry what a user message
        // carries: the user's text after the results (spec §1.6).
        let Some(o) = c.as_object().filter(|_| is_result(c)) else {
            blocks.push(item_to_block(c, index, k)?);
            continue;
        };
        let how = Retag {
            tag: ("type", "tool_result"),
            id: ("callId", "tool_use_id"),
            lead: &[("result", "content")],
            rest: Members {
                skip: &["$type", "callId", "result"],
                rename: &[],
                refuse: &["type", "tool_use_id", "content"],
            },
            what: "functionResult",
            whose: "Anthropic's",
        };
        let block = retag(o, &how, |problem| item_err(index, k, problem))?;
        blocks.push(Value::Object(block));
    }
    let mut out = Map::new();
    out.insert("role".into(), Value::String("user".into()));
    out.insert("content".into(), Value::Array(blocks));
    copy_other(obj, &mut out, &["role", "contents"]);
    Ok(Value::Object(out))
}

/// A canonical item of a user, assistant or system message as a block.
fn item_to_block(c: &Value, index: usize, k: usize) -> Result<Value, ConvertError> {
    let o = c
        .as_object()
        .ok_or_else(|| item_err(index, k, "is not an object"))?;
    let tag = tag_of(o).ok_or_else(|| item_err(index, k, "has no string `$type`"))?;
    match tag {
        "functionCall" => return call_to_block(o, index, k),
        "functionResult" => {
            return Err(item_err(
                index,
                k,
                "a functionResult outside a tool message has no Anthropic form",
            ))
        }
        "tool_use" | "tool_result" => {
            return Err(item_err(
                index,
                k,
                format!("`$type` {tag:?} would collide with Anthropic's block type"),
            ))
        }
        _ => {}
    }
    rename_tag(o, "$type", "type", || {
        item_err(index, k, "has a `type` member, which would collide")
    })
}

fn call_to_block(o: &Map<String, Value>, index: usize, k: usize) -> Result<Value, ConvertError> {
    let how = Retag {
        tag: ("type", "tool_use"),
        id: ("callId", "id"),
        lead: &[],
        rest: Members {
            skip: &["$type", "callId"],
            rename: &[("arguments", "input")],
            refuse: &["type", "id", "input"],
        },
        what: "functionCall",
        whose: "Anthropic's",
    };
    let mut block = retag(o, &how, |problem| item_err(index, k, problem))?;
    // A `tool_use` block requires `input`, an object: a call without
    // arguments gets the empty object.
    block
        .entry("input")
        .or_insert_with(|| Value::Object(Map::new()));
    Ok(Value::Object(block))
}

/// Converts the kit's Anthropic message list (system pseudo-message first,
/// when there is one) to a canonical history, one message for one message;
/// the inverse of [`to_anthropic`].
///
/// # Errors
///
/// [`ConvertError`] when a message is not an object or has no string role;
/// a `system` message is not the first message, has members besides `role`
/// and `content`, or a `content` other than a string or text blocks; a role
/// is not exactly `user` or `assistant` (or `system` first); a block is not
/// an object with a string `type`, has a `$type` member, or is a `tool_use`
/// / `tool_result` without its id or with a member that would collide
/// (`callId`, `arguments`, `result`); a `tool_result` block is in an
/// assistant message; a block has type
/// `functionCall` or `functionResult` (the canonical format would read it
/// as a call or result).
pub fn from_anthropic(messages: &[Value]) -> Result<Vec<Value>, ConvertError> {
    convert_all(messages, message_from_anthropic)
}

fn message_from_anthropic(msg: &Value, index: usize) -> Result<Value, ConvertError> {
    let (obj, role) = object_and_role(msg, index)?;
    refuse_members(obj, &["contents"], index, "the canonical format")?;
    match role {
        SYSTEM if index == 0 => return system_from_anthropic(obj, index),
        SYSTEM => {
            return Err(err(
                index,
                "a system pseudo-message that is not the first message has no canonical form",
            ))
        }
        "user" | "assistant" => {}
        _ => {
            return Err(err(
                index,
                format!("role {role:?} is not an Anthropic role (user or assistant)"),
            ))
        }
    }
    let mut out = Map::new();
    let mut out_role = role;
    match obj.get("content") {
        None => {}
        Some(Value::Null) => {
            out.insert("contents".into(), Value::Null);
        }
        Some(Value::String(s)) => {
            out.insert(
                "contents".into(),
                serde_json::json!([{"$type": "text", "text": s}]),
            );
        }
        Some(Value::Array(blocks)) => {
            let mut items = Vec::with_capacity(blocks.len());
            let mut results = 0;
            for (k, b) in blocks.iter().enumerate() {
                let (item, is_result) = block_to_item(b, index, k)?;
                results += usize::from(is_result);
                items.push(item);
            }
            if results > 0 {
                if role != "user" {
                    return Err(err(
                        index,
                        "a tool_result block in an assistant message has no canonical form",
                    ));
                }
                // Blocks beside the results (the user's text after them,
                // spec §1.6) stay items of the tool message.
                out_role = "tool";
            }
            out.insert("contents".into(), Value::Array(items));
        }
        Some(_) => return Err(err(index, "`content` is not a string, an array or null")),
    }
    out.insert("role".into(), Value::String(out_role.into()));
    copy_other(obj, &mut out, &["role", "content"]);
    Ok(Value::Object(out))
}

fn system_from_anthropic(obj: &Map<String, Value>, index: usize) -> Result<Value, ConvertError> {
    if let Some(k) = obj.keys().find(|k| *k != "role" && *k != "content") {
        return Err(err(
            index,
            format!("the system pseudo-message has a member `{k}` besides `role` and `content`"),
        ));
    }
    let contents =
        match obj.get("content") {
            Some(Value::String(s)) => serde_json::json!([{"$type": "text", "text": s}]),
            Some(Value::Array(blocks)) => {
                let mut items = Vec::with_capacity(blocks.len());
                for (k, b) in blocks.iter().enumerate() {
                    let is_text = b
                        .as_object()
                        .is_some_and(|o| o.get("type").and_then(Value::as_str) == Some("text"));
                    if !is_text {
                        return Err(item_err(
                            index,
                            k,
                            "a system block that is not a text block has no canonical form",
                        ));
                    }
                    items.push(block_to_item(b, index, k)?.0);
                }
                Value::Array(items)
            }
            _ => return Err(err(
                index,
                "the system pseudo-message's `content` is not a string or an array of text blocks",
            )),
        };
    Ok(serde_json::json!({"role": SYSTEM, "contents": contents}))
}

/// How a `tool_use` block (first) and a `tool_result` block become
/// canonical items.
const BLOCK_ITEMS: [Retag; 2] = [
    Retag {
        tag: ("$type", "functionCall"),
        id: ("id", "callId"),
        lead: &[],
        rest: Members {
            skip: &["type", "id"],
            rename: &[("input", "arguments")],
            refuse: &["callId", "arguments"],
        },
        what: "tool_use",
        whose: "the canonical format",
    },
    Retag {
        tag: ("$type", "functionResult"),
        id: ("tool_use_id", "callId"),
        lead: &[],
        rest: Members {
            skip: &["type", "tool_use_id"],
            rename: &[("content", "result")],
            refuse: &["callId", "result"],
        },
        what: "tool_result",
        whose: "the canonical format",
    },
];

/// A block as a canonical item, and whether it is a `tool_result`.
fn block_to_item(b: &Value, index: usize, k: usize) -> Result<(Value, bool), ConvertError> {
    let o = b
        .as_object()
        .ok_or_else(|| item_err(index, k, "is not an object"))?;
    let tag = o
        .get("type")
        .and_then(Value::as_str)
        .ok_or_else(|| item_err(index, k, "has no string `type`"))?;
    if o.contains_key("$type") {
        return Err(item_err(
            index,
            k,
            "has a `$type` member, which would collide",
        ));
    }
    match tag {
        "tool_use" | "tool_result" => {
            let is_result = tag == "tool_result";
            let how = &BLOCK_ITEMS[usize::from(is_result)];
            let item = retag(o, how, |problem| item_err(index, k, problem))?;
            Ok((Value::Object(item), is_result))
        }
        "functionCall" | "functionResult" => Err(item_err(
            index,
            k,
            format!("a block of type {tag:?} has no canonical form (it would be read as a call or result)"),
        )),
        _ => {
            let item = rename_tag(o, "type", "$type", || {
                item_err(index, k, "has a `$type` member, which would collide")
            })?;
            Ok((item, false))
        }
    }
}
