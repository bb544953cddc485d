//! The runner protocol envelope (spec §8, spec §13), both halves:
//! the request the runner sends (`{"maxMessages", "messages"}` in protocol
//! 1; protocol 2 adds `maxTokens`, `tokens`, `countPinned`, `systemTokens`,
//! `summary` and `summaryTokens`) and the [`Response`] a reducer gives
//! (`{"messages"}` or `{"error"}`, the same in both), as the runner
//! ([`crate::certify`]) writes and reads them and as `reducer-kit serve`
//! reads and writes them.
//!
//! Inside the kit a history is a list of messages. In the formats with a
//! top-level system prompt ([`Format::system_member`]: Anthropic's and
//! Bedrock's `system`, Gemini's `systemInstruction`) the request's and the
//! response's top-level member travels in that list as a leading
//! pseudo-message ([`crate::formats::anthropic::system_message`]);
//! [`split_system`] and [`join_system`] go between the two. Its cost in a
//! token budget travels as the request's `systemTokens` and is the first
//! entry of `tokens` inside the kit ([`BudgetFields`]).

use crate::formats::{anthropic, Format};
use crate::json::json_eq;
use crate::terms::BudgetFields;
use serde_json::{json, Value};

/// A version of the runner protocol (spec §8, spec §13). A reducer
/// declares which it speaks (`certify --protocol`); version 1 requests are
/// what they always were, and cases that need version 2 are not sent to a
/// version 1 reducer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Protocol {
    /// Protocol 1: `maxMessages` only.
    #[default]
    V1,
    /// Protocol 2: token budgets (`maxTokens`, `tokens`, `countPinned`,
    /// `systemTokens`) and summaries (`summary`, `summaryTokens`).
    V2,
}

impl Protocol {
    /// The version number: 1 or 2.
    pub fn number(self) -> u32 {
        match self {
            Protocol::V1 => 1,
            Protocol::V2 => 2,
        }
    }

    /// The protocol numbered `n`, if there is one.
    pub fn from_number(n: u32) -> Option<Protocol> {
        match n {
            1 => Some(Protocol::V1),
            2 => Some(Protocol::V2),
            _ => None,
        }
    }
}

/// Whether `format` carries the system prompt as a top-level request member
/// (Anthropic's and Bedrock's `system`, Gemini's `systemInstruction`), which travels inside the kit as a leading
/// pseudo-message and whose cost travels as `systemTokens`.
fn top_level_system(format: Format) -> bool {
    format.system_member().is_some()
}

/// A reducer's answer to one request.
#[derive(Clone, Debug, PartialEq)]
pub enum Response {
    /// `{"messages": [...]}`: the reduced history, in the request's format.
    Messages(Vec<Value>),
    /// `{"error": "..."}`: the reducer rejected the request.
    Error(String),
    /// `{"unsupported": "..."}` (protocol 2 only, spec §13.7): the
    /// request asks for something the reducer cannot express, such as a
    /// budget its library has no setting for. The runner records the case
    /// as unsupported, not judged; under protocol 1 it is a
    /// `protocol-json` failure.
    Unsupported(String),
}

/// A response that is not a protocol v1 response object (clause
/// `protocol-json`). Messages are lowercase.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ResponseError {
    /// Not a JSON object.
    #[error("the response is not a JSON object")]
    NotAnObject,
    /// More than one of `messages`, `error` and `unsupported`.
    #[error("the response has more than one of `messages`, `error` and `unsupported`")]
    Both,
    /// `messages` but not an array.
    #[error("`messages` is not an array")]
    MessagesNotArray,
    /// `error` but not a string.
    #[error("`error` is not a string")]
    ErrorNotString,
    /// `unsupported` but not a string.
    #[error("`unsupported` is not a string")]
    UnsupportedNotString,
    /// None of the members.
    #[error("the response has neither `messages` nor `error`")]
    Neither,
}

