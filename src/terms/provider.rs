//! Provider profiles (spec §15): what each provider's API rejects, as
//! rules with ids, judged on message views in any wire format. A profile is
//! a list of [`ProviderRule`]s; [`provider_violations`] says which a history
//! breaks. `validate --provider P` prints them, the safety clause
//! `provider-accepts` judges an output by them, and the reference reducers
//! honour them.
//!
//! The rules look at the *conversation*: every message whose role is not a
//! system role. The pinned system message travels apart in Anthropic,
//! Gemini and Bedrock (top-level `system` / `systemInstruction`) and
//! constrains nothing in OpenAI's APIs (spec §15.1, **Decided**).

use super::links::{attached_reasoning, continues_call_group};
use super::message::{ItemKind, MessageView, Role};
use std::fmt;

/// A provider whose acceptance rules the kit knows (spec §15.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Provider {
    /// OpenAI Chat Completions (`openai-chat`).
    OpenAiChat,
    /// OpenAI Responses (`openai-responses`).
    OpenAiResponses,
    /// Anthropic Messages (`anthropic`).
    Anthropic,
    /// Google Gemini `generateContent` (`gemini`).
    Gemini,
    /// Amazon Bedrock Converse (`bedrock`).
    Bedrock,
}

impl Provider {
    /// Every provider, in the order of spec §15.2.
    pub const ALL: [Provider; 5] = [
        Provider::OpenAiChat,
        Provider::OpenAiResponses,
        Provider::Anthropic,
        Provider::Gemini,
        Provider::Bedrock,
    ];

    /// The provider's command-line name: `openai-chat`, `openai-responses`,
    /// `anthropic`, `gemini` or `bedrock`.
    pub fn name(self) -> &'static str {
        match self {
            Provider::OpenAiChat => "openai-chat",
            Provider::OpenAiResponses => "openai-responses",
            Provider::Anthropic => "anthropic",
            Provider::Gemini => "gemini",
            Provider::Bedrock => "bedrock",
        }
    }

    /// The provider's rules (its profile), in the order they are checked.
    pub fn rules(self) -> &'static [ProviderRule] {
        use ProviderRule::*;
        match self {
            Provider::OpenAiChat => &[NotEmpty, ResultsRightAfterCalls],
            Provider::OpenAiResponses => &[
                NotEmpty,
                ResultsRightAfterCalls,
                ReasoningFollowed,
                RequiredReasoning,
            ],
            Provider::Anthropic => &[NotEmpty, FirstIsUser, ResultsRightAfterCalls],
            Provider::Gemini => &[NotEmpty, CallAfterUserOrResponse, ResponseCountMatchesCalls],
            Provider::Bedrock => &[
                NotEmpty,
                FirstIsUser,
                RolesAlternate,
                ResultsRightAfterCalls,
            ],
        }
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A provider name that is not one of [`Provider::ALL`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown provider {0:?} (openai-chat, openai-responses, anthropic, gemini or bedrock)")]
pub struct UnknownProvider(pub String);

impl std::str::FromStr for Provider {
    type Err = UnknownProvider;

    /// The provider named `s` ([`Provider::name`]).
    fn from_str(s: &str) -> Result<Provider, UnknownProvider> {
        Provider::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| UnknownProvider(s.to_string()))
    }
}

/// An acceptance rule of a provider (spec §15.3). The ids are public
/// vocabulary: never renamed or reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProviderRule {
    /// `not-empty`: the conversation has at least one message.
    NotEmpty,
    /// `first-is-user`: the first message of the conversation is a `user`
    /// message (not a tool message).
    FirstIsUser,
    /// `roles-alternate`: no two neighbouring messages of the conversation
    /// are on the same side (user side: `user` and tool messages; model
    /// side: `assistant`; any other role is a side of its own).
    RolesAlternate,
    /// `results-right-after-calls`: every call of a message (or call group)
    /// that is not the last of the conversation is answered in the run of
    /// tool messages right after it.
    ResultsRightAfterCalls,
    /// `call-after-user-or-response`: a message with calls (the first of a
    /// call group) comes right after a `user` message or a tool message.
    CallAfterUserOrResponse,
    /// `response-count-matches-calls`: the run of tool messages right after
    /// a message with calls (or call group) that is not last holds as many
    /// results as it made calls.
    ResponseCountMatchesCalls,
    /// `reasoning-followed`: every reasoning item is followed by the item it
    /// belongs to (it is attached, spec §14.6).
    ReasoningFollowed,
    /// `required-reasoning`: an item sent with its server id (spec §14.7)
    /// is sent with the reasoning item that came before it in the same
    /// model output, as the stored conversation has them. Judged on a
    /// request made from a stored conversation ([`required_reasoning`]);
    /// a history judged alone is its own store and always keeps it.
    RequiredReasoning,
}

