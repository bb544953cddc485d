//! Regression corpora as a workflow: keep the cases that once broke a
//! reducer, regenerate their expectations when the spec moves, import new
//! failures, shrink the set, and seed the fuzzers (`reducer-kit corpus`).
//!
//! A *corpus directory* is every `*.json` case file below it (the format of
//! [`crate::case`]), recursively and in path order, skipping folders named
//! `fuzz` (fuzzer seeds are raw bytes) and every other extension (JSON
//! Lines included).
//!
//! | function | what it does |
//! |----------|--------------|
//! | [`load`], [`CaseFile::read`] | read the case files of a directory, remembering each file's [`Layout`] and [`Style`] |
//! | [`compare`], [`regenerate`] | judge a stored expectation against the reference reducers and the validator under [`SPEC_VERSION`] |
//! | [`render`], [`CaseFile::text_with`] | write cases in a layout and style, pretty, with a trailing newline; or splice changed cases into a file, keeping its other bytes |
//! | [`import`] | turn a certify counterexample or a libFuzzer artifact into a regression case |
//! | [`signature`], [`plan_min`] | the (clause, shape) pairs a case covers, and a greedy set cover over a directory |
//! | [`fuzz_seeds`] | seed inputs for every fuzz target, from the generator |
//!
//! Files are only ever written atomically (a temporary file in the same
//! folder, renamed into place): [`crate::atomic::replace`] and [`crate::atomic::create_new`].

use crate::case::{parse_cases, Case, CaseError, ExpectedError, ExpectedViolation, SPEC_VERSION};
use crate::check::{check_reducer, Outcome, Request};
use crate::formats::{view_history, Format};
use crate::generate::{shapes, Config, GeneratedCase, Shape};
use crate::json::first_difference;
use crate::reduce::{reduce, reference, respond, ReduceError};
use crate::terms::{Budget, Clause, Policy};
use crate::validate::{validate, Options};
use arbitrary::Unstructured;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::io::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};

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
    /// `certify --save-failures` writes a case).
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