impl Response {
    /// Reads a protocol v1 response object (any wire format; see
    /// [`response_from_json`] for the Anthropic `system`).
    ///
    /// # Errors
    ///
    /// A [`ResponseError`] when `value` is not an object with exactly one
    /// of an array `messages` or a string `error`.
    pub fn from_json(value: &Value) -> Result<Response, ResponseError> {
        let obj = value.as_object().ok_or(ResponseError::NotAnObject)?;
        match (
            obj.get("messages"),
            obj.get("error"),
            obj.get("unsupported"),
        ) {
            (Some(Value::Array(m)), None, None) => Ok(Response::Messages(m.clone())),
            (None, Some(Value::String(e)), None) => Ok(Response::Error(e.clone())),
            (None, None, Some(Value::String(u))) => Ok(Response::Unsupported(u.clone())),
            (Some(_), None, None) => Err(ResponseError::MessagesNotArray),
            (None, Some(_), None) => Err(ResponseError::ErrorNotString),
            (None, None, Some(_)) => Err(ResponseError::UnsupportedNotString),
            (None, None, None) => Err(ResponseError::Neither),
            _ => Err(ResponseError::Both),
        }
    }

    /// The response as a protocol v1 JSON object, its messages as they are
    /// (see [`response_json`] for the Anthropic `system`).
    pub fn to_json(&self) -> Value {
        match self {
            Response::Messages(m) => json!({ "messages": m }),
            Response::Error(e) => json!({ "error": e }),
            Response::Unsupported(u) => json!({ "unsupported": u }),
        }
    }

    /// Whether two responses are the same: both errors (any text), both
    /// unsupported (any text), or equal message arrays (spec §1
    /// equality).
    pub fn same_as(&self, other: &Response) -> bool {
        match (self, other) {
            (Response::Error(_), Response::Error(_)) => true,
            (Response::Unsupported(_), Response::Unsupported(_)) => true,
            (Response::Messages(a), Response::Messages(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| json_eq(x, y))
            }
            _ => false,
        }
    }
}

/// Splits the kit's Anthropic message list into the request's top-level
/// `system` value and its `messages`: when the first message is the
/// pseudo-message ([`anthropic::system_content`]), returns its `content`
/// and the other messages; otherwise `None` and all messages, unchanged (a
/// leading `system` message with other members is left in place, so
/// nothing is dropped silently).
///
/// # Examples
///
/// ```
/// use reducer_kit::protocol::split_system;
/// use serde_json::json;
/// let list = vec![json!({"role": "system", "content": "Be brief."}),
///                 json!({"role": "user", "content": "Hi"})];
/// let (system, messages) = split_system(&list);
/// assert_eq!(system, Some(json!("Be brief.")));
/// assert_eq!(messages, vec![json!({"role": "user", "content": "Hi"})]);
/// ```
pub fn split_system(messages: &[Value]) -> (Option<Value>, Vec<Value>) {
    match messages.first().and_then(anthropic::system_content) {
        Some(system) => (Some(system.clone()), messages[1..].to_vec()),
        None => (None, messages.to_vec()),
    }
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
/// use reducer_kit::protocol::join_system;
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
            out.push(anthropic::system_message(s));
            out.extend(messages);
            out
        }
    }
}

/// `{"system"?, "messages"}` for the kit's message list in `format`: in a
/// format with a top-level system prompt, a leading system pseudo-message
/// travels as that member ([`Format::system_member`]); the caller adds the
/// other members.
fn envelope(format: Format, messages: &[Value]) -> serde_json::Map<String, Value> {
    envelope_with(format, messages, None)
}

