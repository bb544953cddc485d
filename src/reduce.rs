//! The reference reducers: policy `turns` (spec §3), policy `suffix`
//! (spec §4) and policy `repair` (spec §17), over the terms of §2
//! ([`crate::terms`]), in any wire format ([`crate::formats`]), under a
//! message budget or a token budget (spec §11.4, §11.5: every count is a
//! cost, B what M may cost; `repair` reads a budget only to reject one that
//! is not, §17.1).
//!
//! [`reduce`] reads a protocol 1 request's `maxMessages`;
//! [`reduce_request`] reads every budget member of protocol 2
//! ([`BudgetFields`]); [`reduce_budget`] reduces under a [`Budget`] already
//! read, also one of limit 0 ([`Budget::less`]): the reference answer a
//! summary is judged against (spec §12.4).
//!
//! [`respond`] and [`reference()`] give the reference's answer as a protocol
//! [`Response`]: what the checker's clause `matches-reference` is judged
//! against (the checker itself never reduces; its callers supply that
//! answer) and what `reducer-kit serve` writes.

use crate::formats::{read_history, strip_items_at, Format};
use crate::protocol::Response;
use crate::terms::history::Pairing;
use crate::terms::links::{attached_reasoning, linked_to_previous, window};
use crate::terms::provider::provider_violations;
use crate::terms::{
    Budget, BudgetError, BudgetFields, History, MessageView, Policy, Provider, Role, ShapeError,
};
use serde_json::Value;

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

/// Reduces `messages` (in `format`) to at most `max_messages` messages besides
/// the pinned system message, under `policy`.
///
/// Returns the kept messages in input order, each equal to the message read
/// or that message with orphan results / approval responses removed.
///
/// # Errors
///
/// [`ReduceError::BadBudget`] (checked first) and [`ReduceError::Shape`].
///
/// # Examples
///
/// ```
/// use reducer_kit::{formats::Format, reduce::reduce, terms::Policy};
/// let h: Vec<serde_json::Value> = serde_json::from_str(r#"[
///   {"role":"user","contents":[{"$type":"text","text":"a"}]},
///   {"role":"assistant","contents":[{"$type":"text","text":"b"}]},
///   {"role":"user","contents":[{"$type":"text","text":"c"}]}]"#).unwrap();
/// let out = reduce(Policy::Turns, Format::Canonical, &h, &serde_json::json!(2)).unwrap();
/// assert_eq!(out, h[2..].to_vec());
/// ```
pub fn reduce(
    policy: Policy,
    format: Format,
    messages: &[Value],
    max_messages: &Value,
) -> Result<Vec<Value>, ReduceError> {
    let budget = Budget::parse(max_messages)?;
    reduce_budget(policy, format, messages, &budget)
}

/// Reduces `messages` (in `format`, the kit's list) under the budget
/// members of a protocol 2 request ([`Budget::read`]: `maxMessages`, or
/// `maxTokens` with `tokens` and `countPinned`), under `policy`.
///
/// # Errors
///
/// [`ReduceError::BadBudget`] (checked first, the unsatisfiable budget once
/// the messages are read) and [`ReduceError::Shape`].
///
/// # Examples
///
/// ```
/// use reducer_kit::{formats::Format, reduce::reduce_request, terms::{BudgetFields, Policy}};
/// use serde_json::json;
/// let h: Vec<serde_json::Value> = serde_json::from_str(r#"[
///   {"role":"user","contents":[{"$type":"text","text":"a"}]},
///   {"role":"assistant","contents":[{"$type":"text","text":"b"}]},
///   {"role":"user","contents":[{"$type":"text","text":"c"}]}]"#).unwrap();
/// let b = BudgetFields::tokens(json!(5), json!([1, 4, 2]), None);
/// let out = reduce_request(Policy::Suffix, Format::Canonical, &h, &b).unwrap();
/// assert_eq!(out, h[2..].to_vec()); // 2 + 4 > 5
/// ```
pub fn reduce_request(
    policy: Policy,
    format: Format,
    messages: &[Value],
    budget: &BudgetFields,
) -> Result<Vec<Value>, ReduceError> {
    let budget = Budget::read(budget, messages.len())?;
    reduce_budget(policy, format, messages, &budget)
}

