//! canonical → wire format → canonical is the identity on generated
//! histories, for every wire format ([`Format::ALL`] but canonical).
//!
//! The first byte picks the wire format: below 192, OpenAI when even and
//! Anthropic when odd (as before the formats of spec §14 existed, so old
//! inputs decode as they did); from 192 on, Responses, Gemini and Bedrock
//! in turn. The history comes from [`config`] for that format (swarm on,
//! pending tails). Then: the conversion to the wire format succeeds;
//! converting back gives a history equal to the input (spec §1
//! equality); converting that again gives the same wire messages; the wire
//! views have the same roles and items (kinds and ids, in order) as the
//! canonical ones, so the validator says the same; and for both policies,
//! reducing the wire form and converting back gives the canonical
//! reduction (in Anthropic and Bedrock a `tool` message left holding only
//! the user's text beside its removed results reads back as a `user`
//! message of that text, spec §1.6). In the Responses format, where a message of calls is one item
//! per call, the views are compared item by item (role, kind, id) and the
//! reduced wire form must convert back.

use crate::formats::{from_wire, to_wire, view_history, Format};
use crate::generate::{history, Config, GeneratedCase};
use crate::json::{first_difference, json_eq};
use crate::reduce::{self, Reference};
use crate::terms::{ItemKind, MessageView, Policy, Role};
use crate::validate::{validate, Options};
use arbitrary::{Arbitrary, Unstructured};
use serde_json::Value;

super::fuzz_input!();

/// The generator config of this target for `format`: every shape it
/// carries ([`Config::for_format`]), pending tails on.
pub fn config(format: Format) -> Config {
    Config::for_format(format)
}

/// The wire format one byte picks (see the module doc).
pub fn format_of(byte: u8) -> Format {
    const NEW: [Format; 3] = [Format::Responses, Format::Gemini, Format::Bedrock];
    match byte {
        0..=191 if byte % 2 == 0 => Format::OpenAi,
        0..=191 => Format::Anthropic,
        _ => NEW[usize::from(byte - 192) % NEW.len()],
    }
}

/// Decodes the wire format (one byte, [`format_of`]) and the history.
///
/// # Errors
///
/// Never in practice (the generator does not fail).
pub fn decode(u: &mut Unstructured) -> arbitrary::Result<(Format, GeneratedCase)> {
    let format = format_of(u8::arbitrary(u)?);
    Ok((format, history(u, &config(format))?))
}

/// The generated history, as [`super::Carried`] (no policy drawn).
///
/// # Errors
///
/// As [`decode`].
pub fn carried(u: &mut Unstructured) -> arbitrary::Result<super::Carried> {
    let (_, case) = decode(u)?;
    Ok(super::Carried::case(&case, None))
}

/// Generates a history the drawn format carries and checks the round trip.
///
/// # Errors
///
/// Never in practice (the generator does not fail).
///
/// # Panics
///
/// When a property of the module doc fails, with the case and the first
/// difference.
pub fn run(u: &mut Unstructured) -> arbitrary::Result<()> {
    let (format, case) = decode(u)?;
    check_roundtrip(format, &case);
    Ok(())
}

/// How many bytes [`decode`] reads of `bytes` (see
/// [`super::trimmed_len`]); `None` when it fails.
pub fn consumed(bytes: &[u8]) -> Option<usize> {
    super::consumed_by(bytes, decode)
}

/// The format and the generated case as a case-format line.
pub fn describe(bytes: &[u8]) -> String {
    match decode(&mut Unstructured::new(bytes)) {
        Ok((format, case)) => format!(
            "format_roundtrip via {format}, case: {}",
            super::case_line(&case, Policy::Turns)
        ),
        Err(e) => format!("format_roundtrip: undecodable input: {e}"),
    }
}

/// Role, kind and id of every item, message after message, the items of
/// system messages left out: how a Responses history (an item per call)
/// and its canonical form are compared.
fn flat_items(views: &[MessageView]) -> Vec<(Role, ItemKind, String)> {
    views
        .iter()
        .filter(|v| v.role != Role::System)
        .flat_map(|v| v.items.iter().map(|i| (v.role, i.kind, i.id.clone())))
        .collect()
}

/// Roles and items of every message; the system pseudo-message's
/// items (its text blocks) do not matter to reduction and are left out.
fn items(views: &[MessageView]) -> Vec<(Role, Vec<(ItemKind, String)>)> {
    views
        .iter()
        .map(|v| {
            let items = if v.role == Role::System {
                Vec::new()
            } else {
                v.items.iter().map(|i| (i.kind, i.id.clone())).collect()
            };
            (v.role, items)
        })
        .collect()
}

