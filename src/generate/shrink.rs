//! Shrinking: [`QuickCase`], a generated (history, budget) pair with a
//! structural, greedy shrink ([`QuickCase::minimize`]) that certify uses to
//! turn a failure into a minimal counterexample, and that implements
//! [`quickcheck::Arbitrary`] for property tests.
//!
//! `arbitrary` draws bytes from quickcheck's [`Gen`] (`size × 32` of them)
//! and feeds them to [`crate::generate::history`] under
//! [`Config::everything`] (swarm on).
//!
//! Shrinking runs structural passes ([`Pass`]) in this order: drop whole
//! turns; drop tool groups (a call message with all its results, or the
//! calls of one message with their results; likewise approval flows);
//! drop single messages; drop content items (a call or request goes with
//! its result or response); lower the budget; shorten strings (texts and
//! string results halved, other results made `""`, call arguments and
//! members the kit does not interpret dropped); canonicalise names (call
//! ids `c1`, `c2`… in order of first use, so a reused id stays reused,
//! and ids that differ only in case stay so, `c1` and `C1`;
//! approval request ids `r1`, `r2`…; texts and string results `a`, `b`…
//! by distinct value; tool names `f`).
//! Every candidate that drops messages comes again with the budget lower
//! by as many, which keeps the cut of a last-N reducer where it was.
//! A case with a token budget (protocol 2, [`QuickCase::costs`]) keeps one
//! cost per message through every candidate (a dropped message takes its
//! cost with it), lowers `maxTokens` instead of the message budget, and
//! also tries its largest cost halved.
//! [`QuickCase::minimize`] repeats the passes until none changes the case
//! (a fixed point). Every candidate passes the validator (candidates that
//! do not are filtered out), so a shrunk counterexample is still a valid
//! history. A broken history (policy `repair`, spec §17) shrinks with
//! [`QuickCase::minimize_broken`] instead, whose candidates all break a
//! rule: the breakage is kept.
//!
//! # Examples
//!
//! ```
//! use reducer_kit::generate::shrink::QuickCase;
//! fn budget_is_positive(c: QuickCase) -> bool { c.budget >= 1 }
//! quickcheck::QuickCheck::new().tests(50).quickcheck(budget_is_positive as fn(QuickCase) -> bool);
//! ```

use super::{history, Config, Costs, GeneratedCase};
use crate::formats::{view_history, Format};
use crate::terms::{pair, turns, ItemKind, MessageView};
use crate::validate::{validate, Options};
use quickcheck::{Arbitrary, Gen};
use serde_json::Value;
use std::collections::BTreeSet;
use std::fmt;

/// A valid canonical history with a budget, for quickcheck properties.
#[derive(Clone, PartialEq)]
pub struct QuickCase {
    /// The history, canonical format; valid under `allow_pending`.
    pub messages: Vec<Value>,
    /// `maxMessages`, ≥ 1.
    pub budget: usize,
    /// Whether pending calls and requests in the newest turn are allowed.
    pub allow_pending: bool,
    /// A token budget (protocol 2) that replaces `budget`: one cost per
    /// message, `maxTokens`, `countPinned` (and a summary's cost).
    pub costs: Option<Costs>,
}

impl fmt::Debug for QuickCase {
    /// Compact JSON, `{"maxMessages": .., "allowPending": .., "messages": [..]}`
    /// (with a token budget `maxTokens`, `tokens` and `countPinned` in place
    /// of `maxMessages`), so a failing case can be pasted into a request or
    /// a case file.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = match &self.costs {
            None => serde_json::json!({
                "maxMessages": self.budget,
                "allowPending": self.allow_pending,
                "messages": self.messages,
            }),
            Some(c) => serde_json::json!({
                "maxTokens": c.max_tokens,
                "tokens": c.tokens,
                "countPinned": c.count_pinned,
                "allowPending": self.allow_pending,
                "messages": self.messages,
            }),
        };
        write!(f, "{v}")
    }
}

impl From<GeneratedCase> for QuickCase {
    fn from(g: GeneratedCase) -> Self {
        QuickCase {
            messages: g.messages,
            budget: g.budget,
            allow_pending: g.allow_pending,
            costs: g.costs,
        }
    }
}

/// Where an item sits: message index and index in its `contents`.
type ItemAt = (usize, usize);

/// Most rounds of all passes [`QuickCase::minimize`] runs.
pub const MAX_ROUNDS: usize = 16;

