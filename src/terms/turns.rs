//! Turn segmentation and pairing (spec §2): the pinned system
//! message, the turns of M, and positional pairing of results with calls
//! and approval responses with requests. The reference reducers, the
//! validator, the checker and the generator all stand on these three
//! functions; the fuzz target `terms_agree` holds them against a naive
//! restatement of §2.

use super::message::{ItemKind, MessageView, Role};

/// The index of the pinned system message: the first message whose role is
/// `system` or `developer` (spec §2).
pub fn pinned_index(views: &[MessageView]) -> Option<usize> {
    views.iter().position(|v| v.role == Role::System)
}

/// A turn: a run of message indices `start..end` (indices into the whole
/// history, skipping the pinned message) that begins at a turn start, or the
/// leading segment before the first turn start (spec §2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Turn {
    /// The message indices of the turn, in order (never the pinned one).
    pub messages: Vec<usize>,
    /// Whether the turn begins with a turn start (its question); false only
    /// for the leading segment.
    pub has_question: bool,
}

/// Splits the messages other than the pinned one into turns, oldest first
/// (spec §2). The leading segment, when present, is the first turn with
/// `has_question == false`.
pub fn turns(views: &[MessageView]) -> Vec<Turn> {
    let pinned = pinned_index(views);
    let mut out: Vec<Turn> = Vec::new();
    for (i, v) in views.iter().enumerate() {
        if Some(i) == pinned {
            continue;
        }
        if v.is_turn_start() || out.is_empty() {
            out.push(Turn {
                messages: Vec::new(),
                has_question: v.is_turn_start(),
            });
        }
        out.last_mut().expect("a turn was pushed").messages.push(i);
    }
    out
}

/// Positional pairing (spec §3 step 6 and §5) over the messages at
/// `selection` (ascending indices): a result answers the latest call with its
/// id, in an earlier selected message, that is still unanswered; an approval
/// response likewise answers a request. Ids may be reused once answered.
///
/// Returns, for every message index and item index, the partner's
/// `(message, item)` when it has one. Messages outside the selection get
/// empty rows.
pub fn pair(views: &[MessageView], selection: &[usize]) -> Vec<Vec<Option<(usize, usize)>>> {
    use std::collections::HashMap;
    let mut partner: Vec<Vec<Option<(usize, usize)>>> =
        views.iter().map(|v| vec![None; v.items.len()]).collect();
    let mut calls: HashMap<&str, Vec<(usize, usize)>> = HashMap::new();
    let mut requests: HashMap<&str, Vec<(usize, usize)>> = HashMap::new();
    for &m in selection {
        let v = &views[m];
        for (k, item) in v.items.iter().enumerate() {
            let open = match item.kind {
                ItemKind::Result => &mut calls,
                ItemKind::ApprovalResponse => &mut requests,
                _ => continue,
            };
            if let Some((cm, ck)) = open.get_mut(item.id.as_str()).and_then(|s| s.pop()) {
                partner[m][k] = Some((cm, ck));
                partner[cm][ck] = Some((m, k));
            }
        }
        for (k, item) in v.items.iter().enumerate() {
            let open = match item.kind {
                ItemKind::Call => &mut calls,
                ItemKind::ApprovalRequest => &mut requests,
                _ => continue,
            };
            open.entry(item.id.as_str()).or_default().push((m, k));
        }
    }
    partner
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{view_history, Format};
    use serde_json::json;

    #[test]
    fn positional_pairing_reuses_ids_once_answered() {
        let h = json!([
            {"role": "assistant", "contents": [{"$type": "functionCall", "callId": "x"}]},
            {"role": "tool", "contents": [{"$type": "functionResult", "callId": "x"}]},
            {"role": "assistant", "contents": [{"$type": "functionCall", "callId": "x"}]},
            {"role": "tool", "contents": [{"$type": "functionResult", "callId": "x"}]}
        ]);
        let views = view_history(Format::Canonical, h.as_array().unwrap()).unwrap();
        let p = pair(&views, &[0, 1, 2, 3]);
        assert_eq!(p[1][0], Some((0, 0)));
        assert_eq!(p[3][0], Some((2, 0)));
        let p = pair(&views, &[0, 3]);
        assert_eq!(p[3][0], Some((0, 0)));
        let p = pair(&views, &[1, 2, 3]);
        assert_eq!(p[1][0], None);
        assert_eq!(p[3][0], Some((2, 0)));
    }

    #[test]
    fn turns_split_at_questions_with_leading_segment_and_pinned() {
        let h = json!([
            {"role": "assistant", "contents": []},
            {"role": "SYSTEM", "contents": []},
            {"role": "user", "contents": [{"$type": "text", "text": "q1"}]},
            {"role": "assistant", "contents": []},
            {"role": "user", "contents": [{"$type": "toolApprovalResponse", "requestId": "r"}]},
            {"role": "system", "contents": []},
            {"role": "user", "contents": []}
        ]);
        let views = view_history(Format::Canonical, h.as_array().unwrap()).unwrap();
        assert_eq!(pinned_index(&views), Some(1));
        let t = turns(&views);
        assert_eq!(
            t,
            vec![
                Turn {
                    messages: vec![0],
                    has_question: false
                },
                Turn {
                    messages: vec![2, 3, 4, 5],
                    has_question: true
                },
                Turn {
                    messages: vec![6],
                    has_question: true
                },
            ]
        );
    }
}
