//! Running cases against a reducer (spec §8, spec v2 §13): each case is
//! sent in the reducer's wire format and runner protocol through a
//! [`Session`], the extra requests some
//! clauses need follow, and the checker judges the answers against the
//! reference reducer's.
//!
//! A case gives one full [`CaseResult`] (its input, the reducer's answer,
//! every verdict). A run of many cases ([`run_cases`]) keeps only a compact
//! [`CaseRecord`] of each (id, outcomes, failure details, sizes; stored
//! outside the heap, [`Records`]) and, per failing clause and kind of
//! failure (at most [`MAX_KINDS`] per clause), the count and the full
//! result of the case that shows it best (for shrinking and the
//! counterexample, [`FailureGroup`]): its memory is bounded by the number
//! of workers and clauses times the output limit, whatever the number of
//! cases (spec §8.8). The reports ([`super::report`]) are renderings of the
//! records.

use super::process::{self, Limits, Reducer};
use super::records::clause_bit;
pub use super::records::{CaseRecord, Judged, Records, MAX_DETAIL};
use super::session::{
    PerCaseSession, PersistentSession, ProtocolFailure, Restarts, RunError, Session,
};
use crate::check::{
    check_classified, extra_requests, ExtraKind, ExtrasRef, Outcome, Request, Verdict,
};
use crate::formats::sniff::format_mismatch;
use crate::formats::{read_history, to_wire, Format};
use crate::json::to_nearest_doubles;
use crate::protocol::{OutgoingRequest, Protocol, Response};
use crate::reduce::{respond_budget, respond_request_classified, respond_request_with};
use crate::terms::{Budget, BudgetFields, Clause, Declared, Level, Policy, Provider};
use serde_json::Value;
use std::borrow::Cow;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// How to run the reducer under test.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The command (run directly, never through a shell) and the run's id.
    pub reducer: Reducer,
    /// The wire format the reducer speaks.
    pub format: Format,
    /// The policy it claims to implement.
    pub policy: Policy,
    /// The provider profile it claims to honour (spec v2 §15): the
    /// reference honours it and `provider-accepts` is judged.
    pub provider: Option<Provider>,
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
    /// The runner protocol the reducer speaks (`--protocol`): protocol 1
    /// requests are those of version 1, byte for byte, and cases that need
    /// protocol 2 are skipped.
    pub protocol: Protocol,
    /// Whether summaries are allowed (`--summaries`, protocol 2 only):
    /// every request carries `"summary": true` and the summary clauses are
    /// judged (spec v2 §12).
    pub summaries: bool,
    /// What the reducer declares of its contract (`--declare`, spec v2 §16).
    pub declared: Declared,
}

/// One case to run: an id, a budget and a canonical history.
#[derive(Clone, Debug, PartialEq)]
pub struct RunCase {
    /// The case id.
    pub id: String,
    /// The budget members as sent: `maxMessages`, or (protocol 2)
    /// `maxTokens` with `tokens` (one per canonical message) and
    /// `countPinned`; possibly invalid on purpose.
    pub budget: BudgetFields,
    /// The input history, canonical format.
    pub messages: Vec<Value>,
    /// The case is meant for a summaries run only (a case file's `summary`).
    pub summary: bool,
    /// What a summary costs under a token budget in a summaries run (S).
    pub summary_tokens: u64,
}

impl RunCase {
    /// A case of protocol 1: `maxMessages` as sent.
    pub fn with_max_messages(id: String, max_messages: Value, messages: Vec<Value>) -> RunCase {
        RunCase {
            id,
            budget: BudgetFields::messages(max_messages),
            messages,
            summary: false,
            summary_tokens: 1,
        }
    }

    /// Why the case cannot run under `protocol` with `summaries`, if it
    /// cannot (spec v2 §13.2): it needs protocol 2, or summaries.
    pub fn needs(&self, protocol: Protocol, summaries: bool) -> Option<String> {
        if protocol == Protocol::V1 && self.budget.needs_protocol_2() {
            return Some("needs protocol 2 (a token budget)".into());
        }
        if self.summary && !summaries {
            return Some(if protocol == Protocol::V1 {
                "needs protocol 2 and --summaries (a summaries case)".into()
            } else {
                "needs --summaries (a summaries case)".into()
            });
        }
        None
    }

