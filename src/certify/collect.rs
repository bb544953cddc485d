//! Running many cases ([`run_cases`]): workers that take the cases in
//! turn, the compact record of each ([`super::records`]), the failing cases
//! grouped by clause and kind of failure with the best example of each
//! ([`FailureGroup`]), and the run stopped when the reducer answers nothing
//! ([`GaveUp`], spec §8.5).

use super::exchange::{ProtocolFailure, Restarts, RunError};
use super::process;
use super::records::{clause_bit, Records};
use super::result::{add_protocol_failure, CaseResult};
use super::run::{run_case_pending, CaseList, Pending, Settings};
use crate::check::Outcome;
use crate::formats::Format;
use crate::terms::Clause;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
#[cfg(not(target_arch = "wasm32"))]
use std::time::Instant;
#[cfg(target_arch = "wasm32")]
use web_time::Instant;

/// What a run of many cases keeps ([`run_cases`]).
#[derive(Debug, Default)]
pub struct Collected {
    /// The record of every case that finished, in case order (all of them
    /// unless the run was interrupted).
    pub records: Records,
    /// How many cases the run was asked to run.
    pub planned: usize,
    /// The failing cases grouped by clause and kind of failure, in
    /// [`Clause::ALL`] order, then by their examples' [`ExampleKey`].
    pub failures: Vec<FailureGroup>,
    /// The reducer restarts of every worker's session.
    pub restarts: Restarts,
    /// The signal that stopped the run, if one did (spec §8.7).
    pub interrupted: Option<i32>,
    /// Set when the run stopped feeding a reducer that gave no answer to
    /// [`MAX_UNANSWERED`] cases in a row (spec §8.5).
    pub gave_up: Option<GaveUp>,
    /// The first defect of the run (a protocol or safety clause failed on
    /// a valid input, spec §9.2, §9.3), in the order the cases finished:
    /// its case id and the time from the run's start (before the first
    /// request) until it was judged. `None` when no case has a defect.
    pub first_defect: Option<(String, Duration)>,
    /// The first case that differs from the policy (only policy or exact
    /// clauses failed on a valid input, spec §9.3), as
    /// [`Collected::first_defect`]: never a defect.
    pub first_difference: Option<(String, Duration)>,
    /// Set when the run stopped at its first defect
    /// ([`run_cases_with`] with `stop_at_first_defect`) before every case
    /// ran: how many cases were not run.
    pub stopped_at_first_defect: Option<usize>,
    /// The cases where a reducer that reads tool calls shows it, and
    /// whether it did.
    pub groups_at_cut: GroupsAtCut,
}

/// The cases of a run whose input is valid, that the reducer answered
/// with messages, and where the newest messages that fit the budget
/// split a call group (a blind cut would leave a result without its call
/// or a call without its result); and of them, those whose answer kept
/// every call with its results (it passed `no-orphan-result`,
/// `calls-keep-results` and `no-fabrication`). A reducer that reads no
/// tool calls in the run's format (one that reads another format sees
/// none) keeps none whole: the text report's hint says so only then.
///
/// Besides, the other patterns of the answers the report's hints read
/// ([`GroupsAtCut::pinned`], [`GroupsAtCut::results`]): each hint is given
/// when the answers show what it says, and only then.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GroupsAtCut {
    /// Cases where the newest messages that fit split a call group.
    pub cases: usize,
    /// Of them, the cases whose answer kept every call group whole.
    pub kept_whole: usize,
    /// The cases with a valid input and a pinned system message on which
    /// `system-pinned` was judged, by the pinned message (spec §2):
    /// `pinned[developer][later]`, `developer` when its role is
    /// `developer` (spec §1.2), `later` when it is not message 0; each
    /// `(cases, of them failing system-pinned)`.
    pub pinned: [[(usize, usize); 2]; 2],
    /// The cases with a valid input holding a tool result that the
    /// reducer answered with messages, and of them, those whose answer
    /// holds a tool result (read in the run's format): none of many says
    /// the reducer recognises no result in that format.
    pub results: (usize, usize),
    /// The cases with a valid input under a message budget N smaller than
    /// M (the messages besides the pinned one) that the reducer answered
    /// with messages: `binding[0]` those whose input has no pinned system
    /// message, `binding[1]` those with one the answer keeps; each `(cases,
    /// answers keeping exactly N − 1 messages of M, answers keeping N or
    /// more)`. A reducer whose budget counts the pinned message keeps N of
    /// M only without one (`--declare count-pinned`, spec §16.9).
    pub binding: [(usize, usize, usize); 2],
}

