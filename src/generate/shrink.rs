//! Shrinking: [`QuickCase`], a generated (history, budget) pair with a
//! structural, greedy shrink ([`QuickCase::minimize`]) that certify uses to
//! turn a failure into a minimal counterexample, and that implements
//! [`quickcheck::Arbitrary`] for property tests.
//!
//! `arbitrary` draws bytes from quickcheck's [`Gen`] (`size × 32` of them)
//! and feeds them to [`crate::generate::history`] under
//! [`Config::everything`] (swarm on). `shrink` yields, in this order,
//! the case without one turn, without one tool group (the calls of one
//! message with all their results), without one approval flow (the
//! requests of one message with their responses), without one message,
//! without one call (request) and its result (response), with one text
//! halved, and with a lower budget. Every candidate is strictly
//! smaller and passes the validator (candidates that do not are filtered
//! out), so a shrunk counterexample is still a valid history.
//!
//! # Examples
//!
//! ```
//! use reducer_kit::generate::shrink::QuickCase;
//! fn budget_is_positive(c: QuickCase) -> bool { c.budget >= 1 }
//! quickcheck::QuickCheck::new().tests(50).quickcheck(budget_is_positive as fn(QuickCase) -> bool);
//! ```

use super::{history, Config, GeneratedCase};
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
}

impl fmt::Debug for QuickCase {
    /// Compact JSON, `{"maxMessages": .., "allowPending": .., "messages": [..]}`,
    /// so a failing case can be pasted into a request or a case file.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = serde_json::json!({
            "maxMessages": self.budget,
            "allowPending": self.allow_pending,
            "messages": self.messages,
        });
        write!(f, "{v}")
    }
}

impl From<GeneratedCase> for QuickCase {
    fn from(g: GeneratedCase) -> Self {
        QuickCase {
            messages: g.messages,
            budget: g.budget,
            allow_pending: g.allow_pending,
        }
    }
}

/// Where an item sits: message index and index in its `contents`.
type ItemAt = (usize, usize);

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

    /// The shrink candidates, in the order of the module doc: finite,
    /// deterministic, each strictly smaller than `self` (fewer messages,
    /// fewer items, shorter text or a lower budget, nothing larger) and
    /// valid.
    pub fn shrink_candidates(&self) -> Vec<QuickCase> {
        let mut out = Vec::new();
        if let Ok(views) = view_history(Format::Canonical, &self.messages) {
            let all: Vec<usize> = (0..views.len()).collect();
            let partner = pair(&views, &all);
            for t in turns(&views) {
                out.push(self.without_messages(&t.messages));
            }
            for kind in [ItemKind::Call, ItemKind::ApprovalRequest] {
                for (m, v) in views.iter().enumerate() {
                    let group: Vec<ItemAt> = group_items(&views, &partner, m, v, kind);
                    if !group.is_empty() {
                        out.push(self.without_items(&group));
                    }
                }
            }
            for m in 0..views.len() {
                out.push(self.without_messages(&[m]));
            }
            for (m, v) in views.iter().enumerate() {
                for (k, item) in v.items.iter().enumerate() {
                    if matches!(item.kind, ItemKind::Call | ItemKind::ApprovalRequest) {
                        let mut pair_items: Vec<ItemAt> =
                            item.elem.map(|e| (m, e)).into_iter().collect();
                        if let Some((pm, pk)) = partner[m][k] {
                            pair_items.extend(views[pm].items[pk].elem.map(|e| (pm, e)));
                        }
                        out.push(self.without_items(&pair_items));
                    }
                }
            }
            out.extend(self.shorter_texts());
        }
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
        out.retain(QuickCase::is_valid);
        out
    }

    /// Greedy shrinking: takes the first candidate for which `fails` holds,
    /// starts again from it, and stops when no candidate fails. Returns a
    /// case for which `fails` holds if it held for `self`.
    pub fn minimize(mut self, mut fails: impl FnMut(&QuickCase) -> bool) -> QuickCase {
        'restart: loop {
            for c in self.shrink_candidates() {
                if fails(&c) {
                    self = c;
                    continue 'restart;
                }
            }
            return self;
        }
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
            ..self.clone()
        }
    }

    /// Removes the content items at `items`; a message left with no item
    /// is dropped.
    fn without_items(&self, items: &[ItemAt]) -> QuickCase {
        let set: BTreeSet<ItemAt> = items.iter().copied().collect();
        let mut messages = Vec::with_capacity(self.messages.len());
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
                    continue;
                }
            }
            messages.push(msg);
        }
        QuickCase {
            messages,
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
    }
}
