//! The checker: judges one (request, response) against every clause of
//! spec §6 for the request's policy.
//!
//! Each clause is judged from its own definition, with the shared terms of
//! spec §2 (pinned message, turns, positional pairing,
//! [`crate::terms`]) and the validator, never a reduction: the checker does
//! not import the reference reducer, so that a bug there cannot hide the
//! same bug here (a test holds this). `matches-reference` compares the
//! response with the reference reducer's answer, which the caller supplies
//! ([`Extras::reference`]; the reference reducer's `respond` computes it).
//!
//! | file | judges |
//! |------|--------|
//! | `mod.rs` | the request, the verdicts, [`check`] and the judge that dispatches each clause |
//! | `extras.rs` | the other answers some clauses need ([`Extras`]) and the requests that get them ([`extra_requests`]) |
//! | `prepared.rs` | judging on histories read once, as canonical texts ([`check_prepared`]) |
//! | `declared.rs` | the clauses as a declared contract reads them (spec §16) |
//! | `mapping.rs` | output messages mapped to input messages (spec §7); `mapping/readings.rs`, the readings the bytes cannot settle |
//! | `output.rs` | the output as judged: its messages, pairing and mapping, summary and placeholder |
//! | [`align`] | that mapping read out for a drawing of the answer ([`align::align`]) |
//! | `safety.rs` | the safety level (§6.3) |
//! | `turns.rs` | the policy level of `turns` (§6.4) |
//! | `suffix.rs` | the policy level of `suffix` (§6.5) |
//! | `provider.rs` | `reasoning-attached` and `provider-accepts` (spec §14.6, §15.5), cuts under a profile |
//! | `repair.rs` | the clauses of policy `repair` (spec §17.3–§17.4): `repair-valid`, `no-unanswered-call`, `repair-keeps-whole`, `repair-keeps-content`, `completes-calls` |
//! | `metamorphic.rs` | clauses judged against other responses: `identity-when-fits`, `deterministic`, `idempotent`, `budget-monotone`, `matches-reference` (§6.3–§6.6) |
//!
//! **Matching output to input.** Output messages are first mapped to the
//! input messages they came from (spec §6): the output's first system
//! message maps to the pinned one when it is equal to it; the others map by
//! the *latest* embedding, from the end backwards, each to the latest input
//! message before the previous match that it equals, or equals but for
//! removed results / approval responses. Every clause is judged under this
//! mapping.
//!
//! Under policy `repair` the mapping is the earliest embedding instead, and
//! a message may also lose calls and approval requests (spec §17.2).
//!
//! **Applicability.** Policy-level clauses are judged only when the input is
//! valid (pending calls allowed in the newest turn), except under `repair`,
//! whose inputs are broken on purpose; a clause that does not
//! apply, or needs a response the caller did not supply ([`Extras`]), gets
//! [`Outcome::NotJudged`] with the reason.

use crate::formats::{read_history, view_history, Format};
use crate::protocol::Response;
use crate::terms::provider::provider_violations;
use crate::terms::{
    Budget, BudgetError, BudgetFields, Clause, Declared, History, ItemKind, Level, MessageView,
    Pairing, Policy, Provider, ShapeError, TurnSpan,
};
use crate::validate::{validate_history, Options};
pub use extras::{extra_requests, ExtraKind, ExtraRequest, Extras, ExtrasRef};
use mapping::{Beside, Texts};
use output::OutputState;
pub use prepared::{check_prepared, PreparedAnswers, PreparedInput};
use serde_json::Value;
use std::cell::OnceCell;

pub mod align;
mod declared;
mod describe;
mod extras;
mod mapping;
mod metamorphic;
mod output;
mod prepared;
mod provider;
mod repair;
mod safety;
mod suffix;
mod turns;

use describe::{answer_of, describe_answers, describe_difference, preview};

