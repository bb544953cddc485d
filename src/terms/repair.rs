//! Policy `repair` (spec §17, *new*): which calls, results, approval
//! requests and approval responses of a history, valid or not, are *whole
//! and well placed*, and so what a repair keeps. The reference reducer
//! ([`crate::reduce`](mod@crate::reduce)) removes everything else; the
//! checker reads the same definition for `repair-keeps-whole` and
//! `repair-keeps-content` (it never runs the reducer).
//!
//! The definition, in two steps over the items of the input (spec §17.2):
//!
//! 1. **Broken wherever they are.** A call in a message that is not an
//!    `assistant` message and a result in a message that is not a `tool`
//!    message are removed; then, pairing what is left (spec §2), every
//!    result and approval response that is an orphan is removed. A message
//!    that loses every item is left out.
//! 2. **Broken where they are.** Over what step 1 left: a *call unit* is an
//!    assistant message with calls (in the Responses format a run of
//!    consecutive call items, a call group, §14.5), and its *answer run*
//!    the tool messages right after it. A call is kept when its partner
//!    result is in its unit's answer run and no call of the unit kept
//!    before it has its id; the partner goes with it. An approval request
//!    is kept when its partner response comes before the next turn start
//!    after it (the response's own message not being one); the response
//!    goes with it. Every other call, result, request and response is
//!    removed. A `tool` message that held results and keeps none, only
//!    what the user wrote beside them (§1.6), counts as a user message
//!    there: it ends an answer run and may be a turn start (on the
//!    Anthropic, Bedrock and Gemini wire it is one); the call step is run
//!    again while that makes a new such message.
//!
//! Then a message that lost every item is left out, and an attached
//! reasoning item (§14.6) goes with its item, from the end backwards. A
//! history that passes the validator strictly comes back unchanged; what
//! comes back passes it strictly.

use super::history::{History, Sym, NONE};
use super::links::{attached_reasoning, Linked};
use super::message::{ItemKind, Role};

/// Whether an item kind is one a repair may take out of a message: a call,
/// a result, an approval request or an approval response.
pub fn is_pairing(kind: ItemKind) -> bool {
    matches!(
        kind,
        ItemKind::Call | ItemKind::Result | ItemKind::ApprovalRequest | ItemKind::ApprovalResponse
    )
}

/// What a repair of a history keeps (spec §17.2): per item of
/// [`History::all_items`] and per message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Repair {
    /// Per item: kept.
    item: Vec<bool>,
    /// Per message: kept.
    message: Vec<bool>,
}

impl Repair {
    /// Whether item `k` (a position in [`History::all_items`]) is kept.
    pub fn keeps_item(&self, k: usize) -> bool {
        self.item[k]
    }

    /// Whether message `m` is kept.
    pub fn keeps_message(&self, m: usize) -> bool {
        self.message[m]
    }

    /// The kept messages, ascending.
    pub fn kept_messages(&self) -> Vec<usize> {
        (0..self.message.len())
            .filter(|&m| self.message[m])
            .collect()
    }

    /// The item indices (positions in [`History::items`]`(m)`) taken out
    /// of message `m` of `h`, ascending; empty for a message kept whole or
    /// left out.
    pub fn removed(&self, h: &History, m: usize) -> Vec<usize> {
        if !self.message[m] {
            return Vec::new();
        }
        let range = h.view(m).item_range();
        range
            .clone()
            .filter(|&k| !self.item[k])
            .map(|k| k - range.start)
            .collect()
    }

    /// Whether the repair keeps every message and every item: the history
    /// is its own repair.
    pub fn keeps_all(&self) -> bool {
        self.item.iter().all(|&k| k) && self.message.iter().all(|&m| m)
    }
}