/// How many cases in a row may get no answer at all (a crash, a time-out,
/// an answer that is not one) before the run stops feeding the reducer
/// (spec §8.5).
pub const MAX_UNANSWERED: usize = 20;

/// A run that stopped feeding a plainly broken reducer (spec §8.5): the
/// cases left were not run, and the run fails.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GaveUp {
    /// The failure of the last case without an answer.
    pub last_failure: String,
    /// The reducer's decisive stderr line then ([`decisive_line`]), if
    /// one reads as an error.
    pub stderr_line: Option<String>,
    /// How many cases of the run were not run.
    pub not_run: usize,
}

/// The line of a reducer's stderr that says why it failed: the first
/// that reads as an error (it says `error`, `exception`, `panic`,
/// `cannot`, `not found` or `no such file`, in any case), which a stderr
/// tail may end long after (a stack trace), or else its last line.
///
/// # Examples
///
/// ```
/// use reducer_kit::certify::collect::decisive_line;
/// let node = "node:internal/modules/cjs/loader:1228\n  throw err;\n  ^\n\nError: Cannot find module '/x/m.js'\n    at Module._resolveFilename (node:internal)\n";
/// assert_eq!(decisive_line(node), Some("Error: Cannot find module '/x/m.js'"));
/// assert_eq!(decisive_line("ok\nstill going\n"), Some("still going"));
/// assert_eq!(decisive_line(" \n"), None);
/// ```
pub fn decisive_line(stderr: &str) -> Option<&str> {
    const MARKS: [&str; 6] = [
        "error",
        "exception",
        "panic",
        "cannot",
        "not found",
        "no such file",
    ];
    let lines = stderr.lines().map(str::trim).filter(|l| !l.is_empty());
    lines
        .clone()
        .find(|l| {
            let l = l.to_ascii_lowercase();
            MARKS.iter().any(|m| l.contains(m))
        })
        .or_else(|| lines.clone().next_back())
}

/// The failing cases of one clause whose failures read alike (the same
/// [`failure_signature`]), and the one that shows it best: the example
/// that is shrunk to a counterexample.
#[derive(Clone, Debug)]
pub struct FailureGroup {
    /// The clause that fails.
    pub clause: Clause,
    /// The failure detail with ids, numbers and quoted texts blanked out
    /// ([`failure_signature`]); `*` for the failures of a clause beyond its
    /// first [`MAX_KINDS`] kinds.
    pub signature: String,
    /// How many cases fail this way.
    pub cases: usize,
    /// The full result of the best example ([`ExampleKey`]).
    pub example: Arc<CaseResult>,
}

/// Most kinds of failure a run tells apart per clause (each holds one full
/// result); the failures of later kinds are counted together.
pub const MAX_KINDS: usize = 8;

/// How a failing case ranks as the example of its failure (smallest
/// first): cases with a valid input first (valid history, pending allowed,
/// and a budget that can be honoured; spec §6.1), then generated before
/// hand-written, then fewest messages, then smallest id, then earliest.
pub type ExampleKey = (bool, bool, usize, String, usize);

