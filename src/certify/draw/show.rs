//! What `reducer-kit show FILE` draws: the cases of a case file (the
//! corpus, a saved failure) with the reference reducer's answer, the
//! counterexamples of a JSON report (`certify --report-json`) with both
//! answers, or the compatibility matrix (`docs/compat/matrix.json`) as a
//! page ([`super::matrix`]). Which one a file is, is read from its
//! members: a JSON report has `certificate` and `counterexamples`, a
//! matrix `adapters`; anything else is read as a case file.

use super::html::{conversation, esc, page, LEGEND};
use super::saved::Saved;
use crate::case::{parse_cases, CaseError};
use crate::formats::Format;
use crate::input::{check_text, Holds, TextError};
use crate::protocol::response_from_json;
use crate::terms::Policy;
use serde_json::Value;
use std::fmt::Write as _;
use std::path::Path;

/// One drawing and what is said above it.
#[derive(Clone, Debug)]
pub struct Entry {
    /// `case spec/keep-tool-group (policy turns)`, `counterexample 1:
    /// no-orphan-result`.
    pub title: String,
    /// Lines said under the title (a case's description, its clauses, a
    /// failure).
    pub notes: Vec<String>,
    /// What is drawn.
    pub saved: Saved,
}

/// What a file holds, drawn.
#[derive(Clone, Debug)]
pub enum Document {
    /// Cases or counterexamples, one drawing each.
    Entries(Vec<Entry>),
    /// The compatibility matrix (drawn only as a page).
    Matrix(Value),
}

/// Reads `text` (the file `path`, read through the input gate) as
/// [`Document`] (see the module doc); the cases of a case file are drawn
/// in `format` (a JSON report says its own).
///
/// # Errors
///
/// [`CaseError`] naming `path`: too deep (exit code 1), not JSON, not a
/// case file, a JSON report without what it should have (exit code 2).
pub fn read_document(text: &str, path: &Path, format: Format) -> Result<Document, CaseError> {
    read_document_in(text, path, Some(format))
}

/// [`read_document`] with the format to draw a case file in left to the
/// file when `format` is `None`: a case saved by `certify --save-failures`
/// (one with a `run` member, spec §13.4) is drawn in its run's format with
/// the reducer's answer beside the reference's, any other in canonical.
/// Asked for another format than its run's, a saved case is drawn without
/// the reducer's answer, and says so.
///
/// # Errors
///
/// As [`read_document`].
pub fn read_document_in(
    text: &str,
    path: &Path,
    format: Option<Format>,
) -> Result<Document, CaseError> {
    let fail = |message: String| CaseError::Format {
        path: path.to_owned(),
        message,
    };
    match check_text(text, Holds::Other) {
        Err(TextError::TooDeep(too_deep)) => {
            return Err(CaseError::TooDeep {
                path: path.to_owned(),
                too_deep,
            })
        }
        Err(e) => return Err(fail(e.to_string())),
        Ok(()) => {}
    }
    let value: Value = serde_json::from_str(text).map_err(|e| fail(e.to_string()))?;
    if value.get("adapters").is_some_and(Value::is_array) {
        return Ok(Document::Matrix(value));
    }
    if value.get("certificate").is_some() && value.get("counterexamples").is_some() {
        return report_entries(&value).map(Document::Entries).map_err(fail);
    }
    let cases = parse_cases(text, path)?;
    Ok(Document::Entries(
        cases
            .iter()
            .map(|case| {
                let run_format = case
                    .run
                    .as_ref()
                    .and_then(|r| r.format.parse::<Format>().ok());
                let format = format.or(run_format).unwrap_or(Format::Canonical);
                let mut saved = Saved::case(format, case);
                let mut notes = Vec::new();
                if !case.description.is_empty() {
                    notes.push(case.description.clone());
                }
                if let Some(run) = &case.run {
                    notes.push(format!("saved by: reducer-kit certify {}", run.flags));
                    if run_format == Some(saved.format) {
                        saved.actual = Some(response_from_json(saved.format, &run.answer).ok());
                    } else {
                        notes.push(format!(
                            "the reducer's answer is drawn in the run's format only (--format {})",
                            run.format
                        ));
                    }
                }
                if !case.clauses.is_empty() {
                    notes.push(format!("clauses: {}", case.clauses.join(", ")));
                }
                for v in &case.violations {
                    notes.push(format!(
                        "invalid input: {} at message {}{}",
                        v.rule,
                        v.index,
                        if v.id.is_empty() {
                            String::new()
                        } else {
                            format!(", id {:?}", v.id)
                        }
                    ));
                }
                if let Some(why) = &saved.no_form {
                    notes.push(format!(
                        "no {} form ({why}): drawn in canonical",
                        format.title()
                    ));
                }
                Entry {
                    title: format!(
                        "case {} (policy {}, {}, {})",
                        case.id,
                        case.policy,
                        saved.draw().budget_text,
                        saved.format
                    ),
                    notes,
                    saved,
                }
            })
            .collect(),
    ))
}

