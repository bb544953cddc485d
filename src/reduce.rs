//! The reference reducers: policy `turns` (spec §3), policy `suffix`
//! (spec §4) and policy `repair` (spec §17), over the terms of §2
//! ([`crate::terms`]), in any wire format ([`crate::formats`]), under a
//! message budget or a token budget (spec §11.4, §11.5: every count is a
//! cost, B what M may cost; `repair` reads a budget only to reject one that
//! is not, §17.1), optionally under a provider profile (spec §15.4).
//!
//! **One way in.** A [`Reference`] is built once from the policy, the wire
//! format and the provider profile; its one method,
//! [`Reference::reduce`], takes an [`Input`] (the history and the budget,
//! in whatever form the caller has them) and returns a [`Selection`] (or a
//! [`ReduceError`]):
//!
//! | the history | [`Input`] | the budget | [`Input`] |
//! |---|---|---|---|
//! | message values, read by the reference | [`Input::new`] | protocol 1 `maxMessages` | [`Input::max_messages`] |
//! | message values already read as a [`History`] | [`Input::classified`] | protocol 2 budget members ([`BudgetFields`]) | [`Input::budget_fields`] |
//! | a [`History`] alone (no values: indices only) | [`Input::history`] | a [`Budget`] already read, also of limit 0 ([`Budget::less`]: the reference a summary is judged against, spec §12.4) | [`Input::budget`] |
//!
//! A selection renders as indices ([`Selection::kept`],
//! [`Selection::removed`]), as the kept messages ([`Selection::messages`],
//! [`Selection::kept_message`]) or, with its error, as a protocol
//! [`Response`] (`Response::from(reference.reduce(input))`): what the
//! checker's clause `matches-reference` is judged against (the checker
//! itself never reduces; its callers supply that answer) and what
//! `reducer-kit serve` writes.
//!
//! # Examples
//!
//! ```
//! use reducer_kit::protocol::Response;
//! use reducer_kit::reduce::{Input, Reference};
//! use reducer_kit::terms::{BudgetFields, Policy};
//! use reducer_kit::Format;
//! use serde_json::json;
//! let h: Vec<serde_json::Value> = serde_json::from_str(r#"[
//!   {"role":"user","contents":[{"$type":"text","text":"a"}]},
//!   {"role":"assistant","contents":[{"$type":"text","text":"b"}]},
//!   {"role":"user","contents":[{"$type":"text","text":"c"}]}]"#).unwrap();
//! let turns = Reference::new(Policy::Turns, Format::Canonical);
//!
//! // Protocol 1: `maxMessages`.
//! let s = turns.reduce(Input::new(&h).max_messages(&json!(2))).unwrap();
//! assert_eq!(s.kept(), [2]);
//! assert_eq!(s.messages(), h[2..]);
//!
//! // Protocol 2: a token budget, answered as the runner protocol's response.
//! let tokens = BudgetFields::tokens(json!(5), json!([1, 4, 2]), None);
//! let suffix = Reference::new(Policy::Suffix, Format::Canonical);
//! let r = Response::from(suffix.reduce(Input::new(&h).budget_fields(&tokens)));
//! assert_eq!(r, Response::Messages(h[2..].to_vec())); // 2 + 4 > 5
//!
//! // No budget at all: a bad budget, answered as an error.
//! let r = Response::from(turns.reduce(Input::new(&h)));
//! assert!(matches!(r, Response::Error(_)));
//! ```

use crate::formats::{read_history, strip_items_at, Format};
use crate::protocol::Response;
use crate::terms::links::window;
use crate::terms::provider::{provider_violations, required_reasoning, server_id, ProviderRule};
use crate::terms::{
    Budget, BudgetError, BudgetFields, History, MessageView, Policy, Provider, ShapeError,
};
use serde_json::Value;
use std::borrow::Cow;

mod select;
pub use select::select_indices;
use select::{later_selections, orphans_removed};

