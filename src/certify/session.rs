//! The sessions that answer a run (runner protocol, spec §8): each
//! implements [`Session`] ([`super::exchange`]), exchanging one request
//! for one response, or for the protocol failure that took its place.
//!
//! | session | what answers |
//! |---------|--------------|
//! | [`PerCaseSession`] | a new reducer process per request (§8.2), [`process::run_once`] |
//! | [`PersistentSession`] | one long-lived reducer process speaking JSON Lines (§8.3), [`process::Persistent`], restarted after a failure |
//! | [`ReferenceSession`] | the kit's reference reducer, in process (what `reducer-kit serve` runs) |
//! | [`InProcessSession`] | a function in the kit's own process, from a request's text to its answer's text (a binding's reducer: the Python package's `certify(fn)`) |
//!
//! [`Settings::session`] makes a worker's session from the run's
//! settings. The runner ([`super::run`]) drives any of them the same way,
//! one exchange at a time: [`Session::settle`] before each exchange and
//! [`Session::close`] at the end give the unrequested output a persistent
//! reducer wrote after an answer (spec §8.3), charged to the exchange it
//! followed. A new kind of session (a hardened sandbox, a network reducer)
//! is a new implementation of the trait; a run is given one through
//! [`Sessions`] ([`super::job::Job::with_sessions`]).
//!
//! The trait and the data of an exchange live in [`super::exchange`],
//! below the settings; they are re-exported here.

pub use super::exchange::{
    signal_text, Bounds, Exchange, ProtocolFailure, Restarts, RunError, Session, STARTUP_PROBES,
    STARTUP_PROBE_EVERY,
};
use super::process::{self, Failure, Unrequested};
#[cfg(feature = "process")]
use super::process::{run_once, Limits, Reducer};
use super::settings::{Sessions, Settings};
use crate::formats::Format;
use crate::protocol::{
    id_echo, request_from_json, response_from_value, response_json, response_json_with_id, with_id,
    IdEcho, OutgoingRequest, Protocol, RequestId, Response,
};
use crate::reduce::{Input, Reference};
use crate::terms::{Clause, Policy, Provider};
use serde_json::Value;

/// Unrequested output as a `protocol-json` failure.
#[cfg_attr(not(feature = "process"), allow(dead_code))]
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
/// A note, "(`Infinity` is not JSON: ...)", when the JSON error `e` in `text` is at
/// `Infinity`, `-Infinity` or `NaN` (what a JSON writer that allows them
/// writes for a number read as a double beyond the doubles' range), else
/// empty.
fn not_a_number_at(text: &str, e: &serde_json::Error) -> String {
    let Some(line) = text.lines().nth(e.line().saturating_sub(1)) else {
        return String::new();
    };
    // serde_json's column is 1-based and points at or just after the
    // first byte it could not read.
    let at = e.column().saturating_sub(1).min(line.len());
    let bytes = line.as_bytes();
    let found = (at.saturating_sub(2)..=at).find_map(|i| {
        ["-Infinity", "Infinity", "NaN"]
            .into_iter()
            .find(|w| bytes.get(i..).is_some_and(|b| b.starts_with(w.as_bytes())))
    });
    match found {
        Some(w) => format!(" (`{w}` is not JSON: a number read as a double and written back)"),
        None => String::new(),
    }
}

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

/// What a line read while the request numbered `id` is in flight is
/// (spec §13.7).
#[cfg_attr(not(feature = "process"), allow(dead_code))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Line {
    /// The answer, echoing the request's id as the kit wrote it.
    Echo,
    /// The answer, without the request's id (none, another, a string, a
    /// number written otherwise): [`interpret`] fails it.
    Astray,
    /// The answer, failed as [`Line::Astray`], whose id is, as written,
    /// that of an earlier request that got its answer: a copy of that
    /// answer written late, or an answer one id behind, which no rule
    /// can tell apart without a wait. The process is out of step (an
    /// answer it still owes would be read as a later request's) and is
    /// restarted after it.
    Behind,
    /// No answer to the request in flight: a line that is not JSON and
    /// does not hold `"id":<id>` (a debug print), or JSON that is not an
    /// object.
    Stray,
}

