//! What one case of a run is and what it gave: [`RunCase`], the case as
//! sent (an id, the budget members, a canonical history), and
//! [`CaseResult`], its full record (the answer, every verdict, the stderr
//! tail), which the compact [`super::records::CaseRecord`] and the
//! counterexamples are made from.

use super::exchange::ProtocolFailure;
use crate::check::{ExtraKind, Outcome, Verdict};
use crate::formats::{to_wire, Format};
use crate::protocol::{Protocol, Response};
use crate::terms::{BudgetFields, Policy};
use serde_json::Value;
use std::borrow::Cow;

/// One case to run: an id, a budget and a canonical history.
#[derive(Clone, Debug, PartialEq)]
pub struct RunCase {
    /// The case id.
    pub id: String,
    /// The budget members as sent: `maxMessages`, or (protocol 2)
    /// `maxTokens` with `tokens` (one per canonical message) and
    /// `countPinned`; possibly invalid on purpose.
    pub budget: BudgetFields,
    /// The input history, canonical format; shared, not copied, by the
    /// results and counterexamples made from the case.
    pub messages: std::sync::Arc<Vec<Value>>,
    /// The case is meant for a summaries run only (a case file's `summary`).
    pub summary: bool,
    /// What a summary costs under a token budget in a summaries run (S).
    pub summary_tokens: u64,
    /// The case file claims policy `repair`: a history broken on purpose
    /// (spec §17.6), run only under `--policy repair`.
    pub for_repair: bool,
}

impl RunCase {
    /// The case's messages as sent in `format`, the run's wire format:
    /// the case's messages themselves in the canonical format, else
    /// converted from them now. A result ([`CaseResult`]) keeps no
    /// converted copy: for a long history it would be as large as the
    /// history's values.
    ///
    /// # Errors
    ///
    /// Why the case has no form in `format` (such a case is not sent).
    pub fn wire(&self, format: Format) -> Result<Cow<'_, [Value]>, String> {
        wire(format, &self.messages, self.budget.tokens.is_some())
    }

    /// A case of protocol 1: `maxMessages` as sent.
    pub fn with_max_messages(id: String, max_messages: Value, messages: Vec<Value>) -> RunCase {
        RunCase {
            id,
            budget: BudgetFields::messages(max_messages),
            messages: messages.into(),
            summary: false,
            summary_tokens: 1,
            for_repair: false,
        }
    }

    /// Why the case cannot run under `policy` and `protocol` with
    /// `summaries`, if it cannot: it needs protocol 2, or summaries (spec
    /// §13.2), or it is a broken history written for policy `repair`
    /// (§17.6), which a run of another policy leaves out.
    pub fn needs(&self, policy: Policy, protocol: Protocol, summaries: bool) -> Option<String> {
        if self.for_repair && policy != Policy::Repair {
            return Some("a case of policy repair (a history broken on purpose, spec section 17.6): run by --policy repair".into());
        }
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
                &(self.budget.max_messages_or_null(), &*self.messages),
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
                &*self.messages,
                self.summary,
                self.summary_tokens,
            ),
        )
    }

    /// The summary member of its requests in a run that allows summaries
    /// (`summaries`, [`Settings::summaries`](super::settings::Settings::summaries)):
    /// S when it does (1 under a message budget, which is not sent).
    pub(super) fn summary_member(&self, summaries: bool) -> Option<u64> {
        summaries.then(|| {
            if self.budget.max_tokens.is_some() {
                self.summary_tokens
            } else {
                1
            }
        })
    }
}

/// What happened to one case of a run, the one fact every record and
/// report of the case reads ([`CaseResult::outcome`],
/// [`super::records::CaseRecord::outcome`]). A new way for a case to end
/// is a new variant here, and the renderers' matches list what it touches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CaseOutcome {
    /// Not sent: the case needs what the run does not have (protocol 2,
    /// summaries, policy `repair`), shows a shape outside the run (spec
    /// §9.5), or has no form in the run's wire format. The reason, as the
    /// reports print it.
    NotSent(String),
    /// Sent and answered, but its input cannot be read as a history in the
    /// run's format, so nothing is judged: the reason (`the case's input
    /// cannot be read: ...`), and whether the input passes the validator
    /// as [`CaseOutcome::Judged`] says it.
    Unreadable {
        /// Why, as the reports print it.
        reason: String,
        /// As [`CaseOutcome::Judged::valid_input`].
        valid_input: bool,
    },
    /// The reducer answered the case's request `unsupported` (protocol 2,
    /// spec §13.7): skipped, and counted apart.
    Unsupported {
        /// `unsupported by the reducer: WHY`, as the reports print it.
        reason: String,
        /// As [`CaseOutcome::Judged::valid_input`].
        valid_input: bool,
    },
    /// Judged clause by clause (its verdicts are the case's).
    Judged {
        /// Whether the case's input history passes the validator (pending
        /// calls allowed, spec §5; under policy `repair` whether it reads
        /// at all, §17.1): a failure on an input that does not is
        /// robustness, reported apart, and decides no level (spec §9.2).
        valid_input: bool,
    },
}

