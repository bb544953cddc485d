//! The candidates of a shrink as changes of the case they come from
//! ([`Edit`]), listed per pass ([`EditList`], made one at a time when
//! asked for) and made into a case only when tried ([`QuickCase::build`]):
//! the candidate takes the messages it keeps from the case by moving them
//! (never copying them), copies only the messages it changes, and gives
//! the moved ones back when it is not kept ([`QuickCase::restore`]).

use super::{group_items, partners, Pass, QuickCase, HALVES_FROM};
use crate::formats::{view_history, Format};
use crate::terms::{pinned_index, turns, ItemKind, Turn};
use serde_json::Value;
use std::collections::BTreeSet;
use std::ops::Range;

/// Where an item sits: message index and index in its `contents`.
pub(super) type ItemAt = (usize, usize);

/// How a candidate that drops messages sets the budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Lower {
    /// As it was.
    Same,
    /// A message budget lower by as many messages as were dropped (when
    /// that leaves it ≥ 1), which keeps the cut of a last-N reducer where
    /// it was; not for a token budget.
    ByDropped,
    /// In proportion to what is kept: a message budget times kept / all
    /// messages, a token budget's `maxTokens` times kept / all costs (at
    /// least 1, lower than before, and not the `ByDropped` one).
    Scaled,
}

/// One candidate of a pass, as a change of the case it was listed for.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Edit {
    /// Drop the messages of these ranges (ascending, disjoint).
    Drop(Vec<Range<usize>>, Lower),
    /// Drop these content items; a message left with none goes.
    Items(Vec<ItemAt>, Lower),
    /// The message budget, or a token budget's `maxTokens`, set to this.
    Budget(u64),
    /// A token budget's cost of one message set to this.
    Cost(usize, u64),
    /// The members the kit does not interpret dropped everywhere.
    Strip,
    /// The string `key` of item (message, index) cut to this many bytes.
    Cut(ItemAt, &'static str, usize),
    /// The non-string result of item (message, index) made `""`.
    EmptyResult(ItemAt),
    /// Canonical names ([`QuickCase::canonical_names`]).
    Names,
}

/// The candidates of one pass over one case, made when asked for.
pub(super) enum EditList {
    /// Each turn dropped, then the same with the budget lowered
    /// ([`Lower::ByDropped`]).
    Turns(Vec<Turn>),
    /// Each of this many messages dropped, then the same lowered.
    Messages(usize),
    /// A list made at once.
    List(Vec<Edit>),
}

impl EditList {
    /// How many entries (some may be `None` when asked for).
    pub(super) fn len(&self) -> usize {
        match self {
            EditList::Turns(t) => 2 * t.len(),
            EditList::Messages(n) => 2 * n,
            EditList::List(l) => l.len(),
        }
    }

    /// Entry `k`, or `None` when it is the same candidate as the one
    /// before it (a turn or message equal to the one just before it).
    pub(super) fn get(&self, case: &QuickCase, k: usize) -> Option<Edit> {
        let lower = if k % 2 == 0 {
            Lower::Same
        } else {
            Lower::ByDropped
        };
        match self {
            EditList::Turns(t) => {
                let i = k / 2;
                let turn = &t[i].messages;
                if i > 0 {
                    let before = &t[i - 1].messages;
                    let adjacent = before.last().map(|&l| l + 1) == turn.first().copied();
                    if adjacent
                        && before.len() == turn.len()
                        && before
                            .iter()
                            .zip(turn)
                            .all(|(&a, &b)| case.messages[a] == case.messages[b])
                    {
                        return None;
                    }
                }
                Some(Edit::Drop(ranges_of(turn), lower))
            }
            EditList::Messages(_) => {
                let m = k / 2;
                if m > 0 && case.messages[m] == case.messages[m - 1] {
                    return None;
                }
                Some(Edit::Drop(std::iter::once(m..m + 1).collect(), lower))
            }
            EditList::List(l) => Some(l[k].clone()),
        }
    }
}