/// Reads what `line` is while the request numbered `id` is in flight;
/// `answered(n)`: whether the earlier request `n` got an answer that
/// echoed its id (which makes a line with id `n` [`Line::Behind`]). Only
/// the line's `id` member is taken out of it.
#[cfg_attr(not(feature = "process"), allow(dead_code))]
fn classify(line: &[u8], id: RequestId, answered: &dyn Fn(RequestId) -> bool) -> Line {
    #[derive(serde::Deserialize)]
    struct IdOnly<'a> {
        #[serde(borrow)]
        id: Option<&'a serde_json::value::RawValue>,
    }
    // Not JSON: the answer gone wrong when it holds `"id":<id>`, else a
    // debug print.
    let not_json = || {
        let needle = format!("\"id\":{id}");
        let holds = memchr::memmem::find_iter(line, needle.as_bytes())
            .any(|at| !line.get(at + needle.len()).is_some_and(u8::is_ascii_digit));
        if holds {
            Line::Astray
        } else {
            Line::Stray
        }
    };
    if line.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        // JSON but not an object (a number, a string: a debug print), or
        // not JSON.
        return match serde_json::from_slice::<serde::de::IgnoredAny>(line) {
            Ok(_) => Line::Stray,
            Err(_) => not_json(),
        };
    }
    match serde_json::from_slice::<IdOnly>(line) {
        Ok(IdOnly { id: Some(raw) }) => {
            let text = raw.get();
            let written = |n: RequestId| text == n.to_string();
            if written(id) {
                Line::Echo
            } else if text.bytes().all(|b| b.is_ascii_digit())
                && text
                    .parse::<RequestId>()
                    .is_ok_and(|n| n < id && written(n) && answered(n))
            {
                Line::Behind
            } else {
                Line::Astray
            }
        }
        // An object without `id`, or whose members cannot be told apart
        // (a repeated `id`).
        Ok(IdOnly { id: None }) => Line::Astray,
        Err(e) if e.classify() == serde_json::error::Category::Data => Line::Astray,
        Err(_) => not_json(),
    }
}

/// Turns a reply into a response or a protocol failure; `id`: the
/// request's id, which a protocol 2 answer must echo (spec §13.7).
fn interpret(
    format: Format,
    reply: process::Reply,
    id: Option<RequestId>,
) -> Result<Exchange, RunError> {
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
                "no response within the time limit (--timeout; a persistent reducer reads each request as one line, not to the end of input, and writes each answer as one line, flushed)".into(),
            )
        }
        Some(Failure::NotReading) => {
            return fail(
                Clause::ProtocolTimeout,
                "the new process did not read its request within --startup-timeout and --timeout (spec §8.5: its worker grants no start-up allowance again)".into(),
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
                    "the response is not JSON: {e}{}; it wrote {}",
                    not_a_number_at(text.trim(), &e),
                    written(&reply.stdout)
                ),
            )
        }
    };
    match id.map(|id| (id, id_echo(&value, id))) {
        Some((id, IdEcho::Missing)) => {
            return fail(
                Clause::ProtocolJson,
                format!(
                    "the answer does not echo the request's `id` ({id}); it wrote {}",
                    written(&reply.stdout)
                ),
            )
        }
        Some((id, IdEcho::Other)) => {
            return fail(
                Clause::ProtocolJson,
                format!(
                    "the answer's `id` is not the request's ({id}); it wrote {}",
                    written(&reply.stdout)
                ),
            )
        }
        _ => {}
    }
    match response_from_value(format, value) {
        Ok(Response::Unsupported(_)) if id.is_none() => fail(
            Clause::ProtocolJson,
            format!(
                "`unsupported` is an answer of protocol 2 (certify --protocol 2), not 1; it wrote {}",
                written(&reply.stdout)
            ),
        ),
        Ok(r) => Ok(Ok(r)),
        Err(e) => fail(
            Clause::ProtocolJson,
            format!("{e}; it wrote {}", written(&reply.stdout)),
        ),
    }
}

