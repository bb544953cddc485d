//! Canonical ⇄ OpenAI Responses conversion (spec §14.1).
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
//! | an `assistant` message of calls only (no other member)            | one call item per call, consecutive: `function_call` (`call_id`, `name`, `arguments` as JSON text, `"{}"` for a call without arguments: the API requires the string), or the item type the call's `type` member names (`custom_tool_call`, `computer_call`, ...) |
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
//! `from_responses(to_responses(h)) == h` (as JSON values), but that a
//! call without `arguments` comes back with `arguments: {}`.
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
use serde_json::{Map, Value};

mod read;
mod write;
pub use read::from_responses;
pub use write::to_responses;

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

/// The item type of the reasoning item (spec §14.6).
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

/// Whether item `obj` is a `reasoning` item (spec §14.6).
pub fn is_reasoning(obj: &Map<String, Value>) -> bool {
    obj.get("type").and_then(Value::as_str) == Some(REASONING)
}

/// Whether item `obj` is a client-answered call item ([`CALLS`]): a
/// member of a call group (spec §14.5).
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

#[cfg(test)]
mod tests;
