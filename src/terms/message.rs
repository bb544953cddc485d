//! The kit's view of a message (spec §1–§2): its role and the content
//! items reduction cares about (calls, results, approval requests and
//! responses), whatever wire format it came in. The views are read by
//! [`crate::formats::view_message`]; everything after that (turns,
//! pairing, the reducers, the validator, the checker) works on views.

/// A message's role as the kit interprets it (ASCII case-insensitive, as
/// `ChatRole` compares). `developer` is a system role (spec §1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// `system` or `developer`.
    System,
    /// `user`.
    User,
    /// `assistant`.
    Assistant,
    /// `tool`.
    Tool,
    /// Any other role string; an ordinary message.
    Other,
}

impl Role {
    /// Classifies a role string, ASCII case-insensitively.
    pub fn parse(role: &str) -> Role {
        const ROLES: [(&str, Role); 5] = [
            ("user", Role::User),
            ("assistant", Role::Assistant),
            ("tool", Role::Tool),
            ("system", Role::System),
            ("developer", Role::System),
        ];
        ROLES
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(role))
            .map_or(Role::Other, |&(_, r)| r)
    }
}

/// What a content item is, as far as reduction is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ItemKind {
    /// Plain text.
    Text,
    /// A tool call (`functionCall`; OpenAI `tool_calls` entry; Anthropic
    /// `tool_use` block).
    Call,
    /// A tool result (`functionResult`; OpenAI `tool` message; Anthropic
    /// `tool_result` block).
    Result,
    /// An approval request (`toolApprovalRequest` / `functionApprovalRequest`).
    ApprovalRequest,
    /// An approval response (`toolApprovalResponse` / `functionApprovalResponse`).
    ApprovalResponse,
    /// Any other content; carried through, never interpreted.
    Opaque,
}

impl ItemKind {
    /// Results and approval responses are the only items orphan removal may
    /// take out of a message (spec §3 step 6).
    pub fn is_removable(self) -> bool {
        matches!(self, ItemKind::Result | ItemKind::ApprovalResponse)
    }
}

/// One content item of a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    /// What the item is.
    pub kind: ItemKind,
    /// The call id (calls, results) or request id (approval requests and
    /// responses); empty for other kinds.
    pub id: String,
    /// Index of the item in the message's items array
    /// ([`Format::items_key`](crate::formats::Format::items_key)),
    /// or `None` when the item is not an element of it (an OpenAI tool call
    /// or tool result, a string `content`).
    pub elem: Option<usize>,
}

/// The kit's view of one message: its role and its content items in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MessageView {
    /// The interpreted role.
    pub role: Role,
    /// The role string as received.
    pub role_text: String,
    /// Content items, in message order (OpenAI: content parts, then tool calls).
    pub items: Vec<Item>,
    /// The message is a call item of a format whose parallel calls are
    /// separate messages (a Responses `function_call` and the other call
    /// types): consecutive ones form one call group (spec §14.5). False
    /// in canonical, OpenAI Chat, Anthropic, Gemini and Bedrock.
    pub call_item: bool,
    /// The message is a Responses `reasoning` item, attached to the item
    /// after it (spec §14.6). False in every other format.
    pub reasoning: bool,
}

impl MessageView {
    /// A user message with at least one item, every one an approval response
    /// (spec §2, "approval-only message").
    pub fn is_approval_only(&self) -> bool {
        self.role == Role::User
            && !self.items.is_empty()
            && self
                .items
                .iter()
                .all(|i| i.kind == ItemKind::ApprovalResponse)
    }

    /// A user message that is not approval-only (spec §2, "turn start").
    pub fn is_turn_start(&self) -> bool {
        self.role == Role::User && !self.is_approval_only()
    }

    /// Whether any item is a result or an approval response.
    pub fn has_removable(&self) -> bool {
        self.items.iter().any(|i| i.kind.is_removable())
    }
}

/// A message whose shape the kit cannot read: names the message index, the
/// content index when there is one, and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("message {index}{}: {problem}", item.map(|i| format!(", content {i}")).unwrap_or_default())]
pub struct ShapeError {
    /// Zero-based index of the message in its history.
    pub index: usize,
    /// Zero-based index of the content item, when the problem is in one.
    pub item: Option<usize>,
    /// What is wrong, lowercase, without trailing period.
    pub problem: String,
}

impl ShapeError {
    /// The error for message `index` (and content `item`, when the problem
    /// is in one), saying `problem` (lowercase, no trailing period).
    pub fn new(index: usize, item: Option<usize>, problem: impl Into<String>) -> ShapeError {
        ShapeError {
            index,
            item,
            problem: problem.into(),
        }
    }
}
