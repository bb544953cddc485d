//! The generator's [`Config`]: one knob per shape, documented defaults, and
//! swarm drawing ([`Config::arbitrary_within`]).

use crate::formats::Format;
use arbitrary::{Arbitrary, Unstructured};

/// The most parallel calls one assistant message can carry (semantics
/// scenario "1–8 parallel calls").
pub const MAX_PARALLEL_CALLS: usize = 8;

/// The most approval requests one assistant message can carry.
pub const MAX_APPROVAL_REQUESTS: usize = 4;

/// The most turns a history can have.
pub const MAX_TURNS: usize = 64;

/// The most steps (assistant replies, tool steps, approval flows, system
/// messages) in one turn.
pub const MAX_STEPS: usize = 16;

/// The largest large payload, in bytes (1 MiB).
pub const MAX_LARGE_PAYLOAD_BYTES: usize = 1 << 20;

/// What the generator may make. Every shape of a history sits behind a knob;
/// a switched-off knob never appears in the output. The default (see each
/// field) turns on every shape except pending tails, and `swarm`.
///
/// Read from a JSON object by `reducer-kit generate --config FILE`: members
/// are the field names below, absent members take their defaults, unknown
/// members are an error.
///
/// # Examples
///
/// ```
/// use reducer_kit::generate::Config;
/// let cfg: Config = serde_json::from_str(r#"{"approvals": false, "max_turns": 2}"#).unwrap();
/// assert!(!cfg.approvals && cfg.tool_calls && cfg.max_turns == 2);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Most turns (user questions) in a history; 0 gives histories with no
    /// turns. Default 6, at most [`MAX_TURNS`].
    pub max_turns: usize,
    /// Most steps in one turn or in the leading segment: an assistant reply,
    /// a tool step (calls and their results), an approval flow or a later
    /// system message. A final assistant answer may follow them. Default 4,
    /// at most [`MAX_STEPS`].
    pub max_steps: usize,
    /// Messages before the first user question (the leading segment).
    /// Default on.
    pub leading_segment: bool,
    /// A pinned system message. Default on. Off still allows a pinned one
    /// when `later_system` is on: the first later system message is then
    /// the pinned one.
    pub pinned_system: bool,
    /// The pinned system message somewhere after the first message (never
    /// inside a tool group). Default on.
    pub pinned_not_first: bool,
    /// System messages after the pinned one, as a step of a turn. Default on.
    pub later_system: bool,
    /// System messages with the role spelled `developer`. Default on.
    pub developer_role: bool,
    /// Roles in other ASCII cases (`Assistant`, `USER`). Default on; off
    /// for OpenAI, which only takes lowercase roles.
    pub role_case: bool,
    /// Tool calls and results. Default on.
    pub tool_calls: bool,
    /// More than one tool step in one turn (a multi-step tool loop).
    /// Default on.
    pub multi_step: bool,
    /// Most calls in one assistant message, 1 to [`MAX_PARALLEL_CALLS`];
    /// 0 means no calls. Default 8.
    pub max_parallel_calls: usize,
    /// Several results in one tool message. Default on; off for OpenAI.
    pub batched_results: bool,
    /// Results in another order than their calls. Default on.
    pub shuffled_results: bool,
    /// Text (and opaque items) beside the calls in an assistant message.
    /// Default on.
    pub text_beside_calls: bool,
    /// Sometimes, the user's text after the results in the last tool
    /// message of a tool step: how Anthropic, Bedrock and Gemini carry
    /// "here is the result, and my next question" in one user message
    /// (spec §1.6). A shape only those formats have: default off, as in
    /// [`Config::everything`]; [`Config::with_native_shapes`] turns it on
    /// for [`Format::Anthropic`], [`Format::Bedrock`] and
    /// [`Format::Gemini`], and [`Config::sanitize_for`] off for every other
    /// format.
    pub results_beside_text: bool,
    /// Approval flows: `toolApprovalRequest` in an assistant message, an
    /// approval-only user message answering it (approved or not), then
    /// usually the approved calls. Default on.
    pub approvals: bool,
    /// Most approval requests in one assistant message, 1 to
    /// [`MAX_APPROVAL_REQUESTS`]. Default 3.
    pub max_approval_requests: usize,
    /// The older `functionApprovalRequest` / `functionApprovalResponse`
    /// names (with `id`). Default on.
    pub legacy_approvals: bool,
    /// Unanswered calls and approval requests at the end of the newest turn;
    /// the generated case then has `allow_pending`. Default off.
    pub pending: bool,
    /// A call id used again after its result came, and an approval request
    /// id used again after its response came. Default on.
    pub reuse_call_ids: bool,
    /// Ids of several spellings (spec §2 compares ids exactly): two ids
    /// that differ only in ASCII letter case (`call_1`, `Call_1`), one id
    /// a prefix of another (`call_1`, `call_1-3`), long ids that share
    /// their first 60 bytes, ids with non-ASCII characters (an accent
    /// composed and decomposed, CJK, emoji, a zero-width space); often
    /// beside each other in one message. Default on, in every format.
    pub id_spellings: bool,
    /// Content items the kit does not interpret (`dataContent`,
    /// `uriContent`, `textReasoning`, `usage`, `errorContent`, an unknown
    /// `$type`). Default on.
    pub opaque_contents: bool,
    /// Members the kit does not interpret on messages (`authorName`,
    /// `messageId`, `createdAt`, `additionalProperties`) and on text, call
    /// and opaque items (`additionalProperties`). Default on.
    pub extra_fields: bool,
    /// Those members on system messages and their items as well. Default
    /// on; off for Anthropic, whose top-level `system` has no place for
    /// them. Not drawn by swarm testing (it follows `extra_fields`).
    pub system_extra_fields: bool,
    /// `additionalProperties` on result items as well. Default on; off for
    /// OpenAI, whose tool messages have no place for it.
    pub result_extra_fields: bool,
    /// Empty texts. Default on.
    pub empty_text: bool,
    /// Non-ASCII text (accents, CJK, RTL, emoji, combining marks, NUL).
    /// Default on.
    pub non_ascii_text: bool,
    /// Rarely, a text or result of `large_payload_bytes`. Default on.
    pub large_payloads: bool,
    /// Size of a large payload, in bytes. Default 100,000, at most
    /// [`MAX_LARGE_PAYLOAD_BYTES`]. Only payloads of 65,536 bytes or more
    /// count as [`Shape::LargePayload`](super::Shape::LargePayload).
    pub large_payload_bytes: usize,
    /// Results whose payload is not a string (objects, arrays, numbers,
    /// `true`, `null`). Default on; off for OpenAI.
    pub non_string_results: bool,
    /// Swarm testing: each history first draws, from its own bytes, a
    /// restriction of this config (knobs off, lower maxima; see
    /// [`Config::arbitrary_within`]). Default on.
    pub swarm: bool,
    /// Reasoning items (OpenAI Responses, spec §14.1): before some
    /// assistant messages (a reply, a message of calls, an approval
    /// request), an `assistant` message holding one `reasoning` item, which
    /// the Responses format attaches to the item after it. Default off, as
    /// in [`Config::everything`]; [`Config::with_native_shapes`] turns it
    /// on for [`Format::Responses`], and [`Config::sanitize_for`] off for
    /// every other format.
    pub reasoning_items: bool,
    /// Messages that mix kinds of tool traffic: text beside approval
    /// requests, calls beside requests, several requests or approval
    /// responses in one message, and extra members on messages with calls or
    /// approval items. Default on; off for [`Format::Responses`], where
    /// each call, output and approval is an item of its own. Not drawn by
    /// swarm testing.
    pub mixed_tool_messages: bool,
    /// The wire format the histories are made for: budgets are drawn around
    /// its message counts (a Responses item per call). Default canonical;
    /// set by [`Config::sanitize_for`].
    pub format: Format,
    /// Token budgets (protocol 2, spec §13.4): about half of the cases
    /// get per-message costs and a `maxTokens` ([`super::Costs`]), drawn
    /// after everything else so that the messages and the message budget
    /// do not change. Default off; on for `certify --protocol 2`. Not drawn
    /// by swarm testing.
    pub costs: bool,
    /// Broken histories (spec §17.6, [`super::breakage`]): the knobs
    /// below break a valid history the ways real histories break, and
    /// when any is on every history gets at least one break. Default off
    /// (every one); [`Config::for_repair`] turns on those the format
    /// carries. Not drawn by swarm testing. A run interrupted after its
    /// calls: their results missing, the conversation goes on.
    pub interrupted_run: bool,
    /// One of several parallel results lost.
    pub lost_parallel_result: bool,
    /// A result stored twice by a retry.
    pub duplicated_result: bool,
    /// A result stored before its call.
    pub result_before_call: bool,
    /// A non-tool message between a call and its results.
    pub interjected_message: bool,
    /// An approval request left unanswered, the conversation going on.
    pub unanswered_approval: bool,
    /// An approval response without its request.
    pub orphan_approval_response: bool,
    /// A reasoning item cut off from its call (Responses only).
    pub reasoning_cut_off: bool,
    /// A tool message rewritten as a user message (canonical only: OpenAI
    /// and Responses have no user message holding a result, and in the
    /// other formats it is their tool message).
    pub tool_as_user: bool,
    /// A reused call id whose first pair is broken.
    pub reused_id_broken: bool,
    /// A history cut by a history limit: the newest messages of a valid
    /// history, from inside a tool step, so that results at its head have
    /// lost their calls.
    pub limit_cut: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_turns: 6,
            max_steps: 4,
            leading_segment: true,
            pinned_system: true,
            pinned_not_first: true,
            later_system: true,
            developer_role: true,
            role_case: true,
            tool_calls: true,
            multi_step: true,
            max_parallel_calls: MAX_PARALLEL_CALLS,
            batched_results: true,
            shuffled_results: true,
            text_beside_calls: true,
            results_beside_text: false,
            approvals: true,
            max_approval_requests: 3,
            legacy_approvals: true,
            pending: false,
            reuse_call_ids: true,
            id_spellings: true,
            opaque_contents: true,
            extra_fields: true,
            system_extra_fields: true,
            result_extra_fields: true,
            empty_text: true,
            non_ascii_text: true,
            large_payloads: true,
            large_payload_bytes: 100_000,
            non_string_results: true,
            swarm: true,
            reasoning_items: false,
            mixed_tool_messages: true,
            format: Format::Canonical,
            costs: false,
            interrupted_run: false,
            lost_parallel_result: false,
            duplicated_result: false,
            result_before_call: false,
            interjected_message: false,
            unanswered_approval: false,
            orphan_approval_response: false,
            reasoning_cut_off: false,
            tool_as_user: false,
            reused_id_broken: false,
            limit_cut: false,
        }
    }
}

