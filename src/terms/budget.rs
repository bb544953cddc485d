//! The budget (semantics §2, "Budget" and "Decided — what is a budget"):
//! how much of M an output may hold. This is the one place a request's
//! `maxMessages` is read.
//!
//! Today a budget is a number of messages, every message of M costing one.
//! [`Budget`] is a type of its own rather than a bare number so that other
//! limits (a `maxTokens` with a per-message cost, say) can join it here:
//! callers parse with [`Budget::parse`] and ask the budget what it allows,
//! and only the code that counts has to learn about costs.

use serde_json::Value;
use std::fmt;

/// A valid budget: at most [`Budget::max_messages`] messages of M (every
/// message but the pinned system message) in the output.
///
/// # Examples
///
/// ```
/// use reducer_kit::terms::Budget;
/// let b = Budget::parse(&serde_json::json!(3)).unwrap();
/// assert_eq!(b.max_messages(), 3);
/// assert_eq!(b.one_smaller().map(Budget::max_messages), Some(2));
/// assert!(Budget::parse(&serde_json::json!(0)).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Budget {
    max_messages: usize,
}

/// A `maxMessages` that is not a budget (clause `rejects-bad-budget`): not
/// a JSON number denoting a whole number ≥ 1.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("maxMessages must be an integer >= 1, got {got}")]
pub struct BudgetError {
    /// The value as received, as JSON text (`0`, `"3"`, `null`).
    pub got: String,
}

impl Budget {
    /// Reads a request's `maxMessages`: a JSON number denoting a whole
    /// number ≥ 1, however it is written (`3`, `3.0` and `3e0` are all 3).
    /// A budget beyond `usize::MAX` is `usize::MAX` ("no limit").
    ///
    /// # Errors
    ///
    /// [`BudgetError`] for anything else: zero (also `-0`, `0.0`),
    /// negatives, fractions, strings, booleans, `null`, arrays, objects.
    pub fn parse(max_messages: &Value) -> Result<Budget, BudgetError> {
        let bad = || BudgetError {
            got: max_messages.to_string(),
        };
        let Value::Number(n) = max_messages else {
            return Err(bad());
        };
        let (negative, digits, exp) = crate::json::normalize_number(&n.to_string());
        if negative || digits.is_empty() || exp < 0 {
            return Err(bad());
        }
        if exp > 20 || digits.len() as i64 + exp > 20 {
            return Ok(Budget {
                max_messages: usize::MAX,
            });
        }
        let mut value: u128 = digits.parse().map_err(|_| bad())?;
        for _ in 0..exp {
            value *= 10;
        }
        Ok(Budget {
            max_messages: usize::try_from(value).unwrap_or(usize::MAX),
        })
    }

    /// The budget of `max_messages` messages; `None` for 0, which is not a
    /// budget.
    pub fn of_messages(max_messages: usize) -> Option<Budget> {
        (max_messages >= 1).then_some(Budget { max_messages })
    }

    /// How many messages of M the output may hold, ≥ 1.
    pub fn max_messages(self) -> usize {
        self.max_messages
    }

    /// The budget one message smaller (the extra request of clause
    /// `budget-monotone`), or `None` for a budget of 1.
    pub fn one_smaller(self) -> Option<Budget> {
        Budget::of_messages(self.max_messages - 1)
    }

    /// The budget as a request's `maxMessages`.
    pub fn to_json(self) -> Value {
        Value::from(self.max_messages)
    }
}

impl fmt::Display for Budget {
    /// The number of messages, as `maxMessages` spells it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.max_messages)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse_budget(v: &Value) -> Result<usize, BudgetError> {
        Budget::parse(v).map(Budget::max_messages)
    }

    #[test]
    fn budgets_must_be_whole_numbers_at_least_one() {
        assert_eq!(parse_budget(&json!(3)), Ok(3));
        assert_eq!(parse_budget(&serde_json::from_str("3.0").unwrap()), Ok(3));
        assert_eq!(parse_budget(&serde_json::from_str("2e1").unwrap()), Ok(20));
        assert_eq!(
            parse_budget(&serde_json::from_str("1e400").unwrap()),
            Ok(usize::MAX)
        );
        for bad in ["0", "-1", "1.5", "\"3\"", "null", "0.0", "-0"] {
            let v: Value = serde_json::from_str(bad).unwrap();
            assert!(matches!(parse_budget(&v), Err(BudgetError { .. })), "{bad}");
        }
        assert_eq!(
            parse_budget(&json!(0)).unwrap_err().to_string(),
            "maxMessages must be an integer >= 1, got 0"
        );
    }
}
