//! The output as the judge reads it ([`OutputState`]): the response's
//! messages, their pairing, and their mapping onto the input (spec §7),
//! with the summary, the placeholder and the completions it leaves.

use super::mapping::{self, map_output, Beside, Mapping, Texts};
use super::{in_declared_unit, Request};
use crate::terms::{Budget, History, ItemKind, Pairing, Policy};
use serde_json::Value;

/// The response's messages as judged: read, paired and mapped onto the
/// input (spec §7).
pub(super) struct OutputState<'a> {
    pub(super) messages: &'a [Value],
    /// The output's messages as compared.
    pub(super) t: Texts<'a>,
    /// The output, classified leniently (unreadable messages flagged).
    pub(super) h: &'a History,
    /// Pairing over the whole output.
    pub(super) pairing: Pairing,
    pub(super) mapping: Mapping,
    /// The summary (spec §12.1): with summaries allowed, the first output
    /// message that maps to no input message.
    pub(super) summary: Option<usize>,
    /// The placeholder (spec §16.5): with `placeholder` declared (and no
    /// summary allowed), the first output message that maps to no input
    /// message.
    pub(super) placeholder: Option<usize>,
    /// Under `repair` with `complete-calls` declared (spec §17.4): an
    /// output message that maps to no input message and is a tool message
    /// of results only is a completion, judged by `completes-calls`, not
    /// `no-fabrication`.
    pub(super) completions: bool,
    /// The mapping under the other reading of an output message that is
    /// both a stripped message and an earlier question (spec §7), when it
    /// has one.
    pub(super) other: Option<Mapping>,
}

impl<'a> OutputState<'a> {
    pub(super) fn new(
        req: &Request,
        in_h: &History,
        in_t: Texts<'_>,
        t: Texts<'a>,
        h: &'a History,
        beside: Beside<'_>,
    ) -> OutputState<'a> {
        let repair = req.policy == Policy::Repair;
        let mut other = None;
        let mapping = if repair {
            let plan = crate::terms::repair::repair(in_h);
            let prefer: Vec<bool> = (0..in_h.len()).map(|j| plan.keeps_message(j)).collect();
            mapping::map_output_repair(req.format, in_t, in_h, t, h, &prefer)
        } else {
            let mut m = map_output(in_t, in_h, t, h, beside);
            let budget = Budget::read(req.budget, req.messages.len())
                .map(|b| in_declared_unit(b, &req.declared, in_h));
            if req.policy.has_budget() {
                let turns = req.policy == Policy::Turns;
                let fits = |ix: &[usize]| match &budget {
                    Ok(b) if turns && b.is_tokens() => {
                        b.cost_of(ix.iter().copied()) <= b.available(in_h.pinned()).unwrap_or(0)
                    }
                    _ => true,
                };
                // The question a lone message may be: under a profile its
                // fallback, the newest turn start that fits alone; without
                // one the newest turn start (spec §7).
                let alone = |i: usize| match &budget {
                    Ok(b) if b.is_tokens() && req.provider.is_some() => {
                        b.cost(i) <= b.available(in_h.pinned()).unwrap_or(0)
                    }
                    _ => true,
                };
                other = m.turn_start_over_stripped(in_h, in_h.pinned(), &t, &in_t, fits, alone);
            }
            // With summaries allowed, only when the output has none (every
            // message matched): a lone output message that matches nothing
            // is the summary, read against the budget left beside it.
            let no_summary = req.summary.is_none() || m.map.iter().all(Option::is_some);
            if let (Ok(b), true) = (budget, no_summary) {
                let room = b.available(in_h.pinned()).unwrap_or(0);
                m.fit_single(&b, room, in_h.pinned(), &in_t);
                if let Some(o) = &mut other {
                    o.fit_single(&b, room, in_h.pinned(), &in_t);
                }
            }
            m
        };
        let first_unmapped = mapping.map.iter().position(Option::is_none);
        let summary = req.summary.and(first_unmapped);
        let placeholder = first_unmapped.filter(|_| req.declared.placeholder && summary.is_none());
        OutputState {
            messages: t.values,
            t,
            pairing: h.pairing(),
            h,
            mapping,
            summary,
            placeholder,
            completions: repair && req.declared.complete_calls,
            other,
        }
    }

    /// Whether output message `k` has the shape of a completion (spec
    /// §17.4): completions are allowed, and it is a tool message holding
    /// only results, at least one.
    pub(super) fn is_completion(&self, k: usize) -> bool {
        self.completions
            && self.h.role(k) == crate::terms::Role::Tool
            && !self.h.items(k).is_empty()
            && self.h.items(k).iter().all(|i| i.kind == ItemKind::Result)
    }

    /// The first output message that comes from no input message and is
    /// neither the summary, the placeholder nor a completion: a
    /// fabrication.
    pub(super) fn fabricated(&self) -> Option<usize> {
        self.mapping.map.iter().enumerate().position(|(k, m)| {
            m.is_none()
                && Some(k) != self.summary
                && Some(k) != self.placeholder
                && !self.is_completion(k)
        })
    }

    /// The output's counted cost (spec §11.6, `budget`): each output
    /// message mapped to a message of M at its input's cost, the pinned
    /// message at its counted cost, the summary at `s`; a message mapped to
    /// nothing counts 0 (under a message budget every message but the
    /// pinned one counts 1: see `budget_clause`).
    pub(super) fn counted_cost(&self, budget: &Budget, pinned: Option<usize>, s: u64) -> u64 {
        let mut total = 0u64;
        for (k, mapped) in self.mapping.map.iter().enumerate() {
            let c = match mapped {
                Some(j) if Some(*j) == pinned => budget.pinned_cost(pinned),
                Some(j) => budget.cost(*j),
                None if Some(k) == self.mapping.pinned_changed => budget.pinned_cost(pinned),
                None if Some(k) == self.summary => s,
                None => 0,
            };
            total = total.saturating_add(c);
        }
        total
    }
}
