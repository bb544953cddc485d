//! The reference expectation of a case: what the reference reducer of the
//! case's policy answers (`expected`, or `expectedError` for a budget it
//! rejects) and what the validator reports on its messages (`violations`),
//! under the case's spec version (every version up to [`SPEC_VERSION`]
//! judges a case the same way: version 2 only adds).
//!
//! This is the one place it is computed: `corpus regen` / `corpus check`
//! ([`crate::corpus::regenerate`]), `corpus add` (regression cases), certify
//! counterexamples, generated cases (`reducer-kit generate`) and the corpus
//! test all ask [`expectation`].

use super::{Case, ExpectedError, ExpectedViolation, SPEC_VERSION};
use crate::formats::{view_history, Format};
use crate::reduce::{Input, ReduceError, Reference};
use crate::terms::{BudgetFields, Policy, ShapeError};
use crate::validate::{validate, Options};
use serde_json::Value;

/// What the reference gives a case: the fields `expected`, `expectedError`
/// and `violations`.
#[derive(Clone, Debug, PartialEq)]
pub struct Expectation {
    /// The reference output (canonical), when the budget is valid.
    pub expected: Option<Vec<Value>>,
    /// `bad-budget`, when it is not.
    pub expected_error: Option<ExpectedError>,
    /// The validator's report on the messages, under the case's
    /// `allowPending`; empty for a valid input.
    pub violations: Vec<ExpectedViolation>,
}

/// Messages the reference cannot judge: the case format has no way to
/// expect that.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExpectError {
    /// A message has a shape the kit cannot read.
    #[error("the reference cannot read the messages: {0}")]
    Unreadable(#[from] ShapeError),
}

/// The reference expectation for a request: the reference reducer of
/// `policy` on canonical `messages` with the budget members `budget` (as
/// sent, possibly invalid: `maxMessages`, or spec v2's `maxTokens` with
/// `tokens` and `countPinned`), and the validator under `allow_pending`.
///
/// # Errors
///
/// [`ExpectError::Unreadable`] when the messages cannot be read.
///
/// # Examples
///
/// ```
/// use reducer_kit::case::expect::expectation;
/// use reducer_kit::terms::{BudgetFields, Policy};
/// use serde_json::json;
/// let h: Vec<serde_json::Value> = serde_json::from_str(r#"[{"role":"user","contents":[]}]"#).unwrap();
/// let e = expectation(Policy::Turns, &BudgetFields::messages(json!(1)), &h, false).unwrap();
/// assert_eq!(e.expected, Some(h.clone()));
/// let e = expectation(Policy::Turns, &BudgetFields::messages(json!(0)), &h, false).unwrap();
/// assert!(e.expected.is_none() && e.expected_error.is_some());
/// let tokens = BudgetFields::tokens(json!(1), json!([2]), None);
/// let e = expectation(Policy::Suffix, &tokens, &h, false).unwrap();
/// assert_eq!(e.expected, Some(vec![]));
/// ```
pub fn expectation(
    policy: Policy,
    budget: &BudgetFields,
    messages: &[Value],
    allow_pending: bool,
) -> Result<Expectation, ExpectError> {
    let views = view_history(Format::Canonical, messages)?;
    let (expected, expected_error) = match Reference::new(policy, Format::Canonical)
        .reduce(Input::new(messages).budget_fields(budget))
    {
        Ok(s) => (Some(s.messages()), None),
        Err(ReduceError::BadBudget(_)) => (None, Some(ExpectedError::BadBudget)),
        Err(ReduceError::Shape(e)) => return Err(e.into()),
        Err(ReduceError::NoAcceptedOutput(_)) => {
            unreachable!("reduce without a provider never refuses for a profile")
        }
    };
    let violations = validate(&views, Options { allow_pending })
        .into_iter()
        .map(|v| ExpectedViolation {
            rule: v.rule.id().to_string(),
            index: v.index,
            id: v.id,
        })
        .collect();
    Ok(Expectation {
        expected,
        expected_error,
        violations,
    })
}

/// Whether a case of `messages` needs `allowPending`: its messages are
/// invalid as they stand but valid with the newest turn's calls and
/// approval requests pending. Regression cases and counterexamples set the
/// flag only then.
///
/// # Errors
///
/// [`ExpectError::Unreadable`] when the messages cannot be read.
pub fn needs_pending(messages: &[Value]) -> Result<bool, ExpectError> {
    let views = view_history(Format::Canonical, messages)?;
    let strict = validate(
        &views,
        Options {
            allow_pending: false,
        },
    );
    Ok(!strict.is_empty()
        && validate(
            &views,
            Options {
                allow_pending: true,
            },
        )
        .is_empty())
}

impl Expectation {
    /// Writes the expectation into `case` (`expected`, `expectedError`,
    /// `violations`) and raises its `spec` to the lowest version that has
    /// every field it uses ([`Case::required_spec`], at most
    /// [`SPEC_VERSION`]); every other field is kept. A version 1 case stays
    /// version 1: version 2 changes no expectation of it.
    pub fn apply_to(self, case: &mut Case) {
        case.spec = case.spec.max(case.required_spec()).min(SPEC_VERSION);
        case.expected = self.expected;
        case.expected_error = self.expected_error;
        case.violations = self.violations;
    }
}
