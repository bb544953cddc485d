//! `corpus add`: turns certify counterexamples and libFuzzer inputs into
//! regression cases, each with the reference expectation it gets now
//! ([`crate::case::expect`]).

use crate::case::expect::{expectation, needs_pending, ExpectError};
use crate::case::{parse_cases, Case, CaseError};
use crate::fuzzers::{Carried, Target};
use crate::input::{check_text, Holds, TextError};
use crate::terms::{BudgetFields, Clause, Policy};
use arbitrary::Unstructured;
use serde_json::Value;
use std::fmt;
use std::path::Path;

/// Where an imported case came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A case of a case file (a certify counterexample, say); its id there.
    CaseFile(String),
    /// A libFuzzer input of this fuzz target, decoded as the target decodes
    /// it.
    Artifact(&'static str),
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::CaseFile(id) => write!(f, "case {id}"),
            Origin::Artifact(t) => write!(f, "{t} input"),
        }
    }
}

/// One case made by [`import`].
#[derive(Clone, Debug, PartialEq)]
pub struct Imported {
    /// The case: id `regress/<16 hex>` ([`Case::content_id`]), spec
    /// the lowest spec version that has its fields, expectation from the
    /// reference.
    pub case: Case,
    /// Where it came from.
    pub origin: Origin,
}

/// Why a file is not a regression case. Messages are lowercase.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    /// `--target` names no fuzz target.
    #[error("unknown fuzz target {0:?}")]
    UnknownTarget(String),
    /// JSON that is not in the case format (what the case format says is
    /// wrong with it).
    #[error("{0} (for a fuzz input, name its target with --target)")]
    NotACase(String),
    /// Bytes that are not JSON, with no fuzz target named (by `--target` or
    /// the file's folder): an empty file, binary bytes, text, truncated
    /// JSON. What they are is the text (`an empty file`, `truncated JSON
    /// (EOF while parsing ...)`).
    #[error("{0}: neither a case file nor the input of a named fuzz target (for a fuzz input, name its target with --target)")]
    NotACaseFile(String),
    /// A `parse_no_panic` input that is not JSON.
    #[error("parse_no_panic input that is not JSON ({0}) carries no history")]
    NotJson(serde_json::Error),
    /// A `parse_no_panic` input that is a JSON object without `messages`.
    #[error("parse_no_panic input: a JSON object without a `messages` array")]
    NoMessages,
    /// A `parse_no_panic` input that is other JSON.
    #[error("parse_no_panic input: JSON that is neither an array nor an object")]
    NotAHistory,
    /// The fuzz target cannot decode the bytes.
    #[error("{target} cannot decode it: {error}")]
    Undecodable {
        /// The target.
        target: &'static str,
        /// What `arbitrary` says.
        error: arbitrary::Error,
    },
    /// The reference cannot judge the decoded messages.
    #[error(transparent)]
    Expect(#[from] ExpectError),
    /// A case file, or a `parse_no_panic` input, nested deeper than
    /// [`crate::input::MAX_DEPTH`] (spec §8.11): input the kit cannot
    /// represent (exit 1, not unreadable).
    #[error("{0}")]
    TooDeep(crate::input::TooDeep),
    /// A case of a case file that the reference cannot judge.
    #[error("case {id:?}: {error}")]
    Case {
        /// The case's id in the file.
        id: String,
        /// Why.
        error: ExpectError,
    },
}

/// A case under `policy` with the reference expectation, the `allowPending`
/// flag normalised as certify's counterexamples are ([`needs_pending`]) and
/// the content-hash id `regress/<16 hex>`.
/// The budget members and (spec v2) the summary fields of a case file are
/// kept as they are.
fn regression(
    policy: Policy,
    budget: BudgetFields,
    summary: (bool, Option<u64>),
    messages: Vec<Value>,
    clauses: Vec<String>,
    description: String,
) -> Result<Case, ExpectError> {
    let allow_pending = needs_pending(&messages)?;
    let e = expectation(policy, &budget, &messages, allow_pending)?;
    let mut case = Case {
        id: String::new(),
        spec: 1,
        policy,
        max_messages: budget.max_messages,
        max_tokens: budget.max_tokens,
        tokens: budget.tokens,
        count_pinned: budget.count_pinned,
        summary: summary.0,
        summary_tokens: summary.1,
        messages,
        expected: None,
        expected_error: None,
        clauses,
        allow_pending,
        violations: Vec::new(),
        description,
        run: None,
    };
    e.apply_to(&mut case);
    case.id = case.content_id("regress");
    Ok(case)
}

/// The history the fuzz target `target` reads from `bytes`
/// ([`Target::carried`]); `parse_no_panic`, whose input is JSON text, is
/// read by [`decode_json_input`].
pub(crate) fn decode_target(target: &Target, bytes: &[u8]) -> Result<Carried, ImportError> {
    let undecodable = |error| ImportError::Undecodable {
        target: target.name,
        error,
    };
    match target.carried {
        Some(carried) => carried(&mut Unstructured::new(bytes)).map_err(undecodable),
        None => {
            let (max_messages, messages) = decode_json_input(bytes)?;
            Ok(Carried {
                budget: BudgetFields::messages(max_messages),
                messages,
                policy: None,
            })
        }
    }
}

