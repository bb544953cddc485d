//! `certify(fn, ...)` in process: the whole battery of `reducer-kit
//! certify` (the corpus, generated cases, extra requests, shrinking,
//! levels, the reports) against a Python callable, through the library's
//! in-process hook (`Job::with_sessions`, `InProcessSession`): each request
//! is given to the callable as a dict (the request's members as on the
//! wire, `id` included under protocol 2), and its answer (a response dict,
//! or the list of kept messages) is read as a process's answer line is.
//!
//! The GIL: the run releases it and each exchange takes it back
//! (`Python::attach`), so the callable runs with it held, on the calling
//! thread for the cases and the counterexamples' shrinking (with `jobs=1`;
//! with more, on worker threads). An exception the callable raises is its error answer,
//! `{"error": str(e)}`; a `KeyboardInterrupt` (or any `BaseException` that
//! is no `Exception`) stops the run and is raised again when it has.

use crate::convert::{to_py, write_py};
use crate::{
    error, format_named, guard, json_float, policy_named, protocol_numbered, provider_named,
};
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use reducer_kit::certify::job::Unwatched;
use reducer_kit::certify::report::{html, json, text};
use reducer_kit::certify::session::{InProcessSession, RunError};
use reducer_kit::CertifyOptions;
use serde_json::{Map, Value};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What every session of one run shares: the callable, the `JsonFloat`
/// class, and the exception that stopped the run.
struct Shared {
    reducer: Py<PyAny>,
    json_float: Py<PyAny>,
    /// `reducer_kit._json.loads`: Python's json reader with exact numbers.
    loads: Py<PyAny>,
    stopped_by: Mutex<Option<PyErr>>,
}

/// SIGINT's number: what a `KeyboardInterrupt` stops the run as.
const SIGINT: i32 = 2;

impl Shared {
    /// One exchange: the request's text given to the callable as a dict,
    /// its answer as the text of a response line.
    fn answer(&self, py: Python<'_>, text: &str) -> Result<String, RunError> {
        if let Err(e) = py.check_signals() {
            return Err(self.stop(e));
        }
        // Python's json reader, one pass in C, its non-integers read by
        // `reducer_kit._json.read_float` (a float, or a JsonFloat that keeps
        // its text): the same objects as `convert::to_py` makes.
        let request = match self.loads.bind(py).call1((text,)) {
            Ok(r) => r,
            Err(e) => return Err(self.stop(e)),
        };
        // Under protocol 2 the answer echoes the request's id; a function
        // need not: it is put first when the answer has none.
        let id = text
            .strip_prefix("{\"id\":")
            .and_then(|rest| rest.split(',').next())
            .map(str::to_owned);
        let jf = self.json_float.bind(py);
        let mut out = Vec::with_capacity(text.len());
        let written = match self.reducer.bind(py).call1((request,)) {
            Ok(result) => {
                let is_dict = result.cast::<PyDict>().ok();
                match (&id, is_dict) {
                    // A list of messages: the response that holds them.
                    (_, None) if result.cast::<PyList>().is_ok() => {
                        out.extend_from_slice(b"{");
                        if let Some(id) = &id {
                            out.extend_from_slice(format!("\"id\":{id},").as_bytes());
                        }
                        out.extend_from_slice(b"\"messages\":");
                        write_py(&result, jf, &mut out).map(|()| out.push(b'}'))
                    }
                    (Some(id), Some(d)) if !d.contains("id").unwrap_or(true) => {
                        let mut rest = Vec::with_capacity(text.len());
                        write_py(&result, jf, &mut rest).map(|()| {
                            out.extend_from_slice(format!("{{\"id\":{id}").as_bytes());
                            if rest.len() > 2 {
                                out.push(b',');
                            }
                            out.extend_from_slice(&rest[1..]);
                        })
                    }
                    _ => write_py(&result, jf, &mut out),
                }
            }
            Err(e) if e.is_instance_of::<PyException>(py) => {
                let text = e
                    .value(py)
                    .str()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let text = if text.is_empty() {
                    e.get_type(py)
                        .name()
                        .map_or_else(|_| "an exception".into(), |n| n.to_string())
                } else {
                    text
                };
                let mut o = Map::new();
                if let Some(id) = &id {
                    o.insert("id".into(), serde_json::from_str(id).unwrap_or(Value::Null));
                }
                o.insert("error".into(), Value::String(text));
                return Ok(Value::Object(o).to_string());
            }
            Err(e) => return Err(self.stop(e)),
        };
        match written {
            Ok(()) => Ok(String::from_utf8(out).expect("JSON text is UTF-8")),
            // Not JSON: what it is, where the kit reads a line that is not
            // JSON (`protocol-json`, naming what was written).
            Err(why) => Ok(format!("<not JSON: {why}>")),
        }
    }

