//! `reducer_kit._native`: the kit's library behind the Python package
//! `reducer_kit` (`python/reducer_kit/`, which documents each function for
//! its users). Every clause, format and generator rule is the library's;
//! this module only converts values ([`convert`]), reads the names of
//! formats, policies and providers, and turns errors into
//! `reducer_kit.ReducerKitError` with the command line's text. No panic
//! crosses the boundary: each function runs under [`guard`].

mod certify;
mod convert;

use convert::{from_py_arg, to_py};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use reducer_kit::bindings;
use reducer_kit::certify::generator_config;
use reducer_kit::certify::session::ReferenceSession;
use reducer_kit::check::{self as checker, ExtrasRef, Outcome, Request};
use reducer_kit::formats::{read_history, view_message, Format};
use reducer_kit::generate::knob::Knob;
use reducer_kit::generate::{history, seeded_case, Config};
use reducer_kit::protocol::{OutgoingRequest, Response};
use reducer_kit::reduce::{Input, Reference};
use reducer_kit::terms::provider::provider_violations;
use reducer_kit::terms::{Budget, BudgetFields, MessageView, Policy, Provider};
use reducer_kit::validate::{validate_history, Options};
use reducer_kit::Protocol;
use serde_json::{json, Value};
use std::ffi::OsString;

/// mimalloc for the kit's own allocations (python/Cargo.toml).
#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

create_exception!(
    _native,
    ReducerKitError,
    PyValueError,
    "An error of reducer-kit, with the command line's text: an unknown format, policy, knob or declaration, options that do not go together, input that is not a history in the chosen format, a budget the reference refuses."
);

/// The error the command line would print (without `reducer-kit: error: `).
fn error(text: impl std::fmt::Display) -> PyErr {
    ReducerKitError::new_err(text.to_string())
}

/// Runs `f`, a panic turned into a `ReducerKitError` (a bug of the kit:
/// never a Rust panic across the boundary).
pub(crate) fn guard<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => {
            let what = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "a panic".into());
            Err(error(format!(
                "internal error (a bug of reducer-kit, please report it): {what}"
            )))
        }
    }
}

pub(crate) fn format_named(name: &str) -> PyResult<Format> {
    bindings::format_named(name).map_err(error)
}

pub(crate) fn policy_named(name: &str) -> PyResult<Policy> {
    bindings::policy_named(name).map_err(error)
}

pub(crate) fn provider_named(name: Option<&str>) -> PyResult<Option<Provider>> {
    bindings::provider_named(name).map_err(error)
}

pub(crate) fn protocol_numbered(n: u32) -> PyResult<Protocol> {
    bindings::protocol_numbered(n).map_err(error)
}

/// The `reducer_kit.JsonFloat` class, which [`convert`] makes and reads.
pub(crate) fn json_float(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    py.import("reducer_kit._json")?.getattr("JsonFloat")
}

/// A request envelope given from Python (`{"messages": [...], ...}`, the
/// Python side puts a bare list of messages in one), its `messages` in
/// `format` (else the command line's error), as the kit's list.
fn read_request(
    request: &Bound<'_, PyAny>,
    format: Format,
    what: &str,
) -> PyResult<(Value, reducer_kit::protocol::IncomingRequest)> {
    let jf = json_float(request.py())?;
    let v = from_py_arg(request, &jf, what)?;
    let incoming = bindings::read_request(&v, format, what).map_err(error)?;
    Ok((v, incoming))
}

/// `reducer-kit ARGS...` in this process: the exit code.
#[pyfunction]
fn cli_main(py: Python<'_>, argv: Vec<OsString>) -> PyResult<u8> {
    guard(|| Ok(py.detach(|| reducer_kit::cli::run_status(argv))))
}

/// The validator's violations of one history (`reducer-kit validate`).
#[pyfunction]
#[pyo3(signature = (request, format, allow_pending, provider=None))]
fn validate<'py>(
    py: Python<'py>,
    request: &Bound<'py, PyAny>,
    format: &str,
    allow_pending: bool,
    provider: Option<&str>,
) -> PyResult<Bound<'py, PyList>> {
    guard(|| {
        let format = format_named(format)?;
        let provider = provider_named(provider)?;
        let (_, incoming) = read_request(request, format, "history")?;
        let messages = &incoming.messages;
        let out = PyList::empty(py);
        let history = match read_history(format, messages) {
            Ok(h) => h,
            Err(e) => {
                let d = PyDict::new(py);
                d.set_item("rule", "malformed")?;
                d.set_item("index", e.index)?;
                d.set_item("id", py.None())?;
                d.set_item("text", e.to_string())?;
                out.append(d)?;
                return Ok(out);
            }
        };
        for v in validate_history(&history, Options { allow_pending }) {
            let d = PyDict::new(py);
            d.set_item("rule", v.rule.id())?;
            d.set_item("index", v.index)?;
            d.set_item("id", &v.id)?;
            d.set_item("text", v.to_string())?;
            out.append(d)?;
        }
        if let Some(p) = provider {
            let views: Option<Vec<MessageView>> = messages
                .iter()
                .enumerate()
                .map(|(i, m)| view_message(format, m, i).ok())
                .collect();
            for v in views.map_or_else(Vec::new, |v| provider_violations(p, &v)) {
                let d = PyDict::new(py);
                d.set_item("rule", v.rule.to_string())?;
                d.set_item("index", v.index)?;
                d.set_item("id", py.None())?;
                d.set_item("text", format!("{p} rejects it: {v}"))?;
                out.append(d)?;
            }
        }
        Ok(out)
    })
}

