//! A run's counterexamples: which kinds of failure are shrunk and shown
//! ([`shown`]), their shrinks shared out over the run's workers
//! ([`counterexamples`]), kinds of one root shape merged, and the order
//! they are shown in ([`order`]).

use super::{shrink_from, Counterexample, Instant, ShrinkLimits, ShrinkProgress, Start};
use crate::certify::collect::{on_workers, FailureGroup};
use crate::certify::exchange::RunError;
use crate::certify::process;
use crate::certify::result::{CaseResult, RunCase};
use crate::certify::run::Settings;
use crate::certify::session::Session;
use crate::generate::shapes;
use crate::terms::{Budget, Clause, Level};
use serde::Deserialize;
use serde_json::Value;
use std::sync::Arc;

/// How many kinds of failure of one clause are shrunk and shown (the
/// first by [`crate::certify::collect::ExampleKey`]); the cases of the others count in
/// the clause's tally only.
pub const SHOWN_KINDS: usize = 3;

/// Shrinks the example of each kind of failure ([`FailureGroup`], what
/// [`crate::certify::collect::run_cases`] keeps in [`crate::certify::collect::Collected::failures`];
/// the first [`SHOWN_KINDS`] of each clause), returned in [`order`], shared out over
/// `settings.jobs` workers, each with one session of its own kept for all
/// its candidates ([`super::shrink_in`]). Protocol timeouts are not shrunk (each
/// try would cost a full time limit); they are reported as they are.
/// Kinds of one clause that shrink to cases of the same root shape (the
/// [`crate::generate::shapes`] of the minimal case) are one failure: the
/// first counterexample is kept and counts the cases of both
/// ([`Counterexample::cases`]). `progress` gets the index of the failure
/// in `failures` with each report. At the end the run's processes that
/// escaped their group are killed ([`process::sweep`]).
///
/// A shown example that nothing else holds hands its messages to its
/// shrink rather than being copied, so that a huge case is held once
/// (spec §9.1): when a candidate failed, its `case.messages` is left
/// empty (the counterexample keeps the smallest case and
/// [`Counterexample::original_id`]); when none did, they are put back.
/// An example of [`SHARED_HUGE_MESSAGES`] or more that several shown
/// failures share is shrunk for them in turn, held once: moved into the
/// first shrink and read back from the kit's compact JSON text of it for
/// each later one that needs it.
///
/// # Errors
///
/// [`RunError`] when the reducer cannot be started or the kit is stopped.
pub fn counterexamples(
    settings: &Settings,
    failures: &mut [FailureGroup],
    limits: &ShrinkLimits,
    progress: &(dyn Fn(usize, &ShrinkProgress) + Sync),
) -> Result<Vec<Counterexample>, RunError> {
    let shown = shown(failures);
    let chained = chained(failures, &shown);
    let mut work: Vec<Vec<Shrink<'_>>> = Vec::new();
    let mut count = 0;
    for (index, group) in failures.iter_mut().enumerate() {
        if !shown.contains(&index) {
            continue;
        }
        let limits = if group.clause == Clause::ProtocolTimeout {
            ShrinkLimits::tries(0)
        } else {
            *limits
        };
        let s = Shrink {
            out: count,
            index,
            group,
            limits,
        };
        count += 1;
        let chain = chained[index]
            .then(|| {
                work.iter_mut()
                    .find(|c| Arc::ptr_eq(&c[0].group.example, &s.group.example))
            })
            .flatten();
        match chain {
            Some(chain) => chain.push(s),
            None => work.push(vec![s]),
        }
    }
    let items = work.len();
    let work = std::sync::Mutex::new(work.into_iter());
    let out: std::sync::Mutex<Vec<Option<Result<Counterexample, RunError>>>> =
        std::sync::Mutex::new((0..count).map(|_| None).collect());
    let shrinker = || {
        let mut session = settings.session();
        loop {
            let next = work.lock().expect("no shrinker panics").next();
            let Some(item) = next else {
                break;
            };
            for (k, cx) in shrink_item(session.as_mut(), settings, item, progress) {
                out.lock().expect("no shrinker panics")[k] = Some(cx);
            }
        }
        let _ = session.close();
    };
    on_workers(settings.jobs.min(items), &shrinker);
    process::sweep(&settings.reducer.run_id);
    let cxs = out
        .into_inner()
        .expect("no shrinker panics")
        .into_iter()
        .map(|c| c.expect("every failure was shrunk"))
        .collect::<Result<Vec<_>, _>>()?;
    let mut cxs = merge_root_shapes(cxs);
    order(&mut cxs);
    Ok(cxs)
}

