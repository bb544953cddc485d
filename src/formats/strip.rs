//! Taking items out of a message in its wire format: the results and
//! approval responses orphan removal drops (spec §3 step 6), and what
//! policy `repair` removes (spec §17), every other member left as it is.

use crate::terms::{ItemKind, MessageView};
use serde_json::Value;

use super::*;

/// Message `msg` without the elements `elems` (ascending indices into its
/// items array; spec §3 step 6): every other member unchanged.
pub fn strip_elems(format: Format, msg: &Value, elems: &[usize]) -> Value {
    let mut out = msg.clone();
    if let Some(Value::Array(arr)) = out.get_mut(format.items_key()) {
        let mut drop = elems.iter().copied().peekable();
        let mut e = 0;
        arr.retain(|_| {
            let gone = drop.peek() == Some(&e);
            if gone {
                drop.next();
            }
            e += 1;
            !gone
        });
    }
    out
}

/// Removes the items at `removed` (indices into `items`, the message's
/// items as [`History::items`](crate::terms::History::items) reads them,
/// ascending) from `msg`: the elements of the items array they are, and,
/// in the OpenAI format, the `tool_calls` entries of calls that are not
/// elements of it (the entry of the message's k-th such call is
/// `tool_calls[k]`; a `tool_calls` left empty goes with its last entry).
/// Every other member is kept unchanged. What policy `repair` (spec §17)
/// writes of a message that loses calls; for the items of
/// [`strip_elems`] the same output.
pub fn strip_items_at(
    format: Format,
    msg: &Value,
    items: &[crate::terms::ItemRef],
    removed: &[usize],
) -> Value {
    let mut elems: Vec<usize> = removed.iter().filter_map(|&t| items[t].elem()).collect();
    elems.sort_unstable();
    let mut out = strip_elems(format, msg, &elems);
    if format != Format::OpenAi {
        return out;
    }
    let entry = |t: usize| {
        items[..t]
            .iter()
            .filter(|it| it.kind == ItemKind::Call && it.elem().is_none())
            .count()
    };
    let gone: Vec<usize> = removed
        .iter()
        .filter(|&&t| items[t].kind == ItemKind::Call && items[t].elem().is_none())
        .map(|&t| entry(t))
        .collect();
    if gone.is_empty() {
        return out;
    }
    if let Some(obj) = out.as_object_mut() {
        if let Some(Value::Array(calls)) = obj.get_mut("tool_calls") {
            let mut e = 0;
            calls.retain(|_| {
                e += 1;
                !gone.contains(&(e - 1))
            });
            if calls.is_empty() {
                obj.remove("tool_calls");
            }
        }
    }
    out
}

/// Removes the items at `removed` (indices into `view.items`, each a result
/// or approval response) from `msg`. Returns `None` when no item would be
/// left: such a message is dropped (spec §3 step 6). All other members
/// of the message are kept unchanged. A removed item that is not an element
/// of the items array (an OpenAI `tool` message's result, which is the
/// message itself) drops the whole message, whatever else it carries.
pub fn strip_items(
    format: Format,
    msg: &Value,
    view: &MessageView,
    removed: &[usize],
) -> Option<Value> {
    if removed.is_empty() {
        return Some(msg.clone());
    }
    if removed.len() >= view.items.len() || removed.iter().any(|&r| view.items[r].elem.is_none()) {
        return None;
    }
    let mut elems: Vec<usize> = removed
        .iter()
        .map(|&r| {
            view.items[r]
                .elem
                .expect("items outside the items array drop the message above")
        })
        .collect();
    elems.sort_unstable();
    let mut out = msg.clone();
    if let Some(Value::Array(arr)) = out.get_mut(format.items_key()) {
        for e in elems.into_iter().rev() {
            arr.remove(e);
        }
    }
    Some(out)
}