/// The [`ExampleKey`] of case `r`, at position `index` of the run.
pub fn example_key(r: &CaseResult, index: usize) -> ExampleKey {
    let valid = crate::terms::Budget::read(&r.case.budget, r.case.messages.len()).is_ok()
        && crate::formats::view_history(Format::Canonical, &r.case.messages).is_ok_and(|views| {
            crate::validate::validate(
                &views,
                crate::validate::Options {
                    allow_pending: true,
                },
            )
            .is_empty()
        });
    (
        !valid,
        !r.case.id.starts_with("gen/"),
        r.case.messages.len(),
        r.case.id.clone(),
        index,
    )
}

/// What tells one kind of failure from another: the failure `detail` with
/// every run of digits written `#` and every double-quoted text `"…"`
/// (message indexes, call ids, counts), so that "output message 3: result
/// "k2" has no call earlier in the output" and the same with message 0 and
/// id "x" read alike.
///
/// # Examples
///
/// ```
/// use reducer_kit::certify::collect::failure_signature;
/// assert_eq!(
///     failure_signature(r#"output message 12: result "c\"2" has no call"#),
///     r#"output message #: result "…" has no call"#
/// );
/// ```
pub fn failure_signature(detail: &str) -> String {
    let mut out = String::with_capacity(detail.len());
    let mut chars = detail.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            while chars.peek().is_some_and(char::is_ascii_digit) {
                chars.next();
            }
            out.push('#');
        } else if c == '"' {
            while let Some(q) = chars.next() {
                match q {
                    '\\' => {
                        chars.next();
                    }
                    '"' => break,
                    _ => {}
                }
            }
            out.push_str("\"…\"");
        } else {
            out.push(c);
        }
    }
    out
}

/// One kind of failure while a run goes: its signature, how many cases,
/// the best example's key and result.
type Kind = (String, usize, LazyKey, Arc<CaseResult>);

/// The [`ExampleKey`] of the example at `index`, read on first use: it
/// validates the whole case, and is needed only when another case of
/// the same kind comes to be compared (a run with one huge failing case
/// never reads it).
#[derive(Clone, Debug)]
struct LazyKey {
    index: usize,
    key: std::cell::OnceCell<ExampleKey>,
}

impl LazyKey {
    fn new(index: usize) -> LazyKey {
        LazyKey {
            index,
            key: std::cell::OnceCell::new(),
        }
    }

    /// The key of `r`, the example this key belongs to.
    fn of(&self, r: &CaseResult) -> &ExampleKey {
        self.key.get_or_init(|| example_key(r, self.index))
    }
}

/// The collector the workers hand their finished cases to.
struct Collector {
    records: Records,
    /// Per clause (index in `Clause::ALL`): its kinds of failure so far,
    /// each with its count and its best example and key.
    groups: Vec<Vec<Kind>>,
    restarts: Restarts,
    /// When the run began, and its first defect and first difference
    /// from the policy so far.
    started: Instant,
    first_defect: Option<(String, Duration)>,
    first_difference: Option<(String, Duration)>,
    /// Cases recorded so far that failed a clause.
    failing: usize,
    groups_at_cut: GroupsAtCut,
    /// The run's wire format: answers are read in it.
    format: Format,
}

/// Whether canonical message `m` has a role that makes a system message
/// (`system` or `developer`, in any letter case, spec §1.2), and whether
/// that role is `developer`.
fn system_role(m: &serde_json::Value) -> Option<bool> {
    let role = m.get("role")?.as_str()?;
    if role.eq_ignore_ascii_case("developer") {
        Some(true)
    } else if role.eq_ignore_ascii_case("system") {
        Some(false)
    } else {
        None
    }
}

