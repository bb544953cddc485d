//! What the language bindings (`python/`, `js/`) share: options read by
//! name with the command line's error texts, a request envelope or an
//! output given as a JSON value, and a generator config from a list of
//! knobs turned off and members set. Each returns `Err(text)`, which a
//! binding raises as its own error type (a Python `ReducerKitError`, a
//! JavaScript `Error`); no clause, format or generator rule is here.

use crate::formats::sniff::format_mismatch;
use crate::formats::Format;
use crate::generate::knob::{parse_knobs, without, Knob};
use crate::generate::Config;
use crate::protocol::{join_system, request_from_json, IncomingRequest, Protocol, Response};
use crate::terms::{Policy, Provider};
use serde_json::Value;

/// The names a value may take, for an error: `canonical, openai, ...`.
fn names<T: Copy>(all: &[T], name: impl Fn(T) -> &'static str) -> String {
    all.iter().map(|&x| name(x)).collect::<Vec<_>>().join(", ")
}

/// The wire format named `name` (`openai`), or an error listing the names.
pub fn format_named(name: &str) -> Result<Format, String> {
    Format::ALL
        .into_iter()
        .find(|f| f.name() == name)
        .ok_or_else(|| {
            format!(
                "unknown format {name:?}; the formats are: {}",
                names(&Format::ALL, Format::name)
            )
        })
}

/// The policy named `name` (`suffix`), or an error listing the names.
pub fn policy_named(name: &str) -> Result<Policy, String> {
    Policy::EVERY
        .into_iter()
        .find(|p| p.name() == name)
        .ok_or_else(|| {
            format!(
                "unknown policy {name:?}; the policies are: {}",
                names(&Policy::EVERY, Policy::name)
            )
        })
}

/// The provider profile named `name` (spec §15.5), `None` for none, or an
/// error listing the names.
pub fn provider_named(name: Option<&str>) -> Result<Option<Provider>, String> {
    let Some(name) = name else { return Ok(None) };
    Provider::ALL
        .into_iter()
        .find(|p| p.name() == name)
        .map(Some)
        .ok_or_else(|| {
            format!(
                "unknown provider {name:?}; the providers are: {}",
                names(&Provider::ALL, Provider::name)
            )
        })
}

/// Runner protocol 1 or 2 (spec §8, §13), or an error.
pub fn protocol_numbered(n: u32) -> Result<Protocol, String> {
    match n {
        1 => Ok(Protocol::V1),
        2 => Ok(Protocol::V2),
        _ => Err(format!("unknown protocol {n}; the protocols are 1 and 2")),
    }
}

/// A request envelope (`{"messages": [...], ...}`; a binding puts a bare
/// list of messages in one) whose `messages` are in `format`, read as the
/// kit reads a request (spec §8.1, §13.1). Errors are prefixed `what: `:
/// no `messages` array, messages of another format (the command line's
/// text), or a request the protocol cannot read.
pub fn read_request(v: &Value, format: Format, what: &str) -> Result<IncomingRequest, String> {
    let Some(messages) = v.get("messages").and_then(Value::as_array) else {
        return Err(format!(
            "{what}: expected an array of messages or a request envelope {{\"messages\": [...]}}"
        ));
    };
    format_mismatch(format, messages).map_err(|e| format!("{what}: {e}"))?;
    request_from_json(format, v).map_err(|e| format!("{what}: {e}"))
}

/// An output as `check` reads one: a bare array of messages,
/// `{"messages": [...]}` (with the format's top-level system member,
/// joined back as message 0) or `{"error": "..."}`; errors are prefixed
/// `output: `.
pub fn read_response(format: Format, v: Value) -> Result<Response, String> {
    const EXPECTED: &str =
        "output: expected an array of messages, {\"messages\": [...]} or {\"error\": \"...\"}";
    match v {
        Value::Array(m) => {
            format_mismatch(format, &m).map_err(|e| format!("output: {e}"))?;
            Ok(Response::Messages(m))
        }
        Value::Object(o) if o.contains_key("error") && !o.contains_key("messages") => {
            Response::from_json(&Value::Object(o)).map_err(|e| format!("output: {e}"))
        }
        Value::Object(mut o) => match o.remove("messages") {
            Some(Value::Array(m)) => {
                format_mismatch(format, &m).map_err(|e| format!("output: {e}"))?;
                let system = format.system_member().and_then(|k| o.remove(k));
                Ok(Response::Messages(join_system(system, m)))
            }
            _ => Err(EXPECTED.into()),
        },
        _ => Err(EXPECTED.into()),
    }
}