    /// How the budget reads in a report: `maxMessages 3`, `maxTokens 45`,
    /// or `no budget`.
    pub fn budget_text(&self) -> String {
        self.budget.limit_text()
    }

    /// Writes what makes two cases the same request to `out` as compact
    /// JSON: budget members, messages and (protocol 2) the summary
    /// members. A protocol 1 case writes `[maxMessages, messages]`.
    ///
    /// # Errors
    ///
    /// The error of `out`.
    pub(crate) fn write_key(&self, out: &mut dyn std::io::Write) -> serde_json::Result<()> {
        if !self.budget.needs_protocol_2() && !self.summary {
            return serde_json::to_writer(
                out,
                &(self.budget.max_messages_or_null(), &self.messages),
            );
        }
        let b = &self.budget;
        serde_json::to_writer(
            out,
            &(
                &b.max_messages,
                &b.max_tokens,
                &b.tokens,
                &b.count_pinned,
                &self.messages,
                self.summary,
                self.summary_tokens,
            ),
        )
    }

    /// The summary member of its requests under `settings`: S when
    /// summaries are allowed (1 under a message budget, which is not sent).
    fn summary_member(&self, settings: &Settings) -> Option<u64> {
        settings.summaries.then(|| {
            if self.budget.max_tokens.is_some() {
                self.summary_tokens
            } else {
                1
            }
        })
    }
}

/// The full record of one case.
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
    /// Why the case was not run (it has no form in the wire format, needs
    /// what the run does not have, or the reducer answered that it is
    /// unsupported).
    pub skipped: Option<String>,
    /// The reducer answered the case's request `unsupported` (protocol 2,
    /// spec v2 §13.7): skipped, and counted apart.
    pub unsupported: bool,
    /// Whether the case's input history passes the validator (pending
    /// calls allowed, spec §5): a failure on an input that does not is
    /// robustness, reported apart, and decides no level (spec §9.2).
    pub valid_input: bool,
    /// The last request the case sent: `None` for the first, else the
    /// extra request. Unrequested output found after the case ended
    /// followed its answer ([`CaseResult::add_protocol_failure`]).
    pub last_request: Option<ExtraKind>,
}

/// What a failure of an extra request is prefixed with.
fn request_label(kind: Option<ExtraKind>) -> Option<&'static str> {
    kind.map(|k| match k {
        ExtraKind::Repeat => "the repeated request",
        ExtraKind::Again => "the output sent back",
        ExtraKind::Smaller => "the request with a smaller budget",
    })
}

/// `detail`, prefixed with the extra request it happened on.
fn labelled(kind: Option<ExtraKind>, detail: &str) -> String {
    match request_label(kind) {
        Some(what) => format!("{what}: {detail}"),
        None => detail.to_string(),
    }
}

impl CaseResult {
    /// The failed verdicts.
    pub fn failures(&self) -> impl Iterator<Item = &Verdict> {
        self.verdicts.iter().filter(|v| v.failed())
    }

    /// Records a protocol failure found after the case's answers were
    /// judged (unrequested output after its last answer, spec §8.3): the
    /// clause fails, with the detail labelled by the request it followed.
    pub fn add_protocol_failure(&mut self, failure: ProtocolFailure) {
        add_protocol_failure(
            &mut self.verdicts,
            &mut self.stderr_tail,
            self.last_request,
            failure,
        );
    }
}

/// [`CaseResult::add_protocol_failure`] on a result's parts.
fn add_protocol_failure(
    verdicts: &mut Vec<Verdict>,
    stderr_tail: &mut String,
    last_request: Option<ExtraKind>,
    failure: ProtocolFailure,
) {
    let detail = labelled(last_request, &failure.detail);
    match verdicts.iter_mut().find(|v| v.clause == failure.clause) {
        Some(v) => match &mut v.outcome {
            Outcome::Fail(old) => {
                old.push_str("; ");
                old.push_str(&detail);
            }
            other => *other = Outcome::Fail(detail),
        },
        None => verdicts.insert(
            0,
            Verdict {
                clause: failure.clause,
                outcome: Outcome::Fail(detail),
            },
        ),
    }
    if stderr_tail.is_empty() {
        *stderr_tail = failure.stderr_tail;
    }
}

