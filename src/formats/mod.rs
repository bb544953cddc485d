//! Wire formats (spec §1, spec §14): every piece of knowledge about
//! how a message is spelled in canonical, OpenAI Chat Completions,
//! Anthropic Messages, OpenAI Responses, Gemini or Bedrock Converse JSON
//! lives in this folder.
//!
//! The kit never rewrites a message it keeps: reducers, the validator and the
//! checker all work on a [`MessageView`] (role plus the list of content items
//! that matter: calls, results, approval requests and responses) taken from
//! the message as it was read, in whichever wire [`Format`] it came in. A kept
//! message is written back as the very JSON value that was read, or that
//! value with some result / approval-response items removed
//! ([`strip_items`]).
//!
//! | file | owns |
//! |------|------|
//! | `mod.rs` | [`Format`], and per format: [`view_message`], [`strip_items`], [`to_wire`], [`from_wire`] |
//! | [`canonical`] | the canonical items and their `$type` tags |
//! | [`openai`] | OpenAI messages: their views, and conversion to and from canonical |
//! | [`anthropic`] | Anthropic messages and blocks: their views, the system pseudo-message, conversion |
//! | [`responses`] | OpenAI Responses input items: their views, conversion (calls one item each) |
//! | [`gemini`] | Gemini contents and parts: their views, conversion |
//! | [`bedrock`] | Bedrock Converse messages and blocks: their views, conversion |
//! | `keyed.rs` | what Gemini and Bedrock share: parts keyed by member name |
//! | [`raw`] | views read straight from a message's JSON text, without building its value |
//! | [`sniff`] | which format a history's messages look like ([`sniff::format_mismatch`]) |
//!
//! A new wire format is a new file here, a [`Format`] variant, and an arm in
//! each dispatch function below; the request / response envelope of the
//! runner protocol is in [`crate::protocol`].

pub use raw::read_history_raw;

use crate::terms::{Flags, History, HistoryBuilder, Item, ItemKind, MessageView, Role, ShapeError};
use serde_json::{Map, Value};
use std::fmt;
pub use strip::{strip_elems, strip_items, strip_items_at};

pub mod anthropic;
pub mod bedrock;
pub mod canonical;
pub mod gemini;
mod keyed;
pub mod openai;
pub mod raw;
mod required;
pub mod responses;
pub mod sniff;
mod strip;

/// A message that has no form in the target format: names the message
/// index, the content index when the problem is in one item, and what is
/// wrong.
pub type ConvertError = ShapeError;

/// A wire format of chat messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// Microsoft.Extensions.AI `ChatMessage` JSON: `role`, `contents` of
    /// `$type`-tagged items (spec §1); see [`canonical`].
    Canonical,
    /// OpenAI Chat Completions messages (`content`, `tool_calls`,
    /// `tool_call_id`); see [`openai`].
    #[serde(rename = "openai")]
    OpenAi,
    /// Anthropic Messages (`content` blocks `text`, `tool_use`,
    /// `tool_result`; the request's top-level `system` travels as a leading
    /// `{"role": "system", "content": ...}` pseudo-message); see
    /// [`anthropic`].
    Anthropic,
    /// OpenAI Responses input items (`message`, `function_call`,
    /// `function_call_output`, `reasoning`, MCP approval items, ...), one
    /// item per message; see [`responses`] (spec §14.1).
    Responses,
    /// Gemini `contents` (`role` `user` / `model`, `parts` with `text`,
    /// `functionCall`, `functionResponse`; the request's top-level
    /// `systemInstruction` as a leading pseudo-message); see [`gemini`]
    /// (spec §14.2).
    Gemini,
    /// Amazon Bedrock Converse `messages` (`content` blocks `text`,
    /// `toolUse`, `toolResult`; the request's top-level `system` as a
    /// leading pseudo-message); see [`bedrock`] (spec §14.3).
    Bedrock,
}

impl Format {
    /// Every format, canonical first, then the formats of spec v1, then
    /// those of spec §14.
    pub const ALL: [Format; 6] = [
        Format::Canonical,
        Format::OpenAi,
        Format::Anthropic,
        Format::Responses,
        Format::Gemini,
        Format::Bedrock,
    ];

