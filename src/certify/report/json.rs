//! The JSON report (`--report-json FILE`): every case, every failure, the
//! counterexamples and the grade, as one JSON document (`spec/spec.md` §9.1
//! describes it too). See [`to_json`] for its shape.

use super::{certificate, FirstFailure, Run};
use crate::certify::known_failures::KnownFailure;
use crate::certify::run::CaseRecord;
use crate::protocol::Response;
use crate::terms::BudgetFields;
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
/// | `spec` | integer | the spec version judged against, as the certificate line names it ([`super::spec_version`]): 2 with `--protocol 2`, a format of spec §14, `--provider` or `--summaries`, else 1 |
/// | `policy` | `"turns"` \| `"suffix"` | the policy the reducer claims |
/// | `format` | `"canonical"` \| `"openai"` \| `"anthropic"` \| `"responses"` \| `"gemini"` \| `"bedrock"` | the wire format |
/// | `provider` | string, only with `--provider` | the provider profile (spec §15.5) |
/// | `mode` | `"per-case"` \| `"persistent"` \| `"in-process"` | how the reducer was run (`in-process`: [`crate::certify::job::Job::with_sessions`]) |
/// | `summaries` | `true` | only in a run with `--summaries` (spec §12) |
/// | `command` | array of strings | the reducer command, one element per argument |
/// | `declared` | array of strings | the declarations of `--declare` (spec §16), in the order of [`crate::terms::declare::NAMES`] (empty without it) |
/// | `seed` | integer or `null` | the seed of the generated cases; `null` when the run did not run the generated stream (`--replay`, `--case`, `--cases 0`) |
/// | `casesRun` | integer | cases run (not skipped) |
/// | `casesSkipped` | integer | cases the wire format cannot carry, that need protocol 2 or `--summaries`, or that the reducer answered `unsupported` |
/// | `casesUnsupported` | integer | of those, the cases the reducer answered `unsupported` (spec §13.7) |
/// | `casesPlanned` | object | `corpus`, `generated`: cases planned from each source; `corpusDuplicates`, `generatedDuplicates`: cases dropped as repeats of an earlier one; `without`: cases skipped for a knob of `--without` |
/// | `without` | array of strings | the knobs of `--without` (empty without it) |
/// | `with` | array of strings | the knobs of `--with` (empty without it) |
/// | `outside` | array of strings | the shapes outside the run (spec §9.5): a case that shows one is skipped |
/// | `restarts` | integer | persistent mode: how many times a reducer process was started again (after a failure, unrequested output or a clean exit; spec §8.3); 0 in per-case mode |
/// | `levels` | object | `protocol`, `safety`, `policy`, `exact`: `true` when that level and every lower one passed |
/// | `clauses` | object | per clause id judged for the policy, in report order: `{"level", "passed", "failed", "defects", "invalidInput", "notJudged"}` (counts of cases run; `failed` is `defects`, on a valid input, plus `invalidInput`, on an input that breaks a validator rule: spec §9.2) |
/// | `passed` | bool | every level passed, and the run was not stopped |
/// | `firstDefect` | object, only in a run with a defect | `case` (its id), `seconds` (from the run's start until the first case with a defect was judged, in the order cases finished; spec §9.1) |
/// | `firstDifferenceFromPolicy` | object, only in a run with no defect whose answers fail policy or exact clauses on a valid input (spec §9.3) | `case`, `seconds`, as `firstDefect`, for the first such case (the text report's `no defect; first difference from the policy`) |
/// | `stopped` | object, only when the run stopped feeding the reducer | `unansweredInARow`, `notRun`, `lastFailure`, `stderrLine` (spec §8.5) |
/// | `stoppedAtFirstDefect` | object, only when `--stop-after-first` stopped the run before its end | `case` (the first defect's), `notRun` (cases not run) |
/// | `certificate` | string | the certificate line ([`super::certificate`]) |
/// | `hints` | array of strings | what the answers suggest to change or declare, each given only when they show it: the text report's `hint:` lines without the prefix ([`super::text::hints`]) |
/// | `counterexamples` | array | one per failing clause, see below |
/// | `expectedFailures` | array of `{"case", "clause"}` | failures listed in `--expect-fail` |
/// | `unexpectedFailures` | array of `{"case", "clause"}` | failures on a valid input not listed (they fail the run) |
/// | `nowPassing` | array of `{"case", "clause"}` | listed failures whose case ran and passed the clause |
/// | `results` | array | one per case, in case order, see below |
///
/// A result: `id` (the case id), `maxMessages` (as sent; under protocol 2
/// `maxTokens` in its place for a token budget), `messages` (how many input
/// messages), `status` (`"pass"`, `"fail"` or `"skip"`), `validInput`
/// (whether its input passes the validator, spec §9.2); with
/// `"fail"`, `failures` (`[{"clause", "detail"}]`, protocol clauses first,
/// each detail cut after [`crate::certify::run::MAX_DETAIL`] characters)
/// and `stderrTail` (the reducer's stderr tail, possibly empty); with
/// `"skip"`, `skipped` (why, e.g. `no OpenAI form: message 2: ...`).
///
/// A counterexample: `clause` (its id), `definition` (the clause's
/// definition), `caseId` (`fail/<16 hex>`), `originalId` (the case it was
/// shrunk from), `maxMessages` (for a token budget `maxTokens`, `tokens`
/// and `countPinned` in its place, and `summaryTokens` in a summaries run),
/// `messages` (the minimal input, canonical),
/// `expected` (the reference's answer, a protocol response object in the
/// wire format, an Anthropic `system` as the leading pseudo-message),
/// `actual` (the reducer's, likewise, or `null` when it gave none),
/// `firstDifference` (the first JSON path where they differ, or `null`),
/// `detail` (the failure on the minimal case), `tries` (candidate runs
/// while shrinking), `stoppedByTime` (shrinking stopped at
/// `--shrink-time`), `cases` (how many failing cases of the run fail the
/// clause this way), `validInput` (whether the minimal case's input is
/// valid; those on valid input come first), `savedTo` (the case file written by
/// `--save-failures`, or `null`), `drawnAs` (the index of the text and
/// HTML reports' counterexample that draws it: one input failing several
/// clauses with the same answers is drawn once,
/// [`crate::certify::counterexample::grouped_by_input`]). There is one per
/// kind of failure of a clause (at most three per clause). A counterexample
/// whose input or answer is over
/// [`COPY_LIMIT`](crate::certify::counterexample::COPY_LIMIT) bytes is
/// reported by reference in the file [`write_pretty`] writes (the report
/// `to_json` holds in memory for the Python and JavaScript packages copies
/// it: there is no file to name): `messages`, `expected` and `actual` are `null`,
/// `omitted` gives `messages` and `bytes` (the input's), `expectedMessages`
/// and `actualMessages` (`null` without an answer with messages), and
/// `savedTo` names its case file ([`crate::certify::counterexample::save_too_large`]).
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
///   "seed": 1, "casesRun": 548, "casesSkipped": 0, "restarts": 0,
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
///     "tries": 18, "stoppedByTime": false, "cases": 1, "savedTo": null, "drawnAs": 0
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
    let mut doc = head(run, false);
    doc["unexpectedFailures"] = run
        .known_failures
        .unexpected_in(run.results)
        .map(|e| pair(&e))
        .collect();
    doc["results"] = run.results.iter().map(|r| result_json(&r)).collect();
    doc
}