/// The ids a session gives its requests: protocol 2 numbers them from 1
/// (spec §13.7), protocol 1 sends none.
#[derive(Clone, Copy, Debug)]
struct Ids(Option<RequestId>);

impl Ids {
    fn for_protocol(protocol: Protocol) -> Ids {
        Ids((protocol == Protocol::V2).then_some(1))
    }

    /// The next request's id, if requests carry one.
    fn take(&mut self) -> Option<RequestId> {
        let id = self.0?;
        self.0 = Some(id + 1);
        Some(id)
    }
}

/// `request`'s text as sent: with `"id"` first when it has one.
fn sent_text<'r>(
    request: &'r OutgoingRequest<'_>,
    id: Option<RequestId>,
) -> std::borrow::Cow<'r, str> {
    match id {
        Some(id) => std::borrow::Cow::Owned(with_id(request.text(), id)),
        None => std::borrow::Cow::Borrowed(request.text()),
    }
}

/// Per-case mode: every request starts the reducer `argv` anew, writes the
/// request and a newline to its stdin, closes it, and reads all of stdout.
#[derive(Clone, Debug)]
#[cfg(feature = "process")]
pub struct PerCaseSession<'a> {
    reducer: &'a Reducer,
    format: Format,
    limits: Limits,
    ids: Ids,
    bounds: Bounds,
    /// The processes started so far and their time ([`Restarts::per_request`]).
    started: Restarts,
    /// Whether the reducer's start-up is still being probed
    /// ([`Restarts::startup_probes`]): not after a probe that failed.
    probing: bool,
}

#[cfg(feature = "process")]
impl<'a> PerCaseSession<'a> {
    /// A session running `reducer` (directly, never through a shell) in
    /// `format` within `limits`, speaking protocol 1.
    pub fn new(reducer: &'a Reducer, format: Format, limits: Limits) -> PerCaseSession<'a> {
        PerCaseSession::speaking(reducer, format, limits, Protocol::V1)
    }

    /// [`PerCaseSession::new`] speaking `protocol`: under protocol 2 each
    /// request carries an `id` that its answer must echo (spec §13.7).
    pub fn speaking(
        reducer: &'a Reducer,
        format: Format,
        limits: Limits,
        protocol: Protocol,
    ) -> PerCaseSession<'a> {
        PerCaseSession {
            reducer,
            format,
            limits,
            ids: Ids::for_protocol(protocol),
            bounds: Bounds::default(),
            started: Restarts::default(),
            probing: true,
        }
    }
}

#[cfg(feature = "process")]
impl Session for PerCaseSession<'_> {
    fn exchange(&mut self, request: &OutgoingRequest) -> Result<Exchange, RunError> {
        let id = self.ids.take();
        let text = sent_text(request, id);
        let mut input = String::with_capacity(text.len() + 1);
        input.push_str(&text);
        input.push('\n');
        let limits = self.bounds.apply(self.limits, input.len());
        let start = std::time::Instant::now();
        let reply = run_once(self.reducer, input.as_bytes(), &limits);
        self.started.per_request += 1;
        self.started.per_request_time += start.elapsed();
        let exchange = interpret(self.format, reply, id);
        if self.probing
            && self.started.startup_probes < STARTUP_PROBES
            && self.started.per_request == STARTUP_PROBE_EVERY * (self.started.startup_probes + 1)
            && exchange.is_ok()
        {
            // Under the run's own load, as the requests around it.
            let mean = self.started.per_request_time
                / u32::try_from(self.started.per_request).unwrap_or(u32::MAX);
            if let Some(took) = process::startup_time(
                self.reducer,
                &self.limits,
                mean * 2 + std::time::Duration::from_millis(100),
            ) {
                self.started.startup_probes += 1;
                self.started.startup_time += took;
            } else {
                // Not measurable (it waits for a request, or cannot be
                // started): no estimate from this session.
                self.probing = false;
                self.started.startup_probes = 0;
                self.started.startup_time = std::time::Duration::ZERO;
            }
        }
        exchange
    }

    fn bound(&mut self, bounds: Bounds) {
        self.bounds = bounds;
    }

    fn restarts(&self) -> Restarts {
        self.started
    }
}

