//! Shrinking a failure to a minimal counterexample (spec §9): the
//! best example of each kind of failure of a clause is shrunk greedily
//! ([`crate::generate::shrink`]) while the clause keeps failing, every
//! candidate through the same live session of its worker, then shown with the reference's answer and
//! saved as a case file.
//!
//! | file | owns |
//! |------|------|
//! | `counterexample.rs` | the counterexample, shrinking one failure ([`shrink_in`]) and what its counterexample reads of the whole case |
//! | `counterexample/failures.rs` | a run's counterexamples: which failures are shown ([`shown`]), their shrinks shared out over the workers ([`counterexamples`]), merged by root shape, [`order`]ed |
//! | `counterexample/saved.rs` | how one leaves the run: its case file ([`save_all`]) and what a report copies of it ([`COPY_LIMIT`], [`Counterexample::too_large`]) |

use super::exchange::{Bounds, RunError, Session};
use super::run::{run_case_pending, CaseResult, RunCase, Settings};
use crate::case::expect::{expectation, needs_pending};
use crate::case::Case;
use crate::check::Outcome;
use crate::generate::shrink::{Keep, QuickCase};
use crate::generate::Costs;
use crate::json::first_difference_in;
use crate::protocol::Response;
use crate::reduce::{Input, Reference};
use crate::terms::{Budget, BudgetFields, Clause, Policy};
use serde_json::Value;
use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::path::PathBuf;
use std::sync::Arc;
#[cfg(not(target_arch = "wasm32"))]
use std::time::Instant;
#[cfg(target_arch = "wasm32")]
use web_time::Instant;

mod failures;
mod saved;
pub use failures::{counterexamples, order, shown, SHARED_HUGE_MESSAGES, SHOWN_KINDS};
pub use saved::{save_all, save_too_large, SavedFrom, Sizes, COPY_LIMIT};

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
    /// How many failing cases of the run fail the clause this way (their
    /// failures read alike, or their examples shrink to the same root
    /// shape); 1 for a counterexample shrunk alone.
    pub cases: usize,
    /// Whether the minimal case's input passes the validator (pending
    /// calls allowed): `false` for a failure on invalid input,
    /// robustness, shown after every counterexample on valid input (spec
    /// §9.2).
    pub valid_input: bool,
    /// Whether shrinking stopped at the run's time budget
    /// ([`ShrinkLimits::deadline`]) before it reached a minimum.
    pub out_of_time: bool,
    /// Whether a candidate smaller than the original case failed the
    /// clause: `false` when the counterexample is the failing case itself
    /// (nothing smaller fails, the case could not be shrunk, or the time
    /// ran out first; [`Counterexample::out_of_time`] tells which).
    pub shrunk: bool,
    /// Where it was saved, with `--save-failures`.
    pub saved_to: Option<PathBuf>,
}

/// The counterexamples of a run grouped by input, in the order of their
/// first member: those with the same minimal case (messages and budget),
/// the same answers of the reference and the reducer and the same validity
/// are one input failing several clauses, drawn once with every clause
/// it fails (spec §9.1). Each group holds indices into `cxs`.
pub fn grouped_by_input(cxs: &[Counterexample]) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (i, cx) in cxs.iter().enumerate() {
        let same = |g: &Vec<usize>| {
            let first = &cxs[g[0]];
            first.valid_input == cx.valid_input
                && first.case.messages == cx.case.messages
                && first.case.budget == cx.case.budget
                && first.expected == cx.expected
                && first.actual == cx.actual
        };
        match groups.iter_mut().find(|g| same(g)) {
            Some(g) => g.push(i),
            None => groups.push(vec![i]),
        }
    }
    groups
}

impl Counterexample {
    /// [`Counterexample::first_difference`] when the failure's detail does
    /// not already say it (`matches-reference`'s detail ends `first
    /// difference at $[0]`): what a report adds after the detail, so no
    /// report says it twice.
    pub fn first_difference_unsaid(&self) -> Option<&str> {
        self.first_difference
            .as_deref()
            .filter(|p| !self.detail.contains(&format!("first difference at {p}")))
    }

    /// The counterexample as a case file: `expected` is the reference
    /// output (canonical) and `clauses` names the failing clause. A case
    /// from a summaries run says `summary: true` (and, under a token
    /// budget, its `summaryTokens`); its `spec` is the lowest version that
    /// has every field it uses. Its id (`fail/<16 hex>`) depends on the
    /// policy and the case's input only.
    pub fn to_case(&self, policy: Policy) -> Case {
        let mut case = self.to_case_head(policy);
        case.messages = self.case.messages.to_vec();
        case
    }

