//! Known failures (`--expect-fail FILE`): `CASE-ID CLAUSE-ID` pairs that
//! do not fail the run, and how a run's failures compare with them
//! (semantics §9).

use super::run::CaseResult;
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
        /// The line, without its comment.
        text: String,
    },
    /// A clause id that is not a clause.
    #[error("{}:{line}: unknown clause id {clause:?}", path.display())]
    UnknownClause {
        /// The file.
        path: PathBuf,
        /// The 1-based line.
        line: usize,
        /// The id.
        clause: String,
    },
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
    let mut out = Vec::new();
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
                text: line.to_string(),
            });
        };
        if Clause::from_id(clause).is_none() {
            return Err(KnownFailuresError::UnknownClause {
                path: path.to_owned(),
                line: n + 1,
                clause: clause.to_string(),
            });
        }
        out.push(KnownFailure {
            case: case.to_string(),
            clause: clause.to_string(),
        });
    }
    Ok(out)
}

/// How the run's failures compare with the known ones.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KnownFailureCheck {
    /// Failures that were known.
    pub expected: Vec<KnownFailure>,
    /// Failures that were not.
    pub unexpected: Vec<KnownFailure>,
    /// Known failures that did not happen although their case ran (the
    /// case passed that clause).
    pub now_passing: Vec<KnownFailure>,
}

/// Sorts the run's failures into known (expected) and unexpected ones.
pub fn compare_known_failures(results: &[CaseResult], known: &[KnownFailure]) -> KnownFailureCheck {
    let listed: BTreeSet<&KnownFailure> = known.iter().collect();
    let mut check = KnownFailureCheck::default();
    let mut seen = BTreeSet::new();
    for r in results {
        for v in r.failures() {
            let e = KnownFailure {
                case: r.case.id.clone(),
                clause: v.clause.id().to_string(),
            };
            if listed.contains(&e) {
                seen.insert(e.clone());
                check.expected.push(e);
            } else {
                check.unexpected.push(e);
            }
        }
    }
    // Only a listed failure whose case ran can be said to pass now: a case
    // of another shard, or filtered out, says nothing.
    let ran: BTreeSet<&str> = results
        .iter()
        .filter(|r| r.skipped.is_none())
        .map(|r| r.case.id.as_str())
        .collect();
    check.now_passing = known
        .iter()
        .filter(|e| !seen.contains(e) && ran.contains(e.case.as_str()))
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
    }
}
