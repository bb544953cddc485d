//! Matching output messages to input messages (spec §7): the
//! mapping every clause is judged under.
//!
//! The latest embedding is found from the end backwards, each output
//! message at the latest input message before the previous match that it
//! equals, or equals but for removed results / approval responses. The
//! search is linear in the usual case and never quadratic: the input
//! message just below the bound is tried first (a kept run matches there);
//! otherwise an index built once over the input answers — by a hash of the
//! whole message (equal messages), and by a hash of the message without its
//! removable elements plus one of its removable elements (messages that
//! lost some) — and only the candidates it names are tested with
//! [`embeds`]. The bound only decreases, so each index chain is walked once.
//!
//! Messages are compared as [`Texts`]: on their canonical texts
//! ([`crate::json::canon`]: a hash, then the bytes) when the histories
//! were read beforehand, else on their values.
//!
//! **Answers compared in the same pass.** Whole answers that some clauses
//! compare with the output (`deterministic`, `idempotent`,
//! `matches-reference`: [`Beside::whole`]) and the smaller budget's answer
//! (`budget-monotone`: [`Beside::tail`]) are compared message by message
//! inside the mapping's loop, so that each output message is brought into
//! the cache once for all of them rather than once per clause. The results
//! ([`Compared`]) are exactly what the clauses' own comparisons give; the
//! clauses fall back to those when an answer was not compared here.

use crate::formats::Format;
use crate::json::canon::{text_hash, CanonHistory, Items};
use crate::json::{json_eq, json_hash, member_hash, mix, object_hash};
use crate::terms::repair::is_pairing;
use crate::terms::{History, ItemKind, ItemRef, Role};
use serde_json::{Map, Value};

mod repair;
pub(super) use repair::map_output_repair;

/// The messages of one history as the checker compares them: the values,
/// and their canonical texts when they were read beforehand
/// ([`super::PreparedInput`], [`super::PreparedAnswers`]). Two histories
/// that both have canonical texts are compared on those (a hash and the
/// bytes); otherwise on the values ([`json_eq`], [`json_hash`]). The
/// answers are the same either way; histories indexed and looked up
/// together ([`EmbedIndex`]) both have texts or both not.
#[derive(Clone, Copy, Debug)]
pub(super) struct Texts<'a> {
    pub(super) values: &'a [Value],
    pub(super) canon: Option<&'a CanonHistory>,
    /// The format's items member ([`crate::formats::Format::items_key`]).
    pub(super) key: &'static str,
}

/// A message's items array, as [`Texts::items`] finds it: in its
/// canonical text, or the message's members and the array's elements.
enum ItemsOf<'a> {
    Canon(Items<'a>),
    Values(&'a Map<String, Value>, &'a [Value]),
}

impl ItemsOf<'_> {
    fn len(&self) -> usize {
        match self {
            ItemsOf::Canon(i) => i.len(),
            ItemsOf::Values(_, a) => a.len(),
        }
    }
}

