//! canonical → OpenAI → canonical is the identity on generated histories.
//!
//! On a history from [`config`] (OpenAI's, swarm on, pending tails): [`to_openai`]
//! succeeds; [`from_openai`] gives back a history equal to the input
//! (semantics §1 equality); `to_openai` of that gives the same OpenAI
//! messages again; the OpenAI views have the same roles and items (kinds and
//! ids, in order) as the canonical ones, so the validator says the same;
//! and for both policies, reducing the OpenAI form and converting back gives
//! the canonical reduction.

use crate::format::{view_history, Format, ItemKind, MessageView};
use crate::generate::{history, Config, GeneratedCase};
use crate::json::{first_difference, json_eq};
use crate::openai::{from_openai, to_openai};
use crate::reduce::{reduce, Policy};
use crate::validate::{validate, Options};
use arbitrary::Unstructured;
use serde_json::Value;

super::fuzz_input!();

/// The generator config of this target: [`Config::for_openai`] with
/// pending tails.
pub fn config() -> Config {
    Config {
        pending: true,
        ..Config::for_openai()
    }
}

fn decode(u: &mut Unstructured) -> arbitrary::Result<GeneratedCase> {
    history(u, &config())
}

/// Generates an OpenAI-carriable history from `u` and checks the round trip.
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
    let case = decode(u)?;
    check_roundtrip(&case);
    Ok(())
}

/// The generated case as a case-format line.
pub fn describe(bytes: &[u8]) -> String {
    match decode(&mut Unstructured::new(bytes)) {
        Ok(case) => format!(
            "format_roundtrip case: {}",
            super::case_line(&case, Policy::Turns)
        ),
        Err(e) => format!("format_roundtrip: undecodable input: {e}"),
    }
}

fn items(views: &[MessageView]) -> Vec<(String, Vec<(ItemKind, String)>)> {
    views
        .iter()
        .map(|v| {
            (
                v.role_text.clone(),
                v.items.iter().map(|i| (i.kind, i.id.clone())).collect(),
            )
        })
        .collect()
}

/// Checks every property of the module doc on one canonical history.
///
/// # Panics
///
/// When one fails.
pub fn check_roundtrip(case: &GeneratedCase) {
    let canonical = &case.messages;
    let whole = || super::json_line(canonical);
    let openai = to_openai(canonical).unwrap_or_else(|e| {
        panic!(
            "the OpenAI config made a history OpenAI cannot carry: {e}\n{}",
            whole()
        )
    });
    let back = from_openai(&openai)
        .unwrap_or_else(|e| panic!("from_openai rejects to_openai's output: {e}\n{}", whole()));
    let (a, b) = (Value::Array(canonical.clone()), Value::Array(back.clone()));
    assert!(
        json_eq(&a, &b),
        "canonical -> openai -> canonical differs at {}\n{}",
        first_difference(&a, &b).unwrap_or_default(),
        whole()
    );
    let again = to_openai(&back).expect("the round-tripped history converts");
    let (o1, o2) = (Value::Array(openai.clone()), Value::Array(again));
    assert!(
        json_eq(&o1, &o2),
        "openai -> canonical -> openai differs at {}\n{}",
        first_difference(&o1, &o2).unwrap_or_default(),
        whole()
    );
    let cv = view_history(Format::Canonical, canonical).expect("generated histories are readable");
    let ov = view_history(Format::OpenAi, &openai)
        .unwrap_or_else(|e| panic!("the OpenAI form is unreadable: {e}\n{}", whole()));
    assert_eq!(items(&cv), items(&ov), "views differ\n{}", whole());
    let opts = Options {
        allow_pending: case.allow_pending,
    };
    assert_eq!(
        validate(&cv, opts),
        validate(&ov, opts),
        "validity differs\n{}",
        whole()
    );
    let budget = Value::from(case.budget);
    for policy in Policy::ALL {
        let want = reduce(policy, Format::Canonical, canonical, &budget).expect("reduces");
        let got = reduce(policy, Format::OpenAi, &openai, &budget).expect("reduces");
        let got = from_openai(&got).expect("reduced OpenAI messages convert back");
        let (w, g) = (Value::Array(want), Value::Array(got));
        assert!(
            json_eq(&w, &g),
            "{policy} at budget {}: reducing the OpenAI form differs at {}\n{}",
            case.budget,
            first_difference(&w, &g).unwrap_or_default(),
            whole()
        );
    }
}