/// What can go wrong reading or writing a corpus directory. Messages are
/// lowercase and name the file (and the case id, when one is involved).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CorpusError {
    /// A case file that cannot be read or is not in the case format
    /// (including a `spec` newer than this kit's).
    #[error(transparent)]
    Case(#[from] CaseError),
    /// A directory that cannot be listed, or a file that cannot be written.
    #[error("{path}: {source}")]
    Io {
        /// The directory or file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

impl CorpusError {
    fn io(path: &Path, source: std::io::Error) -> CorpusError {
        CorpusError::Io {
            path: path.to_owned(),
            source,
        }
    }
}

impl CaseFile {
    /// Reads one case file (one case object or an array of them), every case
    /// checked with [`Case::check_format`].
    ///
    /// # Errors
    ///
    /// [`CorpusError::Case`] naming the file (and case id), as
    /// [`crate::case::load_file`] gives it.
    pub fn read(path: &Path) -> Result<CaseFile, CorpusError> {
        let text = std::fs::read_to_string(path).map_err(|source| CaseError::Io {
            path: path.to_owned(),
            source,
        })?;
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
/// [`CorpusError::Io`] when a directory cannot be listed.
pub fn case_file_paths(dir: &Path) -> Result<Vec<PathBuf>, CorpusError> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), CorpusError> {
        let entries = std::fs::read_dir(dir).map_err(|e| CorpusError::io(dir, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| CorpusError::io(dir, e))?;
            let path = entry.path();
            let kind = entry.file_type().map_err(|e| CorpusError::io(&path, e))?;
            if kind.is_dir() {
                if path.file_name().is_some_and(|n| n != "fuzz") {
                    walk(&path, out)?;
                }
            } else if path.extension().is_some_and(|e| e == "json") {
                out.push(path);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(dir, &mut out)?;
    out.sort();
    Ok(out)
}

/// Reads every case file below `dir` (see the module doc).
///
/// # Errors
///
/// The first unreadable or invalid file, or [`CaseError::Invalid`] for an
/// id used twice (naming the second file and the first).
pub fn load(dir: &Path) -> Result<Vec<CaseFile>, CorpusError> {
    let mut files = Vec::new();
    let mut seen: HashMap<String, PathBuf> = HashMap::new();
    for path in case_file_paths(dir)? {
        let file = CaseFile::read(&path)?;
        for case in &file.cases {
            if let Some(first) = seen.insert(case.id.clone(), path.clone()) {
                return Err(CaseError::Invalid {
                    path: path.clone(),
                    id: case.id.clone(),
                    message: format!("duplicate id (first in {})", first.display()),
                }
                .into());
            }
        }
        files.push(file);
    }
    Ok(files)
}

/// A JSON formatter writing `{"a": 1, "b": [2, 3]}`: one line, a space after
/// each `,` and `:`.
struct Spaced;

impl serde_json::ser::Formatter for Spaced {
    fn begin_array_value<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if first {
            Ok(())
        } else {
            w.write_all(b", ")
        }
    }

    fn begin_object_key<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if first {
            Ok(())
        } else {
            w.write_all(b", ")
        }
    }

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
        Style::Pretty => serde_json::to_string_pretty(case)
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
/// use reducer_kit::corpus_tools::{render, Layout, Style};
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
            serde_json::to_string_pretty(&cases[0]).expect("a case always serializes")
        }
        Style::Pretty => serde_json::to_string_pretty(cases).expect("cases always serialize"),
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

// ---------------------------------------------------------------- regen / check

/// What the reference gives a case under [`SPEC_VERSION`]: the fields
/// `expected`, `expectedError` and `violations`.
#[derive(Clone, Debug, PartialEq)]
pub struct Expectation {
    /// The reference output, when the budget is valid.
    pub expected: Option<Vec<Value>>,
    /// `bad-budget`, when it is not.
    pub expected_error: Option<ExpectedError>,
    /// The validator's report on the messages, under the case's
    /// `allowPending`.
    pub violations: Vec<ExpectedViolation>,
}

/// The reference expectation for a request: the reference reducer of
/// `policy` (canonical format) and the validator under `allow_pending`.
///
/// # Errors
///
/// A lowercase message when the messages cannot be read (the case format
/// has no way to expect that).
pub fn expectation(
    policy: Policy,
    max_messages: &Value,
    messages: &[Value],
    allow_pending: bool,
) -> Result<Expectation, String> {
    let views = view_history(Format::Canonical, messages)
        .map_err(|e| format!("the reference cannot read the messages: {e}"))?;
    let (expected, expected_error) = match reduce(policy, Format::Canonical, messages, max_messages)
    {
        Ok(m) => (Some(m), None),
        Err(ReduceError::BadBudget(_)) => (None, Some(ExpectedError::BadBudget)),
        Err(ReduceError::Shape(e)) => {
            return Err(format!("the reference cannot read the messages: {e}"))
        }
    };
    let violations = validate(&views, Options { allow_pending })
        .into_iter()
        .map(|v| ExpectedViolation {
            rule: v.rule.id().to_string(),
            index: v.index,
            id: v.id,
        })
        .collect();
    Ok(Expectation {
        expected,
        expected_error,
        violations,
    })
}

/// `case` with `expected`, `expectedError` and `violations` recomputed by
/// the reference and `spec` set to [`SPEC_VERSION`]; every other field kept.
///
/// # Errors
///
/// As [`expectation`].
pub fn regenerate(case: &Case) -> Result<Case, String> {
    let e = expectation(
        case.policy,
        &case.max_messages,
        &case.messages,
        case.allow_pending,
    )?;
    Ok(Case {
        spec: SPEC_VERSION,
        expected: e.expected,
        expected_error: e.expected_error,
        violations: e.violations,
        ..case.clone()
    })
}

/// A stored expectation, summarised: how many messages, or which error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expected {
    /// `expected` with this many messages.
    Messages(usize),
    /// `expectedError`.
    Error(ExpectedError),
}

impl Expected {
    fn of(case: &Case) -> Expected {
        match (&case.expected, case.expected_error) {
            (Some(m), _) => Expected::Messages(m.len()),
            (None, Some(e)) => Expected::Error(e),
            (None, None) => Expected::Messages(0),
        }
    }
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expected::Messages(1) => f.write_str("1 message"),
            Expected::Messages(n) => write!(f, "{n} messages"),
            Expected::Error(ExpectedError::BadBudget) => f.write_str("error bad-budget"),
        }
    }
}

