//! The budget (spec §2, "Budget" and "Decided — what is a budget"; spec
//! §11, weighted budgets): how much of M an output may hold. This is the
//! one place a request's budget members are read.
//!
//! A budget is a limit N and a cost per message. Protocol 1 knows only
//! `maxMessages`: every message of M costs 1 and the pinned system message
//! never counts. Protocol 2 adds `maxTokens` with `tokens`, one cost per
//! message, and `countPinned`, whether the pinned system message's cost
//! counts against N (spec §11.1). Both are one [`Budget`]: a message
//! budget is the token budget whose every cost is 1 and whose
//! `countPinned` is false, so every caller keeps one type and only the code
//! that counts asks [`Budget::cost`].
//!
//! [`BudgetFields`] holds the members as a request sent them (each possibly
//! invalid on purpose); [`Budget::read`] judges them (clause
//! `rejects-bad-budget`); [`Budget::available`] gives B, what M may cost,
//! once the pinned message is known, and finds an unsatisfiable budget.

use serde_json::Value;
use std::fmt;
use std::sync::Arc;

/// A valid budget: a limit N ≥ 1 and what each message costs against it.
///
/// Message budgets (`maxMessages`) cost 1 per message and never count the
/// pinned system message; token budgets (`maxTokens`) cost each message its
/// entry of `tokens` and count the pinned message when `countPinned`
/// (spec §11.3). Indices are positions in the kit's message list: the
/// request's `messages`, with a format's top-level system prompt as message
/// 0 (spec §1.5).
///
/// # Examples
///
/// ```
/// use reducer_kit::terms::Budget;
/// let b = Budget::parse(&serde_json::json!(3)).unwrap();
/// assert_eq!(b.max_messages(), 3);
/// assert_eq!(b.one_smaller().map(|b| b.max_messages()), Some(2));
/// assert!(Budget::parse(&serde_json::json!(0)).is_err());
///
/// let t = Budget::of_tokens(45, vec![5, 1, 40, 3, 2], false).unwrap();
/// assert_eq!((t.limit(), t.cost(2), t.cost_of([2, 3, 4])), (45, 40, 45));
/// assert_eq!(t.available(None), Ok(45));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Budget {
    /// N: `maxMessages` or `maxTokens`. At least 1, except for the budgets
    /// [`Budget::less`] makes for judging a summary.
    limit: u64,
    /// Per message of the kit's list; `None` for a message budget (every
    /// cost 1).
    costs: Option<Arc<[u64]>>,
    /// Whether the pinned system message's cost counts against the limit.
    count_pinned: bool,
}

/// The budget members of a request as it sent them (spec §8.1, spec
/// §13.1), each possibly invalid on purpose, for [`Budget::read`]. `None`
/// is an absent member.
///
/// `tokens` covers the kit's message list: in a format with a top-level
/// system prompt, the request's `systemTokens` is its first entry
/// ([`crate::protocol`] joins and splits them).
///
/// # Examples
///
/// ```
/// use reducer_kit::terms::{Budget, BudgetFields};
/// use serde_json::json;
/// let f = BudgetFields::tokens(json!(5), json!([1, 2.0, 0]), None);
/// let b = Budget::read(&f, 3).unwrap();
/// assert_eq!((b.limit(), b.cost(1), b.is_tokens()), (5, 2, true));
/// assert!(Budget::read(&f, 4).is_err()); // one cost per message
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BudgetFields {
    /// `maxMessages`.
    pub max_messages: Option<Value>,
    /// `maxTokens` (protocol 2).
    pub max_tokens: Option<Value>,
    /// `tokens` (protocol 2): one cost per message of the kit's list.
    pub tokens: Option<Value>,
    /// `countPinned` (protocol 2).
    pub count_pinned: Option<Value>,
}