/// A known-failure pair as the report writes it.
fn pair(e: &KnownFailure) -> Value {
    json!({"case": e.case, "clause": e.clause})
}

/// Writes the report of [`to_json`] to `out`, pretty, with a trailing
/// newline: the same bytes as `crate::json::to_string_pretty(&to_json(run))`
/// (bounded: levels deeper than [`crate::json::PRETTY_DEPTH`] compact)
/// and a `"\n"`, but one result at a time, so that a run of 20,000 cases
/// never holds its whole report in memory (spec §8.8); and a counterexample
/// over [`COPY_LIMIT`](crate::certify::counterexample::COPY_LIMIT) bytes
/// by reference (spec §9.1), where [`to_json`] copies it.
///
/// # Errors
///
/// The I/O error writing to `out`.
pub fn write_pretty(run: &Run, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut doc = head(run, true);
    doc["unexpectedFailures"] = Value::String(crate::json::STREAMED.into());
    doc["results"] = Value::String(crate::json::STREAMED.into());
    let text = crate::json::to_string_pretty(&doc)?;
    let placeholder = serde_json::to_string(crate::json::STREAMED)?;
    let parts: Vec<&str> = text.split(placeholder.as_str()).collect();
    let [before, between, after] = parts.as_slice() else {
        unreachable!("the two streamed members, once each");
    };
    out.write_all(before.as_bytes())?;
    crate::json::write_array_at1(
        out,
        run.known_failures
            .unexpected_in(run.results)
            .map(|e| pair(&e)),
    )?;
    out.write_all(between.as_bytes())?;
    crate::json::write_array_at1(out, run.results.iter().map(|r| result_json(&r)))?;
    out.write_all(after.as_bytes())?;
    out.write_all(b"\n")
}

