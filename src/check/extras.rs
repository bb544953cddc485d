//! The other answers some clauses are judged against ([`Extras`]) and the
//! extra requests that get them ([`extra_requests`], spec §8.4, spec
//! §13.3): the same request again (`deterministic`), the output again
//! (`idempotent`), a smaller budget (`budget-monotone`), and the reference
//! reducer's answer (`matches-reference`).

use super::mapping::{Beside, Texts};
use crate::formats::{read_history, read_history_lenient};
use crate::protocol::Response;
use crate::terms::{Budget, BudgetFields};

use super::{OutputState, Request};
use serde_json::Value;
use std::borrow::Cow;

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
    /// The smaller budget's limit (maxMessages − 1, or the token budget of
    /// spec §11.6) and the response to the input with it
    /// (`budget-monotone`).
    pub smaller: Option<(u64, Response)>,
    /// The reference reducer's answer to the request, for the same policy
    /// and format (`matches-reference`): `Response::from` of the reference
    /// reducer's answer to the request's budget members.
    pub reference: Option<Response>,
    /// With summaries allowed: the reference reducer's answer for the
    /// budget less the summary's cost ([`Budget::less`]), what an answer
    /// with a summary is compared with, without its summary (spec
    /// §12.4): `Response::from` of the reference reducer's answer to that
    /// budget, already read.
    pub reference_less_summary: Option<Response>,
}

impl Extras {
    /// Files `response`, the answer to the extra request `extra`, where
    /// its clause looks for it.
    pub fn record(&mut self, extra: &ExtraRequest<'_>, response: Response) {
        match extra.kind {
            ExtraKind::Repeat => self.repeat = Some(response),
            ExtraKind::Again => self.again = Some(response),
            ExtraKind::Smaller => self.smaller = Some((extra.limit(), response)),
        }
    }

    /// The same answers, borrowed ([`ExtrasRef`]; [`check`](super::check()) takes either).
    pub fn borrowed(&self) -> ExtrasRef<'_> {
        ExtrasRef {
            repeat: self.repeat.as_ref(),
            again: self.again.as_ref(),
            smaller: self.smaller.as_ref().map(|(limit, r)| (*limit, r)),
            reference: self.reference.as_ref(),
            reference_less_summary: self.reference_less_summary.as_ref(),
        }
    }
}

/// [`Extras`] borrowed: the same answers, each held elsewhere, so that a
/// caller whose answers repeat one it already holds (a reducer that
/// answers the repeated request, or its own output sent back, with the
/// same bytes: `certify`) judges them without copying it. Field for field
/// what [`Extras`] holds; [`check`](super::check()) judges with either.
#[derive(Clone, Copy, Debug, Default)]
pub struct ExtrasRef<'a> {
    /// As [`Extras::repeat`] (`deterministic`).
    pub repeat: Option<&'a Response>,
    /// As [`Extras::again`] (`idempotent`).
    pub again: Option<&'a Response>,
    /// As [`Extras::smaller`] (`budget-monotone`): the smaller limit and
    /// the response for it.
    pub smaller: Option<(u64, &'a Response)>,
    /// As [`Extras::reference`] (`matches-reference`).
    pub reference: Option<&'a Response>,
    /// As [`Extras::reference_less_summary`] (spec §12.4).
    pub reference_less_summary: Option<&'a Response>,
}

impl<'a> From<&'a Extras> for ExtrasRef<'a> {
    /// [`Extras::borrowed`].
    fn from(extras: &'a Extras) -> ExtrasRef<'a> {
        extras.borrowed()
    }
}

/// Which extra request an [`ExtraRequest`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExtraKind {
    /// The same request again.
    Repeat,
    /// The output, reduced again with the same budget.
    Again,
    /// The input with the smaller budget.
    Smaller,
}

/// An extra request to send to the reducer under test (with the first
/// request's format and summary member).
#[derive(Clone, Debug, PartialEq)]
pub struct ExtraRequest<'a> {
    /// What it is for.
    pub kind: ExtraKind,
    /// Its budget members: the first request's, or with the output's costs
    /// (`Again` under a token budget), or a smaller limit (`Smaller`).
    pub budget: BudgetFields,
    /// Its messages: the request's or the first response's, borrowed.
    pub messages: Cow<'a, [Value]>,
}