    /// [`Counterexample::to_case`] without its messages: its id and
    /// expectation are read from the counterexample's own.
    fn to_case_head(&self, policy: Policy) -> Case {
        let (mut case, pending) = self.head(policy);
        let expected = pending.and_then(|allow_pending| {
            expectation(
                policy,
                &self.case.budget,
                &self.case.messages,
                allow_pending,
            )
        });
        match expected {
            Ok(e) => e.apply_to(&mut case),
            // Messages the reference cannot read: the case says bad-budget,
            // as it always has (the case format cannot expect unreadable
            // messages).
            Err(_) => case.expected_error = Some(crate::case::ExpectedError::BadBudget),
        }
        case.id = case.content_id_of(&self.case.messages, "fail");
        case
    }

    /// The id [`Counterexample::to_case`] gives the case (`fail/<16
    /// hex>`), made without copying its messages or computing its
    /// expectation.
    pub fn case_id(&self, policy: Policy) -> String {
        self.head(policy)
            .0
            .content_id_of(&self.case.messages, "fail")
    }

    /// The case file without its messages, expectation and id, and
    /// whether its input needs pending calls allowed (`allow_pending` is
    /// set from it when it can be read).
    fn head(&self, policy: Policy) -> (Case, Result<bool, crate::case::expect::ExpectError>) {
        let b = &self.case.budget;
        let mut case = Case {
            id: String::new(),
            spec: 1,
            policy,
            max_messages: b.max_messages.clone(),
            max_tokens: b.max_tokens.clone(),
            tokens: b.tokens.clone(),
            count_pinned: b.count_pinned.clone(),
            summary: self.case.summary,
            summary_tokens: (self.case.summary && b.max_tokens.is_some())
                .then_some(self.case.summary_tokens),
            messages: Vec::new(),
            expected: None,
            expected_error: None,
            clauses: vec![self.clause.id().to_string()],
            allow_pending: false,
            violations: Vec::new(),
            description: format!(
                "counterexample for {} (shrunk from {}): {}",
                self.clause, self.original_id, self.detail
            ),
            run: None,
        };
        case.spec = case.required_spec();
        let pending = needs_pending(&self.case.messages);
        if let Ok(allow_pending) = pending {
            case.allow_pending = allow_pending;
        }
        (case, pending)
    }
}

/// What bounds the shrinking of a run: candidate runs per failure
/// (`--shrink-tries`) and a deadline for all of it (`--shrink-time`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShrinkLimits {
    /// Most candidate runs when shrinking one failure.
    pub tries: usize,
    /// When shrinking stops, whatever it reached (every failure keeps the
    /// smallest failing case found by then).
    pub deadline: Option<Instant>,
}

impl ShrinkLimits {
    /// `tries` candidate runs per failure, no deadline.
    pub fn tries(tries: usize) -> ShrinkLimits {
        ShrinkLimits {
            tries,
            deadline: None,
        }
    }
}

/// Where the shrinking of one failure is: reported after every candidate
/// run and once at the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShrinkProgress {
    /// The failing clause.
    pub clause: Clause,
    /// Candidate runs so far.
    pub tries: usize,
    /// Messages of the smallest failing case so far.
    pub messages: usize,
    /// Whether this failure's shrinking has ended.
    pub done: bool,
}

/// How much larger than its request an answer read while shrinking may
/// be: `(times, plus)`, times the request's bytes plus bytes (within
/// `--max-output`). A try's answer larger than that fails `protocol-size`
/// and does not count as failing the clause being shrunk (unless that
/// clause is `protocol-size`, which is shrunk within `--max-output`).
pub const SHRINK_ANSWER_CAP: (usize, usize) = (4, 64 * 1024);

