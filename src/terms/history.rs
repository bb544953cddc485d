//! The compact view of a whole history (spec §1–§2), built once and
//! read by index: every message classified into a [`View`] (role, flags,
//! a range of items), every content item flattened into one `Vec` of
//! [`ItemRef`] (kind, interned id, element index, message), and the ids
//! interned to `u32` symbols so that pairing is a couple of array lookups per
//! item. Reducers, the validator and the checker work on a [`History`]; the
//! per-message [`MessageView`] stays as the readable form of one message.
//!
//! Building a history allocates a few growing vectors and one arena for the
//! ids, never per message or per item. A history is read from wire JSON by
//! [`crate::formats::read_history`] (or from views by
//! [`History::from_views`]).
//!
//! Extending the view: a new per-message fact is a new [`Flags`] bit set in
//! [`HistoryBuilder::end_message`] (or by a format reader), a new item kind
//! is a new [`ItemKind`]; per-message numbers that later budgets need (a
//! token cost, say) belong in a vector beside `views`, indexed the same way.

use super::message::{Item, ItemKind, MessageView, Role};
use std::hash::BuildHasher;
use std::ops::Range;

/// An interned call or request id (an index into the history's id table).
pub type Sym = u32;

/// The symbol of "no id" (text and opaque items).
pub const NO_SYM: Sym = u32::MAX;

/// "No index": an item that is not an element of the items array, or an item
/// without a partner.
pub const NONE: u32 = u32::MAX;

/// One content item of a [`History`]: 16 bytes, no allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ItemRef {
    /// What the item is.
    pub kind: ItemKind,
    /// Its interned call / request id ([`History::id`]), or [`NO_SYM`].
    pub id: Sym,
    /// Index of the item in the message's items array
    /// ([`Format::items_key`](crate::formats::Format::items_key)), or
    /// [`NONE`] when it is not an element of it.
    pub elem: u32,
    /// The message the item belongs to.
    pub message: u32,
}

impl ItemRef {
    /// The element index, `None` for an item that is not an element of the
    /// items array.
    pub fn elem(&self) -> Option<usize> {
        (self.elem != NONE).then_some(self.elem as usize)
    }
}

/// Per-message facts precomputed when a message is classified (semantics
/// §2), as bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flags(u8);

impl Flags {
    /// A user message that is not approval-only: a turn start (§2).
    pub const TURN_START: Flags = Flags(1);
    /// A user message with at least one item, every one an approval
    /// response (§2).
    pub const APPROVAL_ONLY: Flags = Flags(1 << 1);
    /// At least one item is a result or an approval response (what orphan
    /// removal may take out, §3 step 6).
    pub const HAS_REMOVABLE: Flags = Flags(1 << 2);
    /// The message could not be read (only in histories read leniently:
    /// [`HistoryBuilder::push_unreadable`]); it has no items.
    pub const UNREADABLE: Flags = Flags(1 << 3);
    /// A call item of a format whose parallel calls are separate messages
    /// (Responses): consecutive ones form one call group (spec §14.5).
    pub const CALL_ITEM: Flags = Flags(1 << 4);
    /// A Responses `reasoning` item, attached to the item after it (spec
    /// §14.6).
    pub const REASONING: Flags = Flags(1 << 5);

    /// The flags of a message's links (spec §14.5–§14.6): `call_item`
    /// and `reasoning` as bits.
    pub fn links(call_item: bool, reasoning: bool) -> Flags {
        let mut f = Flags::default();
        if call_item {
            f.insert(Flags::CALL_ITEM);
        }
        if reasoning {
            f.insert(Flags::REASONING);
        }
        f
    }

    /// Whether every bit of `other` is set.
    pub fn contains(self, other: Flags) -> bool {
        self.0 & other.0 == other.0
    }

    fn insert(&mut self, other: Flags) {
        self.0 |= other.0;
    }
}

/// The compact view of one message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct View {
    /// The interpreted role.
    pub role: Role,
    /// Facts about the message.
    pub flags: Flags,
    items_start: u32,
    items_end: u32,
}

impl View {
    /// A user message that is not approval-only (spec §2).
    pub fn is_turn_start(&self) -> bool {
        self.flags.contains(Flags::TURN_START)
    }

    /// A user message whose items are all approval responses (§2).
    pub fn is_approval_only(&self) -> bool {
        self.flags.contains(Flags::APPROVAL_ONLY)
    }