impl Config {
    /// The default config with pending tails on: every shape the generator
    /// knows, but those only one wire format has (see
    /// [`Config::with_native_shapes`]).
    pub fn everything() -> Config {
        Config {
            pending: true,
            ..Config::default()
        }
    }

    /// Every shape `format` carries: [`Config::everything`] with the
    /// format's own shapes on ([`Config::with_native_shapes`]), sanitized
    /// for it. What `certify` generates in that format.
    pub fn for_format(format: Format) -> Config {
        Config::everything()
            .with_native_shapes(format)
            .sanitize_for(format)
    }

    /// Broken histories for policy `repair` in `format` (spec §17.6):
    /// [`Config::for_format`] without pending tails (a valid history to
    /// break is strictly valid), with every break knob on that the format
    /// carries.
    pub fn for_repair(format: Format) -> Config {
        Config {
            pending: false,
            interrupted_run: true,
            lost_parallel_result: true,
            duplicated_result: true,
            result_before_call: true,
            interjected_message: true,
            unanswered_approval: true,
            orphan_approval_response: true,
            reasoning_cut_off: true,
            tool_as_user: true,
            reused_id_broken: true,
            limit_cut: true,
            ..Config::everything()
        }
        .with_native_shapes(format)
        .sanitize_for(format)
    }

