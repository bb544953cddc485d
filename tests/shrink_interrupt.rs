//! A stop asked for while shrinking (SIGINT, spec §8.7) ends the shrink
//! before its next candidate, and every later step of a run: counted in
//! requests, not seconds. Its own test binary: a stop is global to the
//! process.

use reducer_kit::certify::counterexample::{shrink_in, ShrinkLimits};
use reducer_kit::certify::interrupt;
use reducer_kit::certify::job::Options;
use reducer_kit::certify::process::{Limits, Reducer};
use reducer_kit::certify::run::{run_case, RunCase, Settings};
use reducer_kit::certify::session::{Exchange, RunError, Session};
use reducer_kit::certify::SourceError;
use reducer_kit::formats::Format;
use reducer_kit::protocol::{OutgoingRequest, Protocol, Response};
use reducer_kit::terms::{Budget, Clause, Policy};
use serde_json::json;

/// A last-N cut in process that asks the kit to stop at its request
/// `stop_at`, counting its requests.
struct StopsAt {
    requests: usize,
    stop_at: usize,
}

impl Session for StopsAt {
    fn exchange(&mut self, request: &OutgoingRequest) -> Result<Exchange, RunError> {
        self.requests += 1;
        if self.requests == self.stop_at {
            interrupt::request(2);
        }
        let request = request.to_value();
        let budget = Budget::parse(&request["maxMessages"])
            .unwrap()
            .max_messages();
        let messages = request["messages"].as_array().unwrap();
        let kept = messages[messages.len().saturating_sub(budget)..].to_vec();
        Ok(Ok(Response::Messages(kept)))
    }
}

#[test]
fn a_stop_ends_the_shrink_before_its_next_candidate() {
    let messages = (0..2_000)
        .map(|i| {
            let role = if i % 2 == 0 { "user" } else { "assistant" };
            json!({"role": role, "contents": [{"$type": "text", "text": i.to_string()}]})
        })
        .collect();
    let settings = Settings {
        reducer: Reducer::new(Vec::new()),
        format: Format::Canonical,
        policy: Policy::Turns,
        limits: Limits::default(),
        persistent: true,
        jobs: 1,
        extra_requests: false,
        protocol: Protocol::V1,
        summaries: false,
        declared: Default::default(),
        without: Vec::new(),
        provider: None,
        sessions: None,
        outside: Vec::new(),
    };
    let case = RunCase::with_max_messages("long/2000".into(), json!(3), messages);
    // The case, then the first three candidates; the stop comes with the
    // third.
    let mut session = StopsAt {
        requests: 0,
        stop_at: 4,
    };
    let failing = run_case(&mut session, &settings, &case).unwrap();
    let shrink = |session: &mut StopsAt| {
        shrink_in(
            session,
            &settings,
            &failing,
            Clause::WholeTurns,
            &ShrinkLimits::tries(200),
            &|_| {},
        )
    };
    assert_eq!(shrink(&mut session).unwrap_err(), RunError::Interrupted(2));
    assert_eq!(session.requests, 4);

    // Once stopped, a case is asked once and not judged, and shrinking
    // asks nothing.
    let mut after = StopsAt {
        requests: 0,
        stop_at: 0,
    };
    assert_eq!(
        run_case(&mut after, &settings, &case).unwrap_err(),
        RunError::Interrupted(2)
    );
    assert_eq!(after.requests, 1);
    assert_eq!(shrink(&mut after).unwrap_err(), RunError::Interrupted(2));
    assert_eq!(after.requests, 1);
    // Nor are the cases of a run read: planning stops at the first.
    let job = Options {
        command: vec!["true".into()],
        generated: 10,
        ..Options::default()
    }
    .resolve()
    .unwrap();
    let err = job.plan().unwrap_err();
    assert!(matches!(err, SourceError::Interrupted(2)), "{err:?}");
    assert_eq!(err.exit_code(), 130);
    assert_eq!(
        err.to_string(),
        "stopped by SIGINT while reading the cases: no case was run"
    );
}