    /// Whether any item is a result or an approval response.
    pub fn has_removable(&self) -> bool {
        self.flags.contains(Flags::HAS_REMOVABLE)
    }

    /// Whether the message could not be read (lenient histories only).
    pub fn is_unreadable(&self) -> bool {
        self.flags.contains(Flags::UNREADABLE)
    }

    /// Whether the message is a call item that can join a call group
    /// (spec §14.5).
    pub fn is_call_item(&self) -> bool {
        self.flags.contains(Flags::CALL_ITEM)
    }

    /// Whether the message is a reasoning item (spec §14.6).
    pub fn is_reasoning(&self) -> bool {
        self.flags.contains(Flags::REASONING)
    }

    /// Its items' positions in [`History::all_items`].
    pub fn item_range(&self) -> Range<usize> {
        self.items_start as usize..self.items_end as usize
    }
}

/// Interned ids: one string arena and a hash table of symbols.
#[derive(Clone, Debug, Default)]
struct Interner {
    arena: String,
    /// `(start, end)` of each symbol's text in `arena`.
    spans: Vec<(u32, u32)>,
    table: hashbrown::HashTable<Sym>,
}

fn hash_str(s: &str) -> u64 {
    foldhash::fast::FixedState::with_seed(0x5eed).hash_one(s)
}

impl Interner {
    fn text(&self, sym: Sym) -> &str {
        let (a, b) = self.spans[sym as usize];
        &self.arena[a as usize..b as usize]
    }

    fn intern(&mut self, s: &str) -> Sym {
        let hash = hash_str(s);
        let Interner {
            arena,
            spans,
            table,
        } = self;
        let text = |sym: Sym| {
            let (a, b) = spans[sym as usize];
            &arena[a as usize..b as usize]
        };
        if let Some(&sym) = table.find(hash, |&sym| text(sym) == s) {
            return sym;
        }
        let sym = spans.len() as Sym;
        let start = arena.len() as u32;
        arena.push_str(s);
        spans.push((start, arena.len() as u32));
        let spans = &*spans;
        let arena = &*arena;
        table.insert_unique(hash, sym, |&k| {
            let (a, b) = spans[k as usize];
            hash_str(&arena[a as usize..b as usize])
        });
        sym
    }
}

/// A whole history, classified once: one [`View`] per message, all items
/// flattened, ids interned, the pinned message found.
///
/// # Examples
///
/// ```
/// use reducer_kit::formats::{read_history, Format};
/// use reducer_kit::terms::{ItemKind, Role};
/// let h: Vec<serde_json::Value> = serde_json::from_str(r#"[
///   {"role":"system","contents":[]},
///   {"role":"user","contents":[{"$type":"text","text":"q"}]},
///   {"role":"assistant","contents":[{"$type":"functionCall","callId":"c1"}]},
///   {"role":"tool","contents":[{"$type":"functionResult","callId":"c1"}]}]"#).unwrap();
/// let history = read_history(Format::Canonical, &h).unwrap();
/// assert_eq!(history.pinned(), Some(0));
/// assert!(history.view(1).is_turn_start());
/// let result = history.items(3)[0];
/// assert_eq!((result.kind, history.id(result.id)), (ItemKind::Result, "c1"));
/// assert_eq!(history.pairing().partner_message(&history, 3, 0), Some(2));
/// ```
#[derive(Clone, Debug, Default)]
pub struct History {
    views: Vec<View>,
    items: Vec<ItemRef>,
    ids: Interner,
    pinned: Option<usize>,
}

impl History {
    /// The number of messages.
    pub fn len(&self) -> usize {
        self.views.len()
    }

    /// Whether the history has no message.
    pub fn is_empty(&self) -> bool {
        self.views.is_empty()
    }

    /// The view of message `i`.
    ///
    /// # Panics
    ///
    /// When `i >= self.len()`.
    pub fn view(&self, i: usize) -> &View {
        &self.views[i]
    }

    /// Every message's view, in order.
    pub fn views(&self) -> &[View] {
        &self.views
    }

    /// The role of message `i`.
    pub fn role(&self, i: usize) -> Role {
        self.views[i].role
    }

    /// The items of message `i`, in message order.
    pub fn items(&self, i: usize) -> &[ItemRef] {
        &self.items[self.views[i].item_range()]
    }