/// One way a stored case differs from its regenerated form. Its `Display`
/// reads `stored -> reference`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Difference {
    /// The case was made under an older spec version.
    Spec {
        /// The stored `spec`.
        stored: u32,
    },
    /// `expected` / `expectedError` differ.
    Expected {
        /// The stored expectation.
        stored: Expected,
        /// The reference's.
        reference: Expected,
        /// The first differing JSON path of the two `expected` arrays
        /// (`$[0].contents[1].text`), when both are arrays.
        path: Option<String>,
    },
    /// `violations` differ.
    Violations {
        /// How many are stored.
        stored: usize,
        /// How many the validator reports.
        reference: usize,
        /// The first differing JSON path of the two `violations` arrays.
        path: String,
    },
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Difference::Spec { stored } => write!(f, "spec v{stored} -> v{SPEC_VERSION}"),
            Difference::Expected {
                stored,
                reference,
                path,
            } => {
                write!(f, "expected {stored} -> {reference}")?;
                match path {
                    Some(p) => write!(f, ", first difference at {p}"),
                    None => Ok(()),
                }
            }
            Difference::Violations {
                stored,
                reference,
                path,
            } => write!(
                f,
                "violations {stored} -> {reference}, first difference at {path}"
            ),
        }
    }
}

/// How `stored` differs from `regenerated` (its [`regenerate`]d form), in the
/// order spec, expected, violations; empty when it does not. Expectations are
/// compared as JSON values (semantics §1 equality).
pub fn differences(stored: &Case, regenerated: &Case) -> Vec<Difference> {
    let mut out = Vec::new();
    if stored.spec != regenerated.spec {
        out.push(Difference::Spec {
            stored: stored.spec,
        });
    }
    let (old, new) = (Expected::of(stored), Expected::of(regenerated));
    match (&stored.expected, &regenerated.expected) {
        (Some(a), Some(b)) => {
            let path = first_difference(&Value::Array(a.clone()), &Value::Array(b.clone()));
            if path.is_some() {
                out.push(Difference::Expected {
                    stored: old,
                    reference: new,
                    path,
                });
            }
        }
        _ if old != new => out.push(Difference::Expected {
            stored: old,
            reference: new,
            path: None,
        }),
        _ => {}
    }
    let as_json = |v: &[ExpectedViolation]| serde_json::to_value(v).expect("violations serialize");
    if let Some(path) = first_difference(
        &as_json(&stored.violations),
        &as_json(&regenerated.violations),
    ) {
        out.push(Difference::Violations {
            stored: stored.violations.len(),
            reference: regenerated.violations.len(),
            path,
        });
    }
    out
}

/// The judgement of one stored case against the reference.
#[derive(Clone, Debug, PartialEq)]
pub enum Comparison {
    /// The stored expectation is the reference's.
    Matches,
    /// The case was made under an older spec (`spec` is that version): it
    /// is not judged under the current rules; regenerate it.
    OlderSpec(u32),
    /// The stored expectation differs; the regenerated case and how.
    Differs(Box<Case>, Vec<Difference>),
    /// The reference cannot judge it (the message says why).
    Unusable(String),
}

/// Judges `case` against the reference under [`SPEC_VERSION`]. A case made
/// under an older spec is [`Comparison::OlderSpec`], never judged by the new
/// rules.
///
/// # Examples
///
/// ```
/// use reducer_kit::corpus_tools::{compare, Comparison};
/// let mut case = reducer_kit::case::parse_cases(
///     r#"{"id":"a/b","spec":1,"policy":"turns","maxMessages":1,"messages":[],"expected":[]}"#,
///     std::path::Path::new("x.json")).unwrap().remove(0);
/// assert_eq!(compare(&case), Comparison::Matches);
/// case.spec = 0;
/// assert_eq!(compare(&case), Comparison::OlderSpec(0));
/// ```
pub fn compare(case: &Case) -> Comparison {
    if case.spec < SPEC_VERSION {
        return Comparison::OlderSpec(case.spec);
    }
    match regenerate(case) {
        Err(e) => Comparison::Unusable(e),
        Ok(new) => {
            let diffs = differences(case, &new);
            if diffs.is_empty() {
                Comparison::Matches
            } else {
                Comparison::Differs(Box::new(new), diffs)
            }
        }
    }
}

