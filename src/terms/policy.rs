//! The reduction policies (spec §3, §4 and §17): which messages a
//! reducer keeps. The reference reducers are in [`crate::reduce`](mod@crate::reduce); the clauses each
//! policy is judged by are [`Clause::for_policy`](super::Clause::for_policy).

use std::fmt;

/// A reduction policy. Its name (`turns`, `suffix`, `repair`) is what
/// requests, case files (`"policy"`) and reports spell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Policy {
    /// Keep the newest whole turns that fit (spec §3).
    Turns,
    /// Keep the newest messages, never starting inside a tool group
    /// (spec §4).
    Suffix,
    /// Repair a history that may be broken: remove the calls, results and
    /// approval items that are not whole and well placed, and nothing else;
    /// no budget (spec §17).
    Repair,
}

impl Policy {
    /// The two policies that cut a history to a budget, in report order
    /// (what the golden record, the budget fuzz targets and most tests
    /// walk).
    pub const ALL: [Policy; 2] = [Policy::Turns, Policy::Suffix];

    /// Every policy: the two of [`Policy::ALL`] and `repair` (spec §17).
    pub const EVERY: [Policy; 3] = [Policy::Turns, Policy::Suffix, Policy::Repair];

    /// The policy's name: `turns`, `suffix` or `repair`.
    pub fn name(self) -> &'static str {
        match self {
            Policy::Turns => "turns",
            Policy::Suffix => "suffix",
            Policy::Repair => "repair",
        }
    }

    /// Whether the policy cuts to a budget (`turns`, `suffix`); `repair`
    /// reads a budget only to reject one that is not (spec §17.1).
    pub fn has_budget(self) -> bool {
        self != Policy::Repair
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