    /// Records `e`, which stops the run, and the run error that says so.
    fn stop(&self, e: PyErr) -> RunError {
        let mut s = self.stopped_by.lock().unwrap_or_else(|p| p.into_inner());
        s.get_or_insert(e);
        RunError::Interrupted(SIGINT)
    }
}

/// The whole battery against `reducer`: `{"report": the JSON report (as
/// `--report-json` writes it), "text": the text report, "html": the HTML
/// report (as `--report-html` writes it), "failed": whether `reducer-kit
/// certify` would exit 1}`.
#[pyfunction]
#[pyo3(signature = (
    reducer, *, name, policy, format, provider, protocol, summaries, declare, without,
    with_knobs, cases, seed, corpus, replay, only, shrink_tries, shrink_time, max_output, jobs, rerun,
    stop_after_first = false
))]
#[allow(clippy::too_many_arguments)]
pub fn certify<'py>(
    py: Python<'py>,
    reducer: Py<PyAny>,
    name: String,
    policy: &str,
    format: &str,
    provider: Option<&str>,
    protocol: u32,
    summaries: bool,
    declare: String,
    without: String,
    with_knobs: String,
    cases: u64,
    seed: u64,
    corpus: Vec<PathBuf>,
    replay: Vec<PathBuf>,
    only: Vec<String>,
    shrink_tries: usize,
    shrink_time: f64,
    max_output: usize,
    jobs: usize,
    rerun: Option<String>,
    stop_after_first: bool,
) -> PyResult<Bound<'py, PyDict>> {
    guard(|| {
        let options = CertifyOptions {
            command: vec![name.into()],
            policy: policy_named(policy)?,
            format: format_named(format)?,
            provider: provider_named(provider)?,
            protocol: protocol_numbered(protocol)?,
            summaries,
            declare,
            without,
            with: with_knobs,
            // A function's budget is its caller's int: budgets written
            // otherwise only with `with_=["budget-spellings"]` (spec §8.12).
            in_process: true,
            persistent: true,
            jobs: Some(jobs.max(1)),
            corpus: corpus.clone(),
            replay: replay.clone(),
            generated: cases,
            seed,
            only,
            max_output,
            shrink_tries,
            shrink_time: Duration::from_secs_f64(shrink_time.max(0.0)),
            stop_after_first,
            ..CertifyOptions::default()
        };
        let job = options.resolve().map_err(error)?;
        let mut plan = job.plan().map_err(error)?;
        let shared = Arc::new(Shared {
            reducer,
            json_float: json_float(py)?.unbind(),
            loads: py.import("reducer_kit._json")?.getattr("loads")?.unbind(),
            stopped_by: Mutex::new(None),
        });
        let for_sessions = shared.clone();
        let job = job.with_sessions(move |settings| {
            let shared = for_sessions.clone();
            Box::new(InProcessSession::new(settings, move |text: &str| {
                Python::attach(|py| shared.answer(py, text))
            }))
        });
        // Each corpus case is handed to the run as it runs, as `certify`
        // does: a failure's example is held once (spec §9.1).
        let handed = plan.hand_over();
        let certified = py.detach(|| job.run(&handed, &[], &Unwatched));
        drop(handed);
        if let Some(e) = shared
            .stopped_by
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
        {
            return Err(e);
        }
        let certified = certified.map_err(error)?;
        let run = certified.report(&job, &plan);
        let options = text::TextOptions {
            corpus,
            replay,
            rerun,
            ..text::TextOptions::default()
        };
        let out = PyDict::new(py);
        out.set_item(
            "report",
            to_py(py, &json::to_json(&run), shared.json_float.bind(py))?,
        )?;
        out.set_item("text", text::render(&run, &options))?;
        out.set_item("html", html::render(&run, &options))?;
        out.set_item("failed", certified.failed(false))?;
        Ok(out)
    })
}
