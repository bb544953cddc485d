//! The readings of an output message that the bytes alone cannot place
//! (spec §7): a lone message over the budget that equals an earlier one
//! that fits ([`Mapping::fit_single`]), and a message stripped of its
//! results that equals an earlier question
//! ([`Mapping::turn_start_over_stripped`], which also returns the other
//! reading, for the judge to weigh both).

use super::{Mapping, Texts};
use crate::terms::History;

impl Mapping {
    /// Spec §7 under a token budget (the caller: when the output holds no summary): when
    /// the output keeps one message of M, matched to input message `j`
    /// that costs more than `room` alone,
    /// and an earlier input message equal to `j` (not pinned, not kept)
    /// costs at most `room`, the message is matched to the latest such one
    /// instead. The bytes cannot tell the two apart, and a reducer that
    /// keeps one message within the budget (a provider profile's fallback,
    /// §15.4) kept the one that fits.
    pub(in crate::check) fn fit_single(
        &mut self,
        budget: &crate::terms::Budget,
        room: u64,
        pinned: Option<usize>,
        in_t: &Texts,
    ) {
        let mut mapped = self
            .map
            .iter()
            .enumerate()
            .filter_map(|(k, m)| m.filter(|&j| Some(j) != pinned).map(|j| (k, j)));
        let (Some((k, j)), None) = (mapped.next(), mapped.next()) else {
            return;
        };
        if !budget.is_tokens() || budget.cost(j) <= room {
            return;
        }
        let Some(i) = (0..j).rev().find(|&i| {
            Some(i) != pinned && !self.kept[i] && budget.cost(i) <= room && in_t.same(i, in_t, j)
        }) else {
            return;
        };
        self.map[k] = Some(i);
        self.kept[j] = false;
        self.kept[i] = true;
        for (m, _) in &mut self.removed {
            if *m == j {
                *m = i;
            }
        }
        self.removed.sort_by_key(|(m, _)| *m);
    }

    /// Spec §7 (§1.6), under `turns` and `suffix`: when the output's first
    /// message of M (not the pinned one) is matched to input message `j`,
    /// not a turn start, with items taken out, and equals, whole, an
    /// earlier input message `i` that is a turn start and not kept, it is
    /// matched to the latest such one instead. In Anthropic and Bedrock a
    /// message of results beside text with its results taken out is a
    /// `user` message of text, and may equal a question before it; the
    /// bytes cannot tell the two apart, and neither policy starts what it
    /// keeps of M with such a message: `turns` with a turn start (it keeps
    /// one only in the overflow case, after its turn's question), `suffix`
    /// with a legal start (§4; a message kept without what answers an
    /// earlier one is not), and a provider profile's fallback (§15.4)
    /// with a turn start alone. When the message fits the budget alone
    /// read as `j` (`fits`: under `turns` and a token budget), only an
    /// earlier equal turn start that fits alone too is read instead: the
    /// stripped message that step 4 keeps, with the tail after it, when
    /// the newest turn's question is over B is otherwise the reading. And
    /// an earlier turn start is read only when no turn start lies between
    /// it and the output's next kept message: read so, the output would
    /// keep a turn in part and skip the newer ones. A lone message is read
    /// as a question only as the newest turn start of M that passes
    /// `alone` (the caller: under a provider profile and a token budget,
    /// that fits the budget alone, the one the profile's fallback keeps;
    /// otherwise any, the newest turn start, the question `turns` keeps in
    /// the overflow case), when it equals the message; read as another
    /// question it could pass no clause. And not at all when `j` is the
    /// input's last message, fits, and the newest turn's question, before
    /// it, does not, nor the nearest earlier message of the turn that holds
    /// more than results, with what follows it: that is the whole tail step
    /// 4 keeps (`fits`: whether messages fit the budget together).
    ///
    /// Returns the mapping under the other reading (the stripped message
    /// when a question is read, else the latest equal turn start not
    /// kept), `None` when the message reads one way only: the judge takes
    /// the reading under which fewer clauses fail (spec §7).
    pub(in crate::check) fn turn_start_over_stripped(
        &mut self,
        in_h: &History,
        pinned: Option<usize>,
        out_t: &Texts,
        in_t: &Texts,
        fits: impl Fn(&[usize]) -> bool,
        alone: impl Fn(usize) -> bool,
    ) -> Option<Mapping> {
        let (k, j) = self
            .map
            .iter()
            .enumerate()
            .find_map(|(k, m)| m.filter(|&j| Some(j) != pinned).map(|j| (k, j)))?;
        if self.removed(j).is_empty() || in_h.view(j).is_turn_start() {
            return None;
        }
        // The other reading, kept for the judge (spec §7): the latest
        // equal turn start not kept, whichever the rules below read.
        let latest = (0..j).rev().find(|&i| {
            Some(i) != pinned
                && !self.kept[i]
                && in_h.view(i).is_turn_start()
                && out_t.same(k, in_t, i)
        })?;
        let as_question = |m: &Mapping, i: usize| {
            let mut q = m.clone();
            q.map[k] = Some(i);
            q.kept[j] = false;
            q.kept[i] = true;
            q.removed.retain(|(x, _)| *x != j);
            q
        };
        let lone = self
            .map
            .iter()
            .flatten()
            .filter(|&&m| Some(m) != pinned)
            .count()
            == 1;
        // A message that fits as `j` is read as a question only when that
        // fits too: read as one that does not, the output is over the
        // budget (for a lone message, the latest such is a profile's
        // fallback).
        let must_fit = fits(&[j]);
        // Alone, last and fitting, past a newest question over the budget
        // (under `turns` and a token budget), with no room for the nearest
        // earlier message of the turn that the tail would keep (one that
        // holds more than results, which lose their calls and are left
        // out): the whole tail step 4 keeps, whatever the question a
        // fallback would keep.
        if lone && must_fit && j + 1 == in_h.len() {
            let newest = (0..in_h.len())
                .rev()
                .find(|&x| Some(x) != pinned && in_h.view(x).is_turn_start());
            if let Some(q) = newest.filter(|&q| q < j && !fits(&[q])) {
                let results_only = |x: usize| {
                    let items = in_h.items(x);
                    !items.is_empty() && items.iter().all(|it| it.kind.is_removable())
                };
                let mut before = j - 1;
                while before > q && results_only(before) {
                    before -= 1;
                }
                let tail: Vec<usize> = (before..=j).collect();
                if before == q || !fits(&tail) {
                    return Some(as_question(self, latest));
                }
            }
        }
        // Read as a question, the message is followed in the output by
        // its own turn (or, under `suffix`, by the messages after it): no
        // turn start lies between it and the next kept message, or the
        // reading could pass no clause.
        let next = self.map[k + 1..].iter().flatten().next().copied();
        let candidate = |i: usize| {
            Some(i) != pinned
                && !self.kept[i]
                && in_h.view(i).is_turn_start()
                && out_t.same(k, in_t, i)
                && (!must_fit || fits(&[i]))
                && next.is_none_or(|n| {
                    !(i + 1..n).any(|x| Some(x) != pinned && in_h.view(x).is_turn_start())
                })
        };
        let found = if lone {
            (0..in_h.len())
                .rev()
                .find(|&x| Some(x) != pinned && in_h.view(x).is_turn_start() && alone(x))
                .filter(|&i| i < j && candidate(i))
        } else {
            (0..j).rev().find(|&i| candidate(i))
        };
        let Some(i) = found else {
            return Some(as_question(self, latest));
        };
        let stripped = self.clone();
        *self = as_question(self, i);
        Some(stripped)
    }
}