/// A shown example of this many messages or more that several shown
/// failures share (clauses failing on one case) and nothing else holds
/// is shrunk for them one after another by one worker, held once (its
/// text kept in between); a smaller one is copied for each, and its
/// shrinks run side by side.
pub const SHARED_HUGE_MESSAGES: usize = 4096;

/// One failure to shrink: where its counterexample goes in the output,
/// its index in `failures` (for progress), the failure, its limits.
struct Shrink<'a> {
    out: usize,
    index: usize,
    group: &'a mut FailureGroup,
    limits: ShrinkLimits,
}

/// What a shrink needs of a [`Shrink`] besides its example.
struct Task {
    out: usize,
    index: usize,
    clause: Clause,
    cases: usize,
    limits: ShrinkLimits,
}

impl Shrink<'_> {
    fn task(&self) -> Task {
        Task {
            out: self.out,
            index: self.index,
            clause: self.group.clause,
            cases: self.group.cases,
            limits: self.limits,
        }
    }
}

/// For each failure, whether its shrink is chained with the others that
/// share its example ([`SHARED_HUGE_MESSAGES`]): it is shown, its example
/// is that long, two or more shown failures hold it, and nothing else
/// holds it or its messages.
fn chained(failures: &[FailureGroup], shown: &[usize]) -> Vec<bool> {
    let holders = |e: &Arc<CaseResult>| {
        shown
            .iter()
            .filter(|&&k| Arc::ptr_eq(&failures[k].example, e))
            .count()
    };
    (0..failures.len())
        .map(|i| {
            let e = &failures[i].example;
            shown.contains(&i)
                && e.case.messages.len() >= SHARED_HUGE_MESSAGES
                && holders(e) >= 2
                && Arc::strong_count(e) == holders(e)
                && Arc::strong_count(&e.case.messages) == 1
        })
        .collect()
}

/// Shrinks the failures of `item` (one, or a chain sharing one example,
/// [`chained`]) in turn through `session`: each counterexample with its
/// place in the output.
///
/// A chain's failures give their example up for its length (each holds a
/// stand-in without messages), so that the first shrink has it moved in
/// (spec §9.1); its messages are kept as compact JSON text, about the size
/// of the case file, and read again for each later shrink the one before
/// took them from (unless the kit is stopped). Each shrink of a chain has
/// an equal share of the time left when it starts for those still to run.
/// At the end every failure of the chain holds the example again, as the
/// last shrink left it.
fn shrink_item(
    session: &mut dyn Session,
    settings: &Settings,
    mut item: Vec<Shrink<'_>>,
    progress: &(dyn Fn(usize, &ShrinkProgress) + Sync),
) -> Vec<(usize, Result<Counterexample, RunError>)> {
    let one = |session: &mut dyn Session, example: &mut Arc<CaseResult>, s: &Task| {
        let each = |p: &ShrinkProgress| progress(s.index, p);
        let cx = shrink_from(
            session,
            settings,
            Start::Handed(example),
            s.clause,
            &s.limits,
            &each,
        );
        (
            s.out,
            cx.map(|mut cx| {
                cx.cases = s.cases;
                cx
            }),
        )
    };
    if let [s] = &mut item[..] {
        let task = s.task();
        return vec![one(session, &mut s.group.example, &task)];
    }
    let aside = Arc::new(stand_in(&item[0].group.example));
    // The last one taken is kept and the others dropped: it is then the
    // example's only holder.
    let mut example = None;
    for s in &mut item {
        example = Some(std::mem::replace(&mut s.group.example, aside.clone()));
    }
    let mut example = example.expect("a chain holds two failures or more");
    let mut text = Some(serde_json::to_vec(&*example.case.messages).expect("values write as JSON"));
    let last = item.len() - 1;
    let mut done = Vec::with_capacity(item.len());
    for (j, s) in item.iter().enumerate() {
        let mut task = s.task();
        // An equal share of the time left for each shrink still to run (the
        // last has what is left), so that the first cannot starve the rest.
        let now = Instant::now();
        let share = (item.len() - j) as u32;
        task.limits.deadline = task
            .limits
            .deadline
            .map(|d| now + d.saturating_duration_since(now) / share);
        // Stopped, the shrink returns at once: nothing is read back.
        if example.case.messages.is_empty() && crate::certify::interrupt::requested().is_none() {
            if let (Some(t), Some(r)) = (&text, Arc::get_mut(&mut example)) {
                r.case.messages = Arc::new(read_back(t));
            }
        }
        if j == last {
            text = None;
        }
        done.push(one(session, &mut example, &task));
    }
    for s in &mut item {
        s.group.example = example.clone();
    }
    done
}