/// One request as the checker sees it.
#[derive(Clone, Copy, Debug)]
pub struct Request<'a> {
    /// The wire format of `messages` and of the response.
    pub format: Format,
    /// The policy whose clauses are judged.
    pub policy: Policy,
    /// The budget members as sent (possibly invalid on purpose):
    /// `maxMessages` alone in protocol 1; protocol 2 may send `maxTokens`
    /// with `tokens` (covering `messages`) and `countPinned` instead (spec
    /// §11).
    pub budget: &'a BudgetFields,
    /// The input history (the kit's list: an Anthropic top-level `system`
    /// is its first message).
    pub messages: &'a [Value],
    /// Whether the request allows a summary, and what one costs (S;
    /// `summaryTokens`, 1 under a message budget): spec §12. `None`:
    /// no summary is allowed, and a message that is no input message is a
    /// fabrication.
    pub summary: Option<u64>,
    /// What the reducer declares of its contract (spec §16): how the
    /// budget reads, whether a placeholder may stand where it cut.
    /// `Declared::default()`: the kit's contract.
    pub declared: Declared,
    /// The provider profile the answer is judged under (spec §15.5,
    /// `certify --provider`): `provider-accepts` is judged, and when the
    /// input passes the profile's rules the profile excuses what it moved
    /// (`maximal`, `maximal-suffix` and `overflow-question` count only the
    /// cuts it accepts; its fallback, the newest turn start alone, is not
    /// judged by `whole-turns`, `contiguous-suffix` and `budget-monotone`;
    /// an error answer is allowed when M has no turn start). `None`: no
    /// profile.
    pub provider: Option<Provider>,
}

/// The judgement of one clause.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The clause holds.
    Pass,
    /// The clause is violated; the text says where (message indices, ids,
    /// JSON paths).
    Fail(String),
    /// The clause does not apply to this case, or needs a response that was
    /// not supplied; the text says why.
    NotJudged(String),
}

/// One clause and its outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The clause judged.
    pub clause: Clause,
    /// The outcome.
    pub outcome: Outcome,
}

impl Verdict {
    /// Whether the outcome is a failure.
    pub fn failed(&self) -> bool {
        matches!(self.outcome, Outcome::Fail(_))
    }
}

/// Judges `response` to `req` against every non-protocol clause of
/// `req.policy` (see [`Clause::for_run`]: the summary clauses too when
/// `req.summary` allows one; `reasoning-attached` in formats with
/// reasoning items; `provider-accepts` under `req.provider`), in report
/// order. The extra answers (`extras`, [`Extras`] or borrowed as
/// [`ExtrasRef`]) are those [`extra_requests`] asked for; a clause whose
/// answer is missing is not judged.
///
/// # Errors
///
/// A [`ShapeError`] when the *input* history cannot be read; an unreadable
/// output message is a `no-fabrication` failure instead.
pub fn check<'e>(
    req: &Request,
    response: &Response,
    extras: impl Into<ExtrasRef<'e>>,
) -> Result<Vec<Verdict>, ShapeError> {
    check_classified(
        req,
        read_history(req.format, req.messages)?,
        response,
        extras.into(),
    )
}

/// [`check`] on an input already classified: `history` is
/// what [`read_history`]`(req.format, req.messages)` gave (certify reads
/// the input once for the reference answer and this).
///
/// # Errors
///
/// As [`check`] (with a provider: the input's views cannot be read).
pub(crate) fn check_classified(
    req: &Request,
    history: History,
    response: &Response,
    extras: ExtrasRef<'_>,
) -> Result<Vec<Verdict>, ShapeError> {
    let provider = req.provider;
    // Each history is read once here and compared as values: writing
    // canonical texts pays only when a history is judged more than once or
    // is large (`benches/README.md`).
    let input = PreparedInput {
        history,
        canon: None,
    };
    let answers = PreparedAnswers::read(req.format, response, extras, false);
    let mut judge = Judge::new(req, &input, &answers);
    if let Some(p) = provider {
        let views = view_history(req.format, req.messages)?;
        judge.provider = provider_violations(p, &views).is_empty().then_some(p);
        judge.provider_given = Some(p);
        judge.in_views = views;
    }
    Ok(judge.verdicts(provider.is_some()))
}

