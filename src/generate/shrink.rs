//! Shrinking: [`QuickCase`], a generated (history, budget) pair with a
//! structural, greedy shrink ([`QuickCase::minimize_within`]) that
//! certify uses to turn a failure into a minimal counterexample, and that
//! implements [`quickcheck::Arbitrary`] for property tests.
//!
//! `arbitrary` draws bytes from quickcheck's [`Gen`] (`size × 32` of them)
//! and feeds them to [`crate::generate::history`] under
//! [`Config::everything`] (swarm on).
//!
//! Shrinking runs structural passes ([`Pass`]) in this order. First, on a
//! case of [`HALVES_FROM`] messages or more, halves: drop the older half
//! of the turns, the newer half, then quarters, eighths… down to chunks of
//! two turns, then likewise ranges of messages; each success starts again
//! from halves of what is left, so a case of n messages that keeps failing
//! on its newer half is down to a few turns after log₂ n tries. Then: drop
//! whole turns; drop tool groups (a call message with all its results, or
//! the calls of one message with their results; likewise approval flows);
//! drop single messages; drop content items (a call or request goes with
//! its result or response); lower the budget; shorten strings (texts and
//! string results halved, other results made `""`, call arguments and
//! members the kit does not interpret dropped); canonicalise names (call
//! ids `c1`, `c2`… in order of first use, so a reused id stays reused,
//! and ids that differ only in case stay so, `c1` and `C1`;
//! approval request ids `r1`, `r2`…; texts and string results `a`, `b`…
//! by distinct value; tool names `f`).
//! Every candidate that drops messages comes again with the budget lower
//! by as many, which keeps the cut of a last-N reducer where it was (and
//! a halving candidate a third time with the budget in proportion to what
//! is kept).
//! A case with a token budget (protocol 2, [`QuickCase::costs`]) keeps one
//! cost per message through every candidate (a dropped message takes its
//! cost with it), lowers `maxTokens` instead of the message budget, and
//! also tries its largest cost halved.
//!
//! The shrink repeats the passes until none changes the case (a fixed
//! point, at most [`MAX_ROUNDS`] rounds). A candidate is a change of the
//! current case made only when it is tried: it takes the messages it
//! keeps by moving them out of the current case (never copying them) and
//! gives them back when it does not fail, so a shrink holds the current
//! case and one candidate, and each try costs time linear in the case.
//! Every candidate tried passes the validator (others are passed over),
//! so a shrunk counterexample is still a valid history. A broken history
//! (policy `repair`, spec §17) shrinks with [`Keep::Broken`] instead,
//! whose candidates all break a rule: the breakage is kept.
//!
//! # Examples
//!
//! ```
//! use reducer_kit::generate::shrink::QuickCase;
//! fn budget_is_positive(c: QuickCase) -> bool { c.budget >= 1 }
//! quickcheck::QuickCheck::new().tests(50).quickcheck(budget_is_positive as fn(QuickCase) -> bool);
//! ```

mod edit;

use super::{history, Config, Costs, GeneratedCase};
use crate::formats::{view_history, Format};
use crate::terms::{pair, ItemKind, MessageView};
use crate::validate::{validate, Options};
use edit::{Edit, ItemAt, Lower};
use quickcheck::{Arbitrary, Gen};
use serde_json::Value;
use std::fmt;

/// A valid canonical history with a budget, for quickcheck properties.
#[derive(Clone, PartialEq)]
pub struct QuickCase {
    /// The history, canonical format; valid under `allow_pending`.
    pub messages: Vec<Value>,
    /// `maxMessages`, ≥ 1.
    pub budget: usize,
    /// Whether pending calls and requests in the newest turn are allowed.
    pub allow_pending: bool,
    /// A token budget (protocol 2) that replaces `budget`: one cost per
    /// message, `maxTokens`, `countPinned` (and a summary's cost).
    pub costs: Option<Costs>,
}