/// Case `r` for [`GroupsAtCut::binding`], when its message budget binds
/// and the answer keeps the pinned message (`pinned`: its input has one):
/// whether the answer kept exactly N − 1 messages of M, and whether it
/// kept N or more. `read` gives the answer's views.
fn binding<'v>(
    r: &Pending<'_>,
    pinned: bool,
    read: impl FnOnce() -> Option<&'v [crate::terms::MessageView]>,
) -> Option<(bool, bool)> {
    let messages = &r.case.messages;
    let b = crate::terms::Budget::read(&r.case.budget, messages.len()).ok()?;
    let m = (messages.len() - usize::from(pinned)) as u64;
    if b.is_tokens() || m <= b.limit() {
        return None;
    }
    let views = read()?;
    let system = crate::terms::Role::System;
    if pinned && !views.iter().any(|v| v.role == system) {
        return None;
    }
    let kept = views.iter().filter(|v| v.role != system).count() as u64;
    Some((kept + 1 == b.limit(), kept >= b.limit()))
}

impl Collector {
    /// Tallies what the hints read of case `r` ([`GroupsAtCut::pinned`],
    /// [`GroupsAtCut::results`]).
    fn patterns(&mut self, r: &Pending<'_>) {
        if !r.outcome.valid_input() || r.outcome.skipped().is_some() {
            return;
        }
        let messages = &r.case.messages;
        let pinned = messages
            .iter()
            .enumerate()
            .find_map(|(i, m)| system_role(m).map(|dev| (i, dev)));
        if let Some((i, developer)) = pinned {
            let judged = r
                .verdicts
                .iter()
                .find(|v| v.clause == Clause::SystemPinned)
                .filter(|v| !matches!(v.outcome, Outcome::NotJudged(_)));
            if let Some(v) = judged {
                let t = &mut self.groups_at_cut.pinned[usize::from(developer)][usize::from(i > 0)];
                t.0 += 1;
                t.1 += usize::from(v.failed());
            }
        }
        // The answer's views, read at most once for both tallies below.
        let views = std::cell::OnceCell::new();
        let read = || {
            views
                .get_or_init(|| match &r.response {
                    Some(crate::protocol::Response::Messages(out)) => {
                        crate::formats::view_history(self.format, out).ok()
                    }
                    _ => None,
                })
                .as_deref()
        };
        if let Some((short, full)) = binding(r, pinned.is_some(), read) {
            let t = &mut self.groups_at_cut.binding[usize::from(pinned.is_some())];
            t.0 += 1;
            t.1 += usize::from(short);
            t.2 += usize::from(full);
        }
        let holds_result = messages.iter().any(|m| {
            m.get("contents")
                .and_then(serde_json::Value::as_array)
                .is_some_and(|items| items.iter().any(|it| it["$type"] == "functionResult"))
        });
        if let (true, Some(crate::protocol::Response::Messages(out))) = (holds_result, &r.response)
        {
            if out.is_empty() {
                return;
            }
            self.groups_at_cut.results.0 += 1;
            let kept = read().is_some_and(|v| {
                v.iter().any(|m| {
                    m.items
                        .iter()
                        .any(|it| it.kind == crate::terms::ItemKind::Result)
                })
            });
            self.groups_at_cut.results.1 += usize::from(kept);
        }
    }

