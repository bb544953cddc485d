//! Reduction clauses: the ids `check` and `certify` judge (spec §6) and
//! the protocol failures of the runner (spec §8).
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
        /// A clause of spec §6 or a protocol clause of §7.
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
        "the response is one JSON object, {\"messages\": [...]} or {\"error\": \"...\"} (protocol 2: also {\"unsupported\": \"...\"}, each echoing the request's \"id\"), in UTF-8";
    /// `protocol-timeout`: the response arrives within the time limit.
    ProtocolTimeout = "protocol-timeout", Protocol,
        "the response arrives within the time limit";
    /// `protocol-crash`: the reducer exits 0 (per-case) or stays alive (persistent).
    ProtocolCrash = "protocol-crash", Protocol,
        "the reducer neither crashes nor exits non-zero";
    /// `protocol-size`: the response stays under the output size limit.
    ProtocolSize = "protocol-size", Protocol,
        "the response stays under the output size limit";
    /// `protocol-budget` (spec §6.2): a budget written other than as an
    /// integer (`3.0`, `1e1`, `2.5`, `true`) is read as the protocol reads
    /// it. Judged by the checker, on the first answer.
    ProtocolBudget = "protocol-budget", Protocol,
        "a budget written other than as an integer is read as the protocol reads it: a whole number of at least 1 however written (3.0, 1e1) is a budget and gets an answer, anything else (2.5, true, \"3\", null) gets an error";
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
    /// `reasoning-attached` (spec §14.6): a reasoning item and the item it
    /// is attached to are kept together or dropped together. Judged only in
    /// formats with reasoning items (Responses).
    ReasoningAttached = "reasoning-attached", Safety,
        "a reasoning item is kept exactly when the item it is attached to (the next input message) is kept";
    /// `provider-accepts` (spec §15.5): with a provider profile, the
    /// output passes every rule of the profile when the input does.
    ProviderAccepts = "provider-accepts", Safety,
        "with a provider profile, the output passes the profile's rules whenever the input does";
    /// `summary-shape` (spec §12.2, summaries runs): the summary is text
    /// only, not a tool message, and only the pinned message precedes it.
    SummaryShape = "summary-shape", Safety,
        "the summary (the first output message that is no input message) holds only text items, at least one, is not a tool message, is no copy of an input message, and nothing but the pinned system message comes before it";
    /// `summary-replaces-prefix` (spec §12.3, summaries runs): the
    /// summary stands for a prefix of the history.
    SummaryReplacesPrefix = "summary-replaces-prefix", Safety,
        "with a summary, every kept message of M is newer than every dropped one: the summary stands for a prefix of the history";
    /// `placeholder-shape` (spec §16.5, with `--declare placeholder`): the
    /// note a reducer inserts where it cut is text only and stands at a cut.
    PlaceholderShape = "placeholder-shape", Safety,
        "the placeholder (the first output message that is no input message) holds only text items, at least one, is not a tool message, and stands where messages of M were dropped";
    /// `repair-valid` (spec §17.3, policy `repair`): the output passes
    /// the validator strictly, whatever the input.
    RepairValid = "repair-valid", Safety,
        "the output passes the validator with no call or approval request left unanswered, whatever the input";
    /// `no-unanswered-call` (spec §17.3, policy `repair`): every kept call
    /// is answered right after its message, every kept approval request
    /// before the next turn start.
    NoUnansweredCall = "no-unanswered-call", Safety,
        "every call in the output has its result in the tool messages right after its message, and every approval request its response before the next turn start";
    /// `completes-calls` (spec §17.4, policy `repair` with `--declare
    /// complete-calls`): a message of the reducer's own answers a call
    /// the input left unanswered, right after it.
    CompletesCalls = "completes-calls", Safety,
        "every output message that is no input message is a tool message of results only, right after the call they answer, for calls the input left unanswered";
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
    /// `repair-keeps-whole` (spec §17.3, policy `repair`): every call,
    /// result and approval item that is whole and well placed in the input
    /// is in the output.
    RepairKeepsWhole = "repair-keeps-whole", Policy,
        "every call and its result, and every approval request and its response, that are whole and well placed in the input are in the output";
    /// `repair-keeps-content` (spec §17.3, policy `repair`): nothing but
    /// broken calls, results and approval items goes.
    RepairKeepsContent = "repair-keeps-content", Policy,
        "every input message that holds anything besides calls, results and approval items (or nothing) is in the output, but for attached reasoning whose item goes";
    /// `matches-reference`: the output equals the reference reducer's output.
    MatchesReference = "matches-reference", Exact,
        "the output equals the reference reducer's output for the same policy";
}

