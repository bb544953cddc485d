//! The judging steps of one case ([`super::run_case`]): the reference
//! reducer's answers, the extra requests the clauses need and their
//! answers, the checker's verdicts on them, and the protocol verdicts.
//! Apart from the sending steps in `run.rs` so that each file reads as one
//! concern: what a case is sent there, how its answers are judged here.

use super::*;

/// The reference reducer's answer to `req` (honouring the run's provider
/// profile, and under `budget-unit=items`, `=batched-results` or
/// `count-pinned` keeping what fits in the declared unit, spec §16.3,
/// §16.9), and with a summary allowed its answer under the budget less
/// the summary's cost, which honours no provider profile (spec §12).
fn reference_answers(
    settings: &Settings,
    req: &Request,
    history: &Result<crate::terms::History, crate::terms::ShapeError>,
) -> (Option<Response>, Option<Response>) {
    let judged = req.messages;
    let items_budget = match history {
        Ok(h) if settings.declared.costs_per_message() => Budget::read(req.budget, judged.len())
            .ok()
            .filter(|b| !b.is_tokens())
            .map(|b| crate::check::in_declared_unit(b, &settings.declared, h).to_fields()),
        _ => None,
    };
    let plain = Reference::new(settings.policy, settings.format);
    let input = match history {
        Ok(h) => {
            Input::classified(judged, h).budget_fields(items_budget.as_ref().unwrap_or(req.budget))
        }
        Err(_) => Input::new(judged).budget_fields(req.budget),
    };
    let reference = Some(Response::from(
        plain.with_provider(settings.provider).reduce(input),
    ));
    let reference_less_summary = req.summary.and_then(|s| {
        let b = Budget::read(req.budget, judged.len()).ok()?;
        Some(Response::from(
            plain.reduce(Input::new(judged).budget(&b.less(s))),
        ))
    });
    (reference, reference_less_summary)
}

/// Sends the extra requests the answer `first` to `req` calls for
/// ([`extra_requests`]: repeat, output again, smaller budget), each
/// preceded by [`Session::settle`] (unrequested output after the previous
/// answer fails `protocol-json`), and gives their answers, each read
/// under `json-numbers` (`json_numbers`) as `first` was. An answer the
/// same byte for byte as the one before is not read again; an extra
/// request answered `unsupported` leaves its clause not judged (but a
/// repeated request so answered is not the same answer); a failed one is
/// recorded in `trail`.
///
/// # Errors
///
/// [`RunError`] when the reducer cannot be started or the kit is stopped.
fn send_extras(
    session: &mut dyn Session,
    json_numbers: bool,
    req: &Request,
    first_request: &OutgoingRequest,
    first: &Response,
    trail: &mut Trail,
) -> Result<Answers, RunError> {
    let mut answers: Answers = Vec::new();
    // Which request's response was the last answer: `Some(None)` the
    // first's.
    let mut answered: Option<Option<ExtraKind>> = Some(None);
    for extra in extra_requests(req, first) {
        if let Some(late) = session.settle() {
            trail
                .protocol
                .push((late.clause, labelled(trail.last_request, &late.detail)));
        }
        // The repeated request is the first one, already written.
        let built;
        let r = if extra.kind == ExtraKind::Repeat {
            first_request
        } else {
            // The smaller budget's request has the first one's messages:
            // its text is the first one's, budget apart.
            let same_messages = std::ptr::eq(&*extra.messages, req.messages);
            built = if same_messages {
                first_request.with_budget(&extra.budget)
            } else {
                OutgoingRequest::new(req.format, &extra.budget, req.summary, &extra.messages)
            };
            &built
        };
        // The answer before, when it was a response: an answer the same
        // byte for byte is that response again, not read again.
        let answer = match answered {
            Some(before) => match session.exchange_unless_same(r)? {
                Some(answer) => answer.map(Answer::Read),
                None => Ok(Answer::Same(before)),
            },
            None => session.exchange(r)?.map(Answer::Read),
        };
        trail.last_request = Some(extra.kind);
        answered = answer.is_ok().then_some(trail.last_request);
        let answer = answer.map(|a| match a {
            Answer::Read(r) => Answer::Read(nearest_doubles_if(json_numbers, r)),
            same => same,
        });
        match answer {
            Ok(Answer::Read(Response::Unsupported(_))) if extra.kind != ExtraKind::Repeat => {}
            Ok(a) => answers.push((extra.kind, extra.limit(), a)),
            Err(failure) => trail.failed(failure),
        }
    }
    Ok(answers)
}