    /// The version of the spec that defines the format: 1 for canonical,
    /// OpenAI and Anthropic (spec §7), 2 for Responses, Gemini and
    /// Bedrock (spec §14).
    pub fn spec(self) -> u32 {
        match self {
            Format::Canonical | Format::OpenAi | Format::Anthropic => 1,
            Format::Responses | Format::Gemini | Format::Bedrock => 2,
        }
    }

    /// The format's command-line name: `canonical`, `openai`, `anthropic`,
    /// `responses`, `gemini` or `bedrock`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Canonical => "canonical",
            Format::OpenAi => "openai",
            Format::Anthropic => "anthropic",
            Format::Responses => "responses",
            Format::Gemini => "gemini",
            Format::Bedrock => "bedrock",
        }
    }

    /// The format's name in prose: `canonical`, `OpenAI`, `Anthropic`,
    /// `Responses`, `Gemini`, `Bedrock` (as in "no OpenAI form").
    pub fn title(self) -> &'static str {
        match self {
            Format::Canonical => "canonical",
            Format::OpenAi => "OpenAI",
            Format::Anthropic => "Anthropic",
            Format::Responses => "Responses",
            Format::Gemini => "Gemini",
            Format::Bedrock => "Bedrock",
        }
    }

    /// Whether the format has reasoning items attached to the next item
    /// (spec §14.6): only [`Format::Responses`]. The clause
    /// `reasoning-attached` is judged in those formats only.
    pub fn has_reasoning(self) -> bool {
        self == Format::Responses
    }

    /// The member of a message that holds its removable content items:
    /// `contents` (canonical), `content` (openai, anthropic, responses,
    /// bedrock) or `parts` (gemini).
    pub fn items_key(self) -> &'static str {
        match self {
            Format::Canonical => "contents",
            Format::OpenAi | Format::Anthropic | Format::Responses | Format::Bedrock => "content",
            Format::Gemini => "parts",
        }
    }

    /// The top-level member of a request (and an answer) that carries the
    /// system prompt, in the formats that have one: `system` (anthropic,
    /// bedrock), `systemInstruction` (gemini). Inside the kit it is the
    /// leading pseudo-message `{"role": "system", "content": <value>}`
    /// ([`anthropic::system_message`]).
    pub fn system_member(self) -> Option<&'static str> {
        match self {
            Format::Anthropic | Format::Bedrock => Some("system"),
            Format::Gemini => Some("systemInstruction"),
            Format::Canonical | Format::OpenAi | Format::Responses => None,
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A format name that is not one of [`Format::ALL`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown format {0:?} (canonical, openai, anthropic, responses, gemini or bedrock)")]
pub struct UnknownFormat(pub String);

impl std::str::FromStr for Format {
    type Err = UnknownFormat;

    /// The format named `s` ([`Format::name`]).
    fn from_str(s: &str) -> Result<Format, UnknownFormat> {
        Format::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| UnknownFormat(s.to_string()))
    }
}

/// The member `key` of `obj`: by a linear scan for the small objects
/// messages and items are (no hashing of the key), else by lookup.
#[inline]
pub(crate) fn member<'a>(obj: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    if obj.len() <= 8 {
        obj.iter().find(|(k, _)| k.as_str() == key).map(|(_, v)| v)
    } else {
        obj.get(key)
    }
}

