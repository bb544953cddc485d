//! The checker: judges one (request, response) against every clause of
//! semantics §6 for the request's policy.
//!
//! Each clause is judged from its own definition, with the shared terms of
//! semantics §2 (pinned message, turns, positional pairing,
//! [`crate::terms`]) and the validator, never a reduction: the checker does
//! not import the reference reducer, so that a bug there cannot hide the
//! same bug here (a test holds this). `matches-reference` compares the
//! response with the reference reducer's answer, which the caller supplies
//! ([`Extras::reference`]; the reference reducer's `respond` computes it).
//!
//! | file | judges |
//! |------|--------|
//! | `mod.rs` | the request, the extra responses, the verdicts, [`check`] |
//! | `mapping.rs` | output messages mapped to input messages (semantics §7) |
//! | `safety.rs` | the safety level (§6.3) |
//! | `turns.rs` | the policy level of `turns` (§6.4) |
//! | `suffix.rs` | the policy level of `suffix` (§6.5) |
//! | `metamorphic.rs` | clauses judged against other responses: `identity-when-fits`, `deterministic`, `idempotent`, `budget-monotone`, `matches-reference` (§6.3–§6.6) |
//!
//! **Matching output to input.** Output messages are first mapped to the
//! input messages they came from (semantics §6): the output's first system
//! message maps to the pinned one when it is equal to it; the others map by
//! the *latest* embedding, from the end backwards, each to the latest input
//! message before the previous match that it equals, or equals but for
//! removed results / approval responses. Every clause is judged under this
//! mapping.
//!
//! **Applicability.** Policy-level clauses are judged only when the input is
//! valid (pending calls allowed in the newest turn); a clause that does not
//! apply, or needs a response the caller did not supply ([`Extras`]), gets
//! [`Outcome::NotJudged`] with the reason.

mod mapping;
mod metamorphic;
mod safety;
mod suffix;
mod turns;

use crate::formats::{view_history, view_message, Format};
use crate::json::first_difference;
use crate::protocol::Response;
use crate::terms::{
    pair, pinned_index, Budget, BudgetError, Clause, ItemKind, Level, MessageView, Policy, Role,
    ShapeError,
};
use crate::validate::{validate, Options};
use mapping::{map_output, Mapping};
use serde_json::Value;

/// One request as the checker sees it.
#[derive(Clone, Copy, Debug)]
pub struct Request<'a> {
    /// The wire format of `messages` and of the response.
    pub format: Format,
    /// The policy whose clauses are judged.
    pub policy: Policy,
    /// `maxMessages` as sent (possibly invalid on purpose).
    pub max_messages: &'a Value,
    /// The input history.
    pub messages: &'a [Value],
}

/// The other responses some clauses are judged against: the answers to
/// the extra requests ([`extra_requests`]) and the reference reducer's
/// answer. A missing one leaves its clause not judged.
#[derive(Clone, Debug, Default)]
pub struct Extras {
    /// The response to the same request, sent again (`deterministic`).
    pub repeat: Option<Response>,
    /// The response to the output, reduced again with the same budget
    /// (`idempotent`).
    pub again: Option<Response>,
    /// The budget one smaller (a number of messages) and the response to
    /// the input with it (`budget-monotone`).
    pub smaller: Option<(usize, Response)>,
    /// The reference reducer's answer to the request, for the same policy
    /// and format (`matches-reference`); the reference reducer's `respond`
    /// gives it.
    pub reference: Option<Response>,
}

impl Extras {
    /// Files `response`, the answer to the extra request `extra`, where
    /// its clause looks for it.
    pub fn record(&mut self, extra: &ExtraRequest, response: Response) {
        match extra.kind {
            ExtraKind::Repeat => self.repeat = Some(response),
            ExtraKind::Again => self.again = Some(response),
            ExtraKind::Smaller => {
                let smaller = Budget::parse(&extra.max_messages).map_or(0, Budget::max_messages);
                self.smaller = Some((smaller, response));
            }
        }
    }
}

/// Which extra request an [`ExtraRequest`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExtraKind {
    /// The same request again.
    Repeat,
    /// The output, reduced again with the same budget.
    Again,
    /// The input with the budget one smaller.
    Smaller,
}

/// An extra request to send to the reducer under test.
#[derive(Clone, Debug, PartialEq)]
pub struct ExtraRequest {
    /// What it is for.
    pub kind: ExtraKind,
    /// Its `maxMessages`.
    pub max_messages: Value,
    /// Its messages.
    pub messages: Vec<Value>,
}