/// Reduces `messages` (in `format`) under a budget already read, which may
/// have a limit of 0 ([`Budget::less`]; nothing of M fits then unless it
/// costs 0).
///
/// # Errors
///
/// [`ReduceError::Shape`]; [`ReduceError::BadBudget`] with
/// [`BudgetError::Unsatisfiable`] when `countPinned` and the pinned message
/// alone costs more than the limit.
pub fn reduce_budget(
    policy: Policy,
    format: Format,
    messages: &[Value],
    budget: &Budget,
) -> Result<Vec<Value>, ReduceError> {
    let history = read_history(format, messages)?;
    reduce_classified(policy, format, messages, &history, budget)
}

/// [`reduce_budget`] on `messages` already classified as `history`
/// ([`read_history`] in `format`): the same output, for a caller that
/// reads the history for its own use too.
///
/// # Errors
///
/// [`ReduceError::BadBudget`] with [`BudgetError::Unsatisfiable`], as
/// [`reduce_budget`].
pub fn reduce_classified(
    policy: Policy,
    format: Format,
    messages: &[Value],
    history: &History,
    budget: &Budget,
) -> Result<Vec<Value>, ReduceError> {
    reduce_classified_with(policy, format, messages, history, budget, None)
}

/// [`reduce_classified`] under a provider profile
/// ([`reduce_indices_with`]): what [`reduce_budget_with`] does after
/// reading the history.
///
/// # Errors
///
/// As [`reduce_classified`], and [`ReduceError::NoAcceptedOutput`].
pub fn reduce_classified_with(
    policy: Policy,
    format: Format,
    messages: &[Value],
    history: &History,
    budget: &Budget,
    provider: Option<Provider>,
) -> Result<Vec<Value>, ReduceError> {
    Ok(
        reduce_classified_indices_with(policy, history, budget, provider)?
            .materialize(format, messages, history),
    )
}

/// What [`reduce_classified_with`] keeps, as a [`Selection`] on `history`
/// (no message cloned): the same checks, in the same order (the
/// unsatisfiable budget, spec §11.5, then the provider profile), and
/// [`Selection::materialize`] on the messages `history` was read from is
/// `reduce_classified_with`'s output.
///
/// # Errors
///
/// As [`reduce_classified_with`].
pub fn reduce_classified_indices_with(
    policy: Policy,
    history: &History,
    budget: &Budget,
    provider: Option<Provider>,
) -> Result<Selection, ReduceError> {
    budget.available(history.pinned())?;
    reduce_indices_with(policy, history, budget, provider)
}

/// What a reference reducer keeps, as indices: the kept messages in input
/// order (the pinned system message included; messages orphan removal
/// empties are not kept) and, for the few kept messages that lose items,
/// which items orphan removal takes out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    /// Indices of the kept messages, ascending.
    pub kept: Vec<usize>,
    /// `(message, item indices removed from it)` for every kept message
    /// that loses some results or approval responses (spec §3 step
    /// 6), or under `repair` also calls and approval requests (spec
    /// §17.2), ascending by message; item indices are positions in the
    /// message's items ([`History::items`]), ascending.
    pub stripped: Vec<(usize, Vec<usize>)>,
}

impl Selection {
    /// The item indices removed from kept message `m` (empty for a message
    /// kept whole).
    pub fn removed(&self, m: usize) -> &[usize] {
        match self.stripped.binary_search_by_key(&m, |(i, _)| *i) {
            Ok(p) => &self.stripped[p].1,
            Err(_) => &[],
        }
    }

    /// Whether it keeps all `len` messages of the history, none of them
    /// losing an item: its output is then the history itself.
    pub fn keeps_all(&self, len: usize) -> bool {
        self.stripped.is_empty() && self.kept.iter().copied().eq(0..len)
    }

    /// The kept messages as values: clones of the kept messages of
    /// `messages` (the history the selection was made on, classified as
    /// `history`), with the removed items taken out of the stripped ones.
    pub fn materialize(&self, format: Format, messages: &[Value], history: &History) -> Vec<Value> {
        let mut stripped = self.stripped.iter().peekable();
        self.kept
            .iter()
            .map(|&m| match stripped.next_if(|(i, _)| *i == m) {
                Some((_, removed)) => Selection::strip(format, &messages[m], history, m, removed),
                None => messages[m].clone(),
            })
            .collect()
    }

