//! Matching under policy `repair` (spec §17.2, §7): an output message
//! comes from an input message that it equals with some calls, results and
//! approval items taken out, matched from the first forwards.

use super::*;

/// Whether `out` equals `input` (a message of the input, its items read as
/// `items`) or equals it with some calls, results, approval requests or
/// approval responses taken out — elements of its items array, and in the
/// OpenAI format entries of its `tool_calls` (a `tool_calls` left empty
/// goes) — at least one item left: how an output message comes from an
/// input message under policy `repair` (spec §17.2, §7). Returns the
/// removed item indices, ascending (empty when equal). Compared on the
/// values; equal elements are matched first come first.
pub(in crate::check) fn embeds_repair(
    format: Format,
    out: &Value,
    input: &Value,
    items: &[ItemRef],
) -> Option<Vec<usize>> {
    if json_eq(out, input) {
        return Some(Vec::new());
    }
    if !items.iter().any(|it| is_pairing(it.kind)) {
        return None;
    }
    let (o, i) = (out.as_object()?, input.as_object()?);
    let key = format.items_key();
    let calls_key = (format == Format::OpenAi).then_some("tool_calls");
    let array = |k: &str| k == key || Some(k) == calls_key;
    if i.iter()
        .any(|(k, v)| !array(k) && !o.get(k).is_some_and(|w| json_eq(v, w)))
        || o.keys().any(|k| !array(k) && !i.contains_key(k))
    {
        return None;
    }
    let same_or_absent = |a: Option<&Value>, b: Option<&Value>| match (a, b) {
        (None, None) => true,
        (Some(x), Some(y)) => json_eq(x, y),
        _ => false,
    };
    // Elements of `ia` taken out to leave `oa` (`None`: the array left
    // empty goes, when `gone_when_empty`), each named by `item_of`.
    let taken_out = |ia: &[Value],
                     oa: Option<&Value>,
                     gone_when_empty: bool,
                     item_of: &dyn Fn(usize) -> Option<usize>,
                     removed: &mut Vec<usize>|
     -> Option<()> {
        let oa: &[Value] = match oa {
            Some(Value::Array(a)) if !(gone_when_empty && a.is_empty() && !ia.is_empty()) => a,
            None if gone_when_empty => &[],
            _ => return None,
        };
        let mut next = 0;
        for (e, elem) in ia.iter().enumerate() {
            if next < oa.len() && json_eq(&oa[next], elem) {
                next += 1;
            } else {
                removed.push(item_of(e)?);
            }
        }
        (next == oa.len()).then_some(())
    };
    let mut removed = Vec::new();
    match i.get(key) {
        Some(Value::Array(ia)) => {
            let item_of = |e: usize| {
                items
                    .iter()
                    .position(|it| it.elem() == Some(e) && is_pairing(it.kind))
            };
            taken_out(ia, o.get(key), false, &item_of, &mut removed)?;
        }
        a => {
            if !same_or_absent(a, o.get(key)) {
                return None;
            }
        }
    }
    if let Some(ck) = calls_key {
        match i.get(ck) {
            Some(Value::Array(ia)) => {
                let calls: Vec<usize> = (0..items.len())
                    .filter(|&t| items[t].kind == ItemKind::Call && items[t].elem().is_none())
                    .collect();
                let item_of = |e: usize| calls.get(e).copied();
                taken_out(ia, o.get(ck), true, &item_of, &mut removed)?;
            }
            a => {
                if !same_or_absent(a, o.get(ck)) {
                    return None;
                }
            }
        }
    }
    removed.sort_unstable();
    (!removed.is_empty() && removed.len() < items.len()).then_some(removed)
}

/// Maps the output (`oc`, classified leniently as `out_h`) onto the input
/// (`ic`, classified as `in_h`) under policy `repair` (spec §17.2): the
/// output's first system message to the pinned one when it comes from it
/// (broken items may be taken out of it too), then each
/// other output message, from the first forwards, to the *earliest* input
/// message after the previous match that it comes from
/// ([`embeds_repair`]), preferring among those the messages `prefer`
/// marks (the ones the repair keeps, spec §17.2: an output message may
/// come from several input messages alike, a copy or a message that
/// differs only by items the repair takes out); when that leaves an output
/// message unmatched, the plain earliest embedding. A repair keeps the
/// first of equal messages (the first result answers a call, a copy after
/// it is the duplicate). Linear when every output message comes from an
/// input message; no answer is compared here (the clauses compare the
/// others themselves).
pub(in crate::check) fn map_output_repair(
    format: Format,
    ic: Texts<'_>,
    in_h: &History,
    oc: Texts<'_>,
    out_h: &History,
    prefer: &[bool],
) -> Mapping {
    let guided = map_repair_with(format, ic, in_h, oc, out_h, Some(prefer));
    if guided.map.iter().all(Option::is_some) {
        return guided;
    }
    map_repair_with(format, ic, in_h, oc, out_h, None)
}

/// [`map_output_repair`]'s walk: each output message to the earliest input
/// message after the previous match that it comes from, and, with
/// `prefer`, to the earliest such message `prefer` marks when there is one
/// (the one the repair keeps, among messages it comes from alike).
fn map_repair_with(
    format: Format,
    ic: Texts<'_>,
    in_h: &History,
    oc: Texts<'_>,
    out_h: &History,
    prefer: Option<&[bool]>,
) -> Mapping {
    let pinned = in_h.pinned();
    let first_system = (0..out_h.len()).find(|&k| out_h.role(k) == Role::System);
    // The pinned message may lose broken items too (a call moved into it).
    let pinned_match = match (pinned, first_system) {
        (Some(p), Some(k)) => {
            embeds_repair(format, &oc.values[k], &ic.values[p], in_h.items(p)).map(|r| (k, p, r))
        }
        _ => None,
    };
    let out_pinned = pinned_match.as_ref().map(|(k, _, _)| *k);
    let n = oc.len();
    let mut map: Vec<Option<usize>> = vec![None; n];
    let mut kept = vec![false; ic.len()];
    let mut removed = Vec::new();
    let mut pinned_removed = None;
    if let Some((k, p, r)) = pinned_match {
        map[k] = Some(p);
        kept[p] = true;
        if !r.is_empty() {
            pinned_removed = Some((p, r));
        }
    }
    let mut cursor = 0;
    for (k, out) in oc.values.iter().enumerate() {
        if Some(k) == out_pinned {
            continue;
        }
        let embeds =
            |j: usize| embeds_repair(format, out, &ic.values[j], in_h.items(j)).map(|r| (j, r));
        let candidates = || (cursor..ic.len()).filter(|&j| Some(j) != pinned);
        let found = prefer
            .and_then(|p| candidates().filter(|&j| p[j]).find_map(embeds))
            .or_else(|| candidates().find_map(embeds));
        if let Some((j, r)) = found {
            cursor = j + 1;
            kept[j] = true;
            if !r.is_empty() {
                removed.push((j, r));
            }
            map[k] = Some(j);
        }
    }
    if let Some(pr) = pinned_removed {
        let at = removed.partition_point(|(j, _)| *j < pr.0);
        removed.insert(at, pr);
    }
    let pinned_changed = super::pinned_by_place(pinned, out_pinned, first_system, &map, &kept);
    Mapping {
        out_pinned,
        pinned_changed,
        map,
        kept,
        removed,
        compared: Compared::default(),
    }
}
