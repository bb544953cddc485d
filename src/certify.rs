//! Certification runs: which cases (corpus, generated, replayed, sharded),
//! shrinking failures to minimal counterexamples, expected failures, and the
//! JSON and JUnit renderings of a run. The text report lives in the CLI.

use crate::case::expect::{expectation, needs_pending};
use crate::case::{Case, SPEC_VERSION};
use crate::check::Outcome;
use crate::formats::Format;
use crate::generate::{seeded_case, Config};
use crate::json::first_difference;
use crate::protocol::Response;
use crate::quick::QuickCase;
use crate::reduce::reduce;
use crate::runner::{grade, run_cases, CaseResult, Grade, RunCase, RunError, Settings};
use crate::terms::{Budget, Clause, Level, Policy};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The generator configuration used for generated cases in `format`.
pub fn generator_config(format: Format) -> Config {
    Config::everything().sanitize_for(format)
}

/// Generated case `n` of stream `seed`, with id `gen/<seed>/<n>`.
pub fn generated_case(seed: u64, n: u64, format: Format) -> RunCase {
    let g = seeded_case(seed, n, &generator_config(format));
    RunCase {
        id: format!("gen/{seed}/{n}"),
        max_messages: Value::from(g.budget),
        messages: g.messages,
    }
}

/// Reads a generated case id `gen/<seed>/<n>`.
pub fn parse_generated_id(id: &str) -> Option<(u64, u64)> {
    let rest = id.strip_prefix("gen/")?;
    let (seed, n) = rest.split_once('/')?;
    Some((seed.parse().ok()?, n.parse().ok()?))
}

/// A run case from a case file.
pub fn from_case(case: &Case) -> RunCase {
    RunCase {
        id: case.id.clone(),
        max_messages: case.max_messages.clone(),
        messages: case.messages.clone(),
    }
}

/// A shard `K/N` (1-based K): the cases whose position in the full list is
/// `K-1` modulo `N`. The N shards of one list run every case exactly once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// This shard, 1..=count.
    pub index: usize,
    /// How many shards.
    pub count: usize,
}

impl std::str::FromStr for Shard {
    type Err = String;
    /// Parses `K/N` with 1 ≤ K ≤ N.
    fn from_str(s: &str) -> Result<Shard, String> {
        let (k, n) = s
            .split_once('/')
            .ok_or_else(|| format!("expected K/N, got {s:?}"))?;
        let index: usize = k
            .trim()
            .parse()
            .map_err(|_| format!("expected K/N, got {s:?}"))?;
        let count: usize = n
            .trim()
            .parse()
            .map_err(|_| format!("expected K/N, got {s:?}"))?;
        if count == 0 || index == 0 || index > count {
            return Err(format!("shard {s:?}: need 1 <= K <= N"));
        }
        Ok(Shard { index, count })
    }
}

impl Shard {
    /// Keeps this shard's cases.
    pub fn select<T>(&self, items: Vec<T>) -> Vec<T> {
        items
            .into_iter()
            .enumerate()
            .filter(|(i, _)| i % self.count == self.index - 1)
            .map(|(_, c)| c)
            .collect()
    }
}

/// One expected failure: a case id and a clause id.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Expectation {
    /// The case id.
    pub case: String,
    /// The clause id.
    pub clause: String,
}

/// Reads an expected-failures file: one `CASE-ID CLAUSE-ID` pair a line;
/// blank lines and `#` comments are ignored.
///
/// # Errors
///
/// `path:line: ...` for a line that is not two words or names an unknown
/// clause.
pub fn parse_expectations(text: &str, path: &Path) -> Result<Vec<Expectation>, String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let [case, clause] = words.as_slice() else {
            return Err(format!(
                "{}:{}: expected `CASE-ID CLAUSE-ID`, got {line:?}",
                path.display(),
                n + 1
            ));
        };
        if Clause::from_id(clause).is_none() {
            return Err(format!(
                "{}:{}: unknown clause id {clause:?}",
                path.display(),
                n + 1
            ));
        }
        out.push(Expectation {
            case: case.to_string(),
            clause: clause.to_string(),
        });
    }
    Ok(out)
}

/// How the run's failures compare with the expected ones.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExpectationCheck {
    /// Failures that were expected.
    pub expected: Vec<Expectation>,
    /// Failures that were not.
    pub unexpected: Vec<Expectation>,
    /// Expected failures that did not happen (the case passed that clause,
    /// or did not run).
    pub now_passing: Vec<Expectation>,
}

