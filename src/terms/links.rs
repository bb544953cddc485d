//! Links between neighbouring messages that some wire formats need (spec
//! §14.5–§14.6, which read the terms of §2 in those formats): call groups and attached
//! reasoning. Both are read from flags of the [`MessageView`] that only the
//! Responses format sets, so canonical, OpenAI Chat, Anthropic, Gemini and
//! Bedrock histories are judged exactly as in spec v1.
//!
//! Also here: [`window`], the views of what a selection becomes after
//! orphan removal and the reasoning rule, which the reference reducers and
//! the checker both need to ask a provider profile about a cut
//! ([`super::provider`]).

use super::history::History;
use super::message::{MessageView, Role};
use super::turns::pair;

/// What the links need to know of a history's messages: read from
/// per-message views or from a compact [`History`].
pub trait Linked {
    /// The number of messages.
    fn message_count(&self) -> usize;
    /// Whether message `i` is a call item (a Responses call).
    fn call_item(&self, i: usize) -> bool;
    /// Whether message `i` is a reasoning item.
    fn reasoning(&self, i: usize) -> bool;
    /// The role of message `i`.
    fn role_at(&self, i: usize) -> Role;
}

impl Linked for [MessageView] {
    fn message_count(&self) -> usize {
        self.len()
    }
    fn call_item(&self, i: usize) -> bool {
        self[i].call_item
    }
    fn reasoning(&self, i: usize) -> bool {
        self[i].reasoning
    }
    fn role_at(&self, i: usize) -> Role {
        self[i].role
    }
}

impl Linked for History {
    fn message_count(&self) -> usize {
        self.len()
    }
    fn call_item(&self, i: usize) -> bool {
        self.view(i).is_call_item()
    }
    fn reasoning(&self, i: usize) -> bool {
        self.view(i).is_reasoning()
    }
    fn role_at(&self, i: usize) -> Role {
        self.role(i)
    }
}

/// Whether message `i` continues a call group (spec §14.5, rule
/// `call-group`): it is a call item and so is the message right before it.
/// Such a message does not break `results-before-continuation`, is never a
/// legal `suffix` start and never the first message of a `turns` overflow
/// tail.
pub fn continues_call_group<L: Linked + ?Sized>(h: &L, i: usize) -> bool {
    i > 0 && i < h.message_count() && h.call_item(i) && h.call_item(i - 1)
}

/// Whether message `i` is a reasoning item attached to message `i + 1`
/// (spec §14.6, rule `reasoning-attachment`): it is a reasoning item,
/// a message follows it, and that message is not a `user` message (a
/// reasoning item precedes the model's own output; one directly before a
/// user message, or last, is attached to nothing).
pub fn attached_reasoning<L: Linked + ?Sized>(h: &L, i: usize) -> bool {
    i + 1 < h.message_count() && h.reasoning(i) && h.role_at(i + 1) != Role::User
}

/// Whether message `i` follows an attached reasoning item (so that a cut
/// starting at `i` would keep the item without its reasoning).
pub fn after_attached_reasoning<L: Linked + ?Sized>(h: &L, i: usize) -> bool {
    i > 0 && attached_reasoning(h, i - 1)
}

/// Whether a `suffix` run or a `turns` overflow tail may not begin at
/// message `i` because of a link (spec §14.5–§14.6): `i` continues a call
/// group, or follows an attached reasoning item.
pub fn linked_to_previous<L: Linked + ?Sized>(h: &L, i: usize) -> bool {
    continues_call_group(h, i) || after_attached_reasoning(h, i)
}

/// Drops, from a kept set, every attached reasoning item whose item is not
/// kept (spec §14.6): `kept[i]` becomes false for such an `i`, from the
/// end backwards, so that a chain of reasoning items goes with the item at
/// its end.
pub fn drop_detached_reasoning<L: Linked + ?Sized>(views: &L, kept: &mut [bool]) {
    for i in (0..views.message_count()).rev() {
        if kept[i] && attached_reasoning(views, i) && !kept[i + 1] {
            kept[i] = false;
        }
    }
}