/// Shrinks `failing` (whose result fails `clause`) with the structural
/// shrinker of [`crate::generate::shrink`], keeping `clause` failing,
/// within `limits`. Every candidate goes through `session` (in persistent
/// mode one live reducer, never a process per candidate); unrequested
/// output found right after a candidate is charged to it, and output left
/// from an earlier one is dropped before the next. Cases whose input is
/// not a valid history or whose budget cannot be honoured are not shrunk
/// (the counterexample is the case itself); a token budget shrinks with
/// its costs (one per message). `progress` is called after
/// each candidate run and at the end. Under policy `repair` a case is
/// shrunk when its input is broken, and every candidate is broken too
/// (spec §17.1).
///
/// Bounds (spec §9.1): the shrink copies the case once ([`counterexamples`]
/// moves it instead when nothing else holds it; never with
/// `limits.tries` 0, nor when the time left before `limits.deadline` is
/// under a quarter of the time the case's own run took: it is then
/// reported as it failed, [`Counterexample::out_of_time`]) and makes each
/// candidate by moving the messages it keeps, so it holds the case and
/// one candidate; no try waits for the reducer past `limits.deadline`,
/// nor reads an answer beyond [`SHRINK_ANSWER_CAP`]; the deadline, the
/// try limit and a stop request ([`super::interrupt`]) are looked at
/// before each candidate, so none of them is overrun by more than the
/// try in flight.
///
/// # Errors
///
/// [`RunError`] when the reducer cannot be started or the kit is stopped.
pub fn shrink_in(
    session: &mut dyn Session,
    settings: &Settings,
    failing: &CaseResult,
    clause: Clause,
    limits: &ShrinkLimits,
    progress: &(dyn Fn(&ShrinkProgress) + Sync),
) -> Result<Counterexample, RunError> {
    shrink_from(
        session,
        settings,
        Start::Shared(failing),
        clause,
        limits,
        progress,
    )
}

/// The failing result a shrink starts from, and where its messages come
/// from when the shrink starts.
enum Start<'a> {
    /// Borrowed: its messages are copied.
    Shared(&'a CaseResult),
    /// Handed over by its only owner: its messages are moved out when
    /// nothing else holds them (else copied), and put back when no
    /// candidate failed.
    Handed(&'a mut Arc<CaseResult>),
}

impl Start<'_> {
    fn result(&self) -> &CaseResult {
        match self {
            Start::Shared(r) => r,
            Start::Handed(r) => r,
        }
    }

    /// The failing case's messages, owned: moved out of a handed result
    /// nothing else holds (whether they were is the second member), else
    /// copied.
    fn messages(&mut self) -> (Vec<Value>, bool) {
        if let Start::Handed(r) = self {
            if let Some(m) = Arc::get_mut(r).and_then(|r| Arc::get_mut(&mut r.case.messages)) {
                return (std::mem::take(m), true);
            }
        }
        (self.result().case.messages.to_vec(), false)
    }

    /// Puts back the messages [`Start::messages`] moved out (only those:
    /// a copy given back would replace the shared ones).
    fn give_back(&mut self, messages: Vec<Value>) {
        if let Start::Handed(r) = self {
            if let Some(r) = Arc::get_mut(r) {
                r.case.messages = Arc::new(messages);
            }
        }
    }
}

