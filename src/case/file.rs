//! Case files as text (the format of [`crate::case`]): reading a directory
//! of them, remembering each file's [`Layout`] and [`Style`], rendering
//! cases, and splicing changed cases into a file so that every other byte
//! stays as it was (`reducer-kit corpus regen`).
//!
//! A *corpus directory* is every `*.json` case file below it, recursively
//! and in path order, skipping folders named `fuzz` (fuzzer seeds are raw
//! bytes) and every other extension (JSON Lines included):
//! [`case_file_paths`], [`load_files`] (and [`super::load_dir`], its cases).
//!
//! Case files are read through the kit's one input gate
//! ([`crate::input`], spec §8.11): only regular files (a symlink is
//! followed), at most [`MAX_CASE_FILE`] bytes unless told otherwise, so a
//! `*.json` that is a FIFO, a folder or a symlink to `/dev/zero` is an
//! error naming it, never a hang (a folder named `*.json` is not walked);
//! nesting deeper than
//! [`crate::input::MAX_DEPTH`] is refused before parsing
//! ([`super::parse_cases`]).

use super::{parse_cases, Case, CaseError, InvalidCase};
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;
use std::io::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// The largest case file the kit reads unless told otherwise, in bytes
/// (64 MiB): [`crate::input::DEFAULT_MAX_INPUT`], the one limit of every
/// input (spec §8.11).
pub const MAX_CASE_FILE: u64 = crate::input::DEFAULT_MAX_INPUT;

pub use crate::input::read_regular;

/// Reads a case file as UTF-8 text with [`read_regular`] (at most
/// [`MAX_CASE_FILE`] bytes).
///
/// # Errors
///
/// [`CaseError::Io`] naming the file.
pub fn read_case_text(path: &Path) -> Result<String, CaseError> {
    read_case_text_with(path, MAX_CASE_FILE)
}

/// [`read_case_text`] with the size limit `max` (the command line's
/// `--max-input`).
///
/// # Errors
///
/// [`CaseError::Io`] naming the file.
pub fn read_case_text_with(path: &Path, max: u64) -> Result<String, CaseError> {
    read_regular(path, max)
        .and_then(crate::input::utf8)
        .map_err(|source| CaseError::Io {
            path: path.to_owned(),
            source,
        })
}

/// The file name of a case saved on its own (a regression case, a saved
/// counterexample): its id with `/` as `-`, plus `.json`
/// (`regress/0123…` → `regress-0123….json`).
pub fn file_name(id: &str) -> String {
    format!("{}.json", id.replace('/', "-"))
}

/// How a case file holds its cases.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// One case object.
    Single,
    /// An array of case objects (possibly of one).
    Array,
}

/// How a case file is formatted. Both are pretty JSON with a trailing
/// newline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// The style of the kit's corpus: two-space indentation, one member of a
    /// case per line, one message of `messages` and `expected` per line,
    /// everything else on its member's line (`{"a": 1, "b": [2, 3]}`).
    Corpus,
    /// `serde_json`'s pretty printer, every value on its own line (how
    /// `certify --save-failures` writes a case), for the top
    /// [`crate::json::PRETTY_DEPTH`] levels; deeper values compact
    /// ([`crate::json::to_string_pretty`]).
    Pretty,
}

/// One case file as read.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseFile {
    /// Where it was read.
    pub path: PathBuf,
    /// One case object or an array.
    pub layout: Layout,
    /// [`Style::Pretty`] when the file is exactly what `serde_json`'s pretty
    /// printer makes of its cases, else [`Style::Corpus`].
    pub style: Style,
    /// Its cases, in file order.
    pub cases: Vec<Case>,
    /// The text as read.
    text: String,
    /// For [`Layout::Array`]: where each case's object lies in `text`.
    spans: Option<Vec<Range<usize>>>,
}

impl CaseFile {
    /// Reads one case file (one case object or an array of them), every case
    /// checked with [`Case::check_format`].
    ///
    /// # Errors
    ///
    /// A [`CaseError`] naming the file (and case id), as
    /// [`super::load_file`] gives it.
    pub fn read(path: &Path) -> Result<CaseFile, CaseError> {
        CaseFile::read_with(path, MAX_CASE_FILE)
    }