/// The string member `key` of `obj`, or a [`ShapeError`] saying that
/// `what` (a message, an item) has none or a non-string one.
pub(crate) fn string_field<'a>(
    obj: &'a Map<String, Value>,
    key: &str,
    index: usize,
    item: Option<usize>,
    what: &str,
) -> Result<&'a str, ShapeError> {
    match member(obj, key) {
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(ShapeError::new(
            index,
            item,
            format!("{what} has a non-string `{key}`"),
        )),
        None => Err(ShapeError::new(
            index,
            item,
            format!("{what} has no `{key}`"),
        )),
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
/// Canonical: see [`canonical`]. OpenAI: see [`openai`].
///
/// Anthropic: a `system` (or `developer`) message — the pseudo-message that
/// carries the request's top-level `system` — has no items. Otherwise a
/// string `content` is one text item and an array `content` gives one item
/// per block (`text`, `tool_use` → call, `tool_result` → result, the four
/// approval types as in canonical, anything else opaque). A `user` message
/// with at least one `tool_result` block has role [`Role::Tool`] (its
/// `role_text` stays as received): it is Anthropic's form of a tool message.
///
/// Responses, Gemini, Bedrock: see [`responses`], [`gemini`], [`bedrock`]
/// (a Responses item has a `role` only when it is a message).
pub fn view_message(format: Format, msg: &Value, index: usize) -> Result<MessageView, ShapeError> {
    let mut items = Vec::new();
    let (role, role_text, links) = read_message(format, msg, index, &mut items)?;
    Ok(MessageView {
        role,
        role_text: role_text.to_string(),
        items,
        call_item: links.contains(Flags::CALL_ITEM),
        reasoning: links.contains(Flags::REASONING),
    })
}

/// Where a format reader puts the items of a message, in order: a
/// `Vec<Item>` (one [`MessageView`]) or a [`HistoryBuilder`] (a whole
/// [`History`], ids interned, nothing allocated per item).
pub(crate) trait ItemSink {
    /// One item: its kind, its id ("" for kinds without one) and its index
    /// in the items array (`None` when it is not an element of it).
    fn item(&mut self, kind: ItemKind, id: &str, elem: Option<usize>);
}

impl ItemSink for Vec<Item> {
    fn item(&mut self, kind: ItemKind, id: &str, elem: Option<usize>) {
        self.push(Item {
            kind,
            id: id.to_string(),
            elem,
        });
    }
}

impl ItemSink for HistoryBuilder {
    fn item(&mut self, kind: ItemKind, id: &str, elem: Option<usize>) {
        self.push_item(kind, id, elem);
    }
}

/// Reads message `index` into `sink`: returns its interpreted role and its
/// role text (see [`view_message`] for what is read and the errors).
fn read_message<'m>(
    format: Format,
    msg: &'m Value,
    index: usize,
    sink: &mut dyn ItemSink,
) -> Result<(Role, &'m str, Flags), ShapeError> {
    let obj = msg
        .as_object()
        .ok_or_else(|| ShapeError::new(index, None, "is not a JSON object"))?;
    if format == Format::Responses {
        let (role, role_text, items) = responses::view(obj, index)?;
        for it in items {
            sink.item(it.kind, &it.id, it.elem);
        }
        let links = Flags::links(responses::is_call_item(obj), responses::is_reasoning(obj));
        return Ok((role, role_text, links));
    }
    let role_text = string_field(obj, "role", index, None, "message")?;
    let role = Role::parse(role_text);
    let role = match format {
        Format::Canonical => {
            canonical::items(obj, index, sink)?;
            role
        }
        Format::OpenAi => {
            openai::items(obj, role, index, sink)?;
            role
        }
        Format::Anthropic => anthropic::role_and_items(obj, role, index, sink)?,
        Format::Gemini | Format::Bedrock => {
            let (role, items) = if format == Format::Gemini {
                gemini::role_and_items(obj, role_text, index)?
            } else {
                bedrock::role_and_items(obj, role_text, index)?
            };
            for it in items {
                sink.item(it.kind, &it.id, it.elem);
            }
            role
        }
        Format::Responses => unreachable!("read above"),
    };
    Ok((role, role_text, Flags::default()))
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

/// Reads a whole history into its compact [`History`] (the same views as
/// [`view_history`], classified once, ids interned).
///
/// # Errors
///
/// The first [`ShapeError`], naming its message index (as
/// [`view_message`]).
pub fn read_history(format: Format, messages: &[Value]) -> Result<History, ShapeError> {
    let mut b = HistoryBuilder::with_capacity(messages.len(), messages.len() + messages.len() / 4);
    for (i, m) in messages.iter().enumerate() {
        let (role, _, links) = read_message(format, m, i, &mut b)?;
        b.end_message_with(role, links);
    }
    Ok(b.finish())
}

/// Reads a history whose messages may be unreadable (a reducer's output):
/// a message [`view_message`] would refuse is kept as an unreadable message
/// ([`crate::terms::View::is_unreadable`]: role other, no items).
pub fn read_history_lenient(format: Format, messages: &[Value]) -> History {
    let mut b = HistoryBuilder::with_capacity(messages.len(), messages.len() + messages.len() / 4);
    for (i, m) in messages.iter().enumerate() {
        match read_message(format, m, i, &mut b) {
            Ok((role, _, links)) => b.end_message_with(role, links),
            Err(_) => b.push_unreadable(),
        }
    }
    b.finish()
}

/// Converts a canonical history to `format` (the identity for
/// [`Format::Canonical`]): one message for one message, except in the
/// Responses format, where an assistant message of calls becomes one item
/// per call.
///
/// # Errors
///
/// [`ConvertError`] for the first message the format cannot carry: see
/// [`openai::to_openai`], [`anthropic::to_anthropic`],
/// [`responses::to_responses`], [`gemini::to_gemini`] and
/// [`bedrock::to_bedrock`].
pub fn to_wire(format: Format, messages: &[Value]) -> Result<Vec<Value>, ConvertError> {
    if format != Format::Canonical {
        required::nameless_call(format, messages)?;
    }
    match format {
        Format::Canonical => Ok(messages.to_vec()),
        Format::OpenAi => openai::to_openai(messages),
        Format::Anthropic => anthropic::to_anthropic(messages),
        Format::Responses => responses::to_responses(messages),
        Format::Gemini => gemini::to_gemini(messages),
        Format::Bedrock => bedrock::to_bedrock(messages),
    }
}

/// Converts messages in `format` to a canonical history; the inverse of
/// [`to_wire`] (Responses: consecutive call items become one message).
///
/// # Errors
///
/// [`ConvertError`] for the first message that has no canonical form: see
/// [`openai::from_openai`], [`anthropic::from_anthropic`],
/// [`responses::from_responses`], [`gemini::from_gemini`] and
/// [`bedrock::from_bedrock`].
pub fn from_wire(format: Format, messages: &[Value]) -> Result<Vec<Value>, ConvertError> {
    match format {
        Format::Canonical => Ok(messages.to_vec()),
        Format::OpenAi => openai::from_openai(messages),
        Format::Anthropic => anthropic::from_anthropic(messages),
        Format::Responses => responses::from_responses(messages),
        Format::Gemini => gemini::from_gemini(messages),
        Format::Bedrock => bedrock::from_bedrock(messages),
    }
}

/// Item `o` with its tag member `from` renamed `to` (`$type` → `type` for
/// an OpenAI part or an Anthropic block, `type` → `$type` back), every other
/// member as it is, in order.
///
/// # Errors
///
/// `collide()` when `o` already has a member named `to`.
pub(crate) fn rename_tag(
    o: &Map<String, Value>,
    from: &str,
    to: &str,
    collide: impl Fn() -> ConvertError,
) -> Result<Value, ConvertError> {
    let mut out = Map::new();
    let how = Members {
        skip: &[],
        rename: &[(from, to)],
        refuse: &[to],
    };
    copy_members(o, &mut out, &how, |_| collide())?;
    Ok(Value::Object(out))
}

/// How [`retag`] turns an item of one format into an item of another: its
/// tag first, then its id under a new name, then some members moved up
/// front, then the rest as [`Members`] says.
pub(crate) struct Retag<'a> {
    /// The tag member and its value, written first: `("type", "tool_use")`.
    pub tag: (&'a str, &'a str),
    /// The id, read (a string) from the first name and written under the
    /// second: `("callId", "id")`.
    pub id: (&'a str, &'a str),
    /// Members written next, in this order, when present: `(from, to)`.
    pub lead: &'a [(&'a str, &'a str)],
    /// The other members.
    pub rest: Members<'a>,
    /// What the source item is called in errors: `tool_use`, `functionCall`.
    pub what: &'a str,
    /// Whose members a refused one would collide with: `Anthropic's`, `the
    /// canonical format`.
    pub whose: &'a str,
}

