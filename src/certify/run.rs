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
use crate::formats::sniff::format_mismatch;
use crate::formats::{read_history, to_wire, Format};
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
pub use super::result::{CaseResult, RunCase};
pub use super::settings::{SessionFactory, Sessions, Settings};

/// A case's result as the runner holds it until the case is recorded: the
/// case as the list gave it (borrowed or made), and its wire messages only
/// when they are not its messages as they are (every format but the
/// canonical one). A case that passes is recorded without copying either;
/// only a failing one becomes a [`CaseResult`].
pub(super) struct Pending<'a> {
    pub(super) case: Cow<'a, RunCase>,
    wire: Wire,
    pub(super) response: Option<Response>,
    pub(super) verdicts: Vec<Verdict>,
    pub(super) stderr_tail: String,
    pub(super) skipped: Option<String>,
    pub(super) unsupported: bool,
    pub(super) valid_input: bool,
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
        Pending {
            case: Cow::Owned(r.case),
            wire: match r.wire_messages {
                Some(w) => Wire::Converted(w),
                None => Wire::Same,
            },
            response: r.response,
            verdicts: r.verdicts,
            stderr_tail: r.stderr_tail,
            skipped: r.skipped,
            unsupported: r.unsupported,
            valid_input: r.valid_input,
            last_request: r.last_request,
            group_at_cut: false,
            took: r.took,
        }
    }
}

/// A [`Pending`] case's wire messages.
enum Wire {
    /// None: the case was not sent.
    NotSent,
    /// The case's messages as they are (the canonical format).
    Same,
    /// Converted.
    Converted(Vec<Value>),
}

impl Wire {
    fn of(w: Cow<'_, [Value]>) -> Wire {
        match w {
            Cow::Borrowed(_) => Wire::Same,
            Cow::Owned(w) => Wire::Converted(w),
        }
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

impl Pending<'_> {
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
            wire,
            response,
            verdicts,
            stderr_tail,
            skipped,
            unsupported,
            valid_input,
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
        let wire_messages = match wire {
            // The case's messages are the wire messages: not copied
            // (`CaseResult::wire`).
            Wire::NotSent | Wire::Same => None,
            Wire::Converted(w) => Some(w),
        };
        CaseResult {
            case,
            wire_messages,
            response,
            verdicts,
            stderr_tail,
            skipped,
            unsupported,
            valid_input,
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
        CaseRecord::from_parts(
            &self.case,
            &self.verdicts,
            &self.stderr_tail,
            self.skipped.as_deref(),
        )
        .with_input(self.valid_input, self.unsupported)
    }
}

/// The case's messages in `format`. With per-message costs (`costs`) the
/// wire form must have one message per message, or the costs could not
/// travel; a message budget counts the wire format's messages (a
/// Responses item per call, spec §14).
fn wire(format: Format, messages: &[Value], costs: bool) -> Result<Cow<'_, [Value]>, String> {
    if format == Format::Canonical {
        // The canonical wire form is the messages as they are.
        return Ok(Cow::Borrowed(messages));
    }
    let w = to_wire(format, messages).map_err(|e| format!("no {} form: {e}", format.title()))?;
    if costs && w.len() != messages.len() {
        return Err(format!(
            "no {} form with one message per message (its costs could not travel)",
            format.title()
        ));
    }
    Ok(Cow::Owned(w))
}

