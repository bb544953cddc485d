//! The one JSON case format used for spec examples, the seed corpus,
//! regressions and saved counterexamples.
//!
//! A case file holds one case object or an array of them. Fields (unknown
//! fields are rejected, ids must be unique across a corpus):
//!
//! | field           | type                    | default | meaning |
//! |-----------------|-------------------------|---------|---------|
//! | `id`            | string                  | —       | stable name, `group/name`; unique |
//! | `spec`          | integer                 | —       | spec version the expectation was made under (now [`SPEC_VERSION`]) |
//! | `policy`        | `"turns"` \| `"suffix"` \| `"repair"` | — | the policy judged (`repair`: spec §17, a version 2 case) |
//! | `maxMessages`   | any JSON                | absent  | the budget as sent to the reducer (may be invalid on purpose); a version 1 case always has it |
//! | `maxTokens`     | any JSON                | absent  | spec v2: a token budget as sent (§11.1); `maxMessages` is then absent, unless the case shows that both is a bad budget |
//! | `tokens`        | any JSON                | absent  | spec v2: the costs as sent, one per message of `messages` (the system message's included; the Anthropic form sends that one as `systemTokens`) |
//! | `countPinned`   | any JSON                | absent  | spec v2: as sent (absent means false) |
//! | `summary`       | bool                    | `false` | spec v2: the case is meant for a summaries run (`certify --summaries`, §12, §13.2) |
//! | `summaryTokens` | integer ≥ 0             | 1       | spec v2: what a summary costs under a token budget in a summaries run |
//! | `messages`      | array                   | —       | the input history, canonical format (spec §1) |
//! | `expected`      | array                   | absent  | the reference output; exactly one of `expected`, `expectedError` |
//! | `expectedError` | `"bad-budget"`          | absent  | the request must be rejected |
//! | `clauses`       | array of clause ids     | `[]`    | clauses the case exercises (documentation; each must pass on `expected`) |
//! | `allowPending`  | bool                    | `false` | the input is valid only under `--allow-pending` |
//! | `violations`    | array of `{"rule", "index", "id"}` | `[]` | what the validator reports on `messages` (under `allowPending`); empty means the input is valid |
//! | `description`   | string                  | `""`    | one line on what the case shows |
//! | `run`           | `{"format", "flags", "answer"}` | absent | what the run that saved the case saw (`certify --save-failures`, spec §13.4): [`SavedRun`]; never in the corpus, never judged |
//!
//! A case that has any of the fields marked "spec v2" needs `"spec": 2`
//! ([`Case::required_spec`]); a version 1 case keeps `"spec": 1`. Absent
//! and `null` differ for the members sent as they are: `"maxMessages":
//! null` is a bad budget that is sent, an absent `maxMessages` is not sent.
//!
//! | file | owns |
//! |------|------|
//! | `mod.rs` | [`Case`], its checks, reading one file ([`load_file`]) or a directory ([`load_dir`]) |
//! | [`expect`] | the reference expectation of a case: `expected` / `expectedError` / `violations` |
//! | [`file`](mod@file) | case files as text: the directory walk, layouts and styles, rendering, splicing |

use crate::input::{check_text, Holds, TextError, TooDeep};
use crate::terms::{BudgetFields, Clause, Policy};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use std::path::{Path, PathBuf};

pub mod expect;
pub mod file;

/// The newest version of the contract (`spec/`) this kit implements; it
/// implements every version up to it (version 2 is version 1 plus
/// additions, spec/spec.md).
pub const SPEC_VERSION: u32 = 2;

/// A member that is present, whatever its value (`null` included): what
/// serde's `Option` would read as absent for `null`.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// What a case expects instead of an output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ExpectedError {
    /// `maxMessages` is not an integer ≥ 1 (clause `rejects-bad-budget`).
    #[serde(rename = "bad-budget")]
    BadBudget,
}