/// Ascending indices as ranges of consecutive ones.
pub(super) fn ranges_of(indices: &[usize]) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::new();
    for &i in indices {
        match out.last_mut() {
            Some(r) if r.end == i => r.end = i + 1,
            _ => out.push(i..i + 1),
        }
    }
    out
}

/// The messages a chunk of consecutive units spans, less the pinned one:
/// what [`Pass::Halves`] drops.
pub(super) fn chunk_drop(chunk: &[Range<usize>], pinned: Option<usize>) -> Vec<Range<usize>> {
    let (Some(first), Some(last)) = (chunk.first(), chunk.last()) else {
        return Vec::new();
    };
    let span = first.start..last.end;
    match pinned {
        Some(p) if span.contains(&p) => [span.start..p, p + 1..span.end]
            .into_iter()
            .filter(|r| !r.is_empty())
            .collect(),
        _ => vec![span],
    }
}

/// Where a candidate's message came from: its index in the case it was
/// made from, and whether it was moved out of it (else it is a changed
/// copy, and the original stayed).
#[derive(Clone, Copy, Debug)]
pub(super) struct Origin {
    index: usize,
    moved: bool,
}

/// A candidate made from a case ([`QuickCase::build`]): the case, and
/// where each of its messages came from.
pub(super) struct Built {
    pub(super) case: QuickCase,
    origin: Vec<Origin>,
}

/// What becomes of one message in a candidate.
enum Fate {
    Keep,
    Drop,
    Change(Value),
}

impl QuickCase {
    /// The candidates of `pass` for this case, in the order they are
    /// tried (module doc of [`super`]); [`Pass::Halves`] has its own
    /// walk ([`QuickCase::halving_units`]) and lists nothing here.
    pub(super) fn edits(&self, pass: Pass) -> EditList {
        let views = view_history(Format::Canonical, &self.messages).ok();
        let mut out = Vec::new();
        match (pass, &views) {
            (Pass::Budget, _) => out.extend(self.budget_edits()),
            (Pass::Halves, _) | (_, None) => {}
            (Pass::Turns, Some(views)) => return EditList::Turns(turns(views)),
            (Pass::Messages, Some(_)) => return EditList::Messages(self.messages.len()),
            (Pass::ToolGroups, Some(views)) => {
                let partner = partners(views);
                for kind in [ItemKind::Call, ItemKind::ApprovalRequest] {
                    for (m, v) in views.iter().enumerate() {
                        let group = group_items(views, &partner, m, v, kind);
                        if group.is_empty() {
                            continue;
                        }
                        // The whole message with its partners, then only
                        // its calls (requests) with theirs.
                        let mut whole = group.clone();
                        whole.extend(v.items.iter().filter_map(|i| i.elem.map(|e| (m, e))));
                        let whole: Vec<ItemAt> = whole
                            .into_iter()
                            .collect::<BTreeSet<_>>()
                            .into_iter()
                            .collect();
                        let group: Vec<ItemAt> = group
                            .into_iter()
                            .collect::<BTreeSet<_>>()
                            .into_iter()
                            .collect();
                        let same = whole == group;
                        out.push(Edit::Items(whole.clone(), Lower::Same));
                        out.push(Edit::Items(whole, Lower::ByDropped));
                        if !same {
                            out.push(Edit::Items(group.clone(), Lower::Same));
                            out.push(Edit::Items(group, Lower::ByDropped));
                        }
                    }
                }
            }
            (Pass::Items, Some(views)) => {
                let partner = partners(views);
                for (m, v) in views.iter().enumerate() {
                    for (k, item) in v.items.iter().enumerate() {
                        let mut drop: Vec<ItemAt> = item.elem.map(|e| (m, e)).into_iter().collect();
                        if matches!(item.kind, ItemKind::Call | ItemKind::ApprovalRequest) {
                            if let Some((pm, pk)) = partner[m][k] {
                                drop.extend(views[pm].items[pk].elem.map(|e| (pm, e)));
                            }
                        }
                        if !drop.is_empty() {
                            drop.sort_unstable();
                            out.push(Edit::Items(drop.clone(), Lower::Same));
                            out.push(Edit::Items(drop, Lower::ByDropped));
                        }
                    }
                }
            }
            (Pass::Strings, Some(_)) => {
                out.push(Edit::Strip);
                out.extend(self.cut_edits());
                out.extend(self.empty_result_edits());
            }
            (Pass::Names, Some(_)) => out.push(Edit::Names),
        }
        EditList::List(out)
    }