impl fmt::Debug for QuickCase {
    /// Compact JSON, `{"maxMessages": .., "allowPending": .., "messages": [..]}`
    /// (with a token budget `maxTokens`, `tokens` and `countPinned` in place
    /// of `maxMessages`), so a failing case can be pasted into a request or
    /// a case file.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = match &self.costs {
            None => serde_json::json!({
                "maxMessages": self.budget,
                "allowPending": self.allow_pending,
                "messages": self.messages,
            }),
            Some(c) => serde_json::json!({
                "maxTokens": c.max_tokens,
                "tokens": c.tokens,
                "countPinned": c.count_pinned,
                "allowPending": self.allow_pending,
                "messages": self.messages,
            }),
        };
        write!(f, "{v}")
    }
}

impl From<GeneratedCase> for QuickCase {
    fn from(g: GeneratedCase) -> Self {
        QuickCase {
            messages: g.messages,
            budget: g.budget,
            allow_pending: g.allow_pending,
            costs: g.costs,
        }
    }
}

/// Most rounds of all passes a shrink runs.
pub const MAX_ROUNDS: usize = 16;

/// The fewest messages a case has for [`Pass::Halves`] to run on it.
pub const HALVES_FROM: usize = 64;

/// A structural shrinking pass, in the order a shrink runs them (module
/// doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    /// Drop halves, quarters, eighths… of the turns (chunks of two turns
    /// at least), then of the messages, starting again from halves after
    /// each success; only on a case of [`HALVES_FROM`] messages or more.
    Halves,
    /// Drop one whole turn.
    Turns,
    /// Drop a call message with all its results, or the calls (approval
    /// requests) of one message with their results (responses).
    ToolGroups,
    /// Drop one message.
    Messages,
    /// Drop one content item (a call or request with its partner).
    Items,
    /// Lower the budget: 1, half, one less.
    Budget,
    /// Shorten strings: uninterpreted members and call arguments dropped,
    /// one text or string result halved (the 8 longest), one other result
    /// made `""` (the first 8).
    Strings,
    /// Canonical names ([`QuickCase::canonical_names`]).
    Names,
}

impl Pass {
    /// Every pass, in order.
    pub const ALL: [Pass; 8] = [
        Pass::Halves,
        Pass::Turns,
        Pass::ToolGroups,
        Pass::Messages,
        Pass::Items,
        Pass::Budget,
        Pass::Strings,
        Pass::Names,
    ];
}

/// Which candidates a shrink tries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// Valid histories ([`QuickCase::is_valid`]).
    Valid,
    /// Broken histories ([`QuickCase::is_broken`]): what policy `repair`
    /// is certified on (spec §17.1).
    Broken,
}

impl Keep {
    fn holds(self, c: &QuickCase) -> bool {
        match self {
            Keep::Valid => c.is_valid(),
            Keep::Broken => c.is_broken(),
        }
    }
}

/// Every item's partner (result of a call, response of a request).
fn partners(views: &[MessageView]) -> Vec<Vec<Option<(usize, usize)>>> {
    let all: Vec<usize> = (0..views.len()).collect();
    pair(views, &all)
}

/// The items of message `m` of `kind` (calls or approval requests) and
/// their partners (results or responses), as (message, contents index).
fn group_items(
    views: &[MessageView],
    partner: &[Vec<Option<(usize, usize)>>],
    m: usize,
    v: &MessageView,
    kind: ItemKind,
) -> Vec<ItemAt> {
    let mut out = Vec::new();
    for (k, item) in v.items.iter().enumerate() {
        if item.kind != kind {
            continue;
        }
        if let Some(e) = item.elem {
            out.push((m, e));
        }
        if let Some((pm, pk)) = partner[m][k] {
            if let Some(e) = views[pm].items[pk].elem {
                out.push((pm, e));
            }
        }
    }
    out
}

/// One shrink in progress: the current case, which candidates it keeps,
/// when to stop, and the judge of each candidate.
struct Shrink<'f> {
    current: QuickCase,
    keep: Keep,
    stop: &'f mut dyn FnMut() -> bool,
    fails: &'f mut dyn FnMut(&mut QuickCase) -> bool,
    stopped: bool,
}