    /// Message `msg` (message `m` of `history`) with the items `removed`
    /// (item indices, ascending) taken out: the elements of its items
    /// array, and under `repair` in the OpenAI format its `tool_calls`
    /// entries ([`strip_items_at`]).
    pub fn strip(
        format: Format,
        msg: &Value,
        history: &History,
        m: usize,
        removed: &[usize],
    ) -> Value {
        strip_items_at(format, msg, history.items(m), removed)
    }

    /// The items array elements of message `m` that `removed` (item
    /// indices) names, ascending.
    pub fn elements(&self, history: &History, m: usize, removed: &[usize]) -> Vec<usize> {
        let items = history.items(m);
        let mut elems: Vec<usize> = removed.iter().filter_map(|&t| items[t].elem()).collect();
        elems.sort_unstable();
        elems
    }
}

/// The reference reducer of `policy` on a history already classified
/// (spec §3 / §4, then orphan removal, §3 step 6), as indices: no
/// message is cloned. Linear in the history's items; the selection walks
/// back from the newest message no further than the budget and one turn.
/// Under a token budget (spec §11.4, §11.5) every count is a cost and
/// B is [`Budget::available`] (0 for an unsatisfiable budget, which
/// [`reduce_budget`] rejects first); unit costs give version 1 exactly.
///
/// # Examples
///
/// ```
/// use reducer_kit::{formats::{read_history, Format}, reduce::reduce_indices, terms::{Budget, Policy}};
/// let h: Vec<serde_json::Value> = serde_json::from_str(r#"[
///   {"role":"user","contents":[{"$type":"text","text":"a"}]},
///   {"role":"assistant","contents":[{"$type":"text","text":"b"}]},
///   {"role":"user","contents":[{"$type":"text","text":"c"}]}]"#).unwrap();
/// let history = read_history(Format::Canonical, &h).unwrap();
/// let s = reduce_indices(Policy::Turns, &history, &Budget::of_messages(2).unwrap());
/// assert_eq!(s.kept, vec![2]);
/// ```
pub fn reduce_indices(policy: Policy, history: &History, budget: &Budget) -> Selection {
    if policy == Policy::Repair {
        return repaired(history);
    }
    let chosen = select_indices(policy, history, budget);
    orphans_removed(history, chosen)
}

/// The reference reducer of policy `repair` (spec §17.2): what
/// [`crate::terms::repair::repair`] keeps, as a selection. The budget plays
/// no part.
///
/// # Examples
///
/// ```
/// use reducer_kit::{formats::{read_history, Format}, reduce::repaired};
/// // A result stored twice by a retry: the second goes.
/// let h: Vec<serde_json::Value> = serde_json::from_str(r#"[
///   {"role":"assistant","contents":[{"$type":"functionCall","callId":"c1","name":"f"}]},
///   {"role":"tool","contents":[{"$type":"functionResult","callId":"c1","result":"ok"}]},
///   {"role":"tool","contents":[{"$type":"functionResult","callId":"c1","result":"ok"}]}]"#).unwrap();
/// let s = repaired(&read_history(Format::Canonical, &h).unwrap());
/// assert_eq!(s.kept, vec![0, 1]);
/// ```
pub fn repaired(history: &History) -> Selection {
    let r = crate::terms::repair::repair(history);
    let kept = r.kept_messages();
    let stripped = kept
        .iter()
        .map(|&m| (m, r.removed(history, m)))
        .filter(|(_, removed)| !removed.is_empty())
        .collect();
    Selection { kept, stripped }
}

/// The reference reducer's protocol answer to a request: its output as
/// [`Response::Messages`], or its error's text as [`Response::Error`].
pub fn respond(
    policy: Policy,
    format: Format,
    max_messages: &Value,
    messages: &[Value],
) -> Response {
    answer(reduce(policy, format, messages, max_messages))
}

/// [`respond`] for the budget members of a protocol 2 request
/// ([`reduce_request`]).
pub fn respond_request(
    policy: Policy,
    format: Format,
    budget: &BudgetFields,
    messages: &[Value],
) -> Response {
    answer(reduce_request(policy, format, messages, budget))
}

/// [`respond`] under a budget already read ([`reduce_budget`]).
pub fn respond_budget(
    policy: Policy,
    format: Format,
    budget: &Budget,
    messages: &[Value],
) -> Response {
    answer(reduce_budget(policy, format, messages, budget))
}