impl Texts<'_> {
    /// The number of messages.
    pub(super) fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether message `k` equals message `j` of `other` (spec §1.3).
    #[inline]
    pub(super) fn same(&self, k: usize, other: &Texts, j: usize) -> bool {
        match (self.canon, other.canon) {
            (Some(a), Some(b)) => a.same(k, b, j),
            _ => json_eq(&self.values[k], &other.values[j]),
        }
    }

    /// Whether the two histories are equal message by message.
    pub(super) fn same_history(&self, other: &Texts) -> bool {
        match (self.canon, other.canon) {
            (Some(a), Some(b)) => a.same_history(b),
            _ => {
                self.len() == other.len()
                    && (0..self.len()).all(|k| json_eq(&self.values[k], &other.values[k]))
            }
        }
    }

    /// A hash of message `k`, consistent with [`Texts::same`] between
    /// histories that both have texts, or both not.
    fn hash(&self, k: usize) -> u64 {
        match self.canon {
            Some(c) => c.hash(k),
            None => json_hash(&self.values[k]),
        }
    }

    /// Message `k`'s items array, when it is an object with an items array
    /// member.
    fn items(&self, k: usize) -> Option<ItemsOf<'_>> {
        match self.canon {
            Some(c) => c.items(k).map(ItemsOf::Canon),
            None => {
                let o = self.values[k].as_object()?;
                match o.get(self.key)? {
                    Value::Array(a) => Some(ItemsOf::Values(o, a)),
                    _ => None,
                }
            }
        }
    }

    /// Whether two messages' members other than their items arrays are
    /// equal (in canonical texts members are sorted, so exactly when the
    /// texts around the arrays are).
    fn same_frame(&self, a: &ItemsOf, b: &ItemsOf) -> bool {
        match (a, b) {
            (ItemsOf::Canon(x), ItemsOf::Canon(y)) => x.prefix == y.prefix && x.suffix == y.suffix,
            (ItemsOf::Values(x, _), ItemsOf::Values(y, _)) => {
                x.len() == y.len()
                    && y.iter()
                        .all(|(k, v)| k == self.key || x.get(k).is_some_and(|w| json_eq(v, w)))
            }
            _ => false,
        }
    }

    /// Whether element `e` of `a` (an array of this history) equals
    /// element `f` of `b` (an array of `other`).
    fn same_elem(&self, a: &ItemsOf, e: usize, other: &Texts, b: &ItemsOf, f: usize) -> bool {
        match (a, b, self.canon, other.canon) {
            (ItemsOf::Canon(x), ItemsOf::Canon(y), Some(c), Some(d)) => {
                c.elem(x, e) == d.elem(y, f)
            }
            (ItemsOf::Values(_, x), ItemsOf::Values(_, y), _, _) => json_eq(&x[e], &y[f]),
            _ => false,
        }
    }

    /// The hash of element `e` of `a` (consistent as [`Texts::hash`] is).
    fn elem_hash(&self, a: &ItemsOf, e: usize) -> u64 {
        match (a, self.canon) {
            (ItemsOf::Canon(x), Some(c)) => text_hash(c.elem(x, e)),
            (ItemsOf::Values(_, x), _) => json_hash(&x[e]),
            (ItemsOf::Canon(_), None) => unreachable!("canonical items come from canonical texts"),
        }
    }

    /// The hash of the members of a message but its items array.
    fn frame_hash(&self, a: &ItemsOf) -> u64 {
        match a {
            ItemsOf::Canon(x) => mix(text_hash(x.prefix), text_hash(x.suffix)),
            ItemsOf::Values(o, _) => {
                let frame = o
                    .iter()
                    .filter(|(k, _)| k.as_str() != self.key)
                    .fold(0u64, |f, (k, m)| {
                        f.wrapping_add(member_hash(k, json_hash(m)))
                    });
                object_hash(o.len(), std::iter::once(frame))
            }
        }
    }
}

/// The output mapped onto the input.
#[derive(Clone)]
pub(super) struct Mapping {
    /// Output index of the pinned system message, when found equal.
    pub(super) out_pinned: Option<usize>,
    /// Output index of the pinned system message changed: when none is
    /// equal to it, the output's first system message if it comes from no
    /// input message and stands where the pinned one would (every output
    /// message before it comes from an input message before the pinned
    /// one, every one after it from one after). It is the pinned message
    /// by identity, place and role (`system-pinned`, `budget`), and
    /// fabricated by content (`no-fabrication`, spec §6.3).
    pub(super) pinned_changed: Option<usize>,
    /// For each output message, the input message it maps to.
    pub(super) map: Vec<Option<usize>>,
    /// Per input message: whether some output message maps to it.
    pub(super) kept: Vec<bool>,
    /// `(input message, its removed item indices)` for each kept input
    /// message that lost items, ascending by input message.
    removed: Vec<(usize, Vec<usize>)>,
    /// The answers compared with the output in the same pass.
    pub(super) compared: Compared,
}