/// Why a request cannot be reduced.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReduceError {
    /// The budget members are not a budget (spec §3 step 1, spec
    /// §11.2, an unsatisfiable one included); the error says what was
    /// received.
    #[error(transparent)]
    BadBudget(#[from] BudgetError),
    /// A message has a shape the kit cannot read.
    #[error(transparent)]
    Shape(#[from] ShapeError),
    /// With a provider profile: the input passes the profile but no output
    /// the policy may give within the budget does, and M holds no turn
    /// start that fits alone to fall back on (spec §15.4): none at all,
    /// or (under a token budget) none that costs little enough.
    #[error("no output within the budget passes the {0} profile (no user message that starts a turn fits the budget alone)")]
    NoAcceptedOutput(Provider),
}

/// The reference reducer of one policy, in one wire format, maybe under a
/// provider profile: built once ([`Reference::new`],
/// [`Reference::with_provider`]), then asked any number of times through
/// its one method, [`Reference::reduce`]. It honours no declaration
/// (spec §16): a caller that judges in a declared unit hands it the
/// budget in that unit.
///
/// # Examples
///
/// ```
/// use reducer_kit::reduce::{Input, Reference};
/// use reducer_kit::terms::{Policy, Provider};
/// use reducer_kit::Format;
/// let h: Vec<serde_json::Value> = serde_json::from_str(r#"[
///   {"role":"user","contents":[{"$type":"text","text":"a"}]},
///   {"role":"assistant","contents":[{"$type":"text","text":"b"}]},
///   {"role":"user","contents":[{"$type":"text","text":"c"}]}]"#).unwrap();
/// let reference = Reference::new(Policy::Suffix, Format::Canonical)
///     .with_provider(Some(Provider::Anthropic));
/// // Budget 2: `suffix` keeps [b, c]; the Anthropic profile wants a user
/// // message first, so the cut moves on to [c].
/// let s = reference.reduce(Input::new(&h).max_messages(&2.into())).unwrap();
/// assert_eq!(s.kept(), [2]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reference {
    policy: Policy,
    format: Format,
    provider: Option<Provider>,
}

impl Reference {
    /// The reference reducer of `policy` for histories in `format`, under
    /// no provider profile.
    pub fn new(policy: Policy, format: Format) -> Reference {
        Reference {
            policy,
            format,
            provider: None,
        }
    }

    /// This reference under `provider`'s profile (spec §15.4), or none:
    /// when the input passes the profile, the output passes it too (see
    /// [`Reference::reduce`]). A repair ignores it (spec §17.5).
    #[must_use]
    pub fn with_provider(self, provider: Option<Provider>) -> Reference {
        Reference { provider, ..self }
    }

