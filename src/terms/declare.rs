//! Declared contracts (spec §16): the documented ways a reducer's contract
//! differs from the kit's, from a fixed vocabulary, as `certify --declare`
//! and `check --declare` take them. A declaration narrows a judgement and
//! never voids it: each one says which clause judges what it allows
//! instead (§16.1–§16.9).
//!
//! | name | what the reducer does | judged by |
//! |------|-----------------------|-----------|
//! | `soft-budget` | may exceed the budget to keep a call group whole, or to keep one message | `budget`, read softly (§16.1) |
//! | `soft-budget=tool-run` | may also exceed it to keep the whole run of adjacent messages holding calls or results at its cut | `budget`, read softly (§16.8) |
//! | `budget-unit=turns` | its budget counts turns | `budget`, in turns (§16.2) |
//! | `budget-unit=invocations` | its budget counts invocations (ADK) | `budget`, in invocations (§16.2) |
//! | `budget-unit=items` | its budget counts Responses items | every clause, with item costs (§16.3) |
//! | `budget-unit=batched-results` | its budget counts a run of tool messages as one message | every clause, with those costs (§16.3) |
//! | `count-pinned` | its message budget counts the pinned system message too | every clause, the pinned message costing 1 (§16.9) |
//! | `no-budget` | takes no budget | safety only; the budget's clauses are not judged (§16.4) |
//! | `placeholder` | inserts one note of its own where it cut | `placeholder-shape` (§16.5) |
//! | `system-first-only` | honours a pinned system message only at index 0 | cases with the pinned message later are skipped (§16.6) |
//! | `json-numbers` | its JSON library reads numbers as doubles | numbers compared as doubles (§16.7) |
//! | `complete-calls` | (policy `repair`) answers an unanswered call with a result of its own | `completes-calls` (§17.4) |
//! | `repairs=KIND,...` | (policy `repair`) claims to repair only these kinds of broken history | certify runs only those (§17.8) |

use super::{History, ItemKind};
use std::fmt;

/// What a declared budget counts (spec §16.2, §16.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BudgetUnit {
    /// Turns of the input (the leading segment is a turn): `budget-unit=turns`.
    Turns,
    /// Invocations, as Google ADK counts them: a run of consecutive user
    /// messages that start turns begins one, and what comes before the
    /// first user message is in none (`budget-unit=invocations`).
    Invocations,
    /// Items as the OpenAI Responses format stores them: each call, result,
    /// approval request and approval response one item, and one more for
    /// a message holding anything else or nothing (`budget-unit=items`).
    Items,
    /// Messages, a run of consecutive tool messages counting as one, as a
    /// framework that stores the results of one step in one message counts
    /// them (`budget-unit=batched-results`).
    BatchedResults,
}

impl BudgetUnit {
    /// The unit's name after `budget-unit=`.
    pub fn name(self) -> &'static str {
        match self {
            BudgetUnit::Turns => "turns",
            BudgetUnit::Invocations => "invocations",
            BudgetUnit::Items => "items",
            BudgetUnit::BatchedResults => "batched-results",
        }
    }

    /// What each message of `history` costs in this unit, when the unit
    /// is a sum over messages ([`item_costs`], [`batched_result_costs`]);
    /// `None` for turns and invocations.
    pub fn costs(self, history: &History) -> Option<Vec<u64>> {
        match self {
            BudgetUnit::Turns | BudgetUnit::Invocations => None,
            BudgetUnit::Items => Some(item_costs(history)),
            BudgetUnit::BatchedResults => Some(batched_result_costs(history)),
        }
    }
}