/// [`reduce`] under a provider profile (spec §15.4; see
/// [`reduce_indices_with`]). Without a provider, exactly [`reduce`].
///
/// # Errors
///
/// As [`reduce`], and [`ReduceError::NoAcceptedOutput`].
pub fn reduce_with(
    policy: Policy,
    format: Format,
    messages: &[Value],
    max_messages: &Value,
    provider: Option<Provider>,
) -> Result<Vec<Value>, ReduceError> {
    let budget = Budget::parse(max_messages)?;
    reduce_budget_with(policy, format, messages, &budget, provider)
}

/// [`reduce_request`] under a provider profile.
///
/// # Errors
///
/// As [`reduce_request`], and [`ReduceError::NoAcceptedOutput`].
pub fn reduce_request_with(
    policy: Policy,
    format: Format,
    messages: &[Value],
    budget: &BudgetFields,
    provider: Option<Provider>,
) -> Result<Vec<Value>, ReduceError> {
    let budget = Budget::read(budget, messages.len())?;
    reduce_budget_with(policy, format, messages, &budget, provider)
}

/// [`reduce_budget`] under a provider profile.
///
/// # Errors
///
/// As [`reduce_budget`], and [`ReduceError::NoAcceptedOutput`].
pub fn reduce_budget_with(
    policy: Policy,
    format: Format,
    messages: &[Value],
    budget: &Budget,
    provider: Option<Provider>,
) -> Result<Vec<Value>, ReduceError> {
    let history = read_history(format, messages)?;
    reduce_classified_with(policy, format, messages, &history, budget, provider)
}

/// [`reduce_indices`] under a provider profile (spec §15.4): when
/// `provider` is given and the input passes its profile, the output passes
/// it too. The policy's own output is kept when the profile accepts it;
/// otherwise `suffix` moves its start on to each later legal start, and
/// `turns` drops its oldest kept turns one by one (in the overflow case:
/// shortens the tail, down to the question alone), taking the first cut
/// the profile accepts; when none does, the newest turn start alone (with
/// the pinned system message) when it fits. Every cut tried keeps a part
/// of the policy's own selection, so it fits the budget too. Without a
/// provider, or when the input breaks the profile, exactly
/// [`reduce_indices`].
///
/// # Errors
///
/// [`ReduceError::NoAcceptedOutput`] when no cut is accepted and no turn
/// start fits alone.
pub fn reduce_indices_with(
    policy: Policy,
    history: &History,
    budget: &Budget,
    provider: Option<Provider>,
) -> Result<Selection, ReduceError> {
    // A repair removes what is broken and nothing else, profile or not
    // (spec §17.5).
    let Some(provider) = provider.filter(|_| policy.has_budget()) else {
        return Ok(reduce_indices(policy, history, budget));
    };
    let views: Vec<MessageView> = (0..history.len())
        .map(|i| history.message_view(i))
        .collect();
    if !provider_violations(provider, &views).is_empty() {
        return Ok(reduce_indices(policy, history, budget));
    }
    let accepted = |sel: &[usize]| {
        let w: Vec<MessageView> = window(&views, sel).into_iter().map(|(_, v)| v).collect();
        provider_violations(provider, &w).is_empty()
    };
    let plain = select_indices(policy, history, budget);
    if accepted(&plain) {
        return Ok(orphans_removed(history, plain));
    }
    let room = budget.available(history.pinned()).unwrap_or(0);
    later_selections(policy, history, &plain, |u| budget.cost(u) <= room)
        .into_iter()
        .find(|sel| accepted(sel))
        .map(|sel| orphans_removed(history, sel))
        .ok_or(ReduceError::NoAcceptedOutput(provider))
}

/// [`respond`] under a provider profile ([`reduce_with`]).
pub fn respond_with(
    policy: Policy,
    format: Format,
    max_messages: &Value,
    messages: &[Value],
    provider: Option<Provider>,
) -> Response {
    answer(reduce_with(
        policy,
        format,
        messages,
        max_messages,
        provider,
    ))
}

/// [`respond_request`] under a provider profile ([`reduce_request_with`]).
pub fn respond_request_with(
    policy: Policy,
    format: Format,
    budget: &BudgetFields,
    messages: &[Value],
    provider: Option<Provider>,
) -> Response {
    answer(reduce_request_with(
        policy, format, messages, budget, provider,
    ))
}

