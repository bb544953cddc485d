//! The kit's power over the mutants of its own reference (benches/mutants):
//! run by `cargo mutants` in a tree where one small change of
//! `src/reduce.rs`, `src/reduce/*.rs` or `src/validate.rs` is applied. The
//! mutated build is the software under test; the judge is an unmutated
//! `reducer-kit` named by `REDUCER_KIT_JUDGE`, so the judge is never the
//! mutant.
//!
//! - [`reducer_mutant_is_convicted`]: the mutant's `serve` is certified,
//!   persistent, on the default cases, under each configuration of
//!   [`CONFIGS`] in turn until one convicts it.
//! - [`api_mutant_is_convicted`]: each way into `reducer_kit::reduce` that
//!   `serve` does not take (each form of an [`Input`]'s history and budget,
//!   [`Reference::with_provider`], a
//!   [`Selection`](reducer_kit::reduce::Selection)'s renderings: messages,
//!   `kept_message`, `removed`, `elements`, `keeps_all`) is used as its
//!   docs show to answer the judge's generated requests, and the judge's
//!   `check` judges the answers.
//! - [`the_mutant_certify_passes_the_reference`]: the mutant's own `certify`
//!   judges the judge's `serve` (a correct reducer) on 300 generated cases
//!   under three configurations; the reference answers certify builds for
//!   itself (on an [`Input::classified`], and under a [`Budget`] already
//!   read for a summary) are seen only there. It fails a correct reducer:
//!   convicted.
//! - [`validator_mutant_is_convicted`]: the mutant's `validate` is shown
//!   histories valid by construction (the generator's), histories broken by
//!   construction (the generator's break knobs, spec §17.3) and the
//!   hand-written cases of `corpus/spec` (through `validate` and through
//!   `corpus check`, which reads each case's `violations`); a case naming a
//!   rule that does not exist must be refused.
//!
//! A test *fails* when the mutant is convicted (cargo-mutants counts it
//! caught) and passes when it is not (missed). Only the kit's own
//! definitions convict: a clause other than `matches-reference` failed on a
//! valid input (a defect, spec §9.2), or a verdict of the validator that
//! contradicts how the history was made. Each test prints one line
//! `MUTANT-VERDICT {json}` (run with `--nocapture`) that
//! `benches/mutants/summarize.py` reads from cargo-mutants' logs.
//!
//! Both tests are ignored by `cargo test`: a build of the kit passes them
//! by definition (the baseline), and they need the judge.

use reducer_kit::formats::{read_history, Format};
use reducer_kit::protocol::Response;
use reducer_kit::reduce::{Input, ReduceError, Reference, Selection};
use reducer_kit::terms::provider::{server_id, Provider};
use reducer_kit::terms::{Budget, BudgetFields, History, Policy};
use serde_json::{json, Value};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};
use wait_timeout::ChildExt;

/// The certify configurations, in the order they are tried: the policies
/// in the canonical format, token budgets (protocol 2), the provider
/// profiles in their formats, `repair` in the OpenAI format (its
/// `tool_calls` entries), `turns` in the Responses format (call groups
/// and reasoning items a tail must not split, spec §14.5–§14.6), and
/// `turns` under the Anthropic, Bedrock and Responses profiles and, in the
/// canonical format, Gemini's, with message and token budgets (the cuts a
/// profile falls back on, spec §15.4: `spec/profile-shortened-tail`,
/// `spec/tokens-profile-no-question`), and last `turns` in the Anthropic
/// format under its profile (its `tool_use` / `tool_result` blocks and the
/// user's text beside results, spec §1.6, §14.8).
const CONFIGS: [&[&str]; 16] = [
    &["--policy", "turns"],
    &["--policy", "suffix"],
    &["--policy", "repair"],
    &["--policy", "turns", "--protocol", "2"],
    &["--policy", "suffix", "--protocol", "2"],
    &[
        "--policy",
        "turns",
        "--format",
        "gemini",
        "--provider",
        "gemini",
    ],
    &[
        "--policy",
        "suffix",
        "--format",
        "responses",
        "--provider",
        "openai-responses",
    ],
    &[
        "--policy",
        "suffix",
        "--format",
        "openai",
        "--provider",
        "anthropic",
    ],
    &["--policy", "repair", "--format", "openai"],
    &["--policy", "turns", "--format", "responses"],
    &[
        "--policy",
        "turns",
        "--format",
        "openai",
        "--provider",
        "anthropic",
    ],
    &[
        "--policy",
        "turns",
        "--format",
        "bedrock",
        "--provider",
        "bedrock",
    ],
    &[
        "--policy",
        "turns",
        "--format",
        "responses",
        "--provider",
        "openai-responses",
    ],
    &["--policy", "turns", "--provider", "gemini"],
    &[
        "--policy",
        "turns",
        "--protocol",
        "2",
        "--provider",
        "gemini",
    ],
    &[
        "--policy",
        "turns",
        "--format",
        "anthropic",
        "--provider",
        "anthropic",
    ],
];

