//! Safety-level clauses (spec §6.3), the same for every policy:
//! `budget`, `system-pinned`, `no-fabrication`, `no-orphan-result`,
//! `no-orphan-approval`, `calls-keep-results`, `valid-output` and
//! `rejects-bad-budget`, read with costs (spec §11.6), and in summaries
//! runs `summary-shape` and `summary-replaces-prefix` (spec §12.2,
//! §12.3). `deterministic` is judged with the other comparisons of
//! responses, in [`super::metamorphic`].

use super::mapping::{comes_from, embeds};
use super::{fail, not_judged, preview, Judge, Outcome, OutputState};
use crate::json::first_difference;
use crate::protocol::Response;
use crate::terms::{Budget, BudgetError, ItemKind, Role};
use crate::validate::{validate_history, Options};

/// When `out` is `input` with elements of its items array `key` taken out
/// (every other member equal, the kept elements equal and in order): the
/// positions of the elements taken out, at least one.
fn items_taken_out(
    input: &serde_json::Value,
    out: &serde_json::Value,
    key: &str,
) -> Option<Vec<usize>> {
    let (a, b) = (input.as_object()?, out.as_object()?);
    if a.len() != b.len()
        || a.iter()
            .any(|(k, v)| k != key && !b.get(k).is_some_and(|w| crate::json::json_eq(v, w)))
    {
        return None;
    }
    let (full, kept) = (a.get(key)?.as_array()?, b.get(key)?.as_array()?);
    if kept.len() >= full.len() {
        return None;
    }
    let mut gone = Vec::new();
    let mut next = kept.iter().peekable();
    for (e, item) in full.iter().enumerate() {
        match next.peek() {
            Some(k) if crate::json::json_eq(k, item) => {
                next.next();
            }
            _ => gone.push(e),
        }
    }
    next.peek().is_none().then_some(gone)
}

/// An item of `kind` in a few words: `a call`, `an approval response`.
pub(super) fn item_name(kind: ItemKind) -> &'static str {
    match kind {
        ItemKind::Call => "a call",
        ItemKind::Result => "a result",
        ItemKind::ApprovalRequest => "an approval request",
        ItemKind::ApprovalResponse => "an approval response",
        _ => "an item that is not text",
    }
}

