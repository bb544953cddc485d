//! Grading a run (spec §6, §9): per-clause tallies, and a level
//! passes when no case with a valid input fails a clause of it or of a
//! lower level. Failures on an input that breaks a validator rule are
//! counted apart (robustness, spec §9.2) and decide no level.

use super::records::{Judged, Records};
use crate::terms::{Clause, Level, Policy};

/// Per-clause totals over a run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClauseTally {
    /// Cases where the clause passed.
    pub passed: usize,
    /// Cases where it failed: `defects + invalid_input`.
    pub failed: usize,
    /// Cases with a valid input (pending calls allowed) where it failed:
    /// what decides the levels (spec §9.2).
    pub defects: usize,
    /// Cases whose input breaks a validator rule where it failed
    /// (robustness, reported apart).
    pub invalid_input: usize,
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
    /// Cases skipped (of them, `cases_unsupported` by the reducer).
    pub cases_skipped: usize,
    /// Cases the reducer answered `unsupported` (spec §13.7), counted
    /// in `cases_skipped` too.
    pub cases_unsupported: usize,
}

impl Grade {
    /// Whether every level passed.
    pub fn passed(&self) -> bool {
        self.levels.iter().all(|(_, ok)| *ok)
    }

    /// Whether some case judged a clause of `level` (passed or failed it):
    /// a level whose clauses the run judged on no case (all not judged,
    /// as `matches-reference` under `--declare soft-budget`) passes only
    /// vacuously, and the reports say it was not judged.
    pub fn judged(&self, level: Level) -> bool {
        self.clauses
            .iter()
            .any(|(c, t)| c.level() == level && t.passed + t.failed > 0)
    }

    /// The levels the run judged no clause of ([`Grade::judged`]).
    pub fn unjudged_levels(&self) -> Vec<Level> {
        self.levels
            .iter()
            .map(|(l, _)| *l)
            .filter(|&l| !self.judged(l))
            .collect()
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
    let (mut cases_run, mut cases_skipped, mut cases_unsupported) = (0, 0, 0);
    for r in results.iter() {
        if r.skipped().is_some() {
            cases_skipped += 1;
            cases_unsupported += usize::from(r.outcome.unsupported());
            continue;
        }
        cases_run += 1;
        for (c, t) in &mut clauses {
            match r.outcome(*c) {
                Judged::Pass => t.passed += 1,
                Judged::Fail(_) => {
                    t.failed += 1;
                    if r.valid_input() {
                        t.defects += 1;
                    } else {
                        t.invalid_input += 1;
                    }
                }
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
                .all(|(_, t)| t.defects == 0);
            (level, ok_so_far)
        })
        .collect();
    Grade {
        clauses,
        levels,
        cases_run,
        cases_skipped,
        cases_unsupported,
    }
}
