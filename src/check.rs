//! The checker: judges one (request, response) against every clause of
//! semantics §6 for the request's policy.
//!
//! Each clause is judged from its own definition. Only `matches-reference`
//! calls the reference reducer ([`crate::reduce`]); the others use the shared
//! terms of semantics §2 (pinned message, turns, positional pairing) and the
//! validator, never a reduction.
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

use crate::formats::{view_history, view_message, Format};
use crate::json::{first_difference, json_eq};
use crate::protocol::Response;
use crate::terms::{
    pair, pinned_index, turns, Budget, BudgetError, Clause, ItemKind, Level, MessageView, Policy,
    Role, ShapeError,
};
use crate::validate::{validate, Options};
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

/// Responses to the extra requests that some clauses need (see
/// [`extra_requests`]). A missing one leaves its clause not judged.
#[derive(Clone, Debug, Default)]
pub struct Extras {
    /// The response to the same request, sent again (`deterministic`).
    pub repeat: Option<Response>,
    /// The response to the output, reduced again with the same budget
    /// (`idempotent`).
    pub again: Option<Response>,
    /// The budget one smaller and the response to the input with it
    /// (`budget-monotone`).
    pub smaller: Option<(usize, Response)>,
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

/// The output mapped onto the input.
struct Mapping {
    /// Output index of the pinned system message, when found equal.
    out_pinned: Option<usize>,
    /// For each output message, its input message and the input item indices
    /// removed from it.
    map: Vec<Option<(usize, Vec<usize>)>>,
    /// Per input message: whether some output message maps to it.
    kept: Vec<bool>,
    /// Per input message: the removed item indices, when kept.
    removed: Vec<Vec<usize>>,
}

/// Whether `o` equals `i`, or equals it but for removed results / approval
/// responses; returns the removed item indices of `i` (empty when equal).
fn embeds(format: Format, o: &Value, i: &Value, i_view: &MessageView) -> Option<Vec<usize>> {
    if json_eq(o, i) {
        return Some(Vec::new());
    }
    let (oo, io) = (o.as_object()?, i.as_object()?);
    let key = format.items_key();
    if oo.len() != io.len()
        || !io
            .iter()
            .all(|(k, v)| k == key || oo.get(k).is_some_and(|w| json_eq(v, w)))
    {
        return None;
    }
    let (Value::Array(oa), Value::Array(ia)) = (oo.get(key)?, io.get(key)?) else {
        return None;
    };
    let removable_elem = |e: usize| {
        i_view
            .items
            .iter()
            .position(|it| it.elem == Some(e) && it.kind.is_removable())
    };
    let mut removed = Vec::new();
    let mut next = 0;
    for (e, iv) in ia.iter().enumerate() {
        if next < oa.len() && json_eq(&oa[next], iv) {
            next += 1;
        } else {
            removed.push(removable_elem(e)?);
        }
    }
    (next == oa.len() && !removed.is_empty()).then_some(removed)
}

fn map_output(
    format: Format,
    input: &[Value],
    in_views: &[MessageView],
    output: &[Value],
    out_roles: &[Option<Role>],
) -> Mapping {
    let pinned = pinned_index(in_views);
    let first_system = out_roles.iter().position(|r| *r == Some(Role::System));
    let out_pinned = match (pinned, first_system) {
        (Some(p), Some(k)) if json_eq(&output[k], &input[p]) => Some(k),
        _ => None,
    };
    let mut map: Vec<Option<(usize, Vec<usize>)>> = vec![None; output.len()];
    let mut kept = vec![false; input.len()];
    let mut removed = vec![Vec::new(); input.len()];
    if let (Some(k), Some(p)) = (out_pinned, pinned) {
        map[k] = Some((p, Vec::new()));
        kept[p] = true;
    }
    let mut bound = input.len();
    for k in (0..output.len()).rev() {
        if Some(k) == out_pinned {
            continue;
        }
        let found = (0..bound)
            .rev()
            .filter(|&j| Some(j) != pinned)
            .find_map(|j| embeds(format, &output[k], &input[j], &in_views[j]).map(|r| (j, r)));
        if let Some((j, r)) = found {
            bound = j;
            kept[j] = true;
            removed[j] = r.clone();
            map[k] = Some((j, r));
        }
    }
    Mapping {
        out_pinned,
        map,
        kept,
        removed,
    }
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

    fn rejects_bad_budget(&self) -> Outcome {
        match (&self.budget, self.response) {
            (Ok(_), _) => not_judged("the budget is valid"),
            (Err(_), Response::Error(_)) => Outcome::Pass,
            (Err(_), Response::Messages(m)) => fail(format!(
                "maxMessages {} was answered with {} messages instead of an error",
                self.req.max_messages,
                m.len()
            )),
        }
    }

    fn deterministic(&self) -> Outcome {
        match &self.extras.repeat {
            None => not_judged("needs the response to a repeated request"),
            Some(r) if r.same_as(self.response) => Outcome::Pass,
            Some(r) => fail(format!(
                "the same request got a different response: {}",
                describe_difference(self.response, r)
            )),
        }
    }

    fn matches_reference(&self) -> Outcome {
        let reference = crate::reduce::respond(
            self.req.policy,
            self.req.format,
            self.req.max_messages,
            self.req.messages,
        );
        if reference.same_as(self.response) {
            Outcome::Pass
        } else {
            fail(format!(
                "differs from the reference: {}",
                describe_difference(&reference, self.response)
            ))
        }
    }

    fn kept_non_pinned(&self, out: &OutputState) -> usize {
        out.messages.len() - usize::from(out.mapping.out_pinned.is_some())
    }

    fn budget_clause(&self, out: &OutputState, budget: usize) -> Outcome {
        let n = self.kept_non_pinned(out);
        if n <= budget {
            Outcome::Pass
        } else {
            fail(format!(
                "{n} messages besides the pinned system message, budget {budget}"
            ))
        }
    }

    fn system_pinned(&self, out: &OutputState) -> Outcome {
        let Some(p) = self.pinned else {
            return not_judged("the input has no system message");
        };
        if out.mapping.out_pinned.is_some() {
            return Outcome::Pass;
        }
        match out.views.iter().position(|v| v.as_ref().is_some_and(|v| v.role == Role::System)) {
            None => fail(format!("the pinned system message (input message {p}) is missing")),
            Some(k) => fail(format!(
                "the output's first system message (output message {k}) is not the pinned one (input message {p}): differs at {}",
                first_difference(&self.req.messages[p], &out.messages[k]).unwrap_or_default()
            )),
        }
    }

    fn no_fabrication(&self, out: &OutputState) -> Outcome {
        match out.mapping.map.iter().position(Option::is_none) {
            None => Outcome::Pass,
            Some(k) => fail(format!(
                "output message {k} is not an input message (or is out of order, or repeated): {}",
                preview(&out.messages[k])
            )),
        }
    }

    fn no_orphan(&self, out: &OutputState, kind: ItemKind, what: &str, partner: &str) -> Outcome {
        let views: Vec<MessageView> = out
            .views
            .iter()
            .map(|v| {
                v.clone().unwrap_or(MessageView {
                    role: Role::Other,
                    role_text: String::new(),
                    items: Vec::new(),
                })
            })
            .collect();
        let all: Vec<usize> = (0..views.len()).collect();
        let paired = pair(&views, &all);
        for (k, v) in views.iter().enumerate() {
            for (t, item) in v.items.iter().enumerate() {
                if item.kind == kind && paired[k][t].is_none() {
                    return fail(format!(
                        "output message {k}: {what} {:?} has no {partner} earlier in the output",
                        item.id
                    ));
                }
            }
        }
        Outcome::Pass
    }

    fn calls_keep_results(&self, out: &OutputState) -> Outcome {
        for (k, m) in out.mapping.map.iter().enumerate() {
            let Some((j, _)) = m else { continue };
            for (t, item) in self.in_views[*j].items.iter().enumerate() {
                if !matches!(item.kind, ItemKind::Call | ItemKind::ApprovalRequest) {
                    continue;
                }
                if let Some((pm, pt)) = self.partner[*j][t] {
                    if !out.mapping.kept[pm] || out.mapping.removed[pm].contains(&pt) {
                        let (what, answer) = if item.kind == ItemKind::Call {
                            ("call", "result")
                        } else {
                            ("approval request", "response")
                        };
                        return fail(format!(
                            "output message {k} keeps {what} {:?} but its {answer} (input message {pm}) was dropped",
                            item.id
                        ));
                    }
                }
            }
        }
        Outcome::Pass
    }

    fn valid_output(&self, out: &OutputState) -> Outcome {
        let allow_pending = if self.input_valid_strict {
            false
        } else if self.input_valid_pending {
            true
        } else {
            return not_judged(format!(
                "the input is not valid ({})",
                self.first_input_violation.as_deref().unwrap_or("?")
            ));
        };
        let mut views = Vec::with_capacity(out.views.len());
        for (k, v) in out.views.iter().enumerate() {
            match v {
                Some(v) => views.push(v.clone()),
                None => {
                    return fail(format!(
                        "output message {k} cannot be read as a {} message",
                        self.req.format
                    ))
                }
            }
        }
        match validate(&views, Options { allow_pending }).first() {
            None => Outcome::Pass,
            Some(v) => fail(format!("the output breaks {v}")),
        }
    }

    /// Input message `j` was legitimately dropped by orphan removal: it has
    /// items, all results / approval responses, none of whose partners is
    /// kept in the output.
    fn explainable_drop(&self, out: &OutputState, j: usize) -> bool {
        let v = &self.in_views[j];
        !v.items.is_empty()
            && v.items.iter().enumerate().all(|(t, item)| {
                item.kind.is_removable()
                    && self.partner[j][t].is_none_or(|(pm, _)| !out.mapping.kept[pm])
            })
    }

    fn overflow(&self, budget: usize) -> Option<crate::terms::Turn> {
        let all = turns(self.in_views);
        let newest = all.last()?;
        (self.rest.len() > budget && newest.messages.len() > budget).then(|| newest.clone())
    }

    fn whole_turns(&self, out: &OutputState, budget: usize) -> Outcome {
        if self.overflow(budget).is_some() {
            return not_judged(
                "the newest turn alone is over the budget (overflow-question applies)",
            );
        }
        for turn in turns(self.in_views) {
            let kept = turn
                .messages
                .iter()
                .filter(|&&j| out.mapping.kept[j])
                .count();
            if kept == 0 {
                continue;
            }
            if let Some(&j) = turn
                .messages
                .iter()
                .find(|&&j| !out.mapping.kept[j] && !self.explainable_drop(out, j))
            {
                return fail(format!(
                    "the turn starting at input message {} is kept in part ({kept} of {} messages; input message {j} dropped)",
                    turn.messages[0],
                    turn.messages.len()
                ));
            }
        }
        Outcome::Pass
    }

    fn newest_first(&self, out: &OutputState) -> Outcome {
        let all = turns(self.in_views);
        let touched: Vec<bool> = all
            .iter()
            .map(|t| t.messages.iter().any(|&j| out.mapping.kept[j]))
            .collect();
        if let Some(old) = touched.iter().position(|&t| t) {
            if let Some(newer) = (old + 1..all.len()).find(|&t| !touched[t]) {
                return fail(format!(
                    "the turn starting at input message {} is kept while the newer turn starting at input message {} is dropped",
                    all[old].messages[0], all[newer].messages[0]
                ));
            }
        }
        Outcome::Pass
    }

    fn maximal(&self, out: &OutputState, budget: usize) -> Outcome {
        if self.overflow(budget).is_some() {
            return not_judged(
                "the newest turn alone is over the budget (overflow-question applies)",
            );
        }
        let all = turns(self.in_views);
        let oldest = all
            .iter()
            .position(|t| t.messages.iter().any(|&j| out.mapping.kept[j]))
            .unwrap_or(all.len());
        if oldest == 0 {
            return Outcome::Pass;
        }
        let used: usize = all[oldest..].iter().map(|t| t.messages.len()).sum();
        let next = &all[oldest - 1];
        if used + next.messages.len() <= budget {
            fail(format!(
                "the turn starting at input message {} ({} messages) would have fit: {used} used of budget {budget}",
                next.messages[0],
                next.messages.len()
            ))
        } else {
            Outcome::Pass
        }
    }

    fn overflow_question(&self, out: &OutputState, budget: usize) -> Outcome {
        let Some(newest) = self.overflow(budget) else {
            return not_judged("the newest turn fits the budget");
        };
        let m = &newest.messages;
        let mut expected: Vec<usize> = Vec::new();
        if newest.has_question {
            expected.push(m[0]);
            expected.extend_from_slice(&m[m.len() - (budget - 1)..]);
        } else {
            expected.extend_from_slice(&m[m.len() - budget..]);
        }
        if let Some(j) = self
            .rest
            .iter()
            .copied()
            .find(|&j| out.mapping.kept[j] && !expected.contains(&j))
        {
            return fail(format!(
                "input message {j} is kept, but only the newest turn's question and its last {} messages may be",
                if newest.has_question { budget - 1 } else { budget }
            ));
        }
        if let Some(&j) = expected
            .iter()
            .find(|&&j| !out.mapping.kept[j] && !self.explainable_drop(out, j))
        {
            return fail(format!("input message {j} (the newest turn's question or one of its most recent messages) is dropped"));
        }
        Outcome::Pass
    }

    fn contiguous_suffix(&self, out: &OutputState) -> Outcome {
        let Some(s) = self.rest.iter().position(|&j| out.mapping.kept[j]) else {
            return Outcome::Pass;
        };
        match self.rest[s..]
            .iter()
            .copied()
            .find(|&j| !out.mapping.kept[j] && !self.explainable_drop(out, j))
        {
            None => Outcome::Pass,
            Some(j) => fail(format!(
                "input message {j} is missing inside the kept run that starts at input message {}",
                self.rest[s]
            )),
        }
    }

    /// A legal suffix start (semantics §4): not a tool message, not
    /// approval-only, carrying no result / approval response whose partner
    /// lies before it.
    fn legal_start(&self, j: usize) -> bool {
        let v = &self.in_views[j];
        v.role != Role::Tool
            && !v.is_approval_only()
            && !v.items.iter().enumerate().any(|(t, item)| {
                item.kind.is_removable() && self.partner[j][t].is_some_and(|(pm, _)| pm < j)
            })
    }

    fn maximal_suffix(&self, out: &OutputState, budget: usize) -> Outcome {
        let n = self.rest.len();
        let start = self
            .rest
            .iter()
            .position(|&j| out.mapping.kept[j])
            .unwrap_or(n);
        for pos in n.saturating_sub(budget)..start {
            if self.legal_start(self.rest[pos]) {
                return fail(format!(
                    "the run could start at input message {} ({} messages, budget {budget}) but starts at {}",
                    self.rest[pos],
                    n - pos,
                    self.rest.get(start).map_or("the end".to_string(), |j| format!("input message {j}"))
                ));
            }
        }
        Outcome::Pass
    }

    fn identity_when_fits(&self, out: &OutputState, budget: usize) -> Outcome {
        if self.rest.len() > budget {
            return not_judged("the input does not fit the budget");
        }
        let (a, b) = (
            Value::Array(self.req.messages.to_vec()),
            Value::Array(out.messages.clone()),
        );
        match first_difference(&a, &b) {
            None => Outcome::Pass,
            Some(path) => fail(format!("the input fits but the output differs at {path}")),
        }
    }

    fn idempotent(&self, out: &OutputState) -> Outcome {
        match &self.extras.again {
            None => not_judged("needs the response to the output reduced again"),
            Some(Response::Messages(m))
                if m.len() == out.messages.len()
                    && m.iter().zip(&out.messages).all(|(x, y)| json_eq(x, y)) =>
            {
                Outcome::Pass
            }
            Some(r) => fail(format!(
                "reducing the output again changed it: {}",
                describe_difference(&Response::Messages(out.messages.clone()), r)
            )),
        }
    }

    fn budget_monotone(&self, out: &OutputState) -> Outcome {
        let Some((smaller, response)) = &self.extras.smaller else {
            return not_judged("needs the response for a smaller budget");
        };
        let Response::Messages(small) = response else {
            return fail(format!(
                "budget {smaller} was rejected: {}",
                describe_difference(self.response, response)
            ));
        };
        let Ok(big_views) = view_history(self.req.format, &out.messages) else {
            return not_judged("the output cannot be read");
        };
        // Latest embedding of the smaller output into the larger one.
        let mut bound = out.messages.len();
        for (k, m) in small.iter().enumerate().rev() {
            match (0..bound).rev().find(|&j| embeds(self.req.format, m, &out.messages[j], &big_views[j]).is_some()) {
                Some(j) => bound = j,
                None => {
                    return fail(format!(
                        "message {k} of the output for budget {smaller} is not in the output for budget {}: {}",
                        self.req.max_messages,
                        preview(m)
                    ))
                }
            }
        }
        Outcome::Pass
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
/// the request and for every [`extra_requests`] it needs, then [`check`]s.
/// Used by the tests and fuzz targets to judge the reference reducers, and
/// by anyone embedding the kit.
///
/// # Errors
///
/// As [`check`].
///
/// # Examples
///
/// ```
/// use reducer_kit::{check::{check_reducer, Request}, formats::Format, protocol::Response, reduce::reduce, terms::Policy};
/// let h: Vec<serde_json::Value> = serde_json::from_str(r#"[{"role":"user","contents":[]}]"#).unwrap();
/// let max = serde_json::json!(1);
/// let req = Request { format: Format::Canonical, policy: Policy::Turns, max_messages: &max, messages: &h };
/// let verdicts = check_reducer(&req, |max, msgs| match reduce(Policy::Turns, Format::Canonical, msgs, max) {
///     Ok(m) => Response::Messages(m),
///     Err(e) => Response::Error(e.to_string()),
/// }).unwrap();
/// assert!(verdicts.iter().all(|v| !v.failed()));
/// ```
pub fn check_reducer(
    req: &Request,
    mut reducer: impl FnMut(&Value, &[Value]) -> Response,
) -> Result<Vec<Verdict>, ShapeError> {
    let first = reducer(req.max_messages, req.messages);
    let mut extras = Extras::default();
    for extra in extra_requests(req, &first) {
        let r = reducer(&extra.max_messages, &extra.messages);
        match extra.kind {
            ExtraKind::Repeat => extras.repeat = Some(r),
            ExtraKind::Again => extras.again = Some(r),
            ExtraKind::Smaller => {
                let b = Budget::parse(&extra.max_messages).map_or(0, Budget::max_messages);
                extras.smaller = Some((b, r));
            }
        }
    }
    check(req, &first, &extras)
}