/// The extra requests that the clauses `deterministic`, `idempotent` and
/// `budget-monotone` need, given the first response. `Again` and `Smaller`
/// are only asked for a valid budget answered with messages; `Smaller` only
/// when the budget is at least 2.
pub fn extra_requests(req: &Request, first: &Response) -> Vec<ExtraRequest> {
    let mut out = vec![ExtraRequest {
        kind: ExtraKind::Repeat,
        max_messages: req.max_messages.clone(),
        messages: req.messages.to_vec(),
    }];
    if let (Ok(budget), Response::Messages(m)) = (Budget::parse(req.max_messages), first) {
        out.push(ExtraRequest {
            kind: ExtraKind::Again,
            max_messages: req.max_messages.clone(),
            messages: m.clone(),
        });
        if let Some(smaller) = budget.one_smaller() {
            out.push(ExtraRequest {
                kind: ExtraKind::Smaller,
                max_messages: smaller.to_json(),
                messages: req.messages.to_vec(),
            });
        }
    }
    out
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
/// `req.policy` (see [`Clause::for_policy`]), in report order.
///
/// # Errors
///
/// A [`ShapeError`] when the *input* history cannot be read; an unreadable
/// output message is a `no-fabrication` failure instead.
pub fn check(
    req: &Request,
    response: &Response,
    extras: &Extras,
) -> Result<Vec<Verdict>, ShapeError> {
    let in_views = view_history(req.format, req.messages)?;
    let judge = Judge::new(req, &in_views, response, extras);
    Ok(Clause::for_policy(req.policy)
        .into_iter()
        .filter(|c| c.level() != Level::Protocol)
        .map(|clause| Verdict {
            clause,
            outcome: judge.judge(clause),
        })
        .collect())
}

fn fail(text: impl Into<String>) -> Outcome {
    Outcome::Fail(text.into())
}

fn not_judged(text: impl Into<String>) -> Outcome {
    Outcome::NotJudged(text.into())
}

struct Judge<'a> {
    req: &'a Request<'a>,
    in_views: &'a [MessageView],
    response: &'a Response,
    extras: &'a Extras,
    budget: Result<usize, BudgetError>,
    pinned: Option<usize>,
    /// Non-pinned input indices, in order.
    rest: Vec<usize>,
    input_valid_strict: bool,
    input_valid_pending: bool,
    first_input_violation: Option<String>,
    /// Input pairing over the whole history.
    partner: Vec<Vec<Option<(usize, usize)>>>,
    out: Option<OutputState>,
}

struct OutputState {
    messages: Vec<Value>,
    views: Vec<Option<MessageView>>,
    mapping: Mapping,
}

impl<'a> Judge<'a> {
    fn new(
        req: &'a Request<'a>,
        in_views: &'a [MessageView],
        response: &'a Response,
        extras: &'a Extras,
    ) -> Judge<'a> {
        let pinned = pinned_index(in_views);
        let rest = (0..in_views.len()).filter(|&i| Some(i) != pinned).collect();
        let strict = validate(
            in_views,
            Options {
                allow_pending: false,
            },
        );
        let pending = validate(
            in_views,
            Options {
                allow_pending: true,
            },
        );
        let everything: Vec<usize> = (0..in_views.len()).collect();
        let out = match response {
            Response::Messages(m) => {
                let views: Vec<Option<MessageView>> = m
                    .iter()
                    .enumerate()
                    .map(|(i, v)| view_message(req.format, v, i).ok())
                    .collect();
                let roles: Vec<Option<Role>> =
                    views.iter().map(|v| v.as_ref().map(|v| v.role)).collect();
                let mapping = map_output(req.format, req.messages, in_views, m, &roles);
                Some(OutputState {
                    messages: m.clone(),
                    views,
                    mapping,
                })
            }
            Response::Error(_) => None,
        };
        Judge {
            req,
            in_views,
            response,
            extras,
            budget: Budget::parse(req.max_messages).map(Budget::max_messages),
            pinned,
            rest,
            input_valid_strict: strict.is_empty(),
            input_valid_pending: pending.is_empty(),
            first_input_violation: pending.first().map(|v| v.to_string()),
            partner: pair(in_views, &everything),
            out,
        }
    }

    fn judge(&self, clause: Clause) -> Outcome {
        // Clauses that are judged whatever the budget and response.
        match clause {
            Clause::RejectsBadBudget => return self.rejects_bad_budget(),
            Clause::Deterministic => return self.deterministic(),
            Clause::MatchesReference => return self.matches_reference(),
            _ => {}
        }
        let budget = match &self.budget {
            Ok(b) => *b,
            Err(_) => return not_judged("the budget is invalid; only rejects-bad-budget applies"),
        };
        let Some(out) = &self.out else {
            return match clause {
                Clause::ValidOutput if self.input_valid_pending => {
                    let Response::Error(e) = self.response else {
                        unreachable!("no output means an error response")
                    };
                    fail(format!("a valid request was rejected: {e:?}"))
                }
                _ => not_judged("the reducer answered with an error"),
            };
        };
        if clause.level() == Level::Policy && !self.input_valid_pending {
            return not_judged(format!(
                "the input is not valid ({}); policy clauses apply to valid inputs",
                self.first_input_violation.as_deref().unwrap_or("?")
            ));
        }
        match clause {
            Clause::Budget => self.budget_clause(out, budget),
            Clause::SystemPinned => self.system_pinned(out),
            Clause::NoFabrication => self.no_fabrication(out),
            Clause::NoOrphanResult => self.no_orphan(out, ItemKind::Result, "result", "call"),
            Clause::NoOrphanApproval => self.no_orphan(
                out,
                ItemKind::ApprovalResponse,
                "approval response",
                "request",
            ),
            Clause::CallsKeepResults => self.calls_keep_results(out),
            Clause::ValidOutput => self.valid_output(out),
            Clause::WholeTurns => self.whole_turns(out, budget),
            Clause::NewestFirst => self.newest_first(out),
            Clause::Maximal => self.maximal(out, budget),
            Clause::OverflowQuestion => self.overflow_question(out, budget),
            Clause::ContiguousSuffix => self.contiguous_suffix(out),
            Clause::MaximalSuffix => self.maximal_suffix(out, budget),
            Clause::IdentityWhenFits => self.identity_when_fits(out, budget),
            Clause::Idempotent => self.idempotent(out),
            Clause::BudgetMonotone => self.budget_monotone(out),
            Clause::ProtocolJson
            | Clause::ProtocolTimeout
            | Clause::ProtocolCrash
            | Clause::ProtocolSize
            | Clause::RejectsBadBudget
            | Clause::Deterministic
            | Clause::MatchesReference => unreachable!("judged above or by the runner"),
        }
    }
}