/// `budget` as the declared contract reads it: under `budget-unit=items`
/// or `budget-unit=batched-results` a message budget of N is a token
/// budget of N with each message's cost in that unit
/// ([`crate::terms::BudgetUnit::costs`]), the pinned message not counted
/// (spec §16.3); under `count-pinned` a token budget of N with each
/// message's cost (1, or its cost in the declared unit) and the pinned
/// message counted (§16.9); otherwise `budget` itself. A token budget is
/// returned as it is.
pub fn in_declared_unit(budget: Budget, declared: &Declared, history: &History) -> Budget {
    if budget.is_tokens() || !declared.costs_per_message() {
        return budget;
    }
    let costs = declared
        .unit
        .and_then(|u| u.costs(history))
        .unwrap_or_else(|| vec![1; history.len()]);
    Budget::of_tokens(budget.limit(), costs, declared.count_pinned).unwrap_or(budget)
}

fn fail(text: impl Into<String>) -> Outcome {
    Outcome::Fail(text.into())
}

fn not_judged(text: impl Into<String>) -> Outcome {
    Outcome::NotJudged(text.into())
}

/// A budget that can be honoured, and B, what M may cost (spec §11.1).
struct Room {
    budget: Budget,
    /// B.
    room: u64,
}

struct Judge<'a> {
    req: &'a Request<'a>,
    /// The input, classified once.
    in_h: &'a History,
    /// The input's messages as compared.
    in_t: Texts<'a>,
    response: &'a Response,
    extras: ExtrasRef<'a>,
    answers: &'a PreparedAnswers<'a>,
    /// Whether histories are compared on their canonical texts.
    canon: bool,
    budget: Result<Room, BudgetError>,
    pinned: Option<usize>,
    /// Computed on first use (a clause that is not judged needs none).
    lazy: Lazy,
    out: Option<OutputState<'a>>,
    /// The provider profile, when one was given and the input passes it
    /// (spec §15.5).
    provider: Option<Provider>,
    /// The provider profile as given.
    provider_given: Option<Provider>,
    /// The input's message views (read only with a provider profile).
    in_views: Vec<MessageView>,
}

/// What some clauses need, computed once on first use.
#[derive(Default)]
struct Lazy {
    rest: OnceCell<Vec<usize>>,
    turns: OnceCell<Vec<TurnSpan>>,
    partner: OnceCell<Pairing>,
    /// Strictly valid; valid with pending calls allowed; the first
    /// violation with pending allowed.
    validity: OnceCell<(bool, bool, Option<String>)>,
    /// What a repair keeps of the input (spec §17.2).
    repair: OnceCell<crate::terms::repair::Repair>,
}

/// The positions of the answers of [`Beside::whole`] that [`Judge::new`]
/// gives: the repeated request's, the output reduced again, the reference.
const REPEAT: usize = 0;
const AGAIN: usize = 1;
const REFERENCE: usize = 2;
/// The positions of the smaller budget's answer and of the response in
/// [`PreparedAnswers`].
const SMALLER: usize = 3;
const OUTPUT: usize = 4;

