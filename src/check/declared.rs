//! The clauses as a declared contract reads them (spec §16): `budget`
//! read softly (§16.1) or in turns (§16.2), `maximal` and
//! `identity-when-fits` in turns, and `placeholder-shape` (§16.5). Budgets
//! in items (§16.3) are token budgets with item costs
//! ([`crate::terms::declare::item_costs`]) and need nothing here.

use super::{fail, not_judged, Judge, Outcome, OutputState};
use crate::terms::Budget;

impl Judge<'_> {
    /// The kept messages of M (input indices, in input order).
    pub(super) fn kept_of_m(&self, out: &OutputState) -> Vec<usize> {
        self.rest()
            .iter()
            .copied()
            .filter(|&j| out.mapping.kept[j])
            .collect()
    }

    /// What the kept messages `kept` of M cost: a count under a message
    /// budget, their costs under a token budget.
    fn cost_of_kept(&self, kept: &[usize], b: &Budget) -> u64 {
        if b.is_tokens() {
            b.cost_of(kept.iter().copied())
        } else {
            kept.len() as u64
        }
    }

    /// `budget` under `soft-budget` (spec §16.1), when the output is over
    /// `room`: it passes when it keeps exactly one message of M, or when
    /// every kept message of M outside the newest run that fits (the
    /// core) is in a call group with a message of the core.
    pub(super) fn soft_budget(
        &self,
        out: &OutputState,
        b: &Budget,
        room: u64,
        over: String,
    ) -> Outcome {
        let kept = self.kept_of_m(out);
        if kept.len() <= 1 {
            return Outcome::Pass;
        }
        // The core: the newest kept messages whose cost fits B.
        let mut used = 0u64;
        let mut core_from = kept.len();
        while core_from > 0 {
            let c = self.cost_of_kept(&kept[core_from - 1..core_from], b);
            if used.saturating_add(c) > room {
                break;
            }
            used += c;
            core_from -= 1;
        }
        // Nothing fits: the newest kept message is the core (a reducer
        // that keeps one message over the budget keeps its group too).
        if core_from == kept.len() {
            core_from -= 1;
        }
        let groups = self.call_groups();
        let in_core: std::collections::HashSet<usize> =
            kept[core_from..].iter().map(|&j| groups[j]).collect();
        let outside = kept[..core_from]
            .iter()
            .rev()
            .find(|&&j| !in_core.contains(&groups[j]));
        let Some(&j) = outside else {
            return Outcome::Pass;
        };
        if self.req.declared.tool_run {
            // soft-budget=tool-run (spec §16.8): the excess may be the run
            // of adjacent messages holding calls or results that ends at
            // the core's oldest message.
            let start = self.tool_run_before(kept[core_from]);
            match kept[..core_from].iter().find(|&&i| i < start) {
                None => return Outcome::Pass,
                Some(&i) => {
                    return fail(format!(
                        "{over}; under soft-budget=tool-run the excess must be the run of adjacent messages holding calls or results at the cut, but input message {i} is outside it ({})",
                        match start {
                            s if s == kept[core_from] => format!(
                                "input message {s}, the oldest of the newest run that fits, holds no call or result"
                            ),
                            s => format!("the run is input messages {s}-{}", kept[core_from]),
                        }
                    ))
                }
            }
        }
        fail(format!(
            "{over}; under soft-budget the excess must keep a call group whole, but input message {j} is in no call group with a message of the newest run that fits (input messages {})",
            span(&kept[core_from..])
        ))
    }

    /// The first input message of the run of adjacent messages, each
    /// holding a call or a result, that ends at input message `c` (spec
    /// §16.8); `c` itself when it holds neither.
    fn tool_run_before(&self, c: usize) -> usize {
        let tool = |j: usize| {
            self.in_h.items(j).iter().any(|it| {
                matches!(
                    it.kind,
                    crate::terms::ItemKind::Call | crate::terms::ItemKind::Result
                )
            })
        };
        if !tool(c) {
            return c;
        }
        let mut r = c;
        while r > 0 && Some(r - 1) != self.pinned && tool(r - 1) {
            r -= 1;
        }
        r
    }

    /// Each input message's call group (spec §16.1): the smallest index of
    /// the messages linked to it by pairing over the whole input (a call
    /// and its results, an approval request and its response) or by the
    /// links of spec §14.5–§14.6.
    fn call_groups(&self) -> Vec<usize> {
        let n = self.in_h.len();
        let mut parent: Vec<usize> = (0..n).collect();
        fn root(parent: &mut [usize], mut i: usize) -> usize {
            while parent[i] != i {
                parent[i] = parent[parent[i]];
                i = parent[i];
            }
            i
        }
        let join = |parent: &mut Vec<usize>, a: usize, b: usize| {
            let (ra, rb) = (root(parent, a), root(parent, b));
            let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
            parent[hi] = lo;
        };
        for j in 0..n {
            for t in 0..self.in_h.items(j).len() {
                if let Some(pm) = self.partner().partner_message(self.in_h, j, t) {
                    join(&mut parent, j, pm);
                }
            }
            if j > 0 && crate::terms::links::linked_to_previous(self.in_h, j) {
                join(&mut parent, j, j - 1);
            }
        }
        (0..n).map(|j| root(&mut parent, j)).collect()
    }

    /// The spans of the input a budget in turns or invocations counts
    /// (spec §16.2): the turns; or the invocations, a run of turns that
    /// are their question alone joining the turn after it, and the leading
    /// segment in none.
    fn budget_spans(&self) -> Vec<(usize, usize)> {
        let turns = self
            .turns()
            .iter()
            .map(|t| (t.start, t.end, t.has_question));
        if self.req.declared.unit != Some(crate::terms::BudgetUnit::Invocations) {
            return turns.map(|(s, e, _)| (s, e)).collect();
        }
        let only_questions = |s: usize, e: usize| {
            (s..e)
                .filter(|&j| Some(j) != self.pinned)
                .all(|j| self.in_h.view(j).is_turn_start())
        };
        let mut out: Vec<(usize, usize)> = Vec::new();
        for (s, e, question) in turns {
            if !question {
                continue;
            }
            match out.last_mut() {
                Some(last) if last.1 == s && only_questions(last.0, last.1) => last.1 = e,
                _ => out.push((s, e)),
            }
        }
        out
    }

    /// Whether span `(s, e)` holds a kept message of M.
    fn touched(&self, out: &OutputState, (s, e): (usize, usize)) -> bool {
        (s..e).any(|j| Some(j) != self.pinned && out.mapping.kept[j])
    }

    /// The unit's name, for failure details.
    fn unit_name(&self) -> &'static str {
        self.req
            .declared
            .unit
            .map_or("turns", crate::terms::BudgetUnit::name)
    }

    /// `budget` under `budget-unit=turns` or `=invocations` (spec
    /// §16.2): the kept messages of M touch at most N of them.
    pub(super) fn budget_in_turns(&self, out: &OutputState, b: &Budget) -> Outcome {
        let touched = self
            .budget_spans()
            .into_iter()
            .filter(|&span| self.touched(out, span))
            .count() as u64;
        if touched <= b.limit() {
            Outcome::Pass
        } else {
            let unit = self.unit_name();
            fail(format!(
                "the kept messages touch {touched} {unit}, budget {} {unit} (budget-unit={unit})",
                b.limit()
            ))
        }
    }

    /// `maximal` under `budget-unit=turns` or `=invocations` (spec
    /// §16.2): when the output keeps fewer than N, no older one was left
    /// out.
    pub(super) fn maximal_in_turns(&self, out: &OutputState, b: &Budget) -> Outcome {
        let all = self.budget_spans();
        let unit = self.unit_name();
        let Some(oldest) = all.iter().position(|&span| self.touched(out, span)) else {
            return match all.first() {
                Some(&(s, _)) => fail(format!(
                    "nothing is kept, budget {} {unit}: the one starting at input message {s} would fit",
                    b.limit()
                )),
                None => Outcome::Pass,
            };
        };
        let touched = all.iter().filter(|&&span| self.touched(out, span)).count() as u64;
        if oldest > 0 && touched < b.limit() {
            return fail(format!(
                "{touched} {unit} kept, budget {}: the older one starting at input message {} would fit",
                b.limit(),
                all[oldest - 1].0
            ));
        }
        Outcome::Pass
    }

    /// Whether M fits a budget of N turns or invocations.
    pub(super) fn fits_in_turns(&self, b: &Budget) -> bool {
        let spans = self
            .budget_spans()
            .into_iter()
            .filter(|&(s, e)| (s..e).any(|j| Some(j) != self.pinned))
            .count() as u64;
        spans <= b.limit()
    }

    /// `placeholder-shape` (spec §16.5): the placeholder holds only text
    /// items, at least one, is not a tool message, and stands where
    /// messages of M were dropped.
    pub(super) fn placeholder_shape(&self, out: &OutputState) -> Outcome {
        let Some(k) = out.placeholder else {
            return not_judged("the output has no placeholder");
        };
        if let Some(broken) = self.note_shape(out, k, "the placeholder") {
            return broken;
        }
        // The input messages of M it stands between.
        let before = out.mapping.map[..k]
            .iter()
            .rev()
            .flatten()
            .copied()
            .find(|&j| Some(j) != self.pinned);
        let after = out.mapping.map[k + 1..].iter().flatten().copied().next();
        let between = self
            .rest()
            .iter()
            .copied()
            .filter(|&j| before.is_none_or(|b| j > b) && after.is_none_or(|a| j < a));
        if between.clone().any(|j| !out.mapping.kept[j]) {
            return Outcome::Pass;
        }
        fail(format!(
            "the placeholder (output message {k}) stands where nothing was dropped ({})",
            match (before, after) {
                (Some(b), Some(a)) => format!("between input messages {b} and {a}"),
                (None, Some(a)) => format!("before input message {a}, the first of M"),
                (Some(b), None) => format!("after input message {b}, the last of M"),
                (None, None) => "in an output that keeps no message of M".into(),
            }
        ))
    }
}

/// `3-7`, `3` or `none` for a run of input indices.
fn span(kept: &[usize]) -> String {
    match (kept.first(), kept.last()) {
        (Some(a), Some(b)) if a == b => a.to_string(),
        (Some(a), Some(b)) => format!("{a}-{b}"),
        _ => "none".into(),
    }
}