/// The declarations of one reducer (spec §16): what `--declare` gave. The
/// default declares nothing, the kit's own contract.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Declared {
    /// `soft-budget` (§16.1).
    pub soft_budget: bool,
    /// `budget-unit=turns` or `budget-unit=items` (§16.2, §16.3); `None`:
    /// messages, the kit's unit.
    pub unit: Option<BudgetUnit>,
    /// `no-budget` (§16.4).
    pub no_budget: bool,
    /// `placeholder` (§16.5).
    pub placeholder: bool,
    /// `system-first-only` (§16.6).
    pub system_first_only: bool,
    /// `json-numbers` (§16.7).
    pub json_numbers: bool,
    /// `complete-calls` (§17.4, policy `repair` only).
    pub complete_calls: bool,
    /// `soft-budget=tool-run` (§16.8): besides what `soft-budget` allows,
    /// the excess may be the run of adjacent messages holding calls or
    /// results at the cut. Declaring it sets `soft_budget` too.
    pub tool_run: bool,
    /// `count-pinned` (§16.9): a budget of messages (or of a unit that is
    /// a sum over messages, §16.3) counts the pinned system message too.
    pub count_pinned: bool,
    /// `repairs=KIND,...` (§17.8, policy `repair` only): the kinds of
    /// broken history the sanitizer claims to repair, a bit per kind of
    /// [`REPAIR_KINDS`] (bit `k` for `REPAIR_KINDS[k]`); 0 claims every
    /// kind, the kit's own contract.
    pub repairs: u32,
}

/// The kinds of broken history a sanitizer may claim to repair
/// (`repairs=KIND,...`, spec §17.8): the break knobs of spec §17.6, in the
/// generator's order (`crate::generate::Break::ALL` names the same).
pub const REPAIR_KINDS: &[&str] = &[
    "interrupted-run",
    "lost-parallel-result",
    "duplicated-result",
    "result-before-call",
    "interjected-message",
    "unanswered-approval",
    "orphan-approval-response",
    "reasoning-cut-off",
    "tool-as-user",
    "reused-id-broken",
    "limit-cut",
];

/// `repairs=KIND` for each kind of [`REPAIR_KINDS`], in its order: the
/// names [`Declared::names`] lists a scope by.
const REPAIR_NAMES: &[&str] = &[
    "repairs=interrupted-run",
    "repairs=lost-parallel-result",
    "repairs=duplicated-result",
    "repairs=result-before-call",
    "repairs=interjected-message",
    "repairs=unanswered-approval",
    "repairs=orphan-approval-response",
    "repairs=reasoning-cut-off",
    "repairs=tool-as-user",
    "repairs=reused-id-broken",
    "repairs=limit-cut",
];

/// Every declaration name but `repairs=KIND` (its kinds are
/// [`REPAIR_KINDS`], listed after these), in the order reports list them.
pub const NAMES: &[&str] = &[
    "soft-budget",
    "soft-budget=tool-run",
    "budget-unit=turns",
    "budget-unit=invocations",
    "budget-unit=items",
    "budget-unit=batched-results",
    "count-pinned",
    "no-budget",
    "placeholder",
    "system-first-only",
    "json-numbers",
    "complete-calls",
];

/// A `--declare` list the kit cannot take.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DeclareError {
    /// A name outside the vocabulary.
    #[error("unknown declaration {0:?}; the declarations are {names}, repairs=KIND,...", names = NAMES.join(", "))]
    Unknown(String),
    /// Two declarations that cannot hold together.
    #[error("{0} and {1} cannot both be declared: {2}")]
    Conflict(&'static str, &'static str, &'static str),
    /// A kind of `repairs=` outside [`REPAIR_KINDS`], or `repairs=` with
    /// no kind.
    #[error("unknown kind of repair {0:?} in repairs=; the kinds are {kinds}", kinds = REPAIR_KINDS.join(", "))]
    UnknownRepair(String),
}

impl Declared {
    /// Whether nothing is declared.
    pub fn is_empty(&self) -> bool {
        *self == Declared::default()
    }

