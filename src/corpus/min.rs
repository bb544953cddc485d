//! `corpus min`: what a case covers (its [`signature`]: the clauses that
//! pass on the reference output, crossed with the generator shapes it
//! shows) and a greedy set cover over a directory ([`plan_min`]).

use crate::case::file::CaseFile;
use crate::case::Case;
use crate::check::{check_reducer, Outcome, Request};
use crate::formats::Format;
use crate::generate::{shapes_with, Shape};
use crate::protocol::Response;
use crate::reduce::{Input, Reference};
use crate::terms::{Budget, BudgetFields, Clause};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// One (clause, shape) pair of a [`signature`].
pub type Pair = (Clause, Shape);

/// What a case covers: every pair of a clause the checker judges
/// [`Outcome::Pass`] on the reference output for the case (with the extra
/// responses from the reference too, [`check_reducer`] with
/// [`Reference::reduce`]) and a shape the case shows (the shapes of its messages
/// and budget, [`shapes_with`]; an invalid budget counts as 0, which
/// shows no budget shape). Empty when the messages cannot be read.
pub fn signature(case: &Case) -> BTreeSet<Pair> {
    let budget = case.budget_fields();
    let req = Request {
        format: Format::Canonical,
        policy: case.policy,
        budget: &budget,
        messages: &case.messages,
        summary: case.summary.then(|| case.summary_tokens.unwrap_or(1)),
        declared: Default::default(),
        provider: None,
    };
    let reference = Reference::new(case.policy, Format::Canonical);
    let answer = |b: &BudgetFields, m: &[Value]| -> Response {
        Response::from(reference.reduce(Input::new(m).budget_fields(b)))
    };
    let want = answer(&budget, &case.messages);
    let Ok(verdicts) = check_reducer(&req, answer, Some(want)) else {
        return BTreeSet::new();
    };
    let read = Budget::read(&budget, case.messages.len()).ok();
    let shown = shapes_with(&case.messages, read.as_ref());
    let mut out = BTreeSet::new();
    for v in verdicts.iter().filter(|v| v.outcome == Outcome::Pass) {
        for s in &shown {
            out.insert((v.clause, *s));
        }
    }
    out
}

/// A case of a directory: (index of the file, index of the case in it).
pub type CaseRef = (usize, usize);

/// A case [`plan_min`] removes, and the kept cases that cover it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Removal {
    /// The case.
    pub case: CaseRef,
    /// Ids of kept cases whose signatures together hold its signature (a
    /// greedy choice, most-covering first).
    pub covered_by: Vec<String>,
}

/// The outcome of [`plan_min`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MinPlan {
    /// How many distinct (clause, shape) pairs the directory covers (and
    /// the kept cases still cover).
    pub pairs: usize,
    /// The cases kept, in file order.
    pub kept: Vec<CaseRef>,
    /// The cases removed, in file order.
    pub removed: Vec<Removal>,
    /// Files to delete: every case in them is removed.
    pub delete: Vec<usize>,
    /// Files holding several cases that stay whole although the cover
    /// would have removed some of their cases, with how many.
    pub kept_whole: Vec<(usize, usize)>,
    /// Cases kept because they have no signature (unreadable messages).
    pub unjudged: Vec<CaseRef>,
}