fn judge() -> PathBuf {
    match std::env::var_os("REDUCER_KIT_JUDGE") {
        Some(p) => PathBuf::from(p),
        None => panic!(
            "REDUCER_KIT_JUDGE must name an unmutated reducer-kit binary (benches/mutants/run sets it)"
        ),
    }
}

fn mutant() -> &'static str {
    env!("CARGO_BIN_EXE_reducer-kit")
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// How long a command of the mutant may run: a mutant whose loop never ends
/// is killed then, and convicted of hanging.
const LIMIT: Duration = Duration::from_secs(30);

/// `cmd`'s output, its stdout and stderr through files (no pipe to fill);
/// killed after [`LIMIT`], when its status has no code.
fn bounded(cmd: &mut Command) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let (o, e) = (dir.path().join("out"), dir.path().join("err"));
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(File::create(&o).unwrap())
        .stderr(File::create(&e).unwrap())
        .spawn()
        .unwrap();
    let status = match child.wait_timeout(LIMIT).unwrap() {
        Some(status) => status,
        None => {
            child.kill().ok();
            child.wait().unwrap()
        }
    };
    Output {
        status,
        stdout: std::fs::read(&o).unwrap(),
        stderr: std::fs::read(&e).unwrap(),
    }
}

/// What a status says when it is not a plain exit: killed after [`LIMIT`]
/// (or by a signal).
fn exit_text(status: std::process::ExitStatus) -> String {
    match status.code() {
        Some(c) => format!("exit {c}"),
        None => format!("killed after {} s or by a signal", LIMIT.as_secs()),
    }
}

/// Whether the mutation is in `src/validate.rs` (cargo-mutants marks the
/// line it changed): the reference reducer and the entries of
/// `reducer_kit::reduce` never call the validator, so the tests of the
/// reducer cannot see it, and `test` says so instead of running.
fn validator_mutated(test: &str) -> bool {
    let source = std::fs::read_to_string(root().join("src/validate.rs")).unwrap();
    let mutated = source.contains("/* ~ changed by cargo-mutants ~ */");
    if mutated {
        verdict(&json!({"test": test, "outcome": "not reached",
            "why": "the mutation is in src/validate.rs, which the reducer never calls"}));
    }
    mutated
}

fn verdict(v: &Value) {
    println!("MUTANT-VERDICT {v}");
}

/// The clauses of a certify report that failed on a valid input, besides
/// `matches-reference` (independent), and whether `matches-reference` did.
fn defects(report: &Value) -> (Vec<String>, bool) {
    let mut independent = Vec::new();
    let mut reference = false;
    if let Some(clauses) = report["clauses"].as_object() {
        for (id, c) in clauses {
            if c["defects"].as_u64().unwrap_or(0) > 0 {
                if id == "matches-reference" {
                    reference = true;
                } else {
                    independent.push(id.clone());
                }
            }
        }
    }
    (independent, reference)
}