/// Persistent mode: one reducer process, started at the first request,
/// one request line in and one response line out (restarted after a
/// failure, see [`process::Persistent`]).
#[derive(Debug)]
#[cfg(feature = "process")]
pub struct PersistentSession<'a> {
    reducer: &'a Reducer,
    format: Format,
    limits: Limits,
    process: Option<process::Persistent>,
    /// The bytes of the previous exchange's answer, when it was a response
    /// ([`Session::exchange_unless_same`]); under protocol 2 without the
    /// `{"id":N,` it starts with.
    last: Option<Vec<u8>>,
    ids: Ids,
    bounds: Bounds,
    /// The requests (protocol 2) whose answer echoed their id: a later
    /// answer with one of these ids leaves the process out of step, and it
    /// is restarted ([`Line::Behind`], spec §13.7).
    answered: std::collections::HashSet<RequestId>,
}

#[cfg(feature = "process")]
impl<'a> PersistentSession<'a> {
    /// A session that will run `reducer` (directly, never through a shell)
    /// in `format` within `limits`, speaking protocol 1; nothing starts
    /// before the first request.
    pub fn new(reducer: &'a Reducer, format: Format, limits: Limits) -> PersistentSession<'a> {
        PersistentSession::speaking(reducer, format, limits, Protocol::V1)
    }

    /// [`PersistentSession::new`] speaking `protocol`: under protocol 2
    /// each request carries an `id`, and a line that does not echo it is
    /// unrequested output, never the answer (spec §13.7).
    pub fn speaking(
        reducer: &'a Reducer,
        format: Format,
        limits: Limits,
        protocol: Protocol,
    ) -> PersistentSession<'a> {
        PersistentSession {
            reducer,
            format,
            limits,
            process: None,
            last: None,
            ids: Ids::for_protocol(protocol),
            bounds: Bounds::default(),
            answered: std::collections::HashSet::new(),
        }
    }
}

/// An answer's bytes as compared with the previous answer's
/// ([`Session::exchange_unless_same`]): under protocol 2 without its
/// leading `{"id":<id>,` (when it starts so: answers that put their `id`
/// elsewhere are always read), so that two answers that differ only in the
/// id they echo compare equal.
#[cfg(feature = "process")]
fn without_id(stdout: &[u8], id: Option<RequestId>) -> Option<&[u8]> {
    let Some(id) = id else {
        return Some(stdout);
    };
    let head = format!("{{\"id\":{id},");
    stdout.strip_prefix(head.as_bytes())
}

#[cfg(feature = "process")]
impl PersistentSession<'_> {
    /// One request and its answer: `None` when `unless_same` and the answer
    /// is the previous one's bytes.
    fn send(
        &mut self,
        request: &OutgoingRequest,
        unless_same: bool,
    ) -> Result<Option<Exchange>, RunError> {
        let by_id = self.ids.0.is_some();
        let process = match &mut self.process {
            Some(p) => p,
            None => self.process.insert({
                let p = process::Persistent::start(self.reducer, self.limits)
                    .map_err(|e| RunError::Start(process::start_error(self.reducer, &e)))?;
                if by_id {
                    p.answers_by_id()
                } else {
                    p
                }
            }),
        };
        let id = self.ids.take();
        let text = sent_text(request, id);
        process.set_limits(self.bounds.apply(self.limits, text.len() + 1));
        let reply = match id {
            Some(id) => {
                let read = std::cell::Cell::new(Line::Stray);
                let answered = &self.answered;
                let is_answer = |line: &[u8]| {
                    let l = classify(line, id, &|n| answered.contains(&n));
                    read.set(l);
                    l != Line::Stray
                };
                let reply = process.request_answered_by(text.as_bytes(), &is_answer);
                if reply.failure.is_none() {
                    match read.get() {
                        Line::Echo => {
                            self.answered.insert(id);
                        }
                        Line::Behind => process.out_of_step(),
                        Line::Astray | Line::Stray => {}
                    }
                }
                reply
            }
            None => process.request(text.as_bytes()),
        };
        let compared = without_id(&reply.stdout, id).filter(|_| reply.failure.is_none());
        let same = compared.is_some() && self.last.as_deref() == compared;
        if unless_same && same {
            return Ok(None);
        }
        let bytes = (!same).then(|| compared.map(<[u8]>::to_vec)).flatten();
        let exchange = interpret(self.format, reply, id)?;
        match (exchange.is_ok(), bytes) {
            (false, _) => self.last = None,
            (true, Some(bytes)) => self.last = Some(bytes),
            (true, None) if same => {}
            // An answer not compared (its id elsewhere): the next is read.
            (true, None) => self.last = None,
        }
        Ok(Some(exchange))
    }
}

