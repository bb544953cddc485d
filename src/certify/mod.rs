//! Certification (semantics §9): run every case against a reducer, judge
//! every answer, grade the run, shrink each failing clause to a minimal
//! counterexample, and report.
//!
//! | file | owns |
//! |------|------|
//! | `mod.rs` | the cases of a run: corpus, generated, replayed, filtered, sharded ([`Sources`], [`Shard`]) |
//! | [`session`] | [`session::Session`]: one reducer, per-case or persistent, or the in-process reference |
//! | [`process`] | running an external reducer process safely |
//! | [`run`] | one case through a session, checked; many cases on many workers |
//! | [`grade`] | per-clause tallies and levels |
//! | [`known_failures`] | `--expect-fail` lists and how a run compares with them |
//! | [`counterexample`] | shrinking a failure to a minimal case, and its case file |
//! | [`report`] | the text, JSON and JUnit reports and the certificate line |

pub mod counterexample;
pub mod grade;
pub mod known_failures;
pub mod process;
pub mod report;
pub mod run;
pub mod session;

use crate::case::{load_dir, load_file, Case, CaseError};
use crate::formats::Format;
use crate::generate::{seeded_case, Config};
use run::RunCase;
use serde_json::Value;
use std::path::PathBuf;

/// The kit's own corpus: `corpus/` next to the sources the kit was built
/// from, else `./corpus`.
pub fn kit_corpus() -> PathBuf {
    let built = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/corpus"));
    if built.is_dir() {
        built
    } else {
        PathBuf::from("corpus")
    }
}

/// The generator configuration used for generated cases in `format`.
pub fn generator_config(format: Format) -> Config {
    Config::everything().sanitize_for(format)
}

/// Generated case `n` of stream `seed`, with id `gen/<seed>/<n>`.
pub fn generated_case(seed: u64, n: u64, format: Format) -> RunCase {
    let g = seeded_case(seed, n, &generator_config(format));
    RunCase {
        id: format!("gen/{seed}/{n}"),
        max_messages: Value::from(g.budget),
        messages: g.messages,
    }
}

/// Reads a generated case id `gen/<seed>/<n>`.
pub fn parse_generated_id(id: &str) -> Option<(u64, u64)> {
    let rest = id.strip_prefix("gen/")?;
    let (seed, n) = rest.split_once('/')?;
    Some((seed.parse().ok()?, n.parse().ok()?))
}

/// A run case from a case file.
pub fn from_case(case: &Case) -> RunCase {
    RunCase {
        id: case.id.clone(),
        max_messages: case.max_messages.clone(),
        messages: case.messages.clone(),
    }
}

/// A shard `K/N` (1-based K): the cases whose position in the full list is
/// `K-1` modulo `N`. The N shards of one list run every case exactly once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// This shard, 1..=count.
    pub index: usize,
    /// How many shards.
    pub count: usize,
}

/// A `--shard` value that is not `K/N` with 1 ≤ K ≤ N.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ShardError {
    /// Not two whole numbers around a `/`.
    #[error("expected K/N, got {0:?}")]
    NotKOfN(String),
    /// K is 0 or greater than N.
    #[error("shard {0:?}: need 1 <= K <= N")]
    OutOfRange(String),
}

impl std::str::FromStr for Shard {
    type Err = ShardError;
    /// Parses `K/N` with 1 ≤ K ≤ N.
    fn from_str(s: &str) -> Result<Shard, ShardError> {
        let not_k_of_n = || ShardError::NotKOfN(s.to_string());
        let (k, n) = s.split_once('/').ok_or_else(not_k_of_n)?;
        let index: usize = k.trim().parse().map_err(|_| not_k_of_n())?;
        let count: usize = n.trim().parse().map_err(|_| not_k_of_n())?;
        if count == 0 || index == 0 || index > count {
            return Err(ShardError::OutOfRange(s.to_string()));
        }
        Ok(Shard { index, count })
    }
}

impl Shard {
    /// Keeps this shard's cases.
    pub fn select<T>(&self, items: Vec<T>) -> Vec<T> {
        items
            .into_iter()
            .enumerate()
            .filter(|(i, _)| i % self.count == self.index - 1)
            .map(|(_, c)| c)
            .collect()
    }
}

