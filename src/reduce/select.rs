//! The selections of the policies: which messages `turns` (spec §3) and
//! `suffix` (spec §4) keep for a budget, and the orphans removed from a
//! selection (spec §3 step 6).

use crate::terms::history::Pairing;
use crate::terms::links::{attached_reasoning, linked_to_previous};
use crate::terms::{Budget, History, Policy, Role};

use super::*;

/// The selection of spec §3 steps 2–5 / §4 (spec §11.4, §11.5 with
/// costs) on a classified history, before orphan removal: ascending message
/// indices, the pinned system message included. B is
/// [`Budget::available`], taken as 0 for an unsatisfiable budget (which
/// [`Reference::reduce`] rejects first). Linear in the messages it walks;
/// with unit costs the walks are those of version 1, message for message.
pub fn select_indices(policy: Policy, h: &History, budget: &Budget) -> Vec<usize> {
    if policy == Policy::Repair {
        // A repair selects every message; what it removes is its own rule
        // (spec §17.2).
        return (0..h.len()).collect();
    }
    let pinned = h.pinned();
    let room = budget.available(pinned).unwrap_or(0);
    let fits = match budget.costs() {
        None => h.rest_len() as u64 <= room,
        Some(_) => budget.cost_of((0..h.len()).filter(|&i| Some(i) != pinned)) <= room,
    };
    if fits {
        return (0..h.len()).collect();
    }
    let start = match policy {
        Policy::Turns => select_turns(h, budget, room),
        Policy::Suffix => Start::At(suffix_start(h, budget, room)),
        Policy::Repair => unreachable!("answered above"),
    };
    let from = match start {
        Start::At(s) | Start::Question(s, _) => s,
    };
    let mut out = Vec::with_capacity(h.len() - from.min(h.len()) + 1);
    match start {
        Start::At(s) => out.extend((s..h.len()).filter(|&i| Some(i) != pinned)),
        Start::Question(q, tail) => {
            out.push(q);
            out.extend((tail..h.len()).filter(|&i| Some(i) != pinned));
        }
    }
    if let Some(p) = pinned {
        let at = out.partition_point(|&i| i < p);
        out.insert(at, p);
    }
    out
}

/// Where a selection begins: every message of M from `At(i)` on, or the
/// question `q` and then every message of M from `tail` on.
enum Start {
    At(usize),
    Question(usize, usize),
}

/// The smallest `s >= lo` such that the messages of M in `s..` cost at
/// most `room` together (the pinned message skipped), walking back from
/// the end and stopping at the first message that does not fit (spec
/// §11.3: never past it). With unit costs: the start of the newest `room`
/// messages.
fn fitting_tail(h: &History, budget: &Budget, lo: usize, room: u64) -> usize {
    let pinned = h.pinned();
    let mut s = h.len();
    let mut total = 0u64;
    while s > lo {
        let i = s - 1;
        if Some(i) != pinned {
            let with = total.saturating_add(budget.cost(i));
            if with > room {
                break;
            }
            total = with;
        }
        s = i;
    }
    s
}

/// Semantics §3 steps 2–5 when M costs more than B (spec §11.4): walks
/// back over the turns from the newest while they fit.
fn select_turns(h: &History, budget: &Budget, room: u64) -> Start {
    let pinned = h.pinned();
    let first_rest = (0..h.len()).find(|&i| Some(i) != pinned);
    let mut total = 0u64;
    // The start of the oldest turn kept so far, and the current turn's cost.
    let mut kept_from: Option<usize> = None;
    let mut size = 0u64;
    let mut newest: Option<(usize, bool)> = None;
    for i in (0..h.len()).rev() {
        if Some(i) == pinned {
            continue;
        }
        size = size.saturating_add(budget.cost(i));
        let is_start = h.view(i).is_turn_start();
        if !is_start && Some(i) != first_rest {
            continue;
        }
        // A turn begins at i and costs `size`.
        if newest.is_none() {
            newest = Some((i, is_start));
        }
        if total.saturating_add(size) > room {
            break;
        }
        total += size;
        kept_from = Some(i);
        size = 0;
    }
    match kept_from {
        Some(s) => Start::At(s),
        None => {
            // Step 4: not even the newest turn fits. The question when it
            // fits, and the longest run of the newest messages that fits
            // beside it; else that run alone (spec §11.4).
            let (q, has_question) = newest.expect("M costing more than B means a turn");
            let question = budget.cost(q);
            if has_question && question <= room {
                Start::Question(
                    q,
                    unlinked(h, fitting_tail(h, budget, q + 1, room - question)),
                )
            } else {
                Start::At(unlinked(h, fitting_tail(h, budget, q, room)))
            }
        }
    }
}

/// The first start of a `turns` overflow tail at or after `s` (spec
/// §14.5–§14.6): a tail never begins inside a call group or right after
/// an attached reasoning item, so its start moves later; `h.len()` (the
/// empty tail) when every message from `s` on is linked. The shorter
/// tails the profile search tries (spec §15.4) begin only where the same
/// test, [`linked_to_previous`], allows.
fn unlinked(h: &History, mut s: usize) -> usize {
    while s < h.len() && linked_to_previous(h, s) {
        s += 1;
    }
    s
}

/// Semantics §4 (spec §11.5): the start of the longest suffix of M
/// that fits, moved later while it would begin inside a tool group.
fn suffix_start(h: &History, budget: &Budget, room: u64) -> usize {
    next_suffix_start(h, &h.pairing(), fitting_tail(h, budget, 0, room))
}

