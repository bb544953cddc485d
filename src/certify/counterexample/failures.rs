//! A run's counterexamples: which kinds of failure are shrunk and shown
//! ([`shown`]), their shrinks shared out over the run's workers
//! ([`counterexamples`]), kinds of one root shape merged, and the order
//! they are shown in ([`order`]).

use super::{shrink_from, Counterexample, ShrinkLimits, ShrinkProgress, Start};
use crate::certify::collect::FailureGroup;
use crate::certify::exchange::RunError;
use crate::certify::process;
use crate::certify::run::Settings;
use crate::generate::shapes;
use crate::terms::{Budget, Clause, Level};

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
    let work: Vec<(usize, &mut FailureGroup, ShrinkLimits)> = failures
        .iter_mut()
        .enumerate()
        .filter(|(i, _)| shown.contains(i))
        .map(|(i, g)| {
            let limits = if g.clause == Clause::ProtocolTimeout {
                ShrinkLimits::tries(0)
            } else {
                *limits
            };
            (i, g, limits)
        })
        .collect();
    let count = work.len();
    let work = std::sync::Mutex::new(work.into_iter().enumerate());
    let out: std::sync::Mutex<Vec<Option<Result<Counterexample, RunError>>>> =
        std::sync::Mutex::new((0..count).map(|_| None).collect());
    let shrinker = || {
        let mut session = settings.session();
        loop {
            let next = work.lock().expect("no shrinker panics").next();
            let Some((k, (i, g, limits))) = next else {
                break;
            };
            let each = |p: &ShrinkProgress| progress(i, p);
            let cx = shrink_from(
                session.as_mut(),
                settings,
                Start::Handed(&mut g.example),
                g.clause,
                &limits,
                &each,
            )
            .map(|mut cx| {
                cx.cases = g.cases;
                cx
            });
            out.lock().expect("no shrinker panics")[k] = Some(cx);
        }
        let _ = session.close();
    };
    let shrinkers = settings.jobs.max(1).min(count.max(1));
    if shrinkers == 1 {
        // One shrinker runs in the calling thread (WebAssembly has no
        // threads; an in-process reducer answers on the caller's).
        shrinker();
    } else {
        std::thread::scope(|s| {
            for _ in 0..shrinkers {
                s.spawn(shrinker);
            }
        });
    }
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