/// [`envelope`], and with `tokens` (the kit's costs, one per message) the
/// pseudo-message's cost as `systemTokens` after `system`; returns the
/// costs of the request's `messages` in `tokens`' place.
fn envelope_with(
    format: Format,
    messages: &[Value],
    tokens: Option<&mut Value>,
) -> serde_json::Map<String, Value> {
    let mut out = serde_json::Map::new();
    let (system, rest) = if top_level_system(format) {
        split_system(messages)
    } else {
        (None, messages.to_vec())
    };
    if let (Some(s), Some(key)) = (system, format.system_member()) {
        out.insert(key.into(), s);
        if let Some(Value::Array(costs)) = tokens {
            if !costs.is_empty() {
                out.insert("systemTokens".into(), costs.remove(0));
            }
        }
    }
    out.insert("messages".into(), Value::Array(rest));
    out
}

/// The protocol v1 request for `messages` (the kit's list, in `format`)
/// with budget `max_messages` (as sent, possibly invalid on purpose):
/// `{"maxMessages", "system"?, "messages"}` (`systemInstruction` for
/// Gemini). The same as [`request`] with only `maxMessages` and no summary.
pub fn request_json(format: Format, max_messages: &Value, messages: &[Value]) -> Value {
    request(
        format,
        &BudgetFields::messages(max_messages.clone()),
        None,
        messages,
    )
}

/// The request for `messages` (the kit's list, in `format`) with the budget
/// members `budget` (as sent, possibly invalid on purpose; `tokens` covers
/// the kit's list) and, when summaries are allowed, the summary's cost
/// `summary` (spec §13.1). Members in this order, each only when there
/// is one: `maxMessages`, `maxTokens`, `tokens`, `countPinned`, `system`,
/// `systemTokens`, `messages`, `summary`, `summaryTokens`.
///
/// `systemTokens` is the first entry of `tokens` when the format has a
/// top-level system prompt and the history starts with it; `summaryTokens`
/// is sent with a token budget only (a summary costs 1 against
/// `maxMessages`). With `maxMessages` alone and no summary this is the
/// protocol 1 request, byte for byte.
///
/// # Examples
///
/// ```
/// use reducer_kit::{formats::Format, protocol::request, terms::BudgetFields};
/// use serde_json::json;
/// let system = json!({"role": "system", "content": "Be brief."});
/// let user = json!({"role": "user", "content": "Hi"});
/// let budget = BudgetFields::tokens(json!(10), json!([4, 3]), Some(json!(true)));
/// let r = request(Format::Anthropic, &budget, Some(2), &[system, user.clone()]);
/// assert_eq!(r.to_string(), json!({"maxTokens": 10, "tokens": [3], "countPinned": true,
///     "system": "Be brief.", "systemTokens": 4, "messages": [user],
///     "summary": true, "summaryTokens": 2}).to_string());
/// ```
pub fn request(
    format: Format,
    budget: &BudgetFields,
    summary: Option<u64>,
    messages: &[Value],
) -> Value {
    let mut r = serde_json::Map::new();
    let mut tokens = budget.tokens.clone();
    if let Some(m) = &budget.max_messages {
        r.insert("maxMessages".into(), m.clone());
    }
    if let Some(m) = &budget.max_tokens {
        r.insert("maxTokens".into(), m.clone());
    }
    let rest = envelope_with(format, messages, tokens.as_mut());
    if let Some(t) = tokens {
        r.insert("tokens".into(), t);
    }
    if let Some(c) = &budget.count_pinned {
        r.insert("countPinned".into(), c.clone());
    }
    r.extend(rest);
    if let Some(s) = summary {
        r.insert("summary".into(), Value::Bool(true));
        if budget.max_tokens.is_some() {
            r.insert("summaryTokens".into(), Value::from(s));
        }
    }
    Value::Object(r)
}