/// Reads the bytes of a `parse_no_panic` input as that target does: JSON
/// that is a history array (budget 3) or an object with a `messages` array
/// (and its `maxMessages`, else 3).
fn decode_json_input(bytes: &[u8]) -> Result<(Value, Vec<Value>), ImportError> {
    if let Ok(text) = std::str::from_utf8(bytes) {
        if let Err(TextError::TooDeep(d)) = check_text(text, Holds::Histories) {
            return Err(ImportError::TooDeep(d));
        }
    }
    let v: Value = serde_json::from_slice(bytes).map_err(ImportError::NotJson)?;
    match v {
        Value::Array(a) => Ok((Value::from(3), a)),
        Value::Object(mut o) => match o.remove("messages") {
            Some(Value::Array(a)) => Ok((o.remove("maxMessages").unwrap_or(Value::from(3)), a)),
            _ => Err(ImportError::NoMessages),
        },
        _ => Err(ImportError::NotAHistory),
    }
}

/// What bytes that are not JSON are, for [`ImportError::NotACaseFile`]:
/// `an empty file`, `binary bytes (not UTF-8)`, `truncated JSON (...)` or
/// `text that is not JSON (...)` with serde_json's error.
fn describe_bytes(bytes: &[u8]) -> String {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return if bytes.is_empty() {
            "an empty file".into()
        } else {
            "a file of white space".into()
        };
    }
    if std::str::from_utf8(bytes).is_err() {
        return "binary bytes (not UTF-8)".into();
    }
    match serde_json::from_slice::<Value>(bytes) {
        Err(e) if e.is_eof() => format!("truncated JSON ({e})"),
        Err(e) => format!("text that is not JSON ({e})"),
        Ok(_) => "JSON".into(),
    }
}

impl ImportError {
    /// Whether the file cannot be read as a case or a fuzz input at all
    /// (exit 2, unreadable input), rather than read and not judged by the
    /// reference ([`ImportError::Expect`], [`ImportError::Case`]: exit 1).
    pub fn unreadable(&self) -> bool {
        !matches!(
            self,
            ImportError::Expect(_) | ImportError::Case { .. } | ImportError::TooDeep(_)
        )
    }
}

/// Turns one input file into regression cases, each with the expectation the
/// reference gives it now:
///
/// - with `target`, the bytes are that fuzz target's input, decoded as the
///   target decodes them (`parse_no_panic`: a JSON history or request; the
///   others: the generator's bytes, after [`crate::fuzzers`]);
/// - else a case file (one case or an array; `certify --save-failures`
///   writes these) gives its cases, keeping their `description` and the
///   `clauses` that the (possibly new) policy has;
/// - else a file in a folder named after a fuzz target (libFuzzer's
///   `fuzz/artifacts/<target>/crash-…`) is that target's input;
/// - else bytes that are JSON are not a case (the case-format error says
///   why), nor are other bytes ([`ImportError::NotACaseFile`]: no target
///   is guessed for an empty file, text or truncated JSON).
///
/// The policy is `policy` when given, else the case's, else the one the
/// target draws, else `turns`. `name` (the file name) goes into the
/// description of decoded cases.
///
/// # Errors
///
/// An [`ImportError`] saying why the file is not a case: JSON that is not
/// in the case format, an unknown target, bytes the target cannot decode,
/// or messages the reference cannot read.
pub fn import(
    bytes: &[u8],
    path: &Path,
    target: Option<&str>,
    policy: Option<Policy>,
) -> Result<Vec<Imported>, ImportError> {
    let known = crate::fuzzers::target;
    let target = match target {
        Some(t) => known(t).ok_or_else(|| ImportError::UnknownTarget(t.to_string()))?,
        None => {
            let as_case = match std::str::from_utf8(bytes) {
                Err(e) => Err(e.to_string()),
                Ok(text) => match parse_cases(text, path) {
                    Ok(cases) => Ok(cases),
                    Err(CaseError::TooDeep { too_deep, .. }) => {
                        return Err(ImportError::TooDeep(too_deep))
                    }
                    Err(CaseError::Format { message, .. }) => Err(message),
                    Err(CaseError::Invalid { id, problem, .. }) => {
                        Err(format!("case {id:?}: {problem}"))
                    }
                    Err(other) => Err(other.to_string()),
                },
            };
            let folder = path
                .parent()
                .and_then(Path::file_name)
                .and_then(|n| n.to_str())
                .and_then(known);
            match (as_case, folder) {
                (Ok(cases), _) => return import_cases(cases, policy),
                (Err(_), Some(t)) => t,
                (Err(e), None) if serde_json::from_slice::<Value>(bytes).is_ok() => {
                    return Err(ImportError::NotACase(e))
                }
                (Err(_), None) => return Err(ImportError::NotACaseFile(describe_bytes(bytes))),
            }
        }
    };
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into(),
    );
    let description = format!("imported from {} input {name}", target.name);
    let carried = decode_target(target, bytes)?;
    let policy = policy.or(carried.policy).unwrap_or(Policy::Turns);
    let case = regression(
        policy,
        carried.budget,
        (false, None),
        carried.messages,
        Vec::new(),
        description,
    )?;
    Ok(vec![Imported {
        case,
        origin: Origin::Artifact(target.name),
    }])
}

/// The cases of a case file as regression cases (see [`import`]).
fn import_cases(cases: Vec<Case>, policy: Option<Policy>) -> Result<Vec<Imported>, ImportError> {
    cases
        .into_iter()
        .map(|c| {
            let origin = Origin::CaseFile(c.id.clone());
            let policy = policy.unwrap_or(c.policy);
            let budget = c.budget_fields();
            let judged = Clause::for_run(policy, c.summary);
            let clauses = c
                .clauses
                .into_iter()
                .filter(|id| Clause::from_id(id).is_some_and(|k| judged.contains(&k)))
                .collect();
            regression(
                policy,
                budget,
                (c.summary, c.summary_tokens),
                c.messages,
                clauses,
                c.description,
            )
            .map(|case| Imported { case, origin })
            .map_err(|error| ImportError::Case { id: c.id, error })
        })
        .collect()
}
