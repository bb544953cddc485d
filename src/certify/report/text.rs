//! The text report `certify` prints: skipped and failing cases (the first
//! [`SHOWN`]), each failure with its clause's definition, the reducer's
//! stderr tail and the command that reruns it; the minimal
//! counterexamples; the clause table; the levels; known failures; the
//! certificate line and a count.
//!
//! Every text that comes from a case or the reducer (ids, details, stderr,
//! file names, JSON) is printed through [`crate::terminal`]'s escapes, and
//! every printed command through its shell quoting (spec §8.9).

use super::{certificate, plan_line, thousands, FirstFailure, Run};
use crate::certify::counterexample::{Counterexample, COPY_LIMIT};
use crate::certify::exchange::signal_text;
use crate::certify::known_failures::KnownFailureCheck;
use crate::certify::run::CaseRecord;
use crate::protocol::Response;
use crate::terminal::{command_line, shell_quote, show, show_path};
use std::fmt::Write as _;
use std::path::PathBuf;

/// How many skipped and failing cases the report shows each (all of them
/// are in the JSON report).
pub const SHOWN: usize = 20;

/// How many failing cases on invalid input the report shows, after the
/// others (spec §9.2).
pub const SHOWN_INVALID: usize = 5;

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
    /// Options a rerun must keep besides the run's own flags
    /// ([`crate::certify::settings::Settings::flags`]: its contract and
    /// limits) and `--corpus` / `--replay`, as arguments, printed after
    /// them, shell-quoted; usually none.
    pub flags: Vec<String>,
    /// The `--report-json` file, when one is written: named where the
    /// report leaves failing cases out.
    pub report_json: Option<PathBuf>,
    /// How a case is rerun when no `reducer-kit certify` command can rerun
    /// it (an in-process reducer, [`crate::certify::job::Job::with_sessions`]):
    /// a template whose `{case}` becomes the case id as a JSON string
    /// (`"gen/1/55"`, also a Python string literal). `None`: the
    /// `reducer-kit certify ... --case ID -- COMMAND` line.
    pub rerun: Option<String>,
}

/// The text report of `run`, one line per `\n`.
pub fn render(run: &Run, options: &TextOptions) -> String {
    let mut out = report(run, options);
    out.all();
    out.text
}

/// The command that reruns case `case_id` of `run`, as the text report's
/// `reproduce:` lines print it (the template of [`TextOptions::rerun`]
/// for an in-process reducer).
pub fn reproduce(run: &Run, options: &TextOptions, case_id: &str) -> String {
    report(run, options).reproduce(case_id)
}

/// The command that replays the saved case file `file` (`--save-failures`)
/// against the reducer of `run`, as the text report's `replay:` lines
/// print it.
pub fn replay(run: &Run, options: &TextOptions, file: &std::path::Path) -> String {
    report(run, options).certify_command(&format!(
        " --shrink-tries 0 --replay {}",
        shell_quote(&file.to_string_lossy())
    ))
}

/// The hints of the text report, without their `hint: `: what the
/// answers suggest to change or declare, each given only when the answers
/// show it (a reducer that reads no tool calls or no results in the run's
/// format, a `developer` message taken for an ordinary one, a system
/// message kept only at the start, Infinity or NaN written back, a debug
/// line on stdout). The JSON report's `hints`, the HTML page's and the
/// JUnit report's are these.
pub fn hints(run: &Run) -> Vec<String> {
    let options = TextOptions::default();
    let mut r = report(run, &options);
    r.hints();
    r.text
        .lines()
        .map(|l| l.strip_prefix("hint: ").unwrap_or(l).to_string())
        .collect()
}

fn report<'a>(run: &'a Run<'a>, options: &'a TextOptions) -> Report<'a> {
    Report {
        run,
        options,
        command_line: command_line(&run.settings.reducer.argv),
        text: String::new(),
    }
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