/// One result of the report.
fn result_json(r: &CaseRecord) -> Value {
    let failures: Vec<Value> = r
        .failures
        .iter()
        .map(|(c, d)| json!({"clause": c.id(), "detail": d}))
        .collect();
    let status = if r.skipped().is_some() {
        "skip"
    } else if failures.is_empty() {
        "pass"
    } else {
        "fail"
    };
    let mut o = json!({"id": r.id});
    let budget = BudgetFields {
        max_messages: r.max_messages.clone(),
        max_tokens: r.max_tokens.clone(),
        ..BudgetFields::default()
    };
    budget_members(&mut o, &budget, false);
    o["messages"] = json!(r.messages);
    o["status"] = json!(status);
    o["validInput"] = json!(r.valid_input());
    if !failures.is_empty() {
        o["failures"] = Value::Array(failures);
        o["stderrTail"] = Value::String(r.stderr_tail.clone());
    }
    if let Some(s) = r.skipped() {
        o["skipped"] = Value::String(s.to_string());
    }
    o
}

/// Every member of the report but the two as long as the run,
/// `unexpectedFailures` and `results` (`null`), in order; with
/// `by_reference`, a counterexample too large to copy by reference.
fn head(run: &Run, by_reference: bool) -> Value {
    let verdict = run.verdict();
    let levels: serde_json::Map<String, Value> = verdict
        .levels
        .iter()
        .map(|l| (l.level.name().to_string(), Value::Bool(l.passed)))
        .collect();
    let clauses: serde_json::Map<String, Value> = run
        .grade
        .clauses
        .iter()
        .map(|(c, t)| {
            (c.id().to_string(), json!({"level": c.level().name(), "passed": t.passed, "failed": t.failed, "defects": t.defects, "invalidInput": t.invalid_input, "notJudged": t.not_judged}))
        })
        .collect();
    let mut drawn_as = vec![0; run.counterexamples.len()];
    for (n, group) in crate::certify::counterexample::grouped_by_input(run.counterexamples)
        .iter()
        .enumerate()
    {
        for &i in group {
            drawn_as[i] = n;
        }
    }
    let cxs: Vec<Value> = run
        .counterexamples
        .iter()
        .zip(drawn_as)
        .map(|(c, drawn_as)| {
            let mut o = json!({
                "clause": c.clause.id(), "definition": run.settings.definition(c.clause), "caseId": c.case.id,
                "originalId": c.original_id,
            });
            budget_members(&mut o, &c.case.budget, true);
            if run.settings.summaries && c.case.budget.max_tokens.is_some() {
                o["summaryTokens"] = json!(c.case.summary_tokens);
            }
            // Too large to copy: by reference (spec §9.1), its case in
            // `savedTo`.
            let large = c.too_large().filter(|_| by_reference);
            let copied = |v: &dyn Fn() -> Value| if large.is_some() { Value::Null } else { v() };
            for (k, v) in [
                ("messages", copied(&|| json!(*c.case.messages))),
                ("expected", copied(&|| c.expected.to_json())),
                ("actual", copied(&|| response_json(&c.actual))),
                ("firstDifference", json!(c.first_difference)),
                ("detail", json!(c.detail)),
                ("tries", json!(c.tries)),
                ("stoppedByTime", json!(c.out_of_time)),
                ("cases", json!(c.cases)),
                ("validInput", json!(c.valid_input)),
                ("savedTo", json!(c.saved_to.as_ref().map(|p| p.display().to_string()))),
                ("drawnAs", json!(drawn_as)),
            ] {
                o[k] = v;
            }
            if let Some(z) = large {
                o["omitted"] = json!({
                    "messages": z.messages, "bytes": z.bytes,
                    "expectedMessages": z.expected_messages, "actualMessages": z.actual_messages,
                });
            }
            o
        })
        .collect();
    let pairs = |v: &[KnownFailure]| -> Value { v.iter().map(pair).collect() };
    let mut report = serde_json::Map::new();
    let mut put = |k: &str, v: Value| {
        report.insert(k.to_string(), v);
    };
    put(
        "kit",
        json!({"name": "reducer-kit", "version": env!("CARGO_PKG_VERSION")}),
    );
    put("spec", json!(super::spec_version(run.settings)));
    put("policy", json!(run.settings.policy.name()));
    put("format", json!(run.settings.format.name()));
    // spec §15.5: the provider profile, only when the run has one.
    if let Some(p) = run.settings.provider {
        put("provider", json!(p.name()));
    }
    put("mode", json!(run.settings.mode()));
    if run.settings.summaries {
        put("summaries", json!(true));
    }
    put(
        "command",
        json!(run
            .settings
            .reducer
            .argv
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect::<Vec<_>>()),
    );
    put("declared", json!(run.settings.declared.names()));
    put("seed", json!(run.seed));
    put("casesRun", json!(run.grade.cases_run));
    put("casesSkipped", json!(run.grade.cases_skipped));
    put("casesUnsupported", json!(run.grade.cases_unsupported));
    put(
        "casesPlanned",
        json!({
            "corpus": run.plan.listed, "generated": run.plan.generated,
            "corpusDuplicates": run.plan.listed_duplicates,
            "generatedDuplicates": run.plan.generated_duplicates,
            "without": run.plan.without,
        }),
    );
    put(
        "without",
        json!(run.without.iter().map(|k| k.name()).collect::<Vec<_>>()),
    );
    put(
        "with",
        json!(run.with.iter().map(|k| k.name()).collect::<Vec<_>>()),
    );
    put(
        "outside",
        json!(run
            .settings
            .outside
            .iter()
            .map(|k| k.name())
            .collect::<Vec<_>>()),
    );
    put("restarts", json!(run.restarts.total));
    put("levels", Value::Object(levels));
    // Levels no case judged a clause of (they pass only vacuously).
    put(
        "levelsNotJudged",
        json!(verdict
            .levels
            .iter()
            .filter(|l| !l.judged)
            .map(|l| l.level.name())
            .collect::<Vec<_>>()),
    );
    put("clauses", Value::Object(clauses));
    put("passed", json!(verdict.passed));
    let seconds = |t: &std::time::Duration| (t.as_secs_f64() * 1000.0).round() / 1000.0;
    match &verdict.first {
        FirstFailure::Defect(case, t) => {
            put("firstDefect", json!({"case": case, "seconds": seconds(t)}))
        }
        FirstFailure::Difference(case, t) => put(
            "firstDifferenceFromPolicy",
            json!({"case": case, "seconds": seconds(t)}),
        ),
        FirstFailure::None => {}
    }
    if let Some(g) = run.gave_up {
        // spec §8.5: the run stopped feeding a reducer that answered nothing.
        put(
            "stopped",
            json!({"unansweredInARow": crate::certify::collect::MAX_UNANSWERED, "notRun": g.not_run,
                   "lastFailure": g.last_failure, "stderrLine": g.stderr_line}),
        );
    }
    if let (Some(not_run), Some((case, _))) = (run.stopped_at_first_defect, run.first_defect) {
        put(
            "stoppedAtFirstDefect",
            json!({"case": case, "notRun": not_run}),
        );
    }
    put("certificate", json!(certificate(run)));
    put("hints", json!(verdict.hints));
    put("counterexamples", Value::Array(cxs));
    put("expectedFailures", pairs(&run.known_failures.expected));
    put("unexpectedFailures", Value::Null);
    put("nowPassing", pairs(&run.known_failures.now_passing));
    put("results", Value::Null);
    Value::Object(report)
}

