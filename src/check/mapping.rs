//! Matching output messages to input messages (semantics §7): the
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
//! **Answers compared in the same pass.** Whole answers that some clauses
//! compare with the output (`deterministic`, `idempotent`,
//! `matches-reference`: [`Beside::whole`]) and the smaller budget's answer
//! (`budget-monotone`: [`Beside::tail`]) are compared message by message
//! inside the mapping's loop, so that each output message is brought into
//! the cache once for all of them rather than once per clause. The results
//! ([`Compared`]) are exactly what the clauses' own comparisons give; the
//! clauses fall back to those when an answer was not compared here.

use crate::formats::Format;
use crate::json::{json_eq, json_hash, member_hash, mix, object_hash};
use crate::terms::{History, Role};
use serde_json::Value;

/// The output mapped onto the input.
pub(super) struct Mapping {
    /// Output index of the pinned system message, when found equal.
    pub(super) out_pinned: Option<usize>,
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

/// Other answers to compare with the output in the mapping's pass.
#[derive(Clone, Copy, Default)]
pub(super) struct Beside<'a> {
    /// Answers compared whole with the output: equal when of the same
    /// length and [`json_eq`] message by message (as
    /// [`Response::same_as`](crate::protocol::Response::same_as)).
    pub(super) whole: [Option<&'a [Value]>; 3],
    /// An answer compared with the output's tail: how many of its last
    /// messages are [`json_eq`] to the output's last messages, aligned at
    /// the end.
    pub(super) tail: Option<&'a [Value]>,
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

/// Whether `o` equals `i` (message `j` of `h`), or equals it but for
/// removed results / approval responses; returns the removed item indices
/// of `i` (empty when equal).
pub(super) fn embeds(
    format: Format,
    o: &Value,
    i: &Value,
    h: &History,
    j: usize,
) -> Option<Vec<usize>> {
    if json_eq(o, i) {
        return Some(Vec::new());
    }
    if !h.view(j).has_removable() {
        return None;
    }
    let (oo, io) = (o.as_object()?, i.as_object()?);
    let key = format.items_key();
    if oo.len() != io.len()
        || !io
            .iter()
            .all(|(k, v)| k == key || oo.get(k).is_some_and(|w| json_eq(v, w)))
    {
        return None;
    }
    let (Value::Array(oa), Value::Array(ia)) = (oo.get(key)?, io.get(key)?) else {
        return None;
    };
    let items = h.items(j);
    let removable_elem = |e: usize| {
        items
            .iter()
            .position(|it| it.elem() == Some(e) && it.kind.is_removable())
    };
    let mut removed = Vec::new();
    let mut next = 0;
    for (e, iv) in ia.iter().enumerate() {
        if next < oa.len() && json_eq(&oa[next], iv) {
            next += 1;
        } else {
            removed.push(removable_elem(e)?);
        }
    }
    (next == oa.len() && !removed.is_empty()).then_some(removed)
}

const NONE: u32 = u32::MAX;
/// Key tags: a whole message, and a message less its removable elements.
const WHOLE: u64 = 0x11;
const STRIPPED: u64 = 0x22;
/// Stands for "no removable element" in a stripped key.
const NO_ELEMENT: u64 = 0x33;

/// The input messages a message could embed into, by key, latest first.
pub(super) struct EmbedIndex<'a> {
    format: Format,
    input: &'a [Value],
    h: &'a History,
    /// An input message never matched this way (the pinned one).
    skip: Option<usize>,
    /// How many input messages just below the bound are tried one by one
    /// before the index is built or used (at least 1).
    near: usize,
    built: bool,
    /// Key → the latest entry with that key not yet passed by the bound.
    heads: hashbrown::HashTable<(u64, u32)>,
    /// `(input message, previous entry with the same key)`.
    entries: Vec<(u32, u32)>,
    scratch: Vec<u64>,
}

/// The keys of a message (see the module doc): its whole hash and, when it
/// is an object whose items member is an array, the hash of its members and
/// non-removable elements; `removable` gets its removable elements' hashes.
fn keys(
    format: Format,
    v: &Value,
    h: &History,
    j: usize,
    removable: &mut Vec<u64>,
) -> (u64, Option<u64>) {
    removable.clear();
    let Value::Object(o) = v else {
        return (json_hash(v), None);
    };
    let key = format.items_key();
    let mut frame = 0u64;
    let mut items_member = None;
    for (k, m) in o {
        if k == key {
            if let Value::Array(a) = m {
                items_member = Some(a);
                continue;
            }
        }
        frame = frame.wrapping_add(member_hash(k, json_hash(m)));
    }
    let Some(arr) = items_member else {
        return (object_hash(o.len(), std::iter::once(frame)), None);
    };
    let items = h.items(j);
    let mut whole = mix(5, arr.len() as u64);
    let mut kept = mix(7, 0);
    let mut t = 0;
    for (e, elem) in arr.iter().enumerate() {
        let eh = json_hash(elem);
        whole = mix(whole, eh);
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
    let whole = object_hash(o.len(), [frame, member_hash(key, whole)].into_iter());
    let stripped = mix(mix(frame, o.len() as u64), kept);
    (whole, Some(stripped))
}

impl<'a> EmbedIndex<'a> {
    /// An index over `input` (classified as `h`), leaving out `skip`. Built
    /// on the first lookup that needs it. Each lookup first tries the
    /// `near` input messages just below its bound one by one (the latest
    /// embedding by its definition; at least the one message below the
    /// bound is tried).
    pub(super) fn new(
        format: Format,
        input: &'a [Value],
        h: &'a History,
        skip: Option<usize>,
        near: usize,
    ) -> EmbedIndex<'a> {
        EmbedIndex {
            format,
            input,
            h,
            skip,
            near: near.max(1),
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
        self.entries.reserve(self.input.len());
        self.heads.reserve(self.input.len(), |&(k, _)| k);
        let mut removable = std::mem::take(&mut self.scratch);
        for j in 0..self.input.len() {
            if Some(j) == self.skip {
                continue;
            }
            let (whole, stripped) = keys(self.format, &self.input[j], self.h, j, &mut removable);
            self.add(mix(WHOLE, whole), j);
            if let (Some(s), false) = (stripped, removable.is_empty()) {
                self.add(mix(STRIPPED, mix(s, NO_ELEMENT)), j);
                for &e in &removable {
                    self.add(mix(STRIPPED, mix(s, e)), j);
                }
            }
        }
        self.scratch = removable;
    }

    /// The latest input message before `bound` (and after `floor`, when
    /// given) under `key` that `o` embeds into, with the removed items.
    /// Moves the key's head below `bound` for good: bounds only decrease.
    fn walk(
        &mut self,
        key: u64,
        o: &Value,
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
            if let Some(r) = embeds(self.format, o, &self.input[j], self.h, j) {
                return Some((j, r));
            }
            e = prev;
        }
        None
    }

    /// The latest input message before `bound` (never the skipped one)
    /// that `o` — message `k` of the output classified as `oh()` — equals
    /// or equals but for removed results / approval responses, with the
    /// removed item indices. `oh` is called only when the index is
    /// consulted (the messages near the bound did not match).
    pub(super) fn latest_before<'h>(
        &mut self,
        o: &Value,
        oh: impl FnOnce() -> &'h History,
        k: usize,
        bound: usize,
    ) -> Option<(usize, Vec<usize>)> {
        let mut tried = 0;
        let mut j = bound;
        while tried < self.near {
            j = j.checked_sub(1)?;
            if Some(j) == self.skip {
                continue;
            }
            if let Some(r) = embeds(self.format, o, &self.input[j], self.h, j) {
                return Some((j, r));
            }
            tried += 1;
        }
        if !self.built {
            self.build();
        }
        let oh = oh();
        let mut removable = std::mem::take(&mut self.scratch);
        let (whole, stripped) = keys(self.format, o, oh, k, &mut removable);
        let first_removable = removable.first().copied().unwrap_or(NO_ELEMENT);
        self.scratch = removable;
        let exact = self.walk(mix(WHOLE, whole), o, bound, None);
        let floor = exact.as_ref().map(|(j, _)| *j);
        let partial = match (stripped, oh.view(k).is_unreadable()) {
            (Some(s), false) => self.walk(mix(STRIPPED, mix(s, first_removable)), o, bound, floor),
            _ => None,
        };
        partial.or(exact)
    }
}