    /// [`CaseFile::read`] with the size limit `max`.
    ///
    /// # Errors
    ///
    /// As [`CaseFile::read`].
    pub fn read_with(path: &Path, max: u64) -> Result<CaseFile, CaseError> {
        let text = read_case_text_with(path, max)?;
        let cases = parse_cases(&text, path)?;
        let layout = if text.trim_start().starts_with('[') {
            Layout::Array
        } else {
            Layout::Single
        };
        let style = if render(&cases, layout, Style::Pretty) == text {
            Style::Pretty
        } else {
            Style::Corpus
        };
        let spans = match layout {
            Layout::Array => element_spans(&text).filter(|s| s.len() == cases.len()),
            Layout::Single => None,
        };
        Ok(CaseFile {
            path: path.to_owned(),
            layout,
            style,
            cases,
            text,
            spans,
        })
    }

    /// The file's text with the cases at the given positions replaced:
    /// every other byte is kept as read, so unchanged cases keep their
    /// exact spelling (`1e1` stays `1e1`). A replaced case is rendered in
    /// the file's [`Style`], at the file's indentation. Without
    /// replacements, the text as read.
    ///
    /// # Panics
    ///
    /// When a position is not a case of the file.
    pub fn text_with(&self, replaced: &[(usize, &Case)]) -> String {
        for (i, _) in replaced {
            assert!(*i < self.cases.len(), "case {i} of {}", self.cases.len());
        }
        if replaced.is_empty() {
            return self.text.clone();
        }
        let Some(spans) = &self.spans else {
            let mut cases = self.cases.clone();
            for (i, c) in replaced {
                cases[*i] = (*c).clone();
            }
            return render(&cases, self.layout, self.style);
        };
        let mut out = String::with_capacity(self.text.len());
        let mut at = 0;
        for (i, span) in spans.iter().enumerate() {
            if let Some((_, c)) = replaced.iter().find(|(k, _)| *k == i) {
                out.push_str(&self.text[at..span.start]);
                out.push_str(&render_nested(c, self.style));
                at = span.end;
            }
        }
        out.push_str(&self.text[at..]);
        out
    }
}

/// Where each element of the top-level JSON array in `text` lies, or `None`
/// when `text` is not an array.
fn element_spans(text: &str) -> Option<Vec<Range<usize>>> {
    let bytes = text.as_bytes();
    let mut i = bytes.iter().position(|b| !b.is_ascii_whitespace())?;
    if bytes[i] != b'[' {
        return None;
    }
    i += 1;
    let mut spans = Vec::new();
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    let mut start: Option<usize> = None;
    let mut last = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
                last = i + 1;
            }
        } else if b.is_ascii_whitespace() {
        } else {
            if start.is_none() && b != b']' {
                start = Some(i);
            }
            match b {
                b'"' => in_string = true,
                b'{' | b'[' => depth += 1,
                b'}' | b']' if depth > 0 => depth -= 1,
                b',' | b']' if depth == 0 => {
                    if let Some(s) = start.take() {
                        spans.push(s..last);
                    }
                    if b == b']' {
                        return Some(spans);
                    }
                    i += 1;
                    continue;
                }
                _ => {}
            }
            if !in_string {
                last = i + 1;
            }
        }
        i += 1;
    }
    None
}

/// The case files below `dir` (see the module doc), in path order.
///
/// # Errors
///
/// [`CaseError::Io`] naming a directory that cannot be listed.
pub fn case_file_paths(dir: &Path) -> Result<Vec<PathBuf>, CaseError> {
    Ok(walk_cases(dir)?.0)
}

fn io(path: &Path, source: std::io::Error) -> CaseError {
    CaseError::Io {
        path: path.to_owned(),
        source,
    }
}

/// The case files below `dir` (see the module doc), in path order, and
/// the folders that hold a committed change not yet carried out
/// ([`crate::atomic::COMMIT_DIR`]). The kit's own staging and commit
/// folders (`.reducer-kit-…`) are not walked.
fn walk_cases(dir: &Path) -> Result<(Vec<PathBuf>, Vec<PathBuf>), CaseError> {
    fn walk(
        dir: &Path,
        out: &mut Vec<PathBuf>,
        commits: &mut Vec<PathBuf>,
    ) -> Result<(), CaseError> {
        let entries = std::fs::read_dir(dir).map_err(|e| io(dir, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| io(dir, e))?;
            let path = entry.path();
            let kind = entry.file_type().map_err(|e| io(&path, e))?;
            let name = entry.file_name();
            if name == crate::atomic::COMMIT_DIR {
                commits.push(dir.to_path_buf());
            } else if name.to_string_lossy().starts_with(".reducer-kit-") {
            } else if path.extension().is_some_and(|e| e == "json") {
                // A folder named `*.json` too: read as the case file its
                // name says, the input gate refuses it (spec §8.11).
                out.push(path);
            } else if kind.is_dir() && name != "fuzz" {
                walk(&path, out, commits)?;
            }
        }
        Ok(())
    }
    let (mut out, mut commits) = (Vec::new(), Vec::new());
    walk(dir, &mut out, &mut commits)?;
    out.sort();
    Ok((out, commits))
}

