//! The checker's mapping of an answer onto its input (spec §7), for
//! those who draw it ([`crate::certify::draw`]): which input message each
//! output message comes from, and which items it lost. The same mapping
//! every clause is judged under (`mapping.rs`), read out, never a second
//! one.

use super::mapping::{map_output, map_output_repair, Beside, Texts};
use crate::formats::{read_history, read_history_lenient, Format};
use crate::terms::{Policy, Role};
use serde_json::Value;

/// An answer mapped onto its input (spec §7).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Alignment {
    /// Per output message: the input message it comes from (equal to it,
    /// or equal once some results or approval responses are taken out), or
    /// `None` for a message that comes from no input message (fabricated,
    /// changed, a summary or a placeholder).
    pub map: Vec<Option<usize>>,
    /// Per input message: the positions in its view's items
    /// ([`crate::terms::MessageView::items`]) of the items the output
    /// took out of it (empty when it is kept whole or not kept).
    pub removed: Vec<Vec<usize>>,
    /// The input's pinned system message (spec §2), when it has one.
    pub pinned: Option<usize>,
    /// Per output message: its role as the kit reads it (`Role::Other`
    /// for a message the format cannot read).
    pub out_roles: Vec<Role>,
}

/// Maps `output` onto `input` (both in `format`, the kit's message lists:
/// a top-level system prompt is message 0) as the checker does under
/// `policy`: the latest embedding (spec §7), or under `repair` the
/// earliest one (spec §17.2). An output message the format cannot read
/// maps to nothing.
///
/// # Errors
///
/// The input's [`crate::terms::ShapeError`] when the format cannot read it
/// (nothing can be mapped onto it).
pub fn align(
    format: Format,
    policy: Policy,
    input: &[Value],
    output: &[Value],
) -> Result<Alignment, crate::terms::ShapeError> {
    let in_h = read_history(format, input)?;
    let out_h = read_history_lenient(format, output);
    let key = format.items_key();
    let in_t = Texts {
        values: input,
        canon: None,
        key,
    };
    let out_t = Texts {
        values: output,
        canon: None,
        key,
    };
    let mapping = if policy == Policy::Repair {
        let plan = crate::terms::repair::repair(&in_h);
        let prefer: Vec<bool> = (0..in_h.len()).map(|j| plan.keeps_message(j)).collect();
        map_output_repair(format, in_t, &in_h, out_t, &out_h, &prefer)
    } else {
        let mut m = map_output(in_t, &in_h, out_t, &out_h, Beside::default());
        if policy.has_budget() {
            m.turn_start_over_stripped(
                &in_h,
                in_h.pinned(),
                &out_t,
                &in_t,
                |_: &[usize]| true,
                |_| true,
            );
        }
        m
    };
    Ok(Alignment {
        removed: (0..input.len())
            .map(|j| mapping.removed(j).to_vec())
            .collect(),
        map: mapping.map,
        pinned: in_h.pinned(),
        out_roles: (0..out_h.len()).map(|k| out_h.role(k)).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn kept_stripped_and_fabricated_messages_are_told_apart() {
        let input = vec![
            json!({"role": "system", "contents": [{"$type": "text", "text": "s"}]}),
            json!({"role": "user", "contents": [{"$type": "text", "text": "q"}]}),
            json!({"role": "tool", "contents": [
                {"$type": "functionResult", "callId": "c1", "result": 1},
                {"$type": "text", "text": "t"}
            ]}),
        ];
        let output = vec![
            input[0].clone(),
            json!({"role": "user", "contents": [{"$type": "text", "text": "made up"}]}),
            json!({"role": "tool", "contents": [{"$type": "text", "text": "t"}]}),
        ];
        let a = align(Format::Canonical, Policy::Turns, &input, &output).unwrap();
        assert_eq!(a.map, vec![Some(0), None, Some(2)]);
        assert_eq!(a.removed, vec![vec![], vec![], vec![0]]);
        assert_eq!(a.pinned, Some(0));
        assert_eq!(a.out_roles, vec![Role::System, Role::User, Role::Tool]);
    }

    #[test]
    fn an_unreadable_input_is_an_error_and_an_unreadable_output_message_maps_to_nothing() {
        let bad = vec![json!("not a message")];
        assert_eq!(
            align(Format::Canonical, Policy::Turns, &bad, &[])
                .unwrap_err()
                .index,
            0
        );
        let input = vec![json!({"role": "user", "contents": []})];
        let a = align(Format::Canonical, Policy::Turns, &input, &bad).unwrap();
        assert_eq!(a.map, vec![None]);
        assert_eq!(a.out_roles, vec![Role::Other]);
    }
}