/// Budget members that do not make a budget (clause `rejects-bad-budget`,
/// spec §2 and spec §11.2). Messages are lowercase and quote what was
/// received as JSON text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BudgetError {
    /// `maxMessages` is not a JSON number denoting a whole number ≥ 1 (spec
    /// §2; this text is protocol 1's and never changes).
    #[error("maxMessages must be an integer >= 1, got {got}")]
    MaxMessages {
        /// The value as received, as JSON text (`0`, `"3"`, `null`).
        got: String,
    },
    /// `maxTokens` is not a JSON number denoting a whole number ≥ 1.
    #[error("maxTokens must be an integer >= 1, got {got}")]
    MaxTokens {
        /// The value as received, as JSON text.
        got: String,
    },
    /// Both `maxMessages` and `maxTokens`.
    #[error("the request has both maxMessages and maxTokens (exactly one is allowed)")]
    Both,
    /// Neither `maxMessages` nor `maxTokens`.
    #[error("the request has neither maxMessages nor maxTokens")]
    Neither,
    /// `tokens` is missing, not an array, or not one entry per message.
    #[error("tokens must be an array with one cost per message ({messages} messages), got {got}")]
    Tokens {
        /// How many messages the request has (its top-level system prompt
        /// included).
        messages: usize,
        /// What was received: `no tokens`, `3 costs`, `a string`.
        got: String,
    },
    /// An entry of `tokens` is not a whole number ≥ 0 (at most 2^64 − 1).
    #[error("tokens[{index}] must be an integer >= 0, got {got}")]
    Cost {
        /// The entry's index in the kit's message list.
        index: usize,
        /// The value as received, as JSON text.
        got: String,
    },
    /// `countPinned` is present and not a boolean.
    #[error("countPinned must be true or false, got {got}")]
    CountPinned {
        /// The value as received, as JSON text.
        got: String,
    },
    /// `countPinned` is true and the pinned system message alone costs more
    /// than `maxTokens` (spec §11.2: a budget no output can honour).
    #[error("the pinned system message (message {index}) costs {cost}, more than maxTokens {limit}, and countPinned is true")]
    Unsatisfiable {
        /// The pinned message's index in the kit's list.
        index: usize,
        /// Its cost.
        cost: u64,
        /// `maxTokens`.
        limit: u64,
    },
}

/// The cost `--costs text-length` gives a message (spec §13.5): the
/// number of characters of its compact JSON, divided by 4 and rounded up,
/// at least 1. A stand-in for a tokenizer on real conversations, and one of
/// the generator's cost distributions.
///
/// # Examples
///
/// ```
/// use reducer_kit::terms::budget::text_length_cost;
/// let m = serde_json::json!({"role": "user", "content": "Hi"});
/// assert_eq!(m.to_string().chars().count(), 30);
/// assert_eq!(text_length_cost(&m), 8);
/// ```
pub fn text_length_cost(message: &Value) -> u64 {
    (message.to_string().chars().count() as u64)
        .div_ceil(4)
        .max(1)
}

/// A JSON number read as a whole number ≥ 0 (spec §2: `3.0` is 3, `1e1`
/// is 10).
enum Whole {
    /// The value, when it fits in 64 bits.
    Exact(u64),
    /// A whole number too large for 64 bits.
    Huge,
}

/// `value` as a whole number ≥ 0, or `None` for a negative number, a
/// fraction, or anything but a number.
fn whole(value: &Value) -> Option<Whole> {
    let Value::Number(n) = value else {
        return None;
    };
    // The common case, written as plain digits: exactly what the decimal
    // reading below gives it, without its allocations.
    if let Some(v) = n.as_u64() {
        return Some(Whole::Exact(v));
    }
    let d = crate::json::Decimal::parse(&n.to_string());
    if d.digits.is_empty() {
        return Some(Whole::Exact(0));
    }
    // Below zero, or a last significant digit below the units (the exponent
    // compared exactly, however long: `1e-99999999999999999999` is a
    // fraction).
    if d.negative || d.exponent.is_negative() {
        return None;
    }
    let Some(exp) = d
        .exponent
        .to_i64()
        .filter(|e| d.digits.len() as i64 + e <= 20)
    else {
        // More than 20 digits (`2e99999999999999999999`, `1e400`).
        return Some(Whole::Huge);
    };
    let mut v: u128 = d.digits.parse().ok()?;
    for _ in 0..exp {
        v *= 10;
    }
    Some(u64::try_from(v).map_or(Whole::Huge, Whole::Exact))
}