    /// Reads a comma-separated list of declaration names (blanks around
    /// names and empty entries ignored; a name given twice counts once).
    ///
    /// # Errors
    ///
    /// [`DeclareError::Unknown`] for a name outside [`NAMES`];
    /// [`DeclareError::Conflict`] for `no-budget` with `soft-budget` or a
    /// budget unit, or two budget units.
    ///
    /// # Examples
    ///
    /// ```
    /// use reducer_kit::terms::declare::{BudgetUnit, Declared};
    /// let d = Declared::parse("soft-budget, budget-unit=turns").unwrap();
    /// assert!(d.soft_budget);
    /// assert_eq!(d.unit, Some(BudgetUnit::Turns));
    /// assert_eq!(d.names(), ["soft-budget", "budget-unit=turns"]);
    /// assert!(Declared::parse("no-budget,soft-budget").is_err());
    /// ```
    pub fn parse(list: &str) -> Result<Declared, DeclareError> {
        let mut d = Declared::default();
        // After `repairs=KIND`, the bare kinds that follow belong to it
        // (`repairs=limit-cut,interrupted-run`).
        let mut in_repairs = false;
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            if in_repairs && REPAIR_KINDS.contains(&name) {
                d.add(&format!("repairs={name}"))?;
                continue;
            }
            in_repairs = name.starts_with("repairs=");
            d.add(name)?;
        }
        Ok(d)
    }

    /// Adds the declaration `name`.
    ///
    /// # Errors
    ///
    /// As [`Declared::parse`].
    pub fn add(&mut self, name: &str) -> Result<(), DeclareError> {
        let unit = match name {
            "soft-budget" => {
                self.soft_budget = true;
                None
            }
            "soft-budget=tool-run" => {
                self.soft_budget = true;
                self.tool_run = true;
                None
            }
            "budget-unit=turns" => Some(BudgetUnit::Turns),
            "budget-unit=invocations" => Some(BudgetUnit::Invocations),
            "budget-unit=items" => Some(BudgetUnit::Items),
            "budget-unit=batched-results" => Some(BudgetUnit::BatchedResults),
            "count-pinned" => {
                self.count_pinned = true;
                None
            }
            "no-budget" => {
                self.no_budget = true;
                None
            }
            "placeholder" => {
                self.placeholder = true;
                None
            }
            "system-first-only" => {
                self.system_first_only = true;
                None
            }
            "json-numbers" => {
                self.json_numbers = true;
                None
            }
            "complete-calls" => {
                self.complete_calls = true;
                None
            }
            other => match other.strip_prefix("repairs=") {
                Some(kind) => {
                    let k = REPAIR_KINDS
                        .iter()
                        .position(|&r| r == kind)
                        .ok_or_else(|| DeclareError::UnknownRepair(kind.to_string()))?;
                    self.repairs |= 1 << k;
                    None
                }
                None => return Err(DeclareError::Unknown(other.to_string())),
            },
        };
        if let Some(u) = unit {
            if self.unit.is_some_and(|old| old != u) {
                return Err(DeclareError::Conflict(
                    "budget-unit",
                    "budget-unit",
                    "a budget counts in one unit",
                ));
            }
            self.unit = Some(u);
        }
        if self.no_budget && self.soft_budget {
            return Err(DeclareError::Conflict(
                "no-budget",
                "soft-budget",
                "a reducer without a budget has none to exceed",
            ));
        }
        if self.no_budget && self.unit.is_some() {
            return Err(DeclareError::Conflict(
                "no-budget",
                "budget-unit",
                "a reducer without a budget counts in no unit",
            ));
        }
        if self.count_pinned && self.no_budget {
            return Err(DeclareError::Conflict(
                "count-pinned",
                "no-budget",
                "a reducer without a budget counts nothing against it",
            ));
        }
        if self.count_pinned && self.counts_spans() {
            return Err(DeclareError::Conflict(
                "count-pinned",
                "budget-unit",
                "a budget in turns or invocations counts spans of the input, not the pinned message (spec §16.9)",
            ));
        }
        Ok(())
    }

    /// The declared names, in the order of [`NAMES`].
    pub fn names(&self) -> Vec<&'static str> {
        let has = |n: &&str| match *n {
            "soft-budget" => self.soft_budget && !self.tool_run,
            "soft-budget=tool-run" => self.tool_run,
            "budget-unit=turns" => self.unit == Some(BudgetUnit::Turns),
            "budget-unit=invocations" => self.unit == Some(BudgetUnit::Invocations),
            "budget-unit=items" => self.unit == Some(BudgetUnit::Items),
            "budget-unit=batched-results" => self.unit == Some(BudgetUnit::BatchedResults),
            "count-pinned" => self.count_pinned,
            "no-budget" => self.no_budget,
            "placeholder" => self.placeholder,
            "system-first-only" => self.system_first_only,
            "json-numbers" => self.json_numbers,
            "complete-calls" => self.complete_calls,
            _ => false,
        };
        let mut out: Vec<&'static str> = NAMES.iter().copied().filter(has).collect();
        out.extend(
            REPAIR_NAMES
                .iter()
                .enumerate()
                .filter(|(k, _)| self.repairs & (1 << k) != 0)
                .map(|(_, &n)| n),
        );
        out
    }

    /// The kinds of repair claimed (`repairs=`, spec §17.8), in the order
    /// of [`REPAIR_KINDS`]; empty when none is declared (every kind).
    pub fn repair_kinds(&self) -> Vec<&'static str> {
        REPAIR_KINDS
            .iter()
            .enumerate()
            .filter(|(k, _)| self.repairs & (1 << k) != 0)
            .map(|(_, &n)| n)
            .collect()
    }

    /// Whether a message budget is judged as a token budget of per-message
    /// costs: under `budget-unit=items` or `=batched-results` (§16.3) or
    /// `count-pinned` (§16.9); see `crate::check::in_declared_unit`.
    pub fn costs_per_message(&self) -> bool {
        !self.counts_spans() && (self.unit.is_some() || self.count_pinned)
    }

    /// Whether the budget counts spans of the input (turns, invocations)
    /// rather than a cost per message (spec §16.2).
    pub fn counts_spans(&self) -> bool {
        matches!(self.unit, Some(BudgetUnit::Turns | BudgetUnit::Invocations))
    }
}

