//! A run's default cases are those its format can carry (spec §9.5): an
//! application's trimmer on Python's `json` module alone
//! (`examples/reducers/openai_trimmer.py`, `anthropic_trimmer.py`) passes
//! every level with no flag; the naive last-N reducer still fails with a
//! small `no-orphan-result` counterexample; shapes outside the format run
//! only with `--with`; a budget the protocol writes `3.0` is the
//! protocol's (`protocol-budget`), never `valid-output`; the hint that a
//! reducer reads no tool calls is printed only when its answers show it.

use serde_json::{json, Value};
use std::path::Path;
use std::process::Output;

use crate::common::{certify, example, golden_count, on_kit_cases, python, text};

/// `certify ARGS --report-json F -- REDUCER`: the output and the report.
fn report(dir: &Path, args: &[&str], reducer: &[&str]) -> (Output, Value) {
    let path = dir.join("report.json");
    let mut all: Vec<&str> = args.to_vec();
    let p = path.to_str().unwrap().to_string();
    all.extend(["--report-json", &p]);
    let out = certify(&all, reducer);
    let json = serde_json::from_str(
        &std::fs::read_to_string(&path)
            .unwrap_or_else(|_| panic!("no report: {}", text(&out.stderr))),
    )
    .unwrap();
    (out, json)
}

