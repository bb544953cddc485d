//! Reading a history's views straight from its JSON text: each message is
//! a raw slice of the input ([`RawValue`]), and a small deserializer takes
//! from it only what the view needs (role, the item tags and ids) and skips
//! the rest, so no JSON value tree is built. The command line reads its
//! input this way and writes kept messages from their input bytes.
//!
//! The fast reader knows only the usual shapes; for any message it is not
//! sure of (an unexpected type anywhere it looks, a duplicate member, a
//! missing id) it parses that message into a value and reads it with
//! [`super::view_message`]'s reader, so the views and the errors are
//! exactly those of [`super::read_history`] (a test holds this on the
//! corpus, the tau-bench sample and generated histories in every format).

use super::{read_message, Format};
use crate::terms::{Flags, History, HistoryBuilder, ItemKind, Role, ShapeError};
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;

/// One content item (canonical item, OpenAI part, Anthropic block) as far
/// as a view needs it.
#[derive(Deserialize)]
struct Part<'a> {
    #[serde(rename = "$type", borrow, default)]
    dollar_type: Option<Cow<'a, str>>,
    #[serde(rename = "type", borrow, default)]
    type_: Option<Cow<'a, str>>,
    #[serde(rename = "callId", borrow, default)]
    call_id: Option<Cow<'a, str>>,
    #[serde(rename = "requestId", borrow, default)]
    request_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tool_use_id: Option<Cow<'a, str>>,
}

impl Part<'_> {
    fn member(&self, key: &str) -> Option<&str> {
        match key {
            "callId" => self.call_id.as_deref(),
            "requestId" => self.request_id.as_deref(),
            "id" => self.id.as_deref(),
            "tool_use_id" => self.tool_use_id.as_deref(),
            _ => None,
        }
    }
}

/// An OpenAI tool call entry: only its id.
#[derive(Deserialize)]
struct Call<'a> {
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
}

/// A `content` member: a string, null, or an array of parts; anything else
/// makes the fast reader give up on the message.
enum Content<'a> {
    Text,
    Null,
    Parts(Vec<Part<'a>>),
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Content<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string, null or an array")
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(Content::Text)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Content::Null)
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Content::Null)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut parts = Vec::with_capacity(seq.size_hint().unwrap_or(2));
                while let Some(p) = seq.next_element()? {
                    parts.push(p);
                }
                Ok(Content::Parts(parts))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// A message as far as its view needs it; every other member is skipped.
#[derive(Deserialize)]
struct Message<'a> {
    #[serde(borrow)]
    role: Cow<'a, str>,
    #[serde(borrow, default)]
    contents: Option<Vec<Part<'a>>>,
    #[serde(borrow, default)]
    content: Option<Content<'a>>,
    #[serde(borrow, default)]
    tool_calls: Option<Vec<Call<'a>>>,
    #[serde(borrow, default)]
    tool_call_id: Option<Cow<'a, str>>,
}

/// The kind of a tagged item and the member holding its id (the table of
/// [`super::canonical`], with the OpenAI and Anthropic exceptions).
fn kind_of(format: Format, tag: &str) -> (ItemKind, Option<&'static str>) {
    match (format, tag) {
        (Format::OpenAi | Format::Anthropic, "functionCall" | "functionResult") => {
            (ItemKind::Opaque, None)
        }
        (Format::Anthropic, "tool_use") => (ItemKind::Call, Some("id")),
        (Format::Anthropic, "tool_result") => (ItemKind::Result, Some("tool_use_id")),
        (_, "text") => (ItemKind::Text, None),
        (_, "functionCall") => (ItemKind::Call, Some("callId")),
        (_, "functionResult") => (ItemKind::Result, Some("callId")),
        (_, "toolApprovalRequest") => (ItemKind::ApprovalRequest, Some("requestId")),
        (_, "toolApprovalResponse") => (ItemKind::ApprovalResponse, Some("requestId")),
        (_, "functionApprovalRequest") => (ItemKind::ApprovalRequest, Some("id")),
        (_, "functionApprovalResponse") => (ItemKind::ApprovalResponse, Some("id")),
        _ => (ItemKind::Opaque, None),
    }
}

/// Pushes the parts' items; `None` when an id is missing (the slow reader
/// reports it).
fn push_parts(format: Format, parts: &[Part], b: &mut HistoryBuilder) -> Option<bool> {
    let mut has_result = false;
    for (e, p) in parts.iter().enumerate() {
        let tag = match format {
            Format::Canonical => p.dollar_type.as_deref(),
            Format::OpenAi | Format::Anthropic => p.type_.as_deref(),
            Format::Responses | Format::Gemini | Format::Bedrock => return None,
        };
        let (kind, key) = tag.map_or((ItemKind::Opaque, None), |t| kind_of(format, t));
        let id = match key {
            Some(k) => p.member(k)?,
            None => "",
        };
        has_result |= kind == ItemKind::Result;
        b.push_item(kind, id, Some(e));
    }
    Some(has_result)
}