// ---------------------------------------------------------------- add

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
    /// [`SPEC_VERSION`], expectation from the reference.
    pub case: Case,
    /// Where it came from.
    pub origin: Origin,
}

/// The fuzz target whose decoding [`import`] uses for raw bytes when none is
/// named and the file's folder is not named after a target.
pub const DEFAULT_TARGET: &str = "reduce_invariants";

/// A case under `policy` with the reference expectation, the `allowPending`
/// flag normalised as certify's counterexamples are (set only when the
/// messages are invalid strictly but valid with pending calls allowed) and
/// the content-hash id `regress/<16 hex>`.
fn regression(
    policy: Policy,
    max_messages: Value,
    messages: Vec<Value>,
    clauses: Vec<String>,
    description: String,
) -> Result<Case, String> {
    let views = view_history(Format::Canonical, &messages)
        .map_err(|e| format!("the reference cannot read the messages: {e}"))?;
    let strict = validate(
        &views,
        Options {
            allow_pending: false,
        },
    );
    let allow_pending = !strict.is_empty()
        && validate(
            &views,
            Options {
                allow_pending: true,
            },
        )
        .is_empty();
    let e = expectation(policy, &max_messages, &messages, allow_pending)?;
    let mut case = Case {
        id: String::new(),
        spec: SPEC_VERSION,
        policy,
        max_messages,
        messages,
        expected: e.expected,
        expected_error: e.expected_error,
        clauses,
        allow_pending,
        violations: e.violations,
        description,
    };
    case.id = case.content_id("regress");
    Ok(case)
}

/// A generated case as the fuzz target `target` decodes `bytes`, with the
/// policy the target draws (if it draws one).
fn decode_target(
    target: &str,
    bytes: &[u8],
) -> Result<(GeneratedCase, Option<Policy>, Vec<Value>), String> {
    let mut u = Unstructured::new(bytes);
    let undecodable = |e: arbitrary::Error| format!("{target} cannot decode it: {e}");
    match target {
        "format_roundtrip" => {
            let (_, g) = crate::fuzzers::format_roundtrip::decode(&mut u).map_err(undecodable)?;
            let m = g.messages.clone();
            Ok((g, None, m))
        }
        "validator_agrees" => {
            let s = crate::fuzzers::validator_agrees::decode(&mut u).map_err(undecodable)?;
            Ok((s.case, None, s.messages))
        }
        "reduce_invariants" | "checker_convicts" => {
            let (g, p) = crate::fuzzers::case_and_policy(&mut u).map_err(undecodable)?;
            let m = g.messages.clone();
            Ok((g, Some(p), m))
        }
        other => Err(format!("unknown fuzz target {other:?}")),
    }
}

