//! Canonical ⇄ Anthropic Messages conversion (semantics §1).
//!
//! Inside the kit a history is always a list of messages. For Anthropic that
//! list is the request's `messages`, preceded, when the request has a
//! top-level `system`, by the pseudo-message
//! `{"role": "system", "content": <system value>}`. [`split_system`] and
//! [`join_system`] go between that list and the request's
//! `{"system"?, "messages"}` members.
//!
//! | canonical                                                     | Anthropic                                                        |
//! |---------------------------------------------------------------|------------------------------------------------------------------|
//! | the first message, role `system`                              | the pseudo-message `{"role": "system", "content": ...}` (first)  |
//! | `user` / `assistant` message                                  | the same role                                                    |
//! | `tool` message (every item a `functionResult`, at least one)  | `{"role": "user", "content": [tool_result blocks]}`, several results in one message stay one message |
//! | exactly one plain text item (only `$type` and a string `text`) | `content: "..."`                                                 |
//! | any other items                                               | `content: [blocks]`, each item with `$type` renamed `type`       |
//! | `functionCall` item                                           | `{"type": "tool_use", "id": callId, "name": name, "input": arguments}`, other call members kept on the block |
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
//! message, a tool message with another item, and members whose names
//! collide (`content` on a canonical message, `type` on a canonical item,
//! `$type` on an Anthropic block, ...). For every history that converts,
//! `from_anthropic(to_anthropic(h)) == h` (as JSON values, see
//! [`crate::json::json_eq`]), and the kit reads every message with the same
//! role and the same calls, results, approval requests and responses (kinds
//! and ids, in order) in both formats ([`crate::format::view_message`]; the
//! system pseudo-message has no items, its text does not matter to
//! reduction).
//!
//! Result payloads and call arguments are carried as they are: a
//! non-string `result` becomes a non-string `tool_result` `content`, which
//! the kit reads like any other value.

use crate::format::{Role, ShapeError};
use serde_json::{Map, Value};

/// A message that has no form in the target format: names the message
/// index, the content index when the problem is in one item, and what is
/// wrong.
pub type ConvertError = ShapeError;

fn err(index: usize, problem: impl Into<String>) -> ConvertError {
    ShapeError {
        index,
        item: None,
        problem: problem.into(),
    }
}

fn item_err(index: usize, item: usize, problem: impl Into<String>) -> ConvertError {
    ShapeError {
        index,
        item: Some(item),
        problem: problem.into(),
    }
}

/// The role of the pseudo-message that carries the top-level `system`.
const SYSTEM: &str = "system";

/// Splits the kit's Anthropic message list into the request's top-level
/// `system` value and its `messages`: when the first message is the
/// pseudo-message (an object with exactly the members `role: "system"` and
/// `content`), returns its `content` and the other messages; otherwise
/// `None` and all messages, unchanged (a leading `system` message with
/// other members is left in place, so nothing is dropped silently).
///
/// # Examples
///
/// ```
/// use reducer_kit::anthropic::split_system;
/// use serde_json::json;
/// let list = vec![json!({"role": "system", "content": "Be brief."}),
///                 json!({"role": "user", "content": "Hi"})];
/// let (system, messages) = split_system(&list);
/// assert_eq!(system, Some(json!("Be brief.")));
/// assert_eq!(messages, vec![json!({"role": "user", "content": "Hi"})]);
/// ```
pub fn split_system(messages: &[Value]) -> (Option<Value>, Vec<Value>) {
    if let Some(Value::Object(first)) = messages.first() {
        if first.len() == 2 && first.get("role").and_then(Value::as_str) == Some(SYSTEM) {
            if let Some(system) = first.get("content") {
                return (Some(system.clone()), messages[1..].to_vec());
            }
        }
    }
    (None, messages.to_vec())
}

