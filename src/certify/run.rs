//! Running one case against a reducer (spec §8, spec §13): the case is
//! sent in the reducer's wire format and runner protocol through a
//! [`Session`], the extra requests some clauses need follow, and the
//! checker judges the answers against the reference reducer's, giving one
//! full [`CaseResult`] (its input, the reducer's answer, every verdict).
//! [`Settings`] is how the reducer is run. Many cases on many workers are
//! [`run_cases`](super::collect::run_cases)'s ([`super::collect`]), which keeps a compact
//! [`CaseRecord`] of each (spec §8.8); the types of one case are
//! [`super::result`]'s, re-exported here.

use super::exchange::{ProtocolFailure, RunError, Session};
pub use super::records::{CaseRecord, Judged, Records, MAX_DETAIL};
use crate::check::{
    check_classified, extra_requests, ExtraKind, ExtrasRef, Outcome, Request, Verdict,
};
use crate::formats::read_history;
use crate::formats::sniff::format_mismatch;
use crate::json::to_nearest_doubles;
use crate::protocol::{OutgoingRequest, Response};
use crate::reduce::{Input, Reference};
use crate::terms::{Budget, Clause, Policy};
use serde_json::Value;
use std::borrow::Cow;
use std::time::Duration;
#[cfg(not(target_arch = "wasm32"))]
use std::time::Instant;
#[cfg(target_arch = "wasm32")]
use web_time::Instant;

use super::result::{add_protocol_failure, labelled};
pub use super::result::{CaseOutcome, CaseResult, RunCase};
pub use super::settings::{SessionFactory, Sessions, Settings};

/// A case's result as the runner holds it until the case is recorded: the
/// case as the list gave it (borrowed or made), and its wire messages only
/// when they are not its messages as they are (every format but the
/// canonical one). A case that passes is recorded without copying either;
/// only a failing one becomes a [`CaseResult`]. Made by [`Pending::new`]
/// only.
pub(super) struct Pending<'a> {
    pub(super) case: Cow<'a, RunCase>,
    pub(super) response: Option<Response>,
    pub(super) verdicts: Vec<Verdict>,
    pub(super) stderr_tail: String,
    /// What happened to the case ([`CaseResult::outcome`]).
    pub(super) outcome: CaseOutcome,
    pub(super) last_request: Option<ExtraKind>,
    /// The input is valid, the reducer answered it with messages, and the
    /// newest messages of M that fit the budget split a call group: a
    /// case where a reducer that reads tool calls shows it (the hint of
    /// the text report, [`super::collect::GroupsAtCut`]).
    pub(super) group_at_cut: bool,
    /// How long the case took to run (its requests and the checker).
    pub(super) took: Duration,
}

#[cfg(test)]
impl From<CaseResult> for Pending<'static> {
    fn from(r: CaseResult) -> Pending<'static> {
        let mut p = Pending::new(Cow::Owned(r.case), r.response, r.outcome);
        p.verdicts = r.verdicts;
        p.stderr_tail = r.stderr_tail;
        p.last_request = r.last_request;
        p.took = r.took;
        p
    }
}

/// The answer to an extra request: read, or the same bytes as the answer
/// before it, which is then not copied.
enum Answer {
    /// A response read from the reducer.
    Read(Response),
    /// The same as the answer to `kind` (`None`: the first request).
    Same(Option<ExtraKind>),
}

/// The responses the extra requests got, in the order sent, each with its
/// kind and the limit of its budget ([`ExtraRequest::limit`](crate::check::ExtraRequest::limit)).
type Answers = Vec<(ExtraKind, u64, Answer)>;

/// The response the request `kind` (`None`: the first request) got: the
/// response that an answer the same as another one stands for.
fn answer_to<'r>(
    first: &'r Response,
    answers: &'r Answers,
    mut kind: Option<ExtraKind>,
) -> Option<&'r Response> {
    // Each answer can only be the same as one sent before it.
    for _ in 0..=answers.len() {
        let Some(k) = kind else {
            return Some(first);
        };
        match answers
            .iter()
            .find(|(of, _, _)| *of == k)
            .map(|(_, _, a)| a)?
        {
            Answer::Read(r) => return Some(r),
            Answer::Same(before) => kind = *before,
        }
    }
    None
}