    /// Records the case at position `index`; a failing one becomes a
    /// [`CaseResult`] (the case and its wire messages copied when they
    /// were borrowed) and may be kept as the example of its kind.
    fn submit(&mut self, index: usize, r: Pending<'_>) {
        let record = r.record();
        if self.first_defect.is_none() && record.has_defect() {
            self.first_defect = Some((r.case.id.clone(), self.started.elapsed()));
        }
        if self.first_difference.is_none() && record.differs_from_policy() {
            self.first_difference = Some((r.case.id.clone(), self.started.elapsed()));
        }
        self.failing += usize::from(record.failed());
        self.records.put(index, &record);
        self.patterns(&r);
        if r.group_at_cut {
            self.groups_at_cut.cases += 1;
            let kept = [
                Clause::NoOrphanResult,
                Clause::CallsKeepResults,
                Clause::NoFabrication,
            ]
            .iter()
            .all(|c| {
                r.verdicts
                    .iter()
                    .any(|v| v.clause == *c && v.outcome == Outcome::Pass)
            });
            self.groups_at_cut.kept_whole += usize::from(kept);
        }
        let failing: Vec<(Clause, String)> = r
            .verdicts
            .iter()
            .filter(|v| v.failed())
            .map(|v| match &v.outcome {
                Outcome::Fail(d) => (v.clause, failure_signature(d)),
                _ => (v.clause, String::new()),
            })
            .collect();
        if failing.is_empty() {
            return;
        }
        let r = Arc::new(r.into_result());
        let key = LazyKey::new(index);
        for (clause, mut signature) in failing {
            let kinds = &mut self.groups[clause_bit(clause).trailing_zeros() as usize];
            if !kinds.iter().any(|k| k.0 == signature) && kinds.len() >= MAX_KINDS {
                signature = "*".into();
            }
            match kinds.iter_mut().find(|k| k.0 == signature) {
                Some(k) => {
                    k.1 += 1;
                    if key.of(&r) < k.2.of(&k.3) {
                        k.2 = key.clone();
                        k.3 = Arc::clone(&r);
                    }
                }
                None => kinds.push((signature, 1, key.clone(), Arc::clone(&r))),
            }
        }
    }
}

