//! The in-process hook (`Job::with_sessions`, `InProcessSession`): a whole
//! certification against a function of text, no process started, its
//! answers read as a process's are (JSON, ids, size), its errors stopping
//! the run; what the Python package's `certify(fn)` runs on.

use reducer_kit::certify::cases::CasePlan;
use reducer_kit::certify::job::Unwatched;
use reducer_kit::certify::report::{json, text};
use reducer_kit::certify::run::CaseList;
use reducer_kit::certify::session::{InProcessSession, ReferenceSession, RunError};
use reducer_kit::{Certified, CertifyOptions, Clause, Format, Job, Policy, Protocol};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

fn corpus_spec() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/spec"))
}

/// The options of a small run: `corpus/spec` and 100 generated cases, one
/// worker, no command.
fn options(policy: Policy, format: Format, protocol: Protocol) -> CertifyOptions {
    CertifyOptions {
        policy,
        format,
        protocol,
        corpus: vec![corpus_spec()],
        generated: 100,
        jobs: Some(1),
        ..CertifyOptions::default()
    }
}

/// `job` run against `answer`, a function of the request's text.
fn certify<F>(job: Job, answer: F) -> (Job, Result<Certified, RunError>)
where
    F: Fn(&str) -> Result<String, RunError> + Clone + Send + Sync + 'static,
{
    let job = job
        .with_sessions(move |settings| Box::new(InProcessSession::new(settings, answer.clone())));
    let plan = job.plan().unwrap();
    let certified = job.run(&plan, &[], &Unwatched);
    (job, certified)
}

/// The last `maxMessages` messages, whatever they are (the naive reducer).
fn last_n(request: &str) -> Result<String, RunError> {
    let r: Value = serde_json::from_str(request).unwrap();
    let Some(n) = r["maxMessages"].as_u64().filter(|&n| n >= 1) else {
        return Ok(json!({"error": "bad budget"}).to_string());
    };
    let m = r["messages"].as_array().unwrap();
    let kept = &m[m.len().saturating_sub(n as usize)..];
    Ok(json!({"messages": kept}).to_string())
}

#[test]
fn the_reference_as_a_function_passes_every_level_with_no_process() {
    for (format, protocol) in [
        (Format::Canonical, Protocol::V1),
        (Format::OpenAi, Protocol::V1),
        (Format::Anthropic, Protocol::V2),
    ] {
        let calls = Arc::new(AtomicUsize::new(0));
        let counted = calls.clone();
        let reference = ReferenceSession {
            policy: Policy::Suffix,
            format,
            provider: None,
            protocol,
        };
        let job = options(Policy::Suffix, format, protocol).resolve().unwrap();
        let (job, certified) = certify(job, move |t| {
            counted.fetch_add(1, Ordering::SeqCst);
            Ok(reference.answer(t).to_string())
        });
        // An empty command would fail to start if a process were tried.
        let certified = certified.unwrap();
        assert!(certified.grade.passed(), "{format} {protocol:?}");
        assert!(!certified.failed(false));
        let plan = job.plan().unwrap();
        let report = json::to_json(&certified.report(&job, &plan));
        assert_eq!(report["mode"], "in-process");
        assert_eq!(report["passed"], true);
        // The first request, its repeat, the output again, the smaller budget.
        assert!(
            calls.load(Ordering::SeqCst)
                > 3 * reducer_kit::certify::run::CaseList::count(&plan) / 2
        );
    }
}