/// A limit (`maxMessages`, `maxTokens`): a whole number ≥ 1; one too large
/// for 64 bits is `u64::MAX`, "no limit".
fn limit(value: &Value) -> Option<u64> {
    match whole(value)? {
        Whole::Exact(0) => None,
        Whole::Exact(n) => Some(n),
        Whole::Huge => Some(u64::MAX),
    }
}

/// What a `tokens` member holds, for an error message (never the whole
/// array).
fn describe_tokens(tokens: Option<&Value>) -> String {
    match tokens {
        None => "no tokens".into(),
        Some(Value::Array(a)) if a.len() == 1 => "1 cost".into(),
        Some(Value::Array(a)) => format!("{} costs", a.len()),
        Some(Value::Null) => "null".into(),
        Some(Value::Bool(_)) => "a boolean".into(),
        Some(Value::Number(_)) => "a number".into(),
        Some(Value::String(_)) => "a string".into(),
        Some(Value::Object(_)) => "an object".into(),
    }
}

impl Budget {
    /// Reads a request's `maxMessages` (protocol 1): a JSON number denoting
    /// a whole number ≥ 1, however it is written (`3`, `3.0` and `3e0` are
    /// all 3). A budget beyond 64 bits is `u64::MAX` ("no limit"), however
    /// large its exponent (`2e99999999999999999999`); the value is read
    /// exactly, so `1e-99999999999999999999` is a fraction, not a budget.
    ///
    /// # Errors
    ///
    /// [`BudgetError::MaxMessages`] for anything else: zero (also `-0`,
    /// `0.0`), negatives, fractions, strings, booleans, `null`, arrays,
    /// objects.
    pub fn parse(max_messages: &Value) -> Result<Budget, BudgetError> {
        let limit = limit(max_messages).ok_or_else(|| BudgetError::MaxMessages {
            got: max_messages.to_string(),
        })?;
        Ok(Budget {
            limit,
            costs: None,
            count_pinned: false,
        })
    }

