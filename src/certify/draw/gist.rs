//! What a drawn message shows of each item: a label and a line of text.
//!
//! The kinds and ids come from the format's reader
//! ([`crate::formats::view_message`]); the text from the message's
//! canonical form ([`crate::formats::from_wire`] of that one message), so
//! that an OpenAI tool call, a Responses `function_call` item, a Gemini
//! `functionCall` part and a Bedrock `toolUse` block all read as the same
//! canonical `functionCall`. A message with no canonical form, or whose
//! canonical items do not line up with its view's, shows each item's own
//! JSON.

use crate::formats::{from_wire, view_message, Format};
use crate::terms::{ItemKind, MessageView, Role};
use serde_json::Value;

/// How many characters of an item's text are kept (the rest is cut, with
/// `…`): a drawn item is one line.
pub const MAX_TEXT: usize = 160;

/// One item as drawn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gist {
    /// What it is, as the kit reads it.
    pub kind: ItemKind,
    /// Its call or request id (empty for other kinds).
    pub id: String,
    /// A short name: `text`, `call lookup`, `result`, `approval request`,
    /// `approval response`, or an opaque item's type (`reasoning`,
    /// `image`).
    pub label: String,
    /// Its text, at most [`MAX_TEXT`] characters (control characters
    /// kept: the renderers escape them).
    pub text: String,
}

/// One message as drawn: its role and items, and what else the format
/// says of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Drawn {
    /// Its role as the kit reads it (`Other` for a message the format
    /// cannot read).
    pub role: Role,
    /// The role as written (`model`, `developer`, `function_call`...).
    pub role_text: String,
    /// A Responses call item (spec §14.5) or reasoning item (§14.6).
    pub call_item: bool,
    /// A Responses reasoning item, attached to the item after it.
    pub reasoning: bool,
    /// Its items, in order.
    pub items: Vec<Gist>,
    /// Why the format cannot read it, when it cannot.
    pub unreadable: Option<String>,
}

/// Message `index` of a history in `format`, as drawn.
pub fn draw_message(format: Format, msg: &Value, index: usize) -> Drawn {
    let view = match view_message(format, msg, index) {
        Ok(v) => v,
        Err(e) => {
            return Drawn {
                role: Role::Other,
                role_text: msg
                    .get("role")
                    .and_then(Value::as_str)
                    .unwrap_or("?")
                    .to_string(),
                call_item: false,
                reasoning: false,
                items: vec![Gist {
                    kind: ItemKind::Opaque,
                    id: String::new(),
                    label: "unreadable".into(),
                    text: cut(&msg.to_string()),
                }],
                unreadable: Some(e.problem),
            }
        }
    };
    let canonical = canonical_items(format, msg, &view);
    let items = view
        .items
        .iter()
        .enumerate()
        .map(|(t, it)| {
            let own = canonical
                .as_ref()
                .and_then(|c| c.get(t))
                .map_or_else(|| own_json(format, msg, it.elem), Clone::clone);
            gist(it.kind, &it.id, &own)
        })
        .collect();
    Drawn {
        role: view.role,
        role_text: view.role_text.clone(),
        call_item: view.call_item,
        reasoning: view.reasoning,
        items,
        unreadable: None,
    }
}

/// The canonical items of `msg` when they line up one for one with its
/// view's items (same count, same kinds, same ids).
fn canonical_items(format: Format, msg: &Value, view: &MessageView) -> Option<Vec<Value>> {
    let converted = from_wire(format, std::slice::from_ref(msg)).ok()?;
    let items: Vec<Value> = converted
        .iter()
        .flat_map(|m| {
            m.get("contents")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
        })
        .collect();
    let canonical_views: Vec<MessageView> = converted
        .iter()
        .enumerate()
        .map(|(i, m)| view_message(Format::Canonical, m, i))
        .collect::<Result<_, _>>()
        .ok()?;
    let kinds: Vec<(ItemKind, &str)> = canonical_views
        .iter()
        .flat_map(|v| v.items.iter().map(|i| (i.kind, i.id.as_str())))
        .collect();
    let want: Vec<(ItemKind, &str)> = view.items.iter().map(|i| (i.kind, i.id.as_str())).collect();
    (kinds == want && items.len() == want.len()).then_some(items)
}

/// An item's own JSON in its message: element `elem` of the items member,
/// or, for an item that is not an element of it, the message.
fn own_json(format: Format, msg: &Value, elem: Option<usize>) -> Value {
    elem.and_then(|e| msg.get(format.items_key())?.get(e))
        .unwrap_or(msg)
        .clone()
}