/// A structural shrinking pass, in the order [`QuickCase::minimize`] runs
/// them (module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    /// Drop one whole turn.
    Turns,
    /// Drop a call message with all its results, or the calls (approval
    /// requests) of one message with their results (responses).
    ToolGroups,
    /// Drop one message.
    Messages,
    /// Drop one content item (a call or request with its partner).
    Items,
    /// Lower the budget: 1, half, one less.
    Budget,
    /// Shorten strings: uninterpreted members and call arguments dropped,
    /// one text or string result halved (the 8 longest), one other result
    /// made `""` (the first 8).
    Strings,
    /// Canonical names ([`QuickCase::canonical_names`]).
    Names,
}

impl Pass {
    /// Every pass, in order.
    pub const ALL: [Pass; 7] = [
        Pass::Turns,
        Pass::ToolGroups,
        Pass::Messages,
        Pass::Items,
        Pass::Budget,
        Pass::Strings,
        Pass::Names,
    ];
}

/// Every item's partner (result of a call, response of a request).
fn partners(views: &[MessageView]) -> Vec<Vec<Option<(usize, usize)>>> {
    let all: Vec<usize> = (0..views.len()).collect();
    pair(views, &all)
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
fn canonicalise(item: &mut Value, names: &mut Names) {
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

/// The names [`canonicalise`] has given so far: call ids, approval
/// request ids and texts, each in order of first use.
#[derive(Default)]
struct Names {
    calls: Vec<String>,
    requests: Vec<String>,
    texts: Vec<String>,
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

impl QuickCase {
    /// Whether the history passes the validator under `allow_pending`.
    pub fn is_valid(&self) -> bool {
        view_history(Format::Canonical, &self.messages).is_ok_and(|views| {
            validate(
                &views,
                Options {
                    allow_pending: self.allow_pending,
                },
            )
            .is_empty()
        })
    }

    /// The shrink candidates of every pass but [`Pass::Names`], in pass
    /// order (what quickcheck's `shrink` yields): finite, deterministic,
    /// each strictly smaller than `self` (fewer messages, fewer items,
    /// shorter text or a lower budget, nothing larger) and valid.
    pub fn shrink_candidates(&self) -> Vec<QuickCase> {
        Pass::ALL
            .iter()
            .filter(|&&p| p != Pass::Names)
            .flat_map(|&p| self.candidates(p))
            .collect()
    }

    /// Whether the history is readable and breaks a validator rule with
    /// pending calls not allowed: a broken history, what policy `repair`
    /// is certified on (spec §17.1).
    pub fn is_broken(&self) -> bool {
        view_history(Format::Canonical, &self.messages).is_ok_and(|views| {
            !validate(
                &views,
                Options {
                    allow_pending: false,
                },
            )
            .is_empty()
        })
    }

    /// The candidates of one pass, in a fixed order: each differs from
    /// `self` and is valid.
    pub fn candidates(&self, pass: Pass) -> Vec<QuickCase> {
        self.candidates_that(pass, QuickCase::is_valid)
    }

    /// The candidates of one pass that are still broken
    /// ([`QuickCase::is_broken`]), in the same order: what
    /// [`QuickCase::minimize_broken`] tries.
    pub fn broken_candidates(&self, pass: Pass) -> Vec<QuickCase> {
        self.candidates_that(pass, QuickCase::is_broken)
    }

    /// The candidates of one pass that differ from `self` and for which
    /// `keep` holds.
    fn candidates_that(&self, pass: Pass, keep: fn(&QuickCase) -> bool) -> Vec<QuickCase> {
        let mut out = Vec::new();
        let views = view_history(Format::Canonical, &self.messages).ok();
        match (pass, &views) {
            (Pass::Budget, _) => out.extend(self.lower_budgets()),
            (_, None) => {}
            (Pass::Turns, Some(views)) => {
                for t in turns(views) {
                    out.extend(self.and_lower_budget(self.without_messages(&t.messages)));
                }
            }
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
                        out.extend(self.and_lower_budget(self.without_items(&whole)));
                        out.extend(self.and_lower_budget(self.without_items(&group)));
                    }
                }
            }
            (Pass::Messages, Some(views)) => {
                for m in 0..views.len() {
                    out.extend(self.and_lower_budget(self.without_messages(&[m])));
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
                            out.extend(self.and_lower_budget(self.without_items(&drop)));
                        }
                    }
                }
            }
            (Pass::Strings, Some(_)) => {
                out.extend(self.without_extra_members());
                out.extend(self.shorter_texts());
                out.extend(self.string_results());
            }
            (Pass::Names, Some(_)) => out.push(self.canonical_names()),
        }
        let mut seen: Vec<&QuickCase> = Vec::new();
        let mut kept = Vec::with_capacity(out.len());
        for c in &out {
            if c != self && !seen.contains(&c) && keep(c) {
                seen.push(c);
                kept.push(c.clone());
            }
        }
        kept
    }

    /// Greedy shrinking to a fixed point: each pass ([`Pass::ALL`], in
    /// order) takes its first candidate for which `fails` holds, goes on
    /// from it (with the same pass, from the same position), and ends when
    /// no candidate of the pass fails; the passes are repeated until a
    /// round of all of them changes nothing (at most [`MAX_ROUNDS`]).
    /// Returns a case for which `fails` holds if it held for `self`. A
    /// `fails` that starts answering `false` (a try or time budget spent)
    /// ends the shrinking within one round.
    pub fn minimize(self, fails: impl FnMut(&QuickCase) -> bool) -> QuickCase {
        self.minimize_with(QuickCase::candidates, fails)
    }

    /// [`QuickCase::minimize`] of a broken history: every candidate is
    /// broken too ([`QuickCase::broken_candidates`]), so the shrunk case
    /// keeps a breakage (policy `repair`, spec §17).
    pub fn minimize_broken(self, fails: impl FnMut(&QuickCase) -> bool) -> QuickCase {
        self.minimize_with(QuickCase::broken_candidates, fails)
    }

    fn minimize_with(
        self,
        candidates: fn(&QuickCase, Pass) -> Vec<QuickCase>,
        mut fails: impl FnMut(&QuickCase) -> bool,
    ) -> QuickCase {
        let mut current = self;
        for _ in 0..MAX_ROUNDS {
            let mut changed = false;
            for pass in Pass::ALL {
                let mut from = 0;
                loop {
                    let found = candidates(&current, pass)
                        .into_iter()
                        .enumerate()
                        .skip(from)
                        .find(|(_, c)| fails(c));
                    match found {
                        Some((k, c)) => {
                            current = c;
                            from = k;
                            changed = true;
                        }
                        None => break,
                    }
                }
            }
            if !changed {
                break;
            }
        }
        current
    }

    /// The budget pass: the message budget 1, half and one less; a token
    /// budget's `maxTokens` likewise, and its largest cost halved.
    fn lower_budgets(&self) -> Vec<QuickCase> {
        let mut out: Vec<QuickCase> = Vec::new();
        match &self.costs {
            None => {
                for b in [1, self.budget / 2, self.budget.saturating_sub(1)] {
                    if b >= 1
                        && b < self.budget
                        && !out
                            .iter()
                            .any(|c| c.budget == b && c.messages == self.messages)
                    {
                        out.push(QuickCase {
                            budget: b,
                            ..self.clone()
                        });
                    }
                }
            }
            Some(c) => {
                let n = c.max_tokens;
                let mut seen = Vec::new();
                for b in [1, n / 2, n.saturating_sub(1)] {
                    if b >= 1 && b < n && !seen.contains(&b) {
                        seen.push(b);
                        out.push(QuickCase {
                            costs: Some(Costs {
                                max_tokens: b,
                                ..c.clone()
                            }),
                            ..self.clone()
                        });
                    }
                }
                if let Some((i, &top)) = c.tokens.iter().enumerate().max_by_key(|(_, &t)| t) {
                    if top > 1 {
                        let mut tokens = c.tokens.clone();
                        tokens[i] = top / 2;
                        out.push(QuickCase {
                            costs: Some(Costs {
                                tokens,
                                ..c.clone()
                            }),
                            ..self.clone()
                        });
                    }
                }
            }
        }
        out
    }

    /// `smaller` (a candidate of `self`), then, when it has fewer messages,
    /// the same with the budget lower by as many.
    fn and_lower_budget(&self, smaller: QuickCase) -> Vec<QuickCase> {
        let dropped = self.messages.len().saturating_sub(smaller.messages.len());
        let lowered = (dropped > 0)
            .then(|| smaller.clone().lower_budget(dropped))
            .flatten();
        std::iter::once(smaller).chain(lowered).collect()
    }

    /// One candidate per result whose payload is not a string and takes
    /// more than two bytes of JSON (the first 8): that payload as `""`.
    fn string_results(&self) -> Vec<QuickCase> {
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
                    Some(_) => {
                        let mut c = self.clone();
                        c.messages[m]["contents"][e]["result"] = Value::String(String::new());
                        out.push(c);
                    }
                }
            }
        }
        out.truncate(8);
        out
    }

    /// The case with the budget `by` lower, when that leaves it ≥ 1 (not
    /// for a token budget, which the dropped messages' costs lower).
    fn lower_budget(mut self, by: usize) -> Option<QuickCase> {
        (self.costs.is_none() && self.budget > by).then(|| {
            self.budget -= by;
            self
        })
    }

    /// Without the members the kit does not interpret (on messages,
    /// anything but `role` and `contents`; on items `additionalProperties`)
    /// and without call `arguments` and approval `reason`s, nested items
    /// included: one candidate, if any was there.
    fn without_extra_members(&self) -> Option<QuickCase> {
        let mut c = self.clone();
        let mut changed = false;
        for msg in &mut c.messages {
            let Some(obj) = msg.as_object_mut() else {
                continue;
            };
            let before = obj.len();
            obj.retain(|k, _| k == "role" || k == "contents");
            changed |= obj.len() != before;
            if let Some(Value::Array(items)) = obj.get_mut("contents") {
                for item in items {
                    changed |= strip_item(item);
                }
            }
        }
        changed.then_some(c)
    }

    /// The case with canonical names: every `callId` renamed `c1`, `c2`…
    /// in order of first use (one name per distinct id, so reused ids stay
    /// reused), every approval request id (`requestId`, or `id` of the
    /// older items) `r1`, `r2`… likewise, every call's `name` `f`, and
    /// every non-empty text and
    /// string result `a`, `b`… by distinct value in order of first use
    /// (empty ones stay empty).
    pub fn canonical_names(&self) -> QuickCase {
        let mut c = self.clone();
        let mut names = Names::default();
        for msg in &mut c.messages {
            if let Some(Value::Array(items)) = msg.get_mut("contents") {
                for item in items {
                    canonicalise(item, &mut names);
                }
            }
        }
        c
    }
    fn without_messages(&self, drop: &[usize]) -> QuickCase {
        QuickCase {
            messages: self
                .messages
                .iter()
                .enumerate()
                .filter(|(i, _)| !drop.contains(i))
                .map(|(_, m)| m.clone())
                .collect(),
            costs: self.costs_without(|i| drop.contains(&i)),
            ..self.clone()
        }
    }

    /// The costs less those of the messages `dropped` says.
    fn costs_without(&self, dropped: impl Fn(usize) -> bool) -> Option<Costs> {
        self.costs.as_ref().map(|c| Costs {
            tokens: c
                .tokens
                .iter()
                .enumerate()
                .filter(|(i, _)| !dropped(*i))
                .map(|(_, &t)| t)
                .collect(),
            ..c.clone()
        })
    }

    /// Removes the content items at `items`; a message left with no item
    /// is dropped.
    fn without_items(&self, items: &[ItemAt]) -> QuickCase {
        let set: BTreeSet<ItemAt> = items.iter().copied().collect();
        let mut messages = Vec::with_capacity(self.messages.len());
        let mut gone = Vec::new();
        for (m, msg) in self.messages.iter().enumerate() {
            if !set.iter().any(|&(sm, _)| sm == m) {
                messages.push(msg.clone());
                continue;
            }
            let mut msg = msg.clone();
            if let Some(Value::Array(contents)) = msg.get_mut("contents") {
                let mut e = 0;
                contents.retain(|_| {
                    e += 1;
                    !set.contains(&(m, e - 1))
                });
                if contents.is_empty() {
                    gone.push(m);
                    continue;
                }
            }
            messages.push(msg);
        }
        QuickCase {
            messages,
            costs: self.costs_without(|i| gone.contains(&i)),
            ..self.clone()
        }
    }

    /// One candidate per non-empty text (`text` of a text item, string
    /// `result` of a result), longest first, at most 8: that string cut to
    /// its first half.
    fn shorter_texts(&self) -> Vec<QuickCase> {
        let mut spots: Vec<(usize, usize, usize, &'static str)> = Vec::new();
        for (m, msg) in self.messages.iter().enumerate() {
            let Some(contents) = msg.get("contents").and_then(Value::as_array) else {
                continue;
            };
            for (e, item) in contents.iter().enumerate() {
                for key in ["text", "result"] {
                    if let Some(Value::String(s)) = item.get(key) {
                        if !s.is_empty() {
                            spots.push((s.len(), m, e, key));
                        }
                    }
                }
            }
        }
        spots.sort_by(|a, b| b.0.cmp(&a.0).then((a.1, a.2).cmp(&(b.1, b.2))));
        spots
            .into_iter()
            .take(8)
            .map(|(len, m, e, key)| {
                let mut c = self.clone();
                let s = &mut c.messages[m]["contents"][e][key];
                let text = s.as_str().expect("a string was found here").to_string();
                let mut cut = len / 2;
                while !text.is_char_boundary(cut) {
                    cut -= 1;
                }
                *s = Value::String(text[..cut].to_string());
                c
            })
            .collect()
    }
}