impl<'a> Pending<'a> {
    /// A case's result with `outcome`: no verdicts, no stderr tail, the
    /// first request the last one, no time taken yet.
    fn new(
        case: Cow<'a, RunCase>,
        response: Option<Response>,
        outcome: CaseOutcome,
    ) -> Pending<'a> {
        Pending {
            case,
            response,
            verdicts: Vec::new(),
            stderr_tail: String::new(),
            outcome,
            last_request: None,
            group_at_cut: false,
            took: Duration::ZERO,
        }
    }

    /// A case not sent ([`CaseOutcome::NotSent`]).
    fn not_sent(case: Cow<'a, RunCase>, why: String) -> Pending<'a> {
        Pending::new(case, None, CaseOutcome::NotSent(why))
    }

    pub(super) fn into_result(self) -> CaseResult {
        self.into_result_with(false)
    }

    /// The result with its case's messages left out (a shrinking try's,
    /// whose caller holds them and puts them in when it keeps the result):
    /// nothing of the case is copied but its id and budget.
    pub(super) fn into_result_without_messages(self) -> CaseResult {
        self.into_result_with(true)
    }

    fn into_result_with(self, without_messages: bool) -> CaseResult {
        let Pending {
            case,
            response,
            verdicts,
            stderr_tail,
            outcome,
            last_request,
            took,
            group_at_cut: _,
        } = self;
        let case = if without_messages {
            RunCase {
                id: case.id.clone(),
                budget: case.budget.clone(),
                messages: Default::default(),
                summary: case.summary,
                summary_tokens: case.summary_tokens,
                for_repair: case.for_repair,
            }
        } else {
            case.into_owned()
        };
        CaseResult {
            case,
            response,
            verdicts,
            stderr_tail,
            outcome,
            last_request,
            took,
        }
    }

    pub(super) fn add_protocol_failure(&mut self, failure: ProtocolFailure) {
        add_protocol_failure(
            &mut self.verdicts,
            &mut self.stderr_tail,
            self.last_request,
            failure,
        );
    }

    pub(super) fn record(&self) -> CaseRecord {
        CaseRecord::from_parts(&self.case, &self.verdicts, &self.stderr_tail, &self.outcome)
    }
}

/// Whether the newest messages of M that fit `budget` (with the pinned
/// message) hold a call or a result whose partner, paired over the whole
/// input, they leave out: a blind cut of the newest messages would split a
/// call group. False when M fits whole or nothing of it fits.
fn newest_fit_splits_a_call(h: &crate::terms::History, budget: &Budget) -> bool {
    let pinned = h.pinned();
    let rest: Vec<usize> = (0..h.len()).filter(|&i| Some(i) != pinned).collect();
    let Ok(room) = budget.available(pinned) else {
        return false;
    };
    let start = budget.fitting_start(&rest, room);
    if start == 0 || start >= rest.len() {
        return false;
    }
    let mut kept = vec![false; h.len()];
    for &i in rest[start..].iter().chain(pinned.as_ref()) {
        kept[i] = true;
    }
    let pairing = h.pairing();
    (0..h.len()).filter(|&i| kept[i]).any(|i| {
        h.items(i).iter().enumerate().any(|(t, item)| {
            matches!(
                item.kind,
                crate::terms::ItemKind::Call | crate::terms::ItemKind::Result
            ) && pairing.partner_message(h, i, t).is_some_and(|m| !kept[m])
        })
    })
}

/// `response` as judged: under `json-numbers` (`on`) with its numbers
/// read as doubles ([`to_nearest_doubles`], spec §16.7).
fn nearest_doubles_if(on: bool, mut response: Response) -> Response {
    if let (true, Response::Messages(m)) = (on, &mut response) {
        m.iter_mut().for_each(|v| {
            to_nearest_doubles(v);
        });
    }
    response
}

/// Whether `history` passes the validator with pending calls allowed
/// (spec §5): what tells a defect from a failure on invalid input (spec
/// §9.2).
fn valid_input(history: &Result<crate::terms::History, crate::terms::ShapeError>) -> bool {
    history.as_ref().is_ok_and(|h| {
        crate::validate::validate_history(
            h,
            crate::validate::Options {
                allow_pending: true,
            },
        )
        .is_empty()
    })
}

/// Runs one case through `session`: the request, then (with
/// [`Settings::extra_requests`]) the extra requests, each preceded by
/// [`Session::settle`] (unrequested output after the previous answer fails
/// `protocol-json`), then the checker with the reference's answer. A case
/// the wire format cannot carry, that shows a shape outside the run
/// ([`Settings::outside_shown`], spec §9.5), or that needs protocol 2 or
/// summaries the run does not have, is skipped. Unrequested output after the
/// case's last answer is found by the next settle or the close of the
/// session, which the caller charges to this case
/// ([`CaseResult::add_protocol_failure`]).
///
/// # Errors
///
/// [`RunError`] when the reducer cannot be started or the kit is stopped.
pub fn run_case(
    session: &mut dyn Session,
    settings: &Settings,
    case: &RunCase,
) -> Result<CaseResult, RunError> {
    run_case_cow(session, settings, Cow::Borrowed(case))
}

