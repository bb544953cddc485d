//! Regression corpora as a workflow (`reducer-kit corpus`): keep the cases
//! that once broke a reducer, regenerate their expectations when the spec
//! moves, import new failures, shrink the set, and seed the fuzzers.
//!
//! A corpus directory is read with [`crate::case::file::load_files`]; files
//! are only ever written atomically (a temporary file in the same folder,
//! renamed into place): [`crate::atomic::replace`] and
//! [`crate::atomic::create_new`]; `regen` and `min` change the directory as
//! a whole ([`crate::atomic::Changes`], spec §8.11).
//!
//! | file | job |
//! |------|-----|
//! | `mod.rs` | `regen` and `check`: [`compare`], [`regenerate`], [`differences`] judge a stored expectation against the reference ([`crate::case::expect`]) under the spec versions up to [`SPEC_VERSION`](crate::case::SPEC_VERSION) |
//! | [`import`] | `add`: a certify counterexample or a libFuzzer artifact as a regression case |
//! | [`min`] | `min`: the (clause, shape) pairs a case covers, and a greedy set cover over a directory |
//! | [`seeds`] | `seed-fuzz`: seed inputs for every fuzz target, from the generator |

pub mod import;
pub mod min;
pub mod seeds;

use crate::case::expect::{expectation, ExpectError};
use crate::case::{Case, ExpectedError, ExpectedViolation};
use crate::json::first_difference;
use serde_json::Value;
use std::fmt;

/// `case` with `expected`, `expectedError` and `violations` recomputed by
/// the reference ([`expectation`], under the case's `allowPending`) and
/// `spec` raised to the lowest version that has every field it uses
/// ([`Case::required_spec`]); every other field kept.
///
/// # Errors
///
/// As [`expectation`].
pub fn regenerate(case: &Case) -> Result<Case, ExpectError> {
    let e = expectation(
        case.policy,
        &case.budget_fields(),
        &case.messages,
        case.allow_pending,
    )?;
    let mut out = case.clone();
    e.apply_to(&mut out);
    Ok(out)
}

/// A stored expectation, summarised: how many messages, or which error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expected {
    /// `expected` with this many messages.
    Messages(usize),
    /// `expectedError`.
    Error(ExpectedError),
}

impl Expected {
    fn of(case: &Case) -> Expected {
        match (&case.expected, case.expected_error) {
            (Some(m), _) => Expected::Messages(m.len()),
            (None, Some(e)) => Expected::Error(e),
            (None, None) => Expected::Messages(0),
        }
    }
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expected::Messages(1) => f.write_str("1 message"),
            Expected::Messages(n) => write!(f, "{n} messages"),
            Expected::Error(ExpectedError::BadBudget) => f.write_str("error bad-budget"),
        }
    }
}

/// One way a stored case differs from its regenerated form. Its `Display`
/// reads `stored -> reference`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Difference {
    /// The case was made under an older spec version.
    Spec {
        /// The stored `spec`.
        stored: u32,
        /// The regenerated one.
        reference: u32,
    },
    /// `expected` / `expectedError` differ.
    Expected {
        /// The stored expectation.
        stored: Expected,
        /// The reference's.
        reference: Expected,
        /// The first differing JSON path of the two `expected` arrays
        /// (`$[0].contents[1].text`), when both are arrays.
        path: Option<String>,
    },
    /// `violations` differ.
    Violations {
        /// How many are stored.
        stored: usize,
        /// How many the validator reports.
        reference: usize,
        /// The first differing JSON path of the two `violations` arrays.
        path: String,
    },
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Difference::Spec { stored, reference } => {
                write!(f, "spec v{stored} -> v{reference}")
            }
            Difference::Expected {
                stored,
                reference,
                path,
            } => {
                write!(f, "expected {stored} -> {reference}")?;
                match path {
                    Some(p) => write!(f, ", first difference at {p}"),
                    None => Ok(()),
                }
            }
            Difference::Violations {
                stored,
                reference,
                path,
            } => write!(
                f,
                "violations {stored} -> {reference}, first difference at {path}"
            ),
        }
    }
}