/// Pairs the items of `h` marked in `alive` by the positional walk of spec
/// §2: each result (response) with the latest unmatched call (request) of
/// its id in an earlier message. The partner of each item, by position in
/// [`History::all_items`], [`NONE`] when it has none (or is not alive).
fn pair_alive(h: &History, alive: &[bool]) -> Vec<u32> {
    let items = h.all_items();
    let mut partner = vec![NONE; items.len()];
    let mut below = vec![NONE; items.len()];
    let mut open_calls = vec![NONE; h.id_count()];
    let mut open_requests = vec![NONE; h.id_count()];
    for m in 0..h.len() {
        let range = h.view(m).item_range();
        for k in range.clone() {
            let it = items[k];
            if !alive[k] {
                continue;
            }
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
            let it = items[k];
            if !alive[k] {
                continue;
            }
            let open = match it.kind {
                ItemKind::Call => &mut open_calls,
                ItemKind::ApprovalRequest => &mut open_requests,
                _ => continue,
            };
            below[k] = open[it.id as usize];
            open[it.id as usize] = k as u32;
        }
    }
    partner
}

/// Whether message `m` of `h`, reading only its items marked in `alive`,
/// is a turn start (spec §2): a `user` message whose (remaining) items are
/// not all approval responses, or that has none to begin with.
fn turn_start_alive(h: &History, alive: &[bool], m: usize, pinned: Option<usize>) -> bool {
    if h.role(m) != Role::User || Some(m) == pinned {
        return false;
    }
    let range = h.view(m).item_range();
    if range.is_empty() {
        return true;
    }
    let items = h.all_items();
    let mut left = range.filter(|&k| alive[k]).peekable();
    left.peek().is_none() || !left.all(|k| items[k].kind == ItemKind::ApprovalResponse)
}

/// Whether message `m` of `h`, reading only its items marked in `left`,
/// is a turn start for the request step of a repair (spec §17.2): a user
/// message by [`turn_start_alive`], or a `tool` message that held a result
/// and keeps none, with an item left that is not an approval response (on
/// the Anthropic, Bedrock and Gemini wire, a user message of the text that
/// stood beside the results, spec §1.6).
fn turn_start_left(h: &History, left: &[bool], m: usize, pinned: Option<usize>) -> bool {
    if h.role(m) != Role::Tool {
        return turn_start_alive(h, left, m, pinned);
    }
    let items = h.all_items();
    let range = h.view(m).item_range();
    let had_result = range.clone().any(|k| items[k].kind == ItemKind::Result);
    let mut kept = range.filter(|&k| left[k]).map(|k| items[k].kind);
    had_result
        && kept.clone().all(|kind| kind != ItemKind::Result)
        && kept.any(|kind| kind != ItemKind::ApprovalResponse)
}

/// Whether `tool` message `m` of `h` held a result and, reading only its
/// items marked in `left`, keeps none but keeps something else: on the
/// Anthropic, Bedrock and Gemini wire, a user message (spec §1.6, §17.2).
fn lost_its_results(h: &History, left: &[bool], m: usize) -> bool {
    if h.role(m) != Role::Tool {
        return false;
    }
    let items = h.all_items();
    let range = h.view(m).item_range();
    range.clone().any(|k| items[k].kind == ItemKind::Result)
        && range.clone().any(|k| left[k])
        && range
            .filter(|&k| left[k])
            .all(|k| items[k].kind != ItemKind::Result)
}

/// The call step of spec §17.2 step 2 over what step 1 left (`alive`,
/// `present`, pairing `partner`): per item, kept. Every item left that
/// does not pair is kept; a call is kept, with its result, when the result
/// is in its unit's answer run (the `tool` messages right after the unit,
/// up to one marked in `as_user`) and no call of the unit kept before it
/// has its id. Approval requests and responses are left to the caller.
fn keep_calls(
    h: &History,
    alive: &[bool],
    present: &[bool],
    partner: &[u32],
    as_user: &[bool],
) -> Vec<bool> {
    let items = h.all_items();
    let n = h.len();
    let mut keep = vec![false; items.len()];
    for (k, it) in items.iter().enumerate() {
        if alive[k] && !is_pairing(it.kind) {
            keep[k] = true;
        }
    }
    let next_present = |m: usize| (m + 1..n).find(|&j| present[j]);
    let has_calls = |j: usize| {
        present[j]
            && h.role(j) == Role::Assistant
            && h.view(j)
                .item_range()
                .any(|k| alive[k] && items[k].kind == ItemKind::Call)
    };
    let mut m = 0;
    while m < n {
        if !has_calls(m) {
            m += 1;
            continue;
        }
        // The unit: this message, and in Responses the call items right
        // after it (those left by step 1).
        let mut unit = vec![m];
        let mut last = m;
        if h.call_item(m) {
            while let Some(j) = next_present(last) {
                if !h.call_item(j) {
                    break;
                }
                unit.push(j);
                last = j;
            }
        }
        // The answer run: the tool messages right after the unit.
        let mut run_end = last + 1;
        while let Some(j) = next_present(run_end - 1) {
            if h.role(j) != Role::Tool || as_user[j] {
                break;
            }
            run_end = j + 1;
        }
        let in_run = |j: usize| j > last && j < run_end;
        let mut kept_ids: Vec<Sym> = Vec::new();
        for &u in &unit {
            for k in h.view(u).item_range() {
                let it = items[k];
                if !alive[k] || it.kind != ItemKind::Call {
                    continue;
                }
                let p = partner[k];
                if p == NONE || !in_run(items[p as usize].message as usize) {
                    continue;
                }
                if kept_ids.contains(&it.id) {
                    continue;
                }
                kept_ids.push(it.id);
                keep[k] = true;
                keep[p as usize] = true;
            }
        }
        m = last + 1;
    }
    keep
}