// After `line!`, which it uses.
mod hints;

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
        // Failing cases that ran: those with a valid input (defects, what
        // decides the levels) are shown first; those on invalid input
        // (robustness) after them, fewer.
        let verdict = run.verdict();
        let (failing, failing_invalid) = (verdict.failing, verdict.failing_invalid);
        let (shown, shown_invalid) = (&verdict.shown, &verdict.shown_invalid);
        // Skipped cases, one line per reason (read alike once ids and
        // numbers are blanked), with the first case and how many.
        let mut skips: Vec<(String, String, String, usize)> = Vec::new();
        for r in run.results.iter().filter(|r| r.skipped().is_some()) {
            let why = r.skipped().unwrap_or_default().to_string();
            let kind = crate::certify::collect::failure_signature(&why);
            match skips.iter_mut().find(|s| s.0 == kind) {
                Some(s) => s.3 += 1,
                None => skips.push((kind, r.id.clone(), why, 1)),
            }
        }
        for (_, id, why, n) in skips.iter().take(SHOWN) {
            match n {
                1 => line!(self, "skip {}: {}", show(id), show(why)),
                n => line!(
                    self,
                    "skip {} cases like {}: {}",
                    thousands(*n),
                    show(id),
                    show(why)
                ),
            }
        }
        for r in shown {
            self.case_failure(r, run.known_failures);
        }
        let more = failing - failing_invalid - shown.len();
        self.more_cases(more, "");
        if !shown_invalid.is_empty() {
            line!(
                self,
                "on invalid input (robustness: the input breaks a validator rule; reported apart, decides no level):"
            );
            for r in shown_invalid {
                self.case_failure(r, run.known_failures);
            }
            self.more_cases(failing_invalid - shown_invalid.len(), " on invalid input");
        }
        let mut robustness_heading = false;
        for group in crate::certify::counterexample::grouped_by_input(run.counterexamples) {
            let group: Vec<&Counterexample> =
                group.iter().map(|&i| &run.counterexamples[i]).collect();
            let cx = group[0];
            if !cx.valid_input && !robustness_heading {
                robustness_heading = true;
                line!(self);
                line!(
                    self,
                    "counterexamples on invalid input (robustness; they decide no level):"
                );
            }
            self.counterexample(&group);
        }
        let g = run.grade;
        line!(self);
        if let Some(i) = &run.interrupted {
            line!(
                self,
                "{} by {}: {} of {} cases finished; partial results below, no report written",
                self.red("INTERRUPTED"),
                signal_text(i.signal),
                run.results.len(),
                i.planned
            );
        }
        if let (Some(not_run), Some((case, _))) = (run.stopped_at_first_defect, run.first_defect) {
            line!(
                self,
                "{} at the first defect (--stop-after-first), case {}: {} cases were not run",
                self.red("STOPPED"),
                show(case),
                thousands(not_run)
            );
        }
        if let Some(g) = run.gave_up {
            line!(
                self,
                "{}: the reducer gave no usable answer to {} cases in a row (spec section 8.5); {} cases were not run. Last: {}",
                self.red("STOPPED"),
                crate::certify::collect::MAX_UNANSWERED,
                thousands(g.not_run),
                show(&g.last_failure)
            );
            if let Some(l) = &g.stderr_line {
                line!(self, "  reducer stderr says: {}", show(l));
            }
        }
        line!(
            self,
            "{:<22} {:>7} {:>7} {:>14} {:>11}",
            "clause",
            "passed",
            "failed",
            "invalid input",
            "not judged"
        );
        for (c, t) in &g.clauses {
            let failed = if t.defects > 0 {
                self.red(&format!("{:>7}", t.defects))
            } else {
                format!("{:>7}", t.defects)
            };
            line!(
                self,
                "{:<22} {:>7} {failed} {:>14} {:>11}",
                c.id(),
                t.passed,
                t.invalid_input,
                t.not_judged
            );
        }
        line!(self);
        for level in &verdict.levels {
            let said = if level.not_judged() {
                "not judged (no clause of it applies to this run)".to_string()
            } else if level.passed {
                self.green("pass")
            } else if level.own_defect {
                self.red("FAIL")
            } else {
                // A level passes only when every level below it passes
                // (spec section 9).
                format!(
                    "{} (no clause of its own failed: a level below failed)",
                    self.red("FAIL")
                )
            };
            line!(self, "level {:<9} {said}", level.level.name());
        }
        let e = run.known_failures;
        if !e.expected.is_empty() || !e.now_passing.is_empty() {
            line!(
                self,
                "known failures: {} expected, {} unexpected",
                e.expected.len(),
                e.unexpected
            );
            for p in &e.now_passing {
                line!(
                    self,
                    "listed as known but passes now: {} {}",
                    show(&p.case),
                    show(&p.clause)
                );
            }
        }
        if run.restarts.total > 0 {
            line!(
                self,
                "reducer restarts: {} ({} after a clean exit between requests)",
                run.restarts.total,
                run.restarts.clean_exits
            );
        }
        for h in &verdict.hints {
            line!(self, "hint: {h}");
        }
        let declared = &run.settings.declared;
        if !declared.is_empty() {
            line!(
                self,
                "declared: {} (spec section 16: each narrows a clause, none voids one)",
                declared.names().join(", ")
            );
        }
        line!(self, "{}", plan_line(&run.plan));
        if run.plan.without > 0 {
            line!(
                self,
                "skipped: {} cases with shapes turned off by --without{}",
                thousands(run.plan.without),
                match (declared.system_first_only, declared.repairs != 0) {
                    (true, true) => " or --declare system-first-only or outside --declare repairs=",
                    (true, false) => " or --declare system-first-only",
                    (false, true) => " or outside --declare repairs=",
                    (false, false) => "",
                }
            );
        }
        if g.cases_unsupported > 0 {
            line!(
                self,
                "skipped: {} cases the reducer answered unsupported",
                thousands(g.cases_unsupported)
            );
        }
        match &run.interrupted {
            None if run.gave_up.is_some() => line!(
                self,
                "certificate: none (the reducer gave no usable answer to {} cases in a row)",
                crate::certify::collect::MAX_UNANSWERED
            ),
            None => line!(self, "{}", certificate(run)),
            Some(i) => line!(
                self,
                "certificate: none (interrupted by {} after {} of {} cases)",
                signal_text(i.signal),
                run.results.len(),
                i.planned
            ),
        }
        let passing = g.cases_run.saturating_sub(failing);
        if failing_invalid > 0 {
            line!(
                self,
                "{} passed, {} failed ({} of them on invalid input)",
                thousands(passing),
                thousands(failing),
                thousands(failing_invalid)
            );
        } else {
            line!(
                self,
                "{} passed, {} failed",
                thousands(passing),
                thousands(failing)
            );
        }
        if let FirstFailure::Defect(case, t) = &verdict.first {
            line!(
                self,
                "first defect: case {}, judged {:.2} s into the run",
                show(case),
                t.as_secs_f64()
            );
        } else if let FirstFailure::Difference(case, t) = &verdict.first {
            // Policy and exact failures alone: the reducer does not
            // implement the claimed policy, no defect (spec §9.3).
            line!(
                self,
                "no defect; first difference from the policy: case {}, judged {:.2} s into the run",
                show(case),
                t.as_secs_f64()
            );
        }
    }

    /// `... and N more failing cases{what}` (naming the JSON report) when
    /// `more` > 0.
    fn more_cases(&mut self, more: usize, what: &str) {
        if more == 0 {
            return;
        }
        let cases = if more == 1 { "case" } else { "cases" };
        match &self.options.report_json {
            Some(p) => line!(
                self,
                "... and {} more failing {cases}{what} (all in {})",
                thousands(more),
                show_path(p)
            ),
            None => line!(
                self,
                "... and {} more failing {cases}{what}",
                thousands(more)
            ),
        }
    }

    /// The run's flags ([`crate::certify::settings::Settings::flag_line`]),
    /// then the options of [`TextOptions::flags`], as a rerun needs them.
    fn run_flags(&self) -> String {
        let mut out = self.run.settings.flag_line();
        for f in &self.options.flags {
            out.push(' ');
            out.push_str(&shell_quote(f));
        }
        out
    }

    /// The one `reducer-kit certify` command line of the report's
    /// `reproduce:` and `replay:` lines: the run's flags ([`Self::run_flags`]),
    /// then `rest` (options that pick the cases, each after a space), then
    /// `--` and the reducer's command.
    fn certify_command(&self, rest: &str) -> String {
        format!(
            "reducer-kit certify {}{rest} -- {}",
            self.run_flags(),
            self.command_line
        )
    }

    /// The command that reruns `case_id` (or the replayed files).
    fn reproduce(&self, case_id: &str) -> String {
        if let Some(template) = &self.options.rerun {
            let id = serde_json::Value::String(case_id.to_string()).to_string();
            return template.replace("{case}", &id);
        }
        if !self.options.replay.is_empty() {
            return self.certify_command(&flags_of("--replay", &self.options.replay));
        }
        let corpus = flags_of("--corpus", &self.options.corpus);
        self.certify_command(&format!("{corpus} --case {}", shell_quote(case_id)))
    }

    fn case_failure(&mut self, r: &CaseRecord, known: &KnownFailureCheck) {
        let fail = self.red("FAIL");
        line!(
            self,
            "{fail} {} ({}, {} messages)",
            show(&r.id),
            show(&r.budget_text()),
            r.messages
        );
        for (clause, detail) in &r.failures {
            let is_known = known
                .expected
                .iter()
                .any(|x| x.case == r.id && x.clause == clause.id());
            line!(
                self,
                "  {}{}: {}",
                clause,
                if is_known { " (known failure)" } else { "" },
                show(detail)
            );
            line!(self, "    {}", self.run.settings.definition(*clause));
        }
        if !r.stderr_tail.trim().is_empty() {
            let lines: Vec<String> = r
                .stderr_tail
                .trim_end()
                .lines()
                .map(|l| show(l).to_string())
                .collect();
            let last = &lines[lines.len().saturating_sub(5)..];
            // The line that says why, when the tail's last lines do not
            // (a stack trace after the error).
            if let Some(d) = crate::certify::collect::decisive_line(&r.stderr_tail) {
                let d = show(d).to_string();
                if !last.iter().any(|l| l.trim() == d) {
                    line!(self, "  reducer stderr says: {d}");
                }
            }
            let tail = last.join("\n      ");
            line!(self, "  reducer stderr (tail):\n      {tail}");
        }
        if r.skipped().is_none() {
            let again = self.reproduce(&r.id);
            line!(self, "  reproduce: {again}");
        }
    }

    /// One input's counterexamples (`group`, at least one: the clauses it
    /// fails with the same answers, [`crate::certify::counterexample::grouped_by_input`]),
    /// drawn once: the first's heading naming every clause, each clause
    /// with its failure, then the input and the answers.
    fn counterexample(&mut self, group: &[&Counterexample]) {
        let cx = group[0];
        let clauses = group
            .iter()
            .map(|c| c.clause.id())
            .collect::<Vec<_>>()
            .join(", ");
        line!(self);
        let messages = match cx.case.messages.len() {
            1 => "1 message".to_string(),
            n => format!("{n} messages"),
        };
        // One clause: how many cases fail it so; several: each clause
        // says it.
        let cases = match (group.len(), cx.cases) {
            (1, 1) => "; 1 case like this".to_string(),
            (1, n) => format!("; {n} cases like this"),
            _ => String::new(),
        };
        if cx.out_of_time && !cx.shrunk {
            // Too large to shrink in the time given: the case as it
            // failed, with its size (spec §9.1).
            line!(
                self,
                "counterexample for {}, not shrunk ({}, {} bytes, {}; case {}; --shrink-time ran out after {} tries{})",
                clauses,
                messages,
                crate::json::json_len(&*cx.case.messages),
                show(&cx.case.budget_text()),
                show(&cx.original_id),
                cx.tries,
                cases
            );
        } else {
            line!(
                self,
                "{}counterexample for {} ({}, {}; shrunk from {} in {} tries{}{})",
                if cx.out_of_time { "" } else { "minimal " },
                clauses,
                messages,
                show(&cx.case.budget_text()),
                show(&cx.original_id),
                cx.tries,
                if cx.out_of_time {
                    ", stopped by --shrink-time"
                } else {
                    ""
                },
                cases
            );
        }
        if let [cx] = group {
            line!(
                self,
                "  clause:   {}",
                self.run.settings.definition(cx.clause)
            );
        }
        if let Some(t) = &cx.case.budget.tokens {
            line!(self, "  tokens:   {}", show(&t.to_string()));
        }
        if let [cx] = group {
            line!(self, "  failure:  {}", show(&cx.detail));
        } else {
            for c in group {
                let like = match c.cases {
                    1 => "1 case like this".to_string(),
                    n => format!("{n} cases like this"),
                };
                line!(
                    self,
                    "  clause:   {}: {} ({like})",
                    c.clause,
                    self.run.settings.definition(c.clause)
                );
                line!(self, "  failure:  {}", show(&c.detail));
            }
        }
        // The input in the run's wire format, like expected and actual
        // (canonical when it has no form in it); a system prompt of the
        // format's top level (Anthropic, Bedrock `system`, Gemini
        // `systemInstruction`) is shown there, as the reducer reads and
        // writes it.
        let format = self.run.settings.format;
        let input = if crate::json::json_len(&*cx.case.messages) > COPY_LIMIT {
            // Too large to copy (spec §9.1): its first messages and its size.
            head_of(format, &cx.case.messages)
        } else if format == crate::formats::Format::Canonical {
            cut(&format!(
                "{{\"messages\":{}}}",
                serde_json::to_string(&*cx.case.messages).unwrap_or_default()
            ))
        } else {
            let input = crate::formats::to_wire(format, &cx.case.messages)
                .unwrap_or_else(|_| cx.case.messages.to_vec());
            compact(format, &Response::Messages(input))
        };
        line!(self, "  input:    {input}");
        line!(
            self,
            "  sizes:    reference: {}, reducer: {}",
            size(Some(&cx.expected)),
            size(cx.actual.as_ref())
        );
        line!(
            self,
            "  expected (reference): {}",
            shown_answer(format, &cx.expected)
        );
        match &cx.actual {
            Some(a) => line!(self, "  actual (reducer):     {}", shown_answer(format, a)),
            None => line!(
                self,
                "  actual (reducer):     (no answer the kit could judge: see the failure)"
            ),
        }
        if let Some(p) = cx
            .first_difference_unsaid()
            .filter(|p| group.iter().all(|c| c.first_difference_unsaid() == Some(p)))
        {
            line!(self, "  first difference at {}", show(p));
        }
        match &cx.saved_to {
            Some(p) => line!(
                self,
                "  saved:    {}\n  replay:   {}",
                show_path(p),
                replay(self.run, self.options, p)
            ),
            None => {
                let again = self.reproduce(&cx.original_id);
                line!(self, "  reproduce: {again}");
            }
        }
    }
}