/// Reads the bytes of a `parse_no_panic` input as that target does: JSON
/// that is a history array (budget 3) or an object with a `messages` array
/// (and its `maxMessages`, else 3).
fn decode_parse_no_panic(bytes: &[u8]) -> Result<(Value, Vec<Value>), String> {
    let v: Value = serde_json::from_slice(bytes)
        .map_err(|e| format!("parse_no_panic input that is not JSON ({e}) carries no history"))?;
    match v {
        Value::Array(a) => Ok((Value::from(3), a)),
        Value::Object(mut o) => match o.remove("messages") {
            Some(Value::Array(a)) => Ok((o.remove("maxMessages").unwrap_or(Value::from(3)), a)),
            _ => Err("parse_no_panic input: a JSON object without a `messages` array".into()),
        },
        _ => Err("parse_no_panic input: JSON that is neither an array nor an object".into()),
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
///   why); other bytes are decoded as [`DEFAULT_TARGET`] does.
///
/// The policy is `policy` when given, else the case's, else the one the
/// target draws, else `turns`. `name` (the file name) goes into the
/// description of decoded cases.
///
/// # Errors
///
/// Why the file is not a case: JSON that is not in the case format, an
/// unknown target, or messages the reference cannot read.
pub fn import(
    bytes: &[u8],
    path: &Path,
    target: Option<&str>,
    policy: Option<Policy>,
) -> Result<Vec<Imported>, String> {
    let known = |name: &str| crate::fuzzers::TARGETS.iter().copied().find(|t| *t == name);
    let target = match target {
        Some(t) => known(t).ok_or_else(|| format!("unknown fuzz target {t:?}"))?,
        None => {
            let as_case = std::str::from_utf8(bytes)
                .map_err(|e| e.to_string())
                .and_then(|text| {
                    parse_cases(text, path).map_err(|e| match e {
                        CaseError::Format { message, .. } => message,
                        CaseError::Invalid { id, message, .. } => format!("case {id:?}: {message}"),
                        other => other.to_string(),
                    })
                });
            let folder = path
                .parent()
                .and_then(Path::file_name)
                .and_then(|n| n.to_str())
                .and_then(known);
            match (as_case, folder) {
                (Ok(cases), _) => return import_cases(cases, policy),
                (Err(_), Some(t)) => t,
                (Err(e), None) if serde_json::from_slice::<Value>(bytes).is_ok() => {
                    return Err(format!(
                        "{e} (for a fuzz input, name its target with --target)"
                    ))
                }
                (Err(_), None) => DEFAULT_TARGET,
            }
        }
    };
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into(),
    );
    let description = format!("imported from {target} input {name}");
    let (max_messages, messages, drawn) = if target == "parse_no_panic" {
        let (max, messages) = decode_parse_no_panic(bytes)?;
        (max, messages, None)
    } else {
        let (g, drawn, messages) = decode_target(target, bytes)?;
        (Value::from(g.budget), messages, drawn)
    };
    let policy = policy.or(drawn).unwrap_or(Policy::Turns);
    let case = regression(policy, max_messages, messages, Vec::new(), description)?;
    Ok(vec![Imported {
        case,
        origin: Origin::Artifact(target),
    }])
}

/// The cases of a case file as regression cases (see [`import`]).
fn import_cases(cases: Vec<Case>, policy: Option<Policy>) -> Result<Vec<Imported>, String> {
    cases
        .into_iter()
        .map(|c| {
            let origin = Origin::CaseFile(c.id.clone());
            let policy = policy.unwrap_or(c.policy);
            let judged = Clause::for_policy(policy);
            let clauses = c
                .clauses
                .into_iter()
                .filter(|id| Clause::from_id(id).is_some_and(|k| judged.contains(&k)))
                .collect();
            regression(policy, c.max_messages, c.messages, clauses, c.description)
                .map(|case| Imported { case, origin })
                .map_err(|e| format!("case {:?}: {e}", c.id))
        })
        .collect()
}

/// The file name of a case in a regressions folder: its id with `/` as `-`,
/// plus `.json` (`regress/0123…` → `regress-0123….json`).
pub fn file_name(id: &str) -> String {
    format!("{}.json", id.replace('/', "-"))
}

// ---------------------------------------------------------------- min

/// One (clause, shape) pair of a [`signature`].
pub type Pair = (Clause, Shape);

/// What a case covers: every pair of a clause the checker judges
/// [`Outcome::Pass`] on the reference output for the case (with the extra
/// responses from the reference too, [`check_reducer`] with
/// [`reference()`]) and a shape the case shows ([`shapes`] of its messages
/// and budget; an invalid budget counts as 0, which shows no budget shape).
/// Empty when the messages cannot be read.
pub fn signature(case: &Case) -> BTreeSet<Pair> {
    let req = Request {
        format: Format::Canonical,
        policy: case.policy,
        max_messages: &case.max_messages,
        messages: &case.messages,
    };
    let want = respond(
        case.policy,
        Format::Canonical,
        &case.max_messages,
        &case.messages,
    );
    let Ok(verdicts) = check_reducer(&req, reference(case.policy, Format::Canonical), Some(want))
    else {
        return BTreeSet::new();
    };
    let budget = Budget::parse(&case.max_messages).map_or(0, Budget::max_messages);
    let shown = shapes(&case.messages, budget);
    let mut out = BTreeSet::new();
    for v in verdicts.iter().filter(|v| v.outcome == Outcome::Pass) {
        for s in &shown {
            out.insert((v.clause, *s));
        }
    }
    out
}

/// A case of a directory: (index of the file, index of the case in it).
pub type CaseRef = (usize, usize);

/// A case [`plan_min`] removes, and the kept cases that cover it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Removal {
    /// The case.
    pub case: CaseRef,
    /// Ids of kept cases whose signatures together hold its signature (a
    /// greedy choice, most-covering first).
    pub covered_by: Vec<String>,
}