impl Clause {
    /// Whether the runner judges the clause from the exchange itself
    /// (`protocol-json`, `protocol-timeout`, `protocol-crash`,
    /// `protocol-size`, spec §8.5); the checker judges every other one,
    /// `protocol-budget` included.
    pub fn judged_by_runner(self) -> bool {
        matches!(
            self,
            Clause::ProtocolJson
                | Clause::ProtocolTimeout
                | Clause::ProtocolCrash
                | Clause::ProtocolSize
        )
    }

    /// The clause whose id is `id`.
    pub fn from_id(id: &str) -> Option<Clause> {
        Clause::ALL.iter().copied().find(|c| c.id() == id)
    }

    /// The clauses judged for `policy`: the protocol, safety and exact levels
    /// plus that policy's own level, in report order; without the clauses
    /// of summaries ([`Clause::for_run`]).
    pub fn for_policy(policy: super::Policy) -> Vec<Clause> {
        Clause::for_run(policy, false)
    }

    /// The clauses judged for `policy` in a run that allows summaries
    /// (`summaries`: adds `summary-shape` and `summary-replaces-prefix`,
    /// spec §12) or not, in report order.
    pub fn for_run(policy: super::Policy, summaries: bool) -> Vec<Clause> {
        Clause::ALL
            .iter()
            .copied()
            .filter(|&c| c.in_run(policy, summaries))
            .collect()
    }

    /// Whether [`Clause::for_run`] of `policy` and `summaries` holds this
    /// clause.
    fn in_run(self, policy: super::Policy, summaries: bool) -> bool {
        use super::Policy;
        match self {
            Clause::WholeTurns
            | Clause::NewestFirst
            | Clause::Maximal
            | Clause::OverflowQuestion => policy == Policy::Turns,
            Clause::ContiguousSuffix | Clause::MaximalSuffix => policy == Policy::Suffix,
            Clause::RepairValid
            | Clause::NoUnansweredCall
            | Clause::RepairKeepsWhole
            | Clause::RepairKeepsContent => policy == Policy::Repair,
            // A repair has no budget, and its input need not be valid: its
            // own clauses judge what these judge on valid inputs (§17.3).
            Clause::Budget
            | Clause::CallsKeepResults
            | Clause::ValidOutput
            | Clause::IdentityWhenFits
            | Clause::BudgetMonotone => policy.has_budget(),
            Clause::ReasoningAttached
            | Clause::ProviderAccepts
            | Clause::PlaceholderShape
            | Clause::CompletesCalls => false,
            Clause::SummaryShape | Clause::SummaryReplacesPrefix => summaries,
            _ => true,
        }
    }