/// One case. See the module doc for the fields.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Case {
    /// Stable, unique id (`group/name`).
    pub id: String,
    /// Spec version the expectation was made under.
    pub spec: u32,
    /// The policy judged.
    pub policy: Policy,
    /// `maxMessages` as sent to the reducer; `None` when absent.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_messages: Option<Value>,
    /// `maxTokens` as sent (spec v2).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_tokens: Option<Value>,
    /// `tokens` as sent (spec v2): one cost per message of `messages`.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub tokens: Option<Value>,
    /// `countPinned` as sent (spec v2).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub count_pinned: Option<Value>,
    /// The case is meant for a summaries run (spec §12).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub summary: bool,
    /// What a summary costs under a token budget in a summaries run
    /// (spec v2); 1 when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary_tokens: Option<u64>,
    /// The input history, canonical format.
    pub messages: Vec<Value>,
    /// The reference output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<Vec<Value>>,
    /// The expected rejection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_error: Option<ExpectedError>,
    /// Clause ids this case exercises.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clauses: Vec<String>,
    /// The input is valid only with `--allow-pending`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub allow_pending: bool,
    /// The validator's report on `messages`; empty for a valid input.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub violations: Vec<ExpectedViolation>,
    /// One line on what the case shows.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// What the run that saved the case saw (`certify --save-failures`);
    /// absent in the corpus. Not part of the case's content: its id,
    /// expectation and equality (spec §1.3) are those of the case without
    /// it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<SavedRun>,
}

/// What the certify run that saved a failing case saw (spec §13.4): its
/// wire format, the flags that shaped its cases and their contract, and
/// the reducer's answer, so that `reducer-kit show` draws the failure as
/// the run did, the reducer's answer beside the reference's, in the run's
/// format. Informative only: a replay judges the case afresh.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SavedRun {
    /// The run's wire format, as `--format` names it (`openai`).
    pub format: String,
    /// The run's flags as one shell-quoted command line (`--policy turns
    /// --format openai --declare system-first-only`), as its reproduce
    /// line has them.
    pub flags: String,
    /// The reducer's answer to the case as read: a protocol response
    /// object in `format` (`{"messages": [...]}`, `{"error": "..."}`), or
    /// `null` when it gave none (a crash, a time-out, no JSON).
    pub answer: Value,
}

/// One violation a case expects from the validator (spec §5).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectedViolation {
    /// The rule id, e.g. `result-follows-call`.
    pub rule: String,
    /// Zero-based message index.
    pub index: usize,
    /// The call or request id.
    pub id: String,
}

/// A case file that cannot be used, naming the file and what is wrong.
#[derive(Debug, thiserror::Error)]
pub enum CaseError {
    /// The file cannot be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not JSON in the case format.
    #[error("{path}: {message}")]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong (serde's message, with line and column).
        message: String,
    },
    /// The file nests deeper than [`crate::input::MAX_DEPTH`] (spec
    /// §8.11): a case the kit cannot represent (the command line exits 1).
    #[error("{path}: {too_deep}")]
    TooDeep {
        /// The file.
        path: PathBuf,
        /// The place.
        too_deep: TooDeep,
    },
    /// A case breaks a rule of the format.
    #[error("{path}: case {id:?}: {problem}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The case id.
        id: String,
        /// What is wrong.
        problem: InvalidCase,
    },
}

impl CaseError {
    /// The exit code of the command line's rule (spec §8.11): 1 for a
    /// case file nested too deep (invalid input), 2 for one that cannot be
    /// read or is not a case file.
    pub fn exit_code(&self) -> u8 {
        match self {
            CaseError::TooDeep { .. } => 1,
            _ => 2,
        }
    }
}

/// A rule of the case format that a case breaks (besides what serde
/// checks: types, unknown fields).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InvalidCase {
    /// `id` is empty or blank.
    #[error("empty id")]
    EmptyId,
    /// `spec` is 0 or newer than [`SPEC_VERSION`].
    #[error("spec version {spec} is not known to this kit (it implements 1 to {SPEC_VERSION})")]
    UnknownSpec {
        /// The case's `spec`.
        spec: u32,
    },
    /// The case uses a field of a newer spec than its `spec`.
    #[error("`{field}` needs spec {needs}, the case says spec {spec}")]
    NeedsSpec {
        /// The first such field, as the case file spells it.
        field: &'static str,
        /// The version that has it.
        needs: u32,
        /// The case's `spec`.
        spec: u32,
    },
    /// Neither or both of `expected` and `expectedError`.
    #[error("needs exactly one of `expected` and `expectedError`")]
    Expectation,
    /// A `violations` rule id the validator does not have.
    #[error("unknown validator rule id {0:?}")]
    UnknownRule(String),
    /// A `clauses` id that is not a clause.
    #[error("unknown clause id {0:?}")]
    UnknownClause(String),
    /// The id is used by an earlier case of the corpus.
    #[error("duplicate id (first in {})", first.display())]
    DuplicateId {
        /// The file of the first case with the id.
        first: PathBuf,
    },
}

