//! The runner: sends cases to an external reducer over runner protocol v1
//! (semantics §7) and judges every response with the checker.
//!
//! One [`CaseResult`] record per case; the text report (and later JSON or
//! JUnit) are renderings of it.

use crate::check::{check, extra_requests, ExtraKind, Extras, Outcome, Request, Verdict};
use crate::formats::{to_wire, Format};
use crate::process::{run_once, Failure, Limits, Persistent};
use crate::protocol::{request_json, response_from_json, Response};
use crate::reduce::respond;
use crate::terms::{Clause, Level, Policy};
use serde_json::Value;
use std::ffi::OsString;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// How to run the reducer under test.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The command and its arguments, run directly (never through a shell).
    pub argv: Vec<OsString>,
    /// The wire format the reducer speaks.
    pub format: Format,
    /// The policy it claims to implement.
    pub policy: Policy,
    /// Time and size limits per request.
    pub limits: Limits,
    /// JSON Lines to one long-lived process per worker instead of one
    /// process per request.
    pub persistent: bool,
    /// Parallel workers (each with its own process in persistent mode); ≥ 1.
    pub jobs: usize,
    /// Whether to send the extra requests (repeat, output again, smaller
    /// budget) that `deterministic`, `idempotent` and `budget-monotone`
    /// need; without them those clauses are not judged.
    pub extra_requests: bool,
}

/// One case to run: an id, a budget and a canonical history.
#[derive(Clone, Debug, PartialEq)]
pub struct RunCase {
    /// The case id.
    pub id: String,
    /// `maxMessages` as sent.
    pub max_messages: Value,
    /// The input history, canonical format.
    pub messages: Vec<Value>,
}

/// The record of one case.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseResult {
    /// The case.
    pub case: RunCase,
    /// The messages as sent, in the reducer's wire format.
    pub wire_messages: Vec<Value>,
    /// The reducer's response, when it gave a readable one.
    pub response: Option<Response>,
    /// Every clause judged for the case, protocol clauses first.
    pub verdicts: Vec<Verdict>,
    /// The reducer's stderr tail from the failing request, if any failed.
    pub stderr_tail: String,
    /// Why the case was not run (it has no form in the wire format).
    pub skipped: Option<String>,
}

impl CaseResult {
    /// The failed verdicts.
    pub fn failures(&self) -> impl Iterator<Item = &Verdict> {
        self.verdicts.iter().filter(|v| v.failed())
    }
}

/// A fatal problem: the reducer cannot be started at all.
#[derive(Debug, thiserror::Error)]
#[error("cannot run the reducer: {0}")]
pub struct RunError(pub String);

/// One way of exchanging a request for a response.
trait Session {
    fn exchange(
        &mut self,
        request: &Value,
    ) -> Result<Result<Response, (Clause, String, String)>, RunError>;
}

struct PerCase<'a> {
    settings: &'a Settings,
}

struct Lasting<'a> {
    settings: &'a Settings,
    process: Option<Persistent>,
}

/// Turns a reply into a response or a protocol failure `(clause, detail,
/// stderr tail)`.
fn interpret(
    format: Format,
    stdout: &[u8],
    failure: Option<Failure>,
    stderr_tail: String,
) -> Result<Result<Response, (Clause, String, String)>, RunError> {
    let protocol = |clause, detail: String| Ok(Err((clause, detail, stderr_tail.clone())));
    match failure {
        Some(Failure::Spawn(e)) => return Err(RunError(e)),
        Some(Failure::Timeout) => {
            return protocol(
                Clause::ProtocolTimeout,
                "no response within the time limit".into(),
            )
        }
        Some(Failure::TooLarge) => {
            return protocol(
                Clause::ProtocolSize,
                "the response exceeds the output size limit".into(),
            )
        }
        Some(Failure::Crash { status }) => {
            return protocol(
                Clause::ProtocolCrash,
                format!("the reducer crashed: {status}"),
            )
        }
        None => {}
    }
    let text = match std::str::from_utf8(stdout) {
        Ok(t) => t,
        Err(e) => {
            return protocol(
                Clause::ProtocolJson,
                format!("the response is not UTF-8 ({e})"),
            )
        }
    };
    if text.trim().is_empty() {
        return protocol(Clause::ProtocolJson, "the reducer wrote no response".into());
    }
    let value: Value = match serde_json::from_str(text.trim()) {
        Ok(v) => v,
        Err(e) => {
            return protocol(
                Clause::ProtocolJson,
                format!("the response is not JSON: {e}"),
            )
        }
    };
    match response_from_json(format, &value) {
        Ok(r) => Ok(Ok(r)),
        Err(e) => protocol(Clause::ProtocolJson, e.to_string()),
    }
}