/// The first `suffix` start at or after `start` ([`is_suffix_start`]), or
/// `h.len()`.
fn next_suffix_start(h: &History, pairing: &Pairing, mut start: usize) -> usize {
    while start < h.len() && !is_suffix_start(h, pairing, start) {
        start += 1;
    }
    start
}

/// Whether a `suffix` run may begin at message `start`: a legal start
/// ([`legal_suffix_start`]) that is not the pinned message. The policy's
/// own start and every later start the profile search tries (spec §15.4)
/// are judged here.
fn is_suffix_start(h: &History, pairing: &Pairing, start: usize) -> bool {
    Some(start) != h.pinned() && legal_suffix_start(h, pairing, start)
}

/// The cuts a profile may fall back on after the policy's own `plain`
/// selection, in order (spec §15.4): `suffix` from each later legal
/// start; `turns` without its oldest kept turns one by one, or, when the
/// selection is a question and a tail (the overflow case), with a shorter
/// tail down to the question alone; then the newest turn start alone, when
/// `fits` says it fits the budget. Each includes the pinned message, and
/// each but the last keeps a part of `plain`.
pub(super) fn later_selections(
    policy: Policy,
    h: &History,
    plain: &[usize],
    fits: impl Fn(usize) -> bool,
) -> Vec<Vec<usize>> {
    let pinned = h.pinned();
    let rest_from = |s: usize| -> Vec<usize> { (s..h.len()).collect() };
    let kept: Vec<usize> = plain
        .iter()
        .copied()
        .filter(|&i| Some(i) != pinned)
        .collect();
    let first_kept = kept.first().copied().unwrap_or(h.len());
    let mut out: Vec<Vec<usize>> = Vec::new();
    let with_pinned = |mut sel: Vec<usize>| {
        sel.retain(|&i| Some(i) != pinned);
        sel.extend(pinned);
        sel.sort_unstable();
        sel
    };
    match policy {
        Policy::Repair => {}
        Policy::Suffix => {
            let pairing = h.pairing();
            for s in first_kept + 1..h.len() {
                if is_suffix_start(h, &pairing, s) {
                    out.push(with_pinned(rest_from(s)));
                }
            }
        }
        Policy::Turns => {
            // A question and a tail: the second kept message is not the one
            // after the first (the pinned message skipped).
            let next_after = |i: usize| (i + 1..h.len()).find(|&j| Some(j) != pinned);
            let split = kept.len() >= 2 && next_after(kept[0]) != Some(kept[1]);
            if split {
                // Each shorter tail, down to the question alone (at
                // `h.len()`, which no message links to), from the starts
                // `unlinked` allows. A tail from the pinned message is the
                // one from the next (no message links to a system
                // message), tried twice.
                let q = kept[0];
                for k in kept[1] + 1..=h.len() {
                    if !linked_to_previous(h, k) {
                        let mut sel = vec![q];
                        sel.extend(rest_from(k));
                        out.push(with_pinned(sel));
                    }
                }
            } else {
                for t in h.turn_spans().iter().filter(|t| t.start > first_kept) {
                    out.push(with_pinned(rest_from(t.start)));
                }
            }
        }
    }
    if let Some(u) = (0..h.len())
        .rev()
        .find(|&i| Some(i) != pinned && h.view(i).is_turn_start() && fits(i))
    {
        out.push(with_pinned(vec![u]));
    }
    out
}

/// A legal `suffix` start (spec §4, with the call groups and attached reasoning of §14.5–§14.6):
/// not a tool message, not approval-only, holding no result or approval
/// response paired with an earlier message, not continuing a call group and
/// not right after an attached reasoning item.
fn legal_suffix_start(h: &History, pairing: &Pairing, start: usize) -> bool {
    let v = h.view(start);
    let split_group = v.has_removable()
        && h.items(start).iter().enumerate().any(|(t, item)| {
            item.kind.is_removable()
                && pairing
                    .partner_message(h, start, t)
                    .is_some_and(|pm| pm < start)
        });
    !(v.role == Role::Tool || v.is_approval_only() || split_group || linked_to_previous(h, start))
}

/// Semantics §3 step 6 over `chosen` (ascending): the results and approval
/// responses that answer nothing earlier in the selection are removed, and
/// messages left with no item are dropped (so is a message that loses an
/// item that is not an element of its items array: an OpenAI tool message).
pub(super) fn orphans_removed(h: &History, chosen: Vec<usize>) -> Indices {
    let pairing = h.pairing_of(chosen.iter().copied());
    let mut kept = chosen;
    let mut stripped = Vec::new();
    let mut removed: Vec<usize> = Vec::new();
    kept.retain(|&m| {
        let v = h.view(m);
        if !v.has_removable() {
            return true;
        }
        let base = v.item_range().start;
        let items = h.items(m);
        removed.clear();
        removed.extend(
            (0..items.len())
                .filter(|&t| items[t].kind.is_removable() && pairing.of(base + t).is_none()),
        );
        if removed.is_empty() {
            return true;
        }
        if removed.len() >= items.len() || removed.iter().any(|&t| items[t].elem().is_none()) {
            return false;
        }
        stripped.push((m, removed.clone()));
        true
    });
    // An attached reasoning item goes with its item (spec §14.6): from
    // the end backwards, so that a chain goes with the item at its end.
    if (0..h.len()).any(|i| h.view(i).is_reasoning()) {
        let mut keep = vec![false; h.len()];
        for &m in &kept {
            keep[m] = true;
        }
        for i in (0..h.len()).rev() {
            if keep[i] && attached_reasoning(h, i) && !keep[i + 1] {
                keep[i] = false;
            }
        }
        kept.retain(|&m| keep[m]);
        stripped.retain(|(m, _)| keep[*m]);
    }
    Indices { kept, stripped }
}