/// Where the cases of a run come from (`certify`'s case options).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sources {
    /// Case files to run instead of the corpus and the generated cases
    /// (`--replay`).
    pub replay: Vec<PathBuf>,
    /// Case directories (`--corpus`); none means the kit's own
    /// ([`kit_corpus`]).
    pub corpus: Vec<PathBuf>,
    /// How many generated cases to run besides the corpus (`--cases`).
    pub generated: u64,
    /// Their seed (`--seed`).
    pub seed: u64,
    /// Only the cases with these ids (`--case`); a generated id
    /// `gen/<seed>/<n>` is regenerated.
    pub only: Vec<String>,
    /// Only this shard (`--shard`).
    pub shard: Option<Shard>,
    /// The wire format: generated cases are made for it
    /// ([`generator_config`]).
    pub format: Format,
}

/// Why a run has no cases to run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SourceError {
    /// A case file or directory that cannot be used.
    #[error(transparent)]
    Case(#[from] CaseError),
    /// `--case` names no case of the corpus and no generated case.
    #[error("no case with id {0:?}")]
    NoSuchCase(String),
    /// Nothing to run (an empty corpus and no generated cases, or an empty
    /// shard).
    #[error("no cases to run")]
    NoCases,
}

impl Sources {
    /// The cases, in a fixed order: the replayed files, or the corpus then
    /// the generated cases; filtered by [`Sources::only`], then sharded.
    /// Cases with the same budget and messages run once (the first).
    ///
    /// # Errors
    ///
    /// [`SourceError`] for an unusable case file, an unknown `--case` id,
    /// or no cases at all.
    pub fn cases(&self) -> Result<Vec<RunCase>, SourceError> {
        let mut cases: Vec<RunCase> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut push = |c: RunCase, cases: &mut Vec<RunCase>| {
            let key = serde_json::json!([c.max_messages, c.messages]).to_string();
            if seen.insert(key) {
                cases.push(c);
            }
        };
        if !self.replay.is_empty() {
            for f in &self.replay {
                for c in load_file(f)? {
                    push(from_case(&c), &mut cases);
                }
            }
        } else {
            let dirs = if self.corpus.is_empty() {
                vec![kit_corpus()]
            } else {
                self.corpus.clone()
            };
            for dir in &dirs {
                for (_, c) in load_dir(dir)? {
                    if self.only.is_empty() || self.only.contains(&c.id) {
                        push(from_case(&c), &mut cases);
                    }
                }
            }
            if self.only.is_empty() {
                for n in 0..self.generated {
                    push(generated_case(self.seed, n, self.format), &mut cases);
                }
            } else {
                for id in &self.only {
                    if let Some((seed, n)) = parse_generated_id(id) {
                        push(generated_case(seed, n, self.format), &mut cases);
                    } else if !cases.iter().any(|c| &c.id == id) {
                        return Err(SourceError::NoSuchCase(id.clone()));
                    }
                }
            }
        }
        if let Some(shard) = self.shard {
            cases = shard.select(cases);
        }
        if cases.is_empty() {
            return Err(SourceError::NoCases);
        }
        Ok(cases)
    }

    /// The seed the run's generated cases came from, when it ran the
    /// generated stream (no `--replay`, no `--case`, `--cases` > 0): what
    /// the certificate names.
    pub fn report_seed(&self) -> Option<u64> {
        (self.replay.is_empty() && self.generated > 0 && self.only.is_empty()).then_some(self.seed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_partition_the_cases() {
        let all: Vec<usize> = (0..10).collect();
        let parts: Vec<Vec<usize>> = (1..=3)
            .map(|k| Shard { index: k, count: 3 }.select(all.clone()))
            .collect();
        assert_eq!(parts, vec![vec![0, 3, 6, 9], vec![1, 4, 7], vec![2, 5, 8]]);
        assert_eq!("2/3".parse::<Shard>(), Ok(Shard { index: 2, count: 3 }));
        assert!("0/3".parse::<Shard>().is_err());
        assert!("4/3".parse::<Shard>().is_err());
        assert!("x".parse::<Shard>().is_err());
    }

    #[test]
    fn generated_ids_round_trip() {
        assert_eq!(parse_generated_id("gen/7/123"), Some((7, 123)));
        assert_eq!(parse_generated_id("seed/7/123"), None);
        let a = generated_case(7, 3, Format::Canonical);
        assert_eq!(a.id, "gen/7/3");
        assert_eq!(a, generated_case(7, 3, Format::Canonical));
    }
}
