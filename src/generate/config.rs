//! The generator's [`Config`]: one knob per shape, documented defaults, and
//! swarm drawing ([`Config::arbitrary_within`]).
//!
//! Every field is named once, in [`define_config!`]'s list at the foot of
//! this file: its type and default, its documented maximum, what it needs
//! of other fields, which wire formats carry it, how swarm testing draws
//! it, and, for an on/off switch of a shape, its [`Knob`]: the name
//! `certify --without` takes, the [`Shape`]s that show it, what a report
//! calls it. The struct, its `Default`, [`Config::sanitize`], the format
//! restrictions of [`Config::sanitize_for`], the swarm draw and the
//! [`Knob`] table are all made from that list.

use super::breakage::Break;
use super::Shape;
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

/// The one field list of the generator's configuration, and everything
/// made from it. An entry is
///
/// ```text
/// fields {
///     /// doc
///     field: Type = default, at_most MAX?, needs |c| cond?,
///         formats [Format, ...]?, cap [Format => n]?, swarm KIND
///         (, knob { /// doc
///                   Variant = "name", shapes [Shape, ...]?, breaks Break?, says "text"? })?;
///     ...
/// }
/// extra_knobs { /// doc
///               Variant = "name", says "text"?; ... }
/// ```
///
/// - `at_most`: [`Config::sanitize`] clamps the field to it.
/// - `needs`: [`Config::sanitize`] turns the switch off when the
///   condition on the config does not hold (read after the clamps, and
///   after every earlier field's own `needs`: a condition names only
///   fields before it, or maxima).
/// - `formats`: the wire formats that carry the switch;
///   [`Config::sanitize_for`] turns it off for every other. `cap`: the
///   maximum a format carries.
/// - `swarm`: how [`Config::arbitrary_within`] draws the field: `bit` (a
///   drawn bit, in field order), `last` (a bit drawn after every `bit`: a
///   switch added after the others, so that the earlier seeds keep their
///   histories), `range` (a maximum drawn from 1, in field order, after the
///   bits), `follows(field)` (on when that drawn switch is), `kept` (the
///   ceiling's value).
/// - `knob`: the switch's [`Knob`], its kebab-case name, the shapes whose
///   presence shows it ([`super::knob::shown`]), its [`Break`] for a
///   break knob, and what a report calls its shape
///   ([`Knob::shape_text`]).
///
/// After the fields, `extra_knobs` are knobs of no generator shape.
macro_rules! define_config {
    (
        fields {$(
            $(#[$doc:meta])*
            $field:ident : $ty:ty = $default:expr
            $(, at_most $max:expr)?
            $(, needs $needs:expr)?
            $(, formats [$($fmt:ident),*])?
            $(, cap [$($cfmt:ident => $cap:expr),*])?
            , swarm $swarm:ident $(($follows:ident))?
            $(, knob {
                $(#[$kdoc:meta])*
                $variant:ident = $name:literal
                $(, shapes [$($shape:ident),*])?
                $(, breaks $brk:ident)?
                $(, says $says:literal)?
            })?
            ;
        )*}
        extra_knobs {
            $(
                $(#[$xdoc:meta])*
                $xvariant:ident = $xname:literal $(, says $xsays:literal)?;
            )*
        }
    ) => {
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
            $( $(#[$doc])* pub $field: $ty, )*
        }

        impl Default for Config {
            fn default() -> Self {
                Config { $( $field: $default, )* }
            }
        }

        impl Config {
            /// Clamps every maximum into its documented range and turns off knobs
            /// that cannot take effect (`pinned_not_first` without `pinned_system`,
            /// call shapes without `tool_calls`, ...). Only ever restricts.
            pub fn sanitize(mut self) -> Config {
                $( $( self.$field = self.$field.min($max); )? )*
                $( $(
                    let needs: fn(&Config) -> bool = $needs;
                    if !needs(&self) {
                        self.$field = false;
                    }
                )? )*
                self
            }

            /// Turns off what `format` does not carry (each field's
            /// `formats` and `cap`); not sanitized.
            fn restrict_to(mut self, format: Format) -> Config {
                $( $(
                    if !matches!(format, $(Format::$fmt)|*) {
                        self.$field = false;
                    }
                )? )*
                $( $( $(
                    if format == Format::$cfmt {
                        self.$field = self.$field.min($cap);
                    }
                )* )? )*
                self
            }

            /// The swarm draws of [`Config::arbitrary_within`] into `c`,
            /// within `ceiling` (sanitized).
            fn draw_swarm(
                c: &mut Config,
                ceiling: &Config,
                u: &mut Unstructured,
            ) -> arbitrary::Result<()> {
                $( swarm_step!(bit, $swarm $(($follows))?, c, ceiling, u, $field); )*
                $( swarm_step!(last, $swarm $(($follows))?, c, ceiling, u, $field); )*
                $( swarm_step!(follows, $swarm $(($follows))?, c, ceiling, u, $field); )*
                $( swarm_step!(range, $swarm $(($follows))?, c, ceiling, u, $field); )*
                Ok(())
            }
        }

        /// An on/off switch of [`Config`], named as `certify --without`
        /// takes it.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Knob {
            $( $( $(#[$kdoc])* $variant, )? )*
            $( $(#[$xdoc])* $xvariant, )*
        }

        impl Knob {
            /// Every knob, in [`Config`]'s field order, then the knobs of
            /// no generator shape.
            pub const ALL: &'static [Knob] = &[
                $( $( Knob::$variant, )? )*
                $( Knob::$xvariant, )*
            ];

            /// The knob's name: its [`Config`] field in kebab-case.
            pub fn name(self) -> &'static str {
                match self {
                    $( $( Knob::$variant => $name, )? )*
                    $( Knob::$xvariant => $xname, )*
                }
            }

            /// `config` with this knob off (and nothing else changed; call
            /// [`Config::sanitize`] after). A knob of no generator shape
            /// (`non-double-numbers`, `budget-spellings`) changes nothing.
            pub fn turn_off(self, config: &mut Config) {
                match self {
                    $( $( Knob::$variant => config.$field = false, )? )*
                    $( Knob::$xvariant => {} )*
                }
            }

            /// The shapes whose presence shows the knob
            /// ([`super::knob::shown`]); empty for a knob read otherwise
            /// (off the items, the roles, the breaks or the numbers).
            pub fn shapes(self) -> &'static [Shape] {
                match self {
                    $( $( Knob::$variant => &[ $( $( Shape::$shape, )* )? ], )? )*
                    $( Knob::$xvariant => &[], )*
                }
            }

            /// The break this knob turns on (spec §17.6), when it is a break
            /// knob.
            pub fn as_break(self) -> Option<Break> {
                match self {
                    $( $( Knob::$variant => or_none!($(Break::$brk)?), )? )*
                    $( Knob::$xvariant => None, )*
                }
            }

            /// What the knob's shape is, for a report that skips a case showing
            /// it: `approval items`, `roles in other letter cases`.
            pub fn shape_text(self) -> &'static str {
                match self {
                    $( $( Knob::$variant => or_a_shape!($($says)?), )? )*
                    $( Knob::$xvariant => or_a_shape!($($xsays)?), )*
                }
            }
        }
    };
}

/// One swarm step of [`define_config!`]: the `phase` draw of a field of
/// swarm kind `kind`, nothing in other phases.
macro_rules! swarm_step {
    (bit, bit, $c:ident, $ceiling:ident, $u:ident, $f:ident) => {
        $c.$f = $ceiling.$f && bool::arbitrary($u)?;
    };
    (last, last, $c:ident, $ceiling:ident, $u:ident, $f:ident) => {
        $c.$f = $ceiling.$f && bool::arbitrary($u)?;
    };
    (follows, follows($g:ident), $c:ident, $ceiling:ident, $u:ident, $f:ident) => {
        $c.$f = $ceiling.$f && $c.$g;
    };
    // `int_in_range` gives the lower bound when bytes run out.
    (range, range, $c:ident, $ceiling:ident, $u:ident, $f:ident) => {
        $c.$f = $u.int_in_range(1.min($ceiling.$f)..=$ceiling.$f)?;
    };
    ($phase:ident, $kind:ident $(($g:ident))?, $c:ident, $ceiling:ident, $u:ident, $f:ident) => {};
}

/// `Some` of the break given, or `None`.
macro_rules! or_none {
    () => {
        None
    };
    ($b:expr) => {
        Some($b)
    };
}

/// The text given, or `a shape`.
macro_rules! or_a_shape {
    () => {
        "a shape"
    };
    ($s:literal) => {
        $s
    };
}

define_config! {
    fields {
    /// Most turns (user questions) in a history; 0 gives histories with no
    /// turns. Default 6, at most [`MAX_TURNS`].
    max_turns: usize = 6, at_most MAX_TURNS, swarm range;
    /// Most steps in one turn or in the leading segment: an assistant reply,
    /// a tool step (calls and their results), an approval flow or a later
    /// system message. A final assistant answer may follow them. Default 4,
    /// at most [`MAX_STEPS`].
    max_steps: usize = 4, at_most MAX_STEPS, swarm range;
    /// Messages before the first user question (the leading segment).
    /// Default on.
    leading_segment: bool = true, swarm bit, knob {
        /// Messages before the first user question ([`Shape::LeadingSegment`]).
        LeadingSegment = "leading-segment", shapes [LeadingSegment]
    };
    /// A pinned system message. Default on. Off still allows a pinned one
    /// when `later_system` is on: the first later system message is then
    /// the pinned one.
    pinned_system: bool = true, swarm bit, knob {
        /// A pinned system message ([`Shape::PinnedFirst`], [`Shape::PinnedNotFirst`]).
        PinnedSystem = "pinned-system", shapes [PinnedFirst, PinnedNotFirst]
    };
    /// The pinned system message somewhere after the first message (never
    /// inside a tool group). Default on; off without `pinned_system`, and
    /// for Anthropic, Gemini and Bedrock, whose system message comes first.
    pinned_not_first: bool = true, needs |c| c.pinned_system,
        formats [Canonical, OpenAi, Responses], swarm bit, knob {
        /// The pinned system message after another message ([`Shape::PinnedNotFirst`]).
        PinnedNotFirst = "pinned-not-first", shapes [PinnedNotFirst]
    };
    /// System messages after the pinned one, as a step of a turn. Default
    /// on; off for Anthropic, Gemini and Bedrock.
    later_system: bool = true, formats [Canonical, OpenAi, Responses], swarm bit, knob {
        /// System messages after the pinned one ([`Shape::LaterSystem`]).
        LaterSystem = "later-system", shapes [LaterSystem]
    };
    /// System messages with the role spelled `developer`. Default on; off
    /// for Anthropic, Gemini and Bedrock.
    developer_role: bool = true, formats [Canonical, OpenAi, Responses], swarm bit, knob {
        /// The `developer` role ([`Shape::DeveloperRole`]).
        DeveloperRole = "developer-role", shapes [DeveloperRole]
    };
    /// Roles in other ASCII cases (`Assistant`, `USER`). Default on; off
    /// for every format but canonical, which only take lowercase roles.
    role_case: bool = true, formats [Canonical], swarm bit, knob {
        /// Roles in other ASCII cases ([`Shape::RoleCase`]).
        RoleCase = "role-case", shapes [RoleCase], says "roles in other letter cases"
    };
    /// Tool calls and results. Default on; off when `max_parallel_calls`
    /// is 0.
    tool_calls: bool = true, needs |c| c.max_parallel_calls > 0, swarm bit, knob {
        /// Tool calls and results (any call or result item).
        ToolCalls = "tool-calls"
    };
    /// More than one tool step in one turn (a multi-step tool loop).
    /// Default on.
    multi_step: bool = true, needs |c| c.tool_calls, swarm bit, knob {
        /// Several tool steps in one turn ([`Shape::MultiStepLoop`]).
        MultiStep = "multi-step", shapes [MultiStepLoop]
    };
    /// Most calls in one assistant message, 1 to [`MAX_PARALLEL_CALLS`];
    /// 0 means no calls. Default 8.
    max_parallel_calls: usize = MAX_PARALLEL_CALLS, at_most MAX_PARALLEL_CALLS, swarm range;
    /// Several results in one tool message. Default on; off for OpenAI
    /// and Responses.
    batched_results: bool = true, needs |c| c.tool_calls,
        formats [Canonical, Anthropic, Gemini, Bedrock], swarm bit, knob {
        /// Several results in one tool message ([`Shape::ResultsBatched`]).
        BatchedResults = "batched-results", shapes [ResultsBatched]
    };
    /// Results in another order than their calls. Default on.
    shuffled_results: bool = true, needs |c| c.tool_calls, swarm bit, knob {
        /// Results in another order than their calls ([`Shape::ResultsReordered`]).
        ShuffledResults = "shuffled-results", shapes [ResultsReordered]
    };
    /// Text (and opaque items) beside the calls in an assistant message.
    /// Default on; off for Responses.
    text_beside_calls: bool = true, needs |c| c.tool_calls,
        formats [Canonical, OpenAi, Anthropic, Gemini, Bedrock], swarm bit, knob {
        /// Text beside calls ([`Shape::TextBesideCalls`]).
        TextBesideCalls = "text-beside-calls", shapes [TextBesideCalls]
    };
    /// Sometimes, the user's text after the results in the last tool
    /// message of a tool step: how Anthropic, Bedrock and Gemini carry
    /// "here is the result, and my next question" in one user message
    /// (spec §1.6). A shape only those formats have: default off, as in
    /// [`Config::everything`]; [`Config::with_native_shapes`] turns it on
    /// for [`Format::Anthropic`], [`Format::Bedrock`] and
    /// [`Format::Gemini`], and [`Config::sanitize_for`] off for every other
    /// format. Drawn by swarm testing after the other switches.
    results_beside_text: bool = false, needs |c| c.tool_calls,
        formats [Anthropic, Bedrock, Gemini], swarm last, knob {
        /// The user's text beside results in one tool message
        /// ([`Shape::ResultsBesideText`]; Anthropic, Bedrock and Gemini, spec §1.6).
        ResultsBesideText = "results-beside-text", shapes [ResultsBesideText],
            says "text beside results in one tool message"
    };
    /// Approval flows: `toolApprovalRequest` in an assistant message, an
    /// approval-only user message answering it (approved or not), then
    /// usually the approved calls. Default on; off when
    /// `max_approval_requests` is 0, and for Gemini and Bedrock.
    approvals: bool = true, needs |c| c.max_approval_requests > 0,
        formats [Canonical, OpenAi, Anthropic, Responses], swarm bit, knob {
        /// Approval flows (any approval request or response item).
        Approvals = "approvals", says "approval items"
    };
    /// Most approval requests in one assistant message, 1 to
    /// [`MAX_APPROVAL_REQUESTS`] (1 for Responses). Default 3.
    max_approval_requests: usize = 3, at_most MAX_APPROVAL_REQUESTS,
        cap [Responses => 1], swarm range;
    /// The older `functionApprovalRequest` / `functionApprovalResponse`
    /// names (with `id`). Default on; off for Responses (and with
    /// approvals).
    legacy_approvals: bool = true, needs |c| c.approvals,
        formats [Canonical, OpenAi, Anthropic], swarm bit, knob {
        /// The older approval item names ([`Shape::LegacyApproval`]).
        LegacyApprovals = "legacy-approvals", shapes [LegacyApproval],
            says "approval items with the older names"
    };
    /// Unanswered calls and approval requests at the end of the newest turn;
    /// the generated case then has `allow_pending`. Default off.
    pending: bool = false, swarm bit, knob {
        /// Pending calls and requests ([`Shape::PendingCall`], [`Shape::PendingRequest`]).
        Pending = "pending", shapes [PendingCall, PendingRequest]
    };
    /// A call id used again after its result came, and an approval request
    /// id used again after its response came. Default on.
    reuse_call_ids: bool = true, needs |c| c.tool_calls || c.approvals, swarm bit, knob {
        /// A call or approval request id used again ([`Shape::CallIdReused`],
        /// [`Shape::RequestIdReused`]).
        ReuseCallIds = "reuse-call-ids", shapes [CallIdReused, RequestIdReused]
    };
    /// Ids of several spellings (spec §2 compares ids exactly): two ids
    /// that differ only in ASCII letter case (`call_1`, `Call_1`), one id
    /// a prefix of another (`call_1`, `call_1-3`), long ids that share
    /// their first 60 bytes, ids with non-ASCII characters (an accent
    /// composed and decomposed, CJK, emoji, a zero-width space); often
    /// beside each other in one message. Default on, in every format.
    id_spellings: bool = true, needs |c| c.tool_calls || c.approvals, swarm bit, knob {
        /// Ids of several spellings ([`Shape::IdCaseVariant`],
        /// [`Shape::IdLong`], [`Shape::IdNonAscii`]; [`Shape::IdSharedPrefix`]
        /// also comes with plain ids, `call_1` and `call_10`).
        IdSpellings = "id-spellings", shapes [IdCaseVariant, IdLong, IdNonAscii]
    };
    /// Content items the kit does not interpret (`dataContent`,
    /// `uriContent`, `textReasoning`, `usage`, `errorContent`, an unknown
    /// `$type`). Default on.
    opaque_contents: bool = true, swarm bit, knob {
        /// Content the kit does not interpret ([`Shape::OpaqueContent`]).
        OpaqueContents = "opaque-contents", shapes [OpaqueContent]
    };
    /// Members the kit does not interpret on messages (`authorName`,
    /// `messageId`, `createdAt`, `additionalProperties`) and on text, call
    /// and opaque items (`additionalProperties`). Default on.
    extra_fields: bool = true, swarm bit, knob {
        /// Members the kit does not interpret ([`Shape::ExtraFields`]).
        ExtraFields = "extra-fields", shapes [ExtraFields]
    };
    /// Those members on system messages and their items as well. Default
    /// on; off for Anthropic, Gemini and Bedrock, whose system message has
    /// no place for them. Not drawn by swarm testing (it follows
    /// `extra_fields`).
    system_extra_fields: bool = true, needs |c| c.extra_fields,
        formats [Canonical, OpenAi, Responses], swarm follows(extra_fields), knob {
        /// Such members on a system message or its items.
        SystemExtraFields = "system-extra-fields"
    };
    /// `additionalProperties` on result items as well. Default on; off for
    /// OpenAI and Responses, whose tool messages have no place for it.
    result_extra_fields: bool = true, needs |c| c.extra_fields,
        formats [Canonical, Anthropic, Gemini, Bedrock], swarm bit, knob {
        /// `additionalProperties` on a result item.
        ResultExtraFields = "result-extra-fields"
    };
    /// Empty texts. Default on.
    empty_text: bool = true, swarm bit, knob {
        /// Empty texts ([`Shape::EmptyText`]).
        EmptyText = "empty-text", shapes [EmptyText]
    };
    /// Non-ASCII text (accents, CJK, RTL, emoji, combining marks, NUL).
    /// Default on.
    non_ascii_text: bool = true, swarm bit, knob {
        /// Non-ASCII text ([`Shape::NonAsciiText`]).
        NonAsciiText = "non-ascii-text", shapes [NonAsciiText]
    };
    /// Rarely, a text or result of `large_payload_bytes`. Default on; off
    /// when `large_payload_bytes` is 0.
    large_payloads: bool = true, needs |c| c.large_payload_bytes > 0, swarm bit, knob {
        /// Large payloads ([`Shape::LargePayload`]).
        LargePayloads = "large-payloads", shapes [LargePayload]
    };
    /// Size of a large payload, in bytes. Default 100,000, at most
    /// [`MAX_LARGE_PAYLOAD_BYTES`]. Only payloads of 65,536 bytes or more
    /// count as [`Shape::LargePayload`](super::Shape::LargePayload).
    large_payload_bytes: usize = 100_000, at_most MAX_LARGE_PAYLOAD_BYTES, swarm kept;
    /// Results whose payload is not a string (objects, arrays, numbers,
    /// `true`, `null`). Default on; off for OpenAI and Responses.
    non_string_results: bool = true, needs |c| c.tool_calls,
        formats [Canonical, Anthropic, Gemini, Bedrock], swarm bit, knob {
        /// Results that are not strings ([`Shape::NonStringResult`]).
        NonStringResults = "non-string-results", shapes [NonStringResult]
    };
    /// Swarm testing: each history first draws, from its own bytes, a
    /// restriction of this config (knobs off, lower maxima; see
    /// [`Config::arbitrary_within`]). Default on.
    swarm: bool = true, swarm kept;
    /// Reasoning items (OpenAI Responses, spec §14.1): before some
    /// assistant messages (a reply, a message of calls, an approval
    /// request), an `assistant` message holding one `reasoning` item, which
    /// the Responses format attaches to the item after it. Default off, as
    /// in [`Config::everything`]; [`Config::with_native_shapes`] turns it
    /// on for [`Format::Responses`], and [`Config::sanitize_for`] off for
    /// every other format.
    reasoning_items: bool = false, formats [Responses], swarm bit;
    /// Messages that mix kinds of tool traffic: text beside approval
    /// requests, calls beside requests, several requests or approval
    /// responses in one message, and extra members on messages with calls or
    /// approval items. Default on; off for [`Format::Responses`], where
    /// each call, output and approval is an item of its own. Not drawn by
    /// swarm testing.
    mixed_tool_messages: bool = true, formats [Canonical, OpenAi, Anthropic, Gemini, Bedrock],
        swarm kept;
    /// The wire format the histories are made for: budgets are drawn around
    /// its message counts (a Responses item per call). Default canonical;
    /// set by [`Config::sanitize_for`].
    format: Format = Format::Canonical, swarm kept;
    /// Token budgets (protocol 2, spec §13.4): about half of the cases
    /// get per-message costs and a `maxTokens` ([`super::Costs`]), drawn
    /// after everything else so that the messages and the message budget
    /// do not change. Default off; on for `certify --protocol 2`. Not drawn
    /// by swarm testing.
    costs: bool = false, swarm kept;
    /// Broken histories (spec §17.6, [`super::breakage`]): the knobs
    /// below break a valid history the ways real histories break, and
    /// when any is on every history gets at least one break. Default off
    /// (every one); [`Config::for_repair`] turns on those the format
    /// carries. Not drawn by swarm testing. A run interrupted after its
    /// calls: their results missing, the conversation goes on.
    interrupted_run: bool = false, swarm kept, knob {
        /// Break: a run interrupted after its calls (spec §17.6).
        InterruptedRun = "interrupted-run", breaks InterruptedRun
    };
    /// One of several parallel results lost.
    lost_parallel_result: bool = false, swarm kept, knob {
        /// Break: one of several parallel results lost.
        LostParallelResult = "lost-parallel-result", breaks LostParallelResult
    };
    /// A result stored twice by a retry.
    duplicated_result: bool = false, swarm kept, knob {
        /// Break: a result duplicated by a retry.
        DuplicatedResult = "duplicated-result", breaks DuplicatedResult
    };
    /// A result stored before its call.
    result_before_call: bool = false, swarm kept, knob {
        /// Break: a result stored before its call.
        ResultBeforeCall = "result-before-call", breaks ResultBeforeCall
    };
    /// A non-tool message between a call and its results.
    interjected_message: bool = false, swarm kept, knob {
        /// Break: a non-tool message between a call and its results.
        InterjectedMessage = "interjected-message", breaks InterjectedMessage
    };
    /// An approval request left unanswered, the conversation going on.
    unanswered_approval: bool = false, needs |c| c.approvals, swarm kept, knob {
        /// Break: an approval request left unanswered.
        UnansweredApproval = "unanswered-approval", breaks UnansweredApproval
    };
    /// An approval response without its request.
    orphan_approval_response: bool = false, needs |c| c.approvals, swarm kept, knob {
        /// Break: an approval response without its request.
        OrphanApprovalResponse = "orphan-approval-response", breaks OrphanApprovalResponse
    };
    /// A reasoning item cut off from its call (Responses only).
    reasoning_cut_off: bool = false, needs |c| c.reasoning_items, formats [Responses],
        swarm kept, knob {
        /// Break: a reasoning item cut off from its call (Responses).
        ReasoningCutOff = "reasoning-cut-off", breaks ReasoningCutOff
    };
    /// A tool message rewritten as a user message (canonical only: OpenAI
    /// and Responses have no user message holding a result, and in the
    /// other formats it is their tool message).
    tool_as_user: bool = false, formats [Canonical], swarm kept, knob {
        /// Break: a tool message rewritten as a user message.
        ToolAsUser = "tool-as-user", breaks ToolAsUser
    };
    /// A reused call id whose first pair is broken.
    reused_id_broken: bool = false, swarm kept, knob {
        /// Break: a reused call id whose first pair is broken.
        ReusedIdBroken = "reused-id-broken", breaks ReusedIdBroken
    };
    /// A history cut by a history limit: the newest messages of a valid
    /// history, from inside a tool step, so that results at its head have
    /// lost their calls.
    limit_cut: bool = false, swarm kept, knob {
        /// Break: a history cut by a history limit, results at its head
        /// without their calls.
        LimitCut = "limit-cut", breaks LimitCut
    };
    }
    extra_knobs {
        /// Numbers that no double holds, but integers written in digits:
        /// beyond the doubles' range (`1e400`), below it (`1e-400`), or with
        /// more digits than a double keeps
        /// (`0.1000000000000000055511151231257827`); a reader of doubles
        /// writes them back as other numbers, or as `Infinity`, which is no
        /// JSON. No generator shape: corpus and imported cases have them.
        NonDoubleNumbers = "non-double-numbers", says "numbers no double holds (as 1e400)";
        /// A budget written other than as a JSON integer: `3.0` and `1e1`
        /// (budgets, spec §2), `2.5`, `"3"`, `true`, `null` (none). No
        /// generator shape (generated budgets are integers): the corpus's
        /// budget cases have it ([`super::knob::budget_spelled`]).
        BudgetSpellings = "budget-spellings", says "a budget written other than as an integer";
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
        c.restrict_to(format).sanitize()
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
        Config::draw_swarm(&mut c, &ceiling, u)?;
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