/// The text of [`request`]`(format, budget, summary, messages)`, byte for
/// byte what its `to_string` gives, written from the borrowed parts: the
/// messages are not copied into a request object first (the runner sends
/// three or four requests per case).
///
/// # Examples
///
/// ```
/// use reducer_kit::{formats::Format, protocol::{request, request_text}, terms::BudgetFields};
/// use serde_json::json;
/// let h = [json!({"role": "system", "content": "S"}), json!({"role": "user", "content": "Hi"})];
/// let budget = BudgetFields::tokens(json!(10), json!([4, 3]), None);
/// let text = request_text(Format::Anthropic, &budget, Some(2), &h);
/// assert_eq!(text, request(Format::Anthropic, &budget, Some(2), &h).to_string());
/// assert_eq!(text, r#"{"maxTokens":10,"tokens":[3],"system":"S","systemTokens":4,"messages":[{"role":"user","content":"Hi"}],"summary":true,"summaryTokens":2}"#);
/// ```
pub fn request_text(
    format: Format,
    budget: &BudgetFields,
    summary: Option<u64>,
    messages: &[Value],
) -> String {
    write_request(format, budget, summary, messages, None).0
}

/// [`request_text`], and the offset where the members after the budget's
/// begin (the `{` or `,` before the first of them). With `copied`, those
/// members are not written but copied from `copied` (the same members of
/// another request's text, from its offset): the caller vouches that they
/// are the same (same format, summary and messages, the same `tokens`, and
/// `maxTokens` present in both or neither).
fn write_request(
    format: Format,
    budget: &BudgetFields,
    summary: Option<u64>,
    messages: &[Value],
    copied: Option<&[u8]>,
) -> (String, usize) {
    let mut out = Vec::with_capacity(64 + copied.map_or(messages.len() * 96, <[u8]>::len));
    let mut first = true;
    let mut member = |out: &mut Vec<u8>, key: &str, value: &dyn erased::Json| {
        out.push(if first { b'{' } else { b',' });
        first = false;
        serde_json::to_writer(&mut *out, key).expect("writing to a Vec cannot fail");
        out.push(b':');
        value.write(out);
    };
    // As `envelope_with`: the pseudo-message and its cost travel apart.
    let (system, rest) = match (top_level_system(format), messages.first()) {
        (true, Some(m)) => match anthropic::system_content(m) {
            Some(s) => (Some(s), &messages[1..]),
            None => (None, messages),
        },
        _ => (None, messages),
    };
    let (tokens, system_tokens) = match (&budget.tokens, system) {
        (Some(Value::Array(costs)), Some(_)) if !costs.is_empty() => {
            (Some(erased::Costs::Rest(&costs[1..])), Some(&costs[0]))
        }
        (Some(t), _) => (Some(erased::Costs::Whole(t)), None),
        (None, _) => (None, None),
    };
    if let Some(m) = &budget.max_messages {
        member(&mut out, "maxMessages", m);
    }
    if let Some(m) = &budget.max_tokens {
        member(&mut out, "maxTokens", m);
    }
    if let Some(t) = &tokens {
        member(&mut out, "tokens", t);
    }
    if let Some(c) = &budget.count_pinned {
        member(&mut out, "countPinned", c);
    }
    let rest_at = out.len();
    if let Some(copied) = copied {
        // `copied` begins with the `{` or `,` before its first member.
        out.push(if out.is_empty() { b'{' } else { b',' });
        out.extend_from_slice(&copied[1..]);
        return (String::from_utf8(out).expect("JSON text is UTF-8"), rest_at);
    }
    if let (Some(s), Some(key)) = (system, format.system_member()) {
        member(&mut out, key, s);
        if let Some(c) = system_tokens {
            member(&mut out, "systemTokens", c);
        }
    }
    member(&mut out, "messages", &erased::Array(rest));
    if let Some(s) = summary {
        member(&mut out, "summary", &Value::Bool(true));
        if budget.max_tokens.is_some() {
            member(&mut out, "summaryTokens", &Value::from(s));
        }
    }
    out.push(b'}');
    (String::from_utf8(out).expect("JSON text is UTF-8"), rest_at)
}