impl Case {
    /// The first field of spec version 2 the case uses (spec §13.4), as
    /// the case file spells it.
    fn v2_field(&self) -> Option<&'static str> {
        [
            ("maxTokens", self.max_tokens.is_some()),
            ("tokens", self.tokens.is_some()),
            ("countPinned", self.count_pinned.is_some()),
            ("summary", self.summary),
            ("summaryTokens", self.summary_tokens.is_some()),
            ("maxMessages", self.max_messages.is_none()),
            ("policy", self.policy == Policy::Repair),
        ]
        .into_iter()
        .find_map(|(f, used)| used.then_some(f))
    }

    /// The lowest spec version that has every field the case uses: 2 when
    /// it uses a field of spec v2 (or has no `maxMessages`, or is of
    /// policy `repair`, spec §17), else 1.
    pub fn required_spec(&self) -> u32 {
        if self.v2_field().is_some() {
            2
        } else {
            1
        }
    }

    /// The case's budget members as the kit sends them
    /// ([`crate::terms::Budget::read`] judges them).
    pub fn budget_fields(&self) -> BudgetFields {
        BudgetFields {
            max_messages: self.max_messages.clone(),
            max_tokens: self.max_tokens.clone(),
            tokens: self.tokens.clone(),
            count_pinned: self.count_pinned.clone(),
        }
    }

    /// Whether the case needs runner protocol 2: a budget member of
    /// protocol 2, no `maxMessages`, or `summary` (spec §13.2).
    pub fn needs_protocol_2(&self) -> bool {
        self.budget_fields().needs_protocol_2() || self.summary
    }

    /// Checks the rules serde cannot: a non-empty id, a known spec version
    /// that has every field the case uses, exactly one of `expected` /
    /// `expectedError`, known clause ids.
    ///
    /// # Errors
    ///
    /// The [`InvalidCase`] rule that is broken.
    pub fn check_format(&self) -> Result<(), InvalidCase> {
        if self.id.trim().is_empty() {
            return Err(InvalidCase::EmptyId);
        }
        if self.spec == 0 || self.spec > SPEC_VERSION {
            return Err(InvalidCase::UnknownSpec { spec: self.spec });
        }
        if let Some(field) = self.v2_field() {
            if self.spec < 2 {
                return Err(InvalidCase::NeedsSpec {
                    field,
                    needs: 2,
                    spec: self.spec,
                });
            }
        }
        if self.expected.is_some() == self.expected_error.is_some() {
            return Err(InvalidCase::Expectation);
        }
        for v in &self.violations {
            if crate::validate::Rule::from_id(&v.rule).is_none() {
                return Err(InvalidCase::UnknownRule(v.rule.clone()));
            }
        }
        for c in &self.clauses {
            if Clause::from_id(c).is_none() {
                return Err(InvalidCase::UnknownClause(c.clone()));
            }
        }
        Ok(())
    }

    /// The case as pretty JSON ([`crate::json::to_string_pretty`]: values
    /// deeper than [`crate::json::PRETTY_DEPTH`] compact), one trailing
    /// newline.
    pub fn to_pretty_json(&self) -> String {
        let mut s = crate::json::to_string_pretty(self).expect("a case always serializes");
        s.push('\n');
        s
    }

    /// A content-hash id `prefix/<16 hex>` from the policy, budget members,
    /// messages, `allowPending` and (spec v2) `summary` and
    /// `summaryTokens`, so the same counterexample always gets the same id.
    /// A version 1 case's id is what it always was.
    pub fn content_id(&self, prefix: &str) -> String {
        self.content_id_of(&self.messages, prefix)
    }

    /// [`Case::content_id`] of this case with `messages` in place of its
    /// own (which are not read): the key is written straight into the
    /// hash, no message copied.
    pub fn content_id_of(&self, messages: &[Value], prefix: &str) -> String {
        use serde::ser::SerializeMap;
        use sha2::{Digest, Sha256};
        /// The key: `policy`, `maxMessages`, `messages`, `allowPending`;
        /// in version 2, without `maxMessages` when the case has none
        /// (`allowPending` then takes its place: the key's order is that of
        /// a map whose removed member was replaced by its last one), then
        /// the token budget's members, `summary` and `summaryTokens` that
        /// the case has.
        struct Key<'a>(&'a Case, &'a [Value]);
        impl Serialize for Key<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let Key(c, messages) = *self;
                let v2 = c.required_spec() >= 2;
                let mut m = s.serialize_map(None)?;
                m.serialize_entry("policy", &c.policy)?;
                if v2 && c.max_messages.is_none() {
                    m.serialize_entry("allowPending", &c.allow_pending)?;
                    m.serialize_entry("messages", messages)?;
                } else {
                    m.serialize_entry("maxMessages", &c.max_messages)?;
                    m.serialize_entry("messages", messages)?;
                    m.serialize_entry("allowPending", &c.allow_pending)?;
                }
                if v2 {
                    for (k, v) in [
                        ("maxTokens", &c.max_tokens),
                        ("tokens", &c.tokens),
                        ("countPinned", &c.count_pinned),
                    ] {
                        if let Some(v) = v {
                            m.serialize_entry(k, v)?;
                        }
                    }
                    if c.summary {
                        m.serialize_entry("summary", &true)?;
                    }
                    if let Some(t) = c.summary_tokens {
                        m.serialize_entry("summaryTokens", &t)?;
                    }
                }
                m.end()
            }
        }
        struct Hashing(Sha256);
        impl std::io::Write for Hashing {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.update(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut h = Hashing(Sha256::new());
        serde_json::to_writer(&mut h, &Key(self, messages)).expect("a case's key serializes");
        let digest = h.0.finalize();
        let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
        format!("{prefix}/{hex}")
    }
}