#[cfg(feature = "process")]
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

    fn bound(&mut self, bounds: Bounds) {
        self.bounds = bounds;
    }

    fn restarts(&self) -> Restarts {
        self.process
            .as_ref()
            .map_or_else(Restarts::default, |p| Restarts {
                total: p.restarts(),
                clean_exits: p.clean_exits(),
                ..Restarts::default()
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
    /// The provider profile it honours (spec §15.4), if any.
    pub provider: Option<Provider>,
    /// The runner protocol it reads: protocol 1 reads `maxMessages` only
    /// (a token budget is then no budget); protocol 2 reads every budget
    /// member (spec §11.2, §13.1).
    pub protocol: Protocol,
}

impl ReferenceSession {
    /// The reference's answer to a request object: its reduction, or an
    /// error response (bad budget, unreadable messages, no `messages`).
    pub fn respond(&self, request: &Value) -> Response {
        match request_from_json(self.format, request) {
            Ok(r) => {
                let reference =
                    Reference::new(self.policy, self.format).with_provider(self.provider);
                let input = Input::new(&r.messages);
                Response::from(reference.reduce(match self.protocol {
                    Protocol::V1 => input.max_messages(&r.max_messages),
                    Protocol::V2 => input.budget_fields(&r.budget),
                }))
            }
            Err(e) => Response::Error(e.to_string()),
        }
    }

    /// The answer to one request text, as the protocol v1 object to write
    /// back: `{"system"?, "messages"}` or `{"error"}` (also for text that is
    /// not JSON).
    pub fn answer(&self, text: &str) -> Value {
        let (response, id) = match serde_json::from_str::<Value>(text) {
            Ok(request) => (self.respond(&request), request.get("id").cloned()),
            Err(e) => (
                Response::Error(crate::protocol::RequestError::NotJson(e).to_string()),
                None,
            ),
        };
        match self.protocol {
            // A protocol 2 answer echoes its request's id (spec §13.7).
            Protocol::V2 => response_json_with_id(self.format, &response, id.as_ref()),
            Protocol::V1 => response_json(self.format, &response),
        }
    }
}

impl Session for ReferenceSession {
    fn exchange(&mut self, request: &OutgoingRequest) -> Result<Exchange, RunError> {
        Ok(Ok(self.respond(&request.to_value())))
    }
}

/// A reducer that runs in the kit's own process: a function from the text
/// of a request (the line a persistent process would read, with its `"id"`
/// under protocol 2) to the text of its answer (the line it would write).
/// The answer is read as a process's answer is (spec §8.4, §13.7): it must
/// be JSON, in the run's wire format, echo the request's id under protocol
/// 2, and be no longer than `--max-output`; otherwise it fails
/// `protocol-json` (or `protocol-size`) with the same detail. Nothing can
/// time the function out: `--timeout` does not apply.
///
/// The function stops the run by returning a [`RunError`] (a binding does
/// so when its user interrupts it: [`RunError::Interrupted`]).
///
/// # Examples
///
/// The reference reducer as a function of text, certified in process:
///
/// ```
/// use reducer_kit::certify::session::{InProcessSession, ReferenceSession, Session};
/// use reducer_kit::{CertifyOptions, Policy, Protocol, Format};
/// let options = CertifyOptions { policy: Policy::Suffix, generated: 20, jobs: Some(1), ..CertifyOptions::default() };
/// let job = options.resolve().unwrap().with_sessions(|settings| {
///     let reference = ReferenceSession { policy: Policy::Suffix, format: settings.format, provider: None, protocol: Protocol::V1 };
///     Box::new(InProcessSession::new(settings, move |request: &str| Ok(reference.answer(request).to_string())))
/// });
/// let plan = job.plan().unwrap();
/// let certified = job.run(&plan, &[], &reducer_kit::certify::job::Unwatched).unwrap();
/// assert!(certified.grade.passed());
/// ```
pub struct InProcessSession<F> {
    format: Format,
    max_output: usize,
    ids: Ids,
    answer: F,
}

impl<F> std::fmt::Debug for InProcessSession<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InProcessSession")
            .field("format", &self.format)
            .field("max_output", &self.max_output)
            .finish_non_exhaustive()
    }
}

