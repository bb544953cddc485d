//! The JSON report (`--report-json FILE`). See [`to_json`] for its shape.

use super::{certificate, Run};
use crate::case::SPEC_VERSION;
use crate::certify::known_failures::KnownFailure;
use crate::check::Outcome;
use crate::protocol::Response;
use serde_json::{json, Value};

fn response_json(r: &Option<Response>) -> Value {
    r.as_ref().map_or(Value::Null, Response::to_json)
}

/// The run as one JSON document (`--report-json`).
pub fn to_json(run: &Run) -> Value {
    let levels: serde_json::Map<String, Value> = run
        .grade
        .levels
        .iter()
        .map(|(l, ok)| (l.name().to_string(), Value::Bool(*ok)))
        .collect();
    let clauses: serde_json::Map<String, Value> = run
        .grade
        .clauses
        .iter()
        .map(|(c, t)| {
            (c.id().to_string(), json!({"level": c.level().name(), "passed": t.passed, "failed": t.failed, "notJudged": t.not_judged}))
        })
        .collect();
    let results: Vec<Value> = run
        .results
        .iter()
        .map(|r| {
            let failures: Vec<Value> = r
                .verdicts
                .iter()
                .filter_map(|v| match &v.outcome {
                    Outcome::Fail(d) => Some(json!({"clause": v.clause.id(), "detail": d})),
                    _ => None,
                })
                .collect();
            let status = if r.skipped.is_some() { "skip" } else if failures.is_empty() { "pass" } else { "fail" };
            let mut o = json!({"id": r.case.id, "maxMessages": r.case.max_messages, "messages": r.case.messages.len(), "status": status});
            if !failures.is_empty() {
                o["failures"] = Value::Array(failures);
                o["stderrTail"] = Value::String(r.stderr_tail.clone());
            }
            if let Some(s) = &r.skipped {
                o["skipped"] = Value::String(s.clone());
            }
            o
        })
        .collect();
    let cxs: Vec<Value> = run
        .counterexamples
        .iter()
        .map(|c| {
            json!({
                "clause": c.clause.id(), "definition": c.clause.definition(), "caseId": c.case.id,
                "originalId": c.original_id, "maxMessages": c.case.max_messages, "messages": c.case.messages,
                "expected": c.expected.to_json(), "actual": response_json(&c.actual),
                "firstDifference": c.first_difference, "detail": c.detail, "tries": c.tries,
                "savedTo": c.saved_to.as_ref().map(|p| p.display().to_string()),
            })
        })
        .collect();
    let pairs = |v: &[KnownFailure]| -> Value {
        v.iter()
            .map(|e| json!({"case": e.case, "clause": e.clause}))
            .collect()
    };
    json!({
        "kit": {"name": "reducer-kit", "version": env!("CARGO_PKG_VERSION")},
        "spec": SPEC_VERSION,
        "policy": run.settings.policy.name(),
        "format": run.settings.format.name(),
        "mode": if run.settings.persistent { "persistent" } else { "per-case" },
        "command": run.settings.argv.iter().map(|a| a.to_string_lossy().into_owned()).collect::<Vec<_>>(),
        "seed": run.seed,
        "casesRun": run.grade.cases_run,
        "casesSkipped": run.grade.cases_skipped,
        "levels": levels,
        "clauses": clauses,
        "passed": run.grade.passed(),
        "certificate": certificate(run),
        "counterexamples": cxs,
        "expectedFailures": pairs(&run.known_failures.expected),
        "unexpectedFailures": pairs(&run.known_failures.unexpected),
        "nowPassing": pairs(&run.known_failures.now_passing),
        "results": results,
    })
}
