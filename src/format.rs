//! Wire formats and the kit's view of a message (semantics §1).
//!
//! The kit never rewrites a message it keeps: reducers, the validator and the
//! checker all work on a [`MessageView`] (role plus the list of content items
//! that matter: calls, results, approval requests and responses) taken from
//! the message as it was read, in whichever wire [`Format`] it came in. A kept
//! message is written back as the very JSON value that was read, or that
//! value with some result / approval-response items removed
//! ([`strip_items`]).

use serde_json::Value;
use std::fmt;

/// A wire format of chat messages.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// Microsoft.Extensions.AI `ChatMessage` JSON: `role`, `contents` of
    /// `$type`-tagged items (semantics §1).
    #[value(
        help = "Microsoft.Extensions.AI ChatMessage JSON: role, contents of $type-tagged items"
    )]
    Canonical,
    /// OpenAI Chat Completions messages (`content`, `tool_calls`,
    /// `tool_call_id`); see [`crate::openai`].
    #[value(
        name = "openai",
        help = "OpenAI Chat Completions: content, tool_calls, tool_call_id"
    )]
    #[serde(rename = "openai")]
    OpenAi,
    /// Anthropic Messages (`content` blocks `text`, `tool_use`,
    /// `tool_result`; the request's top-level `system` travels as a leading
    /// `{"role": "system", "content": ...}` pseudo-message); see
    /// [`crate::anthropic`].
    #[value(help = "Anthropic Messages: tool_use / tool_result blocks, top-level system")]
    Anthropic,
}

impl Format {
    /// The format's command-line name: `canonical`, `openai` or
    /// `anthropic`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Canonical => "canonical",
            Format::OpenAi => "openai",
            Format::Anthropic => "anthropic",
        }
    }

    /// The member of a message that holds its removable content items:
    /// `contents` (canonical) or `content` (openai, anthropic).
    pub fn items_key(self) -> &'static str {
        match self {
            Format::Canonical => "contents",
            Format::OpenAi | Format::Anthropic => "content",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A message's role as the kit interprets it (ASCII case-insensitive, as
/// `ChatRole` compares). `developer` is a system role (semantics §1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// `system` or `developer`.
    System,
    /// `user`.
    User,
    /// `assistant`.
    Assistant,
    /// `tool`.
    Tool,
    /// Any other role string; an ordinary message.
    Other,
}

impl Role {
    /// Classifies a role string, ASCII case-insensitively.
    pub fn parse(role: &str) -> Role {
        let lower = role.to_ascii_lowercase();
        match lower.as_str() {
            "system" | "developer" => Role::System,
            "user" => Role::User,
            "assistant" => Role::Assistant,
            "tool" => Role::Tool,
            _ => Role::Other,
        }
    }
}

/// What a content item is, as far as reduction is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ItemKind {
    /// Plain text.
    Text,
    /// A tool call (`functionCall`; OpenAI `tool_calls` entry; Anthropic
    /// `tool_use` block).
    Call,
    /// A tool result (`functionResult`; OpenAI `tool` message; Anthropic
    /// `tool_result` block).
    Result,
    /// An approval request (`toolApprovalRequest` / `functionApprovalRequest`).
    ApprovalRequest,
    /// An approval response (`toolApprovalResponse` / `functionApprovalResponse`).
    ApprovalResponse,
    /// Any other content; carried through, never interpreted.
    Opaque,
}

impl ItemKind {
    /// Results and approval responses are the only items orphan removal may
    /// take out of a message (semantics §3 step 6).
    pub fn is_removable(self) -> bool {
        matches!(self, ItemKind::Result | ItemKind::ApprovalResponse)
    }
}

/// One content item of a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    /// What the item is.
    pub kind: ItemKind,
    /// The call id (calls, results) or request id (approval requests and
    /// responses); empty for other kinds.
    pub id: String,
    /// Index of the item in the message's items array ([`Format::items_key`]),
    /// or `None` when the item is not an element of it (an OpenAI tool call
    /// or tool result, a string `content`).
    pub elem: Option<usize>,
}

