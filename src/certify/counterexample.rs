//! Shrinking a failure to a minimal counterexample (semantics §9): the
//! smallest failing case of each clause is shrunk greedily
//! ([`crate::generate::shrink`]) while the clause keeps failing, run by
//! run through a fresh session, then shown with the reference's answer and
//! saved as a case file.

use super::run::{run_cases, CaseResult, RunCase, Settings};
use super::session::RunError;
use crate::case::expect::{expectation, needs_pending};
use crate::case::file::file_name;
use crate::case::{save_new, Case, SPEC_VERSION};
use crate::check::Outcome;
use crate::generate::shrink::QuickCase;
use crate::json::first_difference;
use crate::protocol::Response;
use crate::reduce::respond;
use crate::terms::{Budget, Clause, Policy};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A failure shrunk to a minimal counterexample.
#[derive(Clone, Debug, PartialEq)]
pub struct Counterexample {
    /// The clause that fails.
    pub clause: Clause,
    /// The case it was shrunk from.
    pub original_id: String,
    /// The minimal case (canonical messages), with a content-hash id
    /// `fail/<16 hex>`.
    pub case: RunCase,
    /// The failure's text on the minimal case.
    pub detail: String,
    /// The reference reducer's output for it, in the reducer's wire format.
    pub expected: Response,
    /// The reducer's response, when it gave one.
    pub actual: Option<Response>,
    /// The first JSON path where `actual` differs from `expected`.
    pub first_difference: Option<String>,
    /// Candidates tried while shrinking.
    pub tries: usize,
    /// Where it was saved, with `--save-failures`.
    pub saved_to: Option<PathBuf>,
}

impl Counterexample {
    /// Saves the counterexample's case file ([`Counterexample::to_case`]
    /// under `policy`) in `dir`, named by its content-hash id, atomically
    /// and never over an existing file (an existing one is the same case),
    /// and records where in [`Counterexample::saved_to`].
    ///
    /// # Errors
    ///
    /// Any I/O error creating `dir` or writing the file.
    pub fn save(&mut self, dir: &Path, policy: Policy) -> std::io::Result<()> {
        let case = self.to_case(policy);
        let file = file_name(&case.id);
        save_new(dir, &file, &case)?;
        self.saved_to = Some(dir.join(file));
        Ok(())
    }

    /// The counterexample as a case file: `expected` is the reference
    /// output (canonical) and `clauses` names the failing clause.
    pub fn to_case(&self, policy: Policy) -> Case {
        let mut case = Case {
            id: String::new(),
            spec: SPEC_VERSION,
            policy,
            max_messages: self.case.max_messages.clone(),
            messages: self.case.messages.clone(),
            expected: None,
            expected_error: None,
            clauses: vec![self.clause.id().to_string()],
            allow_pending: false,
            violations: Vec::new(),
            description: format!(
                "counterexample for {} (shrunk from {}): {}",
                self.clause, self.original_id, self.detail
            ),
        };
        let expected = needs_pending(&case.messages).and_then(|allow_pending| {
            case.allow_pending = allow_pending;
            expectation(policy, &case.max_messages, &case.messages, allow_pending)
        });
        match expected {
            Ok(e) => e.apply_to(&mut case),
            // Messages the reference cannot read: the case says bad-budget,
            // as it always has (the case format cannot expect unreadable
            // messages).
            Err(_) => case.expected_error = Some(crate::case::ExpectedError::BadBudget),
        }
        case.id = case.content_id("fail");
        case
    }
}

