//! Knobs by name: every on/off switch of [`Config`] as a kebab-case name
//! (`approvals`, `developer-role`, …), what turning it off does to a
//! config, and whether a case (any case, generated or not) still shows
//! what it switches, as detected from the case itself ([`shapes`] and the
//! message view). `certify --without` is built on it: an
//! adapter that cannot represent a shape names the knob. Two knobs switch
//! no generator shape but shapes of the corpus and of requests
//! (`non-double-numbers`, `budget-spellings`).
//!
//! [`outside`] is what a default run leaves out (spec §9.5): the shapes
//! its wire format or provider profile cannot carry, and budgets no caller
//! writes;
//! `certify --with` brings them back.

use super::{shapes, Config, Shape};
use crate::formats::{view_history, Format};
use crate::terms::{ItemKind, Provider, Role};
use serde_json::Value;
use std::cell::OnceCell;
use std::collections::BTreeSet;
use std::fmt;

pub use super::config::Knob;

impl fmt::Display for Knob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A knob name that is not one of [`Knob::ALL`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown knob {name:?}; the knobs are: {}", Knob::ALL.iter().map(|k| k.name()).collect::<Vec<_>>().join(", "))]
pub struct UnknownKnob {
    /// The name given.
    pub name: String,
}

impl std::str::FromStr for Knob {
    type Err = UnknownKnob;
    /// A knob by its kebab-case name.
    fn from_str(s: &str) -> Result<Knob, UnknownKnob> {
        Knob::ALL
            .iter()
            .copied()
            .find(|k| k.name() == s.trim())
            .ok_or_else(|| UnknownKnob {
                name: s.trim().to_string(),
            })
    }
}

/// Knobs from a comma-separated list (`approvals,developer-role`), each
/// once, in the order of [`Knob::ALL`]; empty names are ignored.
///
/// # Errors
///
/// [`UnknownKnob`] for the first name that is not a knob.
///
/// # Examples
///
/// ```
/// use reducer_kit::generate::knob::{parse_knobs, Knob};
/// assert_eq!(
///     parse_knobs("developer-role,approvals,approvals").unwrap(),
///     vec![Knob::DeveloperRole, Knob::Approvals]
/// );
/// assert!(parse_knobs("approval").is_err());
/// ```
pub fn parse_knobs(list: &str) -> Result<Vec<Knob>, UnknownKnob> {
    let mut out: BTreeSet<Knob> = BTreeSet::new();
    for name in list.split(',').filter(|n| !n.trim().is_empty()) {
        out.insert(name.parse()?);
    }
    let mut v: Vec<Knob> = out.into_iter().collect();
    v.sort_by_key(|k| Knob::ALL.iter().position(|x| x == k));
    Ok(v)
}

/// `config` with every knob of `off` turned off, then sanitized.
pub fn without(mut config: Config, off: &[Knob]) -> Config {
    for k in off {
        k.turn_off(&mut config);
    }
    config.sanitize()
}

/// The knobs of the shapes a default run leaves out (spec §9.5), in
/// the order of [`Knob::ALL`]: what `format` and the provider profile have
/// no place for, and what no caller of a reducer writes. `certify --with`
/// runs them.
///
/// - Numbers no double holds (`non-double-numbers`): in every run; no
///   provider sends them.
/// - Roles in other letter cases (`role-case`): in every format but
///   canonical (Microsoft.Extensions.AI's `ChatRole` compares roles without
///   case; the providers take only their own spellings), and with any
///   provider profile.
/// - Approval items (`approvals`, `legacy-approvals`): in the OpenAI Chat
///   Completions, Anthropic, Gemini and Bedrock formats and profiles,
///   whose messages have no approval parts; the older approval names
///   (`legacy-approvals`) also in the Responses format and profile, whose
///   approvals are MCP items.
/// - Budgets of another type than an integer (`budget-spellings`): in
///   every run; no caller of a reducer writes a budget `3.0` or `1e1`
///   (over the wire, once asked for, they are judged by `protocol-budget`).
///
/// # Examples
///
/// ```
/// use reducer_kit::formats::Format;
/// use reducer_kit::generate::knob::{outside, Knob};
/// assert_eq!(outside(Format::Canonical, None), [Knob::NonDoubleNumbers, Knob::BudgetSpellings]);
/// assert_eq!(
///     outside(Format::OpenAi, None),
///     [Knob::RoleCase, Knob::Approvals, Knob::LegacyApprovals, Knob::NonDoubleNumbers, Knob::BudgetSpellings]
/// );
/// ```
pub fn outside(format: Format, provider: Option<Provider>) -> Vec<Knob> {
    let mut out = vec![Knob::NonDoubleNumbers, Knob::BudgetSpellings];
    if format != Format::Canonical || provider.is_some() {
        out.push(Knob::RoleCase);
    }
    let no_approvals = |f: Format| {
        matches!(
            f,
            Format::OpenAi | Format::Anthropic | Format::Gemini | Format::Bedrock
        )
    };
    let provider_format = provider.map(|p| match p {
        Provider::OpenAiChat => Format::OpenAi,
        Provider::OpenAiResponses => Format::Responses,
        Provider::Anthropic => Format::Anthropic,
        Provider::Gemini => Format::Gemini,
        Provider::Bedrock => Format::Bedrock,
    });
    if no_approvals(format) || provider_format.is_some_and(no_approvals) {
        out.push(Knob::Approvals);
    }
    if format != Format::Canonical || provider.is_some() {
        out.push(Knob::LegacyApprovals);
    }
    out.sort_by_key(|k| Knob::ALL.iter().position(|x| x == k));
    out
}

/// Whether a budget member's value is written other than as a JSON
/// integer (`budget-spellings`): `3.0`, `1e1`, `2.5`, `"3"`, `true`,
/// `null`; `3`, `-2` and `100000000000000000000000000000` are integers.
///
/// # Examples
///
/// ```
/// use reducer_kit::generate::knob::budget_spelled;
/// let v = |t: &str| serde_json::from_str::<serde_json::Value>(t).unwrap();
/// assert!(budget_spelled(&v("3.0")) && budget_spelled(&v("1e1")) && budget_spelled(&v("true")));
/// assert!(!budget_spelled(&v("3")) && !budget_spelled(&v("-2")) && !budget_spelled(&v("100000000000000000000000000000")));
/// ```
pub fn budget_spelled(value: &Value) -> bool {
    !crate::terms::budget::written_as_integer(value)
}

/// Whether `value` holds a number no double holds, but an integer written
/// in digits (`non-double-numbers`): one whose nearest double is another
/// number, or that has none.
fn has_non_double_number(value: &Value) -> bool {
    match value {
        Value::Number(n) => {
            if crate::terms::budget::written_as_integer(value) {
                return false;
            }
            match n
                .as_str()
                .parse::<f64>()
                .ok()
                .and_then(serde_json::Number::from_f64)
            {
                None => true,
                Some(d) => !crate::json::number_eq(n, &d),
            }
        }
        Value::Array(a) => a.iter().any(has_non_double_number),
        Value::Object(o) => o.values().any(has_non_double_number),
        _ => false,
    }
}

/// The knobs of `off` whose shapes the canonical case (`messages`, budget
/// `budget`) shows, detected from the case itself: a generated case made
/// with those knobs off can still show one (with `pinned-system` off a
/// later system message becomes the pinned one, `pinned-not-first`), and a
/// hand-written case may show any. Unreadable messages show none.
pub fn shown(messages: &[Value], budget: usize, off: &[Knob]) -> Vec<Knob> {
    if off.is_empty() {
        return Vec::new();
    }
    // The knobs of numbers and budgets need no view of the messages (the
    // default canonical run looks at every case for non-double-numbers).
    if off
        .iter()
        .all(|k| matches!(k, Knob::NonDoubleNumbers | Knob::BudgetSpellings))
    {
        return off
            .iter()
            .copied()
            .filter(|&k| k == Knob::NonDoubleNumbers && messages.iter().any(has_non_double_number))
            .collect();
    }
    let Ok(views) = view_history(Format::Canonical, messages) else {
        return Vec::new();
    };
    let s = OnceCell::new();
    let broken = if off.iter().any(|k| k.as_break().is_some()) {
        super::breakage::shown(messages)
    } else {
        BTreeSet::new()
    };
    let has = |shape: Shape| s.get_or_init(|| shapes(messages, budget)).contains(&shape);
    let any_item = |kinds: &[ItemKind]| {
        views
            .iter()
            .any(|v| v.items.iter().any(|i| kinds.contains(&i.kind)))
    };
    let item_member = |pick: &dyn Fn(&Value, &Value) -> bool| {
        messages.iter().any(|m| {
            m.get("contents")
                .and_then(Value::as_array)
                .is_some_and(|items| items.iter().any(|i| pick(m, i)))
        })
    };
    off.iter()
        .copied()
        .filter(|k| match k {
            // Shape::RoleCase, read off the views (no other shape needed).
            Knob::RoleCase => views
                .iter()
                .any(|v| v.role != Role::Other && v.role_text != v.role_text.to_ascii_lowercase()),
            Knob::ToolCalls => any_item(&[ItemKind::Call, ItemKind::Result]),
            Knob::Approvals => any_item(&[ItemKind::ApprovalRequest, ItemKind::ApprovalResponse]),
            // Shape::LegacyApproval, read off the items (no other shape
            // needed).
            Knob::LegacyApprovals => item_member(&|_, i| {
                matches!(
                    i.get("$type").and_then(Value::as_str),
                    Some("functionApprovalRequest" | "functionApprovalResponse")
                )
            }),
            Knob::SystemExtraFields => views.iter().zip(messages).any(|(v, m)| {
                v.role == Role::System
                    && (m
                        .as_object()
                        .is_some_and(|o| o.keys().any(|k| k != "role" && k != "contents"))
                        || m.get("contents")
                            .and_then(Value::as_array)
                            .is_some_and(|items| {
                                items
                                    .iter()
                                    .any(|i| i.get("additionalProperties").is_some())
                            }))
            }),
            Knob::ResultExtraFields => item_member(&|_, i| {
                i.get("$type").and_then(Value::as_str) == Some("functionResult")
                    && i.get("additionalProperties").is_some()
            }),
            Knob::NonDoubleNumbers => messages.iter().any(has_non_double_number),
            // A shape of the request, not of the history: see
            // `budget_spelled`.
            Knob::BudgetSpellings => false,
            k => match k.as_break() {
                Some(b) => broken.contains(&b),
                None => k.shapes().iter().any(|&shape| has(shape)),
            },
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::seeded_cases;

    #[test]
    fn unknown_knobs_name_the_known_ones() {
        let e = parse_knobs("approvals,late-system").unwrap_err();
        assert_eq!(e.name, "late-system");
        assert!(e.to_string().starts_with(
            "unknown knob \"late-system\"; the knobs are: leading-segment, pinned-system, pinned-not-first, later-system,"
        ));
    }

    /// `non-double-numbers`: a number whose nearest double is another
    /// number, or that has none, but an integer written in digits.
    #[test]
    fn numbers_no_double_holds() {
        let holds = |t: &str| !has_non_double_number(&serde_json::from_str(t).unwrap());
        for t in [
            "1.50",
            "-0",
            "2.5E+3",
            "0.1",
            "1.0",
            "123456789012345678901234567890",
            "9007199254740993",
            "[1, {\"a\": 19.99}]",
        ] {
            assert!(holds(t), "{t}");
        }
        for t in [
            "1e400",
            "1e-400",
            "0.1000000000000000055511151231257827",
            "{\"a\": [1, -1e400]}",
        ] {
            assert!(!holds(t), "{t}");
        }
    }

    /// Generated cases with a knob off show it only where the config
    /// cannot rule it out: with `pinned-not-first` off a later system
    /// message still becomes the pinned one when swarm turns the leading
    /// one off (and with `pinned-system` off, a later one is pinned); with
    /// `multi-step` off an approval flow's calls are a second step; with
    /// `text-beside-calls` off an approval flow's text can sit beside its
    /// calls. [`shown`] finds those, and `certify --without` skips them.
    #[test]
    fn cases_without_a_knob_do_not_show_it() {
        let mut still: Vec<(Knob, usize)> = Vec::new();
        for &k in Knob::ALL {
            let cfg = without(Config::everything(), &[k]);
            let n = seeded_cases(3, 150, &cfg)
                .filter(|c| !shown(&c.messages, c.budget, &[k]).is_empty())
                .count();
            if n > 0 {
                still.push((k, n));
            }
        }
        assert_eq!(
            still,
            vec![
                (Knob::PinnedSystem, 28),
                (Knob::PinnedNotFirst, 11),
                (Knob::MultiStep, 9),
                (Knob::TextBesideCalls, 2)
            ]
        );
    }
}