impl ProviderRule {
    /// The rule's stable id, e.g. `first-is-user`.
    pub fn id(self) -> &'static str {
        match self {
            ProviderRule::NotEmpty => "not-empty",
            ProviderRule::FirstIsUser => "first-is-user",
            ProviderRule::RolesAlternate => "roles-alternate",
            ProviderRule::ResultsRightAfterCalls => "results-right-after-calls",
            ProviderRule::CallAfterUserOrResponse => "call-after-user-or-response",
            ProviderRule::ResponseCountMatchesCalls => "response-count-matches-calls",
            ProviderRule::ReasoningFollowed => "reasoning-followed",
            ProviderRule::RequiredReasoning => "required-reasoning",
        }
    }
}

impl fmt::Display for ProviderRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// One broken provider rule: the rule, the message where it breaks (`None`
/// for `not-empty`) and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProviderViolation {
    /// The rule broken.
    pub rule: ProviderRule,
    /// Zero-based index of the message in the history, when there is one.
    pub index: Option<usize>,
    /// What is wrong, lowercase: `the first message is "assistant"`.
    pub detail: String,
}

impl fmt::Display for ProviderViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.index {
            Some(i) => write!(f, "{}: message {i}: {}", self.rule, self.detail),
            None => write!(f, "{}: {}", self.rule, self.detail),
        }
    }
}

/// Which side of a two-party conversation a role is on (`roles-alternate`).
fn side(role: Role) -> u8 {
    match role {
        Role::User | Role::Tool => 0,
        Role::Assistant => 1,
        Role::System => 2,
        Role::Other => 3,
    }
}