/// The repair of `h` (spec §17.2): see the module doc. Linear in the
/// history's items per run of the call step; the call step runs once more
/// per new `tool` message left with only the user's text, so at most once
/// per `tool` message (and once in nearly every history).
///
/// # Examples
///
/// ```
/// use reducer_kit::formats::{read_history, Format};
/// use reducer_kit::terms::repair::repair;
/// // A run interrupted after its call: the call goes, the text stays.
/// let h: Vec<serde_json::Value> = serde_json::from_str(r#"[
///   {"role":"user","contents":[{"$type":"text","text":"q"}]},
///   {"role":"assistant","contents":[{"$type":"text","text":"let me look"},
///     {"$type":"functionCall","callId":"c1","name":"f"}]},
///   {"role":"user","contents":[{"$type":"text","text":"hello?"}]}]"#).unwrap();
/// let history = read_history(Format::Canonical, &h).unwrap();
/// let r = repair(&history);
/// assert_eq!(r.kept_messages(), vec![0, 1, 2]);
/// assert_eq!(r.removed(&history, 1), vec![1]);
/// ```
pub fn repair(h: &History) -> Repair {
    let items = h.all_items();
    let n = h.len();
    let pinned = h.pinned();
    // Step 1: calls outside assistant messages, results outside tool
    // messages, then orphans.
    let mut alive = vec![true; items.len()];
    for (k, it) in items.iter().enumerate() {
        let role = h.role(it.message as usize);
        match it.kind {
            ItemKind::Call if role != Role::Assistant => alive[k] = false,
            ItemKind::Result if role != Role::Tool => alive[k] = false,
            _ => {}
        }
    }
    let partner = pair_alive(h, &alive);
    for (k, it) in items.iter().enumerate() {
        if alive[k]
            && matches!(it.kind, ItemKind::Result | ItemKind::ApprovalResponse)
            && partner[k] == NONE
        {
            alive[k] = false;
        }
    }
    // The messages step 1 leaves: those with an item left, or none to
    // begin with.
    let present: Vec<bool> = (0..n)
        .map(|m| {
            let range = h.view(m).item_range();
            range.is_empty() || range.into_iter().any(|k| alive[k])
        })
        .collect();
    // Step 2: calls answered in their unit's answer run; requests answered
    // before the next turn start. Pairing is unchanged by step 1's orphan
    // removal (an orphan matched nothing). A `tool` message that held
    // results and keeps none, only what the user wrote beside them (§1.6),
    // is a user message on the Anthropic, Bedrock and Gemini wire: it ends
    // an answer run and may be a turn start, in every format (spec §17.2,
    // *Text left beside results*). The call step is run again while it
    // makes a new one (each run keeps no more than the one before).
    let mut as_user = vec![false; n];
    let (mut keep, left) = loop {
        let keep = keep_calls(h, &alive, &present, &partner, &as_user);
        let left: Vec<bool> = items
            .iter()
            .enumerate()
            .map(|(k, it)| {
                alive[k] && (keep[k] || !matches!(it.kind, ItemKind::Call | ItemKind::Result))
            })
            .collect();
        let mut grew = false;
        for j in 0..n {
            if present[j] && !as_user[j] && lost_its_results(h, &left, j) {
                as_user[j] = true;
                grew = true;
            }
        }
        if !grew {
            break (keep, left);
        }
    };
    // Requests: answered before the next turn start, the response's
    // message not one; turn starts read on what step 1 left, calls and
    // results as the call step leaves them.
    let mut next_start = vec![usize::MAX; n + 1];
    for j in (0..n).rev() {
        next_start[j] = if present[j] && turn_start_left(h, &left, j, pinned) {
            j
        } else {
            next_start[j + 1]
        };
    }
    // And no request kept before it with its id still waiting at it (rule
    // `unique-pending-request`): per id, the message of the latest kept
    // request's response.
    let mut answered_at = vec![0usize; h.id_count()];
    for (k, it) in items.iter().enumerate() {
        if !alive[k] || it.kind != ItemKind::ApprovalRequest || partner[k] == NONE {
            continue;
        }
        let p = partner[k] as usize;
        let q = it.message as usize;
        let s = items[p].message as usize;
        if next_start[q + 1] > s && answered_at[it.id as usize] <= q {
            keep[k] = true;
            keep[p] = true;
            answered_at[it.id as usize] = s;
        }
    }
    // The messages kept: those with an item kept, or none to begin with;
    // then attached reasoning goes with its item, from the end backwards.
    let mut message: Vec<bool> = (0..n)
        .map(|m| {
            let range = h.view(m).item_range();
            range.is_empty() || range.into_iter().any(|k| keep[k])
        })
        .collect();
    for m in (0..n).rev() {
        if message[m] && attached_reasoning(h, m) && !message[m + 1] {
            message[m] = false;
        }
    }
    for (k, it) in items.iter().enumerate() {
        if !message[it.message as usize] {
            keep[k] = false;
        }
    }
    Repair {
        item: keep,
        message,
    }
}