/// How `stored` differs from `regenerated` (its [`regenerate`]d form), in the
/// order spec, expected, violations; empty when it does not. Expectations are
/// compared as JSON values (spec §1 equality).
pub fn differences(stored: &Case, regenerated: &Case) -> Vec<Difference> {
    let mut out = Vec::new();
    if stored.spec != regenerated.spec {
        out.push(Difference::Spec {
            stored: stored.spec,
            reference: regenerated.spec,
        });
    }
    let (old, new) = (Expected::of(stored), Expected::of(regenerated));
    match (&stored.expected, &regenerated.expected) {
        (Some(a), Some(b)) => {
            let path = first_difference(&Value::Array(a.clone()), &Value::Array(b.clone()));
            if path.is_some() {
                out.push(Difference::Expected {
                    stored: old,
                    reference: new,
                    path,
                });
            }
        }
        _ if old != new => out.push(Difference::Expected {
            stored: old,
            reference: new,
            path: None,
        }),
        _ => {}
    }
    let as_json = |v: &[ExpectedViolation]| serde_json::to_value(v).expect("violations serialize");
    if let Some(path) = first_difference(
        &as_json(&stored.violations),
        &as_json(&regenerated.violations),
    ) {
        out.push(Difference::Violations {
            stored: stored.violations.len(),
            reference: regenerated.violations.len(),
            path,
        });
    }
    out
}

/// The judgement of one stored case against the reference.
#[derive(Clone, Debug, PartialEq)]
pub enum Comparison {
    /// The stored expectation is the reference's.
    Matches,
    /// The case was made under an older spec (`spec` is that version): it
    /// is not judged under the current rules; regenerate it.
    OlderSpec(u32),
    /// The stored expectation differs; the regenerated case and how.
    Differs(Box<Case>, Vec<Difference>),
    /// The reference cannot judge it (the error says why).
    Unusable(ExpectError),
}

/// Judges `case` against the reference. A case made under a spec older
/// than the lowest that has every field it uses ([`Case::required_spec`];
/// in practice `spec` 0) is [`Comparison::OlderSpec`], never judged by the
/// new rules; a version 1 case is judged as version 1 judges it, which
/// version 2 leaves as it was.
///
/// # Examples
///
/// ```
/// use reducer_kit::corpus::{compare, Comparison};
/// let mut case = reducer_kit::case::parse_cases(
///     r#"{"id":"a/b","spec":1,"policy":"turns","maxMessages":1,"messages":[],"expected":[]}"#,
///     std::path::Path::new("x.json")).unwrap().remove(0);
/// assert_eq!(compare(&case), Comparison::Matches);
/// case.spec = 0;
/// assert_eq!(compare(&case), Comparison::OlderSpec(0));
/// ```
pub fn compare(case: &Case) -> Comparison {
    if case.spec < case.required_spec() {
        return Comparison::OlderSpec(case.spec);
    }
    match regenerate(case) {
        Err(e) => Comparison::Unusable(e),
        Ok(new) => {
            let diffs = differences(case, &new);
            if diffs.is_empty() {
                Comparison::Matches
            } else {
                Comparison::Differs(Box::new(new), diffs)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::file::CaseFile;
    use std::path::PathBuf;

    fn corpus() -> PathBuf {
        crate::certify::kit_corpus()
    }

    #[test]
    fn an_older_spec_is_reported_not_judged_and_regen_updates_it() {
        let file = CaseFile::read(&corpus().join("seed/order-shipment.json")).unwrap();
        let mut old = file.cases[0].clone();
        old.spec = 0;
        old.expected = Some(Vec::new());
        assert_eq!(compare(&old), Comparison::OlderSpec(0));
        let new = regenerate(&old).unwrap();
        assert_eq!(new, file.cases[0]);
        let d = differences(&old, &new);
        assert_eq!(
            d.iter().map(ToString::to_string).collect::<Vec<_>>(),
            vec![
                "spec v0 -> v1".to_string(),
                "expected 0 messages -> 1 message, first difference at $[0]".to_string()
            ]
        );
    }
}