/// The outcome of [`plan_min`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MinPlan {
    /// How many distinct (clause, shape) pairs the directory covers (and
    /// the kept cases still cover).
    pub pairs: usize,
    /// The cases kept, in file order.
    pub kept: Vec<CaseRef>,
    /// The cases removed, in file order.
    pub removed: Vec<Removal>,
    /// Files to delete: every case in them is removed.
    pub delete: Vec<usize>,
    /// Files holding several cases that stay whole although the cover
    /// would have removed some of their cases, with how many.
    pub kept_whole: Vec<(usize, usize)>,
    /// Cases kept because they have no signature (unreadable messages).
    pub unjudged: Vec<CaseRef>,
}

/// A greedy set cover over `files`: keep a smallest set of cases whose
/// [`signature`]s cover every pair the directory covers. Each round keeps
/// the case adding the most uncovered pairs, preferring fewer messages,
/// then shorter messages, then the smaller id. A file with several cases is
/// kept whole unless every one of its cases is removable (the cover is then
/// recomputed with its cases kept). Last, a kept file or case whose pairs
/// the other kept cases hold is dropped, largest first. Cases without a
/// signature are kept.
pub fn plan_min(files: &[CaseFile]) -> MinPlan {
    let mut refs: Vec<CaseRef> = Vec::new();
    let mut sigs: BTreeMap<CaseRef, BTreeSet<Pair>> = BTreeMap::new();
    let mut size: BTreeMap<CaseRef, (usize, usize, String)> = BTreeMap::new();
    for (f, file) in files.iter().enumerate() {
        for (c, case) in file.cases.iter().enumerate() {
            refs.push((f, c));
            sigs.insert((f, c), signature(case));
            let bytes = Value::Array(case.messages.clone()).to_string().len();
            size.insert((f, c), (case.messages.len(), bytes, case.id.clone()));
        }
    }
    let unjudged: BTreeSet<CaseRef> = refs
        .iter()
        .copied()
        .filter(|r| sigs[r].is_empty())
        .collect();
    let mut order = refs.clone();
    order.sort_by(|a, b| size[a].cmp(&size[b]));
    let mut forced = unjudged.clone();
    // Files of several cases that the cover would have split, with how many
    // of their cases it would have removed.
    let mut split: BTreeMap<usize, usize> = BTreeMap::new();
    let mut selected = loop {
        let mut selected: BTreeSet<CaseRef> = forced.clone();
        let mut covered: BTreeSet<Pair> = forced.iter().flat_map(|r| sigs[r].clone()).collect();
        loop {
            let mut best: Option<(usize, CaseRef)> = None;
            for r in order.iter().filter(|r| !selected.contains(r)) {
                let gain = sigs[r].difference(&covered).count();
                if gain > best.map_or(0, |b| b.0) {
                    best = Some((gain, *r));
                }
            }
            let Some((_, r)) = best else { break };
            covered.extend(sigs[&r].iter().copied());
            selected.insert(r);
        }
        let mut next = forced.clone();
        for (f, file) in files.iter().enumerate() {
            let n = file.cases.len();
            let kept = (0..n).filter(|c| selected.contains(&(f, *c))).count();
            if n > 1 && kept > 0 && kept < n {
                next.extend((0..n).map(|c| (f, c)));
                split.entry(f).or_insert(n - kept);
            }
        }
        if next == forced {
            break selected;
        }
        forced = next;
    };
    // Prune: drop a kept unit (a file of several cases, or one case) whose
    // pairs the other kept cases hold, largest units first.
    let mut units: Vec<Vec<CaseRef>> = Vec::new();
    for (f, file) in files.iter().enumerate() {
        let n = file.cases.len();
        if n > 1 {
            units.push((0..n).map(|c| (f, c)).collect());
        } else if n == 1 {
            units.push(vec![(f, 0)]);
        }
    }
    let unit_size = |u: &Vec<CaseRef>| {
        let (m, b) = u
            .iter()
            .fold((0, 0), |(m, b), r| (m + size[r].0, b + size[r].1));
        (std::cmp::Reverse(m), std::cmp::Reverse(b), u[0])
    };
    units.sort_by_key(unit_size);
    for unit in &units {
        if !unit.iter().all(|r| selected.contains(r)) || unit.iter().any(|r| unjudged.contains(r)) {
            continue;
        }
        let others: BTreeSet<Pair> = selected
            .iter()
            .filter(|r| !unit.contains(r))
            .flat_map(|r| sigs[r].iter().copied())
            .collect();
        if unit.iter().all(|r| sigs[r].is_subset(&others)) {
            for r in unit {
                selected.remove(r);
            }
        }
    }
    let pairs: BTreeSet<Pair> = sigs.values().flatten().copied().collect();
    let mut plan = MinPlan {
        pairs: pairs.len(),
        unjudged: unjudged.iter().copied().collect(),
        ..MinPlan::default()
    };
    for r in &refs {
        if selected.contains(r) {
            plan.kept.push(*r);
            continue;
        }
        let mut need: BTreeSet<Pair> = sigs[r].clone();
        let mut covered_by = Vec::new();
        while !need.is_empty() {
            let best = order
                .iter()
                .filter(|k| selected.contains(k))
                .max_by_key(|k| {
                    (
                        sigs[k].intersection(&need).count(),
                        std::cmp::Reverse(size[k].clone()),
                    )
                })
                .copied()
                .expect("a removed case is covered by kept ones");
            if sigs[&best].intersection(&need).count() == 0 {
                break;
            }
            need.retain(|p| !sigs[&best].contains(p));
            covered_by.push(files[best.0].cases[best.1].id.clone());
        }
        plan.removed.push(Removal {
            case: *r,
            covered_by,
        });
    }
    for (f, file) in files.iter().enumerate() {
        let n = file.cases.len();
        if (0..n).all(|c| !selected.contains(&(f, c))) {
            plan.delete.push(f);
        } else if let Some(removable) = split.get(&f) {
            plan.kept_whole.push((f, *removable));
        }
    }
    plan
}