/// ` FLAG PATH` for each path.
fn flags_of(flag: &str, paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| format!(" {flag} {}", shell_quote(&p.to_string_lossy())))
        .collect()
}

/// `2 messages`, `1 message`, `an error`, `unsupported` or `no usable
/// answer`.
fn size(r: Option<&Response>) -> String {
    match r {
        Some(Response::Messages(m)) if m.len() == 1 => "1 message".into(),
        Some(Response::Messages(m)) => format!("{} messages", m.len()),
        Some(Response::Unsupported(_)) => "unsupported".into(),
        Some(Response::Error(_)) => "an error".into(),
        None => "no usable answer".into(),
    }
}

/// A response as one line of JSON in `format` (its top-level system
/// prompt member, if any, before `messages`:
/// [`crate::protocol::response_json`]), cut after 2,000 characters,
/// escaped for the terminal.
fn compact(format: crate::formats::Format, r: &Response) -> String {
    cut(&crate::protocol::response_json(format, r).to_string())
}

/// How many messages of a list too large to copy (spec §9.1) a line shows
/// in the run's wire format ([`head_of`]).
const HEAD_MESSAGES: usize = 100;

/// Messages too large to copy (over [`COPY_LIMIT`] bytes, spec §9.1) as
/// one line: the first [`HEAD_MESSAGES`] of them in `format` (canonical
/// when they have no form in it), cut after 2,000 characters and escaped
/// for the terminal, then how many there are and their bytes as
/// canonical JSON; the whole list is never converted nor copied.
fn head_of(format: crate::formats::Format, messages: &[serde_json::Value]) -> String {
    let head = &messages[..messages.len().min(HEAD_MESSAGES)];
    let wire = crate::formats::to_wire(format, head).unwrap_or_else(|_| head.to_vec());
    let text = show(&crate::protocol::response_json(format, &Response::Messages(wire)).to_string())
        .to_string();
    let end = text.char_indices().nth(2000).map_or(text.len(), |(i, _)| i);
    format!(
        "{}... (its first {} of {} messages, in the run's format; {} bytes as canonical JSON)",
        &text[..end],
        head.len(),
        messages.len(),
        crate::json::json_len(messages)
    )
}

/// An answer as [`compact`] shows it, or, when its messages are over
/// [`COPY_LIMIT`] bytes, as [`head_of`] does.
fn shown_answer(format: crate::formats::Format, r: &Response) -> String {
    match r {
        Response::Messages(m) if crate::json::json_len(m) > COPY_LIMIT => head_of(format, m),
        r => compact(format, r),
    }
}

/// JSON text cut after 2,000 characters, escaped for the terminal.
fn cut(json: &str) -> String {
    let s = show(json).to_string();
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