    /// Reads the budget members of a request of `messages` messages (the
    /// kit's list: a top-level system prompt counts) under protocol 2 (spec
    /// §11.2), in this order: exactly one of `maxMessages` and
    /// `maxTokens`; with `maxMessages`, [`Budget::parse`] (the other
    /// members are not read); with `maxTokens`, a whole number ≥ 1, then
    /// `tokens`, an array of one whole number ≥ 0 per message, then
    /// `countPinned`, absent (false) or a boolean. Whether the budget can be
    /// honoured at all needs the pinned message: [`Budget::available`].
    ///
    /// # Errors
    ///
    /// The first [`BudgetError`] met in that order.
    pub fn read(fields: &BudgetFields, messages: usize) -> Result<Budget, BudgetError> {
        let max_tokens = match (&fields.max_messages, &fields.max_tokens) {
            (Some(_), Some(_)) => return Err(BudgetError::Both),
            (None, None) => return Err(BudgetError::Neither),
            (Some(m), None) => return Budget::parse(m),
            (None, Some(t)) => t,
        };
        let limit = limit(max_tokens).ok_or_else(|| BudgetError::MaxTokens {
            got: max_tokens.to_string(),
        })?;
        let costs = match &fields.tokens {
            Some(Value::Array(a)) if a.len() == messages => a
                .iter()
                .enumerate()
                .map(|(index, t)| match whole(t) {
                    Some(Whole::Exact(c)) => Ok(c),
                    _ => Err(BudgetError::Cost {
                        index,
                        got: t.to_string(),
                    }),
                })
                .collect::<Result<Vec<u64>, BudgetError>>()?,
            other => {
                return Err(BudgetError::Tokens {
                    messages,
                    got: describe_tokens(other.as_ref()),
                })
            }
        };
        let count_pinned = match &fields.count_pinned {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                return Err(BudgetError::CountPinned {
                    got: other.to_string(),
                })
            }
        };
        Ok(Budget {
            limit,
            costs: Some(costs.into()),
            count_pinned,
        })
    }

    /// The budget of `max_messages` messages; `None` for 0, which is not a
    /// budget.
    pub fn of_messages(max_messages: usize) -> Option<Budget> {
        (max_messages >= 1).then_some(Budget {
            limit: max_messages as u64,
            costs: None,
            count_pinned: false,
        })
    }

    /// The token budget `limit` with one cost per message; `None` for a
    /// limit of 0, which is not a budget.
    pub fn of_tokens(limit: u64, costs: Vec<u64>, count_pinned: bool) -> Option<Budget> {
        (limit >= 1).then(|| Budget {
            limit,
            costs: Some(costs.into()),
            count_pinned,
        })
    }

    /// Whether this is a token budget (`maxTokens`), which needs protocol 2.
    pub fn is_tokens(&self) -> bool {
        self.costs.is_some()
    }

    /// N: `maxMessages` or `maxTokens`.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// The limit as a number of messages (`usize::MAX` when it does not
    /// fit): what `maxMessages` allows. For a token budget, its limit.
    pub fn max_messages(&self) -> usize {
        usize::try_from(self.limit).unwrap_or(usize::MAX)
    }

    /// The per-message costs of a token budget (one per message of the
    /// kit's list), `None` for a message budget.
    pub fn costs(&self) -> Option<&[u64]> {
        self.costs.as_deref()
    }

    /// Whether the pinned system message's cost counts against the limit
    /// (`countPinned`; always false for a message budget).
    pub fn count_pinned(&self) -> bool {
        self.count_pinned
    }

    /// What message `index` costs as sent: 1 for a message budget, its
    /// entry of `tokens` for a token budget (0 past the end).
    pub fn cost(&self, index: usize) -> u64 {
        match &self.costs {
            None => 1,
            Some(c) => c.get(index).copied().unwrap_or(0),
        }
    }

    /// The cost of the messages at `indices`, added without overflow (a sum
    /// past 2^64 − 1 stays there, beyond every limit but "no limit").
    pub fn cost_of(&self, indices: impl IntoIterator<Item = usize>) -> u64 {
        indices
            .into_iter()
            .fold(0u64, |sum, i| sum.saturating_add(self.cost(i)))
    }

    /// The smallest position `s` such that the messages at `indices[s..]`
    /// cost at most `room` together: walking back from the last, adding
    /// costs, the first message that does not fit stops the walk (spec
    /// §11.3, §11.5: never past it, whatever older messages cost). With
    /// unit costs, `indices.len() - room` (or 0).
    ///
    /// # Examples
    ///
    /// ```
    /// use reducer_kit::terms::Budget;
    /// let b = Budget::of_tokens(45, vec![5, 1, 40, 3, 2], false).unwrap();
    /// assert_eq!(b.fitting_start(&[0, 1, 2, 3, 4], 45), 2);
    /// assert_eq!(b.fitting_start(&[0, 1, 2, 3, 4], 46), 1);
    /// assert_eq!(b.fitting_start(&[0, 1, 2, 3, 4], 1), 5);
    /// ```
    pub fn fitting_start(&self, indices: &[usize], room: u64) -> usize {
        let mut total = 0u64;
        let mut s = indices.len();
        while s > 0 {
            let with = total.saturating_add(self.cost(indices[s - 1]));
            if with > room {
                break;
            }
            total = with;
            s -= 1;
        }
        s
    }

    /// What the pinned system message at `pinned` counts against the limit:
    /// its cost when `countPinned`, else 0.
    pub fn pinned_cost(&self, pinned: Option<usize>) -> u64 {
        match pinned {
            Some(p) if self.count_pinned => self.cost(p),
            _ => 0,
        }
    }

    /// B, what the messages of M may cost together (spec §11.3): the
    /// limit less the pinned message's cost when it counts.
    ///
    /// # Errors
    ///
    /// [`BudgetError::Unsatisfiable`] when `countPinned` and the pinned
    /// message alone costs more than the limit.
    pub fn available(&self, pinned: Option<usize>) -> Result<u64, BudgetError> {
        let cost = self.pinned_cost(pinned);
        self.limit
            .checked_sub(cost)
            .ok_or(BudgetError::Unsatisfiable {
                index: pinned.unwrap_or(0),
                cost,
                limit: self.limit,
            })
    }

    /// The same budget with the limit `limit` (the same costs and
    /// `countPinned`); `None` for 0.
    pub fn with_limit(&self, limit: u64) -> Option<Budget> {
        (limit >= 1).then(|| Budget {
            limit,
            ..self.clone()
        })
    }

    /// The same budget with the limit lowered by `by`, down to 0: the
    /// budget a summary of cost `by` leaves (spec §12.4). A limit of 0
    /// is no budget a request can carry; it exists only for judging a
    /// summary, whose kept messages are compared with the reference answer
    /// at this budget (keeping nothing of M when it is 0).
    pub fn less(&self, by: u64) -> Budget {
        Budget {
            limit: self.limit.saturating_sub(by),
            ..self.clone()
        }
    }

    /// The message budget one message smaller (the extra request of clause
    /// `budget-monotone` under a message budget), or `None` for a budget of
    /// 1 or a token budget (whose smaller budget depends on the answer,
    /// spec §11.6).
    pub fn one_smaller(&self) -> Option<Budget> {
        if self.is_tokens() {
            return None;
        }
        self.with_limit(self.limit - 1)
    }

    /// The budget as a request's `maxMessages` (its limit, for a message
    /// budget).
    pub fn to_json(&self) -> Value {
        Value::from(self.limit)
    }

    /// The budget as the request members the kit sends: `maxMessages` for a
    /// message budget; `maxTokens`, `tokens` and `countPinned` for a token
    /// budget (spec §13.1).
    pub fn to_fields(&self) -> BudgetFields {
        match &self.costs {
            None => BudgetFields::messages(Value::from(self.limit)),
            Some(c) => BudgetFields {
                max_messages: None,
                max_tokens: Some(Value::from(self.limit)),
                tokens: Some(Value::Array(c.iter().map(|&t| Value::from(t)).collect())),
                count_pinned: Some(Value::Bool(self.count_pinned)),
            },
        }
    }
}

