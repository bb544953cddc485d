//! Tests of running one case.

use super::*;
use crate::certify::generated_case;
use crate::certify::process::Reducer;
use crate::certify::session::{Exchange, ReferenceSession};
use crate::formats::Format;
use crate::protocol::Protocol;
use crate::terms::Policy;

/// One worker's protocol 1 settings with the extra requests, for an
/// in-process session (no reducer command).
fn settings(format: Format, policy: Policy) -> Settings {
    Settings::new(Reducer::new(Vec::new()), format, policy)
}

/// The runner over the in-process reference session: every clause of
/// every level passes, in every format.
#[test]
fn the_reference_session_passes_every_clause() {
    for format in Format::ALL {
        for policy in Policy::ALL {
            let settings = settings(format, policy);
            let mut session = ReferenceSession {
                policy,
                format,
                provider: None,
                protocol: Protocol::V1,
            };
            for n in 0..40 {
                let case = generated_case(1, n, format, Protocol::V1);
                let r = run_case(&mut session, &settings, &case).unwrap();
                let failed: Vec<_> = r.failures().collect();
                assert!(
                    failed.is_empty(),
                    "{format} {policy} {}: {failed:?}",
                    case.id
                );
                assert!(r.skipped().is_none() || format != Format::Canonical);
                let record = CaseRecord::of(&r);
                assert!(!record.failed());
                if r.skipped().is_none() {
                    assert_eq!(record.outcome(Clause::Budget), Judged::Pass);
                }
            }
        }
    }
}

/// An in-process session that keeps the text of its previous answer,
/// as [`PersistentSession`] keeps the bytes: `exchange_unless_same`
/// leaves an answer with the same text unread. With `tamper`, the
/// answers to requests number `tamper.0` modulo `tamper.1` (from 0)
/// lose their first message.
struct Remembering {
    reference: ReferenceSession,
    last: Option<String>,
    sent: usize,
    tamper: Option<(usize, usize)>,
    unread: usize,
}

impl Remembering {
    fn answer(&mut self, request: &OutgoingRequest) -> (String, Response) {
        let mut response = self.reference.respond(&request.to_value());
        if let (Some((k, m)), Response::Messages(ms)) = (self.tamper, &mut response) {
            if self.sent % m == k && !ms.is_empty() {
                ms.remove(0);
            }
        }
        self.sent += 1;
        let text = crate::protocol::response_json(self.reference.format, &response);
        (text.to_string(), response)
    }
}

impl Session for Remembering {
    fn exchange(&mut self, request: &OutgoingRequest) -> Result<Exchange, RunError> {
        let (text, response) = self.answer(request);
        self.last = Some(text);
        Ok(Ok(response))
    }

    fn exchange_unless_same(
        &mut self,
        request: &OutgoingRequest,
    ) -> Result<Option<Exchange>, RunError> {
        let (text, response) = self.answer(request);
        if self.last.as_ref() == Some(&text) {
            self.unread += 1;
            return Ok(None);
        }
        self.last = Some(text);
        Ok(Some(Ok(response)))
    }
}

/// An answer the same as the one before stands for the response that
/// one stands for, down a chain of them; a request not answered has
/// none.
#[test]
fn an_answer_the_same_as_another_is_its_response() {
    let first = Response::Messages(vec![serde_json::json!({"role": "user", "content": "a"})]);
    let other = Response::Error("over budget".into());
    let answers: Answers = vec![
        (ExtraKind::Repeat, 2, Answer::Read(other.clone())),
        (ExtraKind::Again, 2, Answer::Same(Some(ExtraKind::Repeat))),
        (ExtraKind::Smaller, 1, Answer::Same(Some(ExtraKind::Again))),
    ];
    assert_eq!(answer_to(&first, &answers, None), Some(&first));
    for kind in [ExtraKind::Repeat, ExtraKind::Again, ExtraKind::Smaller] {
        assert_eq!(
            answer_to(&first, &answers, Some(kind)),
            Some(&other),
            "{kind:?}"
        );
    }
    let answers: Answers = vec![
        (ExtraKind::Repeat, 2, Answer::Same(None)),
        (ExtraKind::Smaller, 1, Answer::Same(Some(ExtraKind::Repeat))),
    ];
    assert_eq!(
        answer_to(&first, &answers, Some(ExtraKind::Smaller)),
        Some(&first)
    );
    assert_eq!(answer_to(&first, &answers, Some(ExtraKind::Again)), None);
}

/// The runner copies a response left unread from the answer it
/// repeats: the results are the same as when every answer is read, and
/// a repeated request answered differently still fails `deterministic`.
#[test]
fn an_answer_left_unread_is_the_response_it_repeats() {
    for format in [Format::Canonical, Format::OpenAi, Format::Responses] {
        let settings = settings(format, Policy::Suffix);
        let reference = ReferenceSession {
            policy: Policy::Suffix,
            format,
            provider: None,
            protocol: Protocol::V1,
        };
        let mut remembering = Remembering {
            reference,
            last: None,
            sent: 0,
            tamper: None,
            unread: 0,
        };
        let mut plain = reference;
        for n in 0..60 {
            let case = generated_case(3, n, format, Protocol::V1);
            let read = run_case(&mut plain, &settings, &case).unwrap();
            let copied = run_case(&mut remembering, &settings, &case).unwrap();
            assert_eq!(copied, read, "{format} {}", case.id);
        }
        assert!(remembering.unread >= 60, "{format}: {}", remembering.unread);

        // Every case's second request (the repeated one) is answered
        // without its first message.
        let mut flaky = Remembering {
            reference,
            last: None,
            sent: 0,
            tamper: Some((1, usize::MAX)),
            unread: 0,
        };
        let case = generated_case(3, 1, format, Protocol::V1);
        let r = run_case(&mut flaky, &settings, &case).unwrap();
        let failed: Vec<Clause> = r.failures().map(|v| v.clause).collect();
        assert!(
            failed.contains(&Clause::Deterministic),
            "{format}: {failed:?}"
        );
        assert_eq!(
            r.response,
            run_case(&mut plain, &settings, &case).unwrap().response
        );
    }
}

#[test]
fn a_late_failure_is_labelled_with_the_request_it_followed() {
    let mut r = CaseResult {
        case: RunCase::with_max_messages("a/b".into(), Value::from(2), Vec::new()),
        took: std::time::Duration::ZERO,
        response: None,
        verdicts: vec![Verdict {
            clause: Clause::ProtocolJson,
            outcome: Outcome::Pass,
        }],
        stderr_tail: String::new(),
        outcome: crate::certify::result::CaseOutcome::Judged { valid_input: true },
        last_request: Some(ExtraKind::Smaller),
    };
    let late = ProtocolFailure {
        clause: Clause::ProtocolJson,
        detail: r#"wrote 1 unrequested byte after its answer: "\n""#.into(),
        stderr_tail: "tail".into(),
    };
    r.add_protocol_failure(late.clone());
    r.last_request = None;
    r.add_protocol_failure(late);
    assert_eq!(
        r.verdicts,
        vec![Verdict {
            clause: Clause::ProtocolJson,
            outcome: Outcome::Fail(
                r#"the request with a smaller budget: wrote 1 unrequested byte after its answer: "\n"; wrote 1 unrequested byte after its answer: "\n""#
                    .into()
            ),
        }]
    );
    assert_eq!(r.stderr_tail, "tail");
}