impl CaseOutcome {
    /// Why the case was not judged, when it was not (every variant but
    /// [`CaseOutcome::Judged`]).
    pub fn skipped(&self) -> Option<&str> {
        match self {
            CaseOutcome::NotSent(reason)
            | CaseOutcome::Unreadable { reason, .. }
            | CaseOutcome::Unsupported { reason, .. } => Some(reason),
            CaseOutcome::Judged { .. } => None,
        }
    }

    /// Whether the reducer answered the case `unsupported`.
    pub fn unsupported(&self) -> bool {
        matches!(self, CaseOutcome::Unsupported { .. })
    }

    /// Whether the case's input passes the validator (spec §5, §9.2); a
    /// case not sent counts as valid.
    pub fn valid_input(&self) -> bool {
        match self {
            CaseOutcome::NotSent(_) => true,
            CaseOutcome::Unreadable { valid_input, .. }
            | CaseOutcome::Unsupported { valid_input, .. }
            | CaseOutcome::Judged { valid_input } => *valid_input,
        }
    }
}

/// The full record of one case. Two results are equal when they say the
/// same of the case: how long it took ([`CaseResult::took`]) is not
/// compared.
#[derive(Clone, Debug)]
pub struct CaseResult {
    /// The case.
    pub case: RunCase,
    /// The reducer's response, when it gave a readable one.
    pub response: Option<Response>,
    /// Every clause judged for the case, protocol clauses first.
    pub verdicts: Vec<Verdict>,
    /// The reducer's stderr tail from the failing request, if any failed.
    pub stderr_tail: String,
    /// What happened to the case: skipped (and why), unsupported by the
    /// reducer, or judged on a valid or an invalid input.
    pub outcome: CaseOutcome,
    /// The last request the case sent: `None` for the first, else the
    /// extra request. Unrequested output found after the case ended
    /// followed its answer ([`CaseResult::add_protocol_failure`]).
    pub last_request: Option<ExtraKind>,
    /// How long the case took to run, wall time: its requests and the
    /// kit's work on the answers (what a shrinking try of it may cost).
    pub took: std::time::Duration,
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
pub(super) fn labelled(kind: Option<ExtraKind>, detail: &str) -> String {
    match request_label(kind) {
        Some(what) => format!("{what}: {detail}"),
        None => detail.to_string(),
    }
}

impl PartialEq for CaseResult {
    fn eq(&self, other: &CaseResult) -> bool {
        let CaseResult {
            case,
            response,
            verdicts,
            stderr_tail,
            outcome,
            last_request,
            took: _,
        } = self;
        *case == other.case
            && *response == other.response
            && *verdicts == other.verdicts
            && *stderr_tail == other.stderr_tail
            && *outcome == other.outcome
            && *last_request == other.last_request
    }
}

impl CaseResult {
    /// Why the case was not judged ([`CaseOutcome::skipped`]).
    pub fn skipped(&self) -> Option<&str> {
        self.outcome.skipped()
    }

    /// Whether the case's input passes the validator
    /// ([`CaseOutcome::valid_input`]).
    pub fn valid_input(&self) -> bool {
        self.outcome.valid_input()
    }

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
pub(super) fn add_protocol_failure(
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

/// The case's messages in `format`. With per-message costs (`costs`) the
/// wire form must have one message per message, or the costs could not
/// travel; a message budget counts the wire format's messages (a
/// Responses item per call, spec §14).
pub(super) fn wire(
    format: Format,
    messages: &[Value],
    costs: bool,
) -> Result<Cow<'_, [Value]>, String> {
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
