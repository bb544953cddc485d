//! Reduction clauses: the ids `check` and `certify` judge (semantics §6) and
//! the protocol failures of the runner (semantics §7).
//!
//! Ids are public vocabulary: they are never renumbered or reused.

use std::fmt;

/// A certification level. A reducer passes a level when every clause of it
/// (and of every lower level) passes on every case.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Protocol clauses: the reducer answered in protocol v1 at all.
    Protocol,
    /// Safety clauses, the same for every policy.
    Safety,
    /// The chosen policy's own clauses.
    Policy,
    /// `matches-reference`: byte-for-byte (as JSON values) the reference output.
    Exact,
}

impl Level {
    /// The level's name as printed in reports.
    pub fn name(self) -> &'static str {
        match self {
            Level::Protocol => "protocol",
            Level::Safety => "safety",
            Level::Policy => "policy",
            Level::Exact => "exact",
        }
    }
}

macro_rules! clauses {
    ($( $(#[$doc:meta])* $variant:ident = $id:literal, $level:ident, $def:literal; )*) => {
        /// A clause of semantics §6 or a protocol clause of §7.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Clause {
            $( $(#[$doc])* $variant, )*
        }

        impl Clause {
            /// Every clause, in report order.
            pub const ALL: &'static [Clause] = &[ $( Clause::$variant, )* ];

            /// The clause's stable id, e.g. `no-orphan-result`.
            pub fn id(self) -> &'static str {
                match self { $( Clause::$variant => $id, )* }
            }

            /// The level the clause belongs to.
            pub fn level(self) -> Level {
                match self { $( Clause::$variant => Level::$level, )* }
            }

            /// The clause's one-line definition, as printed with a failure.
            pub fn definition(self) -> &'static str {
                match self { $( Clause::$variant => $def, )* }
            }
        }
    };
}

clauses! {
    /// `protocol-json`: the response is one JSON object of the protocol.
    ProtocolJson = "protocol-json", Protocol,
        "the response is one JSON object, {\"messages\": [...]} or {\"error\": \"...\"}, in UTF-8";
    /// `protocol-timeout`: the response arrives within the time limit.
    ProtocolTimeout = "protocol-timeout", Protocol,
        "the response arrives within the time limit";
    /// `protocol-crash`: the reducer exits 0 (per-case) or stays alive (persistent).
    ProtocolCrash = "protocol-crash", Protocol,
        "the reducer neither crashes nor exits non-zero";
    /// `protocol-size`: the response stays under the output size limit.
    ProtocolSize = "protocol-size", Protocol,
        "the response stays under the output size limit";
    /// `budget`: the output's messages other than the pinned one number ≤ maxMessages.
    Budget = "budget", Safety,
        "the output's messages other than the pinned system message number at most maxMessages";
    /// `system-pinned`: the input's pinned system message is the output's first system message, equal.
    SystemPinned = "system-pinned", Safety,
        "the input's pinned system message is in the output, equal, and is its first system message";
    /// `no-fabrication`: each output message is an input message, in order, at most once.
    NoFabrication = "no-fabrication", Safety,
        "each output message is an input message, in input order, at most once, equal to it or equal but for removed results / approval responses";
    /// `no-orphan-result`: every output result has its call earlier in the output.
    NoOrphanResult = "no-orphan-result", Safety,
        "every result in the output has its call in an earlier output message";
    /// `no-orphan-approval`: every output approval response has its request earlier in the output.
    NoOrphanApproval = "no-orphan-approval", Safety,
        "every approval response in the output has its request earlier in the output";
    /// `calls-keep-results`: a kept call (request) keeps every result (response) it had.
    CallsKeepResults = "calls-keep-results", Safety,
        "a call (or approval request) that is kept keeps every result (response) it had in the input";
    /// `valid-output`: the output of a valid input is valid.
    ValidOutput = "valid-output", Safety,
        "the output of a valid input is valid (validator rules)";
    /// `rejects-bad-budget`: maxMessages < 1 gets an error response.
    RejectsBadBudget = "rejects-bad-budget", Safety,
        "maxMessages < 1 (or not an integer) gets an error, not a crash and not an output";
    /// `deterministic`: the same request twice gets the same response.
    Deterministic = "deterministic", Safety,
        "the same request twice gets the same response";
    /// `whole-turns` (turns): outside the overflow case the output is whole turns.
    WholeTurns = "whole-turns", Policy,
        "outside the overflow case, every turn in the output is kept whole";
    /// `newest-first` (turns): no turn is kept while a newer one is dropped.
    NewestFirst = "newest-first", Policy,
        "no turn is kept while a newer turn is dropped";
    /// `maximal` (turns): the next older turn would not have fit.
    Maximal = "maximal", Policy,
        "the next older turn would not have fit in the budget";
    /// `overflow-question` (turns): when the newest turn alone is over budget,
    /// its question plus its most recent maxMessages − 1 messages.
    OverflowQuestion = "overflow-question", Policy,
        "when the newest turn alone does not fit: its question plus its most recent maxMessages-1 messages (maxMessages for the leading segment), nothing older";
    /// `contiguous-suffix` (suffix): the output is one contiguous run of the newest messages.
    ContiguousSuffix = "contiguous-suffix", Policy,
        "the output (besides the pinned system message) is a contiguous run of the newest input messages";
    /// `maximal-suffix` (suffix): no earlier legal start fits the budget.
    MaximalSuffix = "maximal-suffix", Policy,
        "no earlier start that fits the budget is legal (a legal start is not a tool message, not approval-only, and splits no tool group)";
    /// `identity-when-fits`: a valid input that fits comes back equal.
    IdentityWhenFits = "identity-when-fits", Policy,
        "a valid input that fits the budget comes back equal";
    /// `idempotent`: reducing the output again changes nothing.
    Idempotent = "idempotent", Policy,
        "reducing the output again with the same budget changes nothing";
    /// `budget-monotone`: the output for a smaller budget is a subsequence of the output for a larger one.
    BudgetMonotone = "budget-monotone", Policy,
        "the output for a smaller budget is a subsequence of the output for a larger one";
    /// `matches-reference`: the output equals the reference reducer's output.
    MatchesReference = "matches-reference", Exact,
        "the output equals the reference reducer's output for the same policy";
}

impl Clause {
    /// The clause whose id is `id`.
    pub fn from_id(id: &str) -> Option<Clause> {
        Clause::ALL.iter().copied().find(|c| c.id() == id)
    }

    /// The clauses judged for `policy`: the protocol, safety and exact levels
    /// plus that policy's own level, in report order.
    pub fn for_policy(policy: super::Policy) -> Vec<Clause> {
        use super::Policy;
        Clause::ALL
            .iter()
            .copied()
            .filter(|c| match c {
                Clause::WholeTurns
                | Clause::NewestFirst
                | Clause::Maximal
                | Clause::OverflowQuestion => policy == Policy::Turns,
                Clause::ContiguousSuffix | Clause::MaximalSuffix => policy == Policy::Suffix,
                _ => true,
            })
            .collect()
    }
}

impl fmt::Display for Clause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terms::Policy;

    #[test]
    fn ids_are_unique_and_round_trip() {
        let mut ids: Vec<_> = Clause::ALL.iter().map(|c| c.id()).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), Clause::ALL.len());
        for c in Clause::ALL {
            assert_eq!(Clause::from_id(c.id()), Some(*c));
        }
    }

    #[test]
    fn policy_levels_match_semantics() {
        let policy_ids = |p| -> Vec<&str> {
            Clause::for_policy(p)
                .into_iter()
                .filter(|c| c.level() == Level::Policy)
                .map(|c| c.id())
                .collect()
        };
        assert_eq!(
            policy_ids(Policy::Turns),
            [
                "whole-turns",
                "newest-first",
                "maximal",
                "overflow-question",
                "identity-when-fits",
                "idempotent",
                "budget-monotone"
            ]
        );
        assert_eq!(
            policy_ids(Policy::Suffix),
            [
                "contiguous-suffix",
                "maximal-suffix",
                "identity-when-fits",
                "idempotent",
                "budget-monotone"
            ]
        );
    }
}