#[test]
#[ignore = "run by benches/mutants/run under cargo mutants, with REDUCER_KIT_JUDGE"]
fn reducer_mutant_is_convicted() {
    if validator_mutated("reducer") {
        return;
    }
    let judge = judge();
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let mut reference_only = Vec::new();
    for (n, config) in CONFIGS.iter().enumerate() {
        let report_path = dir.path().join(format!("report-{n}.json"));
        let before = started.elapsed().as_secs_f64();
        let out = Command::new(&judge)
            .current_dir(root())
            .arg("certify")
            .args(*config)
            .args(["--persistent", "--timeout", "2000", "--shrink-time", "10"])
            .arg("--report-json")
            .arg(&report_path)
            .arg("--")
            .arg(mutant())
            .arg("serve")
            .args(*config)
            .arg("--persistent")
            .output()
            .unwrap();
        let code = out.status.code().unwrap_or(-1);
        let report: Value = match std::fs::read(&report_path) {
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap(),
            Err(e) => {
                verdict(
                    &json!({"test": "reducer", "outcome": "error", "config": config,
                    "exit": code, "error": e.to_string(),
                    "stderr": String::from_utf8_lossy(&out.stderr)}),
                );
                panic!("the judge wrote no report (exit {code}): {e}");
            }
        };
        let (independent, reference) = defects(&report);
        if !independent.is_empty() || report.get("stopped").is_some() {
            // A bug convicted on policy clauses alone has no defect (spec
            // §9.3): its first failing case is the first difference from
            // the policy.
            let first = report
                .get("firstDefect")
                .unwrap_or(&report["firstDifferenceFromPolicy"]);
            let cx = report["counterexamples"]
                .as_array()
                .and_then(|cxs| {
                    cxs.iter()
                        .find(|c| c["validInput"] == true && c["clause"] != "matches-reference")
                })
                .cloned()
                .unwrap_or(Value::Null);
            verdict(&json!({
                "test": "reducer",
                "outcome": "convicted",
                "config": config,
                "configsTried": n + 1,
                "clauses": independent,
                "stopped": report.get("stopped").is_some(),
                "firstDefectSeconds": first["seconds"].as_f64().map(|s| before + s),
                "runFirstDefectSeconds": first["seconds"],
                "firstDefectCase": first["case"],
                "counterexampleClause": cx["clause"],
                "counterexampleMessages": cx["messages"].as_array().map(Vec::len),
                "seconds": started.elapsed().as_secs_f64(),
            }));
            panic!(
                "convicted under {}: {}",
                config.join(" "),
                independent.join(", ")
            );
        }
        if reference {
            reference_only.push(config.join(" "));
        }
        if code != 0 && !reference {
            verdict(
                &json!({"test": "reducer", "outcome": "error", "config": config, "exit": code,
                "stderr": String::from_utf8_lossy(&out.stderr)}),
            );
            panic!("the judge exited {code} with no defect");
        }
    }
    verdict(&json!({
        "test": "reducer",
        "outcome": if reference_only.is_empty() { "passed" } else { "matches-reference only" },
        "referenceOnly": reference_only,
        "seconds": started.elapsed().as_secs_f64(),
    }));
}

/// The mutant's `validate` over a JSON Lines file of histories (with
/// `--allow-pending` when `pending`): exit code (-1 when killed after
/// [`LIMIT`]) and stdout.
fn mutant_validate(file: &Path, pending: bool) -> (i32, String) {
    let mut cmd = Command::new(mutant());
    cmd.arg("validate");
    if pending {
        cmd.arg("--allow-pending");
    }
    let out = bounded(cmd.arg(file));
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// Writes the judge's `generate` output with `args` to `name` in `dir` as
/// JSON Lines of histories; returns the path and how many.
fn generated(dir: &Path, name: &str, args: &[&str]) -> (PathBuf, usize) {
    let out = Command::new(judge())
        .arg("generate")
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "the judge's generate failed");
    let file = dir.join(name);
    std::fs::write(&file, &out.stdout).unwrap();
    (file, String::from_utf8_lossy(&out.stdout).lines().count())
}