/// The item `o` retagged as `how` says.
///
/// # Errors
///
/// `error(problem)` when the id is missing or not a string (`tool_use has
/// no string `id``), or a member would collide (`tool_use member `callId`
/// would collide with the canonical format`).
pub(crate) fn retag(
    o: &Map<String, Value>,
    how: &Retag,
    error: impl Fn(String) -> ConvertError,
) -> Result<Map<String, Value>, ConvertError> {
    let mut out = Map::new();
    out.insert(how.tag.0.into(), Value::String(how.tag.1.into()));
    let id = o
        .get(how.id.0)
        .filter(|v| v.is_string())
        .cloned()
        .ok_or_else(|| error(format!("{} has no string `{}`", how.what, how.id.0)))?;
    out.insert(how.id.1.into(), id);
    for (from, to) in how.lead {
        if let Some(v) = o.get(*from) {
            out.insert((*to).into(), v.clone());
        }
    }
    copy_members(o, &mut out, &how.rest, |key| {
        error(format!(
            "{} member `{key}` would collide with {}",
            how.what, how.whose
        ))
    })?;
    Ok(out)
}

/// Copies every member of `from` but those named in `skip` into `to`, in
/// order (a [`copy_members`] that refuses nothing).
pub(crate) fn copy_other(from: &Map<String, Value>, to: &mut Map<String, Value>, skip: &[&str]) {
    let how = Members {
        skip,
        rename: &[],
        refuse: &[],
    };
    // Nothing is refused, so the copy cannot fail.
    let _ = copy_members(from, to, &how, |_| ShapeError::new(0, None, ""));
}

