//! `certify --stop-after-first`: a failing reducer's run stops at its
//! first defect (a clause failed on a valid input), shrinks it and
//! reports; a passing reducer's run still runs every case. Counted in
//! cases, never in seconds.

use serde_json::Value;

use crate::common::{certify, example, kit_path, on_kit_cases, python, text};

fn report(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn a_failing_run_stops_at_its_first_defect() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let out = certify(
        &on_kit_cases(&[
            "--policy",
            "suffix",
            "--persistent",
            "--jobs",
            "1",
            "--stop-after-first",
            "--report-json",
            json.to_str().unwrap(),
        ]),
        &[python(), "-S", &example("naive_last_n.py"), "--persistent"],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let r = report(&json);
    // One worker: the cases before the first defect, the defect, and the
    // case that had begun when it was recorded.
    assert_eq!(r["firstDefect"]["case"], "seed/order-shipment-suffix-3");
    assert_eq!(
        r["stoppedAtFirstDefect"],
        serde_json::json!({"case": "seed/order-shipment-suffix-3", "notRun": 2022})
    );
    assert_eq!(r["casesRun"], 4);
    assert!(stdout.contains(
        "STOPPED at the first defect (--stop-after-first), case seed/order-shipment-suffix-3: 2,022 cases were not run\n"
    ), "{stdout}");
    // Shrunk and shown as a run without the flag shows it.
    assert!(stdout.contains(
        "minimal counterexample for no-orphan-result, valid-output, matches-reference (2 messages, maxMessages 1; shrunk from seed/order-shipment-suffix-3 in "
    ), "{stdout}");
    assert_eq!(r["passed"], false);
}

#[test]
fn a_passing_run_runs_every_case() {
    let dir = tempfile::tempdir().unwrap();
    let (with, without) = (dir.path().join("a.json"), dir.path().join("b.json"));
    for (json, flag) in [(&with, Some("--stop-after-first")), (&without, None)] {
        let mut args = vec![
            "--policy",
            "turns",
            "--persistent",
            "--cases",
            "300",
            "--report-json",
            json.to_str().unwrap(),
        ];
        args.extend(flag);
        let out = certify(
            &on_kit_cases(&args),
            &[kit_path(), "serve", "--policy", "turns", "--persistent"],
        );
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    }
    let (a, b) = (report(&with), report(&without));
    assert_eq!(a["casesRun"], b["casesRun"]);
    assert!(a["casesRun"].as_u64().unwrap() > 300, "{}", a["casesRun"]);
    assert_eq!(a.get("stoppedAtFirstDefect"), None);
    assert_eq!(a["certificate"], b["certificate"]);
}