/// The kit's view of one message: its role and its content items in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MessageView {
    /// The interpreted role.
    pub role: Role,
    /// The role string as received.
    pub role_text: String,
    /// Content items, in message order (OpenAI: content parts, then tool calls).
    pub items: Vec<Item>,
}

impl MessageView {
    /// A user message with at least one item, every one an approval response
    /// (semantics §2, "approval-only message").
    pub fn is_approval_only(&self) -> bool {
        self.role == Role::User
            && !self.items.is_empty()
            && self
                .items
                .iter()
                .all(|i| i.kind == ItemKind::ApprovalResponse)
    }

    /// A user message that is not approval-only (semantics §2, "turn start").
    pub fn is_turn_start(&self) -> bool {
        self.role == Role::User && !self.is_approval_only()
    }

    /// Whether any item is a result or an approval response.
    pub fn has_removable(&self) -> bool {
        self.items.iter().any(|i| i.kind.is_removable())
    }
}

/// A message whose shape the kit cannot read: names the message index, the
/// content index when there is one, and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("message {index}{}: {problem}", item.map(|i| format!(", content {i}")).unwrap_or_default())]
pub struct ShapeError {
    /// Zero-based index of the message in its history.
    pub index: usize,
    /// Zero-based index of the content item, when the problem is in one.
    pub item: Option<usize>,
    /// What is wrong, lowercase, without trailing period.
    pub problem: String,
}

fn shape(index: usize, item: Option<usize>, problem: impl Into<String>) -> ShapeError {
    ShapeError {
        index,
        item,
        problem: problem.into(),
    }
}

fn string_field<'a>(
    obj: &'a serde_json::Map<String, Value>,
    key: &str,
    index: usize,
    item: Option<usize>,
    what: &str,
) -> Result<&'a str, ShapeError> {
    match obj.get(key) {
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(shape(
            index,
            item,
            format!("{what} has a non-string `{key}`"),
        )),
        None => Err(shape(index, item, format!("{what} has no `{key}`"))),
    }
}

/// Classifies a canonical content item or an OpenAI content part by its type
/// tag (`$type` or `type`), reading its id field.
fn classify_tagged(
    obj: &serde_json::Map<String, Value>,
    tag: &str,
    index: usize,
    item: usize,
) -> Result<(ItemKind, String), ShapeError> {
    let at = Some(item);
    let kind_id = |kind, key: &str, what: &str| -> Result<(ItemKind, String), ShapeError> {
        Ok((kind, string_field(obj, key, index, at, what)?.to_string()))
    };
    match tag {
        "text" => Ok((ItemKind::Text, String::new())),
        "functionCall" => kind_id(ItemKind::Call, "callId", "functionCall"),
        "functionResult" => kind_id(ItemKind::Result, "callId", "functionResult"),
        "toolApprovalRequest" => kind_id(
            ItemKind::ApprovalRequest,
            "requestId",
            "toolApprovalRequest",
        ),
        "toolApprovalResponse" => kind_id(
            ItemKind::ApprovalResponse,
            "requestId",
            "toolApprovalResponse",
        ),
        "functionApprovalRequest" => {
            kind_id(ItemKind::ApprovalRequest, "id", "functionApprovalRequest")
        }
        "functionApprovalResponse" => {
            kind_id(ItemKind::ApprovalResponse, "id", "functionApprovalResponse")
        }
        _ => Ok((ItemKind::Opaque, String::new())),
    }
}