impl Judge<'_> {
    /// `protocol-budget` (spec §6.2): a budget member written other than
    /// as an integer is read as the protocol reads it (spec §2). Not
    /// judged for a budget written as an integer, nor when the budget
    /// cannot be honoured for another reason than that member.
    pub(super) fn protocol_budget(&self) -> Outcome {
        let Some((name, value)) = self.req.budget.spelled() else {
            return not_judged(
                "the budget is written as an integer (rejects-bad-budget and valid-output judge the answer)",
            );
        };
        let is_budget = Budget::parse(value).is_ok();
        match (is_budget, &self.budget, self.response) {
            (true, Err(e), _) => not_judged(format!(
                "{name} {value} is a budget, but the request's cannot be honoured ({e}): rejects-bad-budget judges it"
            )),
            (true, Ok(_), Response::Error(e)) => fail(format!(
                "{name} {value} is a whole number of at least 1 written another way, a budget (spec §2), but was answered with an error: {e:?}"
            )),
            (true, Ok(_), _) | (false, _, Response::Error(_)) => Outcome::Pass,
            (false, _, Response::Messages(m)) => fail(format!(
                "{name} {value} is not a budget (spec §2) but was answered with {} messages instead of an error",
                m.len()
            )),
            (false, _, Response::Unsupported(u)) => fail(format!(
                "{name} {value} is not a budget (spec §2) but was answered unsupported ({u:?}) instead of an error"
            )),
        }
    }

    pub(super) fn rejects_bad_budget(&self) -> Outcome {
        if let Some((name, value)) = self.req.budget.spelled() {
            if Budget::parse(value).is_err() {
                return not_judged(format!(
                    "{name} {value} is written other than as an integer: protocol-budget judges the answer"
                ));
            }
        }
        match (&self.budget, self.response) {
            (Ok(_), _) => not_judged("the budget is valid"),
            (Err(_), Response::Error(_)) => Outcome::Pass,
            (Err(BudgetError::MaxMessages { got }), Response::Messages(m)) => fail(format!(
                "maxMessages {got} was answered with {} messages instead of an error",
                m.len()
            )),
            (Err(e), Response::Messages(m)) => fail(format!(
                "the budget cannot be honoured ({e}) but was answered with {} messages instead of an error",
                m.len()
            )),
            (Err(e), Response::Unsupported(u)) => fail(format!(
                "the budget cannot be honoured ({e}) but was answered unsupported ({u:?}) instead of an error"
            )),
        }
    }

    /// The output's messages that count against a message budget: all
    /// but the pinned one and the placeholder (spec §16.5).
    pub(super) fn kept_non_pinned(&self, out: &OutputState) -> usize {
        out.messages.len()
            - usize::from(out.mapping.pinned_kept().is_some())
            - usize::from(out.placeholder.is_some())
    }

    /// Message budgets (as in version 1): every output message but the
    /// pinned one counts 1. Token budgets: the counted cost (spec §11.6);
    /// budgets in items, and message budgets under `count-pinned`, are
    /// token budgets (spec §16.3, §16.9). Over the budget,
    /// `soft-budget` excuses what keeps a call group whole or one message
    /// (spec §16.1).
    pub(super) fn budget_clause(&self, out: &OutputState, b: &Budget, room: u64) -> Outcome {
        let over = self.over_budget(out, b);
        match over {
            None => Outcome::Pass,
            Some(over) if self.req.declared.soft_budget => self.soft_budget(out, b, room, over),
            // An excess that only keeps call groups whole is what
            // soft-budget declares (spec §16.1): the failure says so.
            Some(over) => match self.soft_budget(out, b, room, String::new()) {
                Outcome::Pass if self.kept_of_m(out).len() <= 1 => fail(format!(
                    "{over}; it is one message of M kept whole (--declare soft-budget, if the reducer documents that)"
                )),
                Outcome::Pass => fail(format!(
                    "{over}; every message over it keeps a call group whole (--declare soft-budget, if the reducer documents that)"
                )),
                _ => fail(over),
            },
        }
    }

    /// What is over the budget, when the output is.
    fn over_budget(&self, out: &OutputState, b: &Budget) -> Option<String> {
        if !b.is_tokens() {
            let n = self.kept_non_pinned(out) as u64;
            let budget = b.limit();
            return (n > budget).then(|| {
                format!("{n} messages besides the pinned system message, budget {budget}")
            });
        }
        let s = self.summary_cost();
        let counted = out.counted_cost(b, self.pinned, s);
        if counted <= b.limit() {
            return None;
        }
        let kept = out
            .mapping
            .map
            .iter()
            .flatten()
            .filter(|&&j| Some(j) != self.pinned);
        let declared = &self.req.declared;
        if declared.costs_per_message() {
            let pinned = if declared.count_pinned && out.mapping.pinned_kept().is_some() {
                " and the pinned system message"
            } else {
                ""
            };
            let mut names: Vec<String> = declared
                .unit
                .map(|u| format!("budget-unit={}", u.name()))
                .into_iter()
                .collect();
            if declared.count_pinned {
                names.push("count-pinned".into());
            }
            return Some(format!(
                "{} kept messages of M{pinned} count {counted} ({}), budget {}",
                kept.count(),
                names.join(", "),
                b.limit()
            ));
        }
        let pinned = match out.mapping.pinned_kept() {
            Some(_) if b.count_pinned() => {
                format!(", the pinned system message {}", b.pinned_cost(self.pinned))
            }
            Some(_) => ", the pinned system message not counted".into(),
            None => String::new(),
        };
        let summary = match out.summary {
            Some(k) => format!(", the summary (output message {k}) {s}"),
            None => String::new(),
        };
        let (n, cost) = kept.fold((0usize, 0u64), |(n, c), j| {
            (n + 1, c.saturating_add(b.cost(*j)))
        });
        Some(format!(
            "counted cost {counted}, maxTokens {}: {n} kept messages of M cost {cost}{pinned}{summary}",
            b.limit()
        ))
    }

    pub(super) fn system_pinned(&self, out: &OutputState) -> Outcome {
        let Some(p) = self.pinned else {
            return not_judged("the input has no system message");
        };
        if self.req.policy == crate::terms::Policy::Repair && self.repair_drops_pinned() {
            return not_judged(
                "the pinned system message holds only broken approval items, which a repair removes (spec §17.2)",
            );
        }
        if let Some(k) = out.mapping.out_pinned {
            return self.pinned_in_place(out, p, k);
        }
        // The pinned message changed in its place (found by its place,
        // [`Mapping::pinned_changed`]): what changed is no-fabrication's
        // failure (spec §6.3).
        if out.mapping.pinned_changed.is_some() {
            return Outcome::Pass;
        }
        match (0..out.h.len()).find(|&k| out.h.role(k) == Role::System) {
            None => fail(format!("the pinned system message (input message {p}) is missing")),
            Some(k) => fail(format!(
                "the output's first system message (output message {k}) is not the pinned one (input message {p}): differs at {}",
                first_difference(&self.req.messages[p], &out.messages[k]).unwrap_or_default()
            )),
        }
    }

    /// The pinned system message (input message `p`, output message `k`)
    /// in its original place (spec §3 step 5, §6.3 `system-pinned`): the
    /// kept messages of M that precede it in the input precede it in the
    /// output, and those that follow it follow it. Read through the
    /// mapping (spec §7); when the mapping puts a message on the wrong side
    /// but the output reads in place with other equal input messages
    /// ([`Judge::reads_in_place`]), it passes.
    fn pinned_in_place(&self, out: &OutputState, p: usize, k: usize) -> Outcome {
        let map = &out.mapping.map;
        let early = (0..k).find_map(|i| map[i].filter(|&j| j > p).map(|j| (i, j)));
        let late = (k + 1..map.len()).find_map(|i| map[i].filter(|&j| j < p).map(|j| (i, j)));
        if early.is_none() && late.is_none() || self.reads_in_place(out, p, k) {
            return Outcome::Pass;
        }
        let (side, (i, j), order) = match (early, late) {
            (Some(e), _) => ("after", e, "follows"),
            (None, Some(l)) => ("before", l, "precedes"),
            (None, None) => unreachable!("returned above"),
        };
        fail(format!(
            "the pinned system message (input message {p}) is output message {k}, {side} output message {i} (input message {j}), which {order} it in the input: the pinned message keeps its original place (spec §3 step 5)"
        ))
    }

    /// Whether the output's messages before output message `k` (the
    /// pinned one) come, in order, from input messages before `p`, and
    /// those after it from input messages after `p`: the output in place
    /// under some reading of equal messages. Greedy on each side (the
    /// earliest before, the latest after), so linear in the messages
    /// walked; messages that come from no input message (a summary, a
    /// placeholder, a fabrication) are passed over.
    fn reads_in_place(&self, out: &OutputState, p: usize, k: usize) -> bool {
        let map = &out.mapping.map;
        let repair = self.req.policy == crate::terms::Policy::Repair;
        let from = |i: usize, j: usize| {
            comes_from(self.req.format, repair, &out.t, i, &self.in_t, j, self.in_h)
        };
        let mut next = 0;
        for i in (0..k).filter(|&i| map[i].is_some()) {
            match (next..p).find(|&j| from(i, j)) {
                Some(j) => next = j + 1,
                None => return false,
            }
        }
        let mut bound = self.in_h.len();
        for i in (k + 1..map.len()).rev().filter(|&i| map[i].is_some()) {
            match (p + 1..bound).rev().find(|&j| from(i, j)) {
                Some(j) => bound = j,
                None => return false,
            }
        }
        true
    }

    /// Every output message maps to an input message, except the summary
    /// (spec §12.1) and the placeholder (spec §16.5). The failure says
    /// what the reducer did with the message ([`Judge::fabrication`]).
    pub(super) fn no_fabrication(&self, out: &OutputState, b: &Budget) -> Outcome {
        match out.fabricated() {
            None => Outcome::Pass,
            Some(k) => fail(format!(
                "{}{}",
                self.fabrication(out, k),
                match (out.summary, b.is_tokens()) {
                    (Some(s), _) =>
                        format!(" and not the summary (output message {s}; only one is allowed)"),
                    (None, true) => " (it has no known cost: budget counts it 0)".into(),
                    (None, false) => String::new(),
                },
            )),
        }
    }

    /// What output message `k`, which comes from no input message, is: an
    /// input message repeated or out of order; an input message changed
    /// (of the same role: one it equals but for one value if there is one,
    /// then one between the input messages its neighbours come from, then
    /// the deepest first difference, then the nearest to the next kept
    /// one), with
    /// the path and both values, and for a number rewritten as a double
    /// the hint of `--declare json-numbers` (spec §16.7); or, when no input
    /// message is near, the message itself.
    fn fabrication(&self, out: &OutputState, k: usize) -> String {
        let mine = &out.messages[k];
        let inputs = self.req.messages;
        if let Some(j) = inputs.iter().position(|m| crate::json::json_eq(m, mine)) {
            return format!(
                "output message {k} is input message {j} again or out of order (the output keeps input order, each message once)"
            );
        }
        let before = out.mapping.map[..k].iter().rev().flatten().next().copied();
        let after = out.mapping.map[k + 1..].iter().flatten().next().copied();
        let lo = before.map_or(0, |b| b + 1);
        let hi = after.unwrap_or(inputs.len()).max(lo);
        let role = out.h.role(k);
        let near: Vec<usize> = (lo..hi)
            .chain(0..inputs.len())
            .filter(|&j| self.in_h.role(j) == role)
            .take(64)
            .collect();
        // An input message of the window with items taken out that may not
        // be (a call, a request, or every item): say which.
        let key = self.req.format.items_key();
        for &j in near.iter().filter(|&&j| (lo..hi).contains(&j)) {
            if let Some(gone) = items_taken_out(&inputs[j], mine, key) {
                let items = self.in_h.items(j);
                let named: Vec<String> = gone
                    .iter()
                    .map(|&e| match items.iter().find(|it| it.elem() == Some(e)) {
                        Some(it) if !self.in_h.id(it.id).is_empty() => {
                            format!("{} {:?}", item_name(it.kind), self.in_h.id(it.id))
                        }
                        Some(it) => item_name(it.kind).to_string(),
                        None => format!("element {e}"),
                    })
                    .collect();
                let all = inputs[j]
                    .get(key)
                    .and_then(serde_json::Value::as_array)
                    .is_some_and(|a| a.len() == gone.len());
                return if all {
                    format!(
                        "output message {k} is no input message: it is input message {j} with every item taken out ({}): a message that loses every item is left out (spec section 7)",
                        named.join(", ")
                    )
                } else if self.req.policy == crate::terms::Policy::Repair {
                    format!(
                        "output message {k} is no input message: it is input message {j} with {} taken out: a repair takes out only calls, results and approval items",
                        named.join(", ")
                    )
                } else {
                    format!(
                        "output message {k} is no input message: it is input message {j} with {} taken out: only results and approval responses may be taken out",
                        named.join(", ")
                    )
                };
            }
        }
        let depth = |p: &str| p.matches(['.', '[']).count();
        // Whether `mine` is `inputs[j]` with the one difference `d`.
        let one_change = |j: usize, d: &crate::json::Difference| {
            let mut patched = inputs[j].clone();
            match (patched.pointer_mut(&d.pointer), d.is) {
                (Some(slot), Some(is)) => *slot = is.clone(),
                _ => return false,
            }
            crate::json::json_eq(&patched, mine)
        };
        let best = near
            .iter()
            .filter_map(|&j| crate::json::difference_values(&inputs[j], mine).map(|d| (j, d)))
            .max_by_key(|(j, d)| {
                let window = (lo..hi).contains(j);
                (
                    one_change(*j, d),
                    window,
                    depth(&d.path),
                    std::cmp::Reverse(j.abs_diff(hi)),
                )
            });
        let Some((j, d)) = best.filter(|(_, d)| depth(&d.path) > 0) else {
            return format!("output message {k} is no input message: {}", preview(mine));
        };
        let (path, was, is) = (d.path, d.was, d.is);
        let show = |v: &serde_json::Value| {
            let s = preview(v);
            if s.chars().count() > 60 {
                format!("{}…", s.chars().take(60).collect::<String>())
            } else {
                s
            }
        };
        let what = match (was, is) {
            (Some(w), Some(i)) => format!("changed at {path}: {} became {}", show(w), show(i)),
            (Some(w), None) => format!("without {path} (was {})", show(w)),
            (None, Some(i)) => format!("with {path} added ({})", show(i)),
            (None, None) => format!("changed at {path}"),
        };
        let as_double = match (was, is) {
            (Some(w @ serde_json::Value::Number(_)), Some(i)) => {
                let mut d = w.clone();
                crate::json::to_nearest_doubles(&mut d) && crate::json::json_eq(&d, i)
            }
            _ => false,
        };
        format!(
            "output message {k} is no input message: it is input message {j} {what}{}",
            if as_double {
                " (the number as the nearest double: what a JSON library that reads numbers as doubles writes; --declare json-numbers if that is the reducer's)"
            } else {
                ""
            }
        )
    }

    /// `summary-shape` (spec §12.2).
    pub(super) fn summary_shape(&self, out: &OutputState) -> Outcome {
        let Some(k) = out.summary else {
            return not_judged("the output has no summary");
        };
        if let Some(broken) = self.note_shape(out, k, "the summary") {
            return broken;
        }
        if let Some(j) =
            (0..self.in_t.len()).find(|&j| embeds(&out.t, k, &self.in_t, j, self.in_h).is_some())
        {
            return fail(format!(
                "the summary (output message {k}) is input message {j} (a copy, not a summary: the output holds it twice or out of order)"
            ));
        }
        match (0..k).find(|&j| Some(j) != out.mapping.pinned_kept()) {
            Some(j) => fail(format!(
                "output message {j} comes before the summary (output message {k}); only the pinned system message may"
            )),
            None => Outcome::Pass,
        }
    }

    /// The shape a message of the reducer's own must have, `what` at
    /// output message `k` (the summary, spec §12.2; the placeholder,
    /// spec §16.5): readable, text items only and at least one, not a
    /// tool message; the failure when it is not.
    pub(super) fn note_shape(&self, out: &OutputState, k: usize, what: &str) -> Option<Outcome> {
        if out.h.view(k).is_unreadable() {
            return Some(fail(format!(
                "{what} (output message {k}) cannot be read as a {} message",
                self.req.format
            )));
        }
        let items = out.h.items(k);
        if let Some(item) = items.iter().find(|i| i.kind != ItemKind::Text) {
            let id = out.h.id(item.id);
            return Some(fail(format!(
                "{what} (output message {k}) holds {}{}",
                item_name(item.kind),
                if id.is_empty() {
                    String::new()
                } else {
                    format!(" {id:?}")
                }
            )));
        }
        if items.is_empty() {
            return Some(fail(format!("{what} (output message {k}) holds no text")));
        }
        if out.h.role(k) == Role::Tool {
            return Some(fail(format!(
                "{what} (output message {k}) is a tool message (role {:?})",
                out.h.message_view(k).role_text
            )));
        }
        None
    }

    /// `summary-replaces-prefix` (spec §12.3): the kept messages of M
    /// follow every dropped one (drops that orphan removal explains are
    /// allowed gaps).
    pub(super) fn summary_replaces_prefix(&self, out: &OutputState) -> Outcome {
        let Some(k) = out.summary else {
            return not_judged("the output has no summary");
        };
        let rest = self.rest();
        let Some(s) = rest.iter().position(|&j| out.mapping.kept[j]) else {
            return Outcome::Pass;
        };
        match rest[s..]
            .iter()
            .copied()
            .find(|&j| !out.mapping.kept[j] && !self.explainable_drop(out, j))
        {
            None => Outcome::Pass,
            Some(j) => fail(format!(
                "input message {j} is dropped while the older input message {} is kept: the summary (output message {k}) does not stand for a prefix of the history",
                rest[s]
            )),
        }
    }

    pub(super) fn no_orphan(
        &self,
        out: &OutputState,
        kind: ItemKind,
        what: &str,
        partner: &str,
    ) -> Outcome {
        for k in 0..out.h.len() {
            for (t, item) in out.h.items(k).iter().enumerate() {
                if item.kind == kind && out.pairing.partner(out.h, k, t).is_none() {
                    return fail(format!(
                        "output message {k}: {what} {:?} has no {partner} earlier in the output",
                        out.h.id(item.id)
                    ));
                }
            }
        }
        Outcome::Pass
    }

    pub(super) fn calls_keep_results(&self, out: &OutputState) -> Outcome {
        for (k, m) in out.mapping.map.iter().enumerate() {
            let Some(j) = *m else { continue };
            for (t, item) in self.in_h.items(j).iter().enumerate() {
                if !matches!(item.kind, ItemKind::Call | ItemKind::ApprovalRequest) {
                    continue;
                }
                if let Some((pm, pt)) = self.partner().partner(self.in_h, j, t) {
                    if !out.mapping.kept[pm] || out.mapping.removed(pm).contains(&pt) {
                        let (what, answer) = if item.kind == ItemKind::Call {
                            ("call", "result")
                        } else {
                            ("approval request", "response")
                        };
                        return fail(format!(
                            "output message {k} keeps {what} {:?} but its {answer} (input message {pm}) was dropped",
                            self.in_h.id(item.id)
                        ));
                    }
                }
            }
        }
        Outcome::Pass
    }

    pub(super) fn valid_output(&self, out: &OutputState) -> Outcome {
        let allow_pending = if self.input_valid_strict() {
            false
        } else if self.input_valid_pending() {
            true
        } else {
            return not_judged(format!(
                "the input is not valid ({})",
                self.first_input_violation().unwrap_or("?")
            ));
        };
        if let Some(k) = (0..out.h.len()).find(|&k| out.h.view(k).is_unreadable()) {
            return fail(format!(
                "output message {k} cannot be read as a {} message",
                self.req.format
            ));
        }
        match validate_history(out.h, Options { allow_pending }).first() {
            None => Outcome::Pass,
            Some(v) => fail(format!("the output breaks {v}")),
        }
    }

    /// Input message `j` was legitimately dropped by orphan removal: it has
    /// items, all results / approval responses, none of whose partners is
    /// kept in the output.
    pub(super) fn explainable_drop(&self, out: &OutputState, j: usize) -> bool {
        // An attached reasoning item goes with its item (spec §14.6).
        if crate::terms::links::attached_reasoning(self.in_h, j) && !out.mapping.kept[j + 1] {
            return true;
        }
        let items = self.in_h.items(j);
        !items.is_empty()
            && items.iter().enumerate().all(|(t, item)| {
                item.kind.is_removable()
                    && self
                        .partner()
                        .partner_message(self.in_h, j, t)
                        .is_none_or(|pm| !out.mapping.kept[pm])
            })
    }
}