/// Builds the kit's Anthropic message list from a request's top-level
/// `system` value (when present) and its `messages`: the pseudo-message
/// `{"role": "system", "content": system}` first, then the messages. The
/// inverse of [`split_system`] whenever `messages` does not itself start
/// with a pseudo-message.
///
/// # Examples
///
/// ```
/// use reducer_kit::anthropic::join_system;
/// use serde_json::json;
/// let list = join_system(Some(json!("Be brief.")), vec![json!({"role": "user", "content": "Hi"})]);
/// assert_eq!(list[0], json!({"role": "system", "content": "Be brief."}));
/// assert_eq!(list.len(), 2);
/// ```
pub fn join_system(system: Option<Value>, messages: Vec<Value>) -> Vec<Value> {
    match system {
        None => messages,
        Some(s) => {
            let mut out = Vec::with_capacity(messages.len() + 1);
            out.push(serde_json::json!({"role": SYSTEM, "content": s}));
            out.extend(messages);
            out
        }
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
/// lossless Anthropic form ...`, `message 3, content 1: a tool message item
/// that is not a functionResult has no Anthropic form`.
pub fn to_anthropic(messages: &[Value]) -> Result<Vec<Value>, ConvertError> {
    messages
        .iter()
        .enumerate()
        .map(|(i, m)| message_to_anthropic(m, i))
        .collect()
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
    let obj = msg
        .as_object()
        .ok_or_else(|| err(index, "is not a JSON object"))?;
    let role = match obj.get("role") {
        Some(Value::String(r)) => r.as_str(),
        _ => return Err(err(index, "has no string `role`")),
    };
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
    if obj.contains_key("content") {
        return Err(err(
            index,
            "member `content` would collide with Anthropic's",
        ));
    }
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
            keep_members(obj, &mut out);
            Ok(Value::Object(out))
        }
    }
}