impl<'a> Judge<'a> {
    fn new(
        req: &'a Request<'a>,
        input: &'a PreparedInput,
        answers: &'a PreparedAnswers<'a>,
    ) -> Judge<'a> {
        let in_h = &input.history;
        // Canonical texts are compared when every history has them.
        let canon = input.canon.is_some() && answers.canon.is_some();
        let in_t = Texts {
            values: req.messages,
            canon: input.canon.as_ref().filter(|_| canon),
            key: req.format.items_key(),
        };
        let budget = Budget::read(req.budget, req.messages.len())
            .map(|budget| in_declared_unit(budget, &req.declared, in_h))
            .and_then(|budget| {
                Ok(Room {
                    room: budget.available(in_h.pinned())?,
                    budget,
                })
            });
        let out = match (answers.texts(OUTPUT, canon), &answers.out_h) {
            // With a budget that cannot be honoured only the response's
            // kind is judged.
            (Some(t), Some(h)) if budget.is_ok() => {
                let beside = Beside {
                    whole: [REPEAT, AGAIN, REFERENCE].map(|w| answers.texts(w, canon)),
                    tail: answers.texts(SMALLER, canon),
                };
                Some(OutputState::new(req, in_h, in_t, t, h, beside))
            }
            _ => None,
        };
        Judge {
            req,
            response: answers.response,
            extras: answers.extras,
            answers,
            budget,
            pinned: in_h.pinned(),
            in_h,
            in_t,
            canon,
            lazy: Lazy::default(),
            out,
            provider: None,
            provider_given: None,
            in_views: Vec::new(),
        }
    }

    /// Every judged clause of the request's policy (with `provider`: under
    /// the profile) and its outcome, in report order.
    ///
    /// When an output message reads two ways (spec §7: a stripped message
    /// equal to an earlier question), the output is judged under both
    /// readings and the one under which fewer clauses fail is returned
    /// (the first on a tie).
    fn verdicts(&mut self, provider: bool) -> Vec<Verdict> {
        let first = self.verdicts_of_reading(provider);
        let failed = |v: &[Verdict]| v.iter().filter(|v| v.failed()).count();
        if failed(&first) == 0 {
            return first;
        }
        let Some(out) = self.out.as_mut() else {
            return first;
        };
        let Some(other) = out.other.take() else {
            return first;
        };
        let picked = std::mem::replace(&mut out.mapping, other);
        let second = self.verdicts_of_reading(provider);
        if failed(&second) < failed(&first) {
            return second;
        }
        if let Some(out) = self.out.as_mut() {
            out.mapping = picked;
        }
        first
    }

    /// [`Judge::verdicts`] under the output's present mapping.
    fn verdicts_of_reading(&self, provider: bool) -> Vec<Verdict> {
        let judged = Clause::judged_in(
            self.req.policy,
            self.req.summary.is_some(),
            self.req.format.has_reasoning(),
            provider,
            &self.req.declared,
        );
        judged
            .into_iter()
            .filter(|c| !c.judged_by_runner())
            .map(|clause| Verdict {
                clause,
                outcome: self.judge(clause),
            })
            .collect()
    }

    /// The summary's cost S.
    fn summary_cost(&self) -> u64 {
        self.req.summary.unwrap_or(1)
    }

    /// Non-pinned input indices, in order.
    fn rest(&self) -> &[usize] {
        self.lazy.rest.get_or_init(|| {
            (0..self.in_h.len())
                .filter(|&i| Some(i) != self.pinned)
                .collect()
        })
    }

    /// The turns of the input.
    fn turns(&self) -> &[TurnSpan] {
        self.lazy.turns.get_or_init(|| self.in_h.turn_spans())
    }

    /// Input pairing over the whole history.
    fn partner(&self) -> &Pairing {
        self.lazy.partner.get_or_init(|| self.in_h.pairing())
    }

    fn validity(&self) -> &(bool, bool, Option<String>) {
        self.lazy.validity.get_or_init(|| {
            let strict = validate_history(
                self.in_h,
                Options {
                    allow_pending: false,
                },
            );
            if strict.is_empty() {
                return (true, true, None);
            }
            let pending = validate_history(
                self.in_h,
                Options {
                    allow_pending: true,
                },
            );
            (
                false,
                pending.is_empty(),
                pending.first().map(|v| v.to_string()),
            )
        })
    }

    fn input_valid_strict(&self) -> bool {
        self.validity().0
    }

    fn input_valid_pending(&self) -> bool {
        self.validity().1
    }

    fn first_input_violation(&self) -> Option<&str> {
        self.validity().2.as_deref()
    }

    fn judge(&self, clause: Clause) -> Outcome {
        let declared = &self.req.declared;
        // Clauses that read the budget's size when the declared contract
        // has none, or counts turns (spec §16.2, §16.4).
        if declared.no_budget
            && matches!(
                clause,
                Clause::Budget
                    | Clause::Maximal
                    | Clause::OverflowQuestion
                    | Clause::MaximalSuffix
                    | Clause::IdentityWhenFits
                    | Clause::BudgetMonotone
                    | Clause::MatchesReference
            )
        {
            return not_judged("the reducer declares no budget (--declare no-budget)");
        }
        if declared.counts_spans()
            && matches!(
                clause,
                Clause::OverflowQuestion | Clause::MaximalSuffix | Clause::MatchesReference
            )
        {
            return not_judged(
                "the reducer's budget counts turns or invocations (--declare budget-unit); this clause reads a budget of messages",
            );
        }
        if declared.complete_calls && clause == Clause::MatchesReference {
            return not_judged(
                "the reducer declares complete-calls: the reference removes what it completes (spec §17.4)",
            );
        }
        if declared.soft_budget && clause == Clause::MatchesReference {
            return not_judged(
                "the reducer declares soft-budget: the reference keeps the budget hard (spec §16.1)",
            );
        }
        // Clauses that are judged whatever the budget and response.
        match clause {
            Clause::RejectsBadBudget => return self.rejects_bad_budget(),
            Clause::ProtocolBudget => return self.protocol_budget(),
            Clause::Deterministic => return self.deterministic(),
            Clause::MatchesReference => {
                // The reference's choice of input messages: an output
                // message that is none is no-fabrication's (spec §9.1).
                if let Some(k) = self.out.as_ref().and_then(|o| o.fabricated()) {
                    return not_judged(format!(
                        "output message {k} is no input message (no-fabrication); this clause judges which input messages were kept"
                    ));
                }
                return self.matches_reference();
            }
            _ => {}
        }
        let budget = match &self.budget {
            Ok(b) => b,
            Err(_) => return not_judged("the budget is invalid; only rejects-bad-budget applies"),
        };
        let Some(out) = &self.out else {
            return match clause {
                _ if matches!(self.response, Response::Unsupported(_)) => {
                    not_judged("the reducer answered that the request is unsupported")
                }
                Clause::RepairValid => {
                    let Response::Error(e) = self.response else {
                        unreachable!("no output means an error or unsupported response")
                    };
                    fail(format!(
                        "a history was refused: {e:?}; a repair answers every history it can read (spec §17.1)"
                    ))
                }
                Clause::ValidOutput if self.req.budget.spelled().is_some() => not_judged(
                    "the budget is written other than as an integer: protocol-budget judges the error",
                ),
                Clause::ValidOutput if self.input_valid_pending() => {
                    let Response::Error(e) = self.response else {
                        unreachable!("no output means an error or unsupported response")
                    };
                    if self.provider.is_some() && !self.has_turn_start() {
                        return not_judged(
                            "with the provider profile, an error is allowed when the history has no user message (spec §15.4)",
                        );
                    }
                    fail(format!("a valid request was rejected: {e:?}"))
                }
                _ => not_judged("the reducer answered with an error"),
            };
        };
        if clause.level() == Level::Policy
            && self.req.policy.has_budget()
            && !self.input_valid_pending()
        {
            return not_judged(format!(
                "the input is not valid ({}); policy clauses apply to valid inputs",
                self.first_input_violation().unwrap_or("?")
            ));
        }
        // Policy clauses (and matches-reference, above) judge which input
        // messages were kept; an output message that is no input message
        // says nothing of that, and no-fabrication names it (spec §9.1:
        // every failure describes what the reducer did, one changed
        // message fails one clause).
        if clause.level() == Level::Policy || clause == Clause::CallsKeepResults {
            if let Some(k) = out.fabricated() {
                return not_judged(format!(
                    "output message {k} is no input message (no-fabrication); this clause judges which input messages were kept"
                ));
            }
        }
        // Policy clauses judge the kept messages of M with B less the
        // summary's cost (spec §12.4); identity-when-fits, idempotent and
        // budget-monotone look at the whole answer.
        let room = match out.summary {
            Some(_)
                if clause.level() == Level::Policy
                    && !matches!(
                        clause,
                        Clause::IdentityWhenFits | Clause::Idempotent | Clause::BudgetMonotone
                    ) =>
            {
                match budget.room.checked_sub(self.summary_cost()) {
                    Some(r) => r,
                    None => {
                        return not_judged(
                            "the summary alone costs more than the budget (budget fails)",
                        )
                    }
                }
            }
            _ => budget.room,
        };
        let b = &budget.budget;
        let in_turns = declared.counts_spans();
        match clause {
            Clause::Budget if in_turns => self.budget_in_turns(out, b),
            Clause::Maximal if in_turns => self.maximal_in_turns(out, b),
            Clause::WholeTurns if in_turns => self.whole_turns(out, b, u64::MAX),
            Clause::IdentityWhenFits if in_turns => {
                if self.fits_in_turns(b) {
                    self.identity_when_fits(out, b, u64::MAX)
                } else {
                    not_judged("M has more turns than the budget (budget-unit=turns)")
                }
            }
            Clause::PlaceholderShape => self.placeholder_shape(out),
            Clause::Budget => self.budget_clause(out, b, room),
            Clause::SystemPinned => self.system_pinned(out),
            Clause::NoFabrication => self.no_fabrication(out, b),
            Clause::NoOrphanResult => self.no_orphan(out, ItemKind::Result, "result", "call"),
            Clause::NoOrphanApproval => self.no_orphan(
                out,
                ItemKind::ApprovalResponse,
                "approval response",
                "request",
            ),
            Clause::CallsKeepResults => self.calls_keep_results(out),
            Clause::ValidOutput => self.valid_output(out),
            Clause::SummaryShape => self.summary_shape(out),
            Clause::SummaryReplacesPrefix => self.summary_replaces_prefix(out),
            Clause::WholeTurns => self.whole_turns(out, b, room),
            Clause::NewestFirst => self.newest_first(out),
            Clause::Maximal => self.maximal(out, b, room),
            Clause::OverflowQuestion => self.overflow_question(out, b, room),
            Clause::ContiguousSuffix => self.contiguous_suffix(out),
            Clause::MaximalSuffix => self.maximal_suffix(out, b, room),
            Clause::IdentityWhenFits => self.identity_when_fits(out, b, room),
            Clause::ReasoningAttached => self.reasoning_attached(out),
            Clause::ProviderAccepts => self.provider_accepts(out),
            Clause::RepairValid => self.repair_valid(out),
            Clause::NoUnansweredCall => self.no_unanswered_call(out),
            Clause::CompletesCalls => self.completes_calls(out),
            Clause::RepairKeepsWhole => self.repair_keeps_whole(out),
            Clause::RepairKeepsContent => self.repair_keeps_content(out),
            Clause::Idempotent => self.idempotent(out),
            Clause::BudgetMonotone => self.budget_monotone(out),
            Clause::ProtocolJson
            | Clause::ProtocolTimeout
            | Clause::ProtocolCrash
            | Clause::ProtocolSize
            | Clause::ProtocolBudget
            | Clause::RejectsBadBudget
            | Clause::Deterministic
            | Clause::MatchesReference => unreachable!("judged above or by the runner"),
        }
    }
}

