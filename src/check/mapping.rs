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
//!
//! **Readings the bytes cannot settle** (`mapping/readings.rs`): a lone
//! message over the budget equal to an earlier one that fits, and a
//! message stripped of its results equal to an earlier question; for the
//! latter the other reading is kept too, and the judge reports the one
//! under which fewer clauses fail.

use crate::formats::Format;
use crate::json::canon::{text_hash, CanonHistory, Items};
use crate::json::{json_eq, json_hash, member_hash, mix, object_hash};
use crate::terms::repair::is_pairing;
use crate::terms::{History, ItemKind, ItemRef, Role};
use serde_json::{Map, Value};

mod readings;
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