impl Shrink<'_> {
    /// Tries the candidate `edit` makes of the current case: made, checked
    /// by the validator, judged; when it fails it becomes the current case,
    /// else its messages go back. Whether it did.
    fn attempt(&mut self, edit: &Edit) -> bool {
        if self.stopped || (self.stop)() {
            self.stopped = true;
            return false;
        }
        let Some(mut built) = self.current.build(edit) else {
            return false;
        };
        let hit = self.keep.holds(&built.case) && (self.fails)(&mut built.case);
        if hit {
            self.current = built.case;
        } else {
            self.current.restore(built);
        }
        hit
    }

    /// [`Pass::Halves`]: chunks of turns, then of messages, from halves
    /// down; back to halves of what is left after each success. Whether
    /// the case changed.
    fn halves(&mut self) -> bool {
        let mut changed = false;
        'again: while !self.stopped {
            for by_turns in [true, false] {
                let (units, pinned) = self.current.halving_units(by_turns);
                let mut size = units.len().div_ceil(2);
                while size >= 2 {
                    for chunk in units.chunks(size) {
                        let drop = edit::chunk_drop(chunk, pinned);
                        for lower in [Lower::Same, Lower::ByDropped, Lower::Scaled] {
                            if self.attempt(&Edit::Drop(drop.clone(), lower)) {
                                changed = true;
                                continue 'again;
                            }
                            if self.stopped {
                                return changed;
                            }
                        }
                    }
                    size = size.div_ceil(2).min(size - 1);
                }
            }
            break;
        }
        changed
    }

    /// One pass other than halves: its candidates in order; after each
    /// success the list is made again for the new case and the walk goes
    /// on from the same place. Whether the case changed.
    fn pass(&mut self, pass: Pass) -> bool {
        let mut changed = false;
        let mut k = 0;
        'again: while !self.stopped {
            let edits = self.current.edits(pass);
            while k < edits.len() {
                if let Some(edit) = edits.get(&self.current, k) {
                    if self.attempt(&edit) {
                        // Made again for the new case, from the same place.
                        changed = true;
                        continue 'again;
                    }
                    if self.stopped {
                        break;
                    }
                }
                k += 1;
            }
            break;
        }
        changed
    }

    fn run(mut self) -> QuickCase {
        for _ in 0..MAX_ROUNDS {
            let mut changed = false;
            for pass in Pass::ALL {
                changed |= match pass {
                    Pass::Halves => self.halves(),
                    _ => self.pass(pass),
                };
                if self.stopped {
                    return self.current;
                }
            }
            if !changed {
                break;
            }
        }
        self.current
    }
}

impl QuickCase {
    /// Whether the history passes the validator under `allow_pending`.
    pub fn is_valid(&self) -> bool {
        view_history(Format::Canonical, &self.messages).is_ok_and(|views| {
            validate(
                &views,
                Options {
                    allow_pending: self.allow_pending,
                },
            )
            .is_empty()
        })
    }

    /// Whether the history is readable and breaks a validator rule with
    /// pending calls not allowed: a broken history, what policy `repair`
    /// is certified on (spec §17.1).
    pub fn is_broken(&self) -> bool {
        view_history(Format::Canonical, &self.messages).is_ok_and(|views| {
            !validate(
                &views,
                Options {
                    allow_pending: false,
                },
            )
            .is_empty()
        })
    }

    /// The shrink candidates of every pass but [`Pass::Names`], in pass
    /// order (what quickcheck's `shrink` yields): finite, deterministic,
    /// each strictly smaller than `self` (fewer messages, fewer items,
    /// shorter text or a lower budget, nothing larger) and valid. Each is
    /// a copy: for small cases (a shrink makes one candidate at a time).
    pub fn shrink_candidates(&self) -> Vec<QuickCase> {
        Pass::ALL
            .iter()
            .filter(|&&p| p != Pass::Names)
            .flat_map(|&p| self.candidates(p))
            .collect()
    }

    /// The candidates of one pass, in a fixed order: each differs from
    /// `self`, from the ones before it, and is valid. For
    /// [`Pass::Halves`], every chunk of every size of the first walk (no
    /// success assumed).
    pub fn candidates(&self, pass: Pass) -> Vec<QuickCase> {
        self.candidates_that(pass, Keep::Valid)
    }

    /// The candidates of one pass that are still broken
    /// ([`QuickCase::is_broken`]), in the same order: what a shrink with
    /// [`Keep::Broken`] tries.
    pub fn broken_candidates(&self, pass: Pass) -> Vec<QuickCase> {
        self.candidates_that(pass, Keep::Broken)
    }