/// [`shrink_in`] from `start`.
fn shrink_from(
    session: &mut dyn Session,
    settings: &Settings,
    mut start: Start<'_>,
    clause: Clause,
    limits: &ShrinkLimits,
    progress: &(dyn Fn(&ShrinkProgress) + Sync),
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
    let tries = Cell::new(0usize);
    let out_of_time = Cell::new(false);
    let fatal: RefCell<Option<RunError>> = RefCell::new(None);
    // The result of the last failing candidate, its messages left out:
    // they are the shrink's result.
    let best: RefCell<Option<CaseResult>> = RefCell::new(None);
    let past = |d: &Option<Instant>| d.is_some_and(|d| Instant::now() >= d);
    let mut stop = || -> bool {
        if let Some(s) = super::interrupt::requested() {
            fatal.borrow_mut().get_or_insert(RunError::Interrupted(s));
        }
        if fatal.borrow().is_some() || tries.get() >= limits.tries {
            return true;
        }
        if past(&limits.deadline) {
            out_of_time.set(true);
            return true;
        }
        false
    };
    let mut small: Option<QuickCase> = None;
    // Whether the failing case's messages were moved into the shrink.
    let mut moved = false;
    let original_len = start.result().case.messages.len();
    let budget = Budget::read(&start.result().case.budget, original_len);
    // A case whose own run took over four times the time left gets no
    // try in: it is not copied, and is reported as it failed.
    let no_time = limits.deadline.is_some_and(|d| {
        Instant::now()
            .checked_add(start.result().took / 4)
            .is_none_or(|t| t > d)
    });
    out_of_time.set(no_time);
    if let (false, false, Ok(budget)) = (no_time, stop(), budget) {
        let costs = budget.costs().map(|c| Costs {
            tokens: c.to_vec(),
            max_tokens: budget.limit(),
            count_pinned: budget.count_pinned(),
            summary_tokens: start.result().case.summary_tokens,
        });
        let keep = if settings.policy == Policy::Repair {
            // A repair is certified on broken histories (spec §17.1):
            // shrinking keeps the history broken.
            Keep::Broken
        } else {
            Keep::Valid
        };
        let messages;
        (messages, moved) = start.messages();
        let mut first = QuickCase {
            messages,
            budget: budget.max_messages(),
            allow_pending: false,
            costs,
        };
        let shrinkable = match keep {
            Keep::Broken => first.is_broken(),
            Keep::Valid if first.is_valid() => true,
            Keep::Valid => {
                first.allow_pending = true;
                first.is_valid()
            }
        };
        if !shrinkable && moved {
            start.give_back(std::mem::take(&mut first.messages));
            moved = false;
        }
        let failing = start.result();
        if shrinkable {
            session.bound(Bounds {
                deadline: limits.deadline,
                answer_cap: (clause != Clause::ProtocolSize).then_some(SHRINK_ANSWER_CAP),
            });
            let mut best_len = original_len;
            let mut fails = |c: &mut QuickCase| -> bool {
                // Every candidate stays inside the run's contract: the
                // knobs of --without, what a declaration leaves out (spec
                // §16.6), a sanitizer's scope (§17.8), read as the plan
                // reads them (a token budget as 1 message).
                let read_budget = if c.costs.is_some() { 1 } else { c.budget };
                if settings.case_skipped(&c.messages, read_budget).is_some() {
                    return false;
                }
                tries.set(tries.get() + 1);
                let rc = RunCase {
                    messages: Arc::new(std::mem::take(&mut c.messages)),
                    ..case_of(failing, c)
                };
                // Output an earlier candidate left behind is not this one's.
                let _ = session.settle();
                let hit = match run_case_pending(session, &one, Cow::Borrowed(&rc)) {
                    Ok(mut r) => {
                        if let Some(late) = session.settle() {
                            r.add_protocol_failure(late);
                        }
                        let hit = r.verdicts.iter().any(|v| v.clause == clause && v.failed());
                        // Shrinking goes on from every failing candidate,
                        // so the last one is the smallest.
                        if hit {
                            *best.borrow_mut() = Some(r.into_result_without_messages());
                            best_len = rc.messages.len();
                        }
                        hit
                    }
                    Err(e) => {
                        *fatal.borrow_mut() = Some(e);
                        false
                    }
                };
                // Nothing else holds the candidate's messages now.
                c.messages = Arc::try_unwrap(rc.messages).unwrap_or_else(|m| m.to_vec());
                progress(&ShrinkProgress {
                    clause,
                    tries: tries.get(),
                    messages: best_len,
                    done: false,
                });
                hit
            };
            small = Some(first.minimize_within(keep, &mut stop, &mut fails));
            session.bound(Bounds::default());
        }
    }
    let best = best.into_inner();
    if let (None, Some(small), true) = (&best, &mut small, moved) {
        // No candidate failed: the shrink's case is the failing case's
        // own messages, as they were (also when the kit is stopped).
        start.give_back(std::mem::take(&mut small.messages));
    }
    if let Some(e) = fatal.into_inner() {
        return Err(e);
    }
    let failing = start.result();
    let best: Cow<'_, CaseResult> = match (best, small) {
        (Some(mut r), Some(mut small)) => {
            let messages = std::mem::take(&mut small.messages);
            r.case = RunCase {
                messages: messages.into(),
                ..case_of(failing, &small)
            };
            Cow::Owned(r)
        }
        _ => Cow::Borrowed(failing),
    };
    progress(&ShrinkProgress {
        clause,
        tries: tries.get(),
        messages: best.case.messages.len(),
        done: true,
    });
    let mut cx = counterexample_of(settings, failing, best, clause, tries.get())?;
    cx.out_of_time = out_of_time.get();
    Ok(cx)
}

/// The case `c` stands for, as the run case `failing` was (its id and
/// summary members), without messages (the caller moves them in).
fn case_of(failing: &CaseResult, c: &QuickCase) -> RunCase {
    RunCase {
        id: failing.case.id.clone(),
        budget: match &c.costs {
            None => BudgetFields::messages(Value::from(c.budget)),
            Some(t) => BudgetFields::tokens(
                Value::from(t.max_tokens),
                Value::Array(t.tokens.iter().map(|&x| Value::from(x)).collect()),
                Some(Value::Bool(t.count_pinned)),
            ),
        },
        messages: Default::default(),
        summary: failing.case.summary,
        summary_tokens: failing.case.summary_tokens,
        for_repair: failing.case.for_repair,
    }
}