/// Carries out every change committed below `dir` (itself included) that
/// its writer did not finish ([`crate::atomic::recover`]: a `corpus regen`
/// or `corpus min` killed after its commit point), so that the folder is
/// read as it is after the change (spec §8.11). Returns the folders
/// changed, with how many files each change named.
///
/// # Errors
///
/// [`CaseError::Io`] naming a folder that cannot be listed or a change that
/// cannot be carried out.
pub fn recover_changes(dir: &Path) -> Result<Vec<(PathBuf, usize)>, CaseError> {
    let mut done = Vec::new();
    for folder in walk_cases(dir)?.1 {
        if let Some(n) = crate::atomic::recover(&folder).map_err(|e| io(&folder, e))? {
            done.push((folder, n));
        }
    }
    Ok(done)
}

/// Reads every case file below `dir` (see the module doc): the one loader
/// of a corpus directory. A change of the directory committed but not
/// carried out (its writer killed) is carried out first
/// ([`recover_changes`]), so the directory is read as it was before the
/// change or as it is after it, never between.
///
/// # Errors
///
/// The first unreadable or invalid file, or [`CaseError::Invalid`] with
/// [`InvalidCase::DuplicateId`] for an id used twice (naming the second
/// file and the first).
pub fn load_files(dir: &Path) -> Result<Vec<CaseFile>, CaseError> {
    load_files_with(dir, MAX_CASE_FILE)
}

/// [`load_files`] with the size limit `max` for each file.
///
/// # Errors
///
/// As [`load_files`].
pub fn load_files_with(dir: &Path, max: u64) -> Result<Vec<CaseFile>, CaseError> {
    recover_changes(dir)?;
    let mut files = Vec::new();
    let mut seen: HashMap<String, PathBuf> = HashMap::new();
    for path in case_file_paths(dir)? {
        let file = CaseFile::read_with(&path, max)?;
        for case in &file.cases {
            if let Some(first) = seen.insert(case.id.clone(), path.clone()) {
                return Err(CaseError::Invalid {
                    path: path.clone(),
                    id: case.id.clone(),
                    problem: InvalidCase::DuplicateId { first },
                });
            }
        }
        files.push(file);
    }
    Ok(files)
}

/// each `,` and `:`.
struct Spaced;

/// Formatter methods that write `, ` before every element but the first.
macro_rules! separated {
    ($($method:ident),*) => {$(
        fn $method<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
            if first {
                Ok(())
            } else {
                w.write_all(b", ")
            }
        }
    )*};
}

impl serde_json::ser::Formatter for Spaced {
    separated!(begin_array_value, begin_object_key);

    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(b": ")
    }
}

/// `value` on one line in the [`Style::Corpus`] spacing.
fn spaced(value: &Value) -> String {
    let mut buf = Vec::new();
    value
        .serialize(&mut serde_json::Serializer::with_formatter(
            &mut buf, Spaced,
        ))
        .expect("a JSON value always serializes");
    String::from_utf8(buf).expect("serde_json writes UTF-8")
}

fn render_case_corpus(case: &Case, indent: usize, out: &mut String) {
    let Value::Object(members) = serde_json::to_value(case).expect("a case always serializes")
    else {
        unreachable!("a case serializes to an object");
    };
    let pad = " ".repeat(indent + 2);
    out.push_str("{\n");
    for (i, (key, value)) in members.iter().enumerate() {
        if i > 0 {
            out.push_str(",\n");
        }
        out.push_str(&pad);
        out.push_str(&spaced(&Value::String(key.clone())));
        out.push_str(": ");
        match value {
            Value::Array(items)
                if (key == "messages" || key == "expected") && !items.is_empty() =>
            {
                out.push_str("[\n");
                for (j, item) in items.iter().enumerate() {
                    if j > 0 {
                        out.push_str(",\n");
                    }
                    out.push_str(&pad);
                    out.push_str("  ");
                    out.push_str(&spaced(item));
                }
                out.push('\n');
                out.push_str(&pad);
                out.push(']');
            }
            other => out.push_str(&spaced(other)),
        }
    }
    out.push('\n');
    out.push_str(&" ".repeat(indent));
    out.push('}');
}

/// One case as an element of an array file: in `style`, its lines after
/// the first indented by two spaces.
fn render_nested(case: &Case, style: Style) -> String {
    match style {
        Style::Corpus => {
            let mut s = String::new();
            render_case_corpus(case, 2, &mut s);
            s
        }
        Style::Pretty => crate::json::to_string_pretty_at(case, 1)
            .expect("a case always serializes")
            .replace('\n', "\n  "),
    }
}

