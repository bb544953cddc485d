//! Running cases against a reducer (semantics §8): each case is sent in
//! the reducer's wire format through a [`Session`], the extra requests some
//! clauses need follow, and the checker judges the answers against the
//! reference reducer's. One [`CaseResult`] record per case; the reports
//! ([`super::report`]) are renderings of them.

use super::process::Limits;
use super::session::{PerCaseSession, PersistentSession, RunError, Session};
use crate::check::{check, extra_requests, ExtraKind, Extras, Outcome, Request, Verdict};
use crate::formats::{to_wire, Format};
use crate::protocol::{request_json, Response};
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

impl Settings {
    /// A new session for one worker: a [`PersistentSession`] in persistent
    /// mode, else a [`PerCaseSession`].
    pub fn session(&self) -> Box<dyn Session + '_> {
        if self.persistent {
            Box::new(PersistentSession::new(&self.argv, self.format, self.limits))
        } else {
            Box::new(PerCaseSession::new(&self.argv, self.format, self.limits))
        }
    }
}

fn wire(format: Format, messages: &[Value]) -> Result<Vec<Value>, String> {
    to_wire(format, messages).map_err(|e| format!("no {} form: {e}", format.title()))
}

/// Runs one case through `session`: the request, then (with
/// [`Settings::extra_requests`]) the extra requests, then the checker with
/// the reference's answer. A case the wire format cannot carry is skipped.
///
/// # Errors
///
/// [`RunError`] when the reducer cannot be started.
pub fn run_case(
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
        Err(failure) => {
            protocol.push((failure.clause, failure.detail));
            stderr_tail = failure.stderr_tail;
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
                Err(failure) => {
                    let what = match extra.kind {
                        ExtraKind::Repeat => "the repeated request",
                        ExtraKind::Again => "the output sent back",
                        ExtraKind::Smaller => "the request with a smaller budget",
                    };
                    protocol.push((failure.clause, format!("{what}: {}", failure.detail)));
                    if stderr_tail.is_empty() {
                        stderr_tail = failure.stderr_tail;
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
                let mut session = settings.session();
                let session = session.as_mut();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::certify::generated_case;
    use crate::certify::session::ReferenceSession;

    /// The runner over the in-process reference session: every clause of
    /// every level passes, in every format.
    #[test]
    fn the_reference_session_passes_every_clause() {
        for format in Format::ALL {
            for policy in Policy::ALL {
                let settings = Settings {
                    argv: Vec::new(),
                    format,
                    policy,
                    limits: Limits::default(),
                    persistent: false,
                    jobs: 1,
                    extra_requests: true,
                };
                let mut session = ReferenceSession { policy, format };
                for n in 0..40 {
                    let case = generated_case(1, n, format);
                    let r = run_case(&mut session, &settings, &case).unwrap();
                    let failed: Vec<_> = r.failures().collect();
                    assert!(
                        failed.is_empty(),
                        "{format} {policy} {}: {failed:?}",
                        case.id
                    );
                    assert!(r.skipped.is_none() || format != Format::Canonical);
                }
            }
        }
    }
}