/// Copies every member other than `role` and `contents`.
fn keep_members(from: &Map<String, Value>, to: &mut Map<String, Value>) {
    for (k, v) in from {
        if k != "role" && k != "contents" {
            to.insert(k.clone(), v.clone());
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
    Ok(serde_json::json!({"role": SYSTEM, "content": blocks_to_content(blocks)}))
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
    let mut blocks = Vec::with_capacity(items.len());
    for (k, c) in items.iter().enumerate() {
        let o = c
            .as_object()
            .filter(|o| tag_of(o) == Some("functionResult"))
            .ok_or_else(|| {
                item_err(
                    index,
                    k,
                    "a tool message item that is not a functionResult has no Anthropic form",
                )
            })?;
        let mut block = Map::new();
        block.insert("type".into(), Value::String("tool_result".into()));
        block.insert(
            "tool_use_id".into(),
            o.get("callId")
                .filter(|v| v.is_string())
                .cloned()
                .ok_or_else(|| item_err(index, k, "functionResult has no string `callId`"))?,
        );
        if let Some(r) = o.get("result") {
            block.insert("content".into(), r.clone());
        }
        for (key, v) in o {
            match key.as_str() {
                "$type" | "callId" | "result" => {}
                "type" | "tool_use_id" | "content" => {
                    return Err(item_err(
                        index,
                        k,
                        format!("functionResult member `{key}` would collide with Anthropic's"),
                    ))
                }
                _ => {
                    block.insert(key.clone(), v.clone());
                }
            }
        }
        blocks.push(Value::Object(block));
    }
    let mut out = Map::new();
    out.insert("role".into(), Value::String("user".into()));
    out.insert("content".into(), Value::Array(blocks));
    keep_members(obj, &mut out);
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
    if o.contains_key("type") {
        return Err(item_err(
            index,
            k,
            "has a `type` member, which would collide",
        ));
    }
    let block: Map<String, Value> = o
        .iter()
        .map(|(key, v)| {
            let key = if key == "$type" { "type" } else { key.as_str() };
            (key.to_string(), v.clone())
        })
        .collect();
    Ok(Value::Object(block))
}

fn call_to_block(o: &Map<String, Value>, index: usize, k: usize) -> Result<Value, ConvertError> {
    let mut block = Map::new();
    block.insert("type".into(), Value::String("tool_use".into()));
    block.insert(
        "id".into(),
        o.get("callId")
            .filter(|v| v.is_string())
            .cloned()
            .ok_or_else(|| item_err(index, k, "functionCall has no string `callId`"))?,
    );
    for (key, v) in o {
        match key.as_str() {
            "$type" | "callId" => {}
            "arguments" => {
                block.insert("input".into(), v.clone());
            }
            "type" | "id" | "input" => {
                return Err(item_err(
                    index,
                    k,
                    format!("functionCall member `{key}` would collide with Anthropic's"),
                ))
            }
            _ => {
                block.insert(key.clone(), v.clone());
            }
        }
    }
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
/// assistant message or beside blocks of another type; a block has type
/// `functionCall` or `functionResult` (the canonical format would read it
/// as a call or result).
pub fn from_anthropic(messages: &[Value]) -> Result<Vec<Value>, ConvertError> {
    messages
        .iter()
        .enumerate()
        .map(|(i, m)| message_from_anthropic(m, i))
        .collect()
}

fn message_from_anthropic(msg: &Value, index: usize) -> Result<Value, ConvertError> {
    let obj = msg
        .as_object()
        .ok_or_else(|| err(index, "is not a JSON object"))?;
    let role = match obj.get("role") {
        Some(Value::String(r)) => r.as_str(),
        _ => return Err(err(index, "has no string `role`")),
    };
    if obj.contains_key("contents") {
        return Err(err(
            index,
            "member `contents` would collide with the canonical format",
        ));
    }
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
                if results < items.len() {
                    return Err(err(
                        index,
                        "a user message with tool_result blocks beside other blocks has no canonical form (a tool message holds only results)",
                    ));
                }
                out_role = "tool";
            }
            out.insert("contents".into(), Value::Array(items));
        }
        Some(_) => return Err(err(index, "`content` is not a string, an array or null")),
    }
    out.insert("role".into(), Value::String(out_role.into()));
    for (k, v) in obj {
        if k != "role" && k != "content" {
            out.insert(k.clone(), v.clone());
        }
    }
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
    let mut item = Map::new();
    match tag {
        "tool_use" => {
            item.insert("$type".into(), Value::String("functionCall".into()));
            item.insert(
                "callId".into(),
                o.get("id")
                    .filter(|v| v.is_string())
                    .cloned()
                    .ok_or_else(|| item_err(index, k, "tool_use has no string `id`"))?,
            );
            for (key, v) in o {
                match key.as_str() {
                    "type" | "id" => {}
                    "input" => {
                        item.insert("arguments".into(), v.clone());
                    }
                    "callId" | "arguments" => {
                        return Err(item_err(
                            index,
                            k,
                            format!("tool_use member `{key}` would collide with the canonical format"),
                        ))
                    }
                    _ => {
                        item.insert(key.clone(), v.clone());
                    }
                }
            }
            Ok((Value::Object(item), false))
        }
        "tool_result" => {
            item.insert("$type".into(), Value::String("functionResult".into()));
            item.insert(
                "callId".into(),
                o.get("tool_use_id")
                    .filter(|v| v.is_string())
                    .cloned()
                    .ok_or_else(|| item_err(index, k, "tool_result has no string `tool_use_id`"))?,
            );
            for (key, v) in o {
                match key.as_str() {
                    "type" | "tool_use_id" => {}
                    "content" => {
                        item.insert("result".into(), v.clone());
                    }
                    "callId" | "result" => {
                        return Err(item_err(
                            index,
                            k,
                            format!(
                                "tool_result member `{key}` would collide with the canonical format"
                            ),
                        ))
                    }
                    _ => {
                        item.insert(key.clone(), v.clone());
                    }
                }
            }
            Ok((Value::Object(item), true))
        }
        "functionCall" | "functionResult" => Err(item_err(
            index,
            k,
            format!("a block of type {tag:?} has no canonical form (it would be read as a call or result)"),
        )),
        _ => {
            for (key, v) in o {
                let key = if key == "type" { "$type" } else { key.as_str() };
                item.insert(key.to_string(), v.clone());
            }
            Ok((Value::Object(item), false))
        }
    }
}