impl fmt::Display for Budget {
    /// A message budget as its number (`maxMessages` spells it so); a token
    /// budget as `N tokens`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_tokens() {
            write!(f, "{} tokens", self.limit)
        } else {
            write!(f, "{}", self.limit)
        }
    }
}

impl BudgetFields {
    /// How the limit reads in a report: `maxMessages 3`, `maxTokens 45`,
    /// both when both were sent, or `no budget`.
    pub fn limit_text(&self) -> String {
        match (&self.max_messages, &self.max_tokens) {
            (Some(m), None) => format!("maxMessages {m}"),
            (None, Some(t)) => format!("maxTokens {t}"),
            (Some(m), Some(t)) => format!("maxMessages {m}, maxTokens {t}"),
            (None, None) => "no budget".into(),
        }
    }

    /// The members of a protocol 1 request: `maxMessages` alone.
    pub fn messages(max_messages: Value) -> BudgetFields {
        BudgetFields {
            max_messages: Some(max_messages),
            ..BudgetFields::default()
        }
    }

    /// The members of a token budget: `maxTokens`, `tokens` and, when
    /// given, `countPinned`.
    pub fn tokens(max_tokens: Value, tokens: Value, count_pinned: Option<Value>) -> BudgetFields {
        BudgetFields {
            max_messages: None,
            max_tokens: Some(max_tokens),
            tokens: Some(tokens),
            count_pinned,
        }
    }

    /// Whether a member of protocol 2 is present (`maxTokens`, `tokens`,
    /// `countPinned`), or `maxMessages` is absent: a request protocol 1
    /// cannot carry.
    pub fn needs_protocol_2(&self) -> bool {
        self.max_messages.is_none()
            || self.max_tokens.is_some()
            || self.tokens.is_some()
            || self.count_pinned.is_some()
    }