fn preview(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 120 {
        format!("{}…", s.chars().take(120).collect::<String>())
    } else {
        s
    }
}

fn describe_difference(want: &Response, got: &Response) -> String {
    match (want, got) {
        (Response::Messages(a), Response::Messages(b)) => {
            let path = first_difference(&Value::Array(a.clone()), &Value::Array(b.clone()));
            format!(
                "{} vs {} messages, first difference at {}",
                a.len(),
                b.len(),
                path.unwrap_or_else(|| "$".into())
            )
        }
        (Response::Error(e), Response::Messages(b)) => {
            format!("expected an error ({e:?}), got {} messages", b.len())
        }
        (Response::Messages(a), Response::Error(e)) => {
            format!("expected {} messages, got an error ({e:?})", a.len())
        }
        (Response::Error(_), Response::Error(_)) => "both are errors".into(),
    }
}

/// Judges an in-process reducer: calls `reducer(maxMessages, messages)` for
/// the request and for every [`extra_requests`] it needs, then [`check`]s,
/// with `reference` (the reference reducer's answer; the reference
/// reducer's `respond` gives it) for `matches-reference`. Used by the
/// tests and fuzz targets to judge the reference reducers, and by anyone
/// embedding the kit.
///
/// # Errors
///
/// As [`check`].
///
/// # Examples
///
/// ```
/// use reducer_kit::check::{check_reducer, Request};
/// use reducer_kit::{formats::Format, protocol::Response, terms::Policy};
/// let h: Vec<serde_json::Value> = serde_json::from_str(r#"[{"role":"user","contents":[]}]"#).unwrap();
/// let max = serde_json::json!(1);
/// let req = Request { format: Format::Canonical, policy: Policy::Turns, max_messages: &max, messages: &h };
/// // A reducer that keeps everything, on a history that fits.
/// let keep_all = |_: &serde_json::Value, m: &[serde_json::Value]| Response::Messages(m.to_vec());
/// let verdicts = check_reducer(&req, keep_all, Some(Response::Messages(h.clone()))).unwrap();
/// assert!(verdicts.iter().all(|v| !v.failed()));
/// ```
pub fn check_reducer(
    req: &Request,
    mut reducer: impl FnMut(&Value, &[Value]) -> Response,
    reference: Option<Response>,
) -> Result<Vec<Verdict>, ShapeError> {
    let first = reducer(req.max_messages, req.messages);
    let mut extras = Extras {
        reference,
        ..Extras::default()
    };
    for extra in extra_requests(req, &first) {
        let r = reducer(&extra.max_messages, &extra.messages);
        extras.record(&extra, r);
    }
    check(req, &first, &extras)
}