/// What the checker compares `first` with: the extra requests' answers
/// (`answers`, each that is the same as another one read as that one) and
/// the reference's answers.
fn extras_ref<'r>(
    first: &'r Response,
    answers: &'r Answers,
    reference: Option<&'r Response>,
    reference_less_summary: Option<&'r Response>,
) -> ExtrasRef<'r> {
    let of = |kind| answer_to(first, answers, Some(kind));
    ExtrasRef {
        repeat: of(ExtraKind::Repeat),
        again: of(ExtraKind::Again),
        smaller: answers
            .iter()
            .find(|(kind, _, _)| *kind == ExtraKind::Smaller)
            .and_then(|(_, limit, _)| Some((*limit, of(ExtraKind::Smaller)?))),
        reference,
        reference_less_summary,
    }
}

/// Whether the case shows a call group split at the cut
/// ([`Pending::group_at_cut`]): its input is valid, the answer `first` is
/// messages, and the newest messages that fit `req`'s budget split a
/// call group ([`newest_fit_splits_a_call`]).
pub(super) fn group_at_cut(
    valid: bool,
    req: &Request,
    first: &Response,
    history: &Result<crate::terms::History, crate::terms::ShapeError>,
) -> bool {
    valid
        && matches!(first, Response::Messages(_))
        && history.as_ref().is_ok_and(|h| {
            Budget::read(req.budget, req.messages.len())
                .is_ok_and(|b| newest_fit_splits_a_call(h, &b))
        })
}

/// The checker's verdicts on the answer `first` to `req`, after the extra
/// requests ([`send_extras`], with [`Settings::extra_requests`]) and with
/// the reference's answers ([`reference_answers`]); `Ok(Err(why))` when
/// the input `history` cannot be read (the checker's error, read once).
///
/// # Errors
///
/// [`RunError`] when the reducer cannot be started or the kit is stopped.
pub(super) fn judge_answer(
    session: &mut dyn Session,
    settings: &Settings,
    req: &Request,
    first_request: &OutgoingRequest,
    first: &Response,
    history: Result<crate::terms::History, crate::terms::ShapeError>,
    trail: &mut Trail,
) -> Result<Result<Vec<Verdict>, String>, RunError> {
    let (reference, reference_less_summary) = reference_answers(settings, req, &history);
    let answers = if settings.extra_requests {
        send_extras(
            session,
            settings.declared.json_numbers,
            req,
            first_request,
            first,
            trail,
        )?
    } else {
        Vec::new()
    };
    let extras = extras_ref(
        first,
        &answers,
        reference.as_ref(),
        reference_less_summary.as_ref(),
    );
    // The last answer is in: a stop asked for while the reducer answered
    // ends the case before the checker reads them (spec §8.7).
    stop_point()?;
    Ok(history
        .and_then(|h| check_classified(req, h, first, extras))
        .map_err(|e| format!("the case's input cannot be read: {e}")))
}

/// The verdicts of a case no answer of which can be judged: every clause
/// of the run ([`Settings::clauses`]) the checker judges, not judged.
pub(super) fn no_response(settings: &Settings) -> Vec<Verdict> {
    settings
        .clauses()
        .into_iter()
        .filter(|c| !c.judged_by_runner())
        .map(|clause| Verdict {
            clause,
            outcome: Outcome::NotJudged("no response".into()),
        })
        .collect()
}

/// The four protocol clauses' verdicts from the failures of a case's
/// exchanges (`protocol`): each fails with its details joined by `; `,
/// or passes.
pub(super) fn protocol_verdicts(protocol: &[(Clause, String)]) -> Vec<Verdict> {
    [
        Clause::ProtocolJson,
        Clause::ProtocolTimeout,
        Clause::ProtocolCrash,
        Clause::ProtocolSize,
    ]
    .into_iter()
    .map(|clause| {
        let fails: Vec<&str> = protocol
            .iter()
            .filter(|(c, _)| *c == clause)
            .map(|(_, d)| d.as_str())
            .collect();
        Verdict {
            clause,
            outcome: if fails.is_empty() {
                Outcome::Pass
            } else {
                Outcome::Fail(fails.join("; "))
            },
        }
    })
    .collect()
}