    /// Every item of the history, message by message.
    pub fn all_items(&self) -> &[ItemRef] {
        &self.items
    }

    /// The text of an interned id ("" for [`NO_SYM`]).
    pub fn id(&self, sym: Sym) -> &str {
        if sym == NO_SYM {
            ""
        } else {
            self.ids.text(sym)
        }
    }

    /// How many distinct ids the history has.
    pub fn id_count(&self) -> usize {
        self.ids.spans.len()
    }

    /// The index of the pinned system message: the first `system` /
    /// `developer` message (spec §2).
    pub fn pinned(&self) -> Option<usize> {
        self.pinned
    }

    /// The number of messages of M: every message but the pinned one.
    pub fn rest_len(&self) -> usize {
        self.len() - usize::from(self.pinned.is_some())
    }

    /// The history of `views` (for callers that have per-message views).
    pub fn from_views(views: &[MessageView]) -> History {
        let mut b = HistoryBuilder::with_capacity(views.len(), views.len());
        for v in views {
            for item in &v.items {
                b.push_item(item.kind, &item.id, item.elem);
            }
            b.end_message_with(v.role, Flags::links(v.call_item, v.reasoning));
        }
        b.finish()
    }

    /// Message `i` as a [`MessageView`] (its `role_text` is the role's
    /// lowercase name, as the compact view does not keep the text).
    pub fn message_view(&self, i: usize) -> MessageView {
        let role = self.role(i);
        MessageView {
            role,
            role_text: match role {
                Role::System => "system",
                Role::User => "user",
                Role::Assistant => "assistant",
                Role::Tool => "tool",
                Role::Other => "other",
            }
            .to_string(),
            items: self
                .items(i)
                .iter()
                .map(|it| Item {
                    kind: it.kind,
                    id: self.id(it.id).to_string(),
                    elem: it.elem(),
                })
                .collect(),
            call_item: self.view(i).is_call_item(),
            reasoning: self.view(i).is_reasoning(),
        }
    }

    /// The turns of M (spec §2) as spans of message indices, oldest
    /// first: each span begins at a turn start, or is the leading segment
    /// (the first span, when M does not begin with a turn start). A span may
    /// contain the pinned message, which belongs to no turn.
    pub fn turn_spans(&self) -> Vec<TurnSpan> {
        let mut out: Vec<TurnSpan> = Vec::new();
        for (i, v) in self.views.iter().enumerate() {
            if Some(i) == self.pinned {
                continue;
            }
            if v.is_turn_start() || out.is_empty() {
                if let Some(last) = out.last_mut() {
                    last.end = i;
                }
                out.push(TurnSpan {
                    start: i,
                    end: self.len(),
                    has_question: v.is_turn_start(),
                });
            }
        }
        out
    }

    /// The number of messages of M in `start..end` (the pinned message does
    /// not count).
    pub fn count_in(&self, start: usize, end: usize) -> usize {
        let pinned_inside = self.pinned.is_some_and(|p| start <= p && p < end);
        end - start - usize::from(pinned_inside)
    }

    /// Positional pairing over the whole history (spec §3 step 6,
    /// §5): see [`History::pairing_of`].
    pub fn pairing(&self) -> Pairing {
        self.pairing_of(0..self.len())
    }

    /// Positional pairing over the messages `selection` yields (ascending):
    /// a result answers the latest still unanswered call with its id in an
    /// earlier selected message; an approval response likewise answers a
    /// request. Ids may be reused once answered. Linear in the items of the
    /// selection, with two arrays indexed by id symbol.
    pub fn pairing_of(&self, selection: impl IntoIterator<Item = usize>) -> Pairing {
        let mut partner = vec![NONE; self.items.len()];
        let mut below = vec![NONE; self.items.len()];
        let mut open_calls = vec![NONE; self.id_count()];
        let mut open_requests = vec![NONE; self.id_count()];
        for m in selection {
            let range = self.views[m].item_range();
            for k in range.clone() {
                let it = self.items[k];
                let open = match it.kind {
                    ItemKind::Result => &mut open_calls,
                    ItemKind::ApprovalResponse => &mut open_requests,
                    _ => continue,
                };
                let top = open[it.id as usize];
                if top != NONE {
                    open[it.id as usize] = below[top as usize];
                    partner[k] = top;
                    partner[top as usize] = k as u32;
                }
            }
            for k in range {
                let it = self.items[k];
                let open = match it.kind {
                    ItemKind::Call => &mut open_calls,
                    ItemKind::ApprovalRequest => &mut open_requests,
                    _ => continue,
                };
                below[k] = open[it.id as usize];
                open[it.id as usize] = k as u32;
            }
        }
        Pairing { partner }
    }
}

