//! Judging on histories read beforehand ([`PreparedInput`],
//! [`PreparedAnswers`], [`check_prepared`]): each history classified and
//! written as canonical texts once, then compared as bytes.

use super::mapping::Texts;
use crate::formats::{read_history, read_history_lenient, Format};
use crate::json::canon::CanonHistory;
use crate::protocol::Response;
use crate::terms::{History, ShapeError};

use super::extras::{Extras, ExtrasRef};
use super::{Judge, Request, Verdict, AGAIN, OUTPUT, REFERENCE, REPEAT, SMALLER};
use serde_json::Value;

/// An input history read once for judging: classified ([`read_history`])
/// and written as canonical texts ([`CanonHistory`], what every comparison
/// of messages reads). Judging responses to its request with
/// [`check_prepared`] reads it no more; it is also the checker's figure on
/// histories read beforehand (as the reference reducer's selection is timed
/// on a classified history, `benches/README.md`).
#[derive(Clone, Debug)]
pub struct PreparedInput {
    pub(super) history: History,
    /// `None` inside [`check`], which compares values.
    pub(super) canon: Option<CanonHistory>,
}

impl PreparedInput {
    /// Reads `req.messages` in `req.format`.
    ///
    /// # Errors
    ///
    /// As [`check`](super::check): a [`ShapeError`] when the input history cannot be read.
    pub fn new(req: &Request) -> Result<PreparedInput, ShapeError> {
        Ok(PreparedInput {
            history: read_history(req.format, req.messages)?,
            canon: Some(CanonHistory::of(req.format.items_key(), req.messages)),
        })
    }
}

/// A response and the [`Extras`] it is judged with, read once: the
/// response's messages classified leniently (an unreadable message is
/// flagged, not an error) and every answer's messages written as canonical
/// texts ([`CanonHistory`]), so that [`check_prepared`] compares bytes.
/// (The answer for the budget less a summary's cost is compared as
/// values, when there is a summary.)
#[derive(Clone, Debug)]
pub struct PreparedAnswers<'a> {
    pub(super) response: &'a Response,
    pub(super) extras: ExtrasRef<'a>,
    pub(super) key: &'static str,
    /// The response's messages, classified leniently.
    pub(super) out_h: Option<History>,
    /// The canonical texts of the answers at [`REPEAT`], [`AGAIN`],
    /// [`REFERENCE`], [`SMALLER`] and [`OUTPUT`] (answers of messages
    /// only); `None` inside [`check`], which compares values.
    pub(super) canon: Option<[Option<CanonHistory>; 5]>,
}

impl<'a> PreparedAnswers<'a> {
    /// Reads `response` and the answers of `extras`, all in `format`.
    pub fn new(format: Format, response: &'a Response, extras: &'a Extras) -> PreparedAnswers<'a> {
        PreparedAnswers::read(format, response, extras.borrowed(), true)
    }

    /// Reads the answers, writing their canonical texts when `canon`.
    pub(super) fn read(
        format: Format,
        response: &'a Response,
        extras: ExtrasRef<'a>,
        canon: bool,
    ) -> PreparedAnswers<'a> {
        let mut answers = PreparedAnswers {
            response,
            extras,
            key: format.items_key(),
            out_h: None,
            canon: None,
        };
        answers.out_h = answers
            .messages(OUTPUT)
            .map(|m| read_history_lenient(format, m));
        if canon {
            let texts = [REPEAT, AGAIN, REFERENCE, SMALLER, OUTPUT].map(|which| {
                answers
                    .messages(which)
                    .map(|m| CanonHistory::of(answers.key, m))
            });
            answers.canon = Some(texts);
        }
        answers
    }

    /// The messages of the answer at `which`, when it is an answer of
    /// messages.
    pub(super) fn messages(&self, which: usize) -> Option<&'a [Value]> {
        let answer = match which {
            REPEAT => self.extras.repeat,
            AGAIN => self.extras.again,
            REFERENCE => self.extras.reference,
            SMALLER => self.extras.smaller.map(|(_, r)| r),
            _ => Some(self.response),
        };
        match answer {
            Some(Response::Messages(m)) => Some(m),
            _ => None,
        }
    }

    /// The answer at `which` as the checker compares it (with its
    /// canonical texts when `canon` and they were written).
    pub(super) fn texts(&self, which: usize, canon: bool) -> Option<Texts<'_>> {
        self.messages(which).map(|values| Texts {
            values,
            canon: self
                .canon
                .as_ref()
                .filter(|_| canon)
                .and_then(|c| c[which].as_ref()),
            key: self.key,
        })
    }
}

/// [`check`](super::check) on an input and answers read beforehand: the same verdicts,
/// in the same order, as `check(req, response, extras)` gives for the
/// response and extras `answers` was read from.
///
/// # Panics
///
/// May panic, or judge nonsense, when `input` was not prepared from
/// `req.messages` in `req.format`, or `answers` in another format (the
/// input's length is checked).
pub fn check_prepared(
    req: &Request,
    input: &PreparedInput,
    answers: &PreparedAnswers,
) -> Vec<Verdict> {
    assert_eq!(
        input.history.len(),
        req.messages.len(),
        "a prepared input is judged with its own request"
    );
    Judge::new(req, input, answers).verdicts(false)
}