    /// The units [`Pass::Halves`] drops in chunks, each as the range of
    /// messages it spans: the turns when there are at least two and
    /// `by_turns` is set, else every message alone; none under
    /// [`HALVES_FROM`] messages. With them, the pinned message, which no
    /// turn holds though a turn's range may span it.
    pub(super) fn halving_units(&self, by_turns: bool) -> (Vec<Range<usize>>, Option<usize>) {
        if self.messages.len() < HALVES_FROM {
            return (Vec::new(), None);
        }
        let Ok(views) = view_history(Format::Canonical, &self.messages) else {
            return (Vec::new(), None);
        };
        let pinned = pinned_index(&views);
        if !by_turns {
            return ((0..self.messages.len()).map(|m| m..m + 1).collect(), pinned);
        }
        let t = turns(&views);
        if t.len() < 2 {
            return (Vec::new(), pinned);
        }
        let spans = t
            .iter()
            .filter_map(|t| Some(*t.messages.first()?..*t.messages.last()? + 1))
            .collect();
        (spans, pinned)
    }

    /// The budget pass's edits: the message budget 1, half and one less;
    /// a token budget's `maxTokens` likewise, and its largest cost halved.
    fn budget_edits(&self) -> Vec<Edit> {
        let mut out = Vec::new();
        let n = match &self.costs {
            None => self.budget as u64,
            Some(c) => c.max_tokens,
        };
        let mut seen = Vec::new();
        for b in [1, n / 2, n.saturating_sub(1)] {
            if b >= 1 && b < n && !seen.contains(&b) {
                seen.push(b);
                out.push(Edit::Budget(b));
            }
        }
        if let Some(c) = &self.costs {
            if let Some((i, &top)) = c.tokens.iter().enumerate().max_by_key(|(_, &t)| t) {
                if top > 1 {
                    out.push(Edit::Cost(i, top / 2));
                }
            }
        }
        out
    }

