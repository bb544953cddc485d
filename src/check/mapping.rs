//! Matching output messages to input messages (semantics §7): the
//! mapping every clause is judged under.

use crate::formats::Format;
use crate::json::json_eq;
use crate::terms::{pinned_index, MessageView, Role};
use serde_json::Value;

/// The output mapped onto the input.
pub(super) struct Mapping {
    /// Output index of the pinned system message, when found equal.
    pub(super) out_pinned: Option<usize>,
    /// For each output message, its input message and the input item indices
    /// removed from it.
    pub(super) map: Vec<Option<(usize, Vec<usize>)>>,
    /// Per input message: whether some output message maps to it.
    pub(super) kept: Vec<bool>,
    /// Per input message: the removed item indices, when kept.
    pub(super) removed: Vec<Vec<usize>>,
}

/// Whether `o` equals `i`, or equals it but for removed results / approval
/// responses; returns the removed item indices of `i` (empty when equal).
pub(super) fn embeds(
    format: Format,
    o: &Value,
    i: &Value,
    i_view: &MessageView,
) -> Option<Vec<usize>> {
    if json_eq(o, i) {
        return Some(Vec::new());
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
    let removable_elem = |e: usize| {
        i_view
            .items
            .iter()
            .position(|it| it.elem == Some(e) && it.kind.is_removable())
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

pub(super) fn map_output(
    format: Format,
    input: &[Value],
    in_views: &[MessageView],
    output: &[Value],
    out_roles: &[Option<Role>],
) -> Mapping {
    let pinned = pinned_index(in_views);
    let first_system = out_roles.iter().position(|r| *r == Some(Role::System));
    let out_pinned = match (pinned, first_system) {
        (Some(p), Some(k)) if json_eq(&output[k], &input[p]) => Some(k),
        _ => None,
    };
    let mut map: Vec<Option<(usize, Vec<usize>)>> = vec![None; output.len()];
    let mut kept = vec![false; input.len()];
    let mut removed = vec![Vec::new(); input.len()];
    if let (Some(k), Some(p)) = (out_pinned, pinned) {
        map[k] = Some((p, Vec::new()));
        kept[p] = true;
    }
    let mut bound = input.len();
    for k in (0..output.len()).rev() {
        if Some(k) == out_pinned {
            continue;
        }
        let found = (0..bound)
            .rev()
            .filter(|&j| Some(j) != pinned)
            .find_map(|j| embeds(format, &output[k], &input[j], &in_views[j]).map(|r| (j, r)));
        if let Some((j, r)) = found {
            bound = j;
            kept[j] = true;
            removed[j] = r.clone();
            map[k] = Some((j, r));
        }
    }
    Mapping {
        out_pinned,
        map,
        kept,
        removed,
    }
}