/// [`run_case`] of a case the result may keep without copying it.
fn run_case_cow(
    session: &mut dyn Session,
    settings: &Settings,
    case: Cow<'_, RunCase>,
) -> Result<CaseResult, RunError> {
    run_case_pending(session, settings, case).map(Pending::into_result)
}

/// [`run_case`], the result held as [`Pending`], with the time it took.
pub(super) fn run_case_pending<'a>(
    session: &mut dyn Session,
    settings: &Settings,
    case: Cow<'a, RunCase>,
) -> Result<Pending<'a>, RunError> {
    let start = Instant::now();
    let mut p = run_case_timed(session, settings, case)?;
    p.took = start.elapsed();
    Ok(p)
}

/// What a case's exchanges leave besides the answers: the protocol
/// failures (clause and detail, each labelled by the request it happened
/// on), the stderr tail of the first failing request, and which request
/// was sent last (`None`: the first).
#[derive(Default)]
struct Trail {
    protocol: Vec<(Clause, String)>,
    stderr_tail: String,
    last_request: Option<ExtraKind>,
}

impl Trail {
    /// Records a protocol failure of the last request sent.
    fn failed(&mut self, failure: ProtocolFailure) {
        self.protocol
            .push((failure.clause, labelled(self.last_request, &failure.detail)));
        if self.stderr_tail.is_empty() {
            self.stderr_tail = failure.stderr_tail;
        }
    }
}

/// The case's messages as sent in this run, or why it is not sent: it
/// needs protocol 2, summaries or policy `repair` the run does not have
/// ([`RunCase::needs`]), shows a shape outside the run
/// ([`Settings::outside_shown`], spec §9.5), or has no form in the run's
/// wire format ([`wire`]).
fn sendable<'c>(settings: &Settings, case: &'c RunCase) -> Result<Cow<'c, [Value]>, String> {
    if let Some(why) = case.needs(settings.policy, settings.protocol, settings.summaries) {
        return Err(why);
    }
    if let Some(why) = settings.outside_shown(case) {
        return Err(why);
    }
    super::result::wire(
        settings.format,
        &case.messages,
        case.budget.tokens.is_some(),
    )
}

/// The answer to the case's first request as it is judged (under
/// `json-numbers` its numbers read as doubles, spec §16.7), or `None`
/// when there is none to judge: the request failed, or the answer's
/// messages are not in the run's wire format, which is not judged clause
/// by clause (spec §9.2); either is recorded in `trail`.
///
/// # Errors
///
/// [`RunError`] when the reducer cannot be started or the kit is stopped.
fn first_answer(
    session: &mut dyn Session,
    settings: &Settings,
    request: &OutgoingRequest,
    trail: &mut Trail,
) -> Result<Option<Response>, RunError> {
    Ok(match session.exchange(request)? {
        Ok(Response::Messages(m)) if format_mismatch(settings.format, &m).is_err() => {
            let e = format_mismatch(settings.format, &m).unwrap_err();
            trail.protocol.push((
                Clause::ProtocolJson,
                format!("the answer's messages are not in the run's wire format: {e}"),
            ));
            None
        }
        Ok(r) => Some(nearest_doubles_if(settings.declared.json_numbers, r)),
        Err(failure) => {
            trail.failed(failure);
            None
        }
    })
}

/// What is judged of the messages sent (`wire`): the messages as sent,
/// or under `json-numbers` (`on`) as a reader of doubles has them (spec
/// §16.7), copied only when that changes them.
fn judged_messages(on: bool, wire: &[Value]) -> Cow<'_, [Value]> {
    if !on {
        return Cow::Borrowed(wire);
    }
    let mut m = wire.to_vec();
    let changed = m.iter_mut().fold(false, |c, v| to_nearest_doubles(v) | c);
    if changed {
        Cow::Owned(m)
    } else {
        Cow::Borrowed(wire)
    }
}

/// Whether the input `history` counts as valid under `policy`: it passes
/// the validator ([`valid_input`], spec §9.2), or under `repair`, where
/// broken inputs are the point (spec §17.1), it reads at all.
fn input_valid(
    policy: Policy,
    history: &Result<crate::terms::History, crate::terms::ShapeError>,
) -> bool {
    if policy == Policy::Repair {
        history.is_ok()
    } else {
        valid_input(history)
    }
}