    /// Whether some break knob is on: the histories are broken on purpose
    /// (spec §17.6).
    pub fn breaks(&self) -> bool {
        !super::breakage::enabled(self).is_empty()
    }

    /// Turns on the shapes only `format` has (spec §14.8): reasoning
    /// items for [`Format::Responses`]; the user's text beside results
    /// (`results_beside_text`) for [`Format::Anthropic`],
    /// [`Format::Bedrock`] and [`Format::Gemini`]; none for the other
    /// formats.
    pub fn with_native_shapes(mut self, format: Format) -> Config {
        match format {
            Format::Responses => self.reasoning_items = true,
            Format::Anthropic | Format::Bedrock | Format::Gemini => self.results_beside_text = true,
            _ => {}
        }
        self
    }

    /// The default config restricted to what OpenAI Chat Completions carries
    /// natively (see [`Config::sanitize_for`]).
    pub fn for_openai() -> Config {
        Config::default().sanitize_for(Format::OpenAi)
    }

    /// Clamps every maximum into its documented range and turns off knobs
    /// that cannot take effect (`pinned_not_first` without `pinned_system`,
    /// call shapes without `tool_calls`, ...). Only ever restricts.
    pub fn sanitize(mut self) -> Config {
        self.max_turns = self.max_turns.min(MAX_TURNS);
        self.max_steps = self.max_steps.min(MAX_STEPS);
        self.max_parallel_calls = self.max_parallel_calls.min(MAX_PARALLEL_CALLS);
        self.max_approval_requests = self.max_approval_requests.min(MAX_APPROVAL_REQUESTS);
        self.large_payload_bytes = self.large_payload_bytes.min(MAX_LARGE_PAYLOAD_BYTES);
        if self.max_parallel_calls == 0 {
            self.tool_calls = false;
        }
        if self.max_approval_requests == 0 {
            self.approvals = false;
        }
        if !self.tool_calls {
            self.multi_step = false;
            self.batched_results = false;
            self.shuffled_results = false;
            self.text_beside_calls = false;
            self.results_beside_text = false;
            self.non_string_results = false;
        }
        if !self.tool_calls && !self.approvals {
            self.reuse_call_ids = false;
            self.id_spellings = false;
        }
        if !self.approvals {
            self.legacy_approvals = false;
            self.unanswered_approval = false;
            self.orphan_approval_response = false;
        }
        if !self.reasoning_items {
            self.reasoning_cut_off = false;
        }
        if !self.pinned_system {
            self.pinned_not_first = false;
        }
        if !self.extra_fields {
            self.result_extra_fields = false;
            self.system_extra_fields = false;
        }
        if self.large_payload_bytes == 0 {
            self.large_payloads = false;
        }
        self
    }

