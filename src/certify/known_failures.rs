//! Known failures (`--expect-fail FILE`): `CASE-ID CLAUSE-ID` pairs that
//! do not fail the run, and how a run's failures compare with them
//! (spec §9).

use super::records::Records;
use crate::terms::Clause;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// One known failure: a case id and a clause id.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct KnownFailure {
    /// The case id.
    pub case: String,
    /// The clause id.
    pub clause: String,
}

/// A known-failures file that cannot be used, naming the file and line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KnownFailuresError {
    /// A line that is not two words.
    #[error("{}:{line}: expected `CASE-ID CLAUSE-ID`, got {text:?}", path.display())]
    NotAPair {
        /// The file.
        path: PathBuf,
        /// The 1-based line.
        line: usize,
        /// The line, without its comment, cut after [`ECHOED`] characters
        /// (`... (N bytes)` then says how long it was).
        text: String,
    },
    /// A clause id that is not a clause.
    #[error("{}:{line}: unknown clause id {clause:?}", path.display())]
    UnknownClause {
        /// The file.
        path: PathBuf,
        /// The 1-based line.
        line: usize,
        /// The id, cut as [`KnownFailuresError::NotAPair`]'s text is.
        clause: String,
    },
    /// A case id that no source of the run has (`--corpus`, `--replay`,
    /// the generated cases, `--case`).
    #[error("{}:{line}: case id {case:?} is in no source of this run", path.display())]
    NoSuchCase {
        /// The file.
        path: PathBuf,
        /// The 1-based line.
        line: usize,
        /// The id, cut as [`KnownFailuresError::NotAPair`]'s text is.
        case: String,
    },
}

/// A known-failures file read leniently ([`read_known_failures`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KnownList {
    /// The usable pairs, each with its 1-based line.
    pub pairs: Vec<(usize, KnownFailure)>,
    /// The lines that name an unknown clause (left out of `pairs`): a
    /// usage error under `--strict-expectations`, a warning otherwise.
    pub problems: Vec<KnownFailuresError>,
}

impl KnownList {
    /// Adds a [`KnownFailuresError::NoSuchCase`] problem for every pair
    /// whose case id `known` does not know (the pair stays).
    pub fn check_cases(&mut self, path: &Path, known: impl Fn(&str) -> bool) {
        for (line, k) in &self.pairs {
            if !known(&k.case) {
                self.problems.push(KnownFailuresError::NoSuchCase {
                    path: path.to_owned(),
                    line: *line,
                    case: echoed(&k.case),
                });
            }
        }
        self.problems.sort_by_key(|p| match p {
            KnownFailuresError::NotAPair { line, .. }
            | KnownFailuresError::UnknownClause { line, .. }
            | KnownFailuresError::NoSuchCase { line, .. } => *line,
        });
    }

    /// The pairs without their lines.
    pub fn failures(&self) -> Vec<KnownFailure> {
        self.pairs.iter().map(|(_, k)| k.clone()).collect()
    }
}

/// Reads a known-failures file as [`parse_known_failures`] does, but a
/// line naming an unknown clause is a problem of the list
/// ([`KnownList::problems`]), not an error.
///
/// # Errors
///
/// [`KnownFailuresError::NotAPair`] for a line that is not two words.
pub fn read_known_failures(text: &str, path: &Path) -> Result<KnownList, KnownFailuresError> {
    let mut out = KnownList::default();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let [case, clause] = words.as_slice() else {
            return Err(KnownFailuresError::NotAPair {
                path: path.to_owned(),
                line: n + 1,
                text: echoed(line),
            });
        };
        if Clause::from_id(clause).is_none() {
            out.problems.push(KnownFailuresError::UnknownClause {
                path: path.to_owned(),
                line: n + 1,
                clause: echoed(clause),
            });
            continue;
        }
        out.pairs.push((
            n + 1,
            KnownFailure {
                case: case.to_string(),
                clause: clause.to_string(),
            },
        ));
    }
    Ok(out)
}

/// How many characters of a bad line an error echoes.
pub const ECHOED: usize = 200;

/// `text`, cut after [`ECHOED`] characters: `<first 200>... (N bytes)`.
fn echoed(text: &str) -> String {
    match text.char_indices().nth(ECHOED) {
        Some((i, _)) => format!("{}... ({} bytes)", &text[..i], text.len()),
        None => text.to_string(),
    }
}