/// Reads the view of message `index` of a history in `format`.
///
/// # Errors
///
/// A [`ShapeError`] when the message is not an object, has no string `role`,
/// has a non-array items member, or a call / result / approval item lacks its
/// string id (`callId`, `requestId`, `id`; OpenAI `id`, `tool_call_id`;
/// Anthropic `id`, `tool_use_id`).
///
/// Anthropic: a `system` (or `developer`) message — the pseudo-message that
/// carries the request's top-level `system` — has no items. Otherwise a
/// string `content` is one text item and an array `content` gives one item
/// per block (`text`, `tool_use` → call, `tool_result` → result, the four
/// approval types as in canonical, anything else opaque). A `user` message
/// with at least one `tool_result` block has role [`Role::Tool`] (its
/// `role_text` stays as received): it is Anthropic's form of a tool message.
pub fn view_message(format: Format, msg: &Value, index: usize) -> Result<MessageView, ShapeError> {
    let obj = msg
        .as_object()
        .ok_or_else(|| shape(index, None, "is not a JSON object"))?;
    let role_text = string_field(obj, "role", index, None, "message")?.to_string();
    let role = Role::parse(&role_text);
    let mut items = Vec::new();
    match format {
        Format::Canonical => match obj.get("contents") {
            None | Some(Value::Null) => {}
            Some(Value::Array(contents)) => {
                for (i, c) in contents.iter().enumerate() {
                    let (kind, id) = match c {
                        Value::Object(o) => match o.get("$type") {
                            Some(Value::String(tag)) => classify_tagged(o, tag, index, i)?,
                            _ => (ItemKind::Opaque, String::new()),
                        },
                        _ => (ItemKind::Opaque, String::new()),
                    };
                    items.push(Item {
                        kind,
                        id,
                        elem: Some(i),
                    });
                }
            }
            Some(_) => return Err(shape(index, None, "`contents` is not an array")),
        },
        Format::Anthropic => {
            if role != Role::System {
                anthropic_items(obj, index, &mut items)?;
            }
        }
        Format::OpenAi => {
            if role == Role::Tool {
                let id = string_field(obj, "tool_call_id", index, None, "tool message")?;
                items.push(Item {
                    kind: ItemKind::Result,
                    id: id.to_string(),
                    elem: None,
                });
            } else {
                match obj.get("content") {
                    None | Some(Value::Null) => {}
                    Some(Value::String(_)) => items.push(Item {
                        kind: ItemKind::Text,
                        id: String::new(),
                        elem: None,
                    }),
                    Some(Value::Array(parts)) => {
                        for (i, p) in parts.iter().enumerate() {
                            let (kind, id) = match p {
                                Value::Object(o) => match o.get("type") {
                                    Some(Value::String(tag))
                                        if tag != "functionCall" && tag != "functionResult" =>
                                    {
                                        classify_tagged(o, tag, index, i)?
                                    }
                                    _ => (ItemKind::Opaque, String::new()),
                                },
                                _ => (ItemKind::Opaque, String::new()),
                            };
                            items.push(Item {
                                kind,
                                id,
                                elem: Some(i),
                            });
                        }
                    }
                    Some(_) => {
                        return Err(shape(
                            index,
                            None,
                            "`content` is not a string, an array or null",
                        ))
                    }
                }
            }
            match obj.get("tool_calls") {
                None | Some(Value::Null) => {}
                Some(Value::Array(calls)) => {
                    for (i, c) in calls.iter().enumerate() {
                        let o = c.as_object().ok_or_else(|| {
                            shape(index, None, format!("tool_calls[{i}] is not an object"))
                        })?;
                        let id = string_field(o, "id", index, None, &format!("tool_calls[{i}]"))?;
                        items.push(Item {
                            kind: ItemKind::Call,
                            id: id.to_string(),
                            elem: None,
                        });
                    }
                }
                Some(_) => return Err(shape(index, None, "`tool_calls` is not an array")),
            }
        }
    }
    let role = if format == Format::Anthropic
        && role == Role::User
        && items.iter().any(|i| i.kind == ItemKind::Result)
    {
        Role::Tool
    } else {
        role
    };
    Ok(MessageView {
        role,
        role_text,
        items,
    })
}