/// A case's result as the runner holds it until the case is recorded: the
/// case as the list gave it (borrowed or made), and its wire messages only
/// when they are not its messages as they are (every format but the
/// canonical one). A case that passes is recorded without copying either;
/// only a failing one becomes a [`CaseResult`].
struct Pending<'a> {
    case: Cow<'a, RunCase>,
    wire: Wire,
    response: Option<Response>,
    verdicts: Vec<Verdict>,
    stderr_tail: String,
    skipped: Option<String>,
    unsupported: bool,
    valid_input: bool,
    last_request: Option<ExtraKind>,
}

#[cfg(test)]
impl From<CaseResult> for Pending<'static> {
    fn from(r: CaseResult) -> Pending<'static> {
        Pending {
            case: Cow::Owned(r.case),
            wire: Wire::Converted(r.wire_messages),
            response: r.response,
            verdicts: r.verdicts,
            stderr_tail: r.stderr_tail,
            skipped: r.skipped,
            unsupported: r.unsupported,
            valid_input: r.valid_input,
            last_request: r.last_request,
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
    fn into_result(self) -> CaseResult {
        let case = self.case.into_owned();
        let wire_messages = match self.wire {
            Wire::NotSent => Vec::new(),
            Wire::Same => case.messages.clone(),
            Wire::Converted(w) => w,
        };
        CaseResult {
            case,
            wire_messages,
            response: self.response,
            verdicts: self.verdicts,
            stderr_tail: self.stderr_tail,
            skipped: self.skipped,
            unsupported: self.unsupported,
            valid_input: self.valid_input,
            last_request: self.last_request,
        }
    }

    fn add_protocol_failure(&mut self, failure: ProtocolFailure) {
        add_protocol_failure(
            &mut self.verdicts,
            &mut self.stderr_tail,
            self.last_request,
            failure,
        );
    }

    fn record(&self) -> CaseRecord {
        CaseRecord::from_parts(
            &self.case,
            &self.verdicts,
            &self.stderr_tail,
            self.skipped.as_deref(),
        )
        .with_input(self.valid_input, self.unsupported)
    }
}

impl Settings {
    /// The definition of `clause` as this run's spec version reads it
    /// (spec v2's under protocol 2).
    pub fn definition(&self, clause: Clause) -> &'static str {
        match self.protocol {
            Protocol::V1 => clause.definition(),
            Protocol::V2 => clause.definition_v2(),
        }
    }

    /// The command-line flags of the run's protocol: empty under protocol
    /// 1, ` --protocol 2` (and ` --summaries`) otherwise.
    pub fn protocol_flags(&self) -> &'static str {
        match (self.protocol, self.summaries) {
            (Protocol::V1, _) => "",
            (Protocol::V2, false) => " --protocol 2",
            (Protocol::V2, true) => " --protocol 2 --summaries",
        }
    }

    /// A new session for one worker: a [`PersistentSession`] in persistent
    /// mode, else a [`PerCaseSession`].
    pub fn session(&self) -> Box<dyn Session + '_> {
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

    /// The clauses the run judges ([`Clause::for_run`]), protocol clauses
    /// included: `reasoning-attached` in a format with reasoning items,
    /// `provider-accepts` with a provider profile.
    pub fn clauses(&self) -> Vec<Clause> {
        Clause::judged_in(
            self.policy,
            self.summaries,
            self.format.has_reasoning(),
            self.provider.is_some(),
            &self.declared,
        )
    }
}

/// The case's messages in `format`. With per-message costs (`costs`) the
/// wire form must have one message per message, or the costs could not
/// travel; a message budget counts the wire format's messages (a
/// Responses item per call, spec v2 §14).
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
    }
}

/// `response` as judged: under `json-numbers` (`on`) with its numbers
/// read as doubles ([`to_nearest_doubles`], spec v2 §16.7).
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
/// the wire format cannot carry, or that needs protocol 2 or summaries the
/// run does not have, is skipped. Unrequested output after the
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