/// Sorts the run's failures into expected and unexpected ones.
pub fn compare_expectations(
    results: &[CaseResult],
    expectations: &[Expectation],
) -> ExpectationCheck {
    let listed: BTreeSet<&Expectation> = expectations.iter().collect();
    let mut check = ExpectationCheck::default();
    let mut seen = BTreeSet::new();
    for r in results {
        for v in r.failures() {
            let e = Expectation {
                case: r.case.id.clone(),
                clause: v.clause.id().to_string(),
            };
            if listed.contains(&e) {
                seen.insert(e.clone());
                check.expected.push(e);
            } else {
                check.unexpected.push(e);
            }
        }
    }
    // Only a listed failure whose case ran can be said to pass now: a case
    // of another shard, or filtered out, says nothing.
    let ran: BTreeSet<&str> = results
        .iter()
        .filter(|r| r.skipped.is_none())
        .map(|r| r.case.id.as_str())
        .collect();
    check.now_passing = expectations
        .iter()
        .filter(|e| !seen.contains(e) && ran.contains(e.case.as_str()))
        .cloned()
        .collect();
    check
}

/// A failure shrunk to a minimal counterexample.
#[derive(Clone, Debug, PartialEq)]
pub struct Counterexample {
    /// The clause that fails.
    pub clause: Clause,
    /// The case it was shrunk from.
    pub original_id: String,
    /// The minimal case (canonical messages), with a content-hash id
    /// `fail/<16 hex>`.
    pub case: RunCase,
    /// The failure's text on the minimal case.
    pub detail: String,
    /// The reference reducer's output for it, in the reducer's wire format.
    pub expected: Response,
    /// The reducer's response, when it gave one.
    pub actual: Option<Response>,
    /// The first JSON path where `actual` differs from `expected`.
    pub first_difference: Option<String>,
    /// Candidates tried while shrinking.
    pub tries: usize,
    /// Where it was saved, with `--save-failures`.
    pub saved_to: Option<PathBuf>,
}

impl Counterexample {
    /// The counterexample as a case file: `expected` is the reference
    /// output (canonical) and `clauses` names the failing clause.
    pub fn to_case(&self, policy: Policy) -> Case {
        let mut case = Case {
            id: String::new(),
            spec: SPEC_VERSION,
            policy,
            max_messages: self.case.max_messages.clone(),
            messages: self.case.messages.clone(),
            expected: None,
            expected_error: None,
            clauses: vec![self.clause.id().to_string()],
            allow_pending: false,
            violations: Vec::new(),
            description: format!(
                "counterexample for {} (shrunk from {}): {}",
                self.clause, self.original_id, self.detail
            ),
        };
        let expected = needs_pending(&case.messages).and_then(|allow_pending| {
            case.allow_pending = allow_pending;
            expectation(policy, &case.max_messages, &case.messages, allow_pending)
        });
        match expected {
            Ok(e) => e.apply_to(&mut case),
            // Messages the reference cannot read: the case says bad-budget,
            // as it always has (the case format cannot expect unreadable
            // messages).
            Err(_) => case.expected_error = Some(crate::case::ExpectedError::BadBudget),
        }
        case.id = case.content_id("fail");
        case
    }
}