#[test]
fn a_naive_function_is_shrunk_to_its_counterexample_with_the_rerun_given() {
    let job = options(Policy::Suffix, Format::Canonical, Protocol::V1)
        .resolve()
        .unwrap();
    let (job, certified) = certify(job, last_n);
    let certified = certified.unwrap();
    assert!(certified.failed(false));
    let cx = certified
        .counterexamples
        .iter()
        .find(|c| c.clause == Clause::NoOrphanResult)
        .expect("no-orphan-result is shrunk");
    assert!(cx.case.messages.len() <= 4, "{:?}", cx.case.messages);
    let plan = job.plan().unwrap();
    let options = text::TextOptions {
        rerun: Some("certify(last_n, case={case})".into()),
        ..Default::default()
    };
    let report = text::render(&certified.report(&job, &plan), &options);
    assert!(
        report.contains("  reproduce: certify(last_n, case=\""),
        "{report}"
    );
    assert!(!report.contains("reducer-kit certify --policy"), "{report}");
}

#[test]
fn answers_are_read_as_a_process_answers_are() {
    let small = |job: Job| Job {
        sources: reducer_kit::certify::Sources {
            only: vec!["gen/1/3".into()],
            ..job.sources
        },
        ..job
    };
    let failures = |certified: &Certified| -> Vec<(Clause, String)> {
        certified
            .collected
            .records
            .iter()
            .flat_map(|r| r.failures.clone())
            .collect()
    };
    // Not JSON: protocol-json, naming what it wrote.
    let job = small(
        options(Policy::Suffix, Format::Canonical, Protocol::V1)
            .resolve()
            .unwrap(),
    );
    let (_, c) = certify(job, |_| Ok("<TypeError: set>".into()));
    let f = failures(&c.unwrap());
    assert_eq!(f[0].0, Clause::ProtocolJson);
    assert!(f[0].1.contains("it wrote \"<TypeError: set>\""), "{f:?}");
    // Protocol 2: an answer that does not echo the request's id.
    let job = small(
        options(Policy::Suffix, Format::Canonical, Protocol::V2)
            .resolve()
            .unwrap(),
    );
    let (_, c) = certify(job, |t| {
        let r: Value = serde_json::from_str(t).unwrap();
        assert!(r["id"].is_u64(), "{t}");
        Ok(json!({"messages": r["messages"]}).to_string())
    });
    let f = failures(&c.unwrap());
    assert!(f[0].1.contains("does not echo the request's `id`"), "{f:?}");
    // Longer than --max-output: protocol-size.
    let mut o = options(Policy::Suffix, Format::Canonical, Protocol::V1);
    o.max_output = 10;
    let (_, c) = certify(small(o.resolve().unwrap()), last_n);
    assert_eq!(failures(&c.unwrap())[0].0, Clause::ProtocolSize);
}

#[test]
fn an_error_of_the_function_stops_the_run() {
    let job = options(Policy::Turns, Format::Canonical, Protocol::V1)
        .resolve()
        .unwrap();
    let (_, c) = certify(job, |_| Err(RunError::Interrupted(2)));
    assert_eq!(c.unwrap().interrupted, Some(2));
    let job = options(Policy::Turns, Format::Canonical, Protocol::V1)
        .resolve()
        .unwrap();
    let (_, c) = certify(job, |_| Err(RunError::Start("gone".into())));
    assert_eq!(c.unwrap_err(), RunError::Start("gone".into()));
}

/// `options` against [`last_n`] in process, run twice: on its plan itself
/// (the plan and the run are the first two members), and on a plan of its
/// own handed over (the spent plan and the run).
fn kept_and_handed(options: CertifyOptions) -> (CasePlan, Certified, CasePlan, Certified) {
    let job = options
        .resolve()
        .unwrap()
        .with_sessions(|settings| Box::new(InProcessSession::new(settings, last_n)));
    let plan = job.plan().unwrap();
    let kept = job.run(&plan, &[], &Unwatched).unwrap();
    // Planned again: a clone would share its cases with `plan`.
    let mut spent = job.plan().unwrap();
    let handed = job.run(&spent.hand_over(), &[], &Unwatched).unwrap();
    (plan, kept, spent, handed)
}