/// The gist of an item of `kind` and `id` whose JSON (canonical when it
/// has a canonical form) is `v`.
fn gist(kind: ItemKind, id: &str, v: &Value) -> Gist {
    let tag = v.get("$type").and_then(Value::as_str).map(str::to_string);
    let member = |k: &str| v.get(k);
    let (label, text) = match kind {
        ItemKind::Text => (
            "text".to_string(),
            match member("text") {
                Some(Value::String(s)) => s.clone(),
                _ => rest(v),
            },
        ),
        ItemKind::Call => {
            let name = member("name").and_then(Value::as_str).unwrap_or("");
            let args = member("arguments").map_or(String::new(), |a| match a {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            });
            (format!("call {name}").trim_end().to_string(), args)
        }
        ItemKind::Result => (
            "result".to_string(),
            match member("result") {
                Some(Value::String(s)) => s.clone(),
                Some(other) => other.to_string(),
                None => rest(v),
            },
        ),
        ItemKind::ApprovalRequest => ("approval request".to_string(), approval_text(v)),
        ItemKind::ApprovalResponse => (
            match member("approved") {
                Some(Value::Bool(true)) => "approved".to_string(),
                Some(Value::Bool(false)) => "rejected".to_string(),
                _ => "approval response".to_string(),
            },
            approval_text(v),
        ),
        ItemKind::Opaque => (tag.unwrap_or_else(|| "item".into()), rest(v)),
    };
    Gist {
        kind,
        id: id.to_string(),
        label: cut(&label),
        text: cut(&text),
    }
}

/// What an approval item is about: the call of its `toolCall` (a
/// canonical item), or its own `name` and `arguments` (a Responses MCP
/// item), as `for f {"x":1}`; else its other members ([`rest`]).
fn approval_text(v: &Value) -> String {
    let call = v.get("toolCall").filter(|c| c.is_object()).unwrap_or(v);
    match call.get("name").and_then(Value::as_str) {
        Some(name) => match call.get("arguments") {
            Some(Value::String(a)) => format!("for {name} {a}"),
            Some(a) => format!("for {name} {a}"),
            None => format!("for {name}"),
        },
        None => rest(v),
    }
}

/// An item's members other than its tag and ids, as compact JSON (an
/// item that is not an object: itself).
fn rest(v: &Value) -> String {
    match v {
        Value::Object(o) => {
            let kept: serde_json::Map<String, Value> = o
                .iter()
                .filter(|(k, _)| {
                    !matches!(
                        k.as_str(),
                        "$type" | "callId" | "requestId" | "id" | "approved"
                    )
                })
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            if kept.is_empty() {
                String::new()
            } else {
                Value::Object(kept).to_string()
            }
        }
        other => other.to_string(),
    }
}

/// `s` cut after [`MAX_TEXT`] characters, with `…`.
pub fn cut(s: &str) -> String {
    match s.char_indices().nth(MAX_TEXT) {
        None => s.to_string(),
        Some((i, _)) => format!("{}…", &s[..i]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn labels(d: &Drawn) -> Vec<(String, String, String)> {
        d.items
            .iter()
            .map(|g| (g.label.clone(), g.id.clone(), g.text.clone()))
            .collect()
    }

    #[test]
    fn a_call_reads_the_same_in_every_format() {
        let canonical = vec![
            json!({"role": "user", "contents": [{"$type": "text", "text": "weather?"}]}),
            json!({"role": "assistant", "contents": [
                {"$type": "functionCall", "callId": "c1", "name": "lookup", "arguments": {"city": "Oslo"}}
            ]}),
            json!({"role": "tool", "contents": [{"$type": "functionResult", "callId": "c1", "result": "rain"}]}),
        ];
        for format in Format::ALL {
            let wire = crate::formats::to_wire(format, &canonical).unwrap();
            let drawn: Vec<Drawn> = wire
                .iter()
                .enumerate()
                .map(|(i, m)| draw_message(format, m, i))
                .collect();
            let all: Vec<(String, String, String)> = drawn.iter().flat_map(labels).collect();
            assert_eq!(
                all,
                vec![
                    ("text".into(), "".into(), "weather?".into()),
                    (
                        "call lookup".into(),
                        "c1".into(),
                        "{\"city\":\"Oslo\"}".into()
                    ),
                    ("result".into(), "c1".into(), "rain".into()),
                ],
                "{format}"
            );
            assert_eq!(drawn[2].role, Role::Tool, "{format}");
        }
    }

    #[test]
    fn reasoning_approvals_and_unreadable_messages_are_drawn() {
        let items = [
            json!({"type": "reasoning", "id": "rs_1", "summary": []}),
            json!({"type": "mcp_approval_request", "id": "a1", "name": "rm", "arguments": "{}", "server_label": "s"}),
            json!({"type": "mcp_approval_response", "approval_request_id": "a1", "approve": false}),
        ];
        let d: Vec<Drawn> = items
            .iter()
            .enumerate()
            .map(|(i, m)| draw_message(Format::Responses, m, i))
            .collect();
        assert!(d[0].reasoning);
        assert_eq!(d[1].items[0].label, "approval request");
        assert_eq!(d[1].items[0].text, "for rm {}");
        assert_eq!(d[1].items[0].id, "a1");
        assert_eq!(
            (d[2].items[0].label.as_str(), d[2].items[0].id.as_str()),
            ("rejected", "a1")
        );
        let bad = draw_message(Format::Canonical, &json!({"role": 3}), 4);
        assert_eq!(bad.role, Role::Other);
        assert!(bad.unreadable.is_some());
        assert_eq!(bad.items[0].text, "{\"role\":3}");
    }

    #[test]
    fn long_text_is_cut() {
        let long = "x".repeat(500);
        assert_eq!(cut(&long).chars().count(), MAX_TEXT + 1);
        assert!(cut(&long).ends_with('…'));
        assert_eq!(cut("short"), "short");
    }
}