    /// [`Config::sanitize`], then turns off what the wire format cannot
    /// carry natively, so that every history converts to it and back
    /// unchanged:
    ///
    /// - [`Format::OpenAi`] ([`crate::formats::openai::to_openai`]): several results
    ///   in one tool message (`batched_results`), non-string results
    ///   (`non_string_results`), members on a result
    ///   (`result_extra_fields`), roles in other cases (`role_case`).
    /// - [`Format::Anthropic`] ([`crate::formats::anthropic::to_anthropic`]): a
    ///   system message anywhere but first (`pinned_not_first`,
    ///   `later_system`), `developer` (`developer_role`), roles in other
    ///   cases (`role_case`), members on system messages
    ///   (`system_extra_fields`).
    /// - [`Format::Responses`] ([`crate::formats::responses::to_responses`]):
    ///   roles in other cases, several results in one tool message, results
    ///   that are not strings, members on results, text beside calls, the
    ///   older approval names, several approval requests in one message
    ///   (`max_approval_requests` at most 1), mixed tool messages
    ///   (`mixed_tool_messages`).
    /// - [`Format::Gemini`] and [`Format::Bedrock`]
    ///   ([`crate::formats::gemini::to_gemini`],
    ///   [`crate::formats::bedrock::to_bedrock`]): what Anthropic cannot
    ///   carry, and approvals (`approvals`, `legacy_approvals`).
    ///
    /// Every format but Responses turns `reasoning_items` off (and
    /// `reasoning_cut_off` with it), every format but Anthropic, Bedrock
    /// and Gemini `results_beside_text`, every format but canonical
    /// `tool_as_user` (OpenAI and Responses have no user message holding a
    /// result; in the others it is their tool message).
    /// Sets `format`.
    pub fn sanitize_for(self, format: Format) -> Config {
        let mut c = self.sanitize();
        c.format = format;
        if format != Format::Responses {
            c.reasoning_items = false;
            c.reasoning_cut_off = false;
        }
        if format != Format::Canonical {
            c.tool_as_user = false;
        }
        if !matches!(format, Format::Anthropic | Format::Bedrock | Format::Gemini) {
            c.results_beside_text = false;
        }
        match format {
            Format::Canonical => {}
            Format::OpenAi => {
                c.batched_results = false;
                c.non_string_results = false;
                c.result_extra_fields = false;
                c.role_case = false;
            }
            Format::Anthropic => {
                c.pinned_not_first = false;
                c.later_system = false;
                c.developer_role = false;
                c.role_case = false;
                c.system_extra_fields = false;
            }
            Format::Responses => {
                c.role_case = false;
                c.batched_results = false;
                c.non_string_results = false;
                c.result_extra_fields = false;
                c.text_beside_calls = false;
                c.legacy_approvals = false;
                c.max_approval_requests = c.max_approval_requests.min(1);
                c.mixed_tool_messages = false;
                c = c.sanitize();
            }
            Format::Gemini | Format::Bedrock => {
                c.pinned_not_first = false;
                c.later_system = false;
                c.developer_role = false;
                c.role_case = false;
                c.system_extra_fields = false;
                c.approvals = false;
                c = c.sanitize();
            }
        }
        c
    }