/// The views of what `selection` (ascending message indices) becomes after
/// orphan removal (spec §3 step 6) and the reasoning rule (spec
/// §14.6), with the input index of each: a message loses its orphan results
/// and approval responses, and is dropped when none of its items would be
/// left or when one of them is not an element of its items array (an
/// OpenAI `tool` message, a Responses output item), as
/// [`strip_items`](crate::formats::strip_items) drops it.
pub fn window(views: &[MessageView], selection: &[usize]) -> Vec<(usize, MessageView)> {
    let partner = pair(views, selection);
    let mut kept = vec![false; views.len()];
    let mut stripped: Vec<Option<MessageView>> = vec![None; views.len()];
    for &m in selection {
        let v = &views[m];
        let orphan = |k: usize| v.items[k].kind.is_removable() && partner[m][k].is_none();
        let removed: Vec<usize> = (0..v.items.len()).filter(|&k| orphan(k)).collect();
        if removed.is_empty() {
            kept[m] = true;
            stripped[m] = Some(v.clone());
            continue;
        }
        if removed.len() >= v.items.len() || removed.iter().any(|&k| v.items[k].elem.is_none()) {
            continue;
        }
        let mut s = v.clone();
        s.items = (0..v.items.len())
            .filter(|k| !removed.contains(k))
            .map(|k| v.items[k].clone())
            .collect();
        kept[m] = true;
        stripped[m] = Some(s);
    }
    drop_detached_reasoning(views, &mut kept);
    selection
        .iter()
        .filter(|&&m| kept[m])
        .map(|&m| (m, stripped[m].take().expect("kept messages were stripped")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{view_history, Format};
    use serde_json::json;

    fn responses(h: serde_json::Value) -> Vec<MessageView> {
        view_history(Format::Responses, h.as_array().unwrap()).unwrap()
    }

    #[test]
    fn parallel_call_items_form_one_group_and_reasoning_attaches_forward() {
        let v = responses(json!([
            {"role": "user", "content": "q"},
            {"type": "reasoning", "id": "rs_1", "summary": []},
            {"type": "function_call", "call_id": "a", "name": "f", "arguments": "{}"},
            {"type": "function_call", "call_id": "b", "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "a", "output": "1"},
            {"type": "function_call_output", "call_id": "b", "output": "2"},
            {"type": "reasoning", "id": "rs_2", "summary": []},
            {"role": "user", "content": "next"}
        ]));
        let groups: Vec<usize> = (0..v.len())
            .filter(|&i| continues_call_group(&v[..], i))
            .collect();
        assert_eq!(groups, [3]);
        let attached: Vec<usize> = (0..v.len())
            .filter(|&i| attached_reasoning(&v[..], i))
            .collect();
        assert_eq!(attached, [1]);
        let linked: Vec<usize> = (0..v.len())
            .filter(|&i| linked_to_previous(&v[..], i))
            .collect();
        assert_eq!(linked, [2, 3]);
        // A cut keeping call b's output but not the reasoning's call: the
        // output of a is an orphan and goes, the reasoning goes with call a.
        let w: Vec<usize> = window(&v, &[1, 3, 4, 5])
            .into_iter()
            .map(|(m, _)| m)
            .collect();
        assert_eq!(w, [3, 5]);
    }

    #[test]
    fn canonical_views_have_no_links() {
        let v = view_history(
            Format::Canonical,
            json!([
                {"role": "assistant", "contents": [{"$type": "functionCall", "callId": "a"}]},
                {"role": "assistant", "contents": [{"$type": "functionCall", "callId": "b"}]}
            ])
            .as_array()
            .unwrap(),
        )
        .unwrap();
        assert!(!linked_to_previous(&v[..], 1));
        assert!(!attached_reasoning(&v[..], 0));
    }
}