/// The items of a `content` member as OpenAI and Anthropic spell it:
/// none when absent or `null`, one text item (not an element) for a
/// string, and one item per part or block of an array, classified by
/// `classify` on its `type` (see [`canonical::tagged_items`]).
///
/// # Errors
///
/// A [`ShapeError`] for any other `content`, or from `classify`.
pub(crate) fn content_items(
    obj: &Map<String, Value>,
    index: usize,
    classify: canonical::Classify,
    sink: &mut dyn ItemSink,
) -> Result<(), ShapeError> {
    match member(obj, "content") {
        None | Some(Value::Null) => Ok(()),
        Some(Value::String(_)) => {
            sink.item(ItemKind::Text, "", None);
            Ok(())
        }
        Some(Value::Array(parts)) => canonical::tagged_items(parts, "type", classify, sink),
        Some(_) => Err(ShapeError::new(
            index,
            None,
            "`content` is not a string, an array or null",
        )),
    }
}

/// Converts every message of a history with `convert(message, index)`,
/// one message for one message, stopping at the first error.
pub(crate) fn convert_all(
    messages: &[Value],
    convert: fn(&Value, usize) -> Result<Value, ConvertError>,
) -> Result<Vec<Value>, ConvertError> {
    messages
        .iter()
        .enumerate()
        .map(|(i, m)| convert(m, i))
        .collect()
}

/// The object and the role of message `index` being converted.
///
/// # Errors
///
/// When it is not an object, or has no string `role`.
pub(crate) fn object_and_role(
    msg: &Value,
    index: usize,
) -> Result<(&Map<String, Value>, &str), ConvertError> {
    let obj = msg
        .as_object()
        .ok_or_else(|| ShapeError::new(index, None, "is not a JSON object"))?;
    match obj.get("role") {
        Some(Value::String(r)) => Ok((obj, r)),
        _ => Err(ShapeError::new(index, None, "has no string `role`")),
    }
}

/// Refuses the members `keys` of message `index`: they would collide with
/// members of the target format (named by `whose`: `OpenAI's`, `the
/// canonical format`).
///
/// # Errors
///
/// For the first of `keys` that `obj` has.
pub(crate) fn refuse_members(
    obj: &Map<String, Value>,
    keys: &[&str],
    index: usize,
    whose: &str,
) -> Result<(), ConvertError> {
    match keys.iter().find(|k| obj.contains_key(**k)) {
        Some(key) => Err(ShapeError::new(
            index,
            None,
            format!("member `{key}` would collide with {whose}"),
        )),
        None => Ok(()),
    }
}

