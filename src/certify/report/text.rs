//! The text report `certify` prints: skipped and failing cases (the first
//! [`SHOWN`]), each failure with its clause's definition, the reducer's
//! stderr tail and the command that reruns it; the minimal
//! counterexamples; the clause table; the levels; known failures; the
//! certificate line and a count.

use super::{certificate, Run};
use crate::certify::counterexample::Counterexample;
use crate::certify::known_failures::KnownFailureCheck;
use crate::certify::run::CaseResult;
use crate::check::Outcome;
use crate::protocol::Response;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::PathBuf;

/// How many skipped and failing cases the report shows each (all of them
/// are in the JSON report).
pub const SHOWN: usize = 20;

/// What the text report needs besides the run: how the run was asked for
/// (to print the commands that rerun a case) and whether to colour.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TextOptions {
    /// The `--corpus` directories given (none: the default corpus).
    pub corpus: Vec<PathBuf>,
    /// The `--replay` files given.
    pub replay: Vec<PathBuf>,
    /// ANSI colours for `pass`, `FAIL` and failure counts.
    pub colour: bool,
}

/// `s` as one shell word: unchanged when it is safe, else single-quoted.
pub fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// A command line as the shell would take it back ([`shell_word`]s).
pub fn command_line(argv: &[OsString]) -> String {
    argv.iter()
        .map(|a| shell_word(&a.to_string_lossy()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The text report of `run`, one line per `\n`.
pub fn render(run: &Run, options: &TextOptions) -> String {
    let mut out = Report {
        run,
        options,
        command_line: command_line(&run.settings.argv),
        text: String::new(),
    };
    out.all();
    out.text
}

struct Report<'a> {
    run: &'a Run<'a>,
    options: &'a TextOptions,
    command_line: String,
    text: String,
}

/// Appends one line.
macro_rules! line {
    ($r:expr) => { $r.text.push('\n') };
    ($r:expr, $($arg:tt)*) => {{
        let _ = writeln!($r.text, $($arg)*);
    }};
}

impl Report<'_> {
    fn paint(&self, code: &str, s: &str) -> String {
        if self.options.colour {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }

    fn red(&self, s: &str) -> String {
        self.paint("31", s)
    }

    fn green(&self, s: &str) -> String {
        self.paint("32", s)
    }

    fn all(&mut self) {
        let run = self.run;
        let failing: Vec<&CaseResult> = run
            .results
            .iter()
            .filter(|r| r.failures().next().is_some())
            .collect();
        for r in run
            .results
            .iter()
            .filter(|r| r.skipped.is_some())
            .take(SHOWN)
        {
            line!(
                self,
                "skip {}: {}",
                r.case.id,
                r.skipped.as_deref().unwrap_or("")
            );
        }
        for r in failing.iter().take(SHOWN) {
            self.case_failure(r, run.known_failures);
        }
        if failing.len() > SHOWN {
            line!(
                self,
                "... and {} more failing cases (all in --report-json)",
                failing.len() - SHOWN
            );
        }
        for cx in run.counterexamples {
            self.counterexample(cx);
        }
        let g = run.grade;
        line!(self);
        line!(
            self,
            "{:<22} {:>7} {:>7} {:>11}",
            "clause",
            "passed",
            "failed",
            "not judged"
        );
        for (c, t) in &g.clauses {
            let failed = if t.failed > 0 {
                self.red(&format!("{:>7}", t.failed))
            } else {
                format!("{:>7}", t.failed)
            };
            line!(
                self,
                "{:<22} {:>7} {failed} {:>11}",
                c.id(),
                t.passed,
                t.not_judged
            );
        }
        line!(self);
        for (level, ok) in &g.levels {
            let verdict = if *ok {
                self.green("pass")
            } else {
                self.red("FAIL")
            };
            line!(self, "level {:<9} {verdict}", level.name());
        }
        let e = run.known_failures;
        if !e.expected.is_empty() || !e.now_passing.is_empty() {
            line!(
                self,
                "known failures: {} expected, {} unexpected",
                e.expected.len(),
                e.unexpected.len()
            );
            for p in &e.now_passing {
                line!(
                    self,
                    "listed as known but passes now: {} {}",
                    p.case,
                    p.clause
                );
            }
        }
        line!(self, "{}", certificate(run));
        line!(
            self,
            "{} passed, {} failed",
            g.cases_run - failing.len(),
            failing.len()
        );
    }

    /// The command that reruns `case_id` (or the replayed files).
    fn reproduce(&self, case_id: &str) -> String {
        let settings = self.run.settings;
        let corpus = flags("--corpus", &self.options.corpus);
        let persistent = if settings.persistent {
            " --persistent"
        } else {
            ""
        };
        let command_line = &self.command_line;
        if !self.options.replay.is_empty() {
            let files = flags("--replay", &self.options.replay);
            return format!(
                "reducer-kit certify --policy {} --format {}{persistent}{files} -- {command_line}",
                settings.policy, settings.format
            );
        }
        format!(
            "reducer-kit certify --policy {} --format {}{persistent}{corpus} --case {} -- {command_line}",
            settings.policy,
            settings.format,
            shell_word(case_id)
        )
    }

    fn case_failure(&mut self, r: &CaseResult, known: &KnownFailureCheck) {
        let fail = self.red("FAIL");
        line!(
            self,
            "{fail} {} (maxMessages {}, {} messages)",
            r.case.id,
            r.case.max_messages,
            r.case.messages.len()
        );
        for v in r.failures() {
            if let Outcome::Fail(detail) = &v.outcome {
                let is_known = known
                    .expected
                    .iter()
                    .any(|x| x.case == r.case.id && x.clause == v.clause.id());
                line!(
                    self,
                    "  {}{}: {detail}",
                    v.clause,
                    if is_known { " (known failure)" } else { "" }
                );
                line!(self, "    {}", v.clause.definition());
            }
        }
        if !r.stderr_tail.trim().is_empty() {
            let lines: Vec<&str> = r.stderr_tail.trim_end().lines().collect();
            let tail = lines[lines.len().saturating_sub(5)..].join("\n      ");
            line!(self, "  reducer stderr (tail):\n      {tail}");
        }
        if r.skipped.is_none() {
            let again = self.reproduce(&r.case.id);
            line!(self, "  reproduce: {again}");
        }
    }

    fn counterexample(&mut self, cx: &Counterexample) {
        line!(self);
        line!(
            self,
            "minimal counterexample for {} ({} messages, maxMessages {}; shrunk from {} in {} tries)",
            cx.clause,
            cx.case.messages.len(),
            cx.case.max_messages,
            cx.original_id,
            cx.tries
        );
        line!(self, "  clause:   {}", cx.clause.definition());
        line!(self, "  failure:  {}", cx.detail);
        line!(
            self,
            "  input:    {}",
            compact(&Response::Messages(cx.case.messages.clone()))
        );
        line!(self, "  expected: {}", compact(&cx.expected));
        match &cx.actual {
            Some(a) => line!(self, "  actual:   {}", compact(a)),
            None => line!(self, "  actual:   (no response)"),
        }
        if let Some(p) = &cx.first_difference {
            line!(self, "  first difference at {p}");
        }
        let settings = self.run.settings;
        match &cx.saved_to {
            Some(p) => line!(
                self,
                "  saved:    {}\n  replay:   reducer-kit certify --policy {} --format {} --replay {} -- {}",
                p.display(),
                settings.policy,
                settings.format,
                shell_word(&p.to_string_lossy()),
                self.command_line
            ),
            None => {
                let again = self.reproduce(&cx.original_id);
                line!(self, "  reproduce: {again}");
            }
        }
    }
}

/// ` FLAG PATH` for each path.
fn flags(flag: &str, paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| format!(" {flag} {}", shell_word(&p.to_string_lossy())))
        .collect()
}

/// A response as one line of JSON, cut after 2,000 characters.
fn compact(r: &Response) -> String {
    let s = r.to_json().to_string();
    if s.len() > 2000 {
        format!(
            "{}... ({} bytes)",
            &s[..s.char_indices().nth(2000).map_or(s.len(), |(i, _)| i)],
            s.len()
        )
    } else {
        s
    }
}