/// [`respond_request_with`] on an input already classified: `history` is
/// what [`read_history`]`(format, messages)` gave (certify reads the input
/// once for this answer and the checker). The same response, byte for
/// byte, as `respond_request_with` on the same arguments.
pub(crate) fn respond_request_classified(
    policy: Policy,
    format: Format,
    budget: &BudgetFields,
    messages: &[Value],
    history: &History,
    provider: Option<Provider>,
) -> Response {
    answer(
        select_request_classified(policy, budget, messages.len(), history, provider)
            .map(|s| s.materialize(format, messages, history)),
    )
}

/// What [`respond_request_classified`] keeps, as a [`Selection`] on
/// `history` (the classified input of `len` messages): the budget members
/// read ([`Budget::read`]), then [`reduce_classified_indices_with`]; its
/// error is the one `respond_request_classified` answers with.
pub(crate) fn select_request_classified(
    policy: Policy,
    budget: &BudgetFields,
    len: usize,
    history: &History,
    provider: Option<Provider>,
) -> Result<Selection, ReduceError> {
    Budget::read(budget, len)
        .map_err(ReduceError::from)
        .and_then(|b| reduce_classified_indices_with(policy, history, &b, provider))
}

/// [`reference()`] under a provider profile ([`respond_request_with`]).
pub fn reference_with(
    policy: Policy,
    format: Format,
    provider: Option<Provider>,
) -> impl FnMut(&BudgetFields, &[Value]) -> Response {
    move |budget, messages| respond_request_with(policy, format, budget, messages, provider)
}

fn answer(r: Result<Vec<Value>, ReduceError>) -> Response {
    match r {
        Ok(m) => Response::Messages(m),
        Err(e) => Response::Error(e.to_string()),
    }
}

/// The reference reducer of `policy` as a closure `(budget members,
/// messages) -> Response` ([`respond_request`]), for
/// [`crate::check::check_reducer`].
pub fn reference(
    policy: Policy,
    format: Format,
) -> impl FnMut(&BudgetFields, &[Value]) -> Response {
    move |budget, messages| respond_request(policy, format, budget, messages)
}

/// The selection of spec §3 steps 2–5 / §4 (spec §11.4, §11.5
/// with costs) before orphan removal: ascending message indices, the pinned
/// system message included.
pub fn select(policy: Policy, views: &[MessageView], budget: &Budget) -> Vec<usize> {
    select_indices(policy, &History::from_views(views), budget)
}

/// [`select`] on a classified history. B is [`Budget::available`], taken
/// as 0 for an unsatisfiable budget (which [`reduce_budget`] rejects
/// first). Linear in the messages it walks; with unit costs the walks are
/// those of version 1, message for message.
pub fn select_indices(policy: Policy, h: &History, budget: &Budget) -> Vec<usize> {
    if policy == Policy::Repair {
        // A repair selects every message; what it removes is its own rule
        // (spec §17.2).
        return (0..h.len()).collect();
    }
    let pinned = h.pinned();
    let room = budget.available(pinned).unwrap_or(0);
    let fits = match budget.costs() {
        None => h.rest_len() as u64 <= room,
        Some(_) => budget.cost_of((0..h.len()).filter(|&i| Some(i) != pinned)) <= room,
    };
    if fits {
        return (0..h.len()).collect();
    }
    let start = match policy {
        Policy::Turns => select_turns(h, budget, room),
        Policy::Suffix => Start::At(suffix_start(h, budget, room)),
        Policy::Repair => unreachable!("answered above"),
    };
    let from = match start {
        Start::At(s) | Start::Question(s, _) => s,
    };
    let mut out = Vec::with_capacity(h.len() - from.min(h.len()) + 1);
    match start {
        Start::At(s) => out.extend((s..h.len()).filter(|&i| Some(i) != pinned)),
        Start::Question(q, tail) => {
            out.push(q);
            out.extend((tail..h.len()).filter(|&i| Some(i) != pinned));
        }
    }
    if let Some(p) = pinned {
        let at = out.partition_point(|&i| i < p);
        out.insert(at, p);
    }
    out
}

/// Where a selection begins: every message of M from `At(i)` on, or the
/// question `q` and then every message of M from `tail` on.
enum Start {
    At(usize),
    Question(usize, usize),
}