/// Other answers to compare with the output in the mapping's pass, as
/// canonical texts.
#[derive(Clone, Copy, Default)]
pub(super) struct Beside<'a> {
    /// Answers compared whole with the output: equal when of the same
    /// length and equal message by message (as
    /// [`Response::same_as`](crate::protocol::Response::same_as)).
    pub(super) whole: [Option<Texts<'a>>; 3],
    /// An answer compared with the output's tail: how many of its last
    /// messages equal the output's last messages, aligned at the end.
    pub(super) tail: Option<Texts<'a>>,
}

/// What the comparisons of [`Beside`] found.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Compared {
    /// Per [`Beside::whole`] answer: whether it equals the output (`None`:
    /// not given).
    pub(super) whole: [Option<bool>; 3],
    /// The number of the [`Beside::tail`] answer's last messages equal to
    /// the output's last messages, one for one from the end (0 when not
    /// given).
    pub(super) tail_run: usize,
}

impl Mapping {
    /// Spec §7 under a token budget (the caller: when the output holds no summary): when
    /// the output keeps one message of M, matched to input message `j`
    /// that costs more than `room` alone,
    /// and an earlier input message equal to `j` (not pinned, not kept)
    /// costs at most `room`, the message is matched to the latest such one
    /// instead. The bytes cannot tell the two apart, and a reducer that
    /// keeps one message within the budget (a provider profile's fallback,
    /// §15.4) kept the one that fits.
    pub(super) fn fit_single(
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
    pub(super) fn turn_start_over_stripped(
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

    /// The item indices removed from kept input message `j` (empty when
    /// kept whole or not kept).
    pub(super) fn removed(&self, j: usize) -> &[usize] {
        match self.removed.binary_search_by_key(&j, |(i, _)| *i) {
            Ok(p) => &self.removed[p].1,
            Err(_) => &[],
        }
    }
}

/// Whether message `k` of `oc` equals message `j` of `ic` (classified as
/// `h`), or equals it but for removed results / approval responses, at
/// least one of its elements left (an emptied message is left out,
/// spec §3 step 6; spec §7); returns the removed item indices of
/// message `j` (empty when equal).
pub(super) fn embeds(
    oc: &Texts,
    k: usize,
    ic: &Texts,
    j: usize,
    h: &History,
) -> Option<Vec<usize>> {
    debug_assert_eq!(
        oc.canon.is_some(),
        ic.canon.is_some(),
        "histories compared together both have canonical texts or both not"
    );
    if oc.same(k, ic, j) {
        return Some(Vec::new());
    }
    if !h.view(j).has_removable() {
        return None;
    }
    let (oa, ia) = (oc.items(k)?, ic.items(j)?);
    if !ic.same_frame(&oa, &ia) {
        return None;
    }
    let items = h.items(j);
    let removable_elem = |e: usize| {
        items
            .iter()
            .position(|it| it.elem() == Some(e) && it.kind.is_removable())
    };
    let mut removed = Vec::new();
    let mut next = 0;
    for e in 0..ia.len() {
        if next < oa.len() && oc.same_elem(&oa, next, ic, &ia, e) {
            next += 1;
        } else {
            removed.push(removable_elem(e)?);
        }
    }
    // Some items taken out, not all: a message that loses all its items is
    // left out (spec §3 step 6), so an emptied message comes from no
    // input message (§7).
    (next == oa.len() && next > 0 && !removed.is_empty()).then_some(removed)
}

/// Whether output message `k` of `oc` comes from input message `j` of
/// `ic` (classified as `h`): [`embeds`] (spec §7), or under policy
/// `repair` [`repair::embeds_repair`] (spec §17.2).
pub(super) fn comes_from(
    format: Format,
    repair: bool,
    oc: &Texts,
    k: usize,
    ic: &Texts,
    j: usize,
    h: &History,
) -> bool {
    if repair {
        repair::embeds_repair(format, &oc.values[k], &ic.values[j], h.items(j)).is_some()
    } else {
        embeds(oc, k, ic, j, h).is_some()
    }
}

const NONE: u32 = u32::MAX;
/// Key tags: a whole message, and a message less its removable elements.
const WHOLE: u64 = 0x11;
const STRIPPED: u64 = 0x22;
/// Stands for "no removable element" in a stripped key.
const NO_ELEMENT: u64 = 0x33;

/// The input messages a message could embed into, by key, latest first.
pub(super) struct EmbedIndex<'a> {
    c: Texts<'a>,
    h: &'a History,
    /// An input message never matched this way (the pinned one).
    skip: Option<usize>,
    /// How many input messages just below the bound are tried one by one
    /// before the index is built or used (at least 1).
    near: usize,
    /// How many more input messages lookups may try one by one, beyond
    /// `near`, before the index is built (canonical texts only, where a try
    /// is a hash compare: a lookup that finds its message far below the
    /// bound, or nowhere, then costs no index; their total stays linear).
    scan: usize,
    built: bool,
    /// Key → the latest entry with that key not yet passed by the bound.
    heads: hashbrown::HashTable<(u64, u32)>,
    /// `(input message, previous entry with the same key)`.
    entries: Vec<(u32, u32)>,
    scratch: Vec<u64>,
}

/// The keys of message `k` of `c` (classified as `h`; see the module doc):
/// its whole hash and, when it is an object whose items member is an
/// array, the hash of its other members and of its non-removable
/// elements; `removable` gets its removable elements' hashes.
fn keys(c: &Texts, k: usize, h: &History, removable: &mut Vec<u64>) -> (u64, Option<u64>) {
    removable.clear();
    let whole = c.hash(k);
    let Some(arr) = c.items(k) else {
        return (whole, None);
    };
    let items = h.items(k);
    let mut kept = c.frame_hash(&arr);
    let mut t = 0;
    for e in 0..arr.len() {
        let eh = c.elem_hash(&arr, e);
        while t < items.len() && items[t].elem().is_none_or(|ie| ie < e) {
            t += 1;
        }
        let is_removable = items[t..]
            .iter()
            .take_while(|it| it.elem() == Some(e))
            .any(|it| it.kind.is_removable());
        if is_removable {
            removable.push(eh);
        } else {
            kept = mix(kept, eh);
        }
    }
    (whole, Some(kept))
}

impl<'a> EmbedIndex<'a> {
    /// An index over the input `c` (classified as `h`), leaving out
    /// `skip`. Built on the first lookup that needs it. Each lookup first
    /// tries the `near` input messages just below its bound one by one (the
    /// latest embedding by its definition; at least the one message below
    /// the bound is tried).
    pub(super) fn new(
        c: Texts<'a>,
        h: &'a History,
        skip: Option<usize>,
        near: usize,
    ) -> EmbedIndex<'a> {
        EmbedIndex {
            c,
            h,
            skip,
            near: near.max(1),
            scan: if c.canon.is_some() { c.len() } else { 0 },
            built: false,
            heads: hashbrown::HashTable::new(),
            entries: Vec::new(),
            scratch: Vec::new(),
        }
    }