/// A request the runner sends, from borrowed parts (the arguments of
/// [`request`]): its text is written once, when first asked for
/// ([`request_text`]; a request sent twice is written once), and its
/// object is built only for a session that reads one.
#[derive(Debug)]
pub struct OutgoingRequest<'a> {
    /// The wire format of `messages`.
    pub format: Format,
    /// The budget members, as sent.
    pub budget: &'a BudgetFields,
    /// The summary member's cost, when summaries are allowed.
    pub summary: Option<u64>,
    /// The kit's message list (see [`request`]).
    pub messages: &'a [Value],
    /// The text and where its members after the budget's begin.
    text: std::cell::OnceCell<(String, usize)>,
}

impl<'a> OutgoingRequest<'a> {
    /// The request of [`request`]`(format, budget, summary, messages)`.
    pub fn new(
        format: Format,
        budget: &'a BudgetFields,
        summary: Option<u64>,
        messages: &'a [Value],
    ) -> OutgoingRequest<'a> {
        OutgoingRequest {
            format,
            budget,
            summary,
            messages,
            text: std::cell::OnceCell::new(),
        }
    }

    /// Its JSON text (one line, no newline).
    pub fn text(&self) -> &str {
        &self.written().0
    }

    fn written(&self) -> &(String, usize) {
        self.text.get_or_init(|| {
            write_request(self.format, self.budget, self.summary, self.messages, None)
        })
    }

    /// The same request with the budget members `budget` (the request with
    /// a smaller budget that `budget-monotone` needs). When the costs
    /// (`tokens`) are the same and `maxTokens` is in both or neither, its
    /// text is this one's with other budget members, the messages copied
    /// rather than written again.
    pub fn with_budget<'b>(&'b self, budget: &'b BudgetFields) -> OutgoingRequest<'b> {
        let other = OutgoingRequest::new(self.format, budget, self.summary, self.messages);
        if budget.tokens != self.budget.tokens
            || budget.max_tokens.is_some() != self.budget.max_tokens.is_some()
        {
            return other;
        }
        let (text, rest_at) = self.written();
        let written = write_request(
            self.format,
            budget,
            self.summary,
            self.messages,
            Some(&text.as_bytes()[*rest_at..]),
        );
        other
            .text
            .set(written)
            .expect("a new request has no text yet");
        other
    }

    /// Its JSON object ([`request`]).
    pub fn to_value(&self) -> Value {
        request(self.format, self.budget, self.summary, self.messages)
    }
}

/// The values [`request_text`] writes, borrowed.
mod erased {
    use serde_json::Value;

    /// Something written as JSON text.
    pub(super) trait Json {
        fn write(&self, out: &mut Vec<u8>);
    }

    impl Json for Value {
        fn write(&self, out: &mut Vec<u8>) {
            serde_json::to_writer(out, self).expect("writing to a Vec cannot fail");
        }
    }

    /// An array, borrowed.
    pub(super) struct Array<'a>(pub &'a [Value]);

    impl Json for Array<'_> {
        fn write(&self, out: &mut Vec<u8>) {
            serde_json::to_writer(out, self.0).expect("writing to a Vec cannot fail");
        }
    }

    /// `tokens`: the member as given, or an array's entries after the
    /// system prompt's.
    pub(super) enum Costs<'a> {
        Whole(&'a Value),
        Rest(&'a [Value]),
    }

    impl Json for Costs<'_> {
        fn write(&self, out: &mut Vec<u8>) {
            match self {
                Costs::Whole(v) => v.write(out),
                Costs::Rest(r) => Array(r).write(out),
            }
        }
    }
}

/// Reads a protocol v1 response object in `format`. In a format with a
/// top-level system prompt, that member (`system`, `systemInstruction`)
/// becomes the leading system pseudo-message.
///
/// # Errors
///
/// As [`Response::from_json`].
pub fn response_from_json(format: Format, value: &Value) -> Result<Response, ResponseError> {
    let response = Response::from_json(value)?;
    match (format.system_member(), response) {
        (Some(key), Response::Messages(m)) => {
            let system = value.get(key).cloned();
            Ok(Response::Messages(join_system(system, m)))
        }
        (_, r) => Ok(r),
    }
}

