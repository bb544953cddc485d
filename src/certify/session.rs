//! One reducer to talk to (runner protocol v1, semantics §8): a
//! [`Session`] exchanges one request for one response, or for the protocol
//! failure that took its place.
//!
//! | session | what answers |
//! |---------|--------------|
//! | [`PerCaseSession`] | a new reducer process per request (§8.2), [`process::run_once`] |
//! | [`PersistentSession`] | one long-lived reducer process speaking JSON Lines (§8.3), [`process::Persistent`], restarted after a failure |
//! | [`ReferenceSession`] | the kit's reference reducer, in process (what `reducer-kit serve` runs) |
//!
//! The runner ([`super::run`]) drives any of them the same way; a new kind
//! of session (a hardened sandbox, a network reducer) is a new
//! implementation of the trait.

use super::process::{self, run_once, Failure, Limits};
use crate::formats::Format;
use crate::protocol::{request_from_json, response_from_json, response_json, Response};
use crate::reduce::respond;
use crate::terms::{Clause, Policy};
use serde_json::Value;
use std::ffi::OsString;

/// A fatal problem: the reducer cannot be started at all. The run stops.
#[derive(Debug, thiserror::Error)]
#[error("cannot run the reducer: {0}")]
pub struct RunError(pub String);

/// A protocol failure in place of a response (semantics §8.5): the clause
/// it fails (`protocol-json`, `protocol-timeout`, `protocol-crash` or
/// `protocol-size`), what happened, and the reducer's stderr tail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProtocolFailure {
    /// The protocol clause that fails.
    pub clause: Clause,
    /// What happened, lowercase.
    pub detail: String,
    /// The last bytes the reducer wrote to stderr for this request.
    pub stderr_tail: String,
}

/// What one exchange gives: the reducer's response, or the protocol
/// failure in its place.
pub type Exchange = Result<Response, ProtocolFailure>;

/// One reducer that answers protocol v1 requests.
pub trait Session {
    /// Sends `request` (a protocol v1 request object,
    /// [`crate::protocol::request_json`]) and waits for the answer.
    ///
    /// # Errors
    ///
    /// [`RunError`] when the reducer cannot be run at all; a reducer that
    /// runs but misbehaves gives an [`Exchange`] with a
    /// [`ProtocolFailure`].
    fn exchange(&mut self, request: &Value) -> Result<Exchange, RunError>;
}

/// Turns a reply into a response or a protocol failure.
fn interpret(format: Format, reply: process::Reply) -> Result<Exchange, RunError> {
    let fail = |clause, detail: String| {
        Ok(Err(ProtocolFailure {
            clause,
            detail,
            stderr_tail: reply.stderr_tail.clone(),
        }))
    };
    match reply.failure {
        Some(Failure::Spawn(e)) => return Err(RunError(e)),
        Some(Failure::Timeout) => {
            return fail(
                Clause::ProtocolTimeout,
                "no response within the time limit".into(),
            )
        }
        Some(Failure::TooLarge) => {
            return fail(
                Clause::ProtocolSize,
                "the response exceeds the output size limit".into(),
            )
        }
        Some(Failure::Crash { status }) => {
            return fail(
                Clause::ProtocolCrash,
                format!("the reducer crashed: {status}"),
            )
        }
        None => {}
    }
    let text = match std::str::from_utf8(&reply.stdout) {
        Ok(t) => t,
        Err(e) => {
            return fail(
                Clause::ProtocolJson,
                format!("the response is not UTF-8 ({e})"),
            )
        }
    };
    if text.trim().is_empty() {
        return fail(Clause::ProtocolJson, "the reducer wrote no response".into());
    }
    let value: Value = match serde_json::from_str(text.trim()) {
        Ok(v) => v,
        Err(e) => {
            return fail(
                Clause::ProtocolJson,
                format!("the response is not JSON: {e}"),
            )
        }
    };
    match response_from_json(format, &value) {
        Ok(r) => Ok(Ok(r)),
        Err(e) => fail(Clause::ProtocolJson, e.to_string()),
    }
}

/// Per-case mode: every request starts the reducer `argv` anew, writes the
/// request and a newline to its stdin, closes it, and reads all of stdout.
#[derive(Clone, Debug)]
pub struct PerCaseSession<'a> {
    argv: &'a [OsString],
    format: Format,
    limits: Limits,
}

impl<'a> PerCaseSession<'a> {
    /// A session running `argv` (directly, never through a shell) in
    /// `format` within `limits`.
    pub fn new(argv: &'a [OsString], format: Format, limits: Limits) -> PerCaseSession<'a> {
        PerCaseSession {
            argv,
            format,
            limits,
        }
    }
}

impl Session for PerCaseSession<'_> {
    fn exchange(&mut self, request: &Value) -> Result<Exchange, RunError> {
        let mut input = request.to_string();
        input.push('\n');
        interpret(
            self.format,
            run_once(self.argv, input.as_bytes(), &self.limits),
        )
    }
}

/// Persistent mode: one reducer process, started at the first request,
/// one request line in and one response line out (restarted after a
/// failure, see [`process::Persistent`]).
#[derive(Debug)]
pub struct PersistentSession<'a> {
    argv: &'a [OsString],
    format: Format,
    limits: Limits,
    process: Option<process::Persistent>,
}

impl<'a> PersistentSession<'a> {
    /// A session that will run `argv` (directly, never through a shell) in
    /// `format` within `limits`; nothing starts before the first request.
    pub fn new(argv: &'a [OsString], format: Format, limits: Limits) -> PersistentSession<'a> {
        PersistentSession {
            argv,
            format,
            limits,
            process: None,
        }
    }
}

impl Session for PersistentSession<'_> {
    fn exchange(&mut self, request: &Value) -> Result<Exchange, RunError> {
        if self.process.is_none() {
            let p = process::Persistent::start(self.argv, self.limits)
                .map_err(|e| RunError(e.to_string()))?;
            self.process = Some(p);
        }
        let reply = self
            .process
            .as_mut()
            .expect("started above")
            .request(request.to_string().as_bytes());
        interpret(self.format, reply)
    }
}

/// The kit's reference reducer of `policy`, in process, as a session: what
/// `reducer-kit serve` answers with. It never fails the protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReferenceSession {
    /// The policy it reduces with.
    pub policy: Policy,
    /// The wire format of requests and responses.
    pub format: Format,
}

impl ReferenceSession {
    /// The reference's answer to a request object: its reduction, or an
    /// error response (bad budget, unreadable messages, no `messages`).
    pub fn respond(&self, request: &Value) -> Response {
        match request_from_json(self.format, request) {
            Ok(r) => respond(self.policy, self.format, &r.max_messages, &r.messages),
            Err(e) => Response::Error(e.to_string()),
        }
    }

    /// The answer to one request text, as the protocol v1 object to write
    /// back: `{"system"?, "messages"}` or `{"error"}` (also for text that is
    /// not JSON).
    pub fn answer(&self, text: &str) -> Value {
        let response = match serde_json::from_str::<Value>(text) {
            Ok(request) => self.respond(&request),
            Err(e) => Response::Error(crate::protocol::RequestError::NotJson(e).to_string()),
        };
        response_json(self.format, &response)
    }
}

impl Session for ReferenceSession {
    fn exchange(&mut self, request: &Value) -> Result<Exchange, RunError> {
        Ok(Ok(self.respond(request)))
    }
}
