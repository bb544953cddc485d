//! `reducer_kit_js.wasm`: the kit's library behind the npm package
//! `reducer-kit` (`js/index.js`, which documents each function for its
//! users, and `js/index.d.ts`). Every clause, format and generator rule is
//! the library's; this module only reads the names of formats, policies
//! and providers, passes JSON text across the boundary (JavaScript turns it
//! into values), and throws errors with the command line's text.
//!
//! `certify` runs the library's whole battery against a JavaScript
//! function of text (`InProcessSession`): the function is the `answer`
//! argument, called once per request, on the calling thread (WebAssembly
//! has no other). JavaScript wraps the user's reducer in it
//! (`js/index.js`); an async reducer is driven from a worker thread that
//! blocks on each answer (`js/worker.js`).

use reducer_kit::bindings;
use reducer_kit::certify::generator_config;
use reducer_kit::certify::job::Unwatched;
use reducer_kit::certify::report::{html, json as report_json, text};
use reducer_kit::certify::session::{InProcessSession, ReferenceSession, RunError};
use reducer_kit::check::{self as checker, ExtrasRef, Outcome, Request};
use reducer_kit::formats::{read_history, view_message, Format};
use reducer_kit::generate::knob::Knob;
use reducer_kit::generate::{history, seeded_case, Config};
use reducer_kit::protocol::{OutgoingRequest, Response};
use reducer_kit::reduce::{Input, Reference};
use reducer_kit::terms::provider::provider_violations;
use reducer_kit::terms::{Budget, BudgetFields, MessageView, Policy, Provider};
use reducer_kit::validate::{validate_history, Options};
use reducer_kit::{CertifyOptions, Protocol};
use serde_json::{json, Value};
use std::cell::RefCell;
use std::path::PathBuf;
use std::time::Duration;
use wasm_bindgen::prelude::*;

/// The error the command line would print (without `reducer-kit: error: `),
/// as a JavaScript `Error`.
fn error(text: impl std::fmt::Display) -> JsError {
    JsError::new(&text.to_string())
}

thread_local! {
    /// The message of the last panic (a bug of the kit), for `lastPanic`.
    static PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
    /// The reducer of the `certify` in progress: the sessions of a run must
    /// be `Send`, a JavaScript function is not; WebAssembly has one thread.
    static ANSWER: RefCell<Option<js_sys_free::Function>> = const { RefCell::new(None) };
    /// What the reducer threw that stopped the run (JavaScript rethrows it).
    static STOPPED_BY: RefCell<Option<JsValue>> = const { RefCell::new(None) };
}

/// The few JavaScript values this module calls, declared here rather than
/// through `js-sys`.
mod js_sys_free {
    use wasm_bindgen::prelude::*;

    #[wasm_bindgen]
    extern "C" {
        /// A JavaScript function.
        #[derive(Clone)]
        pub type Function;

        /// `f(text, marked)`: the answer's text, or what it threw.
        #[wasm_bindgen(method, catch, js_name = call)]
        pub fn call2(
            this: &Function,
            this_arg: &JsValue,
            text: &str,
            marked: Option<String>,
        ) -> Result<JsValue, JsValue>;
    }
}

/// Records the message of a panic (WebAssembly aborts on one): JavaScript
/// reads it with `lastPanic` and throws it as an internal error.
#[wasm_bindgen(start)]
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        let what = info
            .payload()
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| info.payload().downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "a panic".into());
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        PANIC.with(|p| *p.borrow_mut() = Some(format!("{what}{at}")));
    }));
}

/// The message of the panic that aborted the last call, if one did.
#[wasm_bindgen(js_name = lastPanic)]
pub fn last_panic() -> Option<String> {
    PANIC.with(|p| p.borrow_mut().take())
}

/// The kit's version.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").into()
}

fn format_named(name: &str) -> Result<Format, JsError> {
    bindings::format_named(name).map_err(error)
}

