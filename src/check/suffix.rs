//! Policy-level clauses of policy `suffix` (semantics §6.5):
//! `contiguous-suffix` and `maximal-suffix`.

use super::{fail, Judge, Outcome, OutputState};
use crate::terms::Role;

impl Judge<'_> {
    pub(super) fn contiguous_suffix(&self, out: &OutputState) -> Outcome {
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
    pub(super) fn legal_start(&self, j: usize) -> bool {
        let v = &self.in_views[j];
        v.role != Role::Tool
            && !v.is_approval_only()
            && !v.items.iter().enumerate().any(|(t, item)| {
                item.kind.is_removable() && self.partner[j][t].is_some_and(|(pm, _)| pm < j)
            })
    }

    pub(super) fn maximal_suffix(&self, out: &OutputState, budget: usize) -> Outcome {
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
}