/// The turns of M as a span of message indices (see
/// [`History::turn_spans`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TurnSpan {
    /// The first message (the question, or the leading segment's first).
    pub start: usize,
    /// One past the last message.
    pub end: usize,
    /// Whether the turn begins with a turn start; false only for the
    /// leading segment.
    pub has_question: bool,
}

/// The partner of every item under positional pairing, by position in
/// [`History::all_items`] ([`NONE`] when unpaired or not selected).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pairing {
    partner: Vec<u32>,
}

impl Pairing {
    /// The partner of item `k` (a position in [`History::all_items`]).
    pub fn of(&self, k: usize) -> Option<usize> {
        let p = self.partner[k];
        (p != NONE).then_some(p as usize)
    }

    /// The partner of item `t` of message `m` as `(message, item index in
    /// that message)`.
    pub fn partner(&self, h: &History, m: usize, t: usize) -> Option<(usize, usize)> {
        let k = h.views[m].items_start as usize + t;
        self.of(k).map(|p| {
            let pm = h.items[p].message as usize;
            (pm, p - h.views[pm].items_start as usize)
        })
    }

    /// The message of the partner of item `t` of message `m`.
    pub fn partner_message(&self, h: &History, m: usize, t: usize) -> Option<usize> {
        self.partner(h, m, t).map(|(pm, _)| pm)
    }
}

/// Builds a [`History`] message by message: push a message's items, then
/// end it with its role.
#[derive(Debug, Default)]
pub struct HistoryBuilder {
    h: History,
    start: usize,
}

impl HistoryBuilder {
    /// A builder with room for `messages` messages and `items` items.
    pub fn with_capacity(messages: usize, items: usize) -> HistoryBuilder {
        HistoryBuilder {
            h: History {
                views: Vec::with_capacity(messages),
                items: Vec::with_capacity(items),
                ..History::default()
            },
            start: 0,
        }
    }

    /// Adds an item to the message being built (`id` is ignored for kinds
    /// that have none).
    pub fn push_item(&mut self, kind: ItemKind, id: &str, elem: Option<usize>) {
        let id = match kind {
            ItemKind::Call
            | ItemKind::Result
            | ItemKind::ApprovalRequest
            | ItemKind::ApprovalResponse => self.h.ids.intern(id),
            ItemKind::Text | ItemKind::Opaque => NO_SYM,
        };
        self.h.items.push(ItemRef {
            kind,
            id,
            elem: elem.map_or(NONE, |e| e as u32),
            message: self.h.views.len() as u32,
        });
    }

    /// Forgets the items pushed since the last message ended (a message
    /// that turned out unreadable).
    pub fn discard_items(&mut self) {
        self.h.items.truncate(self.start);
    }

    /// The items pushed for the message being built.
    pub fn pending_items(&self) -> &[ItemRef] {
        &self.h.items[self.start..]
    }

    /// Ends the message being built with role `role`, computing its flags.
    pub fn end_message(&mut self, role: Role) {
        self.end_message_with(role, Flags::default());
    }

    /// [`HistoryBuilder::end_message`] with the link flags a format reader
    /// found (`links`: [`Flags::links`]).
    pub fn end_message_with(&mut self, role: Role, links: Flags) {
        let items = &self.h.items[self.start..];
        let mut flags = links;
        if items.iter().any(|i| i.kind.is_removable()) {
            flags.insert(Flags::HAS_REMOVABLE);
        }
        if role == Role::User {
            if !items.is_empty() && items.iter().all(|i| i.kind == ItemKind::ApprovalResponse) {
                flags.insert(Flags::APPROVAL_ONLY);
            } else {
                flags.insert(Flags::TURN_START);
            }
        }
        self.close(role, flags);
    }

    /// Adds a message that could not be read: role [`Role::Other`], no
    /// items, flag [`Flags::UNREADABLE`].
    pub fn push_unreadable(&mut self) {
        self.discard_items();
        self.close(Role::Other, Flags::UNREADABLE);
    }