impl<F> InProcessSession<F>
where
    F: FnMut(&str) -> Result<String, RunError>,
{
    /// A session that answers each request with `answer`, in the run's
    /// wire format and protocol, within its `--max-output`.
    pub fn new(settings: &Settings, answer: F) -> InProcessSession<F> {
        InProcessSession {
            format: settings.format,
            max_output: settings.limits.max_output,
            ids: Ids::for_protocol(settings.protocol),
            answer,
        }
    }
}

impl<F> Session for InProcessSession<F>
where
    F: FnMut(&str) -> Result<String, RunError>,
{
    fn exchange(&mut self, request: &OutgoingRequest) -> Result<Exchange, RunError> {
        let id = self.ids.take();
        let text = sent_text(request, id);
        let mut stdout = (self.answer)(&text)?.into_bytes();
        let failure = (stdout.len() > self.max_output).then(|| {
            stdout.truncate(self.max_output);
            Failure::TooLarge
        });
        let reply = process::Reply {
            stdout,
            stderr_tail: String::new(),
            failure,
        };
        interpret(self.format, reply, id)
    }
}

impl Settings {
    /// A new session for one worker: the in-process reducer's when the run
    /// has [`Settings::sessions`], else a [`PersistentSession`] in
    /// persistent mode, else a [`PerCaseSession`]. Without the feature
    /// `process` a run needs [`Settings::sessions`]: the session it has
    /// otherwise cannot start a reducer ([`RunError::Start`]).
    pub fn session(&self) -> Box<dyn Session + '_> {
        if let Some(Sessions(make)) = &self.sessions {
            make(self)
        } else {
            self.process_session()
        }
    }

    #[cfg(not(feature = "process"))]
    fn process_session(&self) -> Box<dyn Session + '_> {
        Box::new(NoProcesses)
    }

    #[cfg(feature = "process")]
    fn process_session(&self) -> Box<dyn Session + '_> {
        if self.persistent {
            Box::new(PersistentSession::speaking(
                &self.reducer,
                self.format,
                self.limits,
                self.protocol,
            ))
        } else {
            Box::new(PerCaseSession::speaking(
                &self.reducer,
                self.format,
                self.limits,
                self.protocol,
            ))
        }
    }
}

/// The session of a run without in-process sessions in a build without the
/// feature `process`: no reducer can be started.
#[cfg(not(feature = "process"))]
struct NoProcesses;

#[cfg(not(feature = "process"))]
impl Session for NoProcesses {
    fn exchange(&mut self, _request: &OutgoingRequest) -> Result<Exchange, RunError> {
        Err(RunError::Start(
            "this build runs no processes (the feature `process` is off): give the run an in-process session (Job::with_sessions)".into(),
        ))
    }
}