/// The skip reasons of a report that say a case is outside the run.
fn outside_skips(r: &Value) -> Vec<String> {
    r["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["skipped"].as_str())
        .filter(|s| s.contains(": outside a default "))
        .map(str::to_string)
        .collect()
}

const EVERY_LEVEL: &str = "levels passed [protocol, safety, policy, exact]";

#[test]
fn the_trimmers_on_the_json_module_pass_every_level_with_no_flag() {
    let dir = tempfile::tempdir().unwrap();
    for (name, format) in [
        ("openai_trimmer.py", "openai"),
        ("anthropic_trimmer.py", "anthropic"),
    ] {
        let reducer = [python(), "-S", &example(name)];
        // The command a user types: no flag but the policy, the format
        // and the mode (the kit's whole corpus and 2,000 generated cases).
        let (out, r) = report(
            dir.path(),
            &["--policy", "suffix", "--format", format, "--persistent"],
            &reducer,
        );
        let stdout = text(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{name}: {stdout}");
        assert!(
            stdout.contains(&format!("policy suffix format {format}: {EVERY_LEVEL}")),
            "{stdout}"
        );
        assert_eq!(
            r["outside"],
            json!([
                "role-case",
                "approvals",
                "legacy-approvals",
                "non-double-numbers",
                "budget-spellings"
            ])
        );
        assert!(!stdout.contains("hint:"), "{stdout}");
        // On the kit's own corpora, cases that show a shape outside the run
        // (approvals, roles in other cases, spec/exact-numbers, budgets
        // written other than as an integer) are each skipped with the flag
        // that runs it; how many of each is a golden count.
        let (out, r) = report(
            dir.path(),
            &on_kit_cases(&["--policy", "suffix", "--format", format, "--persistent"]),
            &reducer,
        );
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
        let key = |what: &str| format!("default_shapes.{format}_trimmer.{what}");
        golden_count(&key("casesRun"), r["casesRun"].as_u64().unwrap());
        golden_count(&key("casesSkipped"), r["casesSkipped"].as_u64().unwrap());
        let outside = outside_skips(&r);
        let run_of = format!("outside a default {format} run");
        let reasons = [
            ("approvals", format!("approval items (approvals): {run_of}; --with approvals runs it")),
            ("approvals+legacy-approvals", format!("approval items (approvals), approval items with the older names (legacy-approvals): {run_of}; --with approvals,legacy-approvals runs it")),
            ("role-case", format!("roles in other letter cases (role-case): {run_of}; --with role-case runs it")),
            ("non-double-numbers", format!("numbers no double holds (as 1e400) (non-double-numbers): {run_of}; --with non-double-numbers runs it")),
            ("budget-spellings", format!("a budget written other than as an integer (budget-spellings): {run_of}; --with budget-spellings runs it")),
        ];
        let mut each = 0;
        for (shape, reason) in &reasons {
            let n = outside.iter().filter(|s| *s == reason).count();
            assert!(n > 0, "{name}: no case skipped as {reason:?}: {outside:#?}");
            golden_count(&key(&format!("outside.{shape}")), n as u64);
            each += n;
        }
        // Every skip outside the run is one of these.
        assert_eq!(each, outside.len(), "{outside:#?}");
        assert!(
            r["casesSkipped"].as_u64().unwrap() >= outside.len() as u64,
            "{name}"
        );
    }
}

#[test]
fn the_naive_last_n_still_fails_with_a_two_message_counterexample() {
    let dir = tempfile::tempdir().unwrap();
    let (out, r) = report(
        dir.path(),
        &on_kit_cases(&["--policy", "suffix", "--format", "openai", "--persistent"]),
        &[
            python(),
            "-S",
            &example("naive_last_n.py"),
            "--format",
            "openai",
            "--persistent",
        ],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert_eq!(r["levels"]["protocol"], true);
    assert_eq!(r["levels"]["safety"], false);
    let cx = r["counterexamples"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["clause"] == "no-orphan-result")
        .unwrap();
    assert_eq!(cx["maxMessages"], 1);
    assert_eq!(
        cx["messages"],
        json!([
            {"role": "assistant", "contents": [{"$type": "functionCall", "callId": "c1", "name": "f"}]},
            {"role": "tool", "contents": [{"$type": "functionResult", "callId": "c1", "result": ""}]}
        ])
    );
    assert_eq!(
        cx["detail"],
        "output message 0: result \"c1\" has no call earlier in the output"
    );
    let defects = golden_count(
        "default_shapes.naive_last_n.openai.no-orphan-result.defects",
        r["clauses"]["no-orphan-result"]["defects"]
            .as_u64()
            .unwrap(),
    );
    // Its answers show that it reads no tool calls: the hint says so, of
    // every case that failed that way.
    assert!(stdout.contains(&format!("hint: in none of the {defects} cases where the newest messages that fit split a tool call from its result did the reducer keep them together: it reads no tool calls in the OpenAI messages it gets (--format openai). A reducer that reads another format sees none; check one request's messages with `reducer-kit validate --format openai`\n")), "{stdout}");
}

#[test]
fn shapes_outside_the_format_run_with_with() {
    let dir = tempfile::tempdir().unwrap();
    let (out, r) = report(
        dir.path(),
        &on_kit_cases(&[
            "--policy",
            "suffix",
            "--format",
            "openai",
            "--persistent",
            "--with",
            "approvals",
        ]),
        &[python(), "-S", &example("openai_trimmer.py")],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    // The trimmer knows no approval parts: it keeps an approval response
    // whose request it cut.
    assert_eq!(r["with"], json!(["approvals"]));
    assert_eq!(
        r["outside"],
        json!([
            "role-case",
            "legacy-approvals",
            "non-double-numbers",
            "budget-spellings"
        ])
    );
    let defects = r["clauses"]["no-orphan-approval"]["defects"]
        .as_u64()
        .unwrap();
    assert!(defects > 0);
    golden_count(
        "default_shapes.openai_trimmer.with-approvals.no-orphan-approval.defects",
        defects,
    );
    assert_eq!(r["clauses"]["no-orphan-result"]["failed"], 0);
    assert!(r["certificate"]
        .as_str()
        .unwrap()
        .ends_with("; seed 1; with approvals"));
    // A rerun keeps the flag.
    assert!(
        stdout.contains(" --persistent --with approvals --corpus corpus/seed"),
        "{stdout}"
    );
    // valid-output fails too, but the trimmer keeps tool calls with their
    // results: no hint that it reads none.
    assert!(r["clauses"]["valid-output"]["defects"].as_u64().unwrap() > 0);
    assert!(!stdout.contains("hint: in none of"), "{stdout}");

    // A shape a default run has already is no --with.
    let bad = certify(
        &["--format", "openai", "--with", "pending"],
        &[python(), "-S", &example("openai_trimmer.py")],
    );
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text(&bad.stderr).contains("--with pending: a default openai run has it already; --with names what one leaves out: role-case, approvals, legacy-approvals, non-double-numbers, budget-spellings"),
        "{}",
        text(&bad.stderr)
    );
}

/// A trimmer that refuses any budget that is not an `int` (its wire loop
/// passes the float `3.0` on) passes every level with no flag: no caller
/// writes a budget `3.0` (spec §9.5). With `--with budget-spellings` it
/// fails the protocol level, on the two corpus cases whose budget is
/// written `3.0` and `1e1`, and no safety clause.
#[test]
fn a_budget_written_3_0_is_the_protocols() {
    let dir = tempfile::tempdir().unwrap();
    let strict = "import sys; sys.path.insert(0, 'examples/reducers'); import openai_trimmer as t; t.wire_budget = lambda v: v; t.main()";
    let (out, r) = report(
        dir.path(),
        &on_kit_cases(&[
            "--policy",
            "suffix",
            "--format",
            "openai",
            "--persistent",
            "--cases",
            "0",
        ]),
        &[python(), "-S", "-c", strict],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains(&format!("policy suffix format openai: {EVERY_LEVEL}")),
        "{stdout}"
    );
    assert_eq!(r["clauses"]["protocol-budget"]["passed"], 0);
    assert_eq!(r["clauses"]["protocol-budget"]["failed"], 0);
    let spelled: Vec<String> = outside_skips(&r)
        .into_iter()
        .filter(|s| s.contains("(budget-spellings)"))
        .collect();
    assert_eq!(
        spelled,
        vec!["a budget written other than as an integer (budget-spellings): outside a default openai run; --with budget-spellings runs it"; 6]
    );
    let (out, r) = report(
        dir.path(),
        &on_kit_cases(&[
            "--policy",
            "suffix",
            "--format",
            "openai",
            "--persistent",
            "--cases",
            "0",
            "--with",
            "budget-spellings",
        ]),
        &[python(), "-S", "-c", strict],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert_eq!(
        r["levels"],
        json!({"protocol": false, "safety": false, "policy": false, "exact": false})
    );
    let failing: Vec<(&str, Vec<&str>)> = r["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == "fail")
        .map(|c| {
            (
                c["id"].as_str().unwrap(),
                c["failures"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|f| f["clause"].as_str().unwrap())
                    .collect(),
            )
        })
        .collect();
    assert_eq!(
        failing,
        [
            (
                "spec/budget-whole-float",
                vec!["protocol-budget", "matches-reference"]
            ),
            (
                "spec/budget-exponent",
                vec!["protocol-budget", "matches-reference"]
            )
        ]
    );
    assert_eq!(r["clauses"]["valid-output"]["failed"], 0);
    assert_eq!(r["clauses"]["protocol-budget"]["passed"], 4);
    let whole = r["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "spec/budget-whole-float")
        .unwrap();
    assert_eq!(
        whole["failures"][0]["detail"],
        "maxMessages 3.0 is a whole number of at least 1 written another way, a budget (spec §2), but was answered with an error: \"maxMessages must be an integer >= 1, got 3.0\""
    );
}

/// The OpenAI trimmer with a budget that counts the system message, as
/// LangChain's `trim_messages(token_counter=len, include_system=True)`
/// counts it: undeclared, it fails the policy level and the report names
/// `--declare count-pinned`; declared, it passes every level (spec §16.9).
#[test]
fn a_budget_that_counts_the_system_message_is_declared_count_pinned() {
    let dir = tempfile::tempdir().unwrap();
    let counting = "import sys; sys.path.insert(0, 'examples/reducers'); import openai_trimmer as t
def trim(request):
    budget = request.get('maxMessages')
    if type(budget) is not int or budget < 1:
        raise ValueError('maxMessages must be an integer >= 1')
    messages = request['messages']
    pinned = next((i for i, m in enumerate(messages) if m.get('role') in t.SYSTEM_ROLES), None)
    rest = [i for i in range(len(messages)) if i != pinned]
    start = max(0, len(rest) - (budget - (pinned is not None)))
    while start < len(rest) and messages[rest[start]].get('role') == 'tool':
        start += 1
    kept = sorted(rest[start:] + ([pinned] if pinned is not None else []))
    return {'messages': t.without_orphan_results(messages, kept)}
t.trim = trim
t.main()";
    let args = [
        "--policy",
        "suffix",
        "--format",
        "openai",
        "--persistent",
        "--cases",
        "300",
    ];
    let (out, r) = report(
        dir.path(),
        &on_kit_cases(&args),
        &[python(), "-S", "-c", counting],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("levels passed [protocol, safety];"),
        "{stdout}"
    );
    let hints: Vec<&str> = r["hints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h.as_str().unwrap())
        .collect();
    assert_eq!(hints.len(), 1, "{hints:?}");
    assert!(
        hints[0].ends_with(" messages besides it, and N in none; without a pinned message it keeps N: its budget counts the pinned message. The kit's message budget does not count it (spec section 2); if counting it is the reducer's documented contract, declare it: --declare count-pinned (spec section 16.9)"),
        "{}",
        hints[0]
    );
    assert!(stdout.contains(&format!("hint: {}", hints[0])), "{stdout}");
    let mut declared = on_kit_cases(&args);
    declared.extend(["--declare", "count-pinned"]);
    let (out, r) = report(dir.path(), &declared, &[python(), "-S", "-c", counting]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains(&format!(
            "policy suffix format openai declares count-pinned: {EVERY_LEVEL}"
        )),
        "{stdout}"
    );
    assert_eq!(r["declared"], json!(["count-pinned"]));
    assert_eq!(r["hints"], json!([]));
}