    fn close(&mut self, role: Role, flags: Flags) {
        if role == Role::System && self.h.pinned.is_none() {
            self.h.pinned = Some(self.h.views.len());
        }
        self.h.views.push(View {
            role,
            flags,
            items_start: self.start as u32,
            items_end: self.h.items.len() as u32,
        });
        self.start = self.h.items.len();
    }

    /// The history built.
    pub fn finish(self) -> History {
        self.h
    }
}

#[cfg(test)]
mod tests {
    use crate::formats::{read_history, view_history, Format};
    use crate::terms::{pair, turns};
    use serde_json::json;

    fn sample() -> Vec<serde_json::Value> {
        serde_json::from_value(json!([
            {"role": "assistant", "contents": [{"$type": "functionCall", "callId": "x"}]},
            {"role": "SYSTEM", "contents": []},
            {"role": "tool", "contents": [{"$type": "functionResult", "callId": "x"}]},
            {"role": "user", "contents": [{"$type": "text", "text": "q1"}]},
            {"role": "assistant", "contents": [{"$type": "functionCall", "callId": "x"}, {"$type": "toolApprovalRequest", "requestId": "r"}]},
            {"role": "user", "contents": [{"$type": "toolApprovalResponse", "requestId": "r"}]},
            {"role": "tool", "contents": [{"$type": "functionResult", "callId": "x"}, {"$type": "functionResult", "callId": "x"}]},
            {"role": "user", "contents": []}
        ]))
        .unwrap()
    }

    #[test]
    fn flags_turns_and_ids_match_the_message_views() {
        let m = sample();
        let views = view_history(Format::Canonical, &m).unwrap();
        let h = read_history(Format::Canonical, &m).unwrap();
        assert_eq!(h.len(), 8);
        assert_eq!(h.pinned(), Some(1));
        assert_eq!(h.id_count(), 2);
        let flags: Vec<(bool, bool, bool)> = (0..h.len())
            .map(|i| {
                let v = h.view(i);
                (v.is_turn_start(), v.is_approval_only(), v.has_removable())
            })
            .collect();
        assert_eq!(
            flags,
            vec![
                (false, false, false),
                (false, false, false),
                (false, false, true),
                (true, false, false),
                (false, false, false),
                (false, true, true),
                (false, false, true),
                (true, false, false),
            ]
        );
        let spans: Vec<(Vec<usize>, bool)> = h
            .turn_spans()
            .iter()
            .map(|t| {
                (
                    (t.start..t.end)
                        .filter(|&i| Some(i) != h.pinned())
                        .collect(),
                    t.has_question,
                )
            })
            .collect();
        let old: Vec<(Vec<usize>, bool)> = turns(&views)
            .into_iter()
            .map(|t| (t.messages, t.has_question))
            .collect();
        assert_eq!(spans, old);
        assert_eq!(spans[0], (vec![0, 2], false));
        assert_eq!(views.len(), h.len());
        for (i, want) in views.iter().enumerate() {
            let mut v = h.message_view(i);
            v.role_text = want.role_text.clone();
            assert_eq!(&v, want, "message {i}");
        }
    }

    #[test]
    fn pairing_matches_the_positional_rule_with_reused_ids() {
        let m = sample();
        let views = view_history(Format::Canonical, &m).unwrap();
        let h = read_history(Format::Canonical, &m).unwrap();
        for sel in [vec![0, 1, 2, 3, 4, 5, 6, 7], vec![0, 4, 6], vec![2, 5, 6]] {
            let old = pair(&views, &sel);
            let new = h.pairing_of(sel.iter().copied());
            for (i, row) in old.iter().enumerate() {
                for (t, p) in row.iter().enumerate() {
                    assert_eq!(new.partner(&h, i, t), *p, "{sel:?} message {i} item {t}");
                }
            }
        }
        let all = h.pairing();
        // Message 6's two results: the first answers message 4's call, the
        // second has nothing left open (message 0's call was answered by 2).
        assert_eq!(all.partner(&h, 6, 0), Some((4, 0)));
        assert_eq!(all.partner(&h, 6, 1), None);
        assert_eq!(all.partner(&h, 2, 0), Some((0, 0)));
        assert_eq!(all.partner(&h, 5, 0), Some((4, 1)));
    }
}
