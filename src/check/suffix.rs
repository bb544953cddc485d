//! Policy-level clauses of policy `suffix` (spec §6.5, with costs spec
//! §11.6):
//! `contiguous-suffix` and `maximal-suffix`.

use super::{fail, Judge, Outcome, OutputState};
use crate::terms::links::{continues_call_group, linked_to_previous};
use crate::terms::{Budget, Role};

impl Judge<'_> {
    pub(super) fn contiguous_suffix(&self, out: &OutputState) -> Outcome {
        if self.is_profile_fallback(out) {
            return super::not_judged(
                "the output is the provider profile's fallback, the newest user message alone (spec §15.4)",
            );
        }
        let Some(s) = self.rest().iter().position(|&j| out.mapping.kept[j]) else {
            return Outcome::Pass;
        };
        // The run begins on an illegal start (section 4): a message kept
        // in part, without a result or approval response that answers a
        // message cut away (a split group or a tool message with other
        // content); a message that continues a call group (spec §14.5); a
        // tool or approval-only message holding no such item. When such an
        // item is left in it, it is an orphan, and no-orphan-result or
        // no-orphan-approval names the defect; a start right after an
        // attached reasoning item left out is reasoning-attached's (§14.6).
        // A run from M's first message begins where M does: when M fits,
        // identity-when-fits asks for all of it, whatever that message is.
        let first = self.rest()[s];
        let illegal = match s {
            0 => None,
            _ => self.illegal_first(first, out.mapping.removed(first)),
        };
        if let Some(why) = illegal {
            return fail(format!(
                "the run starts at input message {first}, {why}: not a legal start"
            ));
        }
        match self.rest()[s..]
            .iter()
            .copied()
            .find(|&j| !out.mapping.kept[j] && !self.explainable_drop(out, j))
        {
            None => Outcome::Pass,
            Some(j) => fail(format!(
                "input message {j} is missing inside the kept run that starts at input message {}",
                self.rest()[s]
            )),
        }
    }

    /// Why input message `first`, the first kept message of M with its
    /// items `removed` taken out, is an illegal start that no other clause
    /// names (see [`Judge::contiguous_suffix`]); `None` when it is a legal
    /// start, or when what makes it illegal is an orphan it still holds.
    fn illegal_first(&self, first: usize, removed: &[usize]) -> Option<String> {
        if self
            .earlier_partner(first, |t| !removed.contains(&t))
            .is_some()
        {
            return None;
        }
        if let Some(pm) = self.earlier_partner(first, |t| removed.contains(&t)) {
            return Some(format!(
                "kept without what answers input message {pm} (a result or approval response beside other content)"
            ));
        }
        let v = self.in_h.view(first);
        if continues_call_group(self.in_h, first) {
            Some(format!(
                "a call item right after the call item at input message {}: it continues a call group (spec §14.5)",
                first - 1
            ))
        } else if v.role == Role::Tool {
            Some("a tool message".into())
        } else if v.is_approval_only() {
            Some("an approval-only message".into())
        } else {
            None
        }
    }

    /// A legal suffix start (spec §4): not a tool message, not
    /// approval-only, carrying no result / approval response whose partner
    /// lies before it, not continuing a call group, not right after an
    /// attached reasoning item (spec §14.5–§14.6).
    pub(super) fn legal_start(&self, j: usize) -> bool {
        let v = self.in_h.view(j);
        v.role != Role::Tool
            && !v.is_approval_only()
            && !linked_to_previous(self.in_h, j)
            && self.earlier_partner(j, |_| true).is_none()
    }

    /// The message of the first result or approval response of input
    /// message `j`, among the items `t` that `among(t)` takes, whose
    /// partner (over the whole input) lies before `j`.
    fn earlier_partner(&self, j: usize, among: impl Fn(usize) -> bool) -> Option<usize> {
        self.in_h
            .items(j)
            .iter()
            .enumerate()
            .filter(|&(t, item)| item.kind.is_removable() && among(t))
            .find_map(|(t, _)| {
                self.partner()
                    .partner_message(self.in_h, j, t)
                    .filter(|&pm| pm < j)
            })
    }

    /// No position from s0, the smallest whose run costs at most B (spec
    /// §11.5), up to the actual start is a legal start.
    pub(super) fn maximal_suffix(&self, out: &OutputState, b: &Budget, room: u64) -> Outcome {
        let rest = self.rest();
        let n = rest.len();
        let start = rest.iter().position(|&j| out.mapping.kept[j]).unwrap_or(n);
        let s0 = if b.is_tokens() {
            b.fitting_start(rest, room)
        } else {
            n.saturating_sub(usize::try_from(room).unwrap_or(usize::MAX))
        };
        for pos in s0..start {
            if self.legal_start(rest[pos]) && self.profile_accepts_cut(&rest[pos..]) {
                let how = if b.is_tokens() {
                    format!(
                        "{} messages costing {}, B = {room}",
                        n - pos,
                        b.cost_of(rest[pos..].iter().copied())
                    )
                } else {
                    format!("{} messages, budget {room}", n - pos)
                };
                return fail(format!(
                    "the run could start at input message {} ({how}) but starts at {}",
                    rest[pos],
                    rest.get(start)
                        .map_or("the end".to_string(), |j| format!("input message {j}"))
                ));
            }
        }
        Outcome::Pass
    }
}