// ---------------------------------------------------------------- seed-fuzz

/// A content-hash file name for a fuzz seed: the first 16 hex digits of its
/// SHA-256.
pub fn seed_name(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The candidate byte buffer `n` for `target` under `seed`: ChaCha8 seeded
/// with `seed`, on a stream made of the target's position in
/// [`crate::fuzzers::TARGETS`] and `n`, 256 to 2,048 bytes (as
/// [`crate::generate::seeded_case`] makes its buffers, a little smaller).
fn candidate(seed: u64, target: usize, n: u64) -> Vec<u8> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(((target as u64) << 40) | n);
    let len = 256usize << (rng.next_u32() % 4);
    let mut buf = vec![0u8; len];
    rng.fill_bytes(&mut buf);
    buf
}

/// `count` seed inputs for fuzz target `target`, the same for the same
/// `seed` on every machine.
///
/// - Generator targets (`format_roundtrip`, `validator_agrees`,
///   `reduce_invariants`, `checker_convicts`): byte buffers, chosen among
///   candidates (see [`crate::generate::seeded_case`]) so that each one's
///   decoded history, as the target decodes it, shows a [`Shape`] the
///   earlier seeds do not; then the next non-empty histories.
/// - `parse_no_panic`: JSON texts in turn: a generated history, a request,
///   a case file, an OpenAI history.
///
/// # Panics
///
/// For a target not in [`crate::fuzzers::TARGETS`].
pub fn fuzz_seeds(target: &str, seed: u64, count: usize) -> Vec<Vec<u8>> {
    let index = crate::fuzzers::TARGETS
        .iter()
        .position(|t| *t == target)
        .unwrap_or_else(|| panic!("unknown fuzz target {target:?}"));
    if target == "parse_no_panic" {
        return json_seeds(seed, count);
    }
    let mut out: Vec<Vec<u8>> = Vec::new();
    let mut seen: BTreeSet<Shape> = BTreeSet::new();
    let mut spare: Vec<Vec<u8>> = Vec::new();
    let tries = (count as u64).saturating_mul(40).max(64);
    for n in 0..tries {
        if out.len() >= count {
            break;
        }
        let buf = candidate(seed, index, n);
        let Ok((g, _, messages)) = decode_target(target, &buf) else {
            continue;
        };
        if messages.is_empty() {
            continue;
        }
        let s = shapes(&messages, g.budget);
        if s.iter().any(|x| !seen.contains(x)) {
            seen.extend(s);
            out.push(buf);
        } else if spare.len() < count {
            spare.push(buf);
        }
    }
    let missing = count.saturating_sub(out.len());
    out.extend(spare.into_iter().take(missing));
    out
}

