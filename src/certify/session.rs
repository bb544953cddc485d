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
//! The runner ([`super::run`]) drives any of them the same way, one
//! exchange at a time: [`Session::settle`] before each exchange and
//! [`Session::close`] at the end give the unrequested output a persistent
//! reducer wrote after an answer (spec §8.3), charged to the exchange it
//! followed. A new kind of session (a hardened sandbox, a network reducer)
//! is a new implementation of the trait.

use super::process::{self, run_once, Failure, Limits, Reducer, Unrequested};
use crate::formats::Format;
use crate::protocol::{
    request_from_json, response_from_value, response_json, OutgoingRequest, Protocol, Response,
};
use crate::reduce::{respond_request_with, respond_with};
use crate::terms::{Clause, Policy, Provider};
use serde_json::Value;

/// Why a run stops before its end.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// The reducer cannot be started at all (the operating system's
    /// message).
    #[error("cannot run the reducer: {0}")]
    Start(String),
    /// The kit was stopped by this signal (SIGINT, SIGTERM; spec §8.7).
    #[error("interrupted by {}", signal_text(*.0))]
    Interrupted(i32),
}

/// `SIGINT`, or `signal 40` for a signal without a name.
pub fn signal_text(signal: i32) -> String {
    process::signal_name(signal).map_or_else(|| format!("signal {signal}"), str::to_string)
}

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
    fn exchange(&mut self, request: &OutgoingRequest) -> Result<Exchange, RunError>;

    /// [`Session::exchange`], except that an answer written byte for byte
    /// as the answer of the session's previous exchange (which must have
    /// been a response, not a failure) is not read again: `Ok(None)`, that
    /// response stands. Most reducers answer the repeated request, and
    /// their output sent back, with the same bytes; the runner
    /// ([`super::run`]) then copies the response it already has. A session
    /// that keeps no answers reads every one (the default).
    ///
    /// # Errors
    ///
    /// As [`Session::exchange`].
    fn exchange_unless_same(
        &mut self,
        request: &OutgoingRequest,
    ) -> Result<Option<Exchange>, RunError> {
        self.exchange(request).map(Some)
    }

    /// Output the reducer wrote after the answer of an earlier exchange
    /// that no request asked for, found since the last call (without
    /// waiting): a `protocol-json` failure of the exchange it followed
    /// (spec §8.3). Call it before each exchange to charge it to the right
    /// one. Per-case and in-process sessions never have any.
    fn settle(&mut self) -> Option<ProtocolFailure> {
        None
    }

    /// Ends the session (a persistent reducer's stdin is closed and it is
    /// given a moment to exit); like [`Session::settle`], the unrequested
    /// output found, which followed the last exchange.
    fn close(&mut self) -> Option<ProtocolFailure> {
        None
    }

    /// How many times the session started its reducer again, and how many
    /// of those followed a clean exit (spec §8.3).
    fn restarts(&self) -> Restarts {
        Restarts::default()
    }
}

/// A session's reducer restarts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Restarts {
    /// New processes started after the first.
    pub total: usize,
    /// Of those, the ones after a clean exit (status 0, between requests).
    pub clean_exits: usize,
}

impl std::ops::AddAssign for Restarts {
    fn add_assign(&mut self, other: Restarts) {
        self.total += other.total;
        self.clean_exits += other.clean_exits;
    }
}

/// Unrequested output as a `protocol-json` failure.
fn unrequested_failure(u: Unrequested) -> ProtocolFailure {
    ProtocolFailure {
        clause: Clause::ProtocolJson,
        detail: u.to_string(),
        stderr_tail: String::new(),
    }
}

/// How many characters of what a reducer wrote a `protocol-json` failure
/// shows.
pub const WRITTEN_SHOWN: usize = 300;

/// What the reducer wrote, for a `protocol-json` failure: the first
/// [`WRITTEN_SHOWN`] characters (invalid UTF-8 replaced), quoted as a JSON
/// string, then `... (N bytes)` when it was longer (the report escapes it
/// for the terminal when printed).
fn written(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    match text.char_indices().nth(WRITTEN_SHOWN) {
        Some((i, _)) => format!(
            "{}... ({} bytes)",
            Value::String(text[..i].to_string()),
            bytes.len()
        ),
        None => Value::String(text.into_owned()).to_string(),
    }
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
        Some(Failure::Spawn(e)) => return Err(RunError::Start(e)),
        Some(Failure::Interrupted(s)) => return Err(RunError::Interrupted(s)),
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
                format!(
                    "the response is not UTF-8 ({e}); it wrote {}",
                    written(&reply.stdout)
                ),
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
                format!(
                    "the response is not JSON: {e}; it wrote {}",
                    written(&reply.stdout)
                ),
            )
        }
    };
    match response_from_value(format, value) {
        Ok(r) => Ok(Ok(r)),
        Err(e) => fail(
            Clause::ProtocolJson,
            format!("{e}; it wrote {}", written(&reply.stdout)),
        ),
    }
}

/// Per-case mode: every request starts the reducer `argv` anew, writes the
/// request and a newline to its stdin, closes it, and reads all of stdout.
#[derive(Clone, Debug)]
pub struct PerCaseSession<'a> {
    reducer: &'a Reducer,
    format: Format,
    limits: Limits,
}