/// Runs every case against the reducer with `settings.jobs` workers and
/// keeps a [`CaseRecord`](super::records::CaseRecord) of each, in case order, and the failing cases
/// grouped by clause and kind of failure ([`FailureGroup`]), with the best
/// example of each. `progress` is called after each case is
/// recorded with the number done and the number of them that failed a
/// clause. With one worker the cases run in the
/// calling thread (no thread hop per case).
///
/// In persistent mode each worker calls [`Session::settle`](super::exchange::Session::settle) before each
/// case and [`Session::close`](super::exchange::Session::close) at the end, and charges unrequested output
/// to the case it followed. When the kit is stopped
/// ([`super::interrupt`]), the cases in flight are dropped and
/// [`Collected::interrupted`] says so. At the end, the run's processes that
/// escaped their group are killed ([`process::sweep`]).
///
/// # Errors
///
/// [`RunError::Start`] when the reducer cannot be started.
pub fn run_cases(
    settings: &Settings,
    cases: &dyn CaseList,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Collected, RunError> {
    run_cases_with(settings, cases, progress, false)
}

/// [`run_cases`], and with `stop_at_first_defect` (`certify
/// --stop-after-first`) no case is begun once a case with a defect (a
/// clause failed on a valid input, spec §9.2) is recorded: the cases in
/// flight finish, the others are not run
/// ([`Collected::stopped_at_first_defect`]). A run with no defect runs
/// every case either way.
///
/// # Errors
///
/// As [`run_cases`].
pub fn run_cases_with(
    settings: &Settings,
    cases: &dyn CaseList,
    progress: &(dyn Fn(usize, usize) + Sync),
    stop_at_first_defect: bool,
) -> Result<Collected, RunError> {
    let total = cases.count();
    // Set once a defect is recorded, when the run stops at the first.
    let halt = AtomicBool::new(false);
    let workers = settings.jobs.max(1).min(total.max(1));
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let collector = Mutex::new(Collector {
        records: Records::with_slots(total),
        groups: vec![Vec::new(); Clause::ALL.len()],
        restarts: Restarts::default(),
        started: Instant::now(),
        first_defect: None,
        first_difference: None,
        failing: 0,
        groups_at_cut: GroupsAtCut::default(),
        format: settings.format,
    });
    let stop: Mutex<Option<RunError>> = Mutex::new(None);
    // Cases in a row, over all workers, that got no answer (spec §8.5).
    let unanswered = AtomicUsize::new(0);
    let gave_up: Mutex<Option<GaveUp>> = Mutex::new(None);
    let submit = |index: usize, r: Pending<'_>| {
        let failing = {
            let mut c = collector.lock().expect("no worker panics");
            c.submit(index, r);
            if stop_at_first_defect && c.first_defect.is_some() {
                halt.store(true, Ordering::SeqCst);
            }
            c.failing
        };
        progress(done.fetch_add(1, Ordering::SeqCst) + 1, failing);
    };
    // One worker's loop: cases taken in turn until none is left or the run
    // stops.
    let work = || {
        let mut session = settings.session();
        // The last case that ran, held until the output that follows it
        // is known; a case skipped is recorded at once (it sent nothing,
        // or an answer `unsupported`), and output found with no case held
        // goes to the next case that runs.
        let mut held: Option<(usize, Pending<'_>)> = None;
        let mut carried: Option<ProtocolFailure> = None;
        let mut interrupted = false;
        loop {
            if stop.lock().expect("no worker panics").is_some() {
                interrupted = true;
                break;
            }
            if gave_up.lock().expect("no worker panics").is_some() || halt.load(Ordering::SeqCst) {
                break;
            }
            let i = next.fetch_add(1, Ordering::SeqCst);
            if i >= total {
                break;
            }
            let case = cases.case(i);
            let late = session.settle();
            match held.take() {
                Some((j, mut r)) => {
                    if let Some(late) = late {
                        r.add_protocol_failure(late);
                    }
                    submit(j, r);
                }
                None => carried = carried.or(late),
            }
            match run_case_pending(session.as_mut(), settings, case) {
                Ok(r) if r.outcome.skipped().is_some() => submit(i, r),
                Ok(mut r) => {
                    if let Some(late) = carried.take() {
                        add_protocol_failure(&mut r.verdicts, &mut r.stderr_tail, None, late);
                    }
                    if r.response.is_some() {
                        unanswered.store(0, Ordering::SeqCst);
                    } else if unanswered.fetch_add(1, Ordering::SeqCst) + 1 >= MAX_UNANSWERED {
                        let last_failure = r
                            .verdicts
                            .iter()
                            .find_map(|v| match &v.outcome {
                                Outcome::Fail(d) => Some(format!("{}: {d}", v.clause)),
                                _ => None,
                            })
                            .unwrap_or_default();
                        let stderr_line = decisive_line(&r.stderr_tail).map(str::to_string);
                        gave_up
                            .lock()
                            .expect("no worker panics")
                            .get_or_insert(GaveUp {
                                last_failure,
                                stderr_line,
                                not_run: 0,
                            });
                    }
                    held = Some((i, r));
                }
                Err(e) => {
                    let mut stop = stop.lock().expect("no worker panics");
                    // A start failure outranks an interruption.
                    if !matches!(*stop, Some(RunError::Start(_))) {
                        *stop = Some(e);
                    }
                    interrupted = true;
                    break;
                }
            }
        }
        let late = if interrupted { None } else { session.close() };
        if let Some((j, mut r)) = held.take() {
            if let Some(late) = late {
                r.add_protocol_failure(late);
            }
            submit(j, r);
        }
        let restarts = session.restarts();
        drop(session);
        collector.lock().expect("no worker panics").restarts += restarts;
    };
    on_workers(workers, &work);
    process::sweep(&settings.reducer.run_id);
    let interrupted = match stop.into_inner().expect("no worker panics") {
        Some(RunError::Interrupted(s)) => Some(s),
        Some(e) => return Err(e),
        None => None,
    };
    let c = collector.into_inner().expect("no worker panics");
    let stopped_at_first_defect =
        (halt.into_inner() && c.records.len() < total).then(|| total - c.records.len());
    let mut gave_up = gave_up.into_inner().expect("no worker panics");
    if let Some(g) = &mut gave_up {
        g.not_run = total.saturating_sub(c.records.len());
    }
    Ok(Collected {
        records: c.records,
        planned: total,
        failures: c
            .groups
            .into_iter()
            .zip(Clause::ALL)
            .flat_map(|(mut kinds, &clause)| {
                kinds.sort_by(|a, b| a.2.of(&a.3).cmp(b.2.of(&b.3)));
                kinds
                    .into_iter()
                    .map(move |(signature, cases, _, example)| FailureGroup {
                        clause,
                        signature,
                        cases,
                        example,
                    })
            })
            .collect(),
        restarts: c.restarts,
        interrupted,
        gave_up,
        first_defect: c.first_defect,
        first_difference: c.first_difference,
        stopped_at_first_defect,
        groups_at_cut: c.groups_at_cut,
    })
}

/// Runs `work` on `workers` threads at once and returns when every one
/// has returned. One worker runs in the calling thread: no thread hop per
/// case, and WebAssembly has no threads (an in-process reducer answers on
/// the caller's).
pub(super) fn on_workers(workers: usize, work: &(dyn Fn() + Sync)) {
    if workers <= 1 {
        work();
    } else {
        std::thread::scope(|s| {
            for _ in 0..workers {
                s.spawn(work);
            }
        });
    }
}

#[cfg(test)]
mod grouping_tests {
    use super::*;
    use crate::certify::result::RunCase;
    use crate::check::Verdict;
    use serde_json::{json, Value};

    fn failing(id: &str, messages: Value, detail: &str) -> CaseResult {
        CaseResult {
            case: RunCase::with_max_messages(
                id.into(),
                json!(1),
                serde_json::from_value(messages).unwrap(),
            ),
            took: std::time::Duration::ZERO,
            response: None,
            verdicts: vec![Verdict {
                clause: Clause::NoOrphanResult,
                outcome: Outcome::Fail(detail.into()),
            }],
            stderr_tail: String::new(),
            outcome: crate::certify::result::CaseOutcome::Judged { valid_input: true },
            last_request: None,
        }
    }

    /// Valid input before invalid, generated before hand-written, then
    /// size: the example of a kind is the generated case although a
    /// smaller hand-written one and an invalid one fail alike; another
    /// detail is another kind.
    #[test]
    fn the_example_of_a_failure_is_valid_and_generated_first() {
        let call = json!({"role": "assistant", "contents": [{"$type": "functionCall", "callId": "a", "name": "F"}]});
        let result = json!({"role": "tool", "contents": [{"$type": "functionResult", "callId": "a", "result": "1"}]});
        let user = json!({"role": "user", "contents": [{"$type": "text", "text": "q"}]});
        let orphan_input = json!([result.clone()]);
        let small = json!([call.clone(), result.clone()]);
        let large = json!([user.clone(), call.clone(), result.clone()]);
        let mut c = Collector {
            records: Records::with_slots(5),
            groups: vec![Vec::new(); Clause::ALL.len()],
            restarts: Restarts::default(),
            started: Instant::now(),
            first_defect: None,
            first_difference: None,
            failing: 0,
            groups_at_cut: GroupsAtCut::default(),
            format: Format::Canonical,
        };
        let alike = |m: u32, id: &str| format!("output message {m}: result \"{id}\" has no call");
        c.submit(
            0,
            failing("spec/rule-orphan", orphan_input, &alike(0, "a")).into(),
        );
        c.submit(1, failing("seed/small", small, &alike(0, "a")).into());
        c.submit(2, failing("gen/1/7", large.clone(), &alike(1, "k2")).into());
        c.submit(
            3,
            failing("gen/1/9", large, "the output has 2 messages").into(),
        );
        // What the progress line counts: four cases, each failing.
        assert_eq!(c.failing, 4);
        let kinds = &c.groups[clause_bit(Clause::NoOrphanResult).trailing_zeros() as usize];
        let seen: Vec<(&str, usize, &str)> = kinds
            .iter()
            .map(|(sig, n, _, r)| (sig.as_str(), *n, r.case.id.as_str()))
            .collect();
        assert_eq!(
            seen,
            vec![
                ("output message #: result \"…\" has no call", 3, "gen/1/7"),
                ("the output has # messages", 1, "gen/1/9"),
            ]
        );
    }
}