impl Case {
    /// What makes two cases the same case under the spec's equality
    /// (spec §1.3: `12.0` = `12`, member order ignored): a SHA-256
    /// (hex) of the [`crate::json::canonical_json`] of the policy, budget,
    /// messages and `allowPending`. `corpus add` finds a case already
    /// present by it, whatever its id or spelling.
    pub fn equality_key(&self) -> String {
        use sha2::{Digest, Sha256};
        let key = serde_json::json!({
            "policy": self.policy, "maxMessages": self.max_messages,
            "messages": self.messages, "allowPending": self.allow_pending,
        });
        let digest = Sha256::digest(crate::json::canonical_json(&key).as_bytes());
        digest.iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// Parses the text of a case file: one case object or an array of them.
/// Every case is checked with [`Case::check_format`].
///
/// # Errors
///
/// [`CaseError::TooDeep`] for a text nested deeper than
/// [`crate::input::MAX_DEPTH`] (before it is parsed,
/// [`crate::input::check_text`], which also refuses a lone surrogate
/// escape as [`CaseError::Format`]); [`CaseError::Format`] or
/// [`CaseError::Invalid`], naming `path`.
pub fn parse_cases(text: &str, path: &Path) -> Result<Vec<Case>, CaseError> {
    check_text(text, Holds::Cases).map_err(|e| match e {
        TextError::TooDeep(too_deep) => CaseError::TooDeep {
            path: path.to_owned(),
            too_deep,
        },
        TextError::LoneSurrogate(bad) => CaseError::Format {
            path: path.to_owned(),
            message: bad.to_string(),
        },
    })?;
    let value: Value = serde_json::from_str(text).map_err(|e| CaseError::Format {
        path: path.to_owned(),
        message: e.to_string(),
    })?;
    let items = match value {
        Value::Array(a) => a,
        other => vec![other],
    };
    let mut cases = Vec::with_capacity(items.len());
    for (i, mut item) in items.into_iter().enumerate() {
        // The histories are moved into the case as they were read, not
        // read again as new values: a case of a million messages is built
        // once, and every number stays as written (`-0` too).
        let mut take = |key: &str| match item.get_mut(key) {
            Some(m @ Value::Array(_)) => Some(std::mem::replace(m, Value::Array(Vec::new()))),
            _ => None,
        };
        let (messages, expected) = (take("messages"), take("expected"));
        let mut case: Case = serde_json::from_value(item).map_err(|e| CaseError::Format {
            path: path.to_owned(),
            message: format!("case {i}: {e}"),
        })?;
        if let Some(Value::Array(m)) = messages {
            case.messages = m;
        }
        if let Some(Value::Array(e)) = expected {
            case.expected = Some(e);
        }
        case.check_format().map_err(|problem| CaseError::Invalid {
            path: path.to_owned(),
            id: case.id.clone(),
            problem,
        })?;
        cases.push(case);
    }
    Ok(cases)
}

/// Reads one case file (a regular file of at most
/// [`file::MAX_CASE_FILE`] bytes, see [`file::read_regular`]).
///
/// # Errors
///
/// See [`parse_cases`]; [`CaseError::Io`] when the file cannot be read or
/// is not a regular file of at most that size.
pub fn load_file(path: &Path) -> Result<Vec<Case>, CaseError> {
    load_file_with(path, file::MAX_CASE_FILE)
}

/// [`load_file`] with the size limit `max` (the command line's
/// `--max-input`).
///
/// # Errors
///
/// As [`load_file`].
pub fn load_file_with(path: &Path, max: u64) -> Result<Vec<Case>, CaseError> {
    let text = file::read_case_text_with(path, max)?;
    parse_cases(&text, path)
}

/// Reads every case file below `dir` (recursively, in path order, skipping
/// a `fuzz` folder, which holds fuzzer seeds; see [`file::load_files`]),
/// with the file each case came from.
///
/// # Errors
///
/// The first unreadable or invalid file, or [`CaseError::Invalid`] for a
/// duplicate id (naming the second file).
pub fn load_dir(dir: &Path) -> Result<Vec<(PathBuf, Case)>, CaseError> {
    load_dir_with(dir, file::MAX_CASE_FILE)
}

/// [`load_dir`] with the size limit `max` for each file.
///
/// # Errors
///
/// As [`load_dir`].
pub fn load_dir_with(dir: &Path, max: u64) -> Result<Vec<(PathBuf, Case)>, CaseError> {
    Ok(load_dir_while(dir, max, || true)?.unwrap_or_default())
}

/// [`load_dir_with`], asking `go_on` before each file: `Ok(None)` when it
/// answers `false` (a stop asked for while a large corpus is read). Only
/// the cases are read: not the files' layout and style, which
/// [`file::load_files_with`] reads for writing a file back.
///
/// # Errors
///
/// As [`load_dir`].
pub fn load_dir_while(
    dir: &Path,
    max: u64,
    mut go_on: impl FnMut() -> bool,
) -> Result<Option<Vec<(PathBuf, Case)>>, CaseError> {
    file::recover_changes(dir)?;
    let mut cases = Vec::new();
    let mut seen: std::collections::HashMap<String, PathBuf> = Default::default();
    for path in file::case_file_paths(dir)? {
        if !go_on() {
            return Ok(None);
        }
        for case in load_file_with(&path, max)? {
            if let Some(first) = seen.insert(case.id.clone(), path.clone()) {
                return Err(CaseError::Invalid {
                    path,
                    id: case.id,
                    problem: InvalidCase::DuplicateId { first },
                });
            }
            cases.push((path.clone(), case));
        }
    }
    Ok(Some(cases))
}

/// Writes the case `head` with `messages` in place of its own (which are
/// left out) to `dir/<file_name>` atomically (a temporary file renamed
/// into place) without ever overwriting: returns `Ok(false)` when the file
/// already exists. The bytes are those of [`Case::to_pretty_json`] of the
/// whole case; the messages are written one at a time from where they
/// are, so that a large case is never copied nor held as one text.
///
/// # Errors
///
/// Any I/O error creating the directory or writing the file.
pub fn save_new_with(
    dir: &Path,
    file_name: &str,
    head: &Case,
    messages: &[Value],
) -> std::io::Result<bool> {
    let mut doc = serde_json::to_value(head).map_err(std::io::Error::other)?;
    doc["messages"] = Value::String(crate::json::STREAMED.into());
    let text = crate::json::to_string_pretty(&doc)?;
    let placeholder = serde_json::to_string(crate::json::STREAMED)?;
    let Some((before, after)) = text.split_once(placeholder.as_str()) else {
        unreachable!("the streamed member, once");
    };
    crate::atomic::create_new_with(dir, file_name, |out| {
        out.write_all(before.as_bytes())?;
        crate::json::write_array_at1(out, messages.iter())?;
        out.write_all(after.as_bytes())?;
        out.write_all(b"\n")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_unknown_fields_and_missing_expectation() {
        let p = Path::new("x.json");
        let e = parse_cases(r#"{"id":"a","spec":1,"policy":"turns","maxMessages":1,"messages":[],"expected":[],"extra":1}"#, p)
            .unwrap_err();
        assert!(e.to_string().contains("unknown field `extra`"), "{e}");
        let e = parse_cases(
            r#"[{"id":"a","spec":1,"policy":"turns","maxMessages":1,"messages":[]}]"#,
            p,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "x.json: case \"a\": needs exactly one of `expected` and `expectedError`"
        );
        let e = parse_cases(r#"{"id":"a","spec":1,"policy":"turns","maxMessages":0,"messages":[],"expectedError":"bad-budget","clauses":["nope"]}"#, p)
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "x.json: case \"a\": unknown clause id \"nope\""
        );
    }

    #[test]
    fn histories_are_read_with_their_numbers_as_written() {
        let m = r#"{"role":"user","contents":[{"$type":"text","text":"q"}],"additionalProperties":{"z":-0,"e":2.5E+3,"big":123456789012345678901234567890}}"#;
        let one = format!(
            r#"{{"id":"a","spec":1,"policy":"turns","maxMessages":4,"messages":[{m}],"expected":[{m}]}}"#
        );
        let case = parse_cases(&one, Path::new("x.json")).unwrap().remove(0);
        let want = r#"{"role":"user","contents":[{"$type":"text","text":"q"}],"additionalProperties":{"z":-0,"e":2.5e+3,"big":123456789012345678901234567890}}"#;
        assert_eq!(serde_json::to_string(&case.messages[0]).unwrap(), want);
        assert_eq!(
            serde_json::to_string(&case.expected.unwrap()[0]).unwrap(),
            want
        );
        // Histories that are no arrays are refused as before.
        let two = format!(
            r#"[{one}, {{"id":"b","spec":1,"policy":"turns","maxMessages":1,"messages":{m},"expected":[]}}]"#
        );
        let e = parse_cases(&two, Path::new("x.json")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "x.json: case 1: invalid type: map, expected a sequence"
        );
    }

    #[test]
    fn save_never_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        let case = parse_cases(
            r#"{"id":"a","spec":1,"policy":"suffix","maxMessages":2,"messages":[],"expected":[]}"#,
            Path::new("x"),
        )
        .unwrap()
        .remove(0);
        assert!(save_new_with(dir.path(), "a.json", &case, &case.messages).unwrap());
        assert!(!save_new_with(dir.path(), "a.json", &case, &case.messages).unwrap());
        let back = load_file(&dir.path().join("a.json")).unwrap();
        assert_eq!(back, vec![case.clone()]);
        assert_eq!(case.content_id("fail").len(), "fail/".len() + 16);
    }

    #[test]
    fn save_new_with_writes_the_bytes_of_the_whole_case() {
        let dir = tempfile::tempdir().unwrap();
        let deep = format!("{}1{}", "[".repeat(40), "]".repeat(40));
        for messages in [
            "[]",
            &format!(
                r#"[{{"role":"user","contents":[{{"$type":"text","text":"a\nb"}}]}},{{"role":"assistant","contents":[{{"$type":"functionCall","callId":"c1","name":"f","arguments":{{"x":{deep}}}}}]}}]"#
            ),
        ] {
            let case = parse_cases(
                &format!(r#"{{"id":"a","spec":1,"policy":"turns","maxMessages":2,"messages":{messages},"expected":[],"description":"d"}}"#),
                Path::new("x"),
            )
            .unwrap()
            .remove(0);
            let head = Case {
                messages: Vec::new(),
                ..case.clone()
            };
            let name = format!("{}.json", case.messages.len());
            assert!(save_new_with(dir.path(), &name, &head, &case.messages).unwrap());
            let written = std::fs::read_to_string(dir.path().join(&name)).unwrap();
            assert_eq!(written, case.to_pretty_json());
            assert!(!save_new_with(dir.path(), &name, &head, &case.messages).unwrap());
        }
    }
}