/// The reference reducer's answer to a request (`reducer-kit reduce`):
/// the response object in the format (`as_list`: the kit's list of kept
/// messages, a top-level system prompt as its leading pseudo-message), or
/// the error it refuses with.
#[pyfunction]
#[pyo3(signature = (request, policy, format, provider=None, as_list=false))]
fn reduce<'py>(
    py: Python<'py>,
    request: &Bound<'py, PyAny>,
    policy: &str,
    format: &str,
    provider: Option<&str>,
    as_list: bool,
) -> PyResult<Bound<'py, PyAny>> {
    guard(|| {
        let (policy, format) = (policy_named(policy)?, format_named(format)?);
        let provider = provider_named(provider)?;
        let (v, _) = read_request(request, format, "history")?;
        let reference = ReferenceSession {
            policy,
            format,
            provider,
            protocol: Protocol::V2,
        };
        match reference.respond(&v) {
            Response::Error(e) => Err(error(e)),
            Response::Messages(m) if as_list => to_py(py, &Value::Array(m), &json_float(py)?),
            r => to_py(
                py,
                &reducer_kit::protocol::response_json(format, &r),
                &json_float(py)?,
            ),
        }
    })
}

/// Every clause's verdict on one answer to one request (`reducer-kit
/// check`).
#[pyfunction]
#[pyo3(signature = (request, output, policy, format, provider=None, summaries=false, summary_tokens=None))]
#[allow(clippy::too_many_arguments)]
fn check<'py>(
    py: Python<'py>,
    request: &Bound<'py, PyAny>,
    output: &Bound<'py, PyAny>,
    policy: &str,
    format: &str,
    provider: Option<&str>,
    summaries: bool,
    summary_tokens: Option<u64>,
) -> PyResult<Bound<'py, PyList>> {
    guard(|| {
        let (policy, format) = (policy_named(policy)?, format_named(format)?);
        let provider = provider_named(provider)?;
        let (v, incoming) = read_request(request, format, "input")?;
        let jf = json_float(py)?;
        let response = read_response(format, from_py_arg(output, &jf, "output")?)?;
        let budget = &incoming.budget;
        let messages = &incoming.messages;
        let summary = summaries.then(|| {
            if budget.max_tokens.is_none() {
                return 1;
            }
            summary_tokens
                .or_else(|| v.get("summaryTokens").and_then(Value::as_u64))
                .unwrap_or(1)
        });
        let req = Request {
            format,
            policy,
            budget,
            messages,
            summary,
            declared: Default::default(),
            provider,
        };
        let plain = Reference::new(policy, format);
        let reference = Response::from(
            plain
                .with_provider(provider)
                .reduce(Input::new(messages).budget_fields(budget)),
        );
        let less_summary = summary.and_then(|s| {
            let b = Budget::read(budget, messages.len()).ok()?;
            Some(Response::from(
                plain.reduce(Input::new(messages).budget(&b.less(s))),
            ))
        });
        let extras = ExtrasRef {
            reference: Some(&reference),
            reference_less_summary: less_summary.as_ref(),
            ..ExtrasRef::default()
        };
        let verdicts =
            checker::check(&req, &response, extras).map_err(|e| error(format!("input: {e}")))?;
        let v2 = budget.max_tokens.is_some() || summaries;
        let out = PyList::empty(py);
        for v in verdicts {
            let (outcome, detail) = match &v.outcome {
                Outcome::Pass => ("pass", String::new()),
                Outcome::Fail(d) => ("fail", d.clone()),
                Outcome::NotJudged(d) => ("not judged", d.clone()),
            };
            let d = PyDict::new(py);
            d.set_item("clause", v.clause.id())?;
            d.set_item("level", v.clause.level().name())?;
            d.set_item("outcome", outcome)?;
            d.set_item("detail", detail)?;
            let definition = if v2 {
                v.clause.definition_v2()
            } else {
                v.clause.definition()
            };
            d.set_item("definition", definition)?;
            out.append(d)?;
        }
        Ok(out)
    })
}

/// An output as `check` reads one: a bare array of messages,
/// `{"messages": [...]}` (with the format's top-level system member) or
/// `{"error": "..."}`.
fn read_response(format: Format, v: Value) -> PyResult<Response> {
    bindings::read_response(format, v).map_err(error)
}

