//! The JSON report (`--report-json FILE`): every case, every failure, the
//! counterexamples and the grade, as one JSON document (`spec/v1.md` §9.1
//! describes it too). See [`to_json`] for its shape.

use super::{certificate, Run};
use crate::case::SPEC_VERSION;
use crate::certify::known_failures::KnownFailure;
use crate::check::Outcome;
use crate::protocol::Response;
use serde_json::{json, Value};

fn response_json(r: &Option<Response>) -> Value {
    r.as_ref().map_or(Value::Null, Response::to_json)
}

/// The run as one JSON document (`--report-json`), written pretty with a
/// trailing newline. Members, in this order (absent ones are `null` unless
/// said otherwise):
///
/// | member | type | meaning |
/// |--------|------|---------|
/// | `kit` | `{"name", "version"}` | `"reducer-kit"` and its version |
/// | `spec` | integer | the spec version judged against ([`SPEC_VERSION`]) |
/// | `policy` | `"turns"` \| `"suffix"` | the policy the reducer claims |
/// | `format` | `"canonical"` \| `"openai"` \| `"anthropic"` | the wire format |
/// | `mode` | `"per-case"` \| `"persistent"` | how the reducer was run |
/// | `command` | array of strings | the reducer command, one element per argument |
/// | `seed` | integer or `null` | the seed of the generated cases; `null` when the run did not run the generated stream (`--replay`, `--case`, `--cases 0`) |
/// | `casesRun` | integer | cases run (not skipped) |
/// | `casesSkipped` | integer | cases the wire format cannot carry |
/// | `levels` | object | `protocol`, `safety`, `policy`, `exact`: `true` when that level and every lower one passed |
/// | `clauses` | object | per clause id judged for the policy, in report order: `{"level", "passed", "failed", "notJudged"}` (counts of cases run) |
/// | `passed` | bool | every level passed |
/// | `certificate` | string | the certificate line ([`super::certificate`]) |
/// | `counterexamples` | array | one per failing clause, see below |
/// | `expectedFailures` | array of `{"case", "clause"}` | failures listed in `--expect-fail` |
/// | `unexpectedFailures` | array of `{"case", "clause"}` | failures not listed (they fail the run) |
/// | `nowPassing` | array of `{"case", "clause"}` | listed failures whose case ran and passed the clause |
/// | `results` | array | one per case, in case order, see below |
///
/// A result: `id` (the case id), `maxMessages` (as sent), `messages` (how
/// many input messages), `status` (`"pass"`, `"fail"` or `"skip"`); with
/// `"fail"`, `failures` (`[{"clause", "detail"}]`, protocol clauses first)
/// and `stderrTail` (the reducer's stderr tail, possibly empty); with
/// `"skip"`, `skipped` (why, e.g. `no OpenAI form: message 2: ...`).
///
/// A counterexample: `clause` (its id), `definition` (the clause's
/// definition), `caseId` (`fail/<16 hex>`), `originalId` (the case it was
/// shrunk from), `maxMessages`, `messages` (the minimal input, canonical),
/// `expected` (the reference's answer, a protocol response object in the
/// wire format, an Anthropic `system` as the leading pseudo-message),
/// `actual` (the reducer's, likewise, or `null` when it gave none),
/// `firstDifference` (the first JSON path where they differ, or `null`),
/// `detail` (the failure on the minimal case), `tries` (candidate runs
/// while shrinking), `savedTo` (the case file written by
/// `--save-failures`, or `null`).
///
/// # Examples
///
/// A run of `naive_last_n.py` (abridged):
///
/// ```json
/// {
///   "kit": {"name": "reducer-kit", "version": "0.1.0"},
///   "spec": 1, "policy": "turns", "format": "canonical", "mode": "persistent",
///   "command": ["python3", "examples/reducers/naive_last_n.py", "--persistent"],
///   "seed": 1, "casesRun": 548, "casesSkipped": 0,
///   "levels": {"protocol": true, "safety": false, "policy": false, "exact": false},
///   "clauses": {"protocol-json": {"level": "protocol", "passed": 548, "failed": 0, "notJudged": 0}},
///   "passed": false,
///   "certificate": "certificate: reducer-kit 0.1.0 spec v1 policy turns format canonical: levels passed [protocol]; 548 cases run, 0 skipped; seed 1",
///   "counterexamples": [{
///     "clause": "no-orphan-result",
///     "definition": "every result in the output has its call in an earlier output message",
///     "caseId": "fail/8fd8d118b401c36c", "originalId": "spec/suffix-empty-output",
///     "maxMessages": 1, "messages": [{"role": "assistant", "contents": []}],
///     "expected": {"messages": []}, "actual": {"messages": [{"role": "tool", "contents": []}]},
///     "firstDifference": "$[0]", "detail": "output message 0: result \"c1\" has no call earlier in the output",
///     "tries": 18, "savedTo": null
///   }],
///   "expectedFailures": [], "unexpectedFailures": [{"case": "seed/order-shipment-suffix-2", "clause": "whole-turns"}],
///   "nowPassing": [],
///   "results": [
///     {"id": "seed/order-shipment-suffix-2", "maxMessages": 2, "messages": 6, "status": "fail",
///      "failures": [{"clause": "whole-turns", "detail": "the turn starting at input message 0 is kept in part (1 of 5 messages; input message 0 dropped)"}],
///      "stderrTail": ""},
///     {"id": "gen/1/0", "maxMessages": 3, "messages": 5, "status": "pass"}
///   ]
/// }
/// ```
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
