//! What one default run generates: the 2,000 cases of seed 1 that
//! `certify` makes in each format (`certify::generator_config`), counted
//! by shape, and by what the reference's cut does to them under each
//! policy. The shapes real reducers break on must come up in every such
//! run, not only somewhere over many seeds: ids of several spellings in
//! every format; approval-rich and reused-id histories where the format
//! carries approvals, cut apart under both policies.

use reducer_kit::certify::generator_config;
use reducer_kit::formats::{read_history, to_wire, Format};
use reducer_kit::generate::shrink::QuickCase;
use reducer_kit::generate::{seeded_cases, Shape};
use reducer_kit::protocol::Protocol;
use reducer_kit::reduce::{select_indices, Input, Reference};
use reducer_kit::terms::links::continues_call_group;
use reducer_kit::terms::{Budget, History, ItemKind, Policy};
use std::collections::BTreeMap;

/// The default run's cases in `format`: (shape counts, the cases read in
/// `format` with their message budgets).
fn default_run(format: Format) -> (BTreeMap<Shape, u32>, Vec<(History, usize)>) {
    let mut shapes: BTreeMap<Shape, u32> = BTreeMap::new();
    let mut read = Vec::new();
    for case in seeded_cases(1, 2_000, &generator_config(format, Protocol::V1)) {
        for s in &case.shapes {
            *shapes.entry(*s).or_default() += 1;
        }
        let wire = to_wire(format, &case.messages).expect("a case of the format converts");
        read.push((read_history(format, &wire).unwrap(), case.budget));
    }
    (shapes, read)
}

/// The ids of the items of `kind` in message `m`.
fn ids(h: &History, m: usize, kind: ItemKind) -> Vec<&str> {
    h.items(m)
        .iter()
        .filter(|i| i.kind == kind)
        .map(|i| h.id(i.id))
        .collect()
}

/// What the reference's cut does to one case under `policy`: the events
/// counted per run.
fn events(h: &History, budget: usize, policy: Policy) -> Vec<&'static str> {
    let b = Budget::of_messages(budget).unwrap();
    let chosen = select_indices(policy, h, &b);
    let sel = Reference::new(policy, Format::Canonical)
        .reduce(Input::history(h).budget(&b))
        .expect("a valid case reduces");
    let kept = |m: usize| sel.kept().binary_search(&m).is_ok();
    let mut out = Vec::new();
    // Approval responses the cut leaves without their requests: taken
    // out of kept messages, or whole approval-only messages left out.
    let responses = |m: usize| ids(h, m, ItemKind::ApprovalResponse).len();
    let orphaned: usize = chosen
        .iter()
        .map(|&m| {
            if kept(m) {
                sel.removed(m)
                    .iter()
                    .filter(|&&t| h.items(m)[t].kind == ItemKind::ApprovalResponse)
                    .count()
            } else {
                responses(m)
            }
        })
        .sum();
    if orphaned > 0 {
        out.push("approval response orphaned by the cut");
    }
    let dropped_approval_only = chosen
        .iter()
        .filter(|&&m| !kept(m) && h.view(m).is_approval_only())
        .count();
    if dropped_approval_only >= 2 {
        out.push("two approval-only messages orphaned by the cut");
    }
    // A reused id cut apart: its first use left out, a later use kept.
    for kind in [ItemKind::Call, ItemKind::ApprovalRequest] {
        let mut first: BTreeMap<&str, usize> = BTreeMap::new();
        let mut apart = false;
        for m in 0..h.len() {
            for id in ids(h, m, kind) {
                match first.get(id) {
                    Some(&f) if !kept(f) && kept(m) => apart = true,
                    Some(_) => {}
                    None => {
                        first.insert(id, m);
                    }
                }
            }
        }
        if apart {
            out.push(match kind {
                ItemKind::Call => "reused call id cut apart",
                _ => "reused request id cut apart",
            });
        }
    }
    // A `suffix` cut that falls on a call continuing a call group
    // (Responses, spec §14.5): the start the reference must move on.
    let rest: Vec<usize> = (0..h.len()).filter(|&i| Some(i) != h.pinned()).collect();
    if policy == Policy::Suffix
        && budget < rest.len()
        && continues_call_group(h, rest[rest.len() - budget])
    {
        out.push("suffix cut inside a call group");
    }
    // Two kept calls (requests) whose ids differ only in case.
    let kept_ids: Vec<&str> = sel
        .kept()
        .iter()
        .flat_map(|&m| {
            let mut v = ids(h, m, ItemKind::Call);
            v.extend(ids(h, m, ItemKind::ApprovalRequest));
            v
        })
        .collect();
    if kept_ids.iter().enumerate().any(|(a, x)| {
        kept_ids[a + 1..]
            .iter()
            .any(|y| x != y && x.eq_ignore_ascii_case(y))
    }) {
        out.push("case-variant ids kept");
    }
    out
}

/// The id shapes every format's run shows, and how often at the least.
const ID_SHAPES: [(Shape, u32); 5] = [
    (Shape::IdCaseVariant, 100),
    (Shape::IdCaseVariantsOpen, 40),
    (Shape::IdSharedPrefix, 100),
    (Shape::IdLong, 100),
    (Shape::IdNonAscii, 100),
];