fn json_seeds(seed: u64, count: usize) -> Vec<Vec<u8>> {
    let small = Config {
        large_payloads: false,
        ..Config::everything()
    };
    let openai = Config {
        large_payloads: false,
        ..Config::for_openai()
    };
    (0..count as u64)
        .map(|n| {
            let text = match n % 4 {
                0 => {
                    let g = crate::generate::seeded_case(seed, n, &small);
                    Value::Array(g.messages).to_string()
                }
                1 => {
                    let g = crate::generate::seeded_case(seed, n, &small);
                    serde_json::json!({"maxMessages": g.budget, "messages": g.messages}).to_string()
                }
                2 => {
                    let g = crate::generate::seeded_case(seed, n, &small);
                    let case = g.to_case(format!("fuzz/seed-{seed}-{n}"), Policy::Turns);
                    render(&[case], Layout::Single, Style::Corpus)
                }
                _ => {
                    let g = crate::generate::seeded_case(seed, n, &openai);
                    match crate::formats::openai::to_openai(&g.messages) {
                        Ok(m) => Value::Array(m).to_string(),
                        Err(_) => Value::Array(g.messages).to_string(),
                    }
                }
            };
            text.into_bytes()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus")
    }

    #[test]
    fn the_kit_corpus_matches_the_reference_and_splices_back() {
        let files = load(&corpus()).unwrap();
        assert!(files.len() >= 5);
        for f in &files {
            let text = std::fs::read_to_string(&f.path).unwrap();
            assert_eq!(f.text_with(&[]), text);
            assert!(f.spans.is_some(), "{}", f.path.display());
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
    fn an_older_spec_is_reported_not_judged_and_regen_updates_it() {
        let file = CaseFile::read(&corpus().join("seed/order-shipment.json")).unwrap();
        let mut old = file.cases[0].clone();
        old.spec = 0;
        old.expected = Some(Vec::new());
        assert_eq!(compare(&old), Comparison::OlderSpec(0));
        let new = regenerate(&old).unwrap();
        assert_eq!(new, file.cases[0]);
        let d = differences(&old, &new);
        assert_eq!(
            d.iter().map(ToString::to_string).collect::<Vec<_>>(),
            vec![
                "spec v0 -> v1".to_string(),
                "expected 0 messages -> 1 message, first difference at $[0]".to_string()
            ]
        );
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

    #[test]
    fn seeds_decode_to_histories_with_new_shapes() {
        for t in crate::fuzzers::TARGETS {
            let a = fuzz_seeds(t, 3, 4);
            assert_eq!(a.len(), 4, "{t}");
            assert_eq!(a, fuzz_seeds(t, 3, 4), "{t}");
            for s in &a {
                crate::fuzzers::run_target(t, s);
            }
        }
    }
}