fn skipped(case: Cow<'_, RunCase>, why: String) -> Pending<'_> {
    Pending {
        case,
        wire: Wire::NotSent,
        response: None,
        verdicts: Vec::new(),
        stderr_tail: String::new(),
        skipped: Some(why),
        unsupported: false,
        valid_input: true,
        last_request: None,
        group_at_cut: false,
        took: Duration::ZERO,
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

fn run_case_timed<'a>(
    session: &mut dyn Session,
    settings: &Settings,
    case: Cow<'a, RunCase>,
) -> Result<Pending<'a>, RunError> {
    if let Some(why) = case.needs(settings.policy, settings.protocol, settings.summaries) {
        return Ok(skipped(case, why));
    }
    if let Some(why) = settings.outside_shown(&case) {
        return Ok(skipped(case, why));
    }
    let wire_messages = match wire(
        settings.format,
        &case.messages,
        case.budget.tokens.is_some(),
    ) {
        Ok(m) => m,
        Err(why) => return Ok(skipped(case, why)),
    };
    let summary = case.summary_member(settings.summaries);
    let first_request =
        OutgoingRequest::new(settings.format, &case.budget, summary, &wire_messages);
    let mut protocol: Vec<(Clause, String)> = Vec::new();
    let mut stderr_tail = String::new();
    let mut last_request = None;
    let json_numbers = settings.declared.json_numbers;
    let first = match session.exchange(&first_request)? {
        // An answer in another wire format is not judged clause by clause
        // (spec §9.2): it says which format it looks like.
        Ok(Response::Messages(m)) if format_mismatch(settings.format, &m).is_err() => {
            let e = format_mismatch(settings.format, &m).unwrap_err();
            protocol.push((
                Clause::ProtocolJson,
                format!("the answer's messages are not in the run's wire format: {e}"),
            ));
            None
        }
        Ok(r) => Some(nearest_doubles_if(json_numbers, r)),
        Err(failure) => {
            protocol.push((failure.clause, failure.detail));
            stderr_tail = failure.stderr_tail;
            None
        }
    };
    // A stop asked for while the reducer answered ends the case before
    // the kit's own work on the answer (spec §8.7).
    if let Some(s) = super::interrupt::requested() {
        return Err(RunError::Interrupted(s));
    }
    // What is judged: the messages as sent, or under json-numbers as a
    // reader of doubles has them (spec §16.7).
    let judged: Cow<'_, [Value]> = if json_numbers {
        let mut m = wire_messages.to_vec();
        let changed = m.iter_mut().fold(false, |c, v| to_nearest_doubles(v) | c);
        if changed {
            Cow::Owned(m)
        } else {
            Cow::Borrowed(&wire_messages[..])
        }
    } else {
        Cow::Borrowed(&wire_messages[..])
    };
    // The input, classified once for its validity, the reference answer
    // and the checker (unreadable: each reports it as it does on its own).
    let in_h = read_history(settings.format, &judged);
    // Under `repair` broken inputs are the point (spec §17.1): every
    // readable input is judged as a valid one is.
    let valid = if settings.policy == Policy::Repair {
        in_h.is_ok()
    } else {
        valid_input(&in_h)
    };
    if let Some(Response::Unsupported(why)) = &first {
        // A request the reducer cannot express (spec §13.7): skipped and
        // counted, unless its budget is no budget (rejects-bad-budget).
        if Budget::read(&case.budget, wire_messages.len()).is_ok() {
            let mut p = skipped(case, format!("unsupported by the reducer: {why}"));
            p.unsupported = true;
            p.valid_input = valid;
            return Ok(p);
        }
    }
    let req = Request {
        format: settings.format,
        policy: settings.policy,
        budget: &case.budget,
        messages: &judged,
        summary,
        declared: settings.declared,
    };
    let verdicts;
    let mut group_at_cut = false;
    if let Some(first) = &first {
        // Under budget-unit=items or =batched-results the reference keeps
        // what fits in that unit (spec §16.3).
        let items_budget = match (&in_h, settings.declared.unit) {
            (Ok(h), Some(_)) if !settings.declared.counts_spans() => {
                Budget::read(&case.budget, judged.len())
                    .ok()
                    .filter(|b| !b.is_tokens())
                    .map(|b| crate::check::in_declared_unit(b, &settings.declared, h).to_fields())
            }
            _ => None,
        };
        // The summary's reference honours no provider profile.
        let plain = Reference::new(settings.policy, settings.format);
        let input = match &in_h {
            Ok(h) => Input::classified(&judged, h)
                .budget_fields(items_budget.as_ref().unwrap_or(&case.budget)),
            Err(_) => Input::new(&judged).budget_fields(&case.budget),
        };
        let reference = Some(Response::from(
            plain.with_provider(settings.provider).reduce(input),
        ));
        let reference_less_summary = summary.and_then(|s| {
            let b = Budget::read(&case.budget, judged.len()).ok()?;
            Some(Response::from(
                plain.reduce(Input::new(&judged).budget(&b.less(s))),
            ))
        });
        let mut answers: Answers = Vec::new();
        let extra = if settings.extra_requests {
            extra_requests(&req, first)
        } else {
            Vec::new()
        };
        // Which request's response was the last answer: `Some(None)` the
        // first's.
        let mut answered: Option<Option<ExtraKind>> = Some(None);
        for extra in extra {
            if let Some(late) = session.settle() {
                protocol.push((late.clause, labelled(last_request, &late.detail)));
            }
            // The repeated request is the first one, already written.
            let built;
            let r = if extra.kind == ExtraKind::Repeat {
                &first_request
            } else {
                // The smaller budget's request has the first one's
                // messages: its text is the first one's, budget apart.
                let same_messages = std::ptr::eq(&*extra.messages, &*judged);
                built = if same_messages {
                    first_request.with_budget(&extra.budget)
                } else {
                    OutgoingRequest::new(settings.format, &extra.budget, summary, &extra.messages)
                };
                &built
            };
            // The answer before, when it was a response: an answer the
            // same byte for byte is that response again, not read again.
            let answer = match answered {
                Some(before) => match session.exchange_unless_same(r)? {
                    Some(answer) => answer.map(Answer::Read),
                    None => Ok(Answer::Same(before)),
                },
                None => session.exchange(r)?.map(Answer::Read),
            };
            last_request = Some(extra.kind);
            answered = answer.is_ok().then_some(last_request);
            let answer = answer.map(|a| match a {
                Answer::Read(r) => Answer::Read(nearest_doubles_if(json_numbers, r)),
                same => same,
            });
            match answer {
                // An extra request the reducer cannot express leaves its
                // clause not judged; a repeated request answered so is
                // not the same answer (`deterministic`).
                Ok(Answer::Read(Response::Unsupported(_))) if extra.kind != ExtraKind::Repeat => {}
                Ok(a) => answers.push((extra.kind, extra.limit(), a)),
                Err(failure) => {
                    protocol.push((failure.clause, labelled(last_request, &failure.detail)));
                    if stderr_tail.is_empty() {
                        stderr_tail = failure.stderr_tail;
                    }
                }
            }
        }
        let of = |kind| answer_to(first, &answers, Some(kind));
        let extras = ExtrasRef {
            repeat: of(ExtraKind::Repeat),
            again: of(ExtraKind::Again),
            smaller: answers
                .iter()
                .find(|(kind, _, _)| *kind == ExtraKind::Smaller)
                .and_then(|(_, limit, _)| Some((*limit, of(ExtraKind::Smaller)?))),
            reference: reference.as_ref(),
            reference_less_summary: reference_less_summary.as_ref(),
        };
        group_at_cut = valid
            && matches!(first, Response::Messages(_))
            && in_h.as_ref().is_ok_and(|h| {
                Budget::read(&case.budget, judged.len())
                    .is_ok_and(|b| newest_fit_splits_a_call(h, &b))
            });
        // An unreadable input is `check_with_borrowed`'s error, read once.
        match in_h.and_then(|h| check_classified(&req, h, first, extras, settings.provider)) {
            Ok(v) => verdicts = v,
            Err(e) => {
                let skipped = Some(format!("the case's input cannot be read: {e}"));
                let response = Some(first.clone());
                return Ok(Pending {
                    wire: Wire::of(wire_messages),
                    case,
                    response,
                    verdicts: Vec::new(),
                    stderr_tail,
                    skipped,
                    unsupported: false,
                    valid_input: valid,
                    last_request,
                    group_at_cut: false,
                    took: Duration::ZERO,
                });
            }
        }
    } else {
        verdicts = Clause::judged_in(
            settings.policy,
            summary.is_some(),
            settings.format.has_reasoning(),
            settings.provider.is_some(),
            &settings.declared,
        )
        .into_iter()
        .filter(|c| !c.judged_by_runner())
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
    Ok(Pending {
        wire: Wire::of(wire_messages),
        case,
        response: first,
        verdicts: all,
        stderr_tail,
        skipped: None,
        unsupported: false,
        valid_input: valid,
        last_request,
        group_at_cut,
        took: Duration::ZERO,
    })
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

#[cfg(test)]
mod tests;