impl<'a> PerCaseSession<'a> {
    /// A session running `reducer` (directly, never through a shell) in
    /// `format` within `limits`.
    pub fn new(reducer: &'a Reducer, format: Format, limits: Limits) -> PerCaseSession<'a> {
        PerCaseSession {
            reducer,
            format,
            limits,
        }
    }
}

impl Session for PerCaseSession<'_> {
    fn exchange(&mut self, request: &OutgoingRequest) -> Result<Exchange, RunError> {
        let mut input = String::with_capacity(request.text().len() + 1);
        input.push_str(request.text());
        input.push('\n');
        interpret(
            self.format,
            run_once(self.reducer, input.as_bytes(), &self.limits),
        )
    }
}

/// Persistent mode: one reducer process, started at the first request,
/// one request line in and one response line out (restarted after a
/// failure, see [`process::Persistent`]).
#[derive(Debug)]
pub struct PersistentSession<'a> {
    reducer: &'a Reducer,
    format: Format,
    limits: Limits,
    process: Option<process::Persistent>,
    /// The bytes of the previous exchange's answer, when it was a response
    /// ([`Session::exchange_unless_same`]).
    last: Option<Vec<u8>>,
}

impl<'a> PersistentSession<'a> {
    /// A session that will run `reducer` (directly, never through a shell)
    /// in `format` within `limits`; nothing starts before the first
    /// request.
    pub fn new(reducer: &'a Reducer, format: Format, limits: Limits) -> PersistentSession<'a> {
        PersistentSession {
            reducer,
            format,
            limits,
            process: None,
            last: None,
        }
    }
}

impl PersistentSession<'_> {
    /// One request and its answer: `None` when `unless_same` and the answer
    /// is the previous one's bytes.
    fn send(
        &mut self,
        request: &OutgoingRequest,
        unless_same: bool,
    ) -> Result<Option<Exchange>, RunError> {
        let process = match &mut self.process {
            Some(p) => p,
            None => self.process.insert(
                process::Persistent::start(self.reducer, self.limits)
                    .map_err(|e| RunError::Start(process::start_error(self.reducer, &e)))?,
            ),
        };
        let reply = process.request(request.text().as_bytes());
        let same = reply.failure.is_none() && self.last.as_deref() == Some(&reply.stdout[..]);
        if unless_same && same {
            return Ok(None);
        }
        let bytes = (reply.failure.is_none() && !same).then(|| reply.stdout.clone());
        let exchange = interpret(self.format, reply)?;
        match (exchange.is_ok(), bytes) {
            (false, _) => self.last = None,
            (true, Some(bytes)) => self.last = Some(bytes),
            (true, None) => {}
        }
        Ok(Some(exchange))
    }
}

impl Session for PersistentSession<'_> {
    fn exchange(&mut self, request: &OutgoingRequest) -> Result<Exchange, RunError> {
        Ok(self
            .send(request, false)?
            .expect("an answer is read when it may not be left unread"))
    }

    fn exchange_unless_same(
        &mut self,
        request: &OutgoingRequest,
    ) -> Result<Option<Exchange>, RunError> {
        self.send(request, true)
    }

    fn settle(&mut self) -> Option<ProtocolFailure> {
        self.process.as_mut()?.settle().map(unrequested_failure)
    }

    fn close(&mut self) -> Option<ProtocolFailure> {
        self.process.as_mut()?.close().map(unrequested_failure)
    }

    fn restarts(&self) -> Restarts {
        self.process
            .as_ref()
            .map_or_else(Restarts::default, |p| Restarts {
                total: p.restarts(),
                clean_exits: p.clean_exits(),
            })
    }
}

/// The kit's reference reducer of `policy`, in process, as a session: what
/// `reducer-kit serve` answers with. It never fails the protocol, and never
/// summarizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReferenceSession {
    /// The policy it reduces with.
    pub policy: Policy,
    /// The wire format of requests and responses.
    pub format: Format,
    /// The provider profile it honours (spec v2 §15.4), if any.
    pub provider: Option<Provider>,
    /// The runner protocol it reads: protocol 1 reads `maxMessages` only
    /// (a token budget is then no budget); protocol 2 reads every budget
    /// member (spec v2 §11.2, §13.1).
    pub protocol: Protocol,
}

impl ReferenceSession {
    /// The reference's answer to a request object: its reduction, or an
    /// error response (bad budget, unreadable messages, no `messages`).
    pub fn respond(&self, request: &Value) -> Response {
        match request_from_json(self.format, request) {
            Ok(r) => match self.protocol {
                Protocol::V1 => respond_with(
                    self.policy,
                    self.format,
                    &r.max_messages,
                    &r.messages,
                    self.provider,
                ),
                Protocol::V2 => respond_request_with(
                    self.policy,
                    self.format,
                    &r.budget,
                    &r.messages,
                    self.provider,
                ),
            },
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
    fn exchange(&mut self, request: &OutgoingRequest) -> Result<Exchange, RunError> {
        Ok(Ok(self.respond(&request.to_value())))
    }
}