    fn add(&mut self, key: u64, j: usize) {
        let entry = self.entries.len() as u32;
        match self.heads.find_mut(key, |&(k, _)| k == key) {
            Some(head) => {
                self.entries.push((j as u32, head.1));
                head.1 = entry;
            }
            None => {
                self.entries.push((j as u32, NONE));
                self.heads.insert_unique(key, (key, entry), |&(k, _)| k);
            }
        }
    }

    fn build(&mut self) {
        self.built = true;
        let mut removable = std::mem::take(&mut self.scratch);
        let mut keyed: Vec<(u64, u32)> = Vec::with_capacity(self.c.len() + self.c.len() / 4);
        for j in 0..self.c.len() {
            if Some(j) == self.skip {
                continue;
            }
            if !self.h.view(j).has_removable() {
                // Only an equal message embeds into it.
                keyed.push((mix(WHOLE, self.c.hash(j)), j as u32));
                continue;
            }
            let (whole, stripped) = keys(&self.c, j, self.h, &mut removable);
            keyed.push((mix(WHOLE, whole), j as u32));
            if let (Some(s), false) = (stripped, removable.is_empty()) {
                keyed.push((mix(STRIPPED, mix(s, NO_ELEMENT)), j as u32));
                for &e in &removable {
                    keyed.push((mix(STRIPPED, mix(s, e)), j as u32));
                }
            }
        }
        self.scratch = removable;
        self.entries.reserve(keyed.len());
        self.heads.reserve(keyed.len(), |&(k, _)| k);
        // Inserted in the order of the table's buckets (a stable counting
        // sort on the top bits of the bucket index; equal keys stay in
        // input order), so that a large index is written a region at a
        // time instead of at random (at 1M messages the random
        // inserts were most of a lookup that matches nothing).
        let buckets = (keyed.len().max(8) * 8 / 7).next_power_of_two();
        let bits = buckets.trailing_zeros();
        if bits > 12 {
            let shift = bits - 8;
            let part = |k: u64| ((k as usize & (buckets - 1)) >> shift) & 0xff;
            let mut starts = [0usize; 257];
            for &(k, _) in &keyed {
                starts[part(k) + 1] += 1;
            }
            for i in 0..256 {
                starts[i + 1] += starts[i];
            }
            let mut sorted = vec![(0u64, 0u32); keyed.len()];
            for &(k, j) in &keyed {
                let p = part(k);
                sorted[starts[p]] = (k, j);
                starts[p] += 1;
            }
            keyed = sorted;
        }
        for (k, j) in keyed {
            self.add(k, j as usize);
        }
    }