/// The rules of `provider` that `views` breaks, each at most once per
/// message, in rule order then message order (empty when the provider
/// would accept the history).
///
/// # Examples
///
/// ```
/// use reducer_kit::formats::{view_history, Format};
/// use reducer_kit::terms::provider::{provider_violations, Provider};
/// let h: Vec<serde_json::Value> = serde_json::from_str(r#"[
///   {"role":"assistant","content":"hello"},
///   {"role":"user","content":"hi"}]"#).unwrap();
/// let v = provider_violations(Provider::Anthropic, &view_history(Format::OpenAi, &h).unwrap());
/// assert_eq!(v[0].to_string(), "first-is-user: message 0: the first message is \"assistant\", not \"user\"");
/// ```
pub fn provider_violations(provider: Provider, views: &[MessageView]) -> Vec<ProviderViolation> {
    let conv: Vec<usize> = (0..views.len())
        .filter(|&i| views[i].role != Role::System)
        .collect();
    let mut out = Vec::new();
    let mut report = |rule, index, detail: String| {
        out.push(ProviderViolation {
            rule,
            index,
            detail,
        })
    };
    let has_calls = |i: usize| views[i].items.iter().any(|t| t.kind == ItemKind::Call);
    // Each call group of the conversation: (position in conv of its first
    // message, of its last message).
    let mut groups: Vec<(usize, usize)> = Vec::new();
    for (p, &i) in conv.iter().enumerate() {
        if !has_calls(i) {
            continue;
        }
        match groups.last_mut() {
            Some(g) if g.1 + 1 == p && continues_call_group(views, i) => g.1 = p,
            _ => groups.push((p, p)),
        }
    }
    // The run of tool messages after position `end` of conv.
    let run_after = |end: usize| -> Vec<usize> {
        conv[end + 1..]
            .iter()
            .copied()
            .take_while(|&j| views[j].role == Role::Tool)
            .collect()
    };
    for &rule in provider.rules() {
        match rule {
            ProviderRule::NotEmpty => {
                if conv.is_empty() {
                    report(
                        rule,
                        None,
                        "the request has no message besides the system prompt".into(),
                    );
                }
            }
            ProviderRule::FirstIsUser => {
                if let Some(&i) = conv.first() {
                    if views[i].role != Role::User {
                        report(
                            rule,
                            Some(i),
                            format!(
                                "the first message is {:?}, not \"user\"",
                                role_name(&views[i])
                            ),
                        );
                    }
                }
            }
            ProviderRule::RolesAlternate => {
                for w in conv.windows(2) {
                    if side(views[w[0]].role) == side(views[w[1]].role) {
                        report(
                            rule,
                            Some(w[1]),
                            format!(
                                "a {:?} message follows a {:?} message",
                                role_name(&views[w[1]]),
                                role_name(&views[w[0]])
                            ),
                        );
                    }
                }
            }
            ProviderRule::ResultsRightAfterCalls => {
                for &(first, last) in &groups {
                    if last + 1 == conv.len() {
                        continue;
                    }
                    let run = run_after(last);
                    let mut answered: Vec<&str> = run
                        .iter()
                        .flat_map(|&j| views[j].items.iter())
                        .filter(|t| t.kind == ItemKind::Result)
                        .map(|t| t.id.as_str())
                        .collect();
                    for &i in &conv[first..=last] {
                        for call in views[i].items.iter().filter(|t| t.kind == ItemKind::Call) {
                            match answered.iter().position(|a| *a == call.id) {
                                Some(k) => {
                                    answered.remove(k);
                                }
                                None => report(
                                    rule,
                                    Some(i),
                                    format!(
                                        "call {:?} has no result in the tool messages right after it",
                                        call.id
                                    ),
                                ),
                            }
                        }
                    }
                }
            }
            ProviderRule::CallAfterUserOrResponse => {
                for &(first, _) in &groups {
                    let i = conv[first];
                    let ok =
                        first > 0 && matches!(views[conv[first - 1]].role, Role::User | Role::Tool);
                    if !ok {
                        let what = match first {
                            0 => "the first message of the conversation".to_string(),
                            _ => {
                                format!("after a {:?} message", role_name(&views[conv[first - 1]]))
                            }
                        };
                        report(rule, Some(i), format!("a message with calls comes {what}"));
                    }
                }
            }
            ProviderRule::ResponseCountMatchesCalls => {
                for &(first, last) in &groups {
                    if last + 1 == conv.len() {
                        continue;
                    }
                    let calls: usize = conv[first..=last]
                        .iter()
                        .map(|&i| {
                            views[i]
                                .items
                                .iter()
                                .filter(|t| t.kind == ItemKind::Call)
                                .count()
                        })
                        .sum();
                    let results: usize = run_after(last)
                        .iter()
                        .map(|&j| {
                            views[j]
                                .items
                                .iter()
                                .filter(|t| t.kind == ItemKind::Result)
                                .count()
                        })
                        .sum();
                    if calls != results {
                        report(
                            rule,
                            Some(conv[last + 1]),
                            format!(
                                "{results} results answer the {calls} calls of message {}",
                                conv[first]
                            ),
                        );
                    }
                }
            }
            ProviderRule::ReasoningFollowed => {
                for &i in &conv {
                    if views[i].reasoning && !attached_reasoning(views, i) {
                        let what = if i + 1 == views.len() {
                            "it is the last item".to_string()
                        } else {
                            format!("a {:?} message follows it", role_name(&views[i + 1]))
                        };
                        report(
                            rule,
                            Some(i),
                            format!("a reasoning item is not followed by its item ({what})"),
                        );
                    }
                }
            }
            // A history judged alone is its own stored conversation: every
            // item has the reasoning it came with (see `required_reasoning`).
            ProviderRule::RequiredReasoning => {}
        }
    }
    out
}

/// The reasoning item that came before stored message `j` in the same
/// model output: the nearest reasoning item before it with only
/// `assistant` messages (the model's own items) between them; `None` when
/// a message of another role comes first, or `j` is a reasoning item.
pub fn output_reasoning(stored: &[MessageView], j: usize) -> Option<usize> {
    if stored[j].reasoning {
        return None;
    }
    (0..j)
        .rev()
        .take_while(|&r| stored[r].role == Role::Assistant)
        .find(|&r| stored[r].reasoning)
}