/// The smallest `s >= lo` such that the messages of M in `s..` cost at
/// most `room` together (the pinned message skipped), walking back from
/// the end and stopping at the first message that does not fit (spec
/// §11.3: never past it). With unit costs: the start of the newest `room`
/// messages.
fn fitting_tail(h: &History, budget: &Budget, lo: usize, room: u64) -> usize {
    let pinned = h.pinned();
    let mut s = h.len();
    let mut total = 0u64;
    while s > lo {
        let i = s - 1;
        if Some(i) != pinned {
            let with = total.saturating_add(budget.cost(i));
            if with > room {
                break;
            }
            total = with;
        }
        s = i;
    }
    s
}

/// Semantics §3 steps 2–5 when M costs more than B (spec §11.4): walks
/// back over the turns from the newest while they fit.
fn select_turns(h: &History, budget: &Budget, room: u64) -> Start {
    let pinned = h.pinned();
    let first_rest = (0..h.len()).find(|&i| Some(i) != pinned);
    let mut total = 0u64;
    // The start of the oldest turn kept so far, and the current turn's cost.
    let mut kept_from: Option<usize> = None;
    let mut size = 0u64;
    let mut newest: Option<(usize, bool)> = None;
    for i in (0..h.len()).rev() {
        if Some(i) == pinned {
            continue;
        }
        size = size.saturating_add(budget.cost(i));
        let is_start = h.view(i).is_turn_start();
        if !is_start && Some(i) != first_rest {
            continue;
        }
        // A turn begins at i and costs `size`.
        if newest.is_none() {
            newest = Some((i, is_start));
        }
        if total.saturating_add(size) > room {
            break;
        }
        total += size;
        kept_from = Some(i);
        size = 0;
    }
    match kept_from {
        Some(s) => Start::At(s),
        None => {
            // Step 4: not even the newest turn fits. The question when it
            // fits, and the longest run of the newest messages that fits
            // beside it; else that run alone (spec §11.4).
            let (q, has_question) = newest.expect("M costing more than B means a turn");
            let question = budget.cost(q);
            // The tail never begins inside a call group or right after an
            // attached reasoning item (spec §14.5–§14.6): its start
            // moves later.
            let unlinked = |mut s: usize| {
                while s < h.len() && linked_to_previous(h, s) {
                    s += 1;
                }
                s
            };
            if has_question && question <= room {
                Start::Question(q, unlinked(fitting_tail(h, budget, q + 1, room - question)))
            } else {
                Start::At(unlinked(fitting_tail(h, budget, q, room)))
            }
        }
    }
}

/// Semantics §4 (spec §11.5): the start of the longest suffix of M
/// that fits, moved later while it would begin inside a tool group.
fn suffix_start(h: &History, budget: &Budget, room: u64) -> usize {
    let pairing = h.pairing();
    let mut start = fitting_tail(h, budget, 0, room);
    while start < h.len() {
        if Some(start) == h.pinned() {
            start += 1;
            continue;
        }
        if !legal_suffix_start(h, &pairing, start) {
            start += 1;
        } else {
            break;
        }
    }
    start
}