/// [`response_from_json`] of a response object the caller no longer needs:
/// its messages are moved out, not copied (the runner reads every answer
/// this way).
///
/// # Errors
///
/// As [`Response::from_json`].
pub fn response_from_value(format: Format, value: Value) -> Result<Response, ResponseError> {
    let Value::Object(mut obj) = value else {
        return Err(ResponseError::NotAnObject);
    };
    match (
        obj.get("messages"),
        obj.get("error"),
        obj.get("unsupported"),
    ) {
        (Some(Value::Array(_)), None, None)
        | (None, Some(Value::String(_)), None)
        | (None, None, Some(Value::String(_))) => {}
        // The borrowing reader names what is wrong.
        _ => return Response::from_json(&Value::Object(obj)),
    }
    if let Some(Value::String(e)) = obj.remove("error") {
        return Ok(Response::Error(e));
    }
    if let Some(Value::String(u)) = obj.remove("unsupported") {
        return Ok(Response::Unsupported(u));
    }
    let Some(Value::Array(m)) = obj.remove("messages") else {
        unreachable!("checked above: an array of messages")
    };
    let system = format.system_member().and_then(|key| obj.remove(key));
    Ok(Response::Messages(match format.system_member() {
        Some(_) => join_system(system, m),
        None => m,
    }))
}

/// A request a reducer cannot read. Its message is what `reducer-kit
/// serve` answers with (`{"error": "..."}`).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RequestError {
    /// The request text is not JSON.
    #[error("the request is not JSON: {0}")]
    NotJson(#[from] serde_json::Error),
    /// No `messages` array.
    #[error("the request has no `messages` array")]
    NoMessages,
}

/// A request as a reducer reads it (the reducer's side of [`request`]).
#[derive(Clone, Debug, PartialEq)]
pub struct IncomingRequest {
    /// `maxMessages` as received (`null` when absent), for
    /// [`crate::terms::Budget::parse`]: what a protocol 1 reducer reads.
    pub max_messages: Value,
    /// Every budget member as received, for
    /// [`crate::terms::Budget::read`]: what a protocol 2 reducer reads.
    /// `tokens` covers the kit's list: `systemTokens` first when the
    /// top-level system prompt is there and `tokens` is an array (without
    /// `systemTokens` the array is one short, which is not a budget).
    pub budget: BudgetFields,
    /// The kit's message list: in a format with a top-level system prompt,
    /// that member as the leading pseudo-message.
    pub messages: Vec<Value>,
}

/// Puts the system prompt's cost `system_tokens` (a request's
/// `systemTokens`) first in the costs `tokens` (its `tokens` array), so that
/// they cover the kit's list, system pseudo-message first (spec §13.1,
/// §14). Does nothing when either is missing or `tokens` is no array.
pub fn lead_with_system_cost(tokens: Option<&mut Value>, system_tokens: Option<Value>) {
    if let (Some(Value::Array(costs)), Some(first)) = (tokens, system_tokens) {
        costs.insert(0, first);
    }
}

/// Reads a request object in `format`: the reducer's half of [`request`].
///
/// # Errors
///
/// [`RequestError::NoMessages`] when it has no `messages` array.
pub fn request_from_json(format: Format, request: &Value) -> Result<IncomingRequest, RequestError> {
    let messages = request
        .get("messages")
        .and_then(Value::as_array)
        .ok_or(RequestError::NoMessages)?;
    let member = |k: &str| request.get(k).cloned();
    let max_messages = member("maxMessages").unwrap_or(Value::Null);
    let system = format.system_member().and_then(member);
    let mut tokens = member("tokens");
    if system.is_some() {
        lead_with_system_cost(tokens.as_mut(), member("systemTokens"));
    }
    let budget = BudgetFields {
        max_messages: member("maxMessages"),
        max_tokens: member("maxTokens"),
        tokens,
        count_pinned: member("countPinned"),
    };
    let messages = match system {
        Some(_) => join_system(system, messages.clone()),
        None => messages.clone(),
    };
    Ok(IncomingRequest {
        max_messages,
        budget,
        messages,
    })
}

