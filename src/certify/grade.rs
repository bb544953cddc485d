//! Grading a run (semantics §6, §9): per-clause tallies, and a level
//! passes when no case fails a clause of it or of a lower level.

use super::run::CaseResult;
use crate::check::Outcome;
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
/// lower level.
pub fn grade(policy: Policy, results: &[CaseResult]) -> Grade {
    let clauses: Vec<(Clause, ClauseTally)> = Clause::for_policy(policy)
        .into_iter()
        .map(|c| {
            let mut t = ClauseTally::default();
            for r in results.iter().filter(|r| r.skipped.is_none()) {
                match r
                    .verdicts
                    .iter()
                    .find(|v| v.clause == c)
                    .map(|v| &v.outcome)
                {
                    Some(Outcome::Pass) => t.passed += 1,
                    Some(Outcome::Fail(_)) => t.failed += 1,
                    _ => t.not_judged += 1,
                }
            }
            (c, t)
        })
        .collect();
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
    let cases_skipped = results.iter().filter(|r| r.skipped.is_some()).count();
    Grade {
        clauses,
        levels,
        cases_run: results.len() - cases_skipped,
        cases_skipped,
    }
}