    /// What the reference keeps of `input`'s history under its budget.
    ///
    /// In order: the budget is read (`maxMessages`, or every budget member
    /// of protocol 2, [`Budget::read`]); the history is read in the
    /// reference's format ([`read_history`], for [`Input::new`] only); a
    /// budget whose pinned message alone costs more than its limit is
    /// rejected (spec §11.5); then the policy selects (spec §3 / §4, then
    /// orphan removal, §3 step 6; `repair`: §17.2, the budget playing no
    /// part), walking back from the newest message no further than the
    /// budget and one turn: linear in the history's items, no message
    /// cloned. Under a token budget (spec §11.4, §11.5) every count is a
    /// cost and B is [`Budget::available`]; unit costs give version 1
    /// exactly.
    ///
    /// Under a provider profile (spec §15.4), when the input passes it:
    /// the policy's own selection is kept when the profile accepts it;
    /// otherwise `suffix` moves its start on to each later legal start, and
    /// `turns` drops its oldest kept turns one by one (in the overflow
    /// case: shortens the tail, down to the question alone), taking the
    /// first cut the profile accepts; when none does, the newest turn start
    /// alone (with the pinned system message) when it fits. Every cut tried
    /// keeps a part of the policy's own selection, so it fits the budget
    /// too. When the input breaks the profile, the profile plays no part.
    ///
    /// # Errors
    ///
    /// [`ReduceError::BadBudget`] (checked first; with
    /// [`BudgetError::Unsatisfiable`] once the history is read),
    /// [`ReduceError::Shape`] (a message of [`Input::new`] the format
    /// cannot read) and, under a profile, [`ReduceError::NoAcceptedOutput`]
    /// when no cut is accepted and no turn start fits alone.
    pub fn reduce<'h>(&self, input: Input<'h, '_>) -> Result<Selection<'h>, ReduceError> {
        let read;
        let budget = match input.budget {
            Limit::MaxMessages(v) => {
                read = Budget::parse(v)?;
                &read
            }
            Limit::Fields(f) => {
                read = Budget::read(f, input.history.len())?;
                &read
            }
            Limit::Read(b) => b,
        };
        let (messages, history) = match input.history {
            Given::Messages(m) => (Some(m), Cow::Owned(read_history(self.format, m)?)),
            Given::Classified(m, h) => (Some(m), Cow::Borrowed(h)),
            Given::History(h) => (None, Cow::Borrowed(h)),
        };
        budget.available(history.pinned())?;
        // The server ids of the messages (spec §14.7), for the profile rule
        // that reads them against the stored conversation (§15.3,
        // `required-reasoning`): given, or read from the message values.
        let needs_ids = self
            .provider
            .is_some_and(|p| p.rules().contains(&ProviderRule::RequiredReasoning));
        let from_values: Option<Vec<Option<&str>>> = match input.server_ids {
            Some(_) => None,
            None => messages
                .filter(|_| needs_ids)
                .map(|m| m.iter().map(server_id).collect()),
        };
        let server_ids = input
            .server_ids
            .filter(|_| needs_ids)
            .or(from_values.as_deref());
        let Indices { kept, stripped } = self.select(&history, budget, server_ids)?;
        Ok(Selection {
            kept,
            stripped,
            format: self.format,
            messages,
            history,
        })
    }

    /// The selection of [`Reference::reduce`] on a history already read,
    /// its budget satisfiable; `server_ids`, when given, the server id of
    /// each message, against which a profile's `required-reasoning` rule
    /// judges a cut (spec §15.3).
    fn select(
        &self,
        history: &History,
        budget: &Budget,
        server_ids: Option<&[Option<&str>]>,
    ) -> Result<Indices, ReduceError> {
        // A repair removes what is broken and nothing else, profile or not
        // (spec §17.5).
        let Some(provider) = self.provider.filter(|_| self.policy.has_budget()) else {
            return Ok(plain(self.policy, history, budget));
        };
        let views: Vec<MessageView> = (0..history.len())
            .map(|i| history.message_view(i))
            .collect();
        if !provider_violations(provider, &views).is_empty() {
            return Ok(plain(self.policy, history, budget));
        }
        let accepted = |sel: &[usize]| {
            let (sent, w): (Vec<Option<usize>>, Vec<MessageView>) = window(&views, sel)
                .into_iter()
                .map(|(j, v)| (Some(j), v))
                .unzip();
            provider_violations(provider, &w).is_empty()
                && server_ids.is_none_or(|ids| required_reasoning(&views, ids, &sent).is_empty())
        };
        let own = select_indices(self.policy, history, budget);
        if accepted(&own) {
            return Ok(orphans_removed(history, own));
        }
        let room = budget.available(history.pinned()).unwrap_or(0);
        later_selections(self.policy, history, &own, |u| budget.cost(u) <= room)
            .into_iter()
            .find(|sel| accepted(sel))
            .map(|sel| orphans_removed(history, sel))
            .ok_or(ReduceError::NoAcceptedOutput(provider))
    }
}

/// The policy's selection with no profile: spec §3 / §4, then orphan
/// removal (§3 step 6); under `repair`, what
/// [`crate::terms::repair::repair`] keeps (spec §17.2).
fn plain(policy: Policy, history: &History, budget: &Budget) -> Indices {
    if policy == Policy::Repair {
        return repaired(history);
    }
    let chosen = select_indices(policy, history, budget);
    orphans_removed(history, chosen)
}