/// Reads a known-failures file (`--expect-fail`): one `CASE-ID CLAUSE-ID`
/// pair a line; blank lines and `#` comments are ignored.
///
/// # Errors
///
/// [`KnownFailuresError`] for a line that is not two words or names an
/// unknown clause.
pub fn parse_known_failures(
    text: &str,
    path: &Path,
) -> Result<Vec<KnownFailure>, KnownFailuresError> {
    let list = read_known_failures(text, path)?;
    match list.problems.into_iter().next() {
        Some(p) => Err(p),
        None => Ok(list.pairs.into_iter().map(|(_, k)| k).collect()),
    }
}

/// How the run's failures compare with the known ones. Only what the
/// list bounds is held; the unexpected failures, as many as the run has,
/// are counted here and listed again from the records
/// ([`KnownFailureCheck::unexpected_in`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KnownFailureCheck {
    /// Failures that were known.
    pub expected: Vec<KnownFailure>,
    /// How many failures on a valid input were not known (they fail the
    /// run; failures on an invalid input decide nothing, spec §9.2).
    pub unexpected: usize,
    /// Known failures that did not happen although their case ran (the
    /// case passed that clause).
    pub now_passing: Vec<KnownFailure>,
    /// The known failures.
    listed: BTreeSet<KnownFailure>,
}

impl KnownFailureCheck {
    /// The failures on a valid input of `results` (the records the check
    /// was made of) that are not known, in case order, then clause order.
    pub fn unexpected_in<'a>(
        &'a self,
        results: &'a Records,
    ) -> impl Iterator<Item = KnownFailure> + 'a {
        results
            .iter()
            .filter(|r| r.valid_input())
            .flat_map(move |r| {
                r.failures
                    .iter()
                    .map(|(clause, _)| KnownFailure {
                        case: r.id.clone(),
                        clause: clause.id().to_string(),
                    })
                    .filter(|e| !self.listed.contains(e))
                    .collect::<Vec<_>>()
            })
    }
}

/// Sorts the run's failures into known (expected) and unexpected ones.
pub fn compare_known_failures(results: &Records, known: &[KnownFailure]) -> KnownFailureCheck {
    let mut check = KnownFailureCheck {
        listed: known.iter().cloned().collect(),
        ..KnownFailureCheck::default()
    };
    let known_cases: BTreeSet<&str> = known.iter().map(|e| e.case.as_str()).collect();
    let mut seen = BTreeSet::new();
    // Only a listed failure whose case ran can be said to pass now: a case
    // of another shard, or filtered out, says nothing.
    let mut ran: BTreeSet<String> = BTreeSet::new();
    for r in results.iter() {
        if r.skipped().is_none() && known_cases.contains(r.id.as_str()) {
            ran.insert(r.id.clone());
        }
        for (clause, _) in &r.failures {
            let e = KnownFailure {
                case: r.id.clone(),
                clause: clause.id().to_string(),
            };
            if check.listed.contains(&e) {
                seen.insert(e.clone());
                check.expected.push(e);
            } else if r.valid_input() {
                check.unexpected += 1;
            }
        }
    }
    check.now_passing = known
        .iter()
        .filter(|e| !seen.contains(*e) && ran.contains(&e.case))
        .cloned()
        .collect();
    check
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_failures_file() {
        let e = parse_known_failures(
            "# known\nseed/a no-orphan-result\n\nseed/b budget # why\n",
            Path::new("x"),
        )
        .unwrap();
        assert_eq!(
            e[1],
            KnownFailure {
                case: "seed/b".into(),
                clause: "budget".into()
            }
        );
        assert_eq!(
            parse_known_failures("a b c", Path::new("x"))
                .unwrap_err()
                .to_string(),
            "x:1: expected `CASE-ID CLAUSE-ID`, got \"a b c\""
        );
        assert_eq!(
            parse_known_failures("a nope", Path::new("x"))
                .unwrap_err()
                .to_string(),
            "x:1: unknown clause id \"nope\""
        );
        // A huge bad line is echoed in part.
        let huge = format!("# ok\n{}", "x ".repeat(1_000_000));
        let e = parse_known_failures(&huge, Path::new("big"))
            .unwrap_err()
            .to_string();
        let expected = format!(
            "big:2: expected `CASE-ID CLAUSE-ID`, got \"{}... (1999999 bytes)\"",
            "x ".repeat(100)
        );
        assert_eq!(e, expected);
        let e = parse_known_failures(&format!("a {}", "y".repeat(500)), Path::new("c"))
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            format!(
                "c:1: unknown clause id \"{}... (500 bytes)\"",
                "y".repeat(200)
            )
        );
    }
}