/// The items of a non-system Anthropic message: its `content` string (one
/// text item) or blocks.
fn anthropic_items(
    obj: &serde_json::Map<String, Value>,
    index: usize,
    items: &mut Vec<Item>,
) -> Result<(), ShapeError> {
    match obj.get("content") {
        None | Some(Value::Null) => {}
        Some(Value::String(_)) => items.push(Item {
            kind: ItemKind::Text,
            id: String::new(),
            elem: None,
        }),
        Some(Value::Array(blocks)) => {
            for (i, b) in blocks.iter().enumerate() {
                let at = Some(i);
                let (kind, id) = match b {
                    Value::Object(o) => match o.get("type") {
                        Some(Value::String(tag)) => match tag.as_str() {
                            "tool_use" => (
                                ItemKind::Call,
                                string_field(o, "id", index, at, "tool_use")?.to_string(),
                            ),
                            "tool_result" => (
                                ItemKind::Result,
                                string_field(o, "tool_use_id", index, at, "tool_result")?
                                    .to_string(),
                            ),
                            "functionCall" | "functionResult" => (ItemKind::Opaque, String::new()),
                            _ => classify_tagged(o, tag, index, i)?,
                        },
                        _ => (ItemKind::Opaque, String::new()),
                    },
                    _ => (ItemKind::Opaque, String::new()),
                };
                items.push(Item {
                    kind,
                    id,
                    elem: Some(i),
                });
            }
        }
        Some(_) => {
            return Err(shape(
                index,
                None,
                "`content` is not a string, an array or null",
            ))
        }
    }
    Ok(())
}

/// Reads the views of every message of a history.
///
/// # Errors
///
/// The first [`ShapeError`], naming its message index.
pub fn view_history(format: Format, messages: &[Value]) -> Result<Vec<MessageView>, ShapeError> {
    messages
        .iter()
        .enumerate()
        .map(|(i, m)| view_message(format, m, i))
        .collect()
}

/// Removes the items at `removed` (indices into `view.items`, each a result
/// or approval response) from `msg`. Returns `None` when no item would be
/// left: such a message is dropped (semantics §3 step 6). All other members
/// of the message are kept unchanged. A removed item that is not an element
/// of the items array (an OpenAI `tool` message's result, which is the
/// message itself) drops the whole message, whatever else it carries.
pub fn strip_items(
    format: Format,
    msg: &Value,
    view: &MessageView,
    removed: &[usize],
) -> Option<Value> {
    if removed.is_empty() {
        return Some(msg.clone());
    }
    if removed.len() >= view.items.len() || removed.iter().any(|&r| view.items[r].elem.is_none()) {
        return None;
    }
    let mut elems: Vec<usize> = removed
        .iter()
        .map(|&r| {
            view.items[r]
                .elem
                .expect("items outside the items array drop the message above")
        })
        .collect();
    elems.sort_unstable();
    let mut out = msg.clone();
    if let Some(Value::Array(arr)) = out.get_mut(format.items_key()) {
        for e in elems.into_iter().rev() {
            arr.remove(e);
        }
    }
    Some(out)
}

/// The index of the pinned system message: the first message whose role is
/// `system` or `developer` (semantics §2).
pub fn pinned_index(views: &[MessageView]) -> Option<usize> {
    views.iter().position(|v| v.role == Role::System)
}

/// A turn: a run of message indices `start..end` (indices into the whole
/// history, skipping the pinned message) that begins at a turn start, or the
/// leading segment before the first turn start (semantics §2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Turn {
    /// The message indices of the turn, in order (never the pinned one).
    pub messages: Vec<usize>,
    /// Whether the turn begins with a turn start (its question); false only
    /// for the leading segment.
    pub has_question: bool,
}