/// A greedy set cover over `files`: keep a smallest set of cases whose
/// [`signature`]s cover every pair the directory covers. Each round keeps
/// the case adding the most uncovered pairs, preferring fewer messages,
/// then shorter messages, then the smaller id. A file with several cases is
/// kept whole unless every one of its cases is removable (the cover is then
/// recomputed with its cases kept). Last, a kept file or case whose pairs
/// the other kept cases hold is dropped, largest first. Cases without a
/// signature are kept.
pub fn plan_min(files: &[CaseFile]) -> MinPlan {
    let mut refs: Vec<CaseRef> = Vec::new();
    let mut sigs: BTreeMap<CaseRef, BTreeSet<Pair>> = BTreeMap::new();
    let mut size: BTreeMap<CaseRef, (usize, usize, String)> = BTreeMap::new();
    for (f, file) in files.iter().enumerate() {
        for (c, case) in file.cases.iter().enumerate() {
            refs.push((f, c));
            sigs.insert((f, c), signature(case));
            let bytes = Value::Array(case.messages.clone()).to_string().len();
            size.insert((f, c), (case.messages.len(), bytes, case.id.clone()));
        }
    }
    let unjudged: BTreeSet<CaseRef> = refs
        .iter()
        .copied()
        .filter(|r| sigs[r].is_empty())
        .collect();
    let mut order = refs.clone();
    order.sort_by(|a, b| size[a].cmp(&size[b]));
    let mut forced = unjudged.clone();
    // Files of several cases that the cover would have split, with how many
    // of their cases it would have removed.
    let mut split: BTreeMap<usize, usize> = BTreeMap::new();
    let mut selected = loop {
        let mut selected: BTreeSet<CaseRef> = forced.clone();
        let mut covered: BTreeSet<Pair> = forced.iter().flat_map(|r| sigs[r].clone()).collect();
        loop {
            let mut best: Option<(usize, CaseRef)> = None;
            for r in order.iter().filter(|r| !selected.contains(r)) {
                let gain = sigs[r].difference(&covered).count();
                if gain > best.map_or(0, |b| b.0) {
                    best = Some((gain, *r));
                }
            }
            let Some((_, r)) = best else { break };
            covered.extend(sigs[&r].iter().copied());
            selected.insert(r);
        }
        let mut next = forced.clone();
        for (f, file) in files.iter().enumerate() {
            let n = file.cases.len();
            let kept = (0..n).filter(|c| selected.contains(&(f, *c))).count();
            if n > 1 && kept > 0 && kept < n {
                next.extend((0..n).map(|c| (f, c)));
                split.entry(f).or_insert(n - kept);
            }
        }
        if next == forced {
            break selected;
        }
        forced = next;
    };
    // Prune: drop a kept unit (a file of several cases, or one case) whose
    // pairs the other kept cases hold, largest units first.
    let mut units: Vec<Vec<CaseRef>> = Vec::new();
    for (f, file) in files.iter().enumerate() {
        let n = file.cases.len();
        if n > 1 {
            units.push((0..n).map(|c| (f, c)).collect());
        } else if n == 1 {
            units.push(vec![(f, 0)]);
        }
    }
    let unit_size = |u: &Vec<CaseRef>| {
        let (m, b) = u
            .iter()
            .fold((0, 0), |(m, b), r| (m + size[r].0, b + size[r].1));
        (std::cmp::Reverse(m), std::cmp::Reverse(b), u[0])
    };
    units.sort_by_key(unit_size);
    for unit in &units {
        if !unit.iter().all(|r| selected.contains(r)) || unit.iter().any(|r| unjudged.contains(r)) {
            continue;
        }
        let others: BTreeSet<Pair> = selected
            .iter()
            .filter(|r| !unit.contains(r))
            .flat_map(|r| sigs[r].iter().copied())
            .collect();
        if unit.iter().all(|r| sigs[r].is_subset(&others)) {
            for r in unit {
                selected.remove(r);
            }
        }
    }
    let pairs: BTreeSet<Pair> = sigs.values().flatten().copied().collect();
    let mut plan = MinPlan {
        pairs: pairs.len(),
        unjudged: unjudged.iter().copied().collect(),
        ..MinPlan::default()
    };
    for r in &refs {
        if selected.contains(r) {
            plan.kept.push(*r);
            continue;
        }
        let mut need: BTreeSet<Pair> = sigs[r].clone();
        let mut covered_by = Vec::new();
        while !need.is_empty() {
            let best = order
                .iter()
                .filter(|k| selected.contains(k))
                .max_by_key(|k| {
                    (
                        sigs[k].intersection(&need).count(),
                        std::cmp::Reverse(size[k].clone()),
                    )
                })
                .copied()
                .expect("a removed case is covered by kept ones");
            if sigs[&best].intersection(&need).count() == 0 {
                break;
            }
            need.retain(|p| !sigs[&best].contains(p));
            covered_by.push(files[best.0].cases[best.1].id.clone());
        }
        plan.removed.push(Removal {
            case: *r,
            covered_by,
        });
    }
    for (f, file) in files.iter().enumerate() {
        let n = file.cases.len();
        if (0..n).all(|c| !selected.contains(&(f, c))) {
            plan.delete.push(f);
        } else if let Some(removable) = split.get(&f) {
            plan.kept_whole.push((f, *removable));
        }
    }
    plan
}