    /// One edit per non-empty text (`text` of a text item, string `result`
    /// of a result), longest first, at most 8: that string cut to its
    /// first half.
    fn cut_edits(&self) -> Vec<Edit> {
        let mut spots: Vec<(usize, ItemAt, &'static str)> = Vec::new();
        for (m, msg) in self.messages.iter().enumerate() {
            let Some(contents) = msg.get("contents").and_then(Value::as_array) else {
                continue;
            };
            for (e, item) in contents.iter().enumerate() {
                for key in ["text", "result"] {
                    if let Some(Value::String(s)) = item.get(key) {
                        if !s.is_empty() {
                            spots.push((s.len(), (m, e), key));
                        }
                    }
                }
            }
        }
        spots.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        spots
            .into_iter()
            .take(8)
            .map(|(len, at, key)| {
                let text = self.messages[at.0]["contents"][at.1][key]
                    .as_str()
                    .unwrap_or("");
                let mut cut = len / 2;
                while !text.is_char_boundary(cut) {
                    cut -= 1;
                }
                Edit::Cut(at, key, cut)
            })
            .collect()
    }

    /// One edit per result whose payload is not a string and takes more
    /// than two bytes of JSON (the first 8): that payload as `""`.
    fn empty_result_edits(&self) -> Vec<Edit> {
        let mut out = Vec::new();
        for (m, msg) in self.messages.iter().enumerate() {
            let Some(contents) = msg.get("contents").and_then(Value::as_array) else {
                continue;
            };
            for (e, item) in contents.iter().enumerate() {
                if item.get("$type").and_then(Value::as_str) != Some("functionResult") {
                    continue;
                }
                match item.get("result") {
                    Some(Value::String(_)) | None => {}
                    Some(v) if v.to_string().len() <= 2 => {}
                    Some(_) => out.push(Edit::EmptyResult((m, e))),
                }
                if out.len() == 8 {
                    return out;
                }
            }
        }
        out
    }

    /// The candidate `edit` makes of this case, the messages it keeps
    /// moved out of `self` (which then holds `null` in their place until
    /// [`QuickCase::restore`] or until the candidate replaces it); `None`
    /// when the edit changes nothing or its budget does not apply.
    pub(super) fn build(&mut self, edit: &Edit) -> Option<Built> {
        let n = self.messages.len();
        match edit {
            Edit::Drop(ranges, lower) => {
                let mut dropping = vec![false; n];
                for r in ranges {
                    dropping[r.start.min(n)..r.end.min(n)].fill(true);
                }
                self.build_with(
                    *lower,
                    |i, _| {
                        if dropping[i] {
                            Fate::Drop
                        } else {
                            Fate::Keep
                        }
                    },
                )
            }
            Edit::Items(items, lower) => {
                let mut k = 0;
                self.build_with(*lower, |m, msg| {
                    let start = k;
                    while k < items.len() && items[k].0 == m {
                        k += 1;
                    }
                    if start == k {
                        return Fate::Keep;
                    }
                    let gone = &items[start..k];
                    let mut msg = msg.clone();
                    if let Some(Value::Array(contents)) = msg.get_mut("contents") {
                        let mut e = 0;
                        contents.retain(|_| {
                            e += 1;
                            !gone.iter().any(|&(_, g)| g == e - 1)
                        });
                        if contents.is_empty() {
                            return Fate::Drop;
                        }
                    }
                    Fate::Change(msg)
                })
            }
            Edit::Budget(b) => {
                let mut c = self.build_with(Lower::Same, |_, _| Fate::Keep)?;
                match &mut c.case.costs {
                    None => c.case.budget = usize::try_from(*b).unwrap_or(usize::MAX),
                    Some(t) => t.max_tokens = *b,
                }
                Some(c)
            }
            Edit::Cost(i, cost) => {
                let mut c = self.build_with(Lower::Same, |_, _| Fate::Keep)?;
                if let Some(t) = &mut c.case.costs {
                    t.tokens[*i] = *cost;
                }
                Some(c)
            }
            Edit::Strip => self.build_changed(|msg| {
                let mut changed = false;
                let mut msg = msg.clone();
                if let Some(obj) = msg.as_object_mut() {
                    let before = obj.len();
                    // A message's server id (spec §14.7) is read by the
                    // profile rule `required-reasoning`: it stays.
                    obj.retain(|k, v| {
                        k == "role" || k == "contents" || (k == "id" && v.is_string())
                    });
                    changed |= obj.len() != before;
                    if let Some(Value::Array(items)) = obj.get_mut("contents") {
                        for item in items {
                            changed |= strip_item(item);
                        }
                    }
                }
                changed.then_some(msg)
            }),
            Edit::Cut((m, e), key, cut) => self.build_one(*m, |msg| {
                let s = &mut msg["contents"][*e][*key];
                let text = s.as_str()?;
                let short = text.get(..*cut)?.to_string();
                *s = Value::String(short);
                Some(())
            }),
            Edit::EmptyResult((m, e)) => self.build_one(*m, |msg| {
                msg["contents"][*e]["result"] = Value::String(String::new());
                Some(())
            }),
            Edit::Names => {
                let mut names = Names::default();
                self.build_changed(move |msg| {
                    let mut copy = msg.clone();
                    if let Some(Value::Array(items)) = copy.get_mut("contents") {
                        for item in items {
                            canonicalise(item, &mut names);
                        }
                    }
                    (copy != *msg).then_some(copy)
                })
            }
        }
    }

    /// The candidate with message `m` changed by `change` (a copy of it),
    /// every other one moved; `None` when `change` fails.
    fn build_one(
        &mut self,
        m: usize,
        change: impl FnOnce(&mut Value) -> Option<()>,
    ) -> Option<Built> {
        let mut msg = self.messages.get(m)?.clone();
        change(&mut msg)?;
        if msg == self.messages[m] {
            return None;
        }
        let mut msg = Some(msg);
        self.build_with(Lower::Same, |i, _| match (i == m, msg.take()) {
            (true, Some(v)) => Fate::Change(v),
            (_, back) => {
                msg = back;
                Fate::Keep
            }
        })
    }

    /// The candidate with each message that `change` changes (a changed
    /// copy) in place of it, every other one moved; `None` when it changes
    /// none.
    fn build_changed(&mut self, mut change: impl FnMut(&Value) -> Option<Value>) -> Option<Built> {
        let mut any = false;
        let built = self.build_with(Lower::Same, |_, msg| match change(msg) {
            Some(v) => {
                any = true;
                Fate::Change(v)
            }
            None => Fate::Keep,
        })?;
        if any {
            Some(built)
        } else {
            self.restore(built);
            None
        }
    }

    /// The candidate that `fate` says, message by message, with its budget
    /// as `lower` says; `None` (and `self` untouched) when the lowered
    /// budget does not apply.
    fn build_with(
        &mut self,
        lower: Lower,
        mut fate: impl FnMut(usize, &Value) -> Fate,
    ) -> Option<Built> {
        let n = self.messages.len();
        let fates: Vec<Fate> = self
            .messages
            .iter()
            .enumerate()
            .map(|(i, m)| fate(i, m))
            .collect();
        let dropped = fates.iter().filter(|f| matches!(f, Fate::Drop)).count();
        let mut budget = self.budget;
        let mut costs = self.costs.clone();
        let kept_cost = |costs: &crate::generate::Costs| -> u64 {
            costs
                .tokens
                .iter()
                .zip(&fates)
                .filter(|(_, f)| !matches!(f, Fate::Drop))
                .map(|(&t, _)| t)
                .sum()
        };
        match (lower, &mut costs) {
            (Lower::Same, _) => {}
            (Lower::ByDropped, None) if dropped > 0 && self.budget > dropped => {
                budget = self.budget - dropped;
            }
            (Lower::ByDropped, _) => return None,
            (Lower::Scaled, None) => {
                let b = self.budget * (n - dropped) / n.max(1);
                let by_dropped = self.budget.checked_sub(dropped);
                if b < 1 || b >= self.budget || Some(b) == by_dropped {
                    return None;
                }
                budget = b;
            }
            (Lower::Scaled, Some(c)) => {
                let all: u64 = c.tokens.iter().sum();
                let kept = kept_cost(c);
                let b = u64::try_from(
                    u128::from(c.max_tokens) * u128::from(kept) / u128::from(all.max(1)),
                )
                .unwrap_or(u64::MAX);
                if b < 1 || b >= c.max_tokens {
                    return None;
                }
                c.max_tokens = b;
            }
        }
        let mut messages = Vec::with_capacity(n - dropped);
        let mut origin = Vec::with_capacity(n - dropped);
        for (index, f) in fates.into_iter().enumerate() {
            match f {
                Fate::Drop => continue,
                Fate::Keep => {
                    messages.push(std::mem::take(&mut self.messages[index]));
                    origin.push(Origin { index, moved: true });
                }
                Fate::Change(v) => {
                    messages.push(v);
                    origin.push(Origin {
                        index,
                        moved: false,
                    });
                }
            }
        }
        if let Some(c) = &mut costs {
            c.tokens = origin.iter().map(|o| c.tokens[o.index]).collect();
        }
        Some(Built {
            case: QuickCase {
                messages,
                budget,
                allow_pending: self.allow_pending,
                costs,
            },
            origin,
        })
    }

    /// Puts back the messages `built` moved out of `self`.
    pub(super) fn restore(&mut self, built: Built) {
        for (v, o) in built.case.messages.into_iter().zip(built.origin) {
            if o.moved {
                self.messages[o.index] = v;
            }
        }
    }
}

/// The name of the `n`th distinct text (0-based): `a`…`z`, `ba`, `bb`…
fn letters(mut n: usize) -> String {
    let mut out = Vec::new();
    loop {
        out.push(b'a' + (n % 26) as u8);
        n /= 26;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).expect("ASCII letters")
}

/// The index of `s` in `seen`, added at the end when new.
fn index_of(seen: &mut Vec<String>, s: &str) -> usize {
    match seen.iter().position(|x| x == s) {
        Some(i) => i,
        None => {
            seen.push(s.to_string());
            seen.len() - 1
        }
    }
}

/// The names [`canonicalise`] has given so far: call ids, approval
/// request ids and texts, each in order of first use.
#[derive(Default)]
pub(super) struct Names {
    calls: Vec<String>,
    requests: Vec<String>,
    texts: Vec<String>,
}

/// The canonical name of `id` (`seen`: the ids named so far): `{stem}{k}`
/// for the k-th id in order of first use, ids equal but for ASCII letter
/// case sharing k, the second spelling `{STEM}{k}` (a bug that compares
/// ids without their case still shows), a third `{stem}{k}_{j}`.
fn id_name(seen: &mut Vec<String>, id: &str, stem: &str) -> String {
    let i = index_of(seen, id);
    let class = |s: &String| seen.iter().position(|x| x.eq_ignore_ascii_case(s));
    let first = class(&seen[i]).unwrap_or(i);
    let k = (0..=first).filter(|&x| class(&seen[x]) == Some(x)).count();
    match seen[..i]
        .iter()
        .filter(|x| x.eq_ignore_ascii_case(id))
        .count()
    {
        0 => format!("{stem}{k}"),
        1 => format!("{}{k}", stem.to_ascii_uppercase()),
        j => format!("{stem}{k}_{j}"),
    }
}

/// Canonical names inside one content item (and the items nested in it,
/// such as an approval request's call), see [`QuickCase::canonical_names`].
pub(super) fn canonicalise(item: &mut Value, names: &mut Names) {
    let Some(obj) = item.as_object_mut() else {
        return;
    };
    let tag = obj
        .get("$type")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let legacy = matches!(
        tag.as_str(),
        "functionApprovalRequest" | "functionApprovalResponse"
    );
    for (key, value) in obj.iter_mut() {
        match (key.as_str(), value) {
            ("callId", Value::String(id)) => *id = id_name(&mut names.calls, id, "c"),
            ("requestId", Value::String(id)) | ("id", Value::String(id))
                if key == "requestId" || legacy =>
            {
                *id = id_name(&mut names.requests, id, "r")
            }
            ("name", Value::String(name)) if tag == "functionCall" => *name = "f".into(),
            ("text", Value::String(t)) | ("result", Value::String(t)) if !t.is_empty() => {
                *t = letters(index_of(&mut names.texts, t));
            }
            (_, v @ Value::Object(_)) => canonicalise(v, names),
            _ => {}
        }
    }
}

/// Drops, in one item and the items nested in it, what
/// [`Pass::Strings`] drops: `additionalProperties`, a call's `arguments`,
/// an approval response's `reason`. Whether anything went.
fn strip_item(item: &mut Value) -> bool {
    let Some(obj) = item.as_object_mut() else {
        return false;
    };
    let tag = obj
        .get("$type")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let mut changed = obj.remove("additionalProperties").is_some();
    if tag == "functionCall" {
        changed |= obj.remove("arguments").is_some();
    }
    if matches!(
        tag.as_str(),
        "toolApprovalResponse" | "functionApprovalResponse"
    ) {
        changed |= obj.remove("reason").is_some();
    }
    for v in obj.values_mut() {
        changed |= strip_item(v);
    }
    changed
}