    fn candidates_that(&self, pass: Pass, keep: Keep) -> Vec<QuickCase> {
        let mut scratch = self.clone();
        let edits: Vec<Edit> = if pass == Pass::Halves {
            let mut out = Vec::new();
            for by_turns in [true, false] {
                let (units, pinned) = self.halving_units(by_turns);
                let mut size = units.len().div_ceil(2);
                while size >= 2 {
                    for chunk in units.chunks(size) {
                        for lower in [Lower::Same, Lower::ByDropped, Lower::Scaled] {
                            out.push(Edit::Drop(edit::chunk_drop(chunk, pinned), lower));
                        }
                    }
                    size = size.div_ceil(2).min(size - 1);
                }
            }
            out
        } else {
            let list = self.edits(pass);
            (0..list.len()).filter_map(|k| list.get(self, k)).collect()
        };
        let mut out: Vec<QuickCase> = Vec::new();
        for e in &edits {
            let Some(built) = scratch.build(e) else {
                continue;
            };
            if built.case != *self && !out.contains(&built.case) && keep.holds(&built.case) {
                out.push(built.case.clone());
            }
            scratch.restore(built);
        }
        out
    }

    /// Shrinks with [`Pass::ALL`] until a round of all of them changes
    /// nothing (at most [`MAX_ROUNDS`]), trying valid candidates. Returns a
    /// case for which `fails` holds if it held for `self`.
    pub fn minimize(self, mut fails: impl FnMut(&QuickCase) -> bool) -> QuickCase {
        self.minimize_within(Keep::Valid, &mut || false, &mut |c: &mut QuickCase| {
            fails(c)
        })
    }

    /// [`QuickCase::minimize`] of a broken history: every candidate is
    /// broken too ([`QuickCase::broken_candidates`]), so the shrunk case
    /// keeps a breakage (policy `repair`, spec §17).
    pub fn minimize_broken(self, mut fails: impl FnMut(&QuickCase) -> bool) -> QuickCase {
        self.minimize_within(Keep::Broken, &mut || false, &mut |c: &mut QuickCase| {
            fails(c)
        })
    }

    /// The shrink (module doc): candidates for which `keep` holds, each
    /// judged by `fails` (whether it still fails; it may take the
    /// candidate's `messages` while it runs but must put the same ones
    /// back), the first that fails becoming the current case. `stop` is
    /// asked before each candidate is made: once it answers `true` the
    /// shrink ends at once with the smallest failing case found, so a
    /// time, try or signal limit ends it within one candidate. Returns a
    /// case for which `fails` holds if it held for `self`.
    pub fn minimize_within(
        self,
        keep: Keep,
        stop: &mut dyn FnMut() -> bool,
        fails: &mut dyn FnMut(&mut QuickCase) -> bool,
    ) -> QuickCase {
        Shrink {
            current: self,
            keep,
            stop,
            fails,
            stopped: false,
        }
        .run()
    }

    /// The case with canonical names: every `callId` renamed `c1`, `c2`…
    /// in order of first use (one name per distinct id, so reused ids stay
    /// reused), every approval request id (`requestId`, or `id` of the
    /// older items) `r1`, `r2`… likewise, every call's `name` `f`, and
    /// every non-empty text and
    /// string result `a`, `b`… by distinct value in order of first use
    /// (empty ones stay empty).
    pub fn canonical_names(&self) -> QuickCase {
        let mut c = self.clone();
        let mut names = edit::Names::default();
        for msg in &mut c.messages {
            if let Some(Value::Array(items)) = msg.get_mut("contents") {
                for item in items {
                    edit::canonicalise(item, &mut names);
                }
            }
        }
        c
    }
}

impl Arbitrary for QuickCase {
    fn arbitrary(g: &mut Gen) -> Self {
        let bytes: Vec<u8> = (0..g.size().max(1) * 32)
            .map(|_| u8::arbitrary(g))
            .collect();
        let case = history(
            &mut arbitrary::Unstructured::new(&bytes),
            &Config::everything(),
        )
        .expect("the generator never fails");
        case.into()
    }

    fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
        Box::new(self.shrink_candidates().into_iter())
    }
}

#[cfg(test)]
mod tests;
