//! Request ids under protocol 2 (spec §13.7) and the start-up allowance
//! of persistent mode (spec §8.5), asserted by counting: clauses, cases,
//! restarts and answers, never seconds.

use super::{certify, failing_clauses, kit, script};
use serde_json::json;

/// An answer with another id than the request's — a wrong one, the
/// previous request's, the id as a string, 2^64 + the id, `17.0`, `17e0` —
/// is the answer to the request in flight and fails `protocol-json`
/// alone: every case fails it, none times out, no process is restarted
/// (at `--timeout 60000` a case that waited would show as
/// `protocol-timeout`).
#[test]
fn an_answer_with_another_id_fails_protocol_json_alone() {
    let s = script("proxy.py");
    for mode in ["wrong", "stale", "string", "big", "float", "exp"] {
        let run = certify(
            &[
                "--protocol",
                "2",
                "--persistent",
                "--jobs",
                "1",
                "--timeout",
                "60000",
                "--replay",
                "corpus/seed/order-shipment.json",
                "--shrink-tries",
                "0",
            ],
            &["python3", "-S", &s, kit(), "--protocol", "2", "--id", mode],
        );
        assert_eq!(run.code(), Some(1), "{mode}: {}", run.stdout());
        let r = run.report();
        let ran = r["casesRun"].as_u64().unwrap();
        assert!(ran >= 8, "{mode}: {ran} cases run");
        assert_eq!(
            failing_clauses(&run),
            [("protocol-json".to_string(), ran)],
            "{mode}: {}",
            run.stdout()
        );
        assert_eq!(r["restarts"], json!(0), "{mode}");
        let results = r["results"].as_array().unwrap();
        for (i, result) in results.iter().enumerate() {
            if result["status"] == "skip" {
                continue;
            }
            let d = run.detail(i, "protocol-json");
            assert!(
                d.starts_with("the answer's `id` is not the request's ("),
                "{mode} {i}: {d}"
            );
        }
    }
}

/// An answer one id behind — the request's own id for a process's first
/// request, the previous request's after it — is the answer, failed, even
/// where it is byte for byte the previous answer (the repeated request's
/// answer is): no case waits for an answer that will never come, so at
/// `--timeout 60000` none shows `protocol-timeout`. Each such answer
/// leaves the process out of step and a new one answers the next request
/// (spec §13.7): every case fails `protocol-json` alone.
#[test]
fn an_answer_one_id_behind_fails_at_once_and_restarts_the_reducer() {
    let s = script("proxy.py");
    let run = certify(
        &[
            "--protocol",
            "2",
            "--persistent",
            "--jobs",
            "1",
            "--timeout",
            "60000",
            "--replay",
            "corpus/seed/order-shipment.json",
            "--shrink-tries",
            "0",
        ],
        &[
            "python3",
            "-S",
            &s,
            kit(),
            "--protocol",
            "2",
            "--id",
            "behind",
        ],
    );
    assert_eq!(run.code(), Some(1), "{}", run.stdout());
    let r = run.report();
    assert_eq!(r["casesRun"], json!(9));
    assert_eq!(failing_clauses(&run), [("protocol-json".to_string(), 9)]);
    // The first case: its first request answered (id 1), the repeated
    // request (id 2) answered with id 1, a new process for the next.
    assert_eq!(
        run.detail(0, "protocol-json"),
        r##"the repeated request: the answer's `id` is not the request's (2); it wrote "{\"id\":1,\"messages\":[{\"role\":\"user\",\"contents\":[{\"$type\":\"text\",\"text\":\"When should it arrive?\"}]}]}""##
    );
    for i in 0..9 {
        let d = run.detail(i, "protocol-json");
        assert!(
            d.contains("the answer's `id` is not the request's ("),
            "{i}: {d}"
        );
    }
    assert_eq!(r["restarts"], json!(13));
}

/// The start-up allowance is one per worker for the run (spec §8.5):
/// every new process draws on it for the time it takes to read its first
/// request. A reducer that lives for one request and takes 0.5 s to read
/// it gets at most (S + T) / 0.5 s = 6 of its start-ups answered with
/// `--startup-timeout 3000 --timeout 300`, however many times it is
/// started (a slower machine answers fewer, never more); every request
/// after that times out.
#[test]
fn the_start_up_allowance_is_one_per_worker() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("answers");
    let s = script("slow_start_once.py");
    let run = certify(
        &[
            "--persistent",
            "--jobs",
            "1",
            "--timeout",
            "300",
            "--startup-timeout",
            "3000",
            "--replay",
            "corpus/seed/order-shipment.json",
            "--shrink-tries",
            "0",
        ],
        &["python3", "-S", &s, log.to_str().unwrap(), "0.5"],
    );
    assert_eq!(run.code(), Some(1), "{}", run.stdout());
    let answered = std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .count();
    assert!((1..=6).contains(&answered), "{answered} answered");
    // One process per request: every case started its reducer again at
    // least once; the cases after the allowance was spent timed out.
    let r = run.report();
    let ran = r["casesRun"].as_u64().unwrap();
    assert!(ran >= 8, "{ran} cases run");
    assert!(
        r["restarts"].as_u64().unwrap() + 1 >= ran,
        "{}",
        r["restarts"]
    );
    let timeouts = failing_clauses(&run)
        .into_iter()
        .find(|(c, _)| c == "protocol-timeout")
        .map_or(0, |(_, n)| n);
    assert!(timeouts + 6 >= ran, "{timeouts} of {ran} cases timed out");
}