/// A call or approval request of `h` left unanswered where a repaired
/// history must answer it (clause `no-unanswered-call`, spec §17.3),
/// read on `h` as it is: a call whose partner result (spec §2 pairing
/// over `h`) is not in the tool messages right after its message (its call
/// group in Responses), or an approval request whose partner response does
/// not come before the next turn start. The first one, as `(message, item
/// index in the message)`.
pub fn first_unanswered(h: &History) -> Option<(usize, usize)> {
    let alive = vec![true; h.all_items().len()];
    let partner = pair_alive(h, &alive);
    let items = h.all_items();
    let n = h.len();
    let pinned = h.pinned();
    let mut next_start = vec![usize::MAX; n + 1];
    for j in (0..n).rev() {
        next_start[j] = if turn_start_alive(h, &alive, j, pinned) {
            j
        } else {
            next_start[j + 1]
        };
    }
    // The end of each call unit (its last message) and of its answer run.
    let mut unit_last = vec![0usize; n];
    let mut m = 0;
    while m < n {
        let mut last = m;
        if h.call_item(m) {
            while last + 1 < n && h.call_item(last + 1) {
                last += 1;
            }
        }
        unit_last[m..=last].fill(last);
        m = last + 1;
    }
    let mut run_end = vec![0usize; n];
    for j in (0..n).rev() {
        run_end[j] = if j + 1 < n && h.role(j + 1) == Role::Tool {
            run_end[j + 1].max(j + 2)
        } else {
            j + 1
        };
    }
    for (k, it) in items.iter().enumerate() {
        let q = it.message as usize;
        let p = partner[k];
        let answered = match it.kind {
            ItemKind::Call => {
                let last = unit_last[q];
                let end = run_end[last];
                p != NONE && {
                    let s = items[p as usize].message as usize;
                    s > last && s < end
                }
            }
            ItemKind::ApprovalRequest => {
                p != NONE && next_start[q + 1] > items[p as usize].message as usize
            }
            _ => continue,
        };
        if !answered {
            return Some((q, k - h.view(q).item_range().start));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{read_history, Format};
    use crate::validate::{validate_history, Options};
    use serde_json::{json, Value};

    fn call(id: &str) -> Value {
        json!({"$type": "functionCall", "callId": id, "name": "f"})
    }
    fn result(id: &str) -> Value {
        json!({"$type": "functionResult", "callId": id, "result": "r"})
    }
    fn text(t: &str) -> Value {
        json!({"$type": "text", "text": t})
    }
    fn msg(role: &str, items: Vec<Value>) -> Value {
        json!({"role": role, "contents": items})
    }

    /// The kept messages and, per kept message that loses items, those.
    fn kept(h: &[Value]) -> (Vec<usize>, Vec<(usize, Vec<usize>)>) {
        let history = read_history(Format::Canonical, h).unwrap();
        let r = repair(&history);
        let kept = r.kept_messages();
        let stripped = kept
            .iter()
            .map(|&m| (m, r.removed(&history, m)))
            .filter(|(_, v)| !v.is_empty())
            .collect();
        (kept, stripped)
    }

    #[test]
    fn each_broken_shape_loses_what_the_spec_says() {
        // Interrupted run: the calls go, the text beside them stays.
        let h = vec![
            msg("user", vec![text("q")]),
            msg("assistant", vec![text("t"), call("a"), call("b")]),
            msg("user", vec![text("q2")]),
        ];
        assert_eq!(kept(&h), (vec![0, 1, 2], vec![(1, vec![1, 2])]));
        // One of two parallel results lost: that call goes.
        let h = vec![
            msg("assistant", vec![call("a"), call("b")]),
            msg("tool", vec![result("b")]),
            msg("assistant", vec![text("done")]),
        ];
        assert_eq!(kept(&h), (vec![0, 1, 2], vec![(0, vec![0])]));
        // A duplicated result: the second goes.
        let h = vec![
            msg("assistant", vec![call("a")]),
            msg("tool", vec![result("a")]),
            msg("tool", vec![result("a")]),
        ];
        assert_eq!(kept(&h), (vec![0, 1], vec![]));
        // A result before its call: both go.
        let h = vec![
            msg("user", vec![text("q")]),
            msg("tool", vec![result("a")]),
            msg("assistant", vec![call("a")]),
            msg("assistant", vec![text("done")]),
        ];
        assert_eq!(kept(&h), (vec![0, 3], vec![]));
        // A message between a call and its result: the pair goes.
        let h = vec![
            msg("assistant", vec![call("a")]),
            msg("assistant", vec![text("wait")]),
            msg("tool", vec![result("a")]),
        ];
        assert_eq!(kept(&h), (vec![1], vec![]));
        // A tool message rewritten as a user message: the pair goes.
        let h = vec![
            msg("assistant", vec![call("a")]),
            msg("user", vec![result("a")]),
            msg("assistant", vec![text("done")]),
        ];
        assert_eq!(kept(&h), (vec![2], vec![]));
        // An orphan response between a call and its result goes in step 1,
        // and the pair is then well placed.
        let h = vec![
            msg("assistant", vec![call("a")]),
            msg(
                "user",
                vec![json!({"$type": "toolApprovalResponse", "requestId": "r"})],
            ),
            msg("tool", vec![result("a")]),
        ];
        assert_eq!(kept(&h), (vec![0, 2], vec![]));
        // A reused id whose first pair is broken: the first call goes.
        let h = vec![
            msg("assistant", vec![call("a")]),
            msg("user", vec![text("q")]),
            msg("assistant", vec![call("a")]),
            msg("tool", vec![result("a")]),
        ];
        assert_eq!(kept(&h), (vec![1, 2, 3], vec![]));
        // Two calls of one message with one id: the one answered stays.
        let h = vec![
            msg("assistant", vec![call("x"), call("x")]),
            msg("tool", vec![result("x")]),
        ];
        assert_eq!(kept(&h), (vec![0, 1], vec![(0, vec![0])]));
    }

    #[test]
    fn approvals_are_answered_before_the_next_turn_start() {
        let req = |id: &str| json!({"$type": "toolApprovalRequest", "requestId": id});
        let resp = |id: &str| json!({"$type": "toolApprovalResponse", "requestId": id});
        let h = vec![
            msg("assistant", vec![text("ok?"), req("r1"), req("r2")]),
            msg("user", vec![resp("r1")]),
            msg("user", vec![text("next")]),
            msg("user", vec![resp("r2")]),
        ];
        // r1 answered in time; r2 answered after a turn start: both of its
        // items go, and message 3 with them.
        assert_eq!(kept(&h), (vec![0, 1, 2], vec![(0, vec![2])]));
        // A second request under r1 while the first waits (rule
        // `unique-pending-request`): the first, answered last, stays; the
        // second and the response it pairs with go, with their messages.
        let h = vec![
            msg("assistant", vec![text("ok?"), req("r1")]),
            msg("assistant", vec![req("r1")]),
            msg("user", vec![resp("r1")]),
            msg("user", vec![resp("r1")]),
        ];
        assert_eq!(kept(&h), (vec![0, 3], vec![]));
        // Reused once answered: both pairs stay.
        let h = vec![
            msg("assistant", vec![req("r1")]),
            msg("user", vec![resp("r1")]),
            msg("assistant", vec![req("r1")]),
            msg("user", vec![resp("r1")]),
        ];
        assert_eq!(kept(&h), (vec![0, 1, 2, 3], vec![]));
    }

    #[test]
    fn a_tool_message_left_with_only_text_is_a_user_message() {
        let req = |id: &str| json!({"$type": "toolApprovalRequest", "requestId": id});
        let resp = |id: &str| json!({"$type": "toolApprovalResponse", "requestId": id});
        // Call a is answered after an interjected message: its pair goes,
        // and message 2 keeps only the user's text, a turn start on the
        // Anthropic wire, between request r1 and its response.
        let h = vec![
            msg("assistant", vec![call("a")]),
            msg("assistant", vec![text("ok?"), req("r1")]),
            msg("tool", vec![result("a"), text("and yes")]),
            msg("user", vec![resp("r1")]),
        ];
        assert_eq!(kept(&h), (vec![1, 2], vec![(1, vec![1]), (2, vec![0])]));
        // It ends an answer run too: b's result comes after it, so b goes,
        // and with it the result message; a second run of the call step
        // finds nothing new.
        let h = vec![
            msg("assistant", vec![call("a")]),
            msg("user", vec![text("q")]),
            msg("assistant", vec![call("b")]),
            msg("tool", vec![result("a"), text("hm")]),
            msg("tool", vec![result("b")]),
        ];
        assert_eq!(kept(&h), (vec![1, 3], vec![(3, vec![0])]));
        // A tool message of text that held no result is not one (it has
        // no wire form as a user message to begin with): r1 stays.
        let h = vec![
            msg("assistant", vec![text("ok?"), req("r1")]),
            msg("tool", vec![text("note")]),
            msg("user", vec![resp("r1")]),
        ];
        assert_eq!(kept(&h), (vec![0, 1, 2], vec![]));
    }

    #[test]
    fn the_repair_is_valid_and_a_valid_history_its_own_repair() {
        let h = vec![
            msg("system", vec![text("s")]),
            msg("tool", vec![result("z")]),
            msg("user", vec![text("q")]),
            msg("assistant", vec![call("a"), call("b")]),
            msg("tool", vec![result("a"), result("a")]),
            msg("user", vec![call("c")]),
            msg("assistant", vec![text("x")]),
            msg("tool", vec![result("b")]),
        ];
        let history = read_history(Format::Canonical, &h).unwrap();
        let r = repair(&history);
        let out: Vec<Value> = r
            .kept_messages()
            .into_iter()
            .map(|m| {
                let removed = r.removed(&history, m);
                let mut v = h[m].clone();
                let arr = v["contents"].as_array_mut().unwrap();
                for &t in removed.iter().rev() {
                    arr.remove(t);
                }
                v
            })
            .collect();
        let oh = read_history(Format::Canonical, &out).unwrap();
        assert_eq!(
            validate_history(&oh, Options::default()),
            vec![],
            "{}",
            Value::Array(out.clone())
        );
        assert_eq!(first_unanswered(&oh), None);
        assert!(repair(&oh).keeps_all());
        assert_eq!(
            Value::Array(out),
            json!([
                msg("system", vec![text("s")]),
                msg("user", vec![text("q")]),
                msg("assistant", vec![call("a")]),
                msg("tool", vec![result("a")]),
                msg("assistant", vec![text("x")])
            ])
        );
        assert_eq!(first_unanswered(&history), Some((3, 1)));
    }
}