/// Shrinks `failing` as [`shrink_in`] does, through a session of its own
/// (closed at the end), within `max_tries` candidate runs.
///
/// # Errors
///
/// [`RunError`] when the reducer cannot be started or the kit is stopped.
pub fn shrink(
    settings: &Settings,
    failing: &CaseResult,
    clause: Clause,
    max_tries: usize,
) -> Result<Counterexample, RunError> {
    let mut session = settings.session();
    let cx = shrink_in(
        session.as_mut(),
        settings,
        failing,
        clause,
        &ShrinkLimits::tries(max_tries),
        &|_| {},
    );
    let _ = session.close();
    cx
}

/// The counterexample of `clause` from the smallest failing result
/// `best` (shrunk from `failing` in `tries` candidate runs; `failing`
/// itself, shared, when no candidate failed).
fn counterexample_of(
    settings: &Settings,
    failing: &CaseResult,
    best: Cow<'_, CaseResult>,
    clause: Clause,
    tries: usize,
) -> Result<Counterexample, RunError> {
    let shrunk = matches!(best, Cow::Owned(_));
    let detail = best
        .verdicts
        .iter()
        .find(|v| v.clause == clause)
        .and_then(|v| match &v.outcome {
            Outcome::Fail(d) => Some(d.clone()),
            _ => None,
        })
        .unwrap_or_default();
    let valid_input = best.valid_input();
    let (mut case, actual) = match best {
        Cow::Owned(r) => (r.case, r.response),
        Cow::Borrowed(r) => (r.case.clone(), r.response.clone()),
    };
    case.summary |= settings.summaries;
    let cx = Counterexample {
        clause,
        original_id: failing.case.id.clone(),
        case,
        detail,
        expected: Response::Messages(Vec::new()),
        actual,
        first_difference: None,
        tries,
        cases: 1,
        valid_input,
        out_of_time: false,
        shrunk,
        saved_to: None,
    };
    stoppable(settings, cx, finish)
}

/// The parts of counterexample `cx` that read its whole case: the
/// reference reducer's answer to it as the run sends it (in its wire
/// format, under its provider profile), where the reducer's answer first
/// differs from it, and the case's id (a hash of its messages).
fn finish(settings: &Settings, mut cx: Counterexample) -> Counterexample {
    let sent = cx
        .case
        .wire(settings.format)
        .unwrap_or(Cow::Borrowed(&cx.case.messages));
    let expected = Response::from(
        Reference::new(settings.policy, settings.format)
            .with_provider(settings.provider)
            .reduce(Input::new(&sent).budget_fields(&cx.case.budget)),
    );
    drop(sent);
    cx.first_difference = match (&expected, &cx.actual) {
        (Response::Messages(a), Some(Response::Messages(b))) => first_difference_in(a, b),
        (_, None) => None,
        (a, Some(b)) if a.same_as(b) => None,
        _ => Some("$".into()),
    };
    cx.expected = expected;
    cx.case.id = cx.case_id(settings.policy);
    cx
}

/// `work(settings, cx)`, which reads the whole case (about a second for a
/// million messages), done on a thread of its own while this one looks
/// for a stop every 10 ms, so that a signal ends the shrinking phase
/// within that (spec §8.7): the thread is then left to finish alone.
/// Without threads (WebAssembly) it is done here.
///
/// # Errors
///
/// [`RunError::Interrupted`] when a stop is asked for first.
fn stoppable(
    settings: &Settings,
    // Given back by a worker that could not take it (with `process`).
    #[cfg_attr(not(feature = "process"), allow(unused_mut))] mut cx: Counterexample,
    work: fn(&Settings, Counterexample) -> Counterexample,
) -> Result<Counterexample, RunError> {
    let stopped = || super::interrupt::requested().map(RunError::Interrupted);
    if let Some(e) = stopped() {
        return Err(e);
    }
    #[cfg(feature = "process")]
    {
        let (tx, rx) = std::sync::mpsc::channel();
        let one = settings.clone();
        let (give, take) = std::sync::mpsc::channel::<Counterexample>();
        let worker = std::thread::Builder::new()
            .name("counterexample".into())
            .spawn(move || {
                if let Ok(cx) = take.recv() {
                    let _ = tx.send(work(&one, cx));
                }
            });
        if worker.is_ok() {
            // A worker that could not take it gives it back.
            match give.send(cx) {
                Err(std::sync::mpsc::SendError(back)) => cx = back,
                Ok(()) => loop {
                    match rx.recv_timeout(std::time::Duration::from_millis(10)) {
                        Ok(done) => return Ok(done),
                        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                            if let Some(e) = stopped() {
                                return Err(e);
                            }
                        }
                        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                            panic!("the counterexample's worker panicked")
                        }
                    }
                },
            }
        }
    }
    Ok(work(settings, cx))
}