/// The budget members of a case, as sent, into `o`: `maxMessages` and
/// `maxTokens` when present, and with `costs` also `tokens` and
/// `countPinned`.
fn budget_members(o: &mut Value, b: &BudgetFields, costs: bool) {
    let mut put = |k: &str, v: &Option<Value>| {
        if let Some(v) = v {
            o[k] = v.clone();
        }
    };
    put("maxMessages", &b.max_messages);
    put("maxTokens", &b.max_tokens);
    if costs {
        put("tokens", &b.tokens);
        put("countPinned", &b.count_pinned);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::certify::grade::grade;
    use crate::certify::known_failures::compare_known_failures;
    use crate::certify::process::Reducer;
    use crate::certify::records::Records;
    use crate::certify::run::{CaseResult, RunCase, Settings};
    use crate::check::{Outcome, Verdict};
    use crate::formats::Format;
    use crate::terms::{Clause, Policy};

    fn record(id: &str, fail: Option<&str>) -> CaseRecord {
        let outcome = match fail {
            Some(d) => Outcome::Fail(d.to_string()),
            None => Outcome::Pass,
        };
        CaseRecord::of(&CaseResult {
            case: RunCase::with_max_messages(id.into(), Value::from(2), Vec::new()),
            took: std::time::Duration::ZERO,
            response: None,
            verdicts: vec![Verdict {
                clause: Clause::Budget,
                outcome,
            }],
            stderr_tail: "line\n".into(),
            outcome: crate::certify::result::CaseOutcome::Judged { valid_input: true },
            last_request: None,
        })
    }

    /// The streamed report is byte for byte the pretty document.
    #[test]
    fn written_one_result_at_a_time_is_the_pretty_document() {
        let settings = Settings {
            persistent: true,
            ..Settings::new(
                Reducer::new(vec!["r".into()]),
                Format::Canonical,
                Policy::Turns,
            )
        };
        for results in [
            Vec::new(),
            vec![record("a/1", None)],
            vec![record("a/1", Some("x\ny")), record("a/2", None)],
        ] {
            let results = Records::from(results);
            let g = grade(Policy::Turns, false, &results);
            let check = compare_known_failures(
                &results,
                &[KnownFailure {
                    case: "a/2".into(),
                    clause: "budget".into(),
                }],
            );
            let run = Run {
                settings: &settings,
                seed: Some(1),
                results: &results,
                grade: &g,
                counterexamples: &[],
                known_failures: &check,
                restarts: Default::default(),
                interrupted: None,
                plan: Default::default(),
                without: &[],
                with: &[],
                gave_up: None,
                stopped_at_first_defect: None,
                groups_at_cut: Default::default(),
                first_defect: None,
                first_difference: None,
                verdict: Default::default(),
            };
            let mut out = Vec::new();
            write_pretty(&run, &mut out).unwrap();
            let whole = serde_json::to_string_pretty(&to_json(&run)).unwrap() + "\n";
            assert_eq!(String::from_utf8(out).unwrap(), whole);
        }
    }
}