/// Generated cases `0..count` of `seed` in the case format
/// (`reducer-kit generate`).
#[pyfunction]
#[pyo3(signature = (count, seed, format, policy, config=None))]
fn generate<'py>(
    py: Python<'py>,
    count: u64,
    seed: u64,
    format: &str,
    policy: &str,
    config: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyList>> {
    guard(|| {
        let (format, policy) = (format_named(format)?, policy_named(policy)?);
        let jf = json_float(py)?;
        let cfg = match config {
            Some(c) => {
                let v = from_py_arg(c, &jf, "config")?;
                serde_json::from_value::<Config>(v)
                    .map_err(|e| error(format!("config is not a generator config: {e}")))?
            }
            None => generator_config(format, Protocol::V1),
        }
        .sanitize_for(format);
        let out = PyList::empty(py);
        for n in 0..count {
            let case = seeded_case(seed, n, &cfg).to_case(format!("gen/{seed}/{n}"), policy);
            let v = serde_json::to_value(&case).map_err(error)?;
            out.append(to_py(py, &v, &jf)?)?;
        }
        Ok(out)
    })
}

/// The generator's configuration for a draw: certify's for `format` and
/// `protocol`, the knobs of `without` off, then the members of `knobs`
/// (`generate::Config` fields) set.
fn draw_config(
    format: Format,
    protocol: Protocol,
    without_knobs: &str,
    knobs: Option<Value>,
) -> PyResult<Config> {
    bindings::draw_config(
        generator_config(format, protocol),
        format,
        without_knobs,
        knobs,
    )
    .map_err(error)
}

/// One history built by the generator from `data` (what a Hypothesis
/// strategy draws), in `format`: `{"messages", "request", "maxMessages",
/// "allowPending"}`, or `None` when it has no form in the format. With
/// `swarm` (and the config's `swarm` on), the swarm draw of the knobs
/// (`Config::arbitrary_within`) reads those bytes rather than the first of
/// `data`, so that shrinking the history's bytes leaves the knobs as they
/// are, and shrinking these turns knobs off.
#[pyfunction]
#[pyo3(signature = (data, format, protocol, without="", knobs=None, swarm=None))]
fn draw<'py>(
    py: Python<'py>,
    data: &[u8],
    format: &str,
    protocol: u32,
    without: &str,
    knobs: Option<&Bound<'py, PyAny>>,
    swarm: Option<&[u8]>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    guard(|| {
        let format = format_named(format)?;
        let protocol = protocol_numbered(protocol)?;
        let jf = json_float(py)?;
        let knobs = knobs.map(|k| from_py_arg(k, &jf, "knobs")).transpose()?;
        let mut cfg = draw_config(format, protocol, without, knobs)?;
        if let (Some(bytes), true) = (swarm, cfg.swarm) {
            cfg = Config::arbitrary_within(&mut arbitrary::Unstructured::new(bytes), &cfg)
                .map_err(|e| error(format!("the generator: {e}")))?
                .sanitize_for(format);
        }
        let case = history(&mut arbitrary::Unstructured::new(data), &cfg)
            .map_err(|e| error(format!("the generator: {e}")))?;
        let wire = if format == Format::Canonical {
            case.messages.clone()
        } else {
            match reducer_kit::to_wire(format, &case.messages) {
                Ok(w) => w,
                Err(_) => return Ok(None),
            }
        };
        let budget = match (protocol, &case.costs) {
            (Protocol::V2, Some(_)) if wire.len() == case.messages.len() => case.budget_fields(),
            _ => BudgetFields::messages(Value::from(case.budget)),
        };
        let request = OutgoingRequest::new(format, &budget, None, &wire).to_value();
        let out = json!({
            "messages": wire,
            "request": request,
            "maxMessages": case.budget,
            "allowPending": case.allow_pending,
        });
        Ok(Some(to_py(py, &out, &jf)?))
    })
}

/// The generator's knobs: `(config fields and their values for a format,
/// knob names of --without)`.
#[pyfunction]
fn generator_knobs<'py>(
    py: Python<'py>,
    format: &str,
    protocol: u32,
) -> PyResult<(Bound<'py, PyAny>, Vec<&'static str>)> {
    guard(|| {
        let cfg = generator_config(format_named(format)?, protocol_numbered(protocol)?);
        let v = serde_json::to_value(&cfg).map_err(error)?;
        Ok((
            to_py(py, &v, &json_float(py)?)?,
            Knob::ALL.iter().map(|k| k.name()).collect(),
        ))
    })
}

/// JSON text as Python objects, numbers exact ([`convert`]).
#[pyfunction]
fn loads<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    guard(|| {
        let v: Value = serde_json::from_str(text).map_err(|e| error(format!("not JSON: {e}")))?;
        to_py(py, &v, &json_float(py)?)
    })
}

/// Python objects as compact JSON text, numbers exact ([`convert`]).
#[pyfunction]
fn dumps(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    guard(|| Ok(from_py_arg(obj, &json_float(obj.py())?, "dumps")?.to_string()))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ReducerKitError", m.py().get_type::<ReducerKitError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(cli_main, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(reduce, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(generate, m)?)?;
    m.add_function(wrap_pyfunction!(draw, m)?)?;
    m.add_function(wrap_pyfunction!(generator_knobs, m)?)?;
    m.add_function(wrap_pyfunction!(certify::certify, m)?)?;
    m.add_function(wrap_pyfunction!(loads, m)?)?;
    m.add_function(wrap_pyfunction!(dumps, m)?)?;
    Ok(())
}