/// Judges an in-process reducer: calls `reducer(budget members, messages)`
/// for the request and for every [`extra_requests`] it needs, then
/// [`check`]s, with `reference` (the reference reducer's answer, as
/// `Response::from` gives it) for `matches-reference`.
/// Used by the tests and fuzz targets to judge the reference reducers, and
/// by anyone embedding the kit. (With summaries allowed, the answer a
/// summary is compared with is not supplied here: set
/// [`Extras::reference_less_summary`] and call [`check`].)
///
/// # Errors
///
/// As [`check`].
///
/// # Examples
///
/// ```
/// use reducer_kit::check::{check_reducer, Request};
/// use reducer_kit::{formats::Format, protocol::Response, terms::{BudgetFields, Policy}};
/// let h: Vec<serde_json::Value> = serde_json::from_str(r#"[{"role":"user","contents":[]}]"#).unwrap();
/// let budget = BudgetFields::messages(serde_json::json!(1));
/// let req = Request { format: Format::Canonical, policy: Policy::Turns, budget: &budget, messages: &h, summary: None, declared: Default::default(), provider: None };
/// // A reducer that keeps everything, on a history that fits.
/// let keep_all = |_: &BudgetFields, m: &[serde_json::Value]| Response::Messages(m.to_vec());
/// let verdicts = check_reducer(&req, keep_all, Some(Response::Messages(h.clone()))).unwrap();
/// assert!(verdicts.iter().all(|v| !v.failed()));
/// ```
pub fn check_reducer(
    req: &Request,
    mut reducer: impl FnMut(&BudgetFields, &[Value]) -> Response,
    reference: Option<Response>,
) -> Result<Vec<Verdict>, ShapeError> {
    let first = reducer(req.budget, req.messages);
    let mut extras = Extras {
        reference,
        ..Extras::default()
    };
    for extra in extra_requests(req, &first) {
        let r = reducer(&extra.budget, &extra.messages);
        extras.record(&extra, r);
    }
    check(req, &first, &extras)
}