fn policy_named(name: &str) -> Result<Policy, JsError> {
    bindings::policy_named(name).map_err(error)
}

fn provider_named(name: Option<String>) -> Result<Option<Provider>, JsError> {
    bindings::provider_named(name.as_deref()).map_err(error)
}

fn protocol_numbered(n: u32) -> Result<Protocol, JsError> {
    bindings::protocol_numbered(n).map_err(error)
}

/// JSON text given by JavaScript (`JSON.stringify` of the user's value).
fn parse(text: &str, what: &str) -> Result<Value, JsError> {
    serde_json::from_str(text).map_err(|e| error(format!("{what}: not JSON: {e}")))
}

/// A request envelope's text (`{"messages": [...], ...}`; JavaScript puts
/// a bare array of messages in one), its `messages` in `format` (else the
/// command line's error), as the kit's list.
fn read_request(
    text: &str,
    format: Format,
    what: &str,
) -> Result<(Value, reducer_kit::protocol::IncomingRequest), JsError> {
    let v = parse(text, what)?;
    let incoming = bindings::read_request(&v, format, what).map_err(error)?;
    Ok((v, incoming))
}

/// The validator's violations of one history (`reducer-kit validate`), as
/// JSON: `[{"rule", "index", "id", "text"}]`.
#[wasm_bindgen]
pub fn validate(
    request: &str,
    format: &str,
    allow_pending: bool,
    provider: Option<String>,
) -> Result<String, JsError> {
    let format = format_named(format)?;
    let provider = provider_named(provider)?;
    let (_, incoming) = read_request(request, format, "history")?;
    let messages = &incoming.messages;
    let history = match read_history(format, messages) {
        Ok(h) => h,
        Err(e) => {
            let v =
                json!([{"rule": "malformed", "index": e.index, "id": null, "text": e.to_string()}]);
            return Ok(v.to_string());
        }
    };
    let mut out = Vec::new();
    for v in validate_history(&history, Options { allow_pending }) {
        out.push(json!({"rule": v.rule.id(), "index": v.index, "id": v.id, "text": v.to_string()}));
    }
    if let Some(p) = provider {
        let views: Option<Vec<MessageView>> = messages
            .iter()
            .enumerate()
            .map(|(i, m)| view_message(format, m, i).ok())
            .collect();
        for v in views.map_or_else(Vec::new, |v| provider_violations(p, &v)) {
            out.push(json!({
                "rule": v.rule.to_string(),
                "index": v.index,
                "id": null,
                "text": format!("{p} rejects it: {v}"),
            }));
        }
    }
    Ok(Value::Array(out).to_string())
}

/// The reference reducer's answer to a request (`reducer-kit reduce`), as
/// JSON: the response object in the format (`as_list`: the kit's list of
/// kept messages, a top-level system prompt as its leading pseudo-message),
/// or the error it refuses with, thrown.
#[wasm_bindgen]
pub fn reduce(
    request: &str,
    policy: &str,
    format: &str,
    provider: Option<String>,
    as_list: bool,
) -> Result<String, JsError> {
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
        Response::Messages(m) if as_list => Ok(Value::Array(m).to_string()),
        r => Ok(reducer_kit::protocol::response_json(format, &r).to_string()),
    }
}

