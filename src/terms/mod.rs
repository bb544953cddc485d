//! The terms of the contract (`spec/v1.md` §1–§2 and §6), which every other
//! room speaks in: clauses and levels, policies, the budget, the kit's view
//! of a message, and turn segmentation and pairing.
//!
//! | file | owns |
//! |------|------|
//! | [`clause`] | clause ids, their levels and definitions (§6, §8) |
//! | [`policy`] | the policies `turns` and `suffix` (§3, §4) |
//! | [`budget`] | the one parser of `maxMessages` (§2) |
//! | [`message`] | roles, item kinds, the message view (§1, §2) |
//! | [`turns`](mod@turns) | the pinned message, turns, positional pairing (§2) |
//!
//! Terms import nothing else of the kit but [`crate::json`]; wire formats
//! are read into views by [`crate::formats`].

pub mod budget;
pub mod clause;
pub mod message;
pub mod policy;
pub mod turns;

pub use budget::{Budget, BudgetError};
pub use clause::{Clause, Level};
pub use message::{Item, ItemKind, MessageView, Role, ShapeError};
pub use policy::Policy;
pub use turns::{pair, pinned_index, turns, Turn};
