//! Shapes: the features a generated case can show, detected from the case
//! itself (so that they can be counted for `generate --stats` and checked
//! for coverage, also on hand-written or shrunk cases).

use crate::formats::{view_history, Format};
use crate::terms::budget::text_length_cost;
use crate::terms::{pair, pinned_index, turns, Budget, ItemKind, Role};
use serde_json::Value;
use std::collections::BTreeSet;
use std::fmt;

/// Strings of at least this many bytes (texts or results) count as
/// [`Shape::LargePayload`].
pub const LARGE_PAYLOAD_THRESHOLD: usize = 65_536;

/// The `$type`s of opaque content that Microsoft.Extensions.AI itself
/// writes; any other opaque `$type` is [`Shape::UnknownType`].
pub const KNOWN_OPAQUE_TYPES: &[&str] = &[
    "dataContent",
    "uriContent",
    "textReasoning",
    "usage",
    "errorContent",
    "hostedFileContent",
];

macro_rules! shapes {
    ($( $(#[$doc:meta])* $variant:ident = $name:literal; )*) => {
        /// A feature of a generated case (history plus budget). One case
        /// usually shows several.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Shape {
            $( $(#[$doc])* $variant, )*
        }

        impl Shape {
            /// Every shape, in report order.
            pub const ALL: &'static [Shape] = &[ $( Shape::$variant, )* ];

            /// The shape's name as printed by `generate --stats`, e.g.
            /// `parallel-calls`.
            pub fn name(self) -> &'static str {
                match self { $( Shape::$variant => $name, )* }
            }
        }
    };
}

shapes! {
    /// No messages at all.
    Empty = "empty";
    /// No turn start (no user question); includes the empty history.
    NoTurns = "no-turns";
    /// Messages other than the pinned one before the first turn start.
    LeadingSegment = "leading-segment";
    /// No system message at all.
    PinnedAbsent = "pinned-absent";
    /// The pinned system message is the first message.
    PinnedFirst = "pinned-first";
    /// The pinned system message comes after some other message.
    PinnedNotFirst = "pinned-not-first";
    /// A system message after the pinned one.
    LaterSystem = "later-system";
    /// A system message whose role is spelled `developer`.
    DeveloperRole = "developer-role";
    /// A role in another ASCII case than lowercase (`Assistant`).
    RoleCase = "role-case";
    /// A turn with two or more assistant messages that make calls.
    MultiStepLoop = "multi-step-loop";
    /// An assistant message with two or more calls.
    ParallelCalls = "parallel-calls";
    /// The results of one message's calls spread over two or more tool
    /// messages.
    ResultsSeparate = "results-separate";
    /// A tool message with two or more results.
    ResultsBatched = "results-batched";
    /// Results that come in another order than their calls.
    ResultsReordered = "results-reordered";
    /// A message with both text and calls.
    TextBesideCalls = "text-beside-calls";
    /// A tool message with text beside its results: Anthropic's,
    /// Bedrock's and Gemini's user message carrying "here is the result,
    /// and my next question" (spec §1.6).
    ResultsBesideText = "results-beside-text";
    /// An approval response with `approved: true`.
    ApprovalApproved = "approval-approved";
    /// An approval response with `approved: false`.
    ApprovalRejected = "approval-rejected";
    /// A message with two or more approval requests.
    SeveralRequests = "several-requests";
    /// A message with both approval requests and calls.
    RequestBesideCalls = "request-beside-calls";
    /// `functionApprovalRequest` / `functionApprovalResponse` items.
    LegacyApproval = "legacy-approval";
    /// A call that no result answers.
    PendingCall = "pending-call";
    /// An approval request that no response answers.
    PendingRequest = "pending-request";
    /// Two calls with the same id (the second after the first's result).
    CallIdReused = "call-id-reused";
    /// Two approval requests with the same id (the second after the
    /// first's response).
    RequestIdReused = "request-id-reused";
    /// Two calls, or two approval requests, whose ids differ only in ASCII
    /// letter case (`call_1`, `Call_1`).
    IdCaseVariant = "id-case-variant";
    /// Two such calls (requests) waiting at once: the second made before
    /// the first is answered (calls of one message, or requests of one
    /// flow).
    IdCaseVariantsOpen = "id-case-variants-open";
    /// A call (request) id that is a proper prefix of another's
    /// (`call_1`, `call_10`).
    IdSharedPrefix = "id-shared-prefix";
    /// A call or request id of 64 bytes or more.
    IdLong = "id-long";
    /// A call or request id with a non-ASCII character.
    IdNonAscii = "id-non-ascii";
    /// Approval requests of two messages waiting at once.
    RequestsOverlap = "requests-overlap";
    /// An approval-only message answering requests of two or more
    /// messages.
    ResponsesAcrossRequests = "responses-across-requests";
    /// An assistant message holding no call, result or approval item
    /// between an approval request and its response (a `suffix` start
    /// there leaves the response without its request).
    ApprovalAwaited = "approval-awaited";
    /// An OpenAI Responses reasoning item: an `assistant` message whose
    /// one item has `$type` `reasoning` and nothing else (spec §14.1).
    ReasoningItem = "reasoning-item";
    /// A reasoning item right before a message of calls (in the Responses
    /// format it is attached to the first call of the group).
    ReasoningBeforeCalls = "reasoning-before-calls";
    /// A content item the kit does not interpret.
    OpaqueContent = "opaque-content";
    /// Opaque content whose `$type` Microsoft.Extensions.AI does not write
    /// ([`KNOWN_OPAQUE_TYPES`]).
    UnknownType = "unknown-type";
    /// A member the kit does not interpret: on a message anything besides
    /// `role` and `contents`; on an item `additionalProperties`.
    ExtraFields = "extra-fields";
    /// A text item with empty text.
    EmptyText = "empty-text";
    /// A text or string result with a non-ASCII character.
    NonAsciiText = "non-ascii-text";
    /// A text or string result of at least [`LARGE_PAYLOAD_THRESHOLD`] bytes.
    LargePayload = "large-payload";
    /// A result whose payload is not a string.
    NonStringResult = "non-string-result";
    /// Budget 1.
    BudgetOne = "budget-one";
    /// The budget is exactly the size of the newest k turns, for some k
    /// smaller than the number of turns.
    BudgetTurnBoundary = "budget-turn-boundary";
    /// The budget is exactly the number of messages other than the pinned one.
    BudgetExactFit = "budget-exact-fit";
    /// The budget is one less than the number of messages other than the
    /// pinned one.
    BudgetOneShort = "budget-one-short";
    /// The budget is larger than the number of messages other than the
    /// pinned one.
    BudgetLarger = "budget-larger";
    /// A token budget (spec §11) whose every cost is 1.
    CostUnit = "cost-unit";
    /// A token budget whose every cost is the same k ≥ 2 (two messages or
    /// more).
    CostEqual = "cost-equal";
    /// A token budget with a message that costs 0.
    CostZero = "cost-zero";
    /// A message of M that alone costs more than `maxTokens`.
    CostOverBudget = "cost-over-budget";
    /// A tool message costing at least 20 and at least half of cost(M).
    CostHeavyResult = "cost-heavy-result";
    /// Every cost is the text-length cost of its message
    /// ([`crate::terms::budget::text_length_cost`]), and not all are 1.
    CostTextLength = "cost-text-length";
    /// The pinned system message alone costs more than `maxTokens` (with
    /// `countPinned`: an unsatisfiable request).
    PinnedOverBudget = "pinned-over-budget";
    /// `countPinned` is true.
    CountPinned = "count-pinned";
    /// B (what M may cost) is cost(M), or one more or less.
    TokensTotal = "tokens-total";
    /// B is the cost of the newest turn, or one more or less, and M does
    /// not fit.
    TokensNewestTurn = "tokens-newest-turn";
    /// B is the cost of the newest turn's question, or one more or less,
    /// and the newest turn does not fit.
    TokensQuestion = "tokens-question";
}

impl Shape {
    /// Whether the shape is about a message budget (`budget-one`,
    /// `budget-turn-boundary`, `budget-exact-fit`, `budget-one-short`,
    /// `budget-larger`), which a case with a token budget does not have.
    pub fn is_message_budget(self) -> bool {
        matches!(
            self,
            Shape::BudgetOne
                | Shape::BudgetTurnBoundary
                | Shape::BudgetExactFit
                | Shape::BudgetOneShort
                | Shape::BudgetLarger
        )
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The shapes that a canonical history with budget `budget` shows. A history
/// the kit cannot read ([`view_history`] fails) shows none.
///
/// # Examples
///
/// ```
/// use reducer_kit::generate::{shapes, Shape};
/// let h: Vec<serde_json::Value> = serde_json::from_str(r#"[
///   {"role":"user","contents":[{"$type":"text","text":"café"}]},
///   {"role":"assistant","contents":[{"$type":"functionCall","callId":"a","name":"F"},
///                                   {"$type":"functionCall","callId":"b","name":"F"}]},
///   {"role":"tool","contents":[{"$type":"functionResult","callId":"b","result":"1"},
///                              {"$type":"functionResult","callId":"a","result":"2"}]}]"#).unwrap();
/// let s = shapes(&h, 3);
/// assert!(s.contains(&Shape::ParallelCalls) && s.contains(&Shape::ResultsBatched));
/// assert!(s.contains(&Shape::ResultsReordered) && s.contains(&Shape::NonAsciiText));
/// assert!(s.contains(&Shape::BudgetExactFit) && !s.contains(&Shape::LeadingSegment));
/// ```
pub fn shapes(messages: &[Value], budget: usize) -> BTreeSet<Shape> {
    let mut out = BTreeSet::new();
    let Ok(views) = view_history(Format::Canonical, messages) else {
        return out;
    };
    let mut add = |s: Shape, cond: bool| {
        if cond {
            out.insert(s);
        }
    };
    let pinned = pinned_index(&views);
    let all_turns = turns(&views);
    let everything: Vec<usize> = (0..views.len()).collect();
    let partner = pair(&views, &everything);
    let n = views.len() - usize::from(pinned.is_some());

    add(Shape::Empty, messages.is_empty());
    add(Shape::NoTurns, all_turns.iter().all(|t| !t.has_question));
    add(
        Shape::LeadingSegment,
        all_turns.first().is_some_and(|t| !t.has_question),
    );
    add(Shape::PinnedAbsent, pinned.is_none());
    add(Shape::PinnedFirst, pinned == Some(0));
    add(Shape::PinnedNotFirst, pinned.is_some_and(|p| p > 0));
    add(
        Shape::LaterSystem,
        views.iter().filter(|v| v.role == Role::System).count() >= 2,
    );
    add(
        Shape::DeveloperRole,
        views
            .iter()
            .any(|v| v.role_text.eq_ignore_ascii_case("developer")),
    );
    add(
        Shape::RoleCase,
        views
            .iter()
            .any(|v| v.role != Role::Other && v.role_text != v.role_text.to_ascii_lowercase()),
    );
    let calls_in = |m: usize| {
        views[m]
            .items
            .iter()
            .filter(|i| i.kind == ItemKind::Call)
            .count()
    };
    add(
        Shape::MultiStepLoop,
        all_turns
            .iter()
            .any(|t| t.messages.iter().filter(|&&m| calls_in(m) > 0).count() >= 2),
    );
    let mut call_ids: Vec<&str> = Vec::new();
    for (m, v) in views.iter().enumerate() {
        let count = |k: ItemKind| v.items.iter().filter(|i| i.kind == k).count();
        let calls = count(ItemKind::Call);
        add(Shape::ParallelCalls, calls >= 2);
        add(Shape::ResultsBatched, count(ItemKind::Result) >= 2);
        add(
            Shape::TextBesideCalls,
            calls > 0 && count(ItemKind::Text) > 0,
        );
        add(
            Shape::ResultsBesideText,
            v.role == Role::Tool && count(ItemKind::Result) > 0 && count(ItemKind::Text) > 0,
        );
        add(
            Shape::SeveralRequests,
            count(ItemKind::ApprovalRequest) >= 2,
        );
        add(
            Shape::RequestBesideCalls,
            calls > 0 && count(ItemKind::ApprovalRequest) > 0,
        );
        // Partners of this message's calls, in call order.
        let answers: Vec<(usize, usize)> = v
            .items
            .iter()
            .enumerate()
            .filter(|(_, i)| i.kind == ItemKind::Call)
            .filter_map(|(k, _)| partner[m][k])
            .collect();
        let mut msgs: Vec<usize> = answers.iter().map(|a| a.0).collect();
        msgs.dedup();
        add(Shape::ResultsSeparate, calls >= 2 && msgs.len() >= 2);
        add(
            Shape::ResultsReordered,
            answers.windows(2).any(|w| w[0] > w[1]),
        );
        let contents = messages[m].get("contents").and_then(Value::as_array);
        let obj = messages[m].as_object();
        add(
            Shape::ExtraFields,
            obj.is_some_and(|o| o.keys().any(|k| k != "role" && k != "contents")),
        );
        for (k, item) in v.items.iter().enumerate() {
            let raw = item.elem.and_then(|e| contents.and_then(|c| c.get(e)));
            let member = |key: &str| raw.and_then(|r| r.get(key));
            let tag = member("$type").and_then(Value::as_str).unwrap_or("");
            add(Shape::ExtraFields, member("additionalProperties").is_some());
            match item.kind {
                ItemKind::Call => call_ids.push(&item.id),
                ItemKind::ApprovalRequest => {
                    add(Shape::PendingRequest, partner[m][k].is_none());
                    add(Shape::LegacyApproval, tag == "functionApprovalRequest");
                }
                ItemKind::ApprovalResponse => {
                    let approved = member("approved").and_then(Value::as_bool);
                    add(Shape::ApprovalApproved, approved == Some(true));
                    add(Shape::ApprovalRejected, approved == Some(false));
                    add(Shape::LegacyApproval, tag == "functionApprovalResponse");
                }
                ItemKind::Opaque => {
                    add(Shape::OpaqueContent, true);
                    add(Shape::UnknownType, !KNOWN_OPAQUE_TYPES.contains(&tag));
                }
                ItemKind::Text | ItemKind::Result => {
                    let key = if item.kind == ItemKind::Text {
                        "text"
                    } else {
                        "result"
                    };
                    match member(key) {
                        Some(Value::String(s)) => {
                            add(
                                Shape::EmptyText,
                                item.kind == ItemKind::Text && s.is_empty(),
                            );
                            add(Shape::NonAsciiText, !s.is_ascii());
                            add(Shape::LargePayload, s.len() >= LARGE_PAYLOAD_THRESHOLD);
                        }
                        _ => add(Shape::NonStringResult, item.kind == ItemKind::Result),
                    }
                }
            }
            if item.kind == ItemKind::Call {
                add(Shape::PendingCall, partner[m][k].is_none());
            }
        }
    }
    let reasoning = |m: usize| {
        let o = messages[m].as_object();
        let one = o
            .and_then(|o| o.get("contents"))
            .and_then(Value::as_array)
            .filter(|c| c.len() == 1);
        o.is_some_and(|o| o.len() == 2)
            && views[m].role_text == "assistant"
            && one.is_some_and(|c| c[0].get("$type").and_then(Value::as_str) == Some("reasoning"))
    };
    for m in 0..views.len() {
        if reasoning(m) {
            add(Shape::ReasoningItem, true);
            add(
                Shape::ReasoningBeforeCalls,
                m + 1 < views.len() && calls_in(m + 1) > 0,
            );
        }
    }
    call_ids.sort_unstable();
    add(
        Shape::CallIdReused,
        call_ids.windows(2).any(|w| w[0] == w[1]),
    );

    add(Shape::BudgetOne, budget == 1);
    for s in id_shapes(&views, &partner) {
        add(s, true);
    }
    add(Shape::BudgetExactFit, n >= 1 && budget == n);
    add(Shape::BudgetOneShort, n >= 2 && budget == n - 1);
    add(Shape::BudgetLarger, budget > n);
    let mut newest = 0;
    for t in all_turns.iter().skip(1).rev() {
        newest += t.messages.len();
        add(Shape::BudgetTurnBoundary, budget == newest);
    }
    out
}

/// Where an item waits: `(message, item)`, the message of its partner (the
/// end of the history when unanswered), and its id.
type Waiting<'v> = ((usize, usize), usize, &'v str);

/// The shapes of ids and of approval flows: [`Shape::RequestIdReused`],
/// the id spellings, [`Shape::RequestsOverlap`],
/// [`Shape::ResponsesAcrossRequests`], [`Shape::ApprovalAwaited`].
fn id_shapes(
    views: &[crate::terms::MessageView],
    partner: &[Vec<Option<(usize, usize)>>],
) -> Vec<Shape> {
    let mut out = Vec::new();
    let end = views.len();
    let of_kind = |kind: ItemKind| -> Vec<Waiting<'_>> {
        views
            .iter()
            .enumerate()
            .flat_map(|(m, v)| {
                v.items
                    .iter()
                    .enumerate()
                    .filter(move |(_, i)| i.kind == kind)
                    .map(move |(k, i)| ((m, k), partner[m][k].map_or(end, |p| p.0), i.id.as_str()))
            })
            .collect()
    };
    let calls = of_kind(ItemKind::Call);
    let requests = of_kind(ItemKind::ApprovalRequest);
    for (is_requests, items) in [(false, &calls), (true, &requests)] {
        let mut ids: Vec<&str> = items.iter().map(|w| w.2).collect();
        ids.sort_unstable();
        ids.dedup();
        if is_requests && items.len() > ids.len() {
            out.push(Shape::RequestIdReused);
        }
        if ids.windows(2).any(|w| w[1].starts_with(w[0])) {
            out.push(Shape::IdSharedPrefix);
        }
        if ids.iter().any(|i| i.len() >= 64) {
            out.push(Shape::IdLong);
        }
        if ids.iter().any(|i| !i.is_ascii()) {
            out.push(Shape::IdNonAscii);
        }
        for (a, x) in items.iter().enumerate() {
            for y in &items[a + 1..] {
                if x.2 != y.2 && x.2.eq_ignore_ascii_case(y.2) {
                    out.push(Shape::IdCaseVariant);
                    if y.0 .0 < x.1 {
                        out.push(Shape::IdCaseVariantsOpen);
                    }
                }
            }
        }
    }
    if requests.iter().enumerate().any(|(a, x)| {
        requests[a + 1..]
            .iter()
            .any(|y| y.0 .0 > x.0 .0 && y.0 .0 < x.1)
    }) {
        out.push(Shape::RequestsOverlap);
    }
    for (m, v) in views.iter().enumerate() {
        let asked: BTreeSet<usize> = v
            .items
            .iter()
            .enumerate()
            .filter(|(_, i)| i.kind == ItemKind::ApprovalResponse)
            .filter_map(|(k, _)| partner[m][k].map(|p| p.0))
            .collect();
        if v.is_approval_only() && asked.len() >= 2 {
            out.push(Shape::ResponsesAcrossRequests);
        }
    }
    let quiet = |m: usize| {
        views[m].role == Role::Assistant
            && views[m]
                .items
                .iter()
                .all(|i| !crate::terms::repair::is_pairing(i.kind))
    };
    if requests
        .iter()
        .any(|&((m, _), answered, _)| answered < end && (m + 1..answered).any(quiet))
    {
        out.push(Shape::ApprovalAwaited);
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The shapes a token budget shows on a canonical history (spec §13.4):
/// the cost distributions and the budget's thresholds. A history the kit
/// cannot read, or a message budget, shows none.
///
/// # Examples
///
/// ```
/// use reducer_kit::generate::{token_shapes, Shape};
/// use reducer_kit::terms::Budget;
/// let h: Vec<serde_json::Value> = serde_json::from_str(r#"[
///   {"role":"user","contents":[{"$type":"text","text":"q"}]},
///   {"role":"assistant","contents":[{"$type":"text","text":"a"}]}]"#).unwrap();
/// let s = token_shapes(&h, &Budget::of_tokens(4, vec![0, 5], false).unwrap());
/// assert!(s.contains(&Shape::CostZero) && s.contains(&Shape::CostOverBudget));
/// assert!(s.contains(&Shape::TokensTotal) && s.contains(&Shape::TokensNewestTurn));
/// ```
pub fn token_shapes(messages: &[Value], budget: &Budget) -> BTreeSet<Shape> {
    let mut out = BTreeSet::new();
    let (Ok(views), Some(costs)) = (view_history(Format::Canonical, messages), budget.costs())
    else {
        return out;
    };
    if costs.len() != messages.len() {
        return out;
    }
    let mut add = |s: Shape, cond: bool| {
        if cond {
            out.insert(s);
        }
    };
    let pinned = pinned_index(&views);
    let rest: Vec<usize> = (0..views.len()).filter(|&i| Some(i) != pinned).collect();
    let limit = budget.limit();
    let total = budget.cost_of(rest.iter().copied());
    add(Shape::CostUnit, costs.iter().all(|&c| c == 1));
    add(
        Shape::CostEqual,
        costs.len() >= 2 && costs[0] >= 2 && costs.iter().all(|&c| c == costs[0]),
    );
    add(Shape::CostZero, costs.contains(&0));
    add(
        Shape::CostOverBudget,
        rest.iter().any(|&i| costs[i] > limit),
    );
    add(
        Shape::CostHeavyResult,
        rest.iter().any(|&i| {
            views[i].role == Role::Tool && costs[i] >= 20 && costs[i].saturating_mul(2) >= total
        }),
    );
    add(
        Shape::CostTextLength,
        costs.iter().any(|&c| c != 1)
            && messages
                .iter()
                .zip(costs)
                .all(|(m, &c)| text_length_cost(m) == c),
    );
    add(
        Shape::PinnedOverBudget,
        pinned.is_some_and(|p| costs[p] > limit),
    );
    add(Shape::CountPinned, budget.count_pinned());
    let Ok(b) = budget.available(pinned) else {
        return out;
    };
    let near = |x: u64| b.abs_diff(x) <= 1;
    add(Shape::TokensTotal, near(total));
    let all = turns(&views);
    if let Some(newest) = all.last() {
        let turn = budget.cost_of(newest.messages.iter().copied());
        add(Shape::TokensNewestTurn, total > b && near(turn));
        add(
            Shape::TokensQuestion,
            newest.has_question && turn > b && near(costs[newest.messages[0]]),
        );
    }
    out
}