/// What each message of `history` costs under `budget-unit=items` (spec
/// §16.3): one item for each call, result, approval request and approval
/// response it holds, and one more when it holds anything else (text,
/// other content) or nothing at all; as the OpenAI Responses format stores
/// a message, one item per call and per result beside its message item.
///
/// # Examples
///
/// ```
/// use reducer_kit::formats::{read_history, Format};
/// use reducer_kit::terms::declare::item_costs;
/// let h: Vec<serde_json::Value> = serde_json::from_str(r#"[
///   {"role": "user", "contents": [{"$type": "text", "text": "q"}]},
///   {"role": "assistant", "contents": [{"$type": "text", "text": "looking"},
///     {"$type": "functionCall", "callId": "a", "name": "f"},
///     {"$type": "functionCall", "callId": "b", "name": "f"}]},
///   {"role": "tool", "contents": [{"$type": "functionResult", "callId": "a", "result": 1},
///     {"$type": "functionResult", "callId": "b", "result": 2}]}]"#).unwrap();
/// let history = read_history(Format::Canonical, &h).unwrap();
/// assert_eq!(item_costs(&history), [1, 3, 2]);
/// ```
pub fn item_costs(history: &History) -> Vec<u64> {
    (0..history.len())
        .map(|i| {
            let items = history.items(i);
            let plain = |k: ItemKind| matches!(k, ItemKind::Text | ItemKind::Opaque);
            let tool_items = items.iter().filter(|it| !plain(it.kind)).count() as u64;
            let message_item = items.is_empty() || items.iter().any(|it| plain(it.kind));
            tool_items + u64::from(message_item)
        })
        .collect()
}

/// What each message of `history` costs under
/// `budget-unit=batched-results` (spec §16.3): 1, but 0 for a tool message
/// right after another tool message, so that a run of tool messages (the
/// results of one step, which such a framework stores as one message)
/// costs 1.
///
/// # Examples
///
/// ```
/// use reducer_kit::formats::{read_history, Format};
/// use reducer_kit::terms::declare::batched_result_costs;
/// let h: Vec<serde_json::Value> = serde_json::from_str(r#"[
///   {"role": "user", "contents": [{"$type": "text", "text": "q"}]},
///   {"role": "assistant", "contents": [{"$type": "functionCall", "callId": "a", "name": "f"},
///     {"$type": "functionCall", "callId": "b", "name": "f"}]},
///   {"role": "tool", "contents": [{"$type": "functionResult", "callId": "a", "result": 1}]},
///   {"role": "tool", "contents": [{"$type": "functionResult", "callId": "b", "result": 2}]}]"#).unwrap();
/// let history = read_history(Format::Canonical, &h).unwrap();
/// assert_eq!(batched_result_costs(&history), [1, 1, 1, 0]);
/// ```
pub fn batched_result_costs(history: &History) -> Vec<u64> {
    (0..history.len())
        .map(|i| {
            let tool = |j: usize| history.role(j) == super::Role::Tool;
            u64::from(!(tool(i) && i > 0 && tool(i - 1)))
        })
        .collect()
}