/// `base` with the knobs of `without_knobs` (comma-separated, as
/// `certify --without`) turned off and the members of `knobs` (an object
/// of `generate::Config` fields) set, sanitized for `format`: what a
/// binding's generator strategy draws from. Errors name an unknown knob or
/// member (with the names there are) or a member of the wrong type.
pub fn draw_config(
    base: Config,
    format: Format,
    without_knobs: &str,
    knobs: Option<Value>,
) -> Result<Config, String> {
    let off: Vec<Knob> = parse_knobs(without_knobs).map_err(|e| format!("without: {e}"))?;
    let mut cfg = without(base, &off);
    if let Some(Value::Object(k)) = knobs {
        let mut v = serde_json::to_value(&cfg).map_err(|e| e.to_string())?;
        for (key, x) in k {
            if v.get(&key).is_none() {
                let fields: Vec<String> = v
                    .as_object()
                    .map(|o| o.keys().cloned().collect())
                    .unwrap_or_default();
                return Err(format!(
                    "unknown generator knob {key:?}; the knobs are: {}",
                    fields.join(", ")
                ));
            }
            v[&key] = x;
        }
        cfg = serde_json::from_value(v).map_err(|e| format!("generator knobs: {e}"))?;
    }
    Ok(cfg.sanitize_for(format))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_are_read_with_the_command_lines_errors() {
        assert_eq!(format_named("openai"), Ok(Format::OpenAi));
        assert_eq!(
            format_named("xml"),
            Err("unknown format \"xml\"; the formats are: canonical, openai, anthropic, responses, gemini, bedrock".into())
        );
        assert_eq!(policy_named("repair"), Ok(Policy::Repair));
        assert_eq!(
            policy_named("last"),
            Err("unknown policy \"last\"; the policies are: turns, suffix, repair".into())
        );
        assert_eq!(provider_named(None), Ok(None));
        assert_eq!(
            protocol_numbered(3),
            Err("unknown protocol 3; the protocols are 1 and 2".into())
        );
    }

    #[test]
    fn outputs_and_requests_are_read_as_check_reads_them() {
        let m = json!([{"role": "user", "content": "Hi"}]);
        assert_eq!(
            read_response(Format::OpenAi, m.clone()),
            Ok(Response::Messages(m.as_array().unwrap().clone()))
        );
        assert_eq!(
            read_response(Format::OpenAi, json!(3)),
            Err("output: expected an array of messages, {\"messages\": [...]} or {\"error\": \"...\"}".into())
        );
        assert_eq!(
            read_request(&json!({"maxMessages": 1}), Format::OpenAi, "history").unwrap_err(),
            "history: expected an array of messages or a request envelope {\"messages\": [...]}"
        );
        let r = read_request(
            &json!({"maxMessages": 1, "messages": m}),
            Format::OpenAi,
            "history",
        )
        .unwrap();
        assert_eq!(r.messages.len(), 1);
    }

    #[test]
    fn a_draw_config_names_an_unknown_knob() {
        let base = crate::certify::generator_config(Format::Canonical, Protocol::V1);
        let e = draw_config(
            base.clone(),
            Format::Canonical,
            "",
            Some(json!({"nope": true})),
        )
        .unwrap_err();
        assert!(
            e.starts_with("unknown generator knob \"nope\"; the knobs are: "),
            "{e}"
        );
        let cfg = draw_config(
            base,
            Format::Canonical,
            "approvals",
            Some(json!({"pending": false})),
        )
        .unwrap();
        assert!(!cfg.approvals && !cfg.pending);
    }
}