/// The cuts a profile may fall back on after the policy's own `plain`
/// selection, in order (spec §15.4): `suffix` from each later legal
/// start; `turns` without its oldest kept turns one by one, or, when the
/// selection is a question and a tail (the overflow case), with a shorter
/// tail down to the question alone; then the newest turn start alone, when
/// `fits` says it fits the budget. Each includes the pinned message, and
/// each but the last keeps a part of `plain`.
fn later_selections(
    policy: Policy,
    h: &History,
    plain: &[usize],
    fits: impl Fn(usize) -> bool,
) -> Vec<Vec<usize>> {
    let pinned = h.pinned();
    let rest_from = |s: usize| -> Vec<usize> { (s..h.len()).collect() };
    let kept: Vec<usize> = plain
        .iter()
        .copied()
        .filter(|&i| Some(i) != pinned)
        .collect();
    let first_kept = kept.first().copied().unwrap_or(h.len());
    let mut out: Vec<Vec<usize>> = Vec::new();
    let with_pinned = |mut sel: Vec<usize>| {
        sel.retain(|&i| Some(i) != pinned);
        sel.extend(pinned);
        sel.sort_unstable();
        sel
    };
    match policy {
        Policy::Repair => {}
        Policy::Suffix => {
            let pairing = h.pairing();
            for s in first_kept + 1..h.len() {
                if Some(s) != pinned && legal_suffix_start(h, &pairing, s) {
                    out.push(with_pinned(rest_from(s)));
                }
            }
        }
        Policy::Turns => {
            // A question and a tail: the second kept message is not the one
            // after the first (the pinned message skipped).
            let next_after = |i: usize| (i + 1..h.len()).find(|&j| Some(j) != pinned);
            let split = kept.len() >= 2 && next_after(kept[0]) != Some(kept[1]);
            if split {
                let q = kept[0];
                for k in kept[1] + 1..=h.len() {
                    if k < h.len() && (Some(k) == pinned || linked_to_previous(h, k)) {
                        continue;
                    }
                    let mut sel = vec![q];
                    sel.extend(rest_from(k));
                    out.push(with_pinned(sel));
                }
            } else {
                for t in h.turn_spans().iter().filter(|t| t.start > first_kept) {
                    out.push(with_pinned(rest_from(t.start)));
                }
            }
        }
    }
    if let Some(u) = (0..h.len())
        .rev()
        .find(|&i| Some(i) != pinned && h.view(i).is_turn_start() && fits(i))
    {
        out.push(with_pinned(vec![u]));
    }
    out
}

/// A legal `suffix` start (spec §4, with the call groups and attached reasoning of §14.5–§14.6):
/// not a tool message, not approval-only, holding no result or approval
/// response paired with an earlier message, not continuing a call group and
/// not right after an attached reasoning item.
fn legal_suffix_start(h: &History, pairing: &Pairing, start: usize) -> bool {
    let v = h.view(start);
    let split_group = v.has_removable()
        && h.items(start).iter().enumerate().any(|(t, item)| {
            item.kind.is_removable()
                && pairing
                    .partner_message(h, start, t)
                    .is_some_and(|pm| pm < start)
        });
    !(v.role == Role::Tool || v.is_approval_only() || split_group || linked_to_previous(h, start))
}

/// Semantics §3 step 6 over `chosen` (ascending): the results and approval
/// responses that answer nothing earlier in the selection are removed, and
/// messages left with no item are dropped (so is a message that loses an
/// item that is not an element of its items array: an OpenAI tool message).
fn orphans_removed(h: &History, chosen: Vec<usize>) -> Selection {
    let pairing = h.pairing_of(chosen.iter().copied());
    let mut kept = chosen;
    let mut stripped = Vec::new();
    let mut removed: Vec<usize> = Vec::new();
    kept.retain(|&m| {
        let v = h.view(m);
        if !v.has_removable() {
            return true;
        }
        let base = v.item_range().start;
        let items = h.items(m);
        removed.clear();
        removed.extend(
            (0..items.len())
                .filter(|&t| items[t].kind.is_removable() && pairing.of(base + t).is_none()),
        );
        if removed.is_empty() {
            return true;
        }
        if removed.len() >= items.len() || removed.iter().any(|&t| items[t].elem().is_none()) {
            return false;
        }
        stripped.push((m, removed.clone()));
        true
    });
    // An attached reasoning item goes with its item (spec §14.6): from
    // the end backwards, so that a chain goes with the item at its end.
    if (0..h.len()).any(|i| h.view(i).is_reasoning()) {
        let mut keep = vec![false; h.len()];
        for &m in &kept {
            keep[m] = true;
        }
        for i in (0..h.len()).rev() {
            if keep[i] && attached_reasoning(h, i) && !keep[i + 1] {
                keep[i] = false;
            }
        }
        kept.retain(|&m| keep[m]);
        stripped.retain(|(m, _)| keep[*m]);
    }
    Selection { kept, stripped }
}

/// Semantics §3 step 6 over `selection`: removes results and approval
/// responses that answer nothing earlier in the selection, drops messages left
/// with no item, and returns the kept messages in order.
pub fn remove_orphans(
    format: Format,
    messages: &[Value],
    views: &[MessageView],
    selection: &[usize],
) -> Vec<Value> {
    let history = History::from_views(views);
    orphans_removed(&history, selection.to_vec()).materialize(format, messages, &history)
}

#[cfg(test)]
mod tests;
