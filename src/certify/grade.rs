//! Grading a run (semantics §6, §9): per-clause tallies, and a level
//! passes when no case fails a clause of it or of a lower level.

use super::records::{Judged, Records};
use crate::terms::{Clause, Level, Policy};

/// Per-clause totals over a run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClauseTally {
    /// Cases where the clause passed.
    pub passed: usize,
    /// Cases where it failed.
    pub failed: usize,
    /// Cases where it was not judged.
    pub not_judged: usize,
}

/// The graded verdict of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grade {
    /// Per clause, in report order.
    pub clauses: Vec<(Clause, ClauseTally)>,
    /// Per level: whether it and every lower level passed.
    pub levels: Vec<(Level, bool)>,
    /// Cases run (not skipped).
    pub cases_run: usize,
    /// Cases skipped.
    pub cases_skipped: usize,
}

impl Grade {
    /// Whether every level passed.
    pub fn passed(&self) -> bool {
        self.levels.iter().all(|(_, ok)| *ok)
    }
}

/// Grades a run: a level passes when no case fails a clause of it or of a
/// lower level. The clauses are those of `policy` ([`Clause::for_run`]),
/// with the summary clauses when the run allowed `summaries`.
pub fn grade(policy: Policy, summaries: bool, results: &Records) -> Grade {
    grade_clauses(Clause::for_run(policy, summaries), results)
}

/// [`grade`] over the clauses a run judged ([`Clause::judged_in`]: with
/// `reasoning-attached` in Responses runs, `provider-accepts` with a
/// provider profile).
pub fn grade_clauses(judged: Vec<Clause>, results: &Records) -> Grade {
    let mut clauses: Vec<(Clause, ClauseTally)> = judged
        .into_iter()
        .map(|c| (c, ClauseTally::default()))
        .collect();
    let (mut cases_run, mut cases_skipped) = (0, 0);
    for r in results.iter() {
        if r.skipped.is_some() {
            cases_skipped += 1;
            continue;
        }
        cases_run += 1;
        for (c, t) in &mut clauses {
            match r.outcome(*c) {
                Judged::Pass => t.passed += 1,
                Judged::Fail(_) => t.failed += 1,
                Judged::NotJudged => t.not_judged += 1,
            }
        }
    }
    let mut ok_so_far = true;
    let levels = [Level::Protocol, Level::Safety, Level::Policy, Level::Exact]
        .into_iter()
        .map(|level| {
            ok_so_far &= clauses
                .iter()
                .filter(|(c, _)| c.level() == level)
                .all(|(_, t)| t.failed == 0);
            (level, ok_so_far)
        })
        .collect();
    Grade {
        clauses,
        levels,
        cases_run,
        cases_skipped,
    }
}
