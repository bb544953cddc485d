//! The reference reducers: policy `turns` (semantics §3) and policy `suffix`
//! (semantics §4), over the terms of §2 ([`crate::terms`]), in any wire
//! format ([`crate::formats`]).
//!
//! [`respond`] and [`reference()`] give the reference's answer as a protocol
//! [`Response`]: what the checker's clause `matches-reference` is judged
//! against (the checker itself never reduces; its callers supply that
//! answer) and what `reducer-kit serve` writes.

use crate::formats::{strip_items, view_history, Format};
use crate::protocol::Response;
use crate::terms::{
    pair, pinned_index, turns, Budget, BudgetError, MessageView, Policy, Role, ShapeError,
};
use serde_json::Value;

/// Why a request cannot be reduced.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReduceError {
    /// `maxMessages` is not a budget (semantics §3 step 1); the error says
    /// what was received.
    #[error(transparent)]
    BadBudget(#[from] BudgetError),
    /// A message has a shape the kit cannot read.
    #[error(transparent)]
    Shape(#[from] ShapeError),
}

/// Reduces `messages` (in `format`) to at most `max_messages` messages besides
/// the pinned system message, under `policy`.
///
/// Returns the kept messages in input order, each equal to the message read
/// or that message with orphan results / approval responses removed.
///
/// # Errors
///
/// [`ReduceError::BadBudget`] (checked first) and [`ReduceError::Shape`].
///
/// # Examples
///
/// ```
/// use reducer_kit::{formats::Format, reduce::reduce, terms::Policy};
/// let h: Vec<serde_json::Value> = serde_json::from_str(r#"[
///   {"role":"user","contents":[{"$type":"text","text":"a"}]},
///   {"role":"assistant","contents":[{"$type":"text","text":"b"}]},
///   {"role":"user","contents":[{"$type":"text","text":"c"}]}]"#).unwrap();
/// let out = reduce(Policy::Turns, Format::Canonical, &h, &serde_json::json!(2)).unwrap();
/// assert_eq!(out, h[2..].to_vec());
/// ```
pub fn reduce(
    policy: Policy,
    format: Format,
    messages: &[Value],
    max_messages: &Value,
) -> Result<Vec<Value>, ReduceError> {
    let budget = Budget::parse(max_messages)?;
    let views = view_history(format, messages)?;
    let selection = select(policy, &views, budget);
    Ok(remove_orphans(format, messages, &views, &selection))
}

/// The reference reducer's protocol answer to a request: its output as
/// [`Response::Messages`], or its error's text as [`Response::Error`].
pub fn respond(
    policy: Policy,
    format: Format,
    max_messages: &Value,
    messages: &[Value],
) -> Response {
    match reduce(policy, format, messages, max_messages) {
        Ok(m) => Response::Messages(m),
        Err(e) => Response::Error(e.to_string()),
    }
}

/// The reference reducer of `policy` as a closure `(maxMessages, messages)
/// -> Response`, for [`crate::check::check_reducer`].
pub fn reference(policy: Policy, format: Format) -> impl FnMut(&Value, &[Value]) -> Response {
    move |max, messages| respond(policy, format, max, messages)
}

/// The selection of semantics §3 steps 2–5 / §4 before orphan removal:
/// ascending message indices, the pinned system message included.
pub fn select(policy: Policy, views: &[MessageView], budget: Budget) -> Vec<usize> {
    let budget = budget.max_messages();
    let pinned = pinned_index(views);
    let rest: Vec<usize> = (0..views.len()).filter(|&i| Some(i) != pinned).collect();
    let mut chosen: Vec<usize> = match policy {
        Policy::Turns => select_turns(views, &rest, budget),
        Policy::Suffix => select_suffix(views, &rest, budget),
    };
    if let Some(p) = pinned {
        chosen.push(p);
    }
    chosen.sort_unstable();
    chosen
}

fn select_turns(views: &[MessageView], rest: &[usize], budget: usize) -> Vec<usize> {
    if rest.len() <= budget {
        return rest.to_vec();
    }
    let all = turns(views);
    let mut total = 0usize;
    let mut first_kept = all.len();
    for (t, turn) in all.iter().enumerate().rev() {
        if total + turn.messages.len() > budget {
            break;
        }
        total += turn.messages.len();
        first_kept = t;
    }
    if first_kept < all.len() {
        return all[first_kept..]
            .iter()
            .flat_map(|t| t.messages.iter().copied())
            .collect();
    }
    // Step 4: not even the newest turn fits.
    let newest = all
        .last()
        .expect("more messages than the budget means at least one turn");
    let m = &newest.messages;
    if newest.has_question {
        let tail = budget - 1;
        let mut out = vec![m[0]];
        out.extend_from_slice(&m[m.len() - tail..]);
        out
    } else {
        m[m.len() - budget..].to_vec()
    }
}

fn select_suffix(views: &[MessageView], rest: &[usize], budget: usize) -> Vec<usize> {
    let everything: Vec<usize> = (0..views.len()).collect();
    let partner = pair(views, &everything);
    let mut start = rest.len().saturating_sub(budget);
    while start < rest.len() {
        let m = rest[start];
        let v = &views[m];
        let split_group = v.items.iter().enumerate().any(|(k, item)| {
            item.kind.is_removable() && partner[m][k].is_some_and(|(pm, _)| pm < m)
        });
        if v.role == Role::Tool || v.is_approval_only() || split_group {
            start += 1;
        } else {
            break;
        }
    }
    rest[start..].to_vec()
}

/// Semantics §3 step 6 over `selection`: removes results and approval
/// responses that answer nothing earlier in the selection, drops messages left
/// with no item, and returns the kept messages in order.
pub fn remove_orphans(
    format: Format,
    messages: &[Value],
    views: &[MessageView],
    selection: &[usize],
) -> Vec<Value> {
    let partner = pair(views, selection);
    let mut out = Vec::with_capacity(selection.len());
    for &m in selection {
        let removed: Vec<usize> = views[m]
            .items
            .iter()
            .enumerate()
            .filter(|(k, item)| item.kind.is_removable() && partner[m][*k].is_none())
            .map(|(k, _)| k)
            .collect();
        if let Some(v) = strip_items(format, &messages[m], &views[m], &removed) {
            out.push(v);
        }
    }
    out
}