/// The reference reducer of policy `repair` (spec §17.2): what
/// [`crate::terms::repair::repair`] keeps. The budget plays no part.
fn repaired(history: &History) -> Indices {
    let r = crate::terms::repair::repair(history);
    let kept = r.kept_messages();
    let stripped = kept
        .iter()
        .map(|&m| (m, r.removed(history, m)))
        .filter(|(_, removed)| !removed.is_empty())
        .collect();
    Indices { kept, stripped }
}

/// A request to the reference: a history and a budget, each in the form
/// the caller has it (borrowed; nothing is copied). Built from the history
/// ([`Input::new`], [`Input::classified`], [`Input::history`]), then given
/// its budget ([`Input::max_messages`], [`Input::budget_fields`],
/// [`Input::budget`]; the last one given counts). An input given no budget
/// is a protocol 1 request without `maxMessages`: the reference rejects
/// its budget ([`ReduceError::BadBudget`]). `'h` is the history's borrow,
/// which the [`Selection`] keeps; `'b` the budget's, which it does not.
///
/// # Examples
///
/// ```
/// use reducer_kit::formats::read_history;
/// use reducer_kit::reduce::{Input, Reference};
/// use reducer_kit::terms::{Budget, Policy};
/// use reducer_kit::Format;
/// let h: Vec<serde_json::Value> = serde_json::from_str(r#"[
///   {"role":"user","contents":[{"$type":"text","text":"a"}]},
///   {"role":"assistant","contents":[{"$type":"text","text":"b"}]},
///   {"role":"user","contents":[{"$type":"text","text":"c"}]}]"#).unwrap();
/// let history = read_history(Format::Canonical, &h).unwrap();
/// let budget = Budget::of_messages(2).unwrap();
/// let turns = Reference::new(Policy::Turns, Format::Canonical);
/// // The history read once, reduced without its values: indices only.
/// let s = turns.reduce(Input::history(&history).budget(&budget)).unwrap();
/// assert_eq!(s.kept(), [2]);
/// // With its values too: the same selection, which renders as messages.
/// let s = turns.reduce(Input::classified(&h, &history).budget(&budget)).unwrap();
/// assert_eq!(s.messages(), h[2..]);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Input<'h, 'b> {
    history: Given<'h>,
    budget: Limit<'b>,
    server_ids: Option<&'b [Option<&'b str>]>,
}

/// The history of an [`Input`].
#[derive(Clone, Copy, Debug)]
enum Given<'a> {
    Messages(&'a [Value]),
    Classified(&'a [Value], &'a History),
    History(&'a History),
}

impl Given<'_> {
    fn len(&self) -> usize {
        match self {
            Given::Messages(m) | Given::Classified(m, _) => m.len(),
            Given::History(h) => h.len(),
        }
    }
}