/// Shrinks `failing` (whose result fails `clause`) with the structural
/// shrinker of [`crate::generate::shrink`], keeping `clause` failing, within `max_tries`
/// candidate runs. Cases whose input is not a valid history or whose budget
/// is not an integer are not shrunk (the counterexample is the case itself).
///
/// # Errors
///
/// [`RunError`] when the reducer cannot be started.
pub fn shrink(
    settings: &Settings,
    failing: &CaseResult,
    clause: Clause,
    max_tries: usize,
) -> Result<Counterexample, RunError> {
    let needs_extras = matches!(
        clause,
        Clause::Deterministic | Clause::Idempotent | Clause::BudgetMonotone
    );
    let one = Settings {
        jobs: 1,
        extra_requests: needs_extras,
        ..settings.clone()
    };
    let mut tries = 0usize;
    let mut fatal: Option<RunError> = None;
    let mut best: CaseResult = failing.clone();
    if let Ok(budget) = Budget::parse(&failing.case.max_messages).map(Budget::max_messages) {
        let start = QuickCase {
            messages: failing.case.messages.clone(),
            budget,
            allow_pending: false,
        };
        let start = if start.is_valid() {
            Some(start)
        } else {
            Some(QuickCase {
                allow_pending: true,
                ..start
            })
            .filter(QuickCase::is_valid)
        };
        if let Some(start) = start {
            let mut fails = |c: &QuickCase| -> bool {
                if tries >= max_tries || fatal.is_some() {
                    return false;
                }
                tries += 1;
                let rc = RunCase {
                    id: failing.case.id.clone(),
                    max_messages: Value::from(c.budget),
                    messages: c.messages.clone(),
                };
                match run_cases(&one, std::slice::from_ref(&rc), &|_| {}) {
                    Ok(mut r) => {
                        let r = r.remove(0);
                        let hit = r.failures().any(|v| v.clause == clause);
                        // Greedy shrinking restarts from every failing
                        // candidate, so the last one is the minimal one.
                        if hit {
                            best = r;
                        }
                        hit
                    }
                    Err(e) => {
                        fatal = Some(e);
                        false
                    }
                }
            };
            start.minimize(&mut fails);
        }
    }
    if let Some(e) = fatal {
        return Err(e);
    }
    let detail = best
        .verdicts
        .iter()
        .find(|v| v.clause == clause)
        .and_then(|v| match &v.outcome {
            Outcome::Fail(d) => Some(d.clone()),
            _ => None,
        })
        .unwrap_or_default();
    let expected = respond(
        settings.policy,
        settings.format,
        &best.case.max_messages,
        &best.wire_messages,
    );
    let first_difference = match (&expected, &best.response) {
        (Response::Messages(a), Some(Response::Messages(b))) => {
            first_difference(&Value::Array(a.clone()), &Value::Array(b.clone()))
        }
        (_, None) => None,
        (a, Some(b)) if a.same_as(b) => None,
        _ => Some("$".into()),
    };
    let mut cx = Counterexample {
        clause,
        original_id: failing.case.id.clone(),
        case: best.case.clone(),
        detail,
        expected,
        actual: best.response.clone(),
        first_difference,
        tries,
        saved_to: None,
    };
    cx.case.id = cx.to_case(settings.policy).id;
    Ok(cx)
}

/// For each failing clause, the failing case with the fewest messages
/// (then the smallest id), shrunk. Protocol timeouts are not shrunk (each
/// try would cost a full time limit); they are reported as they are.
///
/// # Errors
///
/// [`RunError`] when the reducer cannot be started.
pub fn counterexamples(
    settings: &Settings,
    results: &[CaseResult],
    max_tries: usize,
) -> Result<Vec<Counterexample>, RunError> {
    let mut work: Vec<(Clause, &CaseResult, usize)> = Vec::new();
    for clause in Clause::ALL {
        let smallest = results
            .iter()
            .filter(|r| r.failures().any(|v| v.clause == *clause))
            .min_by_key(|r| (r.case.messages.len(), r.case.id.clone()));
        let Some(r) = smallest else { continue };
        let tries = if *clause == Clause::ProtocolTimeout {
            0
        } else {
            max_tries
        };
        work.push((*clause, r, tries));
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let out: std::sync::Mutex<Vec<Option<Result<Counterexample, RunError>>>> =
        std::sync::Mutex::new((0..work.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..settings.jobs.max(1).min(work.len().max(1)) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some((clause, r, tries)) = work.get(i) else {
                    return;
                };
                let cx = shrink(settings, r, *clause, *tries);
                out.lock().expect("no shrinker panics")[i] = Some(cx);
            });
        }
    });
    out.into_inner()
        .expect("no shrinker panics")
        .into_iter()
        .map(|c| c.expect("every clause was shrunk"))
        .collect()
}