/// How [`copy_members`] treats the members of an object it copies. Members
/// it does not name are copied unchanged, in order.
pub(crate) struct Members<'a> {
    /// Members left out (the caller has written their translation).
    pub skip: &'a [&'a str],
    /// Members copied under another name: `(from, to)`.
    pub rename: &'a [(&'a str, &'a str)],
    /// Members whose presence is an error: they would collide with a member
    /// of the target format.
    pub refuse: &'a [&'a str],
}

/// Copies the members of `from` into `to`, in order, as `how` says: the one
/// "copy members, rename, refuse collisions" step of every conversion.
///
/// # Errors
///
/// `collide(name)` for the first member of `how.refuse` that `from` has.
pub(crate) fn copy_members(
    from: &Map<String, Value>,
    to: &mut Map<String, Value>,
    how: &Members,
    collide: impl Fn(&str) -> ConvertError,
) -> Result<(), ConvertError> {
    for (key, value) in from {
        let key = key.as_str();
        if how.skip.contains(&key) {
            continue;
        }
        if how.refuse.contains(&key) {
            return Err(collide(key));
        }
        let name = how
            .rename
            .iter()
            .find(|(old, _)| *old == key)
            .map_or(key, |(_, new)| *new);
        to.insert(name.to_string(), value.clone());
    }
    Ok(())
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
        let t = [t];
        let out = crate::reduce::Reference::new(crate::terms::Policy::Suffix, Format::OpenAi)
            .reduce(crate::reduce::Input::new(&t).max_messages(&json!(5)))
            .unwrap()
            .messages();
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

    /// A canonical call without `arguments` is written with each format's
    /// required members: Chat Completions' `function.arguments` and
    /// Responses' `arguments` are strings (the empty object's text),
    /// Anthropic's `tool_use.input` and Bedrock's `toolUse.input` objects;
    /// Gemini's `functionCall.args` is optional and stays out. Read back,
    /// the call has the arguments written (`{}`), but in Gemini.
    #[test]
    fn a_call_without_arguments_carries_each_formats_required_members() {
        let history = [
            json!({"role": "user", "contents": [{"$type": "text", "text": "q"}]}),
            json!({"role": "assistant", "contents": [{"$type": "functionCall", "callId": "c1", "name": "f"}]}),
            json!({"role": "tool", "contents": [{"$type": "functionResult", "callId": "c1", "result": "r"}]}),
        ];
        let call = |f: Format| {
            let wire = to_wire(f, &history).unwrap();
            match f {
                Format::Canonical => wire[1]["contents"][0].clone(),
                Format::OpenAi => wire[1]["tool_calls"][0].clone(),
                Format::Anthropic | Format::Bedrock => wire[1]["content"][0].clone(),
                Format::Gemini => wire[1]["parts"][0].clone(),
                Format::Responses => wire[1].clone(),
            }
        };
        assert_eq!(
            call(Format::OpenAi),
            json!({"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}})
        );
        assert_eq!(
            call(Format::Responses),
            json!({"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"})
        );
        assert_eq!(
            call(Format::Anthropic),
            json!({"type": "tool_use", "id": "c1", "name": "f", "input": {}})
        );
        assert_eq!(
            call(Format::Bedrock),
            json!({"toolUse": {"toolUseId": "c1", "name": "f", "input": {}}})
        );
        assert_eq!(
            call(Format::Gemini),
            json!({"functionCall": {"id": "c1", "name": "f"}})
        );
        for f in Format::ALL {
            let back = from_wire(f, &to_wire(f, &history).unwrap()).unwrap();
            let want = match f {
                Format::Canonical | Format::Gemini => json!(null),
                _ => json!({}),
            };
            assert_eq!(back[1]["contents"][0]["arguments"], want, "{f}");
        }
    }
}
