//! The reduction policies (spec §3 and §4): which messages a reducer
//! keeps. The reference reducers are in [`crate::reduce`](mod@crate::reduce); the clauses each
//! policy is judged by are [`Clause::for_policy`](super::Clause::for_policy).

use std::fmt;

/// A reduction policy. Its name (`turns`, `suffix`) is what requests, case
/// files (`"policy"`) and reports spell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Policy {
    /// Keep the newest whole turns that fit (spec §3).
    Turns,
    /// Keep the newest messages, never starting inside a tool group
    /// (spec §4).
    Suffix,
}

impl Policy {
    /// Both policies, in report order.
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