    /// The latest input message before `bound` (and after `floor`, when
    /// given) under `key` that message `k` of `oc` embeds into, with the
    /// removed items. Moves the key's head below `bound` for good: bounds
    /// only decrease.
    fn walk(
        &mut self,
        key: u64,
        oc: &Texts,
        k: usize,
        bound: usize,
        floor: Option<usize>,
    ) -> Option<(usize, Vec<usize>)> {
        let head = self.heads.find_mut(key, |&(k, _)| k == key)?;
        let mut e = head.1;
        while e != NONE && self.entries[e as usize].0 as usize >= bound {
            e = self.entries[e as usize].1;
        }
        head.1 = e;
        while e != NONE {
            let (j, prev) = self.entries[e as usize];
            let j = j as usize;
            if floor.is_some_and(|f| j <= f) {
                return None;
            }
            if let Some(r) = embeds(oc, k, &self.c, j, self.h) {
                return Some((j, r));
            }
            e = prev;
        }
        None
    }

    /// The latest input message before `bound` (never the skipped one)
    /// that message `k` of `oc` (classified as `oh()`) equals or equals
    /// but for removed results / approval responses, with the removed item
    /// indices. `oh` is called only when the index is consulted (the
    /// messages near the bound did not match).
    pub(super) fn latest_before<'h>(
        &mut self,
        oc: &Texts,
        oh: impl FnOnce() -> &'h History,
        k: usize,
        bound: usize,
    ) -> Option<(usize, Vec<usize>)> {
        let mut tried = 0;
        let mut j = bound;
        let limit = if self.built {
            self.near
        } else {
            self.near + self.scan
        };
        while tried < limit {
            let Some(below) = j.checked_sub(1) else {
                self.scan -= tried.saturating_sub(self.near).min(self.scan);
                return None;
            };
            j = below;
            if Some(j) == self.skip {
                continue;
            }
            if let Some(r) = embeds(oc, k, &self.c, j, self.h) {
                self.scan -= tried.saturating_sub(self.near).min(self.scan);
                return Some((j, r));
            }
            tried += 1;
        }
        self.scan = 0;
        if !self.built {
            self.build();
        }
        let oh = oh();
        let mut removable = std::mem::take(&mut self.scratch);
        let (whole, stripped) = keys(oc, k, oh, &mut removable);
        let first_removable = removable.first().copied().unwrap_or(NO_ELEMENT);
        self.scratch = removable;
        let exact = self.walk(mix(WHOLE, whole), oc, k, bound, None);
        let floor = exact.as_ref().map(|(j, _)| *j);
        let partial = match (stripped, oh.view(k).is_unreadable()) {
            (Some(s), false) => {
                self.walk(mix(STRIPPED, mix(s, first_removable)), oc, k, bound, floor)
            }
            _ => None,
        };
        partial.or(exact)
    }
}