    /// The budget member written other than as a JSON integer, when
    /// there is one (clause `protocol-budget`, spec §6.2): its name
    /// (`maxMessages`, else `maxTokens`) and value (`3.0`, `1e1`, `2.5`,
    /// `"3"`, `true`, `null`).
    ///
    /// # Examples
    ///
    /// ```
    /// use reducer_kit::terms::BudgetFields;
    /// let f = |t: &str| BudgetFields::messages(serde_json::from_str(t).unwrap());
    /// assert_eq!(f("3.0").spelled().map(|(n, v)| (n, v.to_string())), Some(("maxMessages", "3.0".to_string())));
    /// assert_eq!(f("3").spelled(), None);
    /// assert_eq!(f("-2").spelled(), None);
    /// ```
    pub fn spelled(&self) -> Option<(&'static str, &Value)> {
        [
            ("maxMessages", &self.max_messages),
            ("maxTokens", &self.max_tokens),
        ]
        .into_iter()
        .find_map(|(name, v)| {
            v.as_ref()
                .filter(|v| !written_as_integer(v))
                .map(|v| (name, v))
        })
    }

    /// `maxMessages` as protocol 1 sends it: the member, or `null` when
    /// absent (which is not a budget).
    pub fn max_messages_or_null(&self) -> &Value {
        static NULL: Value = Value::Null;
        self.max_messages.as_ref().unwrap_or(&NULL)
    }
}