#[test]
#[ignore = "run by benches/mutants/run under cargo mutants, with REDUCER_KIT_JUDGE"]
fn validator_mutant_is_convicted() {
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let mut convictions: Vec<String> = Vec::new();
    // Valid by construction: every history the generator makes (pending
    // tails allowed).
    let (valid, n) = generated(
        dir.path(),
        "valid.jsonl",
        &["--count", "500", "--seed", "1"],
    );
    let (code, stdout) = mutant_validate(&valid, true);
    if code != 0 || stdout.trim() != format!("{n} histories: all valid") {
        let first = stdout.lines().next().unwrap_or("").to_string();
        convictions.push(format!("a valid history found invalid: {first}"));
    }
    // Broken by construction: each history of the repair generator breaks
    // a rule (spec §17.3), so each must be found invalid.
    let (broken, n) = generated(
        dir.path(),
        "broken.jsonl",
        &["--count", "300", "--seed", "1", "--policy", "repair"],
    );
    let (code, stdout) = mutant_validate(&broken, true);
    let last = stdout.lines().last().unwrap_or("").to_string();
    if code != 1 || last != format!("{n} histories: {n} invalid") {
        convictions.push(format!(
            "a broken history found valid: {last} (exit {code})"
        ));
    }
    // The hand-written cases of corpus/spec: exactly the violations each
    // lists under its own `allowPending` (none for a valid input), as
    // `validate` prints them; one file per setting.
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("corpus/spec"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let cases: Vec<Value> = files
        .iter()
        .flat_map(|f| {
            serde_json::from_str::<Vec<Value>>(&std::fs::read_to_string(f).unwrap()).unwrap()
        })
        .collect();
    for pending in [false, true] {
        let spec = dir.path().join(format!("spec-{pending}.jsonl"));
        let mut lines = String::new();
        let mut want: Vec<String> = Vec::new();
        let of_setting = cases
            .iter()
            .filter(|c| (c["allowPending"] == true) == pending);
        for (k, case) in of_setting.enumerate() {
            lines.push_str(&json!({"messages": case["messages"]}).to_string());
            lines.push('\n');
            for v in case["violations"].as_array().into_iter().flatten() {
                want.push(format!(
                    "{}:{}: {}: message {}, id \"{}\"",
                    spec.display(),
                    k + 1,
                    v["rule"].as_str().unwrap(),
                    v["index"],
                    v["id"].as_str().unwrap()
                ));
            }
        }
        std::fs::write(&spec, &lines).unwrap();
        let (_, stdout) = mutant_validate(&spec, pending);
        let prefix = format!("{}:", spec.display());
        let mut got: Vec<String> = stdout
            .lines()
            .filter(|l| l.starts_with(&prefix))
            .map(str::to_string)
            .collect();
        want.sort();
        got.sort();
        if got != want {
            let missing = want.iter().find(|w| !got.contains(w));
            let extra = got.iter().find(|g| !want.contains(g));
            convictions.push(format!(
                "corpus/spec: a listed violation not found: {missing:?}; one found not listed: {extra:?}"
            ));
        }
    }
    // The hand-written violations again, through the reader of case files
    // (`corpus check corpus/spec` compares each case's `violations` with the
    // validator's), and a case naming a rule that does not exist, which
    // must be refused (exit 2).
    let out = bounded(
        Command::new(mutant())
            .args(["corpus", "check", "corpus/spec"])
            .current_dir(root()),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    if let Some(l) = stdout
        .lines()
        .find(|l| l.starts_with("differs:") && l.contains("): violations"))
    {
        convictions.push(format!("corpus check corpus/spec: {l}"));
    } else if !matches!(out.status.code(), Some(0 | 1)) {
        convictions.push(format!(
            "corpus check corpus/spec failed ({}): {}",
            exit_text(out.status),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let bad = dir.path().join("bad");
    std::fs::create_dir(&bad).unwrap();
    std::fs::write(
        bad.join("unknown-rule.json"),
        json!([{"id": "x/unknown-rule", "spec": 1, "policy": "turns", "maxMessages": 2,
            "messages": [{"role": "tool", "contents": [
                {"$type": "functionResult", "callId": "c0", "result": "r"}]}],
            "expected": [],
            "violations": [{"rule": "no-such-rule", "index": 0, "id": "c0"}]}])
        .to_string(),
    )
    .unwrap();
    let out = bounded(Command::new(mutant()).args(["corpus", "check"]).arg(&bad));
    let stderr = String::from_utf8_lossy(&out.stderr);
    if out.status.code() != Some(2)
        || !stderr.contains("unknown validator rule id \"no-such-rule\"")
    {
        convictions.push(format!(
            "a case naming rule \"no-such-rule\" was not refused ({})",
            exit_text(out.status)
        ));
    }
    if convictions.is_empty() {
        verdict(&json!({"test": "validator", "outcome": "passed",
            "seconds": started.elapsed().as_secs_f64()}));
    } else {
        verdict(&json!({"test": "validator", "outcome": "convicted",
            "clauses": convictions, "seconds": started.elapsed().as_secs_f64()}));
        panic!("convicted: {}", convictions.join("; "));
    }
}

/// One way to answer a request `(maxMessages, messages)` with the public
/// API of `reducer_kit::reduce`, as its docs show: the protocol answer.
type Entry = (&'static str, fn(Policy, &Value, &[Value]) -> Response);

/// The messages of a selection, or its error, as the protocol answer.
fn answer(r: Result<Vec<Value>, ReduceError>) -> Response {
    match r {
        Ok(m) => Response::Messages(m),
        Err(e) => Response::Error(e.to_string()),
    }
}

const C: Format = Format::Canonical;

/// The ways into the reference that `serve` does not take (it gives
/// [`Reference::reduce`] an [`Input::new`] with `maxMessages` or budget
/// members, and renders the result with `Response::from`), each a reducer
/// of its own: every form of the history and of the budget an [`Input`]
/// takes, and every rendering of a [`Selection`](reducer_kit::reduce::Selection).
const ENTRIES: [Entry; 9] = [
    ("Input::new + max_messages, messages", |p, max, m| {
        answer(
            Reference::new(p, C)
                .reduce(Input::new(m).max_messages(max))
                .map(|s| s.messages()),
        )
    }),
    ("Input::new + budget_fields, Response::from", |p, max, m| {
        let fields = BudgetFields::messages(max.clone());
        Response::from(Reference::new(p, C).reduce(Input::new(m).budget_fields(&fields)))
    }),
    (
        "Input::new + budget, Response::from",
        |p, max, m| match Budget::parse(max) {
            Ok(b) => Response::from(Reference::new(p, C).reduce(Input::new(m).budget(&b))),
            Err(e) => Response::Error(ReduceError::from(e).to_string()),
        },
    ),
    ("Input::classified + budget, messages", |p, max, m| {
        let h = read_history(C, m).unwrap();
        answer(Budget::parse(max).map_err(Into::into).and_then(|b| {
            Reference::new(p, C)
                .reduce(Input::classified(m, &h).budget(&b))
                .map(|s| s.messages())
        }))
    }),
    ("Reference::with_provider(None)", |p, max, m| {
        let fields = BudgetFields::messages(max.clone());
        Response::from(
            Reference::new(p, C)
                .with_provider(None)
                .reduce(Input::new(m).budget_fields(&fields)),
        )
    }),
    ("Input::history + Selection::kept_message", |p, max, m| {
        // A kept message with its removed items taken out, one by one.
        on_history(p, max, m, |_, s| {
            if s.keeps_all() {
                return m.to_vec();
            }
            s.kept()
                .iter()
                .map(|&k| s.kept_message(k, &m[k]).into_owned())
                .collect()
        })
    }),
    ("Input::history + Selection::removed", |p, max, m| {
        // The messages that lose nothing as they came, the others rendered.
        on_history(p, max, m, |_, s| {
            s.kept()
                .iter()
                .map(|&k| match s.removed(k) {
                    [] => m[k].clone(),
                    _ => s.kept_message(k, &m[k]).into_owned(),
                })
                .collect()
        })
    }),
    ("Input::history + Selection::stripped", |p, max, m| {
        // The canonical `contents` elements of the items `stripped` lists
        // for a message removed, every other kept message as it came.
        on_history(p, max, m, |h, s| {
            s.kept()
                .iter()
                .map(|&k| match s.stripped().iter().find(|(i, _)| *i == k) {
                    Some((_, items)) => {
                        let gone: Vec<usize> =
                            items.iter().filter_map(|&t| h.items(k)[t].elem()).collect();
                        without_elements(&m[k], &gone)
                    }
                    None => m[k].clone(),
                })
                .collect()
        })
    }),
    ("Input::history + Selection::elements", |p, max, m| {
        // The canonical `contents` elements named by `elements` removed.
        on_history(p, max, m, |_, s| {
            s.kept()
                .iter()
                .map(|&k| without_elements(&m[k], &s.elements(k)))
                .collect()
        })
    }),
];

/// A Responses request whose suffix cut at budget 2 (`[msg_2, user]`)
/// the openai-responses profile rejects: `msg_2` is a stored item sent
/// without the reasoning item of its output (`required-reasoning`).
const STORED_ITEMS: &str = r#"{"maxMessages":2,"messages":[{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"weather"}]},{"role":"assistant","content":"one","id":"msg_1"},{"role":"assistant","content":"two","id":"msg_2"},{"role":"user","content":"and tomorrow?"}]}"#;

/// The way into the reference that the reduce command takes under a
/// profile that reads server ids: a Responses history read alone, its
/// messages' server ids given with [`Input::server_ids`], each kept
/// message rendered with its removed items taken out.
const RESPONSES_ENTRIES: [Entry; 1] = [(
    "Input::history + server_ids, openai-responses",
    |p, max, m| {
        let h = read_history(Format::Responses, m).unwrap();
        let ids: Vec<Option<&str>> = m.iter().map(server_id).collect();
        let b = Budget::parse(max).unwrap();
        answer(
            Reference::new(p, Format::Responses)
                .with_provider(Some(Provider::OpenAiResponses))
                .reduce(Input::history(&h).budget(&b).server_ids(&ids))
                .map(|s| {
                    s.kept()
                        .iter()
                        .map(|&k| s.kept_message(k, &m[k]).into_owned())
                        .collect()
                }),
        )
    },
)];

/// The reference under each provider profile (spec §15), named as
/// `check --provider` names it, answering canonical requests.
const PROFILE_ENTRIES: [Entry; 5] = [
    ("openai-chat", |p, max, m| {
        profiled(p, Provider::OpenAiChat, max, m)
    }),
    ("openai-responses", |p, max, m| {
        profiled(p, Provider::OpenAiResponses, max, m)
    }),
    ("anthropic", |p, max, m| {
        profiled(p, Provider::Anthropic, max, m)
    }),
    ("gemini", |p, max, m| profiled(p, Provider::Gemini, max, m)),
    ("bedrock", |p, max, m| {
        profiled(p, Provider::Bedrock, max, m)
    }),
];

/// The reference's answer to a canonical request under `provider`.
fn profiled(p: Policy, provider: Provider, max: &Value, m: &[Value]) -> Response {
    answer(
        Reference::new(p, C)
            .with_provider(Some(provider))
            .reduce(Input::new(m).max_messages(max))
            .map(|s| s.messages()),
    )
}

/// Answers each of `lines` (the requests of the file `requests`) with `f`
/// under `policy`, has the judge's `check --policy name` (with `judged`)
/// judge them, and returns the clauses it fails other than
/// `matches-reference` ([`check_defects`]).
fn judged_answers(
    dir: &Path,
    requests: &Path,
    lines: &[Value],
    f: fn(Policy, &Value, &[Value]) -> Response,
    policy: Policy,
    name: &str,
    judged: &[&str],
) -> Vec<String> {
    let mut answers = String::new();
    for r in lines {
        let messages: Vec<Value> = serde_json::from_value(r["messages"].clone()).unwrap();
        let caught = std::panic::catch_unwind(|| f(policy, &r["maxMessages"], &messages));
        let response = match caught {
            Ok(resp) => resp.to_json(),
            Err(_) => json!({"error": "the entry panicked"}),
        };
        answers.push_str(&response.to_string());
        answers.push('\n');
    }
    let out_file = dir.join("answers.jsonl");
    std::fs::write(&out_file, answers).unwrap();
    let out = Command::new(judge())
        .args(["check", "--policy", name])
        .args(judged)
        .arg(requests)
        .arg(&out_file)
        .output()
        .unwrap();
    check_defects(&String::from_utf8_lossy(&out.stdout))
}

/// The reference's selection of the canonical history `m` read alone
/// ([`Input::history`]) at budget `max`, its messages as `render` makes
/// them from the history and the selection.
fn on_history(
    p: Policy,
    max: &Value,
    m: &[Value],
    render: impl FnOnce(&History, &Selection) -> Vec<Value>,
) -> Response {
    let h = read_history(C, m).unwrap();
    let b = Budget::parse(max).unwrap();
    let s = Reference::new(p, C)
        .reduce(Input::history(&h).budget(&b))
        .unwrap();
    Response::Messages(render(&h, &s))
}

/// A canonical message with the elements of its `contents` at positions
/// `gone` removed.
fn without_elements(msg: &Value, gone: &[usize]) -> Value {
    let mut msg = msg.clone();
    if let Some(elems) = msg["contents"].as_array_mut() {
        let mut i = 0;
        elems.retain(|_| {
            i += 1;
            !gone.contains(&(i - 1))
        });
    }
    msg
}

/// The clauses other than `matches-reference` that the judge's `check`
/// output names, from its `FAIL  file:N: clause: detail` lines.
fn check_defects(stdout: &str) -> Vec<String> {
    let mut out: Vec<String> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("FAIL"))
        .filter_map(|l| l.trim_start().split(": ").nth(1).map(str::to_string))
        .filter(|c| c != "matches-reference")
        .collect();
    out.sort();
    out.dedup();
    out
}

#[test]
#[ignore = "run by benches/mutants/run under cargo mutants, with REDUCER_KIT_JUDGE"]
fn api_mutant_is_convicted() {
    if validator_mutated("api") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let mut convictions: Vec<String> = Vec::new();
    // Canonical requests through every entry, then Responses requests
    // under the openai-responses profile, whose `required-reasoning` rule
    // reads the server ids (spec §15.3).
    let responses = ["--format", "responses", "--provider", "openai-responses"];
    'passes: for (policy, name, extra, judged, entries) in [
        (Policy::Turns, "turns", &[][..], &[][..], &ENTRIES[..]),
        (Policy::Suffix, "suffix", &[][..], &[][..], &ENTRIES[..]),
        (
            Policy::Repair,
            "repair",
            &["--policy", "repair"][..],
            &[][..],
            &ENTRIES[..],
        ),
        (
            Policy::Turns,
            "turns",
            &responses[..2],
            &responses[..],
            &RESPONSES_ENTRIES[..],
        ),
        (
            Policy::Suffix,
            "suffix",
            &["--policy", "suffix", "--format", "responses"][..],
            &responses[..],
            &RESPONSES_ENTRIES[..],
        ),
    ] {
        let mut args = vec!["--count", "300", "--seed", "1", "--requests"];
        args.extend_from_slice(extra);
        let file = format!("{name}-{}.jsonl", judged.len());
        let (requests, _) = generated(dir.path(), &file, &args);
        if !judged.is_empty() {
            // The generator seldom writes two stored items of one output
            // after its reasoning item: the case of tests/checker/providers.rs
            // (openai_responses_keeps_a_stored_item_with_its_reasoning).
            let mut text = std::fs::read_to_string(&requests).unwrap();
            text.push_str(STORED_ITEMS);
            text.push('\n');
            std::fs::write(&requests, text).unwrap();
        }
        let lines: Vec<Value> = std::fs::read_to_string(&requests)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        for (entry, f) in entries {
            let clauses = judged_answers(dir.path(), &requests, &lines, *f, policy, name, judged);
            if !clauses.is_empty() {
                convictions.push(format!(
                    "{entry} under {name} {}: {}",
                    judged.join(" "),
                    clauses.join(", ")
                ));
                break 'passes;
            }
        }
    }
    // Canonical requests at every budget under each provider profile: the
    // cuts a profile rejects send the reference into its fallback search
    // (spec §15.4), which these requests reach thousands of times.
    if convictions.is_empty() {
        let (requests, _) = generated(
            dir.path(),
            "every-budget.jsonl",
            &["--count", "150", "--seed", "1", "--requests"],
        );
        let mut lines: Vec<Value> = Vec::new();
        for l in std::fs::read_to_string(&requests).unwrap().lines() {
            let r: Value = serde_json::from_str(l).unwrap();
            let n = r["messages"].as_array().unwrap().len();
            for b in 1..=n {
                let mut at = r.clone();
                at["maxMessages"] = json!(b);
                lines.push(at);
            }
        }
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(&requests, text).unwrap();
        'profiles: for (entry, f) in PROFILE_ENTRIES {
            for (policy, name) in [(Policy::Turns, "turns"), (Policy::Suffix, "suffix")] {
                let judged = ["--provider", entry];
                let clauses =
                    judged_answers(dir.path(), &requests, &lines, f, policy, name, &judged);
                if !clauses.is_empty() {
                    convictions.push(format!(
                        "Reference::with_provider({entry}) at every budget under {name}: {}",
                        clauses.join(", ")
                    ));
                    break 'profiles;
                }
            }
        }
    }
    if convictions.is_empty() {
        verdict(&json!({"test": "api", "outcome": "passed",
            "seconds": started.elapsed().as_secs_f64()}));
    } else {
        verdict(&json!({"test": "api", "outcome": "convicted",
            "clauses": convictions, "seconds": started.elapsed().as_secs_f64()}));
        panic!("convicted: {}", convictions.join("; "));
    }
}

#[test]
#[ignore = "run by benches/mutants/run under cargo mutants, with REDUCER_KIT_JUDGE"]
fn the_mutant_certify_passes_the_reference() {
    let judge = judge();
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let mut convictions: Vec<String> = Vec::new();
    for config in [
        &["--policy", "turns"][..],
        &["--policy", "suffix", "--protocol", "2"][..],
        &["--policy", "repair"][..],
    ] {
        let report_path = dir.path().join("report.json");
        let out = bounded(
            Command::new(mutant())
                .current_dir(root())
                .arg("certify")
                .args(config)
                .args([
                    "--persistent",
                    "--cases",
                    "300",
                    "--shrink-tries",
                    "0",
                    "--report-json",
                ])
                .arg(&report_path)
                .arg("--")
                .arg(&judge)
                .arg("serve")
                .args(config)
                .arg("--persistent"),
        );
        if out.status.code() != Some(0) {
            let failed: Vec<String> = std::fs::read(&report_path)
                .ok()
                .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
                .and_then(|r| {
                    r["clauses"].as_object().map(|c| {
                        c.iter()
                            .filter(|(_, v)| v["failed"].as_u64().unwrap_or(0) > 0)
                            .map(|(k, _)| k.clone())
                            .collect()
                    })
                })
                .unwrap_or_default();
            convictions.push(format!(
                "its certify {} fails the reference's serve ({}): {}",
                config.join(" "),
                exit_text(out.status),
                if failed.is_empty() {
                    "no report".to_string()
                } else {
                    failed.join(", ")
                }
            ));
            break;
        }
    }
    if convictions.is_empty() {
        verdict(&json!({"test": "certify", "outcome": "passed",
            "seconds": started.elapsed().as_secs_f64()}));
    } else {
        verdict(&json!({"test": "certify", "outcome": "convicted",
            "clauses": convictions, "seconds": started.elapsed().as_secs_f64()}));
        panic!("convicted: {}", convictions.join("; "));
    }
}