/// Shrinks `failing` (whose result fails `clause`) with the structural
/// shrinker of [`crate::quick`], keeping `clause` failing, within `max_tries`
/// candidate runs. Cases whose input is not a valid history or whose budget
/// is not an integer are not shrunk (the counterexample is the case itself).
///
/// # Errors
///
/// [`RunError`] when the reducer cannot be started.
pub fn shrink(
    settings: &Settings,
    failing: &CaseResult,
    clause: Clause,
    max_tries: usize,
) -> Result<Counterexample, RunError> {
    let needs_extras = matches!(
        clause,
        Clause::Deterministic | Clause::Idempotent | Clause::BudgetMonotone
    );
    let one = Settings {
        jobs: 1,
        extra_requests: needs_extras,
        ..settings.clone()
    };
    let mut tries = 0usize;
    let mut fatal: Option<RunError> = None;
    let mut best: CaseResult = failing.clone();
    if let Ok(budget) = Budget::parse(&failing.case.max_messages).map(Budget::max_messages) {
        let start = QuickCase {
            messages: failing.case.messages.clone(),
            budget,
            allow_pending: false,
        };
        let start = if start.is_valid() {
            Some(start)
        } else {
            Some(QuickCase {
                allow_pending: true,
                ..start
            })
            .filter(QuickCase::is_valid)
        };
        if let Some(start) = start {
            let mut fails = |c: &QuickCase| -> bool {
                if tries >= max_tries || fatal.is_some() {
                    return false;
                }
                tries += 1;
                let rc = RunCase {
                    id: failing.case.id.clone(),
                    max_messages: Value::from(c.budget),
                    messages: c.messages.clone(),
                };
                match run_cases(&one, std::slice::from_ref(&rc), &|_| {}) {
                    Ok(mut r) => {
                        let r = r.remove(0);
                        let hit = r.failures().any(|v| v.clause == clause);
                        // Greedy shrinking restarts from every failing
                        // candidate, so the last one is the minimal one.
                        if hit {
                            best = r;
                        }
                        hit
                    }
                    Err(e) => {
                        fatal = Some(e);
                        false
                    }
                }
            };
            start.minimize(&mut fails);
        }
    }
    if let Some(e) = fatal {
        return Err(e);
    }
    let detail = best
        .verdicts
        .iter()
        .find(|v| v.clause == clause)
        .and_then(|v| match &v.outcome {
            Outcome::Fail(d) => Some(d.clone()),
            _ => None,
        })
        .unwrap_or_default();
    let expected = match reduce(
        settings.policy,
        settings.format,
        &best.wire_messages,
        &best.case.max_messages,
    ) {
        Ok(m) => Response::Messages(m),
        Err(e) => Response::Error(e.to_string()),
    };
    let first_difference = match (&expected, &best.response) {
        (Response::Messages(a), Some(Response::Messages(b))) => {
            first_difference(&Value::Array(a.clone()), &Value::Array(b.clone()))
        }
        (_, None) => None,
        (a, Some(b)) if a.same_as(b) => None,
        _ => Some("$".into()),
    };
    let mut cx = Counterexample {
        clause,
        original_id: failing.case.id.clone(),
        case: best.case.clone(),
        detail,
        expected,
        actual: best.response.clone(),
        first_difference,
        tries,
        saved_to: None,
    };
    cx.case.id = cx.to_case(settings.policy).id;
    Ok(cx)
}

/// For each failing clause, the failing case with the fewest messages
/// (then the smallest id), shrunk. Protocol timeouts are not shrunk (each
/// try would cost a full time limit); they are reported as they are.
///
/// # Errors
///
/// [`RunError`] when the reducer cannot be started.
pub fn counterexamples(
    settings: &Settings,
    results: &[CaseResult],
    max_tries: usize,
) -> Result<Vec<Counterexample>, RunError> {
    let mut work: Vec<(Clause, &CaseResult, usize)> = Vec::new();
    for clause in Clause::ALL {
        let smallest = results
            .iter()
            .filter(|r| r.failures().any(|v| v.clause == *clause))
            .min_by_key(|r| (r.case.messages.len(), r.case.id.clone()));
        let Some(r) = smallest else { continue };
        let tries = if *clause == Clause::ProtocolTimeout {
            0
        } else {
            max_tries
        };
        work.push((*clause, r, tries));
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let out: std::sync::Mutex<Vec<Option<Result<Counterexample, RunError>>>> =
        std::sync::Mutex::new((0..work.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..settings.jobs.max(1).min(work.len().max(1)) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some((clause, r, tries)) = work.get(i) else {
                    return;
                };
                let cx = shrink(settings, r, *clause, *tries);
                out.lock().expect("no shrinker panics")[i] = Some(cx);
            });
        }
    });
    out.into_inner()
        .expect("no shrinker panics")
        .into_iter()
        .map(|c| c.expect("every clause was shrunk"))
        .collect()
}

/// Everything a report renders.
#[derive(Debug)]
pub struct Run<'a> {
    /// How the reducer was run.
    pub settings: &'a Settings,
    /// The seed of the generated cases, when there were any.
    pub seed: Option<u64>,
    /// One record per case.
    pub results: &'a [CaseResult],
    /// The graded verdict.
    pub grade: &'a Grade,
    /// Minimal counterexamples.
    pub counterexamples: &'a [Counterexample],
    /// Expected failures compared with the run.
    pub expectations: &'a ExpectationCheck,
}

fn response_json(r: &Option<Response>) -> Value {
    r.as_ref().map_or(Value::Null, Response::to_json)
}