/// A run that is handed its plan's cases (`CasePlan::hand_over`, what
/// `certify` runs) moves a failure's example into its shrink rather than
/// copying it (spec §9.1): after the run the examples that shrank hold no
/// messages, and the counterexamples are those of a run on the plan
/// itself, where every example keeps its messages.
#[test]
fn a_handed_plan_moves_a_failure_example_into_its_shrink() {
    let (plan, kept, spent, handed) = kept_and_handed(CertifyOptions {
        generated: 0,
        ..options(Policy::Suffix, Format::Canonical, Protocol::V1)
    });
    assert_eq!(plan.count(), kept.collected.records.len());
    assert_eq!(spent.count(), 0, "a handed plan is spent");
    assert_eq!(spent.counts, plan.counts);
    assert_eq!(handed.counterexamples, kept.counterexamples);
    assert!(!kept.counterexamples.is_empty());
    // On the plan itself every example is the plan's too: copied.
    for g in &kept.collected.failures {
        assert!(!g.example.case.messages.is_empty(), "{}", g.example.case.id);
    }
    // Handed, an example that shrank gave its messages to the shrink, and
    // one that did not got them back.
    let mut moved = 0;
    for g in &handed.collected.failures {
        if g.example.case.messages.is_empty() {
            moved += 1;
            // Its counterexample, or the one of its clause it merged into
            // (the same root shapes), is shrunk.
            assert!(
                handed
                    .counterexamples
                    .iter()
                    .any(|cx| cx.clause == g.clause && cx.shrunk),
                "{}",
                g.example.case.id
            );
        }
    }
    assert!(moved > 0, "no example was moved");
}

/// A huge case that fails two clauses (a naive last-N cut of a
/// 5,000-message history under `turns`: `whole-turns` and
/// `matches-reference`) is shrunk for both from one copy of its messages
/// (spec §9.1): handed over, the example both failures share gave its
/// messages to the shrinks and they took them, where on the plan itself
/// it keeps them; both runs give the same counterexamples, each shrunk.
#[test]
fn a_huge_example_two_clauses_share_is_held_once() {
    let n = 5_000;
    assert!(n >= reducer_kit::certify::counterexample::SHARED_HUGE_MESSAGES);
    let dir = tempfile::tempdir().unwrap();
    let message = |i: usize| {
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        json!({"role": role, "contents": [{"$type": "text", "text": format!("m{i}")}]})
    };
    let case = json!([{
        "id": "long/5000",
        "spec": 1,
        "policy": "turns",
        "maxMessages": 3,
        "expected": [message(n - 2), message(n - 1)],
        "messages": (0..n).map(message).collect::<Vec<_>>(),
    }]);
    std::fs::write(dir.path().join("long.json"), case.to_string()).unwrap();
    let (_, kept, _, handed) = kept_and_handed(CertifyOptions {
        corpus: vec![dir.path().to_path_buf()],
        generated: 0,
        jobs: Some(2),
        ..options(Policy::Turns, Format::Canonical, Protocol::V1)
    });
    let clauses = |c: &Certified| {
        let mut v: Vec<Clause> = c.counterexamples.iter().map(|cx| cx.clause).collect();
        v.sort();
        v
    };
    assert_eq!(
        clauses(&handed),
        [Clause::WholeTurns, Clause::MatchesReference]
    );
    assert_eq!(handed.counterexamples, kept.counterexamples);
    for cx in &handed.counterexamples {
        assert!(cx.shrunk, "{}", cx.clause);
        assert_eq!(cx.original_id, "long/5000");
    }
    for (c, held) in [(&kept, n), (&handed, 0)] {
        let groups = &c.collected.failures;
        assert_eq!(groups.len(), 2);
        assert!(Arc::ptr_eq(&groups[0].example, &groups[1].example));
        assert_eq!(groups[0].example.case.messages.len(), held);
        assert_eq!(
            groups[0].example.verdicts.len(),
            kept.collected.failures[0].example.verdicts.len()
        );
    }
}