/// [`run_case`]'s steps: whether the case is sent ([`sendable`]), the
/// first answer ([`first_answer`]), what is judged and whether it is
/// valid ([`judged_messages`], [`input_valid`]), an `unsupported` answer
/// (spec §13.7), then the judgement ([`judge_answer`]) and the protocol
/// verdicts ([`protocol_verdicts`]).
fn run_case_timed<'a>(
    session: &mut dyn Session,
    settings: &Settings,
    case: Cow<'a, RunCase>,
) -> Result<Pending<'a>, RunError> {
    let wire_messages = match sendable(settings, &case) {
        Ok(m) => m,
        Err(why) => return Ok(Pending::not_sent(case, why)),
    };
    let summary = case.summary_member(settings.summaries);
    let first_request =
        OutgoingRequest::new(settings.format, &case.budget, summary, &wire_messages);
    let mut trail = Trail::default();
    let first = first_answer(session, settings, &first_request, &mut trail)?;
    // A stop asked for while the reducer answered ends the case before
    // the kit's own work on the answer (spec §8.7); so does one asked for
    // during each step of that work that reads the whole case.
    stop_point()?;
    let judged = judged_messages(settings.declared.json_numbers, &wire_messages);
    // The input, classified once for its validity, the reference answer
    // and the checker (unreadable: each reports it as it does on its own).
    let history = read_history(settings.format, &judged);
    let valid = input_valid(settings.policy, &history);
    stop_point()?;
    if let Some(Response::Unsupported(why)) = &first {
        // A request the reducer cannot express (spec §13.7): skipped and
        // counted, unless its budget is no budget (rejects-bad-budget).
        if Budget::read(&case.budget, wire_messages.len()).is_ok() {
            let outcome = CaseOutcome::Unsupported {
                reason: format!("unsupported by the reducer: {why}"),
                valid_input: valid,
            };
            return Ok(Pending::new(case, None, outcome));
        }
    }
    let req = Request {
        format: settings.format,
        policy: settings.policy,
        budget: &case.budget,
        messages: &judged,
        summary,
        declared: settings.declared,
        provider: settings.provider,
    };
    let (judgement, at_cut) = match &first {
        Some(first) => {
            let at_cut = group_at_cut(valid, &req, first, &history);
            let judgement = judge_answer(
                session,
                settings,
                &req,
                &first_request,
                first,
                history,
                &mut trail,
            )?;
            (Some(judgement), at_cut)
        }
        None => (None, false),
    };
    stop_point()?;
    let (outcome, verdicts) = match judgement {
        Some(Err(reason)) => {
            let outcome = CaseOutcome::Unreadable {
                reason,
                valid_input: valid,
            };
            (outcome, None)
        }
        Some(Ok(v)) => (CaseOutcome::Judged { valid_input: valid }, Some(v)),
        None => (
            CaseOutcome::Judged { valid_input: valid },
            Some(no_response(settings)),
        ),
    };
    drop(wire_messages);
    let mut p = Pending::new(case, first, outcome);
    if let Some(v) = verdicts {
        p.verdicts = protocol_verdicts(&trail.protocol);
        p.verdicts.extend(v);
        p.group_at_cut = at_cut;
    }
    p.stderr_tail = trail.stderr_tail;
    p.last_request = trail.last_request;
    Ok(p)
}

/// A stop asked for ([`super::interrupt::requested`]) as the error that
/// ends the case and the run.
fn stop_point() -> Result<(), RunError> {
    match super::interrupt::requested() {
        Some(s) => Err(RunError::Interrupted(s)),
        None => Ok(()),
    }
}

/// Runs one case through a session of its own, closed at the end (what
/// shrinking does with each candidate): unrequested output found at the
/// close is charged to the case.
///
/// # Errors
///
/// [`RunError`] when the reducer cannot be started or the kit is stopped.
pub fn run_one(settings: &Settings, case: &RunCase) -> Result<CaseResult, RunError> {
    let mut session = settings.session();
    let mut r = run_case(session.as_mut(), settings, case)?;
    if let Some(late) = session.close() {
        r.add_protocol_failure(late);
    }
    Ok(r)
}

/// A list of cases to run, made one at a time when asked for (generated
/// cases need not all be held at once).
pub trait CaseList: Sync {
    /// How many cases.
    fn count(&self) -> usize;
    /// Case `i` (`i < count()`): borrowed from a list, or made.
    fn case(&self, i: usize) -> Cow<'_, RunCase>;
}

impl CaseList for [RunCase] {
    fn count(&self) -> usize {
        self.len()
    }

    fn case(&self, i: usize) -> Cow<'_, RunCase> {
        Cow::Borrowed(&self[i])
    }
}

impl CaseList for Vec<RunCase> {
    fn count(&self) -> usize {
        self.len()
    }

    fn case(&self, i: usize) -> Cow<'_, RunCase> {
        Cow::Borrowed(&self[i])
    }
}

mod judge;
use judge::{group_at_cut, judge_answer, no_response, protocol_verdicts};

#[cfg(test)]
mod tests;