/// The budget of an [`Input`].
#[derive(Clone, Copy, Debug)]
enum Limit<'a> {
    MaxMessages(&'a Value),
    Fields(&'a BudgetFields),
    Read(&'a Budget),
}

/// No `maxMessages`: what an input given no budget has.
static NO_BUDGET: Value = Value::Null;

impl<'h, 'b> Input<'h, 'b> {
    /// A history given as message values in the reference's format (the
    /// kit's list: a top-level system prompt first, spec §1.5), read by
    /// the reference ([`ReduceError::Shape`] when a message cannot be
    /// read).
    pub fn new(messages: &'h [Value]) -> Input<'h, 'b> {
        Input {
            history: Given::Messages(messages),
            budget: Limit::MaxMessages(&NO_BUDGET),
            server_ids: None,
        }
    }

    /// A history given as message values already read as `history`
    /// ([`read_history`] in the reference's format): the same selection
    /// as [`Input::new`], for a caller that reads the history for its own
    /// use too.
    pub fn classified(messages: &'h [Value], history: &'h History) -> Input<'h, 'b> {
        Input {
            history: Given::Classified(messages, history),
            budget: Limit::MaxMessages(&NO_BUDGET),
            server_ids: None,
        }
    }

    /// A history given as read alone, without its message values (say,
    /// [`crate::formats::read_history_raw`] on message texts): its
    /// selection renders as indices, and as messages only through
    /// [`Selection::kept_message`] with values the caller has.
    pub fn history(history: &'h History) -> Input<'h, 'b> {
        Input {
            history: Given::History(history),
            budget: Limit::MaxMessages(&NO_BUDGET),
            server_ids: None,
        }
    }

    /// The budget as a protocol 1 request's `maxMessages` (a positive
    /// whole number of messages, spec §3 step 1; [`Budget::parse`]).
    #[must_use]
    pub fn max_messages(self, max_messages: &'b Value) -> Input<'h, 'b> {
        Input {
            budget: Limit::MaxMessages(max_messages),
            ..self
        }
    }

    /// The budget as a protocol 2 request's budget members
    /// ([`Budget::read`]: `maxMessages`, or `maxTokens` with `tokens` and
    /// `countPinned`, spec §11.2).
    #[must_use]
    pub fn budget_fields(self, fields: &'b BudgetFields) -> Input<'h, 'b> {
        Input {
            budget: Limit::Fields(fields),
            ..self
        }
    }

    /// A budget already read, which may have a limit of 0
    /// ([`Budget::less`]; nothing of M fits then unless it costs 0).
    #[must_use]
    pub fn budget(self, budget: &'b Budget) -> Input<'h, 'b> {
        Input {
            budget: Limit::Read(budget),
            ..self
        }
    }

    /// The server id of each message (spec §14.7;
    /// [`crate::terms::provider::server_id`] of its value, `None` for one
    /// without), for a history given as read alone ([`Input::history`]):
    /// a profile with the rule `required-reasoning` (spec §15.3) judges its
    /// cuts against them. Messages given as values carry their own ids,
    /// which these replace.
    #[must_use]
    pub fn server_ids(self, ids: &'b [Option<&'b str>]) -> Input<'h, 'b> {
        Input {
            server_ids: Some(ids),
            ..self
        }
    }
}

/// What a selection keeps, as indices.
struct Indices {
    kept: Vec<usize>,
    stripped: Vec<(usize, Vec<usize>)>,
}

/// What the reference keeps of an [`Input`]'s history
/// ([`Reference::reduce`]): the kept messages in input order (the pinned
/// system message included; messages orphan removal empties are not kept)
/// and, for the few kept messages that lose items, which items orphan
/// removal (or a repair) takes out. It borrows the input's history (`'h`),
/// and renders as indices ([`Selection::kept`], [`Selection::stripped`],
/// [`Selection::removed`], [`Selection::elements`]), as messages
/// ([`Selection::messages`], [`Selection::kept_message`]), or, as
/// `Response::from(result)` of [`Reference::reduce`]'s result, as a
/// protocol [`Response`]: [`Response::Messages`] of the kept messages, or
/// the error's text as [`Response::Error`].
///
/// Its `Debug` shows the indices alone.
///
/// # Examples
///
/// ```
/// use reducer_kit::reduce::{Input, Reference};
/// use reducer_kit::terms::Policy;
/// use reducer_kit::Format;
/// // A result stored twice by a retry: the repair drops the second.
/// let h: Vec<serde_json::Value> = serde_json::from_str(r#"[
///   {"role":"assistant","contents":[{"$type":"functionCall","callId":"c1","name":"f"}]},
///   {"role":"tool","contents":[{"$type":"functionResult","callId":"c1","result":"ok"}]},
///   {"role":"tool","contents":[{"$type":"functionResult","callId":"c1","result":"ok"}]}]"#).unwrap();
/// let repair = Reference::new(Policy::Repair, Format::Canonical);
/// let s = repair.reduce(Input::new(&h).max_messages(&9.into())).unwrap();
/// assert_eq!(s.kept(), [0, 1]);
/// assert!(s.stripped().is_empty() && !s.keeps_all());
/// assert_eq!(s.messages(), h[..2]);
/// ```
#[derive(Clone)]
pub struct Selection<'h> {
    kept: Vec<usize>,
    stripped: Vec<(usize, Vec<usize>)>,
    format: Format,
    /// The input's message values, unless it was given as a history alone.
    messages: Option<&'h [Value]>,
    /// The input's history: borrowed, or read by the reference.
    history: Cow<'h, History>,
}