/// The text of a case file holding `cases` in `layout` and `style`, ending
/// in a newline. [`Layout::Single`] with other than one case is written as
/// an array.
///
/// # Examples
///
/// ```
/// use reducer_kit::case::file::{render, Layout, Style};
/// let case = reducer_kit::case::parse_cases(
///     r#"{"id":"a/b","spec":1,"policy":"turns","maxMessages":1,
///         "messages":[{"role":"user","contents":[]}],"expected":[{"role":"user","contents":[]}]}"#,
///     std::path::Path::new("x.json")).unwrap();
/// assert_eq!(render(&case, Layout::Single, Style::Corpus), "{\n  \"id\": \"a/b\",\n  \"spec\": 1,\n  \
///     \"policy\": \"turns\",\n  \"maxMessages\": 1,\n  \"messages\": [\n    {\"role\": \"user\", \"contents\": []}\n  ],\n  \
///     \"expected\": [\n    {\"role\": \"user\", \"contents\": []}\n  ]\n}\n");
/// ```
pub fn render(cases: &[Case], layout: Layout, style: Style) -> String {
    let single = layout == Layout::Single && cases.len() == 1;
    let mut out = match style {
        Style::Pretty if single => {
            crate::json::to_string_pretty(&cases[0]).expect("a case always serializes")
        }
        Style::Pretty => crate::json::to_string_pretty(cases).expect("cases always serialize"),
        Style::Corpus if single => {
            let mut s = String::new();
            render_case_corpus(&cases[0], 0, &mut s);
            s
        }
        Style::Corpus if cases.is_empty() => "[]".to_string(),
        Style::Corpus => {
            let mut s = String::from("[\n");
            for (i, case) in cases.iter().enumerate() {
                if i > 0 {
                    s.push_str(",\n");
                }
                s.push_str("  ");
                render_case_corpus(case, 2, &mut s);
            }
            s.push_str("\n]");
            s
        }
    };
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::{compare, Comparison};

    fn corpus() -> PathBuf {
        crate::certify::kit_corpus()
    }

    #[test]
    fn the_kit_corpus_matches_the_reference_and_splices_back() {
        let files = load_files(&corpus()).unwrap();
        assert!(files.len() >= 5);
        for f in &files {
            let text = std::fs::read_to_string(&f.path).unwrap();
            assert_eq!(f.text_with(&[]), text);
            // The hand-written files are arrays whose elements can be
            // spliced one by one; saved counterexamples are single objects.
            assert_eq!(
                f.spans.is_some(),
                text.trim_start().starts_with('['),
                "{}",
                f.path.display()
            );
            for (i, c) in f.cases.iter().enumerate() {
                assert_eq!(compare(c), Comparison::Matches, "{}", c.id);
                let again = f.text_with(&[(i, c)]);
                assert_eq!(parse_cases(&again, &f.path).unwrap(), f.cases);
                let exact = ["order-shipment.json", "tools.json", "rules.json"];
                if exact.iter().any(|n| f.path.ends_with(n)) {
                    assert_eq!(again, text, "{} case {i}", f.path.display());
                }
            }
            if f.path.ends_with("order-shipment.json") {
                assert_eq!(render(&f.cases, f.layout, f.style), text);
            }
        }
    }

    #[test]
    fn element_spans_skip_brackets_and_quotes_inside_strings() {
        let text = " [\n  {\"a\": \"x]\\\",{\"}, [1, [2]] ,\"s\"\n]\n";
        let spans = element_spans(text).unwrap();
        let parts: Vec<&str> = spans.iter().map(|r| &text[r.clone()]).collect();
        assert_eq!(parts, ["{\"a\": \"x]\\\",{\"}", "[1, [2]]", "\"s\""]);
        assert_eq!(element_spans("[]").unwrap(), Vec::<Range<usize>>::new());
        assert_eq!(element_spans("{}"), None);
        assert_eq!(element_spans("[1, 2"), None);
    }

    #[test]
    fn pretty_files_stay_pretty() {
        let case = CaseFile::read(&corpus().join("seed/order-shipment.json"))
            .unwrap()
            .cases
            .remove(3);
        let text = case.to_pretty_json();
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("fail-x.json");
        std::fs::write(&p, &text).unwrap();
        let f = CaseFile::read(&p).unwrap();
        assert_eq!((f.layout, f.style), (Layout::Single, Style::Pretty));
        assert_eq!(f.text_with(&[(0, &f.cases[0])]), text);
    }
}