/// The counterexamples of a JSON report, each drawn in the report's
/// format under its policy.
fn report_entries(report: &Value) -> Result<Vec<Entry>, String> {
    let format: Format = report
        .get("format")
        .and_then(Value::as_str)
        .unwrap_or("canonical")
        .parse()
        .map_err(|e| format!("member `format`: {e}"))?;
    let policy = match report.get("policy").and_then(Value::as_str) {
        Some("suffix") => Policy::Suffix,
        Some("repair") => Policy::Repair,
        _ => Policy::Turns,
    };
    let cxs = report
        .get("counterexamples")
        .and_then(Value::as_array)
        .ok_or("member `counterexamples` is not an array")?;
    cxs.iter()
        .enumerate()
        .map(|(i, cx)| {
            let saved = Saved::counterexample(format, policy, cx)
                .map_err(|e| format!("counterexample {i}: {e}"))?;
            let (clause, detail) = saved
                .failure
                .as_ref()
                .map_or((String::new(), String::new()), |f| {
                    (f.clause.clone(), f.detail.clone())
                });
            let shrunk = cx
                .get("originalId")
                .and_then(Value::as_str)
                .map_or(String::new(), |id| format!(", shrunk from {id}"));
            Ok(Entry {
                title: format!("counterexample {}: {clause}{shrunk}", i + 1),
                notes: vec![format!("failure: {detail}")],
                saved,
            })
        })
        .collect()
}

/// The entries as text: each title, its notes and its drawing
/// ([`super::text::conversation`]), a blank line between; ANSI colours
/// when `colour`.
pub fn entries_text(entries: &[Entry], colour: bool) -> String {
    let mut out = String::new();
    for (i, e) in entries.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let _ = writeln!(out, "{}", crate::terminal::escape(&e.title));
        for n in &e.notes {
            let _ = writeln!(out, "  {}", crate::terminal::escape(n));
        }
        out.push_str(&super::text::conversation(&e.saved.draw(), colour));
    }
    out
}

/// The entries as one page titled `title`: a section per entry.
pub fn entries_html(entries: &[Entry], title: &str) -> String {
    let mut body = format!("<main><h1>{}</h1>{LEGEND}", esc(title));
    for e in entries {
        let _ = write!(body, "<section class=\"cx\"><h3>{}</h3>", esc(&e.title));
        for n in &e.notes {
            let _ = write!(body, "<p class=\"def\">{}</p>", esc(n));
        }
        body.push_str(&conversation(&e.saved.draw()));
        body.push_str("</section>\n");
    }
    body.push_str("</main>");
    page(title, &body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_case_file_a_report_and_a_matrix_are_told_apart() {
        let case = r#"{"id": "t/one", "spec": 1, "policy": "turns", "maxMessages": 1,
            "messages": [{"role": "user", "contents": [{"$type": "text", "text": "<q>"}]}],
            "expected": [{"role": "user", "contents": [{"$type": "text", "text": "<q>"}]}],
            "description": "one question"}"#;
        let Document::Entries(e) =
            read_document(case, Path::new("c.json"), Format::OpenAi).unwrap()
        else {
            panic!("a case file")
        };
        assert_eq!(
            e[0].title,
            "case t/one (policy turns, maxMessages 1, openai)"
        );
        assert_eq!(e[0].notes, vec!["one question".to_string()]);
        let text = entries_text(&e, false);
        assert!(text.contains("REFERENCE (1 message)"), "{text}");
        assert!(text.contains("text <q>"), "{text}");
        let html = entries_html(&e, "show c.json");
        assert!(html.contains("text</b>&lt;q&gt;"), "{html}");
        let report = r#"{"certificate": "c", "format": "canonical", "policy": "suffix", "counterexamples": [
            {"clause": "budget", "maxMessages": 1, "originalId": "gen/1/2", "detail": "too long",
             "messages": [], "expected": {"messages": []}, "actual": {"messages": []}}]}"#;
        let Document::Entries(e) =
            read_document(report, Path::new("r.json"), Format::OpenAi).unwrap()
        else {
            panic!("a report")
        };
        assert_eq!(e[0].title, "counterexample 1: budget, shrunk from gen/1/2");
        assert_eq!(e[0].notes, vec!["failure: too long".to_string()]);
        assert!(matches!(
            read_document(
                r#"{"adapters": []}"#,
                Path::new("m.json"),
                Format::Canonical
            ),
            Ok(Document::Matrix(_))
        ));
        let err = read_document("{\"id\": 3}", Path::new("x.json"), Format::Canonical).unwrap_err();
        assert_eq!(err.exit_code(), 2);
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let err = read_document(&deep, Path::new("d.json"), Format::Canonical).unwrap_err();
        assert_eq!(err.exit_code(), 1);
    }
}
