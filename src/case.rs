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
//! | `policy`        | `"turns"` \| `"suffix"` | —       | the policy judged |
//! | `maxMessages`   | any JSON                | —       | the budget as sent to the reducer (may be invalid on purpose) |
//! | `messages`      | array                   | —       | the input history, canonical format (semantics §1) |
//! | `expected`      | array                   | absent  | the reference output; exactly one of `expected`, `expectedError` |
//! | `expectedError` | `"bad-budget"`          | absent  | the request must be rejected |
//! | `clauses`       | array of clause ids     | `[]`    | clauses the case exercises (documentation; each must pass on `expected`) |
//! | `allowPending`  | bool                    | `false` | the input is valid only under `--allow-pending` |
//! | `violations`    | array of `{"rule", "index", "id"}` | `[]` | what the validator reports on `messages` (under `allowPending`); empty means the input is valid |
//! | `description`   | string                  | `""`    | one line on what the case shows |

use crate::terms::{Clause, Policy};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The version of the contract (`spec/`) this kit implements.
pub const SPEC_VERSION: u32 = 1;

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
    /// The budget as sent to the reducer.
    pub max_messages: Value,
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
}

/// One violation a case expects from the validator (semantics §5).
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
    /// A case breaks a rule of the format.
    #[error("{path}: case {id:?}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The case id.
        id: String,
        /// What is wrong.
        message: String,
    },
}

impl Case {
    /// Checks the rules serde cannot: a non-empty id, a known spec version,
    /// exactly one of `expected` / `expectedError`, known clause ids.
    ///
    /// # Errors
    ///
    /// A message saying which rule is broken.
    pub fn check_format(&self) -> Result<(), String> {
        if self.id.trim().is_empty() {
            return Err("empty id".into());
        }
        if self.spec == 0 || self.spec > SPEC_VERSION {
            return Err(format!(
                "spec version {} is not known to this kit (it implements {SPEC_VERSION})",
                self.spec
            ));
        }
        if self.expected.is_some() == self.expected_error.is_some() {
            return Err("needs exactly one of `expected` and `expectedError`".into());
        }
        for v in &self.violations {
            if crate::validate::Rule::from_id(&v.rule).is_none() {
                return Err(format!("unknown validator rule id {:?}", v.rule));
            }
        }
        for c in &self.clauses {
            if Clause::from_id(c).is_none() {
                return Err(format!("unknown clause id {c:?}"));
            }
        }
        Ok(())
    }

    /// The case as pretty JSON, one trailing newline.
    pub fn to_pretty_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("a case always serializes");
        s.push('\n');
        s
    }

    /// A content-hash id `prefix/<16 hex>` from the policy, budget, messages
    /// and expectation, so the same counterexample always gets the same id.
    pub fn content_id(&self, prefix: &str) -> String {
        use sha2::{Digest, Sha256};
        let key = serde_json::json!({
            "policy": self.policy, "maxMessages": self.max_messages,
            "messages": self.messages, "allowPending": self.allow_pending,
        });
        let digest = Sha256::digest(key.to_string().as_bytes());
        let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
        format!("{prefix}/{hex}")
    }
}

/// Parses the text of a case file: one case object or an array of them.
/// Every case is checked with [`Case::check_format`].
///
/// # Errors
///
/// [`CaseError::Format`] or [`CaseError::Invalid`], naming `path`.
pub fn parse_cases(text: &str, path: &Path) -> Result<Vec<Case>, CaseError> {
    let value: Value = serde_json::from_str(text).map_err(|e| CaseError::Format {
        path: path.to_owned(),
        message: e.to_string(),
    })?;
    let items = match value {
        Value::Array(a) => a,
        other => vec![other],
    };
    let mut cases = Vec::with_capacity(items.len());
    for (i, item) in items.into_iter().enumerate() {
        let case: Case = serde_json::from_value(item).map_err(|e| CaseError::Format {
            path: path.to_owned(),
            message: format!("case {i}: {e}"),
        })?;
        case.check_format().map_err(|message| CaseError::Invalid {
            path: path.to_owned(),
            id: case.id.clone(),
            message,
        })?;
        cases.push(case);
    }
    Ok(cases)
}

/// Reads one case file.
///
/// # Errors
///
/// See [`parse_cases`]; [`CaseError::Io`] when the file cannot be read.
pub fn load_file(path: &Path) -> Result<Vec<Case>, CaseError> {
    let text = std::fs::read_to_string(path).map_err(|source| CaseError::Io {
        path: path.to_owned(),
        source,
    })?;
    parse_cases(&text, path)
}

/// Reads every `*.json` case file below `dir` (recursively, in path order,
/// skipping a `fuzz` folder, which holds fuzzer seeds), with the file each
/// case came from.
///
/// # Errors
///
/// The first unreadable or invalid file, or [`CaseError::Invalid`] for a
/// duplicate id (naming the second file).
pub fn load_dir(dir: &Path) -> Result<Vec<(PathBuf, Case)>, CaseError> {
    let mut files = Vec::new();
    collect_json(dir, &mut files).map_err(|source| CaseError::Io {
        path: dir.to_owned(),
        source,
    })?;
    files.sort();
    let mut out: Vec<(PathBuf, Case)> = Vec::new();
    let mut seen = std::collections::HashMap::new();
    for f in files {
        for case in load_file(&f)? {
            if let Some(first) = seen.insert(case.id.clone(), f.clone()) {
                return Err(CaseError::Invalid {
                    path: f.clone(),
                    id: case.id.clone(),
                    message: format!("duplicate id (first in {})", first.display()),
                });
            }
            out.push((f.clone(), case));
        }
    }
    Ok(out)
}

fn collect_json(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        if entry.file_type()?.is_dir() {
            if path.file_name().is_some_and(|n| n == "fuzz") {
                continue;
            }
            collect_json(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
    Ok(())
}

/// Writes `case` to `dir/<file_name>` atomically (a temporary file renamed
/// into place) without ever overwriting: returns `Ok(false)` when the file
/// already exists.
///
/// # Errors
///
/// Any I/O error creating the directory or writing the file.
pub fn save_new(dir: &Path, file_name: &str, case: &Case) -> std::io::Result<bool> {
    crate::atomic::create_new(dir, file_name, case.to_pretty_json().as_bytes())
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
    fn save_never_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        let case = parse_cases(
            r#"{"id":"a","spec":1,"policy":"suffix","maxMessages":2,"messages":[],"expected":[]}"#,
            Path::new("x"),
        )
        .unwrap()
        .remove(0);
        assert!(save_new(dir.path(), "a.json", &case).unwrap());
        assert!(!save_new(dir.path(), "a.json", &case).unwrap());
        let back = load_file(&dir.path().join("a.json")).unwrap();
        assert_eq!(back, vec![case.clone()]);
        assert_eq!(case.content_id("fail").len(), "fail/".len() + 16);
    }
}
