//! The terms of the contract (`spec/spec.md` §1–§2 and §6), which every other
//! room speaks in: clauses and levels, policies, the budget, the kit's view
//! of a message, and turn segmentation and pairing.
//!
//! | file | owns |
//! |------|------|
//! | [`clause`] | clause ids, their levels and definitions (§6, §8) |
//! | [`declare`] | declared contracts: how a reducer's contract differs from the kit's (spec §16) |
//! | [`policy`] | the policies `turns`, `suffix` (§3, §4) and `repair` (§17) |
//! | [`budget`] | the one reader of a request's budget: `maxMessages` (§2), `maxTokens` with per-message costs (spec §11) |
//! | [`message`] | roles, item kinds, the message view (§1, §2) |
//! | [`history`] | the compact view of a whole history: flags, flattened items, interned ids, turns and pairing by index (§2) |
//! | [`turns`](mod@turns) | the pinned message, turns, positional pairing (§2) |
//! | [`links`] | call groups and attached reasoning (spec §14.5–§14.6), the window a cut leaves |
//! | [`provider`] | provider profiles and their rules (spec §15) |
//! | [`repair`](mod@repair) | what a repair keeps of a history that may be broken: the calls, results and approval items that are whole and well placed (spec §17) |
//!
//! Terms import nothing else of the kit but [`crate::json`]; wire formats
//! are read into views by [`crate::formats`].

pub mod budget;
pub mod clause;
pub mod declare;
pub mod history;
pub mod links;
pub mod message;
pub mod policy;
pub mod provider;
pub mod repair;
pub mod turns;

pub use budget::{Budget, BudgetError, BudgetFields};
pub use clause::{Clause, Level};
pub use declare::{BudgetUnit, Declared};
pub use history::{Flags, History, HistoryBuilder, ItemRef, Pairing, TurnSpan, View};
pub use message::{Item, ItemKind, MessageView, Role, ShapeError};
pub use policy::Policy;
pub use provider::{Provider, ProviderRule, ProviderViolation};
pub use turns::{pair, pinned_index, turns, Turn};