impl Mapping {
    /// The output index of the pinned system message by identity: equal
    /// to it ([`Mapping::out_pinned`]) or changed in its place
    /// ([`Mapping::pinned_changed`]).
    pub(super) fn pinned_kept(&self) -> Option<usize> {
        self.out_pinned.or(self.pinned_changed)
    }
}

/// [`Mapping::pinned_changed`]: the output's first system message
/// `first_system`, when no output message is the `pinned` one
/// (`out_pinned`), it maps to no input message, the pinned message is not
/// kept otherwise, and the messages mapped before and after it come from
/// before and after the pinned one.
pub(super) fn pinned_by_place(
    pinned: Option<usize>,
    out_pinned: Option<usize>,
    first_system: Option<usize>,
    map: &[Option<usize>],
    kept: &[bool],
) -> Option<usize> {
    let (Some(p), None, Some(k)) = (pinned, out_pinned, first_system) else {
        return None;
    };
    let placed = map[k].is_none()
        && !kept[p]
        && map[..k].iter().flatten().all(|&j| j < p)
        && map[k + 1..].iter().flatten().all(|&j| j > p);
    placed.then_some(k)
}

/// Maps the output (canonical texts `oc`, classified leniently as `out_h`)
/// onto the input (`ic`, classified as `in_h`) by the latest embedding
/// (spec §7), comparing the answers of `beside` with the output in
/// the same pass.
pub(super) fn map_output(
    ic: Texts<'_>,
    in_h: &History,
    oc: Texts<'_>,
    out_h: &History,
    beside: Beside<'_>,
) -> Mapping {
    let pinned = in_h.pinned();
    let first_system = (0..out_h.len()).find(|&k| out_h.role(k) == Role::System);
    let out_pinned = match (pinned, first_system) {
        (Some(p), Some(k)) if oc.same(k, &ic, p) => Some(k),
        _ => None,
    };
    let n = oc.len();
    let mut map: Vec<Option<usize>> = vec![None; n];
    let mut kept = vec![false; ic.len()];
    let mut removed = Vec::new();
    if let (Some(k), Some(p)) = (out_pinned, pinned) {
        map[k] = Some(p);
        kept[p] = true;
    }
    // Whole answers still equal so far (compared only at the same length).
    let mut whole = beside.whole.map(|a| a.map(|a| (a, a.len() == n)));
    // The tail answer, aligned at the end, while its run lasts.
    let mut tail = beside.tail;
    let mut tail_run = 0;
    let mut index = EmbedIndex::new(ic, in_h, pinned, 1);
    let mut bound = ic.len();
    for k in (0..n).rev() {
        for (a, equal) in whole.iter_mut().flatten() {
            *equal = *equal && oc.same(k, a, k);
        }
        if let Some(t) = tail {
            // Message k of the output faces message k − (|output| − |t|).
            match (k + t.len()).checked_sub(n) {
                Some(i) if t.same(i, &oc, k) => tail_run += 1,
                _ => tail = None,
            }
        }
        if Some(k) == out_pinned {
            continue;
        }
        if let Some((j, r)) = index.latest_before(&oc, || out_h, k, bound) {
            bound = j;
            kept[j] = true;
            if !r.is_empty() {
                removed.push((j, r));
            }
            map[k] = Some(j);
        }
    }
    removed.reverse();
    let pinned_changed = pinned_by_place(pinned, out_pinned, first_system, &map, &kept);
    Mapping {
        out_pinned,
        pinned_changed,
        map,
        kept,
        removed,
        compared: Compared {
            whole: whole.map(|w| w.map(|(_, equal)| equal)),
            tail_run,
        },
    }
}