impl fmt::Display for Declared {
    /// The names, comma-separated (`soft-budget,json-numbers`), a scope
    /// of repairs as one `repairs=` with its kinds
    /// (`repairs=interrupted-run,limit-cut`); what [`Declared::parse`]
    /// reads back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts: Vec<String> = self
            .names()
            .into_iter()
            .filter(|n| !n.starts_with("repairs="))
            .map(str::to_string)
            .collect();
        let kinds = self.repair_kinds();
        if !kinds.is_empty() {
            parts.push(format!("repairs={}", kinds.join(",")));
        }
        f.write_str(&parts.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_reads_back_as_itself() {
        for &n in NAMES {
            let d = Declared::parse(n).unwrap();
            assert_eq!(d.names(), [n]);
            assert_eq!(d.to_string(), n);
        }
        assert_eq!(Declared::parse(" , ").unwrap(), Declared::default());
        assert!(Declared::default().is_empty());
        for &k in REPAIR_KINDS {
            let d = Declared::parse(&format!("repairs={k}")).unwrap();
            assert_eq!(d.repair_kinds(), [k]);
            assert_eq!(d.to_string(), format!("repairs={k}"));
        }
    }

    #[test]
    fn a_scope_of_repairs_takes_the_kinds_after_it() {
        let d = Declared::parse("repairs=limit-cut,interrupted-run,json-numbers").unwrap();
        assert_eq!(d.repair_kinds(), ["interrupted-run", "limit-cut"]);
        assert!(d.json_numbers);
        assert_eq!(
            d.names(),
            [
                "json-numbers",
                "repairs=interrupted-run",
                "repairs=limit-cut"
            ]
        );
        assert_eq!(
            d.to_string(),
            "json-numbers,repairs=interrupted-run,limit-cut"
        );
        assert_eq!(Declared::parse(&d.to_string()).unwrap(), d);
        // A kind not after repairs= is no declaration.
        assert_eq!(
            Declared::parse("interrupted-run").unwrap_err().to_string(),
            "unknown declaration \"interrupted-run\"; the declarations are soft-budget, soft-budget=tool-run, budget-unit=turns, budget-unit=invocations, budget-unit=items, budget-unit=batched-results, count-pinned, no-budget, placeholder, system-first-only, json-numbers, complete-calls, repairs=KIND,..."
        );
        assert_eq!(
            Declared::parse("repairs=limit-cuts").unwrap_err().to_string(),
            "unknown kind of repair \"limit-cuts\" in repairs=; the kinds are interrupted-run, lost-parallel-result, duplicated-result, result-before-call, interjected-message, unanswered-approval, orphan-approval-response, reasoning-cut-off, tool-as-user, reused-id-broken, limit-cut"
        );
    }

    #[test]
    fn a_tool_run_soft_budget_is_a_soft_budget() {
        let d = Declared::parse("soft-budget=tool-run").unwrap();
        assert!(d.soft_budget && d.tool_run);
        assert_eq!(d.names(), ["soft-budget=tool-run"]);
        assert!(Declared::parse("soft-budget=tool-run,no-budget").is_err());
    }

    #[test]
    fn unknown_and_conflicting_declarations_are_refused() {
        assert_eq!(
            Declared::parse("soft-budget,loose").unwrap_err().to_string(),
            "unknown declaration \"loose\"; the declarations are soft-budget, soft-budget=tool-run, budget-unit=turns, budget-unit=invocations, budget-unit=items, budget-unit=batched-results, count-pinned, no-budget, placeholder, system-first-only, json-numbers, complete-calls, repairs=KIND,..."
        );
        assert_eq!(
            Declared::parse("budget-unit=turns,budget-unit=items")
                .unwrap_err()
                .to_string(),
            "budget-unit and budget-unit cannot both be declared: a budget counts in one unit"
        );
        assert!(Declared::parse("no-budget,budget-unit=items").is_err());
        let d = Declared::parse("json-numbers,placeholder,placeholder").unwrap();
        assert_eq!(d.names(), ["placeholder", "json-numbers"]);
    }
}