/// Maps `output` (classified leniently as `out_h`) onto `input` (classified
/// as `in_h`) by the latest embedding (semantics §7), comparing the
/// answers of `beside` with the output in the same pass.
pub(super) fn map_output(
    format: Format,
    input: &[Value],
    in_h: &History,
    output: &[Value],
    out_h: &History,
    beside: Beside<'_>,
) -> Mapping {
    let pinned = in_h.pinned();
    let first_system = (0..out_h.len()).find(|&k| out_h.role(k) == Role::System);
    let out_pinned = match (pinned, first_system) {
        (Some(p), Some(k)) if json_eq(&output[k], &input[p]) => Some(k),
        _ => None,
    };
    let mut map: Vec<Option<usize>> = vec![None; output.len()];
    let mut kept = vec![false; input.len()];
    let mut removed = Vec::new();
    if let (Some(k), Some(p)) = (out_pinned, pinned) {
        map[k] = Some(p);
        kept[p] = true;
    }
    // Whole answers still equal so far (compared only at the same length).
    let mut whole = beside
        .whole
        .map(|a| a.map(|a| (a, a.len() == output.len())));
    // The tail answer, aligned at the end, while its run lasts.
    let mut tail = beside.tail;
    let mut tail_run = 0;
    let mut index = EmbedIndex::new(format, input, in_h, pinned, 1);
    let mut bound = input.len();
    for k in (0..output.len()).rev() {
        for (a, equal) in whole.iter_mut().flatten() {
            *equal = *equal && json_eq(&output[k], &a[k]);
        }
        if let Some(t) = tail {
            // Message k of the output faces message k − (|output| − |t|).
            match (k + t.len()).checked_sub(output.len()) {
                Some(i) if json_eq(&t[i], &output[k]) => tail_run += 1,
                _ => tail = None,
            }
        }
        if Some(k) == out_pinned {
            continue;
        }
        if let Some((j, r)) = index.latest_before(&output[k], || out_h, k, bound) {
            bound = j;
            kept[j] = true;
            if !r.is_empty() {
                removed.push((j, r));
            }
            map[k] = Some(j);
        }
    }
    removed.reverse();
    Mapping {
        out_pinned,
        map,
        kept,
        removed,
        compared: Compared {
            whole: whole.map(|w| w.map(|(_, equal)| equal)),
            tail_run,
        },
    }
}