/// Splits the messages other than the pinned one into turns, oldest first
/// (semantics §2). The leading segment, when present, is the first turn with
/// `has_question == false`.
pub fn turns(views: &[MessageView]) -> Vec<Turn> {
    let pinned = pinned_index(views);
    let mut out: Vec<Turn> = Vec::new();
    for (i, v) in views.iter().enumerate() {
        if Some(i) == pinned {
            continue;
        }
        if v.is_turn_start() || out.is_empty() {
            out.push(Turn {
                messages: Vec::new(),
                has_question: v.is_turn_start(),
            });
        }
        out.last_mut().expect("a turn was pushed").messages.push(i);
    }
    out
}

/// Positional pairing (semantics §3 step 6 and §5) over the messages at
/// `selection` (ascending indices): a result answers the latest call with its
/// id, in an earlier selected message, that is still unanswered; an approval
/// response likewise answers a request. Ids may be reused once answered.
///
/// Returns, for every message index and item index, the partner's
/// `(message, item)` when it has one. Messages outside the selection get
/// empty rows.
pub fn pair(views: &[MessageView], selection: &[usize]) -> Vec<Vec<Option<(usize, usize)>>> {
    use std::collections::HashMap;
    let mut partner: Vec<Vec<Option<(usize, usize)>>> =
        views.iter().map(|v| vec![None; v.items.len()]).collect();
    let mut calls: HashMap<&str, Vec<(usize, usize)>> = HashMap::new();
    let mut requests: HashMap<&str, Vec<(usize, usize)>> = HashMap::new();
    for &m in selection {
        let v = &views[m];
        for (k, item) in v.items.iter().enumerate() {
            let open = match item.kind {
                ItemKind::Result => &mut calls,
                ItemKind::ApprovalResponse => &mut requests,
                _ => continue,
            };
            if let Some((cm, ck)) = open.get_mut(item.id.as_str()).and_then(|s| s.pop()) {
                partner[m][k] = Some((cm, ck));
                partner[cm][ck] = Some((m, k));
            }
        }
        for (k, item) in v.items.iter().enumerate() {
            let open = match item.kind {
                ItemKind::Call => &mut calls,
                ItemKind::ApprovalRequest => &mut requests,
                _ => continue,
            };
            open.entry(item.id.as_str()).or_default().push((m, k));
        }
    }
    partner
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn canonical_items_and_ids() {
        let m = json!({"role": "Assistant", "contents": [
            {"$type": "text", "text": "x"},
            {"$type": "functionCall", "callId": "c1", "name": "F"},
            {"$type": "functionApprovalRequest", "id": "r1", "functionCall": {}},
            {"$type": "dataContent", "uri": "data:,"}]});
        let v = view_message(Format::Canonical, &m, 4).unwrap();
        assert_eq!(v.role, Role::Assistant);
        assert_eq!(v.role_text, "Assistant");
        let kinds: Vec<_> = v.items.iter().map(|i| (i.kind, i.id.as_str())).collect();
        assert_eq!(
            kinds,
            vec![
                (ItemKind::Text, ""),
                (ItemKind::Call, "c1"),
                (ItemKind::ApprovalRequest, "r1"),
                (ItemKind::Opaque, "")
            ]
        );
    }

    #[test]
    fn missing_call_id_names_message_and_item() {
        let m = json!({"role": "assistant", "contents": [{"$type": "text"}, {"$type": "functionCall"}]});
        let e = view_message(Format::Canonical, &m, 7).unwrap_err();
        assert_eq!(
            e.to_string(),
            "message 7, content 1: functionCall has no `callId`"
        );
        let e = view_message(Format::Canonical, &json!([]), 2).unwrap_err();
        assert_eq!(e.to_string(), "message 2: is not a JSON object");
    }

    #[test]
    fn openai_tool_calls_and_tool_results() {
        let a = json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]});
        let v = view_message(Format::OpenAi, &a, 0).unwrap();
        assert_eq!(
            v.items,
            vec![Item {
                kind: ItemKind::Call,
                id: "call_1".into(),
                elem: None
            }]
        );
        let t = json!({"role": "tool", "tool_call_id": "call_1", "content": "ok"});
        let v = view_message(Format::OpenAi, &t, 1).unwrap();
        assert_eq!(
            v.items,
            vec![Item {
                kind: ItemKind::Result,
                id: "call_1".into(),
                elem: None
            }]
        );
        assert_eq!(strip_items(Format::OpenAi, &t, &v, &[0]), None);
    }

    #[test]
    fn an_openai_tool_message_with_calls_drops_whole_when_its_result_goes() {
        // Found by parse_no_panic: a `tool` message that also carries
        // `tool_calls` (invalid, but readable). Its result is the message.
        let t = json!({"role": "tool", "tool_call_id": "x", "content": null,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f"}}]});
        let v = view_message(Format::OpenAi, &t, 0).unwrap();
        assert_eq!(v.items.len(), 2);
        assert_eq!(strip_items(Format::OpenAi, &t, &v, &[0]), None);
        let out = crate::reduce::reduce(
            crate::reduce::Policy::Suffix,
            Format::OpenAi,
            &[t],
            &json!(5),
        )
        .unwrap();
        assert_eq!(out, Vec::<Value>::new());
    }

    #[test]
    fn strip_keeps_other_items_and_fields() {
        let m = json!({"role": "user", "messageId": "m9", "contents": [
            {"$type": "toolApprovalResponse", "requestId": "a", "approved": true},
            {"$type": "toolApprovalResponse", "requestId": "b", "approved": false}]});
        let v = view_message(Format::Canonical, &m, 0).unwrap();
        assert!(v.is_approval_only());
        assert!(!v.is_turn_start());
        assert_eq!(
            strip_items(Format::Canonical, &m, &v, &[0]),
            Some(json!({"role": "user", "messageId": "m9", "contents": [
                {"$type": "toolApprovalResponse", "requestId": "b", "approved": false}]}))
        );
        assert_eq!(strip_items(Format::Canonical, &m, &v, &[0, 1]), None);
    }

    #[test]
    fn positional_pairing_reuses_ids_once_answered() {
        let h = json!([
            {"role": "assistant", "contents": [{"$type": "functionCall", "callId": "x"}]},
            {"role": "tool", "contents": [{"$type": "functionResult", "callId": "x"}]},
            {"role": "assistant", "contents": [{"$type": "functionCall", "callId": "x"}]},
            {"role": "tool", "contents": [{"$type": "functionResult", "callId": "x"}]}
        ]);
        let views = view_history(Format::Canonical, h.as_array().unwrap()).unwrap();
        let p = pair(&views, &[0, 1, 2, 3]);
        assert_eq!(p[1][0], Some((0, 0)));
        assert_eq!(p[3][0], Some((2, 0)));
        let p = pair(&views, &[0, 3]);
        assert_eq!(p[3][0], Some((0, 0)));
        let p = pair(&views, &[1, 2, 3]);
        assert_eq!(p[1][0], None);
        assert_eq!(p[3][0], Some((2, 0)));
    }

    #[test]
    fn turns_split_at_questions_with_leading_segment_and_pinned() {
        let h = json!([
            {"role": "assistant", "contents": []},
            {"role": "SYSTEM", "contents": []},
            {"role": "user", "contents": [{"$type": "text", "text": "q1"}]},
            {"role": "assistant", "contents": []},
            {"role": "user", "contents": [{"$type": "toolApprovalResponse", "requestId": "r"}]},
            {"role": "system", "contents": []},
            {"role": "user", "contents": []}
        ]);
        let views = view_history(Format::Canonical, h.as_array().unwrap()).unwrap();
        assert_eq!(pinned_index(&views), Some(1));
        let t = turns(&views);
        assert_eq!(
            t,
            vec![
                Turn {
                    messages: vec![0],
                    has_question: false
                },
                Turn {
                    messages: vec![2, 3, 4, 5],
                    has_question: true
                },
                Turn {
                    messages: vec![6],
                    has_question: true
                },
            ]
        );
    }
}