impl std::fmt::Debug for Selection<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Selection")
            .field("kept", &self.kept)
            .field("stripped", &self.stripped)
            .finish()
    }
}

impl Selection<'_> {
    /// Indices of the kept messages, ascending.
    pub fn kept(&self) -> &[usize] {
        &self.kept
    }

    /// `(message, item indices removed from it)` for every kept message
    /// that loses some results or approval responses (spec §3 step 6), or
    /// under `repair` also calls and approval requests (spec §17.2),
    /// ascending by message; item indices are positions in the message's
    /// items ([`History::items`]), ascending.
    pub fn stripped(&self) -> &[(usize, Vec<usize>)] {
        &self.stripped
    }

    /// The item indices removed from kept message `m` (empty for a message
    /// kept whole).
    pub fn removed(&self, m: usize) -> &[usize] {
        match self.stripped.binary_search_by_key(&m, |(i, _)| *i) {
            Ok(p) => &self.stripped[p].1,
            Err(_) => &[],
        }
    }

    /// The elements of message `m`'s items array that its removed items
    /// ([`Selection::removed`]) are, ascending.
    pub fn elements(&self, m: usize) -> Vec<usize> {
        let items = self.history.items(m);
        let mut elems: Vec<usize> = self
            .removed(m)
            .iter()
            .filter_map(|&t| items[t].elem())
            .collect();
        elems.sort_unstable();
        elems
    }

    /// Whether it keeps every message of the history, none of them losing
    /// an item: its output is then the history itself.
    pub fn keeps_all(&self) -> bool {
        self.stripped.is_empty() && self.kept.iter().copied().eq(0..self.history.len())
    }

    /// Kept message `m` as the output holds it, given `message`, its value
    /// in the input: `message` itself when it is kept whole, else a copy
    /// without its removed items (the elements of its items array, and
    /// under `repair` in the OpenAI format its `tool_calls` entries,
    /// [`strip_items_at`]).
    pub fn kept_message<'v>(&self, m: usize, message: &'v Value) -> Cow<'v, Value> {
        match self.removed(m) {
            [] => Cow::Borrowed(message),
            removed => Cow::Owned(strip_items_at(
                self.format,
                message,
                self.history.items(m),
                removed,
            )),
        }
    }

    /// The kept messages as values, in input order: clones of the input's
    /// messages, the stripped ones without their removed items.
    ///
    /// # Panics
    ///
    /// When the input was a history alone ([`Input::history`]): it has no
    /// values to render (use [`Selection::kept_message`]).
    pub fn messages(&self) -> Vec<Value> {
        let messages = self.messages;
        assert!(
            messages.is_some(),
            "Selection::messages on an Input::history: no message values"
        );
        let messages = messages.unwrap_or_default();
        self.kept
            .iter()
            .map(|&m| self.kept_message(m, &messages[m]).into_owned())
            .collect()
    }
}

/// The reference's answer as a protocol response: its kept messages
/// ([`Selection::messages`]) as [`Response::Messages`], or its error's text
/// as [`Response::Error`].
///
/// # Panics
///
/// As [`Selection::messages`]: on a selection of an [`Input::history`].
impl From<Result<Selection<'_>, ReduceError>> for Response {
    fn from(r: Result<Selection<'_>, ReduceError>) -> Response {
        match r {
            Ok(s) => Response::Messages(s.messages()),
            Err(e) => Response::Error(e.to_string()),
        }
    }
}

#[cfg(test)]
mod tests;