/// The items of message `m` of `kind` (calls or approval requests) and
/// their partners (results or responses), as (message, contents index).
fn group_items(
    views: &[MessageView],
    partner: &[Vec<Option<(usize, usize)>>],
    m: usize,
    v: &MessageView,
    kind: ItemKind,
) -> Vec<ItemAt> {
    let mut out = Vec::new();
    for (k, item) in v.items.iter().enumerate() {
        if item.kind != kind {
            continue;
        }
        if let Some(e) = item.elem {
            out.push((m, e));
        }
        if let Some((pm, pk)) = partner[m][k] {
            if let Some(e) = views[pm].items[pk].elem {
                out.push((pm, e));
            }
        }
    }
    out
}

impl Arbitrary for QuickCase {
    fn arbitrary(g: &mut Gen) -> Self {
        let bytes: Vec<u8> = (0..g.size().max(1) * 32)
            .map(|_| u8::arbitrary(g))
            .collect();
        let case = history(
            &mut arbitrary::Unstructured::new(&bytes),
            &Config::everything(),
        )
        .expect("the generator never fails");
        case.into()
    }

    fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
        Box::new(self.shrink_candidates().into_iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tool_group_goes_with_all_its_results() {
        let c = QuickCase {
            messages: serde_json::from_value(json!([
                {"role": "user", "contents": [{"$type": "text", "text": "q"}]},
                {"role": "assistant", "contents": [
                    {"$type": "text", "text": "t"},
                    {"$type": "functionCall", "callId": "a", "name": "F"},
                    {"$type": "functionCall", "callId": "b", "name": "F"}]},
                {"role": "tool", "contents": [{"$type": "functionResult", "callId": "b", "result": "1"}]},
                {"role": "tool", "contents": [{"$type": "functionResult", "callId": "a", "result": "2"}]}
            ]))
            .unwrap(),
            budget: 4,
            allow_pending: false,
            costs: None,
        };
        let cands = c.shrink_candidates();
        let without_group = json!([
            {"role": "user", "contents": [{"$type": "text", "text": "q"}]},
            {"role": "assistant", "contents": [{"$type": "text", "text": "t"}]}
        ]);
        assert!(cands
            .iter()
            .any(|k| Value::Array(k.messages.clone()) == without_group && k.budget == 4));
        // Dropping one tool message alone would orphan a call: never offered.
        for lone in [2, 3] {
            let orphaned = c.without_messages(&[lone]);
            assert!(cands.iter().all(|k| k.messages != orphaned.messages));
        }
        assert!(cands.iter().any(|k| k.messages == c.messages[1..]));
        assert!(cands.iter().any(|k| k.budget == 2) && cands.iter().any(|k| k.budget == 1));
        assert!(cands.iter().all(QuickCase::is_valid));

        // With a token budget every candidate keeps one cost per message.
        let t = QuickCase {
            costs: Some(Costs {
                tokens: vec![2, 1, 30, 40],
                max_tokens: 50,
                count_pinned: false,
                summary_tokens: 1,
            }),
            ..c
        };
        let cands = t.shrink_candidates();
        for k in &cands {
            assert_eq!(
                k.costs.as_ref().unwrap().tokens.len(),
                k.messages.len(),
                "{k:?}"
            );
        }
        let without_group = cands
            .iter()
            .find(|k| Value::Array(k.messages.clone()) == without_group)
            .unwrap();
        assert_eq!(without_group.costs.as_ref().unwrap().tokens, vec![2, 1]);
        let limits: Vec<u64> = cands
            .iter()
            .filter(|k| k.messages == t.messages)
            .map(|k| k.costs.as_ref().unwrap().max_tokens)
            .collect();
        assert_eq!(limits, vec![1, 25, 49, 50]);
        assert!(cands
            .iter()
            .any(|k| k.costs.as_ref().unwrap().tokens == vec![2, 1, 30, 20]));
    }
}