/// Whether `value` is a JSON number written as an integer, in digits
/// with an optional minus (`3`, `-2`, `100000000000000000000000000000`):
/// not `3.0`, `1e1`, `2.5`, a string, a boolean or `null`.
pub fn written_as_integer(value: &Value) -> bool {
    let Value::Number(n) = value else {
        return false;
    };
    let text = n.as_str();
    let digits = text.strip_prefix('-').unwrap_or(text);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse_budget(v: &Value) -> Result<usize, BudgetError> {
        Budget::parse(v).map(|b| b.max_messages())
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
        for bad in [
            "0",
            "-1",
            "1.5",
            "\"3\"",
            "null",
            "0.0",
            "-0",
            "1e-99999999999999999999",
            "-2e99999999999999999999",
            "1.5e-1",
            "15e-1",
        ] {
            let v: Value = serde_json::from_str(bad).unwrap();
            assert!(
                matches!(parse_budget(&v), Err(BudgetError::MaxMessages { .. })),
                "{bad}"
            );
        }
        let number = |s: &str| parse_budget(&serde_json::from_str(s).unwrap());
        assert_eq!(number("2e99999999999999999999"), Ok(usize::MAX));
        assert_eq!(number("1e20"), Ok(usize::MAX));
        assert_eq!(number("10e-1"), Ok(1));
        assert_eq!(number("1200e-2"), Ok(12));
        assert_eq!(number("0.00012e5"), Ok(12));
        assert_eq!(number("18446744073709551615"), Ok(usize::MAX));
        assert_eq!(number("18446744073709551614"), Ok(usize::MAX - 1));
        assert_eq!(
            number("1e-99999999999999999999").unwrap_err().to_string(),
            "maxMessages must be an integer >= 1, got 1e-99999999999999999999"
        );
        assert_eq!(
            parse_budget(&json!(0)).unwrap_err().to_string(),
            "maxMessages must be an integer >= 1, got 0"
        );
    }

    fn read(v: Value, messages: usize) -> Result<Budget, String> {
        let o = v.as_object().unwrap();
        let fields = BudgetFields {
            max_messages: o.get("maxMessages").cloned(),
            max_tokens: o.get("maxTokens").cloned(),
            tokens: o.get("tokens").cloned(),
            count_pinned: o.get("countPinned").cloned(),
        };
        Budget::read(&fields, messages).map_err(|e| e.to_string())
    }

    #[test]
    fn token_budgets_read_in_order() {
        let b = read(json!({"maxTokens": 45.0, "tokens": [5, 1, 4e1, 3, 2]}), 5).unwrap();
        assert_eq!(b.costs(), Some(&[5, 1, 40, 3, 2][..]));
        assert_eq!(
            (b.limit(), b.count_pinned(), b.to_string()),
            (45, false, "45 tokens".into())
        );
        let b = read(
            json!({"maxTokens": 9, "tokens": [0], "countPinned": true}),
            1,
        )
        .unwrap();
        assert!(b.count_pinned());
        // maxMessages alone is protocol 1, whatever else is there.
        let b = read(
            json!({"maxMessages": 2, "tokens": "x", "countPinned": 7}),
            3,
        )
        .unwrap();
        assert_eq!((b.is_tokens(), b.cost(2), b.limit()), (false, 1, 2));
        let errors = [
            (
                json!({"maxMessages": 2, "maxTokens": 3}),
                "the request has both maxMessages and maxTokens (exactly one is allowed)",
            ),
            (
                json!({"tokens": [1]}),
                "the request has neither maxMessages nor maxTokens",
            ),
            (
                json!({"maxTokens": 0, "tokens": [1]}),
                "maxTokens must be an integer >= 1, got 0",
            ),
            (
                json!({"maxTokens": 2.5, "tokens": [1]}),
                "maxTokens must be an integer >= 1, got 2.5",
            ),
            (
                json!({"maxTokens": 3}),
                "tokens must be an array with one cost per message (1 messages), got no tokens",
            ),
            (
                json!({"maxTokens": 3, "tokens": [1, 2]}),
                "tokens must be an array with one cost per message (1 messages), got 2 costs",
            ),
            (
                json!({"maxTokens": 3, "tokens": "1"}),
                "tokens must be an array with one cost per message (1 messages), got a string",
            ),
            (
                json!({"maxTokens": 3, "tokens": [-1]}),
                "tokens[0] must be an integer >= 0, got -1",
            ),
            (
                json!({"maxTokens": 3, "tokens": [0.5]}),
                "tokens[0] must be an integer >= 0, got 0.5",
            ),
            (
                json!({"maxTokens": 3, "tokens": [true]}),
                "tokens[0] must be an integer >= 0, got true",
            ),
            (
                json!({"maxTokens": 3, "tokens": [1], "countPinned": "yes"}),
                "countPinned must be true or false, got \"yes\"",
            ),
            (
                json!({"maxTokens": 3, "tokens": [1], "countPinned": null}),
                "countPinned must be true or false, got null",
            ),
        ];
        for (request, want) in errors {
            assert_eq!(read(request.clone(), 1).unwrap_err(), want, "{request}");
        }
        let huge: Value = serde_json::from_str("1e400").unwrap();
        assert_eq!(
            read(json!({"maxTokens": 3, "tokens": [huge]}), 1).unwrap_err(),
            "tokens[0] must be an integer >= 0, got 1e+400"
        );
        let b = read(
            json!({"maxTokens": huge, "tokens": [18446744073709551615u64]}),
            1,
        )
        .unwrap();
        assert_eq!((b.limit(), b.cost(0)), (u64::MAX, u64::MAX));
    }

    #[test]
    fn available_counts_the_pinned_message_only_when_asked() {
        let b = Budget::of_tokens(14, vec![10, 2, 3], true).unwrap();
        assert_eq!(b.available(Some(0)), Ok(4));
        assert_eq!(b.available(None), Ok(14));
        let tight = b.with_limit(9).unwrap();
        assert_eq!(
            tight.available(Some(0)).unwrap_err().to_string(),
            "the pinned system message (message 0) costs 10, more than maxTokens 9, and countPinned is true"
        );
        assert_eq!(tight.with_limit(10).unwrap().available(Some(0)), Ok(0));
        let free = Budget::of_tokens(9, vec![10, 2, 3], false).unwrap();
        assert_eq!(free.available(Some(0)), Ok(9));
        let m = Budget::of_messages(3).unwrap();
        assert_eq!((m.available(Some(0)), m.cost_of(0..5)), (Ok(3), 5));
        assert_eq!(m.less(1).limit(), 2);
        assert_eq!(m.less(5).limit(), 0);
        assert_eq!(b.one_smaller(), None);
        assert_eq!(
            b.cost_of([0, 1]).saturating_add(u64::MAX),
            u64::MAX,
            "sums saturate"
        );
    }

    #[test]
    fn fields_round_trip() {
        let b = Budget::of_tokens(7, vec![1, 0, 6], true).unwrap();
        assert_eq!(Budget::read(&b.to_fields(), 3), Ok(b));
        let m = Budget::of_messages(4).unwrap();
        assert_eq!(m.to_fields(), BudgetFields::messages(json!(4)));
        assert!(!m.to_fields().needs_protocol_2());
        assert!(BudgetFields::default().needs_protocol_2());
        assert_eq!(BudgetFields::default().max_messages_or_null(), &Value::Null);
    }
}