    /// Swarm drawing: a config whose every switch is on only when it is on
    /// in `ceiling` and a drawn bit says so, and whose every maximum is drawn
    /// between its smallest useful value and the ceiling's; then sanitized.
    /// Only ever restricts `ceiling`. The result has `swarm` off. When the
    /// bytes run out, switches come out off and maxima small.
    ///
    /// # Errors
    ///
    /// None in practice: every draw has a fallback when bytes run out.
    pub fn arbitrary_within(u: &mut Unstructured, ceiling: &Config) -> arbitrary::Result<Config> {
        let ceiling = ceiling.clone().sanitize();
        let mut c = ceiling.clone();
        macro_rules! switches {
            ($($f:ident),*) => { $( c.$f = ceiling.$f && bool::arbitrary(u)?; )* };
        }
        switches!(
            leading_segment,
            pinned_system,
            pinned_not_first,
            later_system,
            developer_role,
            role_case,
            tool_calls,
            multi_step,
            batched_results,
            shuffled_results,
            text_beside_calls,
            approvals,
            legacy_approvals,
            pending,
            reuse_call_ids,
            id_spellings,
            opaque_contents,
            extra_fields,
            result_extra_fields,
            empty_text,
            non_ascii_text,
            large_payloads,
            non_string_results,
            reasoning_items,
            results_beside_text
        );
        c.system_extra_fields = ceiling.system_extra_fields && c.extra_fields;
        // Maxima: `int_in_range` gives the lower bound when bytes run out.
        c.max_turns = u.int_in_range(1.min(ceiling.max_turns)..=ceiling.max_turns)?;
        c.max_steps = u.int_in_range(1.min(ceiling.max_steps)..=ceiling.max_steps)?;
        c.max_parallel_calls =
            u.int_in_range(1.min(ceiling.max_parallel_calls)..=ceiling.max_parallel_calls)?;
        c.max_approval_requests =
            u.int_in_range(1.min(ceiling.max_approval_requests)..=ceiling.max_approval_requests)?;
        c.swarm = false;
        Ok(c.sanitize())
    }
}

impl<'a> Arbitrary<'a> for Config {
    /// A swarm draw within [`Config::everything`].
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        Config::arbitrary_within(u, &Config::everything())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swarm_only_restricts() {
        let ceiling = Config {
            approvals: false,
            max_parallel_calls: 3,
            ..Config::default()
        };
        for seed in 0..200u8 {
            let bytes: Vec<u8> = (0..64u8)
                .map(|i| i.wrapping_mul(37).wrapping_add(seed))
                .collect();
            let c = Config::arbitrary_within(&mut Unstructured::new(&bytes), &ceiling).unwrap();
            assert!(!c.approvals && !c.legacy_approvals && !c.pending && !c.swarm);
            assert!((1..=3).contains(&c.max_parallel_calls) || !c.tool_calls);
            assert!(c.max_turns <= 6 && c.max_steps <= 4);
        }
        let empty = Config::arbitrary_within(&mut Unstructured::new(&[]), &ceiling).unwrap();
        assert!(!empty.tool_calls && !empty.leading_segment);
        assert_eq!((empty.max_turns, empty.max_steps), (1, 1));
    }

    #[test]
    fn openai_turns_off_what_it_cannot_carry() {
        let c = Config::for_openai();
        assert!(
            !c.batched_results && !c.non_string_results && !c.result_extra_fields && !c.role_case
        );
        assert!(c.tool_calls && c.approvals && c.extra_fields);
        let c = Config {
            max_parallel_calls: 99,
            ..Config::default()
        }
        .sanitize();
        assert_eq!(c.max_parallel_calls, MAX_PARALLEL_CALLS);
    }
}
