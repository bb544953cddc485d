//! Costs for generated cases (spec §13.2, §13.4): a token budget drawn
//! after everything else, from bytes of its own, so that a case's messages
//! and message budget are the same whether or not costs are drawn.
//!
//! Half of the draws keep the message budget ([`draw`] gives `None`; also
//! when the bytes run out). The others draw a distribution of costs (all 1,
//! all equal, with zeros, proportional to text length, random), maybe a
//! heavy tool result and `countPinned`, then a limit around a threshold of
//! B (cost(M), the newest turn, its question, each ± 1, or anywhere up to
//! cost(M) + 1), then maybe one message of M costing more than the whole
//! limit, or the pinned message costing more (with `countPinned`: an
//! unsatisfiable request), and a summary's cost S.

use crate::terms::budget::text_length_cost;
use crate::terms::{History, Role};
use arbitrary::{Arbitrary, Unstructured};
use serde_json::Value;

type R<T> = arbitrary::Result<T>;

/// The token budget of a generated case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Costs {
    /// One cost per message (`tokens`), the pinned message's included.
    pub tokens: Vec<u64>,
    /// `maxTokens`, ≥ 1.
    pub max_tokens: u64,
    /// `countPinned`.
    pub count_pinned: bool,
    /// What a summary costs in a summaries run (`summaryTokens`), ≥ 1.
    pub summary_tokens: u64,
}

/// True with probability about num/den; false when the bytes run out.
fn chance(u: &mut Unstructured, num: u32, den: u32) -> R<bool> {
    Ok(u.int_in_range(0..=den - 1)? >= den - num)
}

/// A draw in `0..=max` (0 when the bytes run out).
fn upto(u: &mut Unstructured, max: u64) -> R<u64> {
    if max == 0 {
        Ok(0)
    } else {
        u.int_in_range(0..=max)
    }
}

/// Draws the token budget of a generated case for its canonical `messages`
/// (see the module doc), or `None` for a case that keeps its message
/// budget.
///
/// # Errors
///
/// None in practice: every draw falls back to its smallest choice when the
/// bytes run out (no bytes: `None`).
///
/// # Panics
///
/// When `messages` cannot be read, which never happens for a generated
/// history.
pub(super) fn draw(
    u: &mut Unstructured,
    messages: &[Value],
    reading: &mut Option<History>,
) -> R<Option<Costs>> {
    if !bool::arbitrary(u)? {
        return Ok(None);
    }
    let history = super::canonical(reading, messages);
    let n = messages.len();
    let pinned = history.pinned();
    let rest: Vec<usize> = (0..n).filter(|&i| Some(i) != pinned).collect();
    let mut tokens: Vec<u64> = match u.int_in_range(0..=4u8)? {
        0 => vec![1; n],
        1 => vec![u.int_in_range(2..=9u64)?; n],
        2 => {
            let mut t = Vec::with_capacity(n);
            for _ in 0..n {
                t.push(if chance(u, 1, 3)? {
                    0
                } else {
                    u.int_in_range(1..=8u64)?
                });
            }
            t
        }
        3 => messages.iter().map(text_length_cost).collect(),
        _ => {
            let mut t = Vec::with_capacity(n);
            for _ in 0..n {
                t.push(u.int_in_range(1..=20u64)?);
            }
            t
        }
    };
    let tools: Vec<usize> = rest
        .iter()
        .copied()
        .filter(|&i| history.role(i) == Role::Tool)
        .collect();
    if !tools.is_empty() && chance(u, 1, 4)? {
        let i = tools[upto(u, tools.len() as u64 - 1)? as usize];
        tokens[i] = tokens[i].max(1) * u.int_in_range(20..=200u64)?;
    }
    let count_pinned = pinned.is_some() && chance(u, 1, 3)?;
    let cost = |t: &[u64], idx: &mut dyn Iterator<Item = usize>| -> u64 {
        idx.fold(0u64, |s, i| s.saturating_add(t[i]))
    };
    let total = cost(&tokens, &mut rest.iter().copied());
    // The newest turn (spec §2: from the last turn start, the pinned
    // message skipped) and its question.
    let all = history.turn_spans();
    let newest = all.last().map_or(0, |t| {
        cost(
            &tokens,
            &mut (t.start..t.end).filter(|&i| Some(i) != pinned),
        )
    });
    let question = all
        .last()
        .filter(|t| t.has_question)
        .map_or(0, |t| tokens[t.start]);
    let threshold = match u.int_in_range(0..=4u8)? {
        0 => total,
        1 => newest,
        2 => question,
        3 => total.saturating_add(1 + upto(u, 5)?),
        _ => upto(u, total.saturating_add(1))?,
    };
    let b = match u.int_in_range(0..=2u8)? {
        0 => threshold,
        1 => threshold.saturating_sub(1),
        _ => threshold.saturating_add(1),
    };
    let pinned_cost = match pinned {
        Some(p) if count_pinned => tokens[p],
        _ => 0,
    };
    let max_tokens = b.saturating_add(pinned_cost).max(1);
    if !rest.is_empty() && chance(u, 1, 6)? {
        let i = rest[upto(u, rest.len() as u64 - 1)? as usize];
        tokens[i] = max_tokens.saturating_add(1 + upto(u, 9)?);
    }
    if let Some(p) = pinned {
        if chance(u, 1, 12)? {
            tokens[p] = max_tokens.saturating_add(1 + upto(u, 9)?);
        }
    }
    let summary_tokens = u.int_in_range(1..=8u64)?;
    Ok(Some(Costs {
        tokens,
        max_tokens,
        count_pinned,
        summary_tokens,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn history() -> Vec<Value> {
        vec![
            json!({"role": "system", "contents": [{"$type": "text", "text": "S"}]}),
            json!({"role": "user", "contents": [{"$type": "text", "text": "q"}]}),
            json!({"role": "assistant", "contents": [{"$type": "functionCall", "callId": "a", "name": "F"}]}),
            json!({"role": "tool", "contents": [{"$type": "functionResult", "callId": "a", "result": "r"}]}),
        ]
    }

    #[test]
    fn no_bytes_keep_the_message_budget() {
        assert_eq!(
            draw(&mut Unstructured::new(&[]), &history(), &mut None).unwrap(),
            None
        );
        assert_eq!(
            draw(&mut Unstructured::new(&[0]), &history(), &mut None).unwrap(),
            None
        );
    }

    #[test]
    fn draws_are_budgets_with_one_cost_per_message() {
        let mut seen_pinned_count = false;
        let mut seen_token = 0;
        for seed in 0..300u32 {
            let bytes: Vec<u8> = (0..64u32)
                .map(|i| (i.wrapping_mul(97).wrapping_add(seed * 31) % 251) as u8)
                .collect();
            if let Some(c) = draw(&mut Unstructured::new(&bytes), &history(), &mut None).unwrap() {
                seen_token += 1;
                assert_eq!(c.tokens.len(), 4);
                assert!(c.max_tokens >= 1 && c.summary_tokens >= 1);
                seen_pinned_count |= c.count_pinned;
            }
        }
        assert!(seen_token > 50, "{seen_token}");
        assert!(seen_pinned_count);
    }
}