/// Checks every property of the module doc on one canonical history and
/// a wire `format`.
///
/// # Panics
///
/// When one fails, or for [`Format::Canonical`].
pub fn check_roundtrip(format: Format, case: &GeneratedCase) {
    assert!(
        format != Format::Canonical,
        "format_roundtrip converts to a wire format"
    );
    let to = |m: &[Value]| to_wire(format, m);
    let from = |m: &[Value]| from_wire(format, m);
    let canonical = &case.messages;
    let whole = || super::json_line(canonical);
    let wire = to(canonical).unwrap_or_else(|e| {
        panic!(
            "the {format} config made a history {format} cannot carry: {e}\n{}",
            whole()
        )
    });
    let back =
        from(&wire).unwrap_or_else(|e| panic!("{format}: converting back fails: {e}\n{}", whole()));
    let (a, b) = (Value::Array(canonical.clone()), Value::Array(back.clone()));
    assert!(
        json_eq(&a, &b),
        "canonical -> {format} -> canonical differs at {}\n{}",
        first_difference(&a, &b).unwrap_or_default(),
        whole()
    );
    let again = to(&back).expect("the round-tripped history converts");
    let (o1, o2) = (Value::Array(wire.clone()), Value::Array(again));
    assert!(
        json_eq(&o1, &o2),
        "{format} -> canonical -> {format} differs at {}\n{}",
        first_difference(&o1, &o2).unwrap_or_default(),
        whole()
    );
    let cv = view_history(Format::Canonical, canonical).expect("generated histories are readable");
    let wv = view_history(format, &wire)
        .unwrap_or_else(|e| panic!("the {format} form is unreadable: {e}\n{}", whole()));
    let budget = Value::from(case.budget);
    if format == Format::Responses {
        assert_eq!(
            flat_items(&cv),
            flat_items(&wv),
            "{format}: views differ\n{}",
            whole()
        );
        for policy in Policy::ALL {
            let got = Reference::new(policy, format)
                .reduce(reduce::Input::new(&wire).max_messages(&budget))
                .expect("reduces")
                .messages();
            if let Err(e) = from(&got) {
                panic!(
                    "{policy} at budget {}: the reduced {format} form does not convert back: {e}\n{}",
                    case.budget,
                    whole()
                );
            }
        }
        return;
    }
    assert_eq!(
        items(&cv),
        items(&wv),
        "{format}: views differ\n{}",
        whole()
    );
    let opts = Options {
        allow_pending: case.allow_pending,
    };
    assert_eq!(
        validate(&cv, opts),
        validate(&wv, opts),
        "{format}: validity differs\n{}",
        whole()
    );
    for policy in Policy::ALL {
        let want = Reference::new(policy, Format::Canonical)
            .reduce(reduce::Input::new(canonical).max_messages(&budget))
            .expect("reduces")
            .messages();
        let got = Reference::new(policy, format)
            .reduce(reduce::Input::new(&wire).max_messages(&budget))
            .expect("reduces")
            .messages();
        let got = from(&got).expect("reduced wire messages convert back");
        let want = as_reread(format, want);
        let (w, g) = (Value::Array(want), Value::Array(got));
        assert!(
            json_eq(&w, &g),
            "{policy} at budget {}: reducing the {format} form differs at {}\n{}",
            case.budget,
            first_difference(&w, &g).unwrap_or_default(),
            whole()
        );
    }
}

/// The canonical reference output as the wire output reads back: in
/// Anthropic, Bedrock and Gemini (spec §14.2 rule 6) a `tool` message that lost every result to orphan
/// removal and kept the user's text beside them (spec §1.6) is, on the
/// wire, a `user` message of that text.
fn as_reread(format: Format, messages: Vec<Value>) -> Vec<Value> {
    if !matches!(format, Format::Anthropic | Format::Bedrock | Format::Gemini) {
        return messages;
    }
    messages
        .into_iter()
        .map(|mut m| {
            let no_result = m["contents"].as_array().is_some_and(|items| {
                !items.is_empty() && items.iter().all(|i| i["$type"] != "functionResult")
            });
            if m["role"] == "tool" && no_result {
                m["role"] = Value::from("user");
            }
            m
        })
        .collect()
}
