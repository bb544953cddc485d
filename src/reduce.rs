//! The reference reducers: policy `turns` (semantics §3) and policy `suffix`
//! (semantics §4), and the budget rule shared by both.

use crate::format::{
    pair, pinned_index, strip_items, turns, view_history, Format, MessageView, Role, ShapeError,
};
use serde_json::Value;
use std::fmt;

/// A reduction policy.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Policy {
    /// Keep the newest whole turns that fit (spec §3).
    Turns,
    /// Keep the newest messages, never starting inside a tool group
    /// (spec §4).
    Suffix,
}

impl Policy {
    /// Both policies.
    pub const ALL: [Policy; 2] = [Policy::Turns, Policy::Suffix];

    /// The policy's name: `turns` or `suffix`.
    pub fn name(self) -> &'static str {
        match self {
            Policy::Turns => "turns",
            Policy::Suffix => "suffix",
        }
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a request cannot be reduced.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReduceError {
    /// `maxMessages` is not an integer ≥ 1 (semantics §3 step 1). The text
    /// says what was received.
    #[error("maxMessages must be an integer >= 1, got {0}")]
    BadBudget(String),
    /// A message has a shape the kit cannot read.
    #[error(transparent)]
    Shape(#[from] ShapeError),
}

/// Reads a budget: a JSON number denoting a whole number ≥ 1 (`3` and `3.0`
/// both mean 3). Budgets beyond `usize::MAX` are `usize::MAX`.
///
/// # Errors
///
/// [`ReduceError::BadBudget`] for anything else: zero, negatives, fractions,
/// strings, `null`.
pub fn parse_budget(max_messages: &Value) -> Result<usize, ReduceError> {
    let bad = || ReduceError::BadBudget(max_messages.to_string());
    let Value::Number(n) = max_messages else {
        return Err(bad());
    };
    let (negative, digits, exp) = crate::json::normalize_number(&n.to_string());
    if negative || digits.is_empty() || exp < 0 {
        return Err(bad());
    }
    if exp > 20 || digits.len() as i64 + exp > 20 {
        return Ok(usize::MAX);
    }
    let mut value: u128 = digits.parse().map_err(|_| bad())?;
    for _ in 0..exp {
        value *= 10;
    }
    Ok(usize::try_from(value).unwrap_or(usize::MAX))
}

/// Reduces `messages` (in `format`) to at most `max_messages` messages besides
/// the pinned system message, under `policy`.
///
/// Returns the kept messages in input order, each equal to the message read
/// or that message with orphan results / approval responses removed.
///
/// # Errors
///
/// [`ReduceError::BadBudget`] (checked first) and [`ReduceError::Shape`].
///
/// # Examples
///
/// ```
/// use reducer_kit::{format::Format, reduce::{reduce, Policy}};
/// let h: Vec<serde_json::Value> = serde_json::from_str(r#"[
///   {"role":"user","contents":[{"$type":"text","text":"a"}]},
///   {"role":"assistant","contents":[{"$type":"text","text":"b"}]},
///   {"role":"user","contents":[{"$type":"text","text":"c"}]}]"#).unwrap();
/// let out = reduce(Policy::Turns, Format::Canonical, &h, &serde_json::json!(2)).unwrap();
/// assert_eq!(out, h[2..].to_vec());
/// ```
pub fn reduce(
    policy: Policy,
    format: Format,
    messages: &[Value],
    max_messages: &Value,
) -> Result<Vec<Value>, ReduceError> {
    let budget = parse_budget(max_messages)?;
    let views = view_history(format, messages)?;
    let selection = select(policy, &views, budget);
    Ok(remove_orphans(format, messages, &views, &selection))
}

/// The selection of semantics §3 steps 2–5 / §4 before orphan removal:
/// ascending message indices, the pinned system message included.
pub fn select(policy: Policy, views: &[MessageView], budget: usize) -> Vec<usize> {
    let pinned = pinned_index(views);
    let rest: Vec<usize> = (0..views.len()).filter(|&i| Some(i) != pinned).collect();
    let mut chosen: Vec<usize> = match policy {
        Policy::Turns => select_turns(views, &rest, budget),
        Policy::Suffix => select_suffix(views, &rest, budget),
    };
    if let Some(p) = pinned {
        chosen.push(p);
    }
    chosen.sort_unstable();
    chosen
}

fn select_turns(views: &[MessageView], rest: &[usize], budget: usize) -> Vec<usize> {
    if rest.len() <= budget {
        return rest.to_vec();
    }
    let all = turns(views);
    let mut total = 0usize;
    let mut first_kept = all.len();
    for (t, turn) in all.iter().enumerate().rev() {
        if total + turn.messages.len() > budget {
            break;
        }
        total += turn.messages.len();
        first_kept = t;
    }
    if first_kept < all.len() {
        return all[first_kept..]
            .iter()
            .flat_map(|t| t.messages.iter().copied())
            .collect();
    }
    // Step 4: not even the newest turn fits.
    let newest = all
        .last()
        .expect("more messages than the budget means at least one turn");
    let m = &newest.messages;
    if newest.has_question {
        let tail = budget - 1;
        let mut out = vec![m[0]];
        out.extend_from_slice(&m[m.len() - tail..]);
        out
    } else {
        m[m.len() - budget..].to_vec()
    }
}

fn select_suffix(views: &[MessageView], rest: &[usize], budget: usize) -> Vec<usize> {
    let everything: Vec<usize> = (0..views.len()).collect();
    let partner = pair(views, &everything);
    let mut start = rest.len().saturating_sub(budget);
    while start < rest.len() {
        let m = rest[start];
        let v = &views[m];
        let split_group = v.items.iter().enumerate().any(|(k, item)| {
            item.kind.is_removable() && partner[m][k].is_some_and(|(pm, _)| pm < m)
        });
        if v.role == Role::Tool || v.is_approval_only() || split_group {
            start += 1;
        } else {
            break;
        }
    }
    rest[start..].to_vec()
}

/// Semantics §3 step 6 over `selection`: removes results and approval
/// responses that answer nothing earlier in the selection, drops messages left
/// with no item, and returns the kept messages in order.
pub fn remove_orphans(
    format: Format,
    messages: &[Value],
    views: &[MessageView],
    selection: &[usize],
) -> Vec<Value> {
    let partner = pair(views, selection);
    let mut out = Vec::with_capacity(selection.len());
    for &m in selection {
        let removed: Vec<usize> = views[m]
            .items
            .iter()
            .enumerate()
            .filter(|(k, item)| item.kind.is_removable() && partner[m][*k].is_none())
            .map(|(k, _)| k)
            .collect();
        if let Some(v) = strip_items(format, &messages[m], &views[m], &removed) {
            out.push(v);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
            assert!(
                matches!(parse_budget(&v), Err(ReduceError::BadBudget(_))),
                "{bad}"
            );
        }
        assert_eq!(
            parse_budget(&json!(0)).unwrap_err().to_string(),
            "maxMessages must be an integer >= 1, got 0"
        );
    }
}