/// The approval and reuse shapes of the formats that carry approvals.
const APPROVAL_SHAPES: [(Shape, u32); 6] = [
    (Shape::CallIdReused, 50),
    (Shape::RequestIdReused, 10),
    (Shape::RequestsOverlap, 30),
    (Shape::ApprovalAwaited, 100),
    (Shape::ApprovalApproved, 100),
    (Shape::ApprovalRejected, 100),
];

/// What the reference's cut does, per policy, in the formats that carry
/// approvals: each at least this often in one run.
const CUT_EVENTS: [(&str, u32); 5] = [
    ("approval response orphaned by the cut", 10),
    ("two approval-only messages orphaned by the cut", 2),
    ("reused call id cut apart", 5),
    ("reused request id cut apart", 1),
    ("case-variant ids kept", 20),
];

#[test]
fn every_default_run_shows_the_id_approval_and_reuse_shapes() {
    let mut report = String::new();
    let mut short = Vec::new();
    for format in Format::ALL {
        let (shapes, cases) = default_run(format);
        let count = |s: Shape| shapes.get(&s).copied().unwrap_or(0);
        for (s, least) in ID_SHAPES {
            report.push_str(&format!("{format} {s} {}\n", count(s)));
            if count(s) < least {
                short.push(format!("{format}: {s} {} < {least}", count(s)));
            }
        }
        let carries_approvals = generator_config(format, Protocol::V1).approvals;
        for (s, least) in APPROVAL_SHAPES {
            report.push_str(&format!("{format} {s} {}\n", count(s)));
            if carries_approvals && count(s) < least {
                short.push(format!("{format}: {s} {} < {least}", count(s)));
            }
        }
        if !carries_approvals {
            continue;
        }
        for policy in [Policy::Turns, Policy::Suffix] {
            let mut seen: BTreeMap<&str, u32> = BTreeMap::new();
            for (h, budget) in &cases {
                for e in events(h, *budget, policy) {
                    *seen.entry(e).or_default() += 1;
                }
            }
            for (e, least) in CUT_EVENTS {
                let n = seen.get(e).copied().unwrap_or(0);
                report.push_str(&format!("{format} {policy} {e} {n}\n"));
                if n < least {
                    short.push(format!("{format} {policy}: {e} {n} < {least}"));
                }
            }
            if format == Format::Responses && policy == Policy::Suffix {
                let e = "suffix cut inside a call group";
                let n = seen.get(e).copied().unwrap_or(0);
                report.push_str(&format!("{format} {policy} {e} {n}\n"));
                if n < 40 {
                    short.push(format!("{format} {policy}: {e} {n} < 40"));
                }
            }
        }
    }
    println!("{report}");
    assert!(short.is_empty(), "{short:#?}");
}

/// The reference's answer under `suffix`, then its results paired with
/// calls by their ids lowercased, in a map of the calls waiting (one entry
/// per lowercased id), a tool message whose result the map does not find
/// left out: of two calls whose ids differ only in case, made together, the
/// second result is taken for an orphan.
fn case_blind(messages: &[serde_json::Value], n: usize) -> Vec<serde_json::Value> {
    let n = serde_json::json!(n);
    let out = Reference::new(Policy::Suffix, Format::Canonical)
        .reduce(Input::new(messages).max_messages(&n))
        .unwrap()
        .messages();
    let h = read_history(Format::Canonical, &out).unwrap();
    let mut waiting = std::collections::HashSet::new();
    let mut kept = Vec::new();
    for (m, message) in out.iter().enumerate() {
        let mut keep = true;
        for item in h.items(m) {
            let id = h.id(item.id).to_ascii_lowercase();
            match item.kind {
                ItemKind::Call => {
                    waiting.insert(id);
                }
                ItemKind::Result => keep &= waiting.remove(&id),
                _ => {}
            }
        }
        if keep {
            kept.push(message.clone());
        }
    }
    kept
}

#[test]
fn the_shrinker_keeps_ids_that_differ_only_in_case() {
    // The first case of the default run on which the case-blind reducer
    // differs from the reference, shrunk while it still differs: the
    // canonical names keep the two ids apart by case alone.
    let differs = |c: &QuickCase| {
        let budget = serde_json::json!(c.budget);
        let reference = Reference::new(Policy::Suffix, Format::Canonical)
            .reduce(Input::new(&c.messages).max_messages(&budget))
            .unwrap()
            .messages();
        case_blind(&c.messages, c.budget) != reference
    };
    let cfg = generator_config(Format::Canonical, Protocol::V1);
    let (n, case) = seeded_cases(1, 2_000, &cfg)
        .enumerate()
        .map(|(n, c)| (n, QuickCase::from(c)))
        .find(|(_, c)| differs(c))
        .expect("a default run convicts a case-blind reducer");
    assert!(n < 100, "found only at case {n}");
    let small = case.minimize(differs);
    let calls: Vec<String> = small
        .messages
        .iter()
        .flat_map(|m| m["contents"].as_array().cloned().unwrap_or_default())
        .filter(|i| i["$type"] == "functionCall")
        .map(|i| i["callId"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(calls, ["c1", "C1"], "{small:?}");
    assert_eq!(small.messages.len(), 3, "{small:?}");
}