impl Session for PerCase<'_> {
    fn exchange(
        &mut self,
        request: &Value,
    ) -> Result<Result<Response, (Clause, String, String)>, RunError> {
        let mut input = request.to_string();
        input.push('\n');
        let reply = run_once(&self.settings.argv, input.as_bytes(), &self.settings.limits);
        interpret(
            self.settings.format,
            &reply.stdout,
            reply.failure,
            reply.stderr_tail,
        )
    }
}

impl Session for Lasting<'_> {
    fn exchange(
        &mut self,
        request: &Value,
    ) -> Result<Result<Response, (Clause, String, String)>, RunError> {
        if self.process.is_none() {
            let p = Persistent::start(&self.settings.argv, self.settings.limits)
                .map_err(|e| RunError(e.to_string()))?;
            self.process = Some(p);
        }
        let reply = self
            .process
            .as_mut()
            .expect("started above")
            .request(request.to_string().as_bytes());
        interpret(
            self.settings.format,
            &reply.stdout,
            reply.failure,
            reply.stderr_tail,
        )
    }
}

fn wire(format: Format, messages: &[Value]) -> Result<Vec<Value>, String> {
    to_wire(format, messages).map_err(|e| format!("no {} form: {e}", format.title()))
}

fn run_case(
    session: &mut dyn Session,
    settings: &Settings,
    case: &RunCase,
) -> Result<CaseResult, RunError> {
    let wire_messages = match wire(settings.format, &case.messages) {
        Ok(m) => m,
        Err(why) => {
            return Ok(CaseResult {
                case: case.clone(),
                wire_messages: Vec::new(),
                response: None,
                verdicts: Vec::new(),
                stderr_tail: String::new(),
                skipped: Some(why),
            })
        }
    };
    let request = request_json(settings.format, &case.max_messages, &wire_messages);
    let mut protocol: Vec<(Clause, String)> = Vec::new();
    let mut stderr_tail = String::new();
    let first = match session.exchange(&request)? {
        Ok(r) => Some(r),
        Err((clause, detail, tail)) => {
            protocol.push((clause, detail));
            stderr_tail = tail;
            None
        }
    };
    let req = Request {
        format: settings.format,
        policy: settings.policy,
        max_messages: &case.max_messages,
        messages: &wire_messages,
    };
    let verdicts;
    if let Some(first) = &first {
        let mut extras = Extras {
            reference: Some(respond(
                settings.policy,
                settings.format,
                &case.max_messages,
                &wire_messages,
            )),
            ..Extras::default()
        };
        let extra = if settings.extra_requests {
            extra_requests(&req, first)
        } else {
            Vec::new()
        };
        for extra in extra {
            let r = request_json(settings.format, &extra.max_messages, &extra.messages);
            match session.exchange(&r)? {
                Ok(resp) => extras.record(&extra, resp),
                Err((clause, detail, tail)) => {
                    let what = match extra.kind {
                        ExtraKind::Repeat => "the repeated request",
                        ExtraKind::Again => "the output sent back",
                        ExtraKind::Smaller => "the request with a smaller budget",
                    };
                    protocol.push((clause, format!("{what}: {detail}")));
                    if stderr_tail.is_empty() {
                        stderr_tail = tail;
                    }
                }
            }
        }
        match check(&req, first, &extras) {
            Ok(v) => verdicts = v,
            Err(e) => {
                return Ok(CaseResult {
                    case: case.clone(),
                    wire_messages,
                    response: Some(first.clone()),
                    verdicts: Vec::new(),
                    stderr_tail,
                    skipped: Some(format!("the case's input cannot be read: {e}")),
                })
            }
        }
    } else {
        verdicts = Clause::for_policy(settings.policy)
            .into_iter()
            .filter(|c| c.level() != Level::Protocol)
            .map(|clause| Verdict {
                clause,
                outcome: Outcome::NotJudged("no response".into()),
            })
            .collect();
    }
    let mut all: Vec<Verdict> = [
        Clause::ProtocolJson,
        Clause::ProtocolTimeout,
        Clause::ProtocolCrash,
        Clause::ProtocolSize,
    ]
    .into_iter()
    .map(|clause| {
        let fails: Vec<&str> = protocol
            .iter()
            .filter(|(c, _)| *c == clause)
            .map(|(_, d)| d.as_str())
            .collect();
        Verdict {
            clause,
            outcome: if fails.is_empty() {
                Outcome::Pass
            } else {
                Outcome::Fail(fails.join("; "))
            },
        }
    })
    .collect();
    all.extend(verdicts);
    Ok(CaseResult {
        case: case.clone(),
        wire_messages,
        response: first,
        verdicts: all,
        stderr_tail,
        skipped: None,
    })
}