impl ExtraRequest<'_> {
    /// The limit its budget sets, as [`Extras::smaller`] records it: the
    /// `maxTokens` member's, else the `maxMessages` member's; 0 when
    /// neither reads as a budget (never for the requests
    /// [`extra_requests`] makes).
    pub fn limit(&self) -> u64 {
        self.budget
            .max_tokens
            .as_ref()
            .or(self.budget.max_messages.as_ref())
            .and_then(|v| Budget::parse(v).ok())
            .map_or(0, |b| b.limit())
    }
}

/// The extra requests that the clauses `deterministic`, `idempotent` and
/// `budget-monotone` need, given the first response (spec §8.4, spec
/// §13.3). `Again` and `Smaller` are only asked for a valid budget answered
/// with messages. `Again` under a token budget gives each output message
/// its cost through the matching of §7 (a summary costs S), and is not
/// asked when an output message matches nothing and is not the summary.
/// `Smaller` is maxMessages − 1 when that is at least 1; under a token
/// budget min(N, used) − 1, where used is the answer's counted cost, when
/// that is at least 1 and (with `countPinned`) at least the pinned
/// message's cost. Under policy `repair`, which has no budget (spec
/// §17.1), `Smaller` is never asked, and `Again` under a token budget gives
/// an output message that matches nothing (a completion, §17.4) cost 0.
pub fn extra_requests<'a>(req: &Request<'a>, first: &'a Response) -> Vec<ExtraRequest<'a>> {
    let mut out = vec![ExtraRequest {
        kind: ExtraKind::Repeat,
        budget: req.budget.clone(),
        messages: Cow::Borrowed(req.messages),
    }];
    let Response::Messages(m) = first else {
        return out;
    };
    let Ok(b) = Budget::read(req.budget, req.messages.len()) else {
        return out;
    };
    if !b.is_tokens() {
        out.push(ExtraRequest {
            kind: ExtraKind::Again,
            budget: req.budget.clone(),
            messages: Cow::Borrowed(m),
        });
        if let Some(smaller) = b.one_smaller().filter(|_| req.policy.has_budget()) {
            out.push(ExtraRequest {
                kind: ExtraKind::Smaller,
                budget: BudgetFields::messages(smaller.to_json()),
                messages: Cow::Borrowed(req.messages),
            });
        }
        return out;
    }
    let Ok(in_h) = read_history(req.format, req.messages) else {
        return out;
    };
    let pinned = in_h.pinned();
    if b.available(pinned).is_err() {
        return out;
    }
    let texts = |values| Texts {
        values,
        canon: None,
        key: req.format.items_key(),
    };
    let out_h = read_history_lenient(req.format, m);
    let in_t = texts(req.messages);
    let out_state = OutputState::new(req, &in_h, in_t, texts(m), &out_h, Beside::default());
    let summary = out_state.summary;
    let s = req.summary.unwrap_or(1);
    let costs: Option<Vec<u64>> = out_state
        .mapping
        .map
        .iter()
        .enumerate()
        .map(|(k, mapped)| match mapped {
            Some(j) => Some(b.cost(*j)),
            None if Some(k) == summary => Some(s),
            None if !req.policy.has_budget() => Some(0),
            None => None,
        })
        .collect();
    if let Some(costs) = costs {
        let again = Budget::of_tokens(b.limit(), costs, b.count_pinned())
            .expect("a token budget read from a request has a limit of at least 1");
        out.push(ExtraRequest {
            kind: ExtraKind::Again,
            budget: again.to_fields(),
            messages: Cow::Borrowed(m),
        });
    }
    let used = out_state.counted_cost(&b, pinned, s);
    let smaller = used.min(b.limit()).saturating_sub(1);
    if req.policy.has_budget() && smaller >= 1 && smaller >= b.pinned_cost(pinned) {
        let budget = b.with_limit(smaller).expect("at least 1");
        out.push(ExtraRequest {
            kind: ExtraKind::Smaller,
            budget: budget.to_fields(),
            messages: Cow::Borrowed(req.messages),
        });
    }
    out
}