/// The fast read of one message into `b`: its role, or `None` when the
/// slow reader must decide (nothing of the message is left in `b` then).
fn read_fast(format: Format, raw: &RawValue, b: &mut HistoryBuilder) -> Option<Role> {
    let m: Message = serde_json::from_str(raw.get()).ok()?;
    let role = Role::parse(&m.role);
    let out = (|| match format {
        Format::Canonical => {
            if let Some(parts) = &m.contents {
                push_parts(format, parts, b)?;
            }
            Some(role)
        }
        Format::OpenAi => {
            if role == Role::Tool {
                b.push_item(ItemKind::Result, m.tool_call_id.as_deref()?, None);
            } else {
                match &m.content {
                    None | Some(Content::Null) => {}
                    Some(Content::Text) => b.push_item(ItemKind::Text, "", None),
                    Some(Content::Parts(parts)) => {
                        push_parts(format, parts, b)?;
                    }
                }
            }
            for c in m.tool_calls.iter().flatten() {
                b.push_item(ItemKind::Call, c.id.as_deref()?, None);
            }
            Some(role)
        }
        Format::Anthropic => {
            if role == Role::System {
                return Some(role);
            }
            let has_result = match &m.content {
                None | Some(Content::Null) => false,
                Some(Content::Text) => {
                    b.push_item(ItemKind::Text, "", None);
                    false
                }
                Some(Content::Parts(parts)) => push_parts(format, parts, b)?,
            };
            Some(if role == Role::User && has_result {
                Role::Tool
            } else {
                role
            })
        }
        // The formats of spec §14 are read through their values.
        Format::Responses | Format::Gemini | Format::Bedrock => None,
    })();
    if out.is_none() {
        b.discard_items();
    }
    out
}

/// Reads message `index` (raw JSON text) into `b`: fast when it can, else
/// through a parsed value.
fn read_one(
    format: Format,
    raw: &RawValue,
    index: usize,
    b: &mut HistoryBuilder,
) -> Result<(Role, Flags), ShapeError> {
    if let Some(role) = read_fast(format, raw, b) {
        return Ok((role, Flags::default()));
    }
    let v: Value = serde_json::from_str(raw.get())
        .map_err(|e| ShapeError::new(index, None, format!("is not JSON: {e}")))?;
    read_message(format, &v, index, b).map(|(role, _, links)| (role, links))
}

/// Reads a history given as raw JSON messages into its compact
/// [`History`]: the same views and errors as [`super::read_history`] on the
/// parsed messages, without building their values.
///
/// # Errors
///
/// The first [`ShapeError`], naming its message index.
pub fn read_history_raw(format: Format, messages: &[&RawValue]) -> Result<History, ShapeError> {
    let mut b = HistoryBuilder::with_capacity(messages.len(), messages.len() + messages.len() / 4);
    for (i, m) in messages.iter().enumerate() {
        let (role, links) = read_one(format, m, i, &mut b)?;
        b.end_message_with(role, links);
    }
    Ok(b.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::read_history;

    fn same(format: Format, text: &str) {
        let raws: Vec<&RawValue> = serde_json::from_str(text).unwrap();
        let values: Vec<Value> = serde_json::from_str(text).unwrap();
        let fast = read_history_raw(format, &raws);
        let slow = read_history(format, &values);
        match (fast, slow) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a.len(), b.len());
                for i in 0..a.len() {
                    assert_eq!(a.message_view(i), b.message_view(i), "{text}: message {i}");
                    assert_eq!(a.view(i), b.view(i), "{text}: message {i}");
                }
            }
            (Err(a), Err(b)) => assert_eq!(a, b, "{text}"),
            (a, b) => panic!(
                "{text}: {:?} vs {:?}",
                a.map(|h| h.len()),
                b.map(|h| h.len())
            ),
        }
    }

    #[test]
    fn the_fast_reader_agrees_with_the_value_reader() {
        for (format, text) in [
            (
                Format::Canonical,
                r#"[{"role":"user","contents":[{"$type":"text","text":"a"}]},{"role":"Assistant","contents":[{"$type":"functionCall","callId":"c\u0031","arguments":{"x":[1,2]}}]},{"role":"tool","contents":[{"$type":"functionResult","callId":"c1","result":"ok"}]}]"#,
            ),
            (
                Format::Canonical,
                r#"[{"role":"user","contents":null},{"role":"user"},{"role":"user","contents":["x",{"$type":5}]}]"#,
            ),
            (
                Format::Canonical,
                r#"[{"role":"user","contents":[{"$type":"functionCall"}]}]"#,
            ),
            (
                Format::Canonical,
                r#"[{"role":"user","contents":[{"$type":"functionCall","callId":7}]}]"#,
            ),
            (
                Format::Canonical,
                r#"[{"role":"user","role":"tool","contents":[]}]"#,
            ),
            (Format::Canonical, r#"[{"role":3}]"#),
            (Format::Canonical, r#"[[1]]"#),
            (Format::Canonical, r#"[{"role":"user","contents":{}}]"#),
            (
                Format::OpenAi,
                r#"[{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"a","content":"r"},{"role":"user","content":[{"type":"text","text":"x"},{"type":"toolApprovalResponse","requestId":"r"}]}]"#,
            ),
            (Format::OpenAi, r#"[{"role":"tool","content":"r"}]"#),
            (
                Format::OpenAi,
                r#"[{"role":"assistant","tool_calls":[{"type":"function"}]}]"#,
            ),
            (Format::OpenAi, r#"[{"role":"assistant","tool_calls":{}}]"#),
            (Format::OpenAi, r#"[{"role":"user","content":5}]"#),
            (
                Format::Anthropic,
                r#"[{"role":"system","content":"s"},{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{}}]},{"role":"User","content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}]},{"role":"user","content":"q"}]"#,
            ),
            (
                Format::Anthropic,
                r#"[{"role":"user","content":[{"type":"tool_result"}]}]"#,
            ),
        ] {
            same(format, text);
        }
    }
}
