//! Clauses judged by comparing the response with the input or with other
//! responses: `identity-when-fits` (the input), `deterministic` (the same
//! request again), `idempotent` (the output reduced again),
//! `budget-monotone` (a smaller budget) and `matches-reference` (the
//! reference reducer's answer, which the caller supplies in
//! [`Extras::reference`](super::Extras::reference): the checker never
//! reduces).

use super::mapping::{map_output, Beside, EmbedIndex};
use super::{
    answer_of, describe_answers, describe_difference, fail, not_judged, preview, Judge, Outcome,
    OutputState, AGAIN, OUTPUT, REFERENCE, REPEAT, SMALLER,
};
use crate::formats::read_history_lenient;
use crate::json::first_difference_in;
use crate::protocol::Response;
use crate::terms::{Budget, History, Policy};
use std::cell::OnceCell;

/// How many messages of the larger answer just below the bound
/// `budget-monotone` tries one by one before indexing that answer.
const MONOTONE_NEAR: usize = 16;

impl Judge<'_> {
    /// Whether `r`, the extra answer at position `which` of
    /// [`Beside::whole`], is the same as the response
    /// ([`Response::same_as`]): as compared in the mapping's pass when it
    /// was, else compared here.
    fn same_as_response(&self, which: usize, r: &Response) -> bool {
        match self
            .out
            .as_ref()
            .and_then(|o| o.mapping.compared.whole[which])
        {
            Some(equal) => equal,
            None => match (
                self.answers.texts(OUTPUT, self.canon),
                self.answers.texts(which, self.canon),
            ) {
                (Some(out), Some(answer)) => out.same_history(&answer),
                _ => r.same_as(self.response),
            },
        }
    }

    pub(super) fn deterministic(&self) -> Outcome {
        match self.extras.repeat {
            None => not_judged("needs the response to a repeated request"),
            Some(r) if self.same_as_response(REPEAT, r) => Outcome::Pass,
            Some(r) => fail(format!(
                "the same request got a different response: {}",
                describe_difference(self.response, r)
            )),
        }
    }

    /// With a summary (spec §12.4): the answer without it against the
    /// reference for the budget less the summary's cost.
    pub(super) fn matches_reference(&self) -> Outcome {
        if let Some((out, k)) = self
            .out
            .as_ref()
            .and_then(|o| o.summary.map(|k| (o, k)))
            .filter(|_| self.budget.is_ok())
        {
            let Some(reference) = self.extras.reference_less_summary else {
                return not_judged(
                    "needs the reference reducer's answer for the budget less the summary's cost",
                );
            };
            let mut rest = out.messages.to_vec();
            rest.remove(k);
            let without = Response::Messages(rest);
            return if reference.same_as(&without) {
                Outcome::Pass
            } else {
                fail(format!(
                    "without its summary (output message {k}), differs from the reference for the budget less the summary's cost: {}",
                    describe_difference(reference, &without)
                ))
            };
        }
        let Some(reference) = self.extras.reference else {
            return not_judged("needs the reference reducer's answer");
        };
        if self.same_as_response(REFERENCE, reference) {
            Outcome::Pass
        } else {
            fail(format!(
                "differs from the reference: {}",
                describe_difference(reference, self.response)
            ))
        }
    }

    /// Judged when cost(M) ≤ B (the budget not reduced by a summary).
    pub(super) fn identity_when_fits(&self, out: &OutputState, b: &Budget, room: u64) -> Outcome {
        if self.cost_of_m(b) > room {
            return not_judged("the input does not fit the budget");
        }
        if self.in_t.same_history(&out.t) {
            return Outcome::Pass;
        }
        match first_difference_in(self.req.messages, out.messages) {
            None => Outcome::Pass,
            Some(path) => fail(format!("the input fits but the output differs at {path}")),
        }
    }

    pub(super) fn idempotent(&self, out: &OutputState) -> Outcome {
        match self.extras.again {
            None => not_judged("needs the response to the output reduced again"),
            Some(Response::Messages(_))
                if match (
                    out.mapping.compared.whole[AGAIN],
                    self.answers.texts(AGAIN, self.canon),
                ) {
                    (Some(equal), _) => equal,
                    (None, Some(again)) => again.same_history(&out.t),
                    (None, None) => false,
                } =>
            {
                Outcome::Pass
            }
            Some(r) => fail(format!(
                "reducing the output again changed it: {}",
                describe_answers(Ok(out.messages), answer_of(r))
            )),
        }
    }

    /// Policy `turns` under a token budget is not monotone where the
    /// newest turn's question stops fitting (spec §11.6, **Decided**):
    /// in the overflow case at N the question is kept with the newest
    /// messages that fit beside it, at the smaller limit the question alone
    /// is over B and step 4 keeps the longest run of newest messages
    /// instead, which may hold messages the first answer had no room for.
    /// `budget-monotone` is not judged there. With unit costs (a question
    /// costs 1) only under `count-pinned` (spec §16.9), where the smaller
    /// budget's B may be 0.
    fn question_left_out(&self, smaller: u64) -> Option<String> {
        if self.req.policy != Policy::Turns {
            return None;
        }
        let budget = self.budget.as_ref().ok()?;
        let b = &budget.budget;
        if !b.is_tokens() {
            return None;
        }
        let newest = *self.turns().last()?;
        if !newest.has_question {
            return None;
        }
        let q = b.cost(newest.start);
        let room = budget.room;
        let small_room = smaller.checked_sub(b.pinned_cost(self.pinned))?;
        let pinned = self.pinned;
        let newest_cost = b.cost_of((newest.start..newest.end).filter(|&j| Some(j) != pinned));
        (newest_cost > room && q <= room && q > small_room).then(|| {
            format!(
                "the newest turn's question (input message {}, cost {q}) fits B = {room} but not the smaller budget's B = {small_room}, where the policy keeps the newest messages instead (not monotone by design)",
                newest.start
            )
        })
    }

    /// With a summary in the answer, a smaller limit that leaves no room for
    /// a summary (B' < S) is not compared (spec §12.4, **Decided**): the
    /// answer there has no summary and may keep what the summary stood
    /// for.
    fn summary_left_out(&self, out: &OutputState, smaller: u64) -> Option<String> {
        let k = out.summary?;
        let budget = self.budget.as_ref().ok()?;
        let s = self.summary_cost();
        let small_room = smaller.saturating_sub(budget.budget.pinned_cost(self.pinned));
        (small_room < s).then(|| {
            format!(
                "the smaller budget's B = {small_room} leaves no room for a summary (output message {k}, cost {s})"
            )
        })
    }

    /// The smaller answer's kept messages are a subsequence of this
    /// answer's; with summaries allowed, each answer's summary is left out
    /// (spec §12.4).
    pub(super) fn budget_monotone(&self, out: &OutputState) -> Outcome {
        let Some((smaller, response)) = self.extras.smaller else {
            return not_judged("needs the response for a smaller budget");
        };
        if self.provider.is_some() && self.smaller_is_profile_fallback(response) {
            return not_judged(
                "the output for the smaller budget is the provider profile's fallback (spec §15.4)",
            );
        }
        if self.is_profile_fallback(out) {
            return not_judged(
                "the output is the provider profile's fallback, a turn start alone (spec §15.4): a cut the profile accepts at the smaller budget need not be within it",
            );
        }
        let Response::Messages(small) = response else {
            return fail(format!(
                "budget {smaller} was rejected: {}",
                describe_difference(self.response, response)
            ));
        };
        if let Some(why) = self.question_left_out(smaller) {
            return not_judged(why);
        }
        if let Some(why) = self.summary_left_out(out, smaller) {
            return not_judged(why);
        }
        if (0..out.h.len()).any(|k| out.h.view(k).is_unreadable()) {
            return not_judged("the output cannot be read");
        }
        // Classified only when needed: for the smaller answer's summary, or
        // when the index of the larger answer is consulted.
        let small_h = OnceCell::new();
        let small_history =
            || -> &History { small_h.get_or_init(|| read_history_lenient(self.req.format, small)) };
        // The smaller answer's summary: its first message that maps to no
        // input message.
        let Some(small_t) = self.answers.texts(SMALLER, self.canon) else {
            unreachable!("an answer of messages has texts")
        };
        let small_summary = self.req.summary.and_then(|_| {
            map_output(
                self.in_t,
                self.in_h,
                small_t,
                small_history(),
                Beside::default(),
            )
            .map
            .iter()
            .position(Option::is_none)
        });
        let this = match &self.req.budget.max_messages {
            Some(m) if self.req.budget.max_tokens.is_none() => m.to_string(),
            _ => self
                .budget
                .as_ref()
                .map_or_else(|_| "?".into(), |b| b.budget.limit().to_string()),
        };
        // Latest embedding of the smaller output into the larger one (the
        // larger one's summary left out).
        let mut index = EmbedIndex::new(out.t, out.h, out.summary, MONOTONE_NEAR);
        let mut bound = out.messages.len();
        let mut rest = small.len();
        if out.summary.is_none() && small_summary.is_none() {
            // The smaller answer's last messages equal to the larger one's
            // last ones, one for one (compared in the mapping's pass), are
            // what the search below finds first: each at the message just
            // below the bound.
            let run = out.mapping.compared.tail_run;
            bound -= run;
            rest -= run;
        }
        for (k, m) in small[..rest].iter().enumerate().rev() {
            if Some(k) == small_summary {
                continue;
            }
            match index.latest_before(&small_t, small_history, k, bound) {
                Some((j, _)) => bound = j,
                None => {
                    return fail(format!(
                        "message {k} of the output for budget {smaller} is not in the output for budget {this}: {}",
                        preview(m)
                    ))
                }
            }
        }
        Outcome::Pass
    }
}