/// [`run_case`], the result held as [`Pending`].
fn run_case_pending<'a>(
    session: &mut dyn Session,
    settings: &Settings,
    case: Cow<'a, RunCase>,
) -> Result<Pending<'a>, RunError> {
    if let Some(why) = case.needs(settings.protocol, settings.summaries) {
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
    let summary = case.summary_member(settings);
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
    // What is judged: the messages as sent, or under json-numbers as a
    // reader of doubles has them (spec v2 §16.7).
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
    let valid = valid_input(&in_h);
    if let Some(Response::Unsupported(why)) = &first {
        // A request the reducer cannot express (spec v2 §13.7): skipped and
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
    if let Some(first) = &first {
        // Under budget-unit=items or =batched-results the reference keeps
        // what fits in that unit (spec v2 §16.3).
        let items_budget = match (&in_h, settings.declared.unit) {
            (Ok(h), Some(_)) if !settings.declared.counts_spans() => {
                Budget::read(&case.budget, judged.len())
                    .ok()
                    .filter(|b| !b.is_tokens())
                    .map(|b| crate::check::in_declared_unit(b, &settings.declared, h).to_fields())
            }
            _ => None,
        };
        let reference = Some(match &in_h {
            Ok(h) => respond_request_classified(
                settings.policy,
                settings.format,
                items_budget.as_ref().unwrap_or(&case.budget),
                &judged,
                h,
                settings.provider,
            ),
            Err(_) => respond_request_with(
                settings.policy,
                settings.format,
                &case.budget,
                &judged,
                settings.provider,
            ),
        });
        let reference_less_summary = summary.and_then(|s| {
            let b = Budget::read(&case.budget, judged.len()).ok()?;
            Some(respond_budget(
                settings.policy,
                settings.format,
                &b.less(s),
                &judged,
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
/// use reducer_kit::certify::run::decisive_line;
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
/// use reducer_kit::certify::run::failure_signature;
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
type Kind = (String, usize, ExampleKey, Arc<CaseResult>);

/// The collector the workers hand their finished cases to.
struct Collector {
    records: Records,
    /// Per clause (index in `Clause::ALL`): its kinds of failure so far,
    /// each with its count and its best example and key.
    groups: Vec<Vec<Kind>>,
    restarts: Restarts,
}

impl Collector {
    /// Records the case at position `index`; a failing one becomes a
    /// [`CaseResult`] (the case and its wire messages copied when they
    /// were borrowed) and may be kept as the example of its kind.
    fn submit(&mut self, index: usize, r: Pending<'_>) {
        self.records.put(index, &r.record());
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
        let r = r.into_result();
        let key = example_key(&r, index);
        let mut shared: Option<Arc<CaseResult>> = None;
        let mut r = Some(r);
        for (clause, mut signature) in failing {
            let kinds = &mut self.groups[clause_bit(clause).trailing_zeros() as usize];
            if !kinds.iter().any(|k| k.0 == signature) && kinds.len() >= MAX_KINDS {
                signature = "*".into();
            }
            let mut result = || {
                shared
                    .get_or_insert_with(|| Arc::new(r.take().expect("taken once")))
                    .clone()
            };
            match kinds.iter_mut().find(|k| k.0 == signature) {
                Some(k) => {
                    k.1 += 1;
                    if key < k.2 {
                        k.2 = key.clone();
                        k.3 = result();
                    }
                }
                None => kinds.push((signature, 1, key.clone(), result())),
            }
        }
    }
}

/// Runs every case against the reducer with `settings.jobs` workers and
/// keeps a [`CaseRecord`] of each, in case order, and the failing cases
/// grouped by clause and kind of failure ([`FailureGroup`]), with the best
/// example of each. `progress` is called after each case is
/// recorded with the number done. With one worker the cases run in the
/// calling thread (no thread hop per case).
///
/// In persistent mode each worker calls [`Session::settle`] before each
/// case and [`Session::close`] at the end, and charges unrequested output
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
    progress: &(dyn Fn(usize) + Sync),
) -> Result<Collected, RunError> {
    let total = cases.count();
    let workers = settings.jobs.max(1).min(total.max(1));
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let collector = Mutex::new(Collector {
        records: Records::with_slots(total),
        groups: vec![Vec::new(); Clause::ALL.len()],
        restarts: Restarts::default(),
    });
    let stop: Mutex<Option<RunError>> = Mutex::new(None);
    // Cases in a row, over all workers, that got no answer (spec §8.5).
    let unanswered = AtomicUsize::new(0);
    let gave_up: Mutex<Option<GaveUp>> = Mutex::new(None);
    let submit = |index: usize, r: Pending<'_>| {
        collector.lock().expect("no worker panics").submit(index, r);
        progress(done.fetch_add(1, Ordering::SeqCst) + 1);
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
            if gave_up.lock().expect("no worker panics").is_some() {
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
                Ok(r) if r.skipped.is_some() => submit(i, r),
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
    if workers == 1 {
        // One worker runs in the calling thread: no thread hop per case.
        work();
    } else {
        std::thread::scope(|s| {
            for _ in 0..workers {
                s.spawn(work);
            }
        });
    }
    process::sweep(&settings.reducer.run_id);
    let interrupted = match stop.into_inner().expect("no worker panics") {
        Some(RunError::Interrupted(s)) => Some(s),
        Some(e) => return Err(e),
        None => None,
    };
    let c = collector.into_inner().expect("no worker panics");
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
                kinds.sort_by(|a, b| a.2.cmp(&b.2));
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
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::certify::generated_case;
    use crate::certify::session::{Exchange, ReferenceSession};

    /// One worker's protocol 1 settings with the extra requests, for an
    /// in-process session (no reducer command).
    fn settings(format: Format, policy: Policy) -> Settings {
        Settings {
            reducer: Reducer::new(Vec::new()),
            format,
            policy,
            limits: Limits::default(),
            persistent: false,
            jobs: 1,
            extra_requests: true,
            provider: None,
            protocol: Protocol::V1,
            summaries: false,
            declared: Default::default(),
        }
    }

    /// The runner over the in-process reference session: every clause of
    /// every level passes, in every format.
    #[test]
    fn the_reference_session_passes_every_clause() {
        for format in Format::ALL {
            for policy in Policy::ALL {
                let settings = settings(format, policy);
                let mut session = ReferenceSession {
                    policy,
                    format,
                    provider: None,
                    protocol: Protocol::V1,
                };
                for n in 0..40 {
                    let case = generated_case(1, n, format, Protocol::V1);
                    let r = run_case(&mut session, &settings, &case).unwrap();
                    let failed: Vec<_> = r.failures().collect();
                    assert!(
                        failed.is_empty(),
                        "{format} {policy} {}: {failed:?}",
                        case.id
                    );
                    assert!(r.skipped.is_none() || format != Format::Canonical);
                    let record = CaseRecord::of(&r);
                    assert!(!record.failed());
                    if r.skipped.is_none() {
                        assert_eq!(record.outcome(Clause::Budget), Judged::Pass);
                    }
                }
            }
        }
    }

    /// An in-process session that keeps the text of its previous answer,
    /// as [`PersistentSession`] keeps the bytes: `exchange_unless_same`
    /// leaves an answer with the same text unread. With `tamper`, the
    /// answers to requests number `tamper.0` modulo `tamper.1` (from 0)
    /// lose their first message.
    struct Remembering {
        reference: ReferenceSession,
        last: Option<String>,
        sent: usize,
        tamper: Option<(usize, usize)>,
        unread: usize,
    }

    impl Remembering {
        fn answer(&mut self, request: &OutgoingRequest) -> (String, Response) {
            let mut response = self.reference.respond(&request.to_value());
            if let (Some((k, m)), Response::Messages(ms)) = (self.tamper, &mut response) {
                if self.sent % m == k && !ms.is_empty() {
                    ms.remove(0);
                }
            }
            self.sent += 1;
            let text = crate::protocol::response_json(self.reference.format, &response);
            (text.to_string(), response)
        }
    }

    impl Session for Remembering {
        fn exchange(&mut self, request: &OutgoingRequest) -> Result<Exchange, RunError> {
            let (text, response) = self.answer(request);
            self.last = Some(text);
            Ok(Ok(response))
        }

        fn exchange_unless_same(
            &mut self,
            request: &OutgoingRequest,
        ) -> Result<Option<Exchange>, RunError> {
            let (text, response) = self.answer(request);
            if self.last.as_ref() == Some(&text) {
                self.unread += 1;
                return Ok(None);
            }
            self.last = Some(text);
            Ok(Some(Ok(response)))
        }
    }

    /// An answer the same as the one before stands for the response that
    /// one stands for, down a chain of them; a request not answered has
    /// none.
    #[test]
    fn an_answer_the_same_as_another_is_its_response() {
        let first = Response::Messages(vec![serde_json::json!({"role": "user", "content": "a"})]);
        let other = Response::Error("over budget".into());
        let answers: Answers = vec![
            (ExtraKind::Repeat, 2, Answer::Read(other.clone())),
            (ExtraKind::Again, 2, Answer::Same(Some(ExtraKind::Repeat))),
            (ExtraKind::Smaller, 1, Answer::Same(Some(ExtraKind::Again))),
        ];
        assert_eq!(answer_to(&first, &answers, None), Some(&first));
        for kind in [ExtraKind::Repeat, ExtraKind::Again, ExtraKind::Smaller] {
            assert_eq!(
                answer_to(&first, &answers, Some(kind)),
                Some(&other),
                "{kind:?}"
            );
        }
        let answers: Answers = vec![
            (ExtraKind::Repeat, 2, Answer::Same(None)),
            (ExtraKind::Smaller, 1, Answer::Same(Some(ExtraKind::Repeat))),
        ];
        assert_eq!(
            answer_to(&first, &answers, Some(ExtraKind::Smaller)),
            Some(&first)
        );
        assert_eq!(answer_to(&first, &answers, Some(ExtraKind::Again)), None);
    }

    /// The runner copies a response left unread from the answer it
    /// repeats: the results are the same as when every answer is read, and
    /// a repeated request answered differently still fails `deterministic`.
    #[test]
    fn an_answer_left_unread_is_the_response_it_repeats() {
        for format in [Format::Canonical, Format::OpenAi, Format::Responses] {
            let settings = settings(format, Policy::Suffix);
            let reference = ReferenceSession {
                policy: Policy::Suffix,
                format,
                provider: None,
                protocol: Protocol::V1,
            };
            let mut remembering = Remembering {
                reference,
                last: None,
                sent: 0,
                tamper: None,
                unread: 0,
            };
            let mut plain = reference;
            for n in 0..60 {
                let case = generated_case(3, n, format, Protocol::V1);
                let read = run_case(&mut plain, &settings, &case).unwrap();
                let copied = run_case(&mut remembering, &settings, &case).unwrap();
                assert_eq!(copied, read, "{format} {}", case.id);
            }
            assert!(remembering.unread >= 60, "{format}: {}", remembering.unread);

            // Every case's second request (the repeated one) is answered
            // without its first message.
            let mut flaky = Remembering {
                reference,
                last: None,
                sent: 0,
                tamper: Some((1, usize::MAX)),
                unread: 0,
            };
            let case = generated_case(3, 1, format, Protocol::V1);
            let r = run_case(&mut flaky, &settings, &case).unwrap();
            let failed: Vec<Clause> = r.failures().map(|v| v.clause).collect();
            assert!(
                failed.contains(&Clause::Deterministic),
                "{format}: {failed:?}"
            );
            assert_eq!(
                r.response,
                run_case(&mut plain, &settings, &case).unwrap().response
            );
        }
    }

    #[test]
    fn a_late_failure_is_labelled_with_the_request_it_followed() {
        let mut r = CaseResult {
            case: RunCase::with_max_messages("a/b".into(), Value::from(2), Vec::new()),
            wire_messages: Vec::new(),
            response: None,
            verdicts: vec![Verdict {
                clause: Clause::ProtocolJson,
                outcome: Outcome::Pass,
            }],
            stderr_tail: String::new(),
            skipped: None,
            unsupported: false,
            valid_input: true,
            last_request: Some(ExtraKind::Smaller),
        };
        let late = ProtocolFailure {
            clause: Clause::ProtocolJson,
            detail: r#"wrote 1 unrequested byte after its answer: "\n""#.into(),
            stderr_tail: "tail".into(),
        };
        r.add_protocol_failure(late.clone());
        r.last_request = None;
        r.add_protocol_failure(late);
        assert_eq!(
            r.verdicts,
            vec![Verdict {
                clause: Clause::ProtocolJson,
                outcome: Outcome::Fail(
                    r#"the request with a smaller budget: wrote 1 unrequested byte after its answer: "\n"; wrote 1 unrequested byte after its answer: "\n""#
                        .into()
                ),
            }]
        );
        assert_eq!(r.stderr_tail, "tail");
    }
}

#[cfg(test)]
mod grouping_tests {
    use super::*;
    use serde_json::json;

    fn failing(id: &str, messages: Value, detail: &str) -> CaseResult {
        CaseResult {
            case: RunCase::with_max_messages(
                id.into(),
                json!(1),
                serde_json::from_value(messages).unwrap(),
            ),
            wire_messages: Vec::new(),
            response: None,
            verdicts: vec![Verdict {
                clause: Clause::NoOrphanResult,
                outcome: Outcome::Fail(detail.into()),
            }],
            stderr_tail: String::new(),
            skipped: None,
            unsupported: false,
            valid_input: true,
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