/// The protocol v1 object a reducer answers with in `format`: the
/// reducer's half of [`response_from_json`] (`{"system"?, "messages"}` or
/// `{"error"}`).
pub fn response_json(format: Format, response: &Response) -> Value {
    match response {
        Response::Messages(m) => Value::Object(envelope(format, m)),
        Response::Error(_) | Response::Unsupported(_) => response.to_json(),
    }
}

/// A protocol 2 request's `id` (spec §13.7): the number the runner
/// gives each request it sends, which the answer echoes.
pub type RequestId = u64;

/// `text` (a request's JSON text, an object: it starts with `{`) with the
/// member `"id": id` first, as protocol 2 sends it (spec §13.7).
///
/// # Examples
///
/// ```
/// use reducer_kit::protocol::with_id;
/// assert_eq!(with_id(r#"{"maxMessages":2,"messages":[]}"#, 17), r#"{"id":17,"maxMessages":2,"messages":[]}"#);
/// ```
pub fn with_id(text: &str, id: RequestId) -> String {
    let rest = text.strip_prefix('{').unwrap_or(text);
    let mut out = String::with_capacity(text.len() + 24);
    out.push_str("{\"id\":");
    out.push_str(&id.to_string());
    if rest.trim_start() != "}" {
        out.push(',');
    }
    out.push_str(rest);
    out
}

/// How an answer's `id` member compares with the request's (spec
/// §13.7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdEcho {
    /// The answer's `id` is the request's.
    Same,
    /// The answer has no `id` member.
    Missing,
    /// The answer's `id` is another value (an earlier request's, or no
    /// request's).
    Other,
}

/// Whether the answer object `value` echoes the request id `id`: its `id`
/// member is the number `id` as the kit wrote it, the same digits (`17`;
/// not `17.0`, `17e0`, `"17"` or 2^64 + 17; spec §13.7).
///
/// # Examples
///
/// ```
/// use reducer_kit::protocol::{id_echo, IdEcho};
/// let echo = |t: &str| id_echo(&serde_json::from_str(t).unwrap(), 17);
/// assert_eq!(echo(r#"{"id":17,"messages":[]}"#), IdEcho::Same);
/// assert_eq!(echo(r#"{"id":17.0,"messages":[]}"#), IdEcho::Other);
/// assert_eq!(echo(r#"{"id":17e0,"messages":[]}"#), IdEcho::Other);
/// assert_eq!(echo(r#"{"id":"17","messages":[]}"#), IdEcho::Other);
/// assert_eq!(echo(r#"{"messages":[]}"#), IdEcho::Missing);
/// ```
pub fn id_echo(value: &Value, id: RequestId) -> IdEcho {
    match value.get("id") {
        None => IdEcho::Missing,
        Some(Value::Number(n)) if n.to_string() == id.to_string() => IdEcho::Same,
        Some(_) => IdEcho::Other,
    }
}

/// The answer `response` to the request numbered `id` (protocol 2; `None`
/// under protocol 1), as the JSON object a reducer writes: `id` first,
/// then [`response_json`]'s members.
pub fn response_json_with_id(format: Format, response: &Response, id: Option<&Value>) -> Value {
    let body = response_json(format, response);
    match (id, body) {
        (Some(id), Value::Object(members)) => {
            let mut out = serde_json::Map::with_capacity(members.len() + 1);
            out.insert("id".into(), id.clone());
            out.extend(members);
            Value::Object(out)
        }
        (_, body) => body,
    }
}

#[cfg(test)]
mod tests;