/// The certificate line: kit version, spec version, policy, format, levels
/// passed, cases run and seed.
pub fn certificate(run: &Run) -> String {
    let passed: Vec<&str> = run
        .grade
        .levels
        .iter()
        .filter(|(_, ok)| *ok)
        .map(|(l, _)| l.name())
        .collect();
    format!(
        "certificate: reducer-kit {} spec v{SPEC_VERSION} policy {} format {}: levels passed [{}]; {} cases run, {} skipped; seed {}",
        env!("CARGO_PKG_VERSION"),
        run.settings.policy,
        run.settings.format,
        passed.join(", "),
        run.grade.cases_run,
        run.grade.cases_skipped,
        run.seed.map_or("none".to_string(), |s| s.to_string())
    )
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
    let pairs = |v: &[Expectation]| -> Value {
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
        "expectedFailures": pairs(&run.expectations.expected),
        "unexpectedFailures": pairs(&run.expectations.unexpected),
        "nowPassing": pairs(&run.expectations.now_passing),
        "results": results,
    })
}

/// The run as JUnit XML (`--report-junit`): one test suite per level, one
/// test case per (case, level), failing with the clauses that failed.
pub fn to_junit(run: &Run) -> String {
    use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
    let mut report = Report::new(format!(
        "reducer-kit certify ({} policy, {} format)",
        run.settings.policy, run.settings.format
    ));
    for level in [Level::Protocol, Level::Safety, Level::Policy, Level::Exact] {
        let mut suite = TestSuite::new(level.name());
        for r in run.results {
            let status = if let Some(why) = &r.skipped {
                let mut s = TestCaseStatus::skipped();
                s.set_message(why.clone());
                s
            } else {
                let failed: Vec<String> = r
                    .verdicts
                    .iter()
                    .filter(|v| v.clause.level() == level)
                    .filter_map(|v| match &v.outcome {
                        Outcome::Fail(d) => Some(format!("{}: {d}", v.clause)),
                        _ => None,
                    })
                    .collect();
                if failed.is_empty() {
                    TestCaseStatus::success()
                } else {
                    let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                    s.set_message(failed.first().cloned().unwrap_or_default());
                    s.set_description(failed.join("\n"));
                    s
                }
            };
            let mut tc = TestCase::new(r.case.id.clone(), status);
            tc.set_classname(format!("{}.{}", run.settings.policy, level.name()));
            if !r.stderr_tail.is_empty() && r.failures().next().is_some() {
                tc.set_system_err(r.stderr_tail.clone());
            }
            suite.add_test_case(tc);
        }
        report.add_test_suite(suite);
    }
    report.to_string().unwrap_or_default()
}

/// Grades `results`, counting expected failures as failures (the exit code
/// is decided by [`ExpectationCheck::unexpected`]).
pub fn grade_run(policy: Policy, results: &[CaseResult]) -> Grade {
    grade(policy, results)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_partition_the_cases() {
        let all: Vec<usize> = (0..10).collect();
        let parts: Vec<Vec<usize>> = (1..=3)
            .map(|k| Shard { index: k, count: 3 }.select(all.clone()))
            .collect();
        assert_eq!(parts, vec![vec![0, 3, 6, 9], vec![1, 4, 7], vec![2, 5, 8]]);
        assert_eq!("2/3".parse::<Shard>(), Ok(Shard { index: 2, count: 3 }));
        assert!("0/3".parse::<Shard>().is_err());
        assert!("4/3".parse::<Shard>().is_err());
        assert!("x".parse::<Shard>().is_err());
    }

    #[test]
    fn expectations_file() {
        let e = parse_expectations(
            "# known\nseed/a no-orphan-result\n\nseed/b budget # why\n",
            Path::new("x"),
        )
        .unwrap();
        assert_eq!(
            e[1],
            Expectation {
                case: "seed/b".into(),
                clause: "budget".into()
            }
        );
        assert_eq!(
            parse_expectations("a b c", Path::new("x")).unwrap_err(),
            "x:1: expected `CASE-ID CLAUSE-ID`, got \"a b c\""
        );
        assert_eq!(
            parse_expectations("a nope", Path::new("x")).unwrap_err(),
            "x:1: unknown clause id \"nope\""
        );
    }

    #[test]
    fn generated_ids_round_trip() {
        assert_eq!(parse_generated_id("gen/7/123"), Some((7, 123)));
        assert_eq!(parse_generated_id("seed/7/123"), None);
        let a = generated_case(7, 3, Format::Canonical);
        assert_eq!(a.id, "gen/7/3");
        assert_eq!(a, generated_case(7, 3, Format::Canonical));
    }
}