/// Runs every case against the reducer with `settings.jobs` workers and
/// returns one record per case, in case order. `progress` is called after
/// each case with the number done.
///
/// # Errors
///
/// [`RunError`] when the reducer cannot be started.
pub fn run_cases(
    settings: &Settings,
    cases: &[RunCase],
    progress: &(dyn Fn(usize) + Sync),
) -> Result<Vec<CaseResult>, RunError> {
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<CaseResult>>> = Mutex::new(vec![None; cases.len()]);
    let fatal: Mutex<Option<RunError>> = Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..settings.jobs.max(1).min(cases.len().max(1)) {
            s.spawn(|| {
                let mut per_case = PerCase { settings };
                let mut lasting = Lasting {
                    settings,
                    process: None,
                };
                let session: &mut dyn Session = if settings.persistent {
                    &mut lasting
                } else {
                    &mut per_case
                };
                loop {
                    if fatal.lock().expect("no worker panics").is_some() {
                        return;
                    }
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= cases.len() {
                        return;
                    }
                    match run_case(session, settings, &cases[i]) {
                        Ok(r) => results.lock().expect("no worker panics")[i] = Some(r),
                        Err(e) => {
                            *fatal.lock().expect("no worker panics") = Some(e);
                            return;
                        }
                    }
                    progress(done.fetch_add(1, Ordering::SeqCst) + 1);
                }
            });
        }
    });
    if let Some(e) = fatal.into_inner().expect("no worker panics") {
        return Err(e);
    }
    Ok(results
        .into_inner()
        .expect("no worker panics")
        .into_iter()
        .map(|r| r.expect("every case ran"))
        .collect())
}

/// Per-clause totals over a run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClauseTally {
    /// Cases where the clause passed.
    pub passed: usize,
    /// Cases where it failed.
    pub failed: usize,
    /// Cases where it was not judged.
    pub not_judged: usize,
}

/// The graded verdict of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grade {
    /// Per clause, in report order.
    pub clauses: Vec<(Clause, ClauseTally)>,
    /// Per level: whether it and every lower level passed.
    pub levels: Vec<(Level, bool)>,
    /// Cases run (not skipped).
    pub cases_run: usize,
    /// Cases skipped.
    pub cases_skipped: usize,
}

impl Grade {
    /// Whether every level passed.
    pub fn passed(&self) -> bool {
        self.levels.iter().all(|(_, ok)| *ok)
    }
}

/// Grades a run: a level passes when no case fails a clause of it or of a
/// lower level.
pub fn grade(policy: Policy, results: &[CaseResult]) -> Grade {
    let clauses: Vec<(Clause, ClauseTally)> = Clause::for_policy(policy)
        .into_iter()
        .map(|c| {
            let mut t = ClauseTally::default();
            for r in results.iter().filter(|r| r.skipped.is_none()) {
                match r
                    .verdicts
                    .iter()
                    .find(|v| v.clause == c)
                    .map(|v| &v.outcome)
                {
                    Some(Outcome::Pass) => t.passed += 1,
                    Some(Outcome::Fail(_)) => t.failed += 1,
                    _ => t.not_judged += 1,
                }
            }
            (c, t)
        })
        .collect();
    let mut ok_so_far = true;
    let levels = [Level::Protocol, Level::Safety, Level::Policy, Level::Exact]
        .into_iter()
        .map(|level| {
            ok_so_far &= clauses
                .iter()
                .filter(|(c, _)| c.level() == level)
                .all(|(_, t)| t.failed == 0);
            (level, ok_so_far)
        })
        .collect();
    let cases_skipped = results.iter().filter(|r| r.skipped.is_some()).count();
    Grade {
        clauses,
        levels,
        cases_run: results.len() - cases_skipped,
        cases_skipped,
    }
}