/// Rule `required-reasoning` (spec §15.3) on a request made from a stored
/// conversation: `stored` are its messages' views, `server_ids` the
/// server id each carries (spec §14.7; `None` for a message sent without
/// one), and `sent[k]` the stored message that request message `k` is
/// (`None` for a message of the request's own). Each request message that
/// carries a server id and whose model output had a reasoning item before
/// it ([`output_reasoning`]) that the request leaves out breaks the rule,
/// at its request index.
///
/// # Examples
///
/// ```
/// use reducer_kit::formats::{view_history, Format};
/// use reducer_kit::terms::provider::required_reasoning;
/// let stored: Vec<serde_json::Value> = serde_json::from_str(r#"[
///   {"role": "user", "content": "q"},
///   {"type": "reasoning", "id": "rs_1", "summary": []},
///   {"role": "assistant", "content": "a", "id": "msg_1"}]"#).unwrap();
/// let views = view_history(Format::Responses, &stored).unwrap();
/// let ids = [None, Some("rs_1"), Some("msg_1")];
/// // The request keeps the message, not its reasoning item.
/// let v = required_reasoning(&views, &ids, &[Some(0), Some(2)]);
/// assert_eq!(v[0].to_string(), "required-reasoning: message 1: the item with server id \"msg_1\" is sent without the reasoning item \"rs_1\" that came before it in the same output (stored message 1)");
/// assert!(required_reasoning(&views, &ids, &[Some(1), Some(2)]).is_empty());
/// ```
pub fn required_reasoning(
    stored: &[MessageView],
    server_ids: &[Option<&str>],
    sent: &[Option<usize>],
) -> Vec<ProviderViolation> {
    let kept: std::collections::BTreeSet<usize> = sent.iter().flatten().copied().collect();
    let mut out = Vec::new();
    for (k, j) in sent.iter().enumerate() {
        let Some(j) = *j else { continue };
        let Some(id) = server_ids.get(j).copied().flatten() else {
            continue;
        };
        let Some(r) = output_reasoning(stored, j) else {
            continue;
        };
        if !kept.contains(&r) {
            let rs = server_ids
                .get(r)
                .copied()
                .flatten()
                .map_or_else(String::new, |x| format!(" {x:?}"));
            out.push(ProviderViolation {
                rule: ProviderRule::RequiredReasoning,
                index: Some(k),
                detail: format!(
                    "the item with server id {id:?} is sent without the reasoning item{rs} that came before it in the same output (stored message {r})"
                ),
            });
        }
    }
    out
}

/// The server id a wire message carries (spec §14.7): its string `id`
/// member (a Responses item's), or in a canonical message the `id` of its
/// first call item.
pub fn server_id(msg: &serde_json::Value) -> Option<&str> {
    msg.get("id")
        .and_then(serde_json::Value::as_str)
        .or_else(|| {
            msg.get("contents")?
                .as_array()?
                .iter()
                .find(|i| {
                    i.get("$type").and_then(serde_json::Value::as_str) == Some("functionCall")
                })?
                .get("id")?
                .as_str()
        })
}

fn role_name(v: &MessageView) -> &str {
    match v.role {
        Role::Tool => "tool",
        _ => &v.role_text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{view_history, Format};
    use serde_json::json;

    fn ids(p: Provider, f: Format, h: serde_json::Value) -> Vec<String> {
        let v = view_history(f, h.as_array().unwrap()).unwrap();
        provider_violations(p, &v)
            .iter()
            .map(|v| v.to_string())
            .collect()
    }

    #[test]
    fn names_round_trip() {
        for p in Provider::ALL {
            assert_eq!(p.name().parse::<Provider>(), Ok(p));
        }
        assert_eq!(
            "vertex".parse::<Provider>().unwrap_err().to_string(),
            "unknown provider \"vertex\" (openai-chat, openai-responses, anthropic, gemini or bedrock)"
        );
    }

    #[test]
    fn gemini_call_placement_and_counts() {
        let call = |id: &str| json!({"functionCall": {"id": id, "name": "f", "args": {}}});
        let resp = |id: &str| json!({"functionResponse": {"id": id, "name": "f", "response": {}}});
        let h = json!([
            {"role": "model", "parts": [call("a")]},
            {"role": "user", "parts": [resp("a")]},
            {"role": "model", "parts": [{"text": "ok"}]},
            {"role": "model", "parts": [call("b"), call("c")]},
            {"role": "user", "parts": [resp("b")]},
            {"role": "model", "parts": [{"text": "done"}]}
        ]);
        assert_eq!(
            ids(Provider::Gemini, Format::Gemini, h),
            [
                "call-after-user-or-response: message 0: a message with calls comes the first message of the conversation",
                "call-after-user-or-response: message 3: a message with calls comes after a \"model\" message",
                "response-count-matches-calls: message 4: 1 results answer the 2 calls of message 3",
            ]
        );
    }

    #[test]
    fn bedrock_alternation_and_anthropic_results_right_after() {
        let h = json!([
            {"role": "system", "content": "s"},
            {"role": "user", "content": "q"},
            {"role": "user", "content": "again"},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
            {"role": "assistant", "content": "no result"}
        ]);
        assert_eq!(
            ids(Provider::Bedrock, Format::OpenAi, h.clone()),
            [
                "roles-alternate: message 2: a \"user\" message follows a \"user\" message",
                "roles-alternate: message 4: a \"assistant\" message follows a \"assistant\" message",
                "results-right-after-calls: message 3: call \"c1\" has no result in the tool messages right after it",
            ]
        );
        assert_eq!(
            ids(Provider::Anthropic, Format::OpenAi, json!([])),
            ["not-empty: the request has no message besides the system prompt"]
        );
        assert_eq!(
            ids(Provider::OpenAiChat, Format::OpenAi, h.clone()).len(),
            1
        );
    }
}
