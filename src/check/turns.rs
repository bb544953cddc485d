//! Policy-level clauses of policy `turns` (semantics §6.4):
//! `whole-turns`, `newest-first`, `maximal` and `overflow-question`, judged
//! on the turns of the input ([`crate::terms::turns`]).

use super::{fail, not_judged, Judge, Outcome, OutputState};
use crate::terms::{turns, Turn};

impl Judge<'_> {
    pub(super) fn overflow(&self, budget: usize) -> Option<Turn> {
        let all = turns(self.in_views);
        let newest = all.last()?;
        (self.rest.len() > budget && newest.messages.len() > budget).then(|| newest.clone())
    }

    pub(super) fn whole_turns(&self, out: &OutputState, budget: usize) -> Outcome {
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

    pub(super) fn newest_first(&self, out: &OutputState) -> Outcome {
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

    pub(super) fn maximal(&self, out: &OutputState, budget: usize) -> Outcome {
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

    pub(super) fn overflow_question(&self, out: &OutputState, budget: usize) -> Outcome {
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
}