/// What a failure holds while its example is in a shrink: the example's
/// case without messages, no response, no verdicts.
fn stand_in(example: &CaseResult) -> CaseResult {
    CaseResult {
        case: RunCase {
            messages: Default::default(),
            ..example.case.clone()
        },
        response: None,
        verdicts: Vec::new(),
        stderr_tail: String::new(),
        outcome: example.outcome.clone(),
        last_request: None,
        took: example.took,
    }
}

/// Messages read back from the kit's own compact text of them
/// ([`shrink_item`]): as deep as their first reading allowed.
fn read_back(text: &[u8]) -> Vec<Value> {
    let mut de = serde_json::Deserializer::from_slice(text);
    de.disable_recursion_limit();
    Vec::<Value>::deserialize(&mut de).expect("the kit's own text of values reads back")
}

/// The order counterexamples are shown in: defects first (a failure on
/// invalid input is never the first shown), then causes before what they
/// cause: the protocol level's clauses (an answer the kit could not read
/// fails every clause after it), then the safety level's, then the
/// others; within a level the most failing cases first, then clause order
/// (stable).
pub fn order(cxs: &mut [Counterexample]) {
    cxs.sort_by_key(|c| {
        let level = match c.clause.level() {
            Level::Protocol => 0,
            Level::Safety => 1,
            Level::Policy | Level::Exact => 2,
        };
        (!c.valid_input, level, std::cmp::Reverse(c.cases))
    });
}

/// The indexes in `failures` of the kinds that are shrunk and shown: the
/// first [`SHOWN_KINDS`] of each clause.
pub fn shown(failures: &[FailureGroup]) -> Vec<usize> {
    let mut out = Vec::new();
    for (i, g) in failures.iter().enumerate() {
        if out
            .iter()
            .filter(|&&k: &&usize| failures[k].clause == g.clause)
            .count()
            < SHOWN_KINDS
        {
            out.push(i);
        }
    }
    out
}

/// One counterexample per clause and root shape (module doc of
/// [`counterexamples`]): later ones of the same clause whose minimal case
/// shows the same shapes add their cases to the first and go.
fn merge_root_shapes(cxs: Vec<Counterexample>) -> Vec<Counterexample> {
    type Shapes = Option<std::collections::BTreeSet<crate::generate::Shape>>;
    let root = |cx: &Counterexample| -> Shapes {
        Budget::read(&cx.case.budget, cx.case.messages.len())
            .ok()
            .map(|b| shapes(&cx.case.messages, b.max_messages()))
    };
    // A counterexample's shapes are read only when another one of its
    // clause is there to compare (a case too large to shrink is read
    // once, if ever).
    let mut out: Vec<(Counterexample, Option<Shapes>)> = Vec::new();
    for cx in cxs {
        if !out.iter().any(|(o, _)| o.clause == cx.clause) {
            out.push((cx, None));
            continue;
        }
        let r = root(&cx);
        let same = r.is_some().then(|| {
            out.iter_mut()
                .filter(|(o, _)| o.clause == cx.clause)
                .find_map(|(o, known)| (*known.get_or_insert_with(|| root(o)) == r).then_some(o))
        });
        match same.flatten() {
            Some(o) => o.cases += cx.cases,
            None => out.push((cx, Some(r))),
        }
    }
    out.into_iter().map(|(c, _)| c).collect()
}