    /// The clause's definition as spec version 2 reads it (spec §11.6,
    /// §12): with costs and summaries. The same as [`Clause::definition`]
    /// for the clauses version 2 reads as version 1 does; what protocol 2
    /// runs print.
    pub fn definition_v2(self) -> &'static str {
        match self {
            Clause::Budget => "the output's counted cost (its messages of M at their input costs, the pinned system message when countPinned, a summary at summaryTokens) is at most the budget (maxMessages: 1 a message)",
            Clause::NoFabrication => "each output message is an input message, in input order, at most once, equal to it or equal but for removed results / approval responses; with summaries allowed, except the summary",
            Clause::Maximal => "the next older turn would not have fit in the budget (B, less the summary's cost when there is one)",
            Clause::OverflowQuestion => "when the newest turn alone does not fit B: its question if it fits, plus the longest run of its most recent messages that fits beside it, nothing older",
            Clause::MaximalSuffix => "no earlier start whose run fits B (less the summary's cost) is legal (a legal start is not a tool message, not approval-only, and splits no tool group)",
            Clause::IdentityWhenFits => "a valid input whose messages fit the budget (cost(M) at most B) comes back equal",
            Clause::RejectsBadBudget => "a request whose budget cannot be honoured (maxMessages or maxTokens < 1, bad tokens or countPinned, both or neither budget, a pinned message costing more than maxTokens with countPinned) gets an error, not a crash and not an output",
            Clause::BudgetMonotone => "the output for a smaller budget (maxMessages - 1, or the first answer's counted cost - 1) keeps a subsequence of the output for the larger one (summaries left out)",
            Clause::MatchesReference => "the output (without its summary) equals the reference reducer's output for the same policy (for the budget less the summary's cost)",
            c => c.definition(),
        }
    }

    /// The clauses judged in a run (spec §14.6, §15.5, spec §16.5,
    /// §17.4): those of [`Clause::for_run`], plus `reasoning-attached`
    /// when the wire format has reasoning items, `provider-accepts` with a
    /// provider profile, `placeholder-shape` when the reducer declares
    /// `placeholder` and `completes-calls` when a `repair` reducer declares
    /// `complete-calls`, in report order. Without any, exactly `for_run`.
    pub fn judged_in(
        policy: super::Policy,
        summaries: bool,
        reasoning: bool,
        provider: bool,
        declared: &super::Declared,
    ) -> Vec<Clause> {
        Clause::ALL
            .iter()
            .copied()
            .filter(|&c| match c {
                Clause::ReasoningAttached => reasoning,
                Clause::ProviderAccepts => provider,
                Clause::PlaceholderShape => declared.placeholder,
                Clause::CompletesCalls => {
                    declared.complete_calls && policy == super::Policy::Repair
                }
                _ => c.in_run(policy, summaries),
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
    fn summary_clauses_are_judged_only_in_summaries_runs() {
        for p in Policy::ALL {
            let plain = Clause::for_policy(p);
            let with = Clause::for_run(p, true);
            assert!(!plain.contains(&Clause::SummaryShape));
            assert_eq!(with.len(), plain.len() + 2);
            assert!(with.contains(&Clause::SummaryReplacesPrefix));
            assert_eq!(Clause::SummaryShape.level(), Level::Safety);
        }
        assert_eq!(
            Clause::WholeTurns.definition_v2(),
            Clause::WholeTurns.definition()
        );
        assert_ne!(Clause::Budget.definition_v2(), Clause::Budget.definition());
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
        assert_eq!(
            policy_ids(Policy::Repair),
            ["idempotent", "repair-keeps-whole", "repair-keeps-content"]
        );
    }

    #[test]
    fn repair_judges_its_own_clauses_and_none_of_the_budget() {
        let ids: Vec<&str> = Clause::for_policy(Policy::Repair)
            .into_iter()
            .map(|c| c.id())
            .collect();
        assert_eq!(
            ids,
            [
                "protocol-json",
                "protocol-timeout",
                "protocol-crash",
                "protocol-size",
                "protocol-budget",
                "system-pinned",
                "no-fabrication",
                "no-orphan-result",
                "no-orphan-approval",
                "rejects-bad-budget",
                "deterministic",
                "repair-valid",
                "no-unanswered-call",
                "idempotent",
                "repair-keeps-whole",
                "repair-keeps-content",
                "matches-reference"
            ]
        );
        let declared = crate::terms::Declared::parse("complete-calls").unwrap();
        let with = Clause::judged_in(Policy::Repair, false, false, false, &declared);
        assert!(with.contains(&Clause::CompletesCalls));
        let turns = Clause::judged_in(Policy::Turns, false, false, false, &declared);
        assert!(!turns.contains(&Clause::CompletesCalls));
        assert!(!Clause::for_policy(Policy::Turns).contains(&Clause::RepairValid));
    }
}