/// Every clause's verdict on one answer to one request (`reducer-kit
/// check`), as JSON: `[{"clause", "level", "outcome", "detail",
/// "definition"}]`.
#[wasm_bindgen]
#[allow(clippy::too_many_arguments)]
pub fn check(
    request: &str,
    output: &str,
    policy: &str,
    format: &str,
    provider: Option<String>,
    summaries: bool,
    summary_tokens: Option<f64>,
) -> Result<String, JsError> {
    let (policy, format) = (policy_named(policy)?, format_named(format)?);
    let provider = provider_named(provider)?;
    let (v, incoming) = read_request(request, format, "input")?;
    let response = read_response(format, parse(output, "output")?)?;
    let budget = &incoming.budget;
    let messages = &incoming.messages;
    let summary = summaries.then(|| {
        if budget.max_tokens.is_none() {
            return 1;
        }
        summary_tokens
            .filter(|t| *t >= 0.0 && t.fract() == 0.0)
            .map(|t| t as u64)
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
    let out: Vec<Value> = verdicts
        .into_iter()
        .map(|v| {
            let (outcome, detail) = match &v.outcome {
                Outcome::Pass => ("pass", String::new()),
                Outcome::Fail(d) => ("fail", d.clone()),
                Outcome::NotJudged(d) => ("not judged", d.clone()),
            };
            let definition = if v2 {
                v.clause.definition_v2()
            } else {
                v.clause.definition()
            };
            json!({
                "clause": v.clause.id(),
                "level": v.clause.level().name(),
                "outcome": outcome,
                "detail": detail,
                "definition": definition,
            })
        })
        .collect();
    Ok(Value::Array(out).to_string())
}

/// An output as `check` reads one: a bare array of messages,
/// `{"messages": [...]}` (with the format's top-level system member) or
/// `{"error": "..."}`.
fn read_response(format: Format, v: Value) -> Result<Response, JsError> {
    bindings::read_response(format, v).map_err(error)
}

/// A whole number from JavaScript (a double), or the error naming `what`.
fn whole(x: f64, what: &str) -> Result<u64, JsError> {
    if x >= 0.0 && x.fract() == 0.0 && x <= 9_007_199_254_740_991.0 {
        Ok(x as u64)
    } else {
        Err(error(format!(
            "{what} must be a whole number >= 0, not {x}"
        )))
    }
}

/// Generated cases `0..count` of `seed` in the case format (`reducer-kit
/// generate`), as a JSON array.
#[wasm_bindgen]
pub fn generate(
    count: f64,
    seed: f64,
    format: &str,
    policy: &str,
    config: Option<String>,
) -> Result<String, JsError> {
    let (count, seed) = (whole(count, "count")?, whole(seed, "seed")?);
    let (format, policy) = (format_named(format)?, policy_named(policy)?);
    let cfg = match config {
        Some(c) => serde_json::from_value::<Config>(parse(&c, "config")?)
            .map_err(|e| error(format!("config is not a generator config: {e}")))?,
        None => generator_config(format, Protocol::V1),
    }
    .sanitize_for(format);
    let mut out = Vec::new();
    for n in 0..count {
        let case = seeded_case(seed, n, &cfg).to_case(format!("gen/{seed}/{n}"), policy);
        out.push(serde_json::to_value(&case).map_err(error)?);
    }
    Ok(Value::Array(out).to_string())
}

/// The generator's configuration for a draw: certify's for `format` and
/// `protocol`, the knobs of `without` off, then the members of `knobs`
/// (`generate::Config` fields) set.
fn draw_config(
    format: Format,
    protocol: Protocol,
    without_knobs: &str,
    knobs: Option<Value>,
) -> Result<Config, JsError> {
    bindings::draw_config(
        generator_config(format, protocol),
        format,
        without_knobs,
        knobs,
    )
    .map_err(error)
}

/// One history built by the generator from `data` (what a fast-check
/// arbitrary draws), in `format`, as JSON: `{"messages", "request",
/// "maxMessages", "allowPending"}`, or `undefined` when it has no form in
/// the format. With `swarm` (and the config's `swarm` on), the swarm draw
/// of the knobs (`Config::arbitrary_within`) reads those bytes rather than
/// the first of `data`, so that shrinking the history's bytes leaves the
/// knobs as they are, and shrinking these turns knobs off.
#[wasm_bindgen]
pub fn draw(
    data: &[u8],
    format: &str,
    protocol: u32,
    without: &str,
    knobs: Option<String>,
    swarm: Option<Vec<u8>>,
) -> Result<Option<String>, JsError> {
    let format = format_named(format)?;
    let protocol = protocol_numbered(protocol)?;
    let knobs = knobs.map(|k| parse(&k, "knobs")).transpose()?;
    let mut cfg = draw_config(format, protocol, without, knobs)?;
    if let (Some(bytes), true) = (swarm, cfg.swarm) {
        cfg = Config::arbitrary_within(&mut arbitrary::Unstructured::new(&bytes), &cfg)
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
    Ok(Some(out.to_string()))
}

/// The generator's knobs as JSON: `{"config": the config fields and their
/// values for a format, "without": the knob names of --without}`.
#[wasm_bindgen(js_name = generatorKnobs)]
pub fn generator_knobs(format: &str, protocol: u32) -> Result<String, JsError> {
    let cfg = generator_config(format_named(format)?, protocol_numbered(protocol)?);
    let v = serde_json::to_value(&cfg).map_err(error)?;
    let names: Vec<&str> = Knob::ALL.iter().map(|k| k.name()).collect();
    Ok(json!({"config": v, "without": names}).to_string())
}

/// The options of `certify`, as JavaScript gives them (JSON, camelCase).
fn certify_options(o: &Value) -> Result<(CertifyOptions, Option<String>), JsError> {
    let s = |k: &str| o.get(k).and_then(Value::as_str).map(str::to_owned);
    let n = |k: &str, d: u64| o.get(k).and_then(Value::as_u64).unwrap_or(d);
    let list = |k: &str| -> Vec<String> {
        o.get(k)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    };
    let paths = |k: &str| list(k).into_iter().map(PathBuf::from).collect::<Vec<_>>();
    let shrink_time = o.get("shrinkTime").and_then(Value::as_f64).unwrap_or(30.0);
    let options = CertifyOptions {
        command: vec![s("name").unwrap_or_else(|| "reducer".into()).into()],
        policy: policy_named(&s("policy").unwrap_or_else(|| "turns".into()))?,
        format: format_named(&s("format").unwrap_or_else(|| "canonical".into()))?,
        provider: provider_named(s("provider"))?,
        protocol: protocol_numbered(u32::try_from(n("protocol", 1)).unwrap_or(0))?,
        summaries: o.get("summaries").and_then(Value::as_bool).unwrap_or(false),
        declare: s("declare").unwrap_or_default(),
        without: s("without").unwrap_or_default(),
        with: s("with").unwrap_or_default(),
        // A function's budget is its caller's number: budgets written
        // otherwise only with `with: ["budget-spellings"]` (spec §8.12).
        in_process: true,
        persistent: true,
        jobs: Some(1),
        corpus: paths("corpus"),
        replay: paths("replay"),
        generated: n("cases", 2000),
        seed: n("seed", 1),
        only: list("only"),
        max_output: usize::try_from(n("maxOutput", 16 << 20)).unwrap_or(usize::MAX),
        shrink_tries: usize::try_from(n("shrinkTries", 200)).unwrap_or(usize::MAX),
        shrink_time: Duration::from_secs_f64(shrink_time.max(0.0)),
        stop_after_first: o
            .get("stopAfterFirst")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        ..CertifyOptions::default()
    };
    Ok((options, s("rerun")))
}

/// What `js/index.js` puts in place of a number it must keep exactly.
const MARK: &str = "\u{0}reducer-kit-number:";

/// Whether JavaScript reads the JSON number `text` to a double that it
/// writes back as the same text. Conservative: `false` for some numbers it
/// would (`1e-7`), which then reach JavaScript as a `JsonNumber`, written
/// back as they came all the same.
fn js_exact(text: &str) -> bool {
    if !text.contains(['.', 'e', 'E']) {
        // Whole numbers below 10^15 are exact doubles, written as digits.
        return text != "-0" && text.trim_start_matches('-').len() <= 15;
    }
    let Ok(x) = text.parse::<f64>() else {
        return false;
    };
    // JavaScript writes these without an exponent, the shortest digits
    // that read back the same, as Rust's `Display` does.
    x.is_finite() && (1e-6..1e21).contains(&x.abs()) && x.to_string() == text
}

/// `v` with each number that is not [`js_exact`] a string: [`MARK`] and
/// its text; whether one was.
fn mark(v: &mut Value) -> bool {
    match v {
        Value::Number(n) => {
            let text = n.to_string();
            if js_exact(&text) {
                return false;
            }
            *v = Value::String(format!("{MARK}{text}"));
            true
        }
        Value::Array(a) => a.iter_mut().fold(false, |m, x| mark(x) | m),
        Value::Object(o) => o.values_mut().fold(false, |m, x| mark(x) | m),
        _ => false,
    }
}

/// The JSON text `text` with its numbers that JavaScript would not write
/// back the same as marked strings (`js/index.js`'s `parse` reads them as
/// `JsonNumber`s), or `undefined` when it has none (JavaScript parses
/// `text` itself).
#[wasm_bindgen(js_name = markNumbers)]
pub fn marked(text: &str) -> Option<String> {
    let mut v: Value = serde_json::from_str(text).ok()?;
    mark(&mut v).then(|| v.to_string())
}

/// SIGINT's number: what a reducer that throws a stop stops the run as.
const SIGINT: i32 = 2;

/// One exchange with the reducer of the `certify` in progress: the
/// request's text in, the answer's text out (`js/index.js` makes the text
/// of a value, an error answer of what the reducer threw). What the
/// function itself throws stops the run; JavaScript rethrows it.
fn answer(text: &str) -> Result<String, RunError> {
    let f = ANSWER.with(|a| a.borrow().clone());
    let Some(f) = f else {
        return Err(RunError::Interrupted(SIGINT));
    };
    match f.call2(&JsValue::UNDEFINED, text, marked(text)) {
        Ok(v) => Ok(v
            .as_string()
            .unwrap_or_else(|| "<not JSON: not a string>".into())),
        Err(e) => {
            STOPPED_BY.with(|s| {
                s.borrow_mut().get_or_insert(e);
            });
            Err(RunError::Interrupted(SIGINT))
        }
    }
}

/// The whole battery of `reducer-kit certify` against `answer`, a function
/// from a request's text to its answer's text, with `options` (JSON: the
/// options of `certify` in `js/index.d.ts`), as JSON: `{"report": the JSON
/// report (as `--report-json` writes it), "text": the text report, "html":
/// the HTML report (as `--report-html` writes it), "failed": whether
/// `reducer-kit certify` would exit 1}`. What `answer`
/// throws stops the run and is thrown again.
#[wasm_bindgen]
pub fn certify(answer_fn: js_sys_free::Function, options: &str) -> Result<String, JsValue> {
    let o = parse(options, "options")?;
    let (options, rerun) = certify_options(&o)?;
    let (corpus, replay) = (options.corpus.clone(), options.replay.clone());
    let job = options.resolve().map_err(error)?;
    let mut plan = job.plan().map_err(error)?;
    let job = job.with_sessions(|settings| Box::new(InProcessSession::new(settings, answer)));
    ANSWER.with(|a| *a.borrow_mut() = Some(answer_fn));
    STOPPED_BY.with(|s| *s.borrow_mut() = None);
    // Each corpus case is handed to the run as it runs, as `certify`
    // does: a failure's example is held once (spec §9.1).
    let certified = job.run(&plan.hand_over(), &[], &Unwatched);
    ANSWER.with(|a| *a.borrow_mut() = None);
    if let Some(e) = STOPPED_BY.with(|s| s.borrow_mut().take()) {
        return Err(e);
    }
    let certified = certified.map_err(error)?;
    let run = certified.report(&job, &plan);
    let text_options = text::TextOptions {
        corpus,
        replay,
        rerun,
        ..text::TextOptions::default()
    };
    Ok(json!({
        "report": report_json::to_json(&run),
        "text": text::render(&run, &text_options),
        "html": html::render(&run, &text_options),
        "failed": certified.failed(false),
    })
    .to_string())
}
