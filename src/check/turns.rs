//! Policy-level clauses of policy `turns` (spec §6.4, with costs spec
//! §11.6): `whole-turns`, `newest-first`, `maximal` and
//! `overflow-question`, judged on the turns of the input
//! ([`crate::terms::History::turn_spans`]), each in one pass. `room` is B,
//! what M may cost (less the summary's cost when the output has one); with
//! unit costs every cost is a count, as in version 1.

use super::{fail, not_judged, Judge, Outcome, OutputState};
use crate::terms::links::linked_to_previous;
use crate::terms::{Budget, TurnSpan};

impl Judge<'_> {
    /// The messages of M in a turn, in order (the pinned one skipped).
    fn members(&self, t: &TurnSpan) -> impl Iterator<Item = usize> + '_ {
        let pinned = self.pinned;
        (t.start..t.end).filter(move |&j| Some(j) != pinned)
    }

    fn size(&self, t: &TurnSpan) -> usize {
        self.in_h.count_in(t.start, t.end)
    }

    /// What the messages of M in a turn cost together.
    fn cost(&self, t: &TurnSpan, b: &Budget) -> u64 {
        if b.is_tokens() {
            b.cost_of(self.members(t))
        } else {
            self.size(t) as u64
        }
    }

    /// What M costs.
    pub(super) fn cost_of_m(&self, b: &Budget) -> u64 {
        if b.is_tokens() {
            b.cost_of(self.rest().iter().copied())
        } else {
            self.rest().len() as u64
        }
    }

    /// The newest turn, in the overflow case: cost(M) > B and cost(newest
    /// turn) > B.
    pub(super) fn overflow(&self, b: &Budget, room: u64) -> Option<TurnSpan> {
        let newest = *self.turns().last()?;
        (self.cost_of_m(b) > room && self.cost(&newest, b) > room).then_some(newest)
    }

    pub(super) fn whole_turns(&self, out: &OutputState, b: &Budget, room: u64) -> Outcome {
        if self.overflow(b, room).is_some() {
            return not_judged(
                "the newest turn alone is over the budget (overflow-question applies)",
            );
        }
        if self.is_profile_fallback(out) {
            return not_judged(
                "the output is the provider profile's fallback, the newest user message alone (spec §15.4)",
            );
        }
        for turn in self.turns() {
            let kept = self.members(turn).filter(|&j| out.mapping.kept[j]).count();
            if kept == 0 {
                continue;
            }
            if let Some(j) = self
                .members(turn)
                .find(|&j| !out.mapping.kept[j] && !self.explainable_drop(out, j))
            {
                return fail(format!(
                    "the turn starting at input message {} is kept in part ({kept} of {} messages; input message {j} dropped)",
                    turn.start,
                    self.size(turn)
                ));
            }
        }
        Outcome::Pass
    }

    pub(super) fn newest_first(&self, out: &OutputState) -> Outcome {
        if self.is_profile_fallback(out) {
            return not_judged(
                "the output is the provider profile's fallback, the newest user message that fits alone (spec §15.4)",
            );
        }
        let all = self.turns();
        let touched: Vec<bool> = all
            .iter()
            .map(|t| self.members(t).any(|j| out.mapping.kept[j]))
            .collect();
        if let Some(old) = touched.iter().position(|&t| t) {
            if let Some(newer) = (old + 1..all.len()).find(|&t| !touched[t]) {
                return fail(format!(
                    "the turn starting at input message {} is kept while the newer turn starting at input message {} is dropped",
                    all[old].start, all[newer].start
                ));
            }
        }
        Outcome::Pass
    }

    pub(super) fn maximal(&self, out: &OutputState, b: &Budget, room: u64) -> Outcome {
        if self.overflow(b, room).is_some() {
            return not_judged(
                "the newest turn alone is over the budget (overflow-question applies)",
            );
        }
        let all = self.turns();
        let oldest = all
            .iter()
            .position(|t| self.members(t).any(|j| out.mapping.kept[j]))
            .unwrap_or(all.len());
        if oldest == 0 {
            return Outcome::Pass;
        }
        let used = all[oldest..]
            .iter()
            .fold(0u64, |u, t| u.saturating_add(self.cost(t, b)));
        let next = &all[oldest - 1];
        let next_size = self.size(next);
        let with_next: Vec<usize> = (next.start..self.in_h.len())
            .filter(|&j| Some(j) != self.pinned)
            .collect();
        let next_cost = self.cost(next, b);
        if used.saturating_add(next_cost) > room || !self.profile_accepts_cut(&with_next) {
            Outcome::Pass
        } else if b.is_tokens() {
            fail(format!(
                "the turn starting at input message {} ({next_size} messages costing {next_cost}) would have fit: {used} used of B = {room}",
                next.start,
            ))
        } else {
            fail(format!(
                "the turn starting at input message {} ({next_size} messages) would have fit: {used} used of budget {room}",
                next.start,
            ))
        }
    }

    pub(super) fn overflow_question(&self, out: &OutputState, b: &Budget, room: u64) -> Outcome {
        let Some(newest) = self.overflow(b, room) else {
            return not_judged("the newest turn fits the budget");
        };
        // The expected messages (spec §11.4): the question when the turn
        // has one and it fits, and the longest run of the turn's newest
        // messages that fits beside it, which begins at `tail_start`.
        let question_cost = b.cost(newest.start);
        let keeps_question = newest.has_question && question_cost <= room;
        let question = keeps_question.then_some(newest.start);
        let (lo, mut left) = if keeps_question {
            (newest.start + 1, room - question_cost)
        } else {
            (newest.start, room)
        };
        // Walk back from the newest message, stopping at the first that
        // does not fit.
        let mut tail_start = newest.end;
        let mut tail = 0usize;
        for j in (lo..newest.end).rev() {
            if Some(j) == self.pinned {
                continue;
            }
            let c = b.cost(j);
            if c > left {
                break;
            }
            left -= c;
            tail_start = j;
            tail += 1;
        }
        // The tail never begins inside a call group or right after an
        // attached reasoning item (spec §14.5–§14.6).
        while tail_start < newest.end
            && (Some(tail_start) == self.pinned || linked_to_previous(self.in_h, tail_start))
        {
            tail_start += 1;
            tail = tail.saturating_sub(1);
        }
        let cut_from = |k: usize| -> Vec<usize> {
            self.rest()
                .iter()
                .copied()
                .filter(|&j| Some(j) == question || j >= k)
                .collect()
        };
        let mut shortened = false;
        if self.provider.is_some() && !self.profile_accepts_cut(&cut_from(tail_start)) {
            // Spec §15.4 step 2: the tail is shortened, never to begin
            // inside a call group or right after an attached reasoning
            // item, down to the question alone; the first cut the profile
            // accepts is the one expected. Without the question (it does
            // not fit) there is no shorter cut of this kind, and no older
            // turn to drop: step 3, the newest turn start that fits alone.
            let shorter = question.and_then(|_| {
                (tail_start + 1..=newest.end)
                    .filter(|&k| {
                        k == newest.end
                            || (Some(k) != self.pinned && !linked_to_previous(self.in_h, k))
                    })
                    .find(|&k| self.profile_accepts_cut(&cut_from(k)))
            });
            let Some(k) = shorter else {
                if question.is_none() {
                    return self.newest_turn_start_alone(out);
                }
                return not_judged(
                    "the provider profile rejects the overflow cut (provider-accepts judges the output)",
                );
            };
            tail_start = k;
            tail = self.members(&newest).filter(|&j| j >= k).count();
            shortened = true;
        }
        let expected = |j: usize| Some(j) == question || j >= tail_start;
        let profile = if shortened {
            " (the provider profile rejects every longer tail beside the question)"
        } else {
            ""
        };
        if let Some(j) = self
            .rest()
            .iter()
            .copied()
            .find(|&j| out.mapping.kept[j] && !expected(j))
        {
            return fail(if newest.has_question && !keeps_question {
                format!(
                    "input message {j} is kept, but only the newest turn's last {tail} messages may be (its question alone does not fit)"
                )
            } else {
                format!(
                    "input message {j} is kept, but only the newest turn's question and its last {tail} messages may be{profile}"
                )
            });
        }
        let mut expected_messages = question
            .into_iter()
            .chain(self.members(&newest).filter(|&j| j >= tail_start));
        if let Some(j) =
            expected_messages.find(|&j| !out.mapping.kept[j] && !self.explainable_drop(out, j))
        {
            return fail(format!("input message {j} (the newest turn's question or one of its most recent messages) is dropped{profile}"));
        }
        Outcome::Pass
    }

    /// Spec §15.4 step 3 in the overflow case without the question: the
    /// profile rejected the tail, so only M's newest turn start that fits
    /// the budget alone may be kept (not judged when none fits: the
    /// reference answers an error, which `valid-output` judges).
    fn newest_turn_start_alone(&self, out: &OutputState) -> Outcome {
        let Some(u) = self.newest_fitting_turn_start() else {
            return not_judged(
                "the provider profile rejects the overflow cut and no user message that starts a turn fits the budget alone",
            );
        };
        // An output message equal to u may be matched to a later input
        // message equal to it (spec §7 matches the latest): the same
        // answer.
        let like_u = |j: usize| j == u || self.in_t.same(j, &self.in_t, u);
        let kept = self.kept_of_m(out);
        match kept.iter().copied().find(|&j| !like_u(j)) {
            None if kept.len() == 1 => Outcome::Pass,
            None => fail(format!(
                "input message {u}, the newest user message that fits the budget alone, is dropped (the provider profile rejects the newest turn's tail, and its question does not fit)"
            )),
            Some(j) => fail(format!(
                "input message {j} is kept, but only input message {u}, the newest user message that fits the budget alone, may be (the provider profile rejects the newest turn's tail, and its question does not fit)"
            )),
        }
    }
}
