//! The runner protocol v1 envelope (semantics §8), both halves: the request
//! the runner sends (`{"maxMessages", "messages"}`) and the [`Response`] a
//! reducer gives (`{"messages"}` or `{"error"}`), as the runner
//! ([`crate::certify`]) writes and reads them and as `reducer-kit serve`
//! reads and writes them.
//!
//! Inside the kit a history is a list of messages. In the Anthropic format
//! the request's and the response's top-level `system` travels in that list
//! as a leading pseudo-message ([`crate::formats::anthropic::system_message`]);
//! [`split_system`] and [`join_system`] go between the two.

use crate::formats::{anthropic, Format};
use crate::json::json_eq;
use serde_json::{json, Value};

/// A reducer's answer to one request.
#[derive(Clone, Debug, PartialEq)]
pub enum Response {
    /// `{"messages": [...]}`: the reduced history, in the request's format.
    Messages(Vec<Value>),
    /// `{"error": "..."}`: the reducer rejected the request.
    Error(String),
}

/// A response that is not a protocol v1 response object (clause
/// `protocol-json`). Messages are lowercase.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ResponseError {
    /// Not a JSON object.
    #[error("the response is not a JSON object")]
    NotAnObject,
    /// Both members.
    #[error("the response has both `messages` and `error`")]
    Both,
    /// `messages` but not an array.
    #[error("`messages` is not an array")]
    MessagesNotArray,
    /// `error` but not a string.
    #[error("`error` is not a string")]
    ErrorNotString,
    /// Neither member.
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
        match (obj.get("messages"), obj.get("error")) {
            (Some(Value::Array(m)), None) => Ok(Response::Messages(m.clone())),
            (None, Some(Value::String(e))) => Ok(Response::Error(e.clone())),
            (Some(_), Some(_)) => Err(ResponseError::Both),
            (Some(_), None) => Err(ResponseError::MessagesNotArray),
            (None, Some(_)) => Err(ResponseError::ErrorNotString),
            (None, None) => Err(ResponseError::Neither),
        }
    }

    /// The response as a protocol v1 JSON object, its messages as they are
    /// (see [`response_json`] for the Anthropic `system`).
    pub fn to_json(&self) -> Value {
        match self {
            Response::Messages(m) => json!({ "messages": m }),
            Response::Error(e) => json!({ "error": e }),
        }
    }

    /// Whether two responses are the same: both errors (any text), or equal
    /// message arrays (semantics §1 equality).
    pub fn same_as(&self, other: &Response) -> bool {
        match (self, other) {
            (Response::Error(_), Response::Error(_)) => true,
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

/// `{"system"?, "messages"}` for the kit's message list in `format`: for
/// Anthropic, a leading system pseudo-message travels as `system`; the
/// caller adds the other members.
fn envelope(format: Format, messages: &[Value]) -> serde_json::Map<String, Value> {
    let mut out = serde_json::Map::new();
    match format {
        Format::Anthropic => {
            let (system, rest) = split_system(messages);
            if let Some(s) = system {
                out.insert("system".into(), s);
            }
            out.insert("messages".into(), Value::Array(rest));
        }
        _ => {
            out.insert("messages".into(), Value::Array(messages.to_vec()));
        }
    }
    out
}

/// The protocol v1 request for `messages` (the kit's list, in `format`)
/// with budget `max_messages` (as sent, possibly invalid on purpose):
/// `{"maxMessages", "system"?, "messages"}`.
pub fn request_json(format: Format, max_messages: &Value, messages: &[Value]) -> Value {
    let mut r = serde_json::Map::new();
    r.insert("maxMessages".into(), max_messages.clone());
    r.extend(envelope(format, messages));
    Value::Object(r)
}

/// Reads a protocol v1 response object in `format`. For Anthropic, a
/// top-level `system` member becomes the leading system pseudo-message.
///
/// # Errors
///
/// As [`Response::from_json`].
pub fn response_from_json(format: Format, value: &Value) -> Result<Response, ResponseError> {
    let response = Response::from_json(value)?;
    match (format, response) {
        (Format::Anthropic, Response::Messages(m)) => {
            let system = value.get("system").cloned();
            Ok(Response::Messages(join_system(system, m)))
        }
        (_, r) => Ok(r),
    }
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

/// A request as a reducer reads it (the reducer's side of
/// [`request_json`]).
#[derive(Clone, Debug, PartialEq)]
pub struct IncomingRequest {
    /// `maxMessages` as received (`null` when absent), for
    /// [`crate::terms::Budget::parse`].
    pub max_messages: Value,
    /// The kit's message list: for Anthropic, the top-level `system` as the
    /// leading pseudo-message.
    pub messages: Vec<Value>,
}

/// Reads a request object in `format`: the reducer's half of
/// [`request_json`].
///
/// # Errors
///
/// [`RequestError::NoMessages`] when it has no `messages` array.
pub fn request_from_json(format: Format, request: &Value) -> Result<IncomingRequest, RequestError> {
    let messages = request
        .get("messages")
        .and_then(Value::as_array)
        .ok_or(RequestError::NoMessages)?;
    let max_messages = request.get("maxMessages").cloned().unwrap_or(Value::Null);
    let messages = match format {
        Format::Anthropic => join_system(request.get("system").cloned(), messages.clone()),
        _ => messages.clone(),
    };
    Ok(IncomingRequest {
        max_messages,
        messages,
    })
}

/// The protocol v1 object a reducer answers with in `format`: the
/// reducer's half of [`response_from_json`] (`{"system"?, "messages"}` or
/// `{"error"}`).
pub fn response_json(format: Format, response: &Response) -> Value {
    match response {
        Response::Messages(m) => Value::Object(envelope(format, m)),
        Response::Error(_) => response.to_json(),
    }
}
