//! `reducer-kit certify`: run the corpus and generated cases against an
//! external reducer, shrink failures, and grade it (semantics §6, §7).

use super::{FormatArg, PolicyArg};
use reducer_kit::case::{load_dir, load_file, save_new};
use reducer_kit::certify::{
    certificate, compare_expectations, counterexamples, from_case, generated_case,
    parse_expectations, parse_generated_id, to_json, to_junit, Counterexample, ExpectationCheck,
    Run, Shard,
};
use reducer_kit::check::Outcome;
use reducer_kit::formats::Format;
use reducer_kit::process::Limits;
use reducer_kit::protocol::Response;
use reducer_kit::runner::{grade, run_cases, CaseResult, RunCase, Settings};
use reducer_kit::terms::Policy;
use std::ffi::OsString;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The policy the reducer claims to implement.
    #[arg(long, value_enum, default_value_t = PolicyArg::Turns)]
    pub policy: PolicyArg,
    /// The wire format the reducer speaks.
    #[arg(long, value_enum, default_value_t = FormatArg::Canonical)]
    pub format: FormatArg,
    /// Time limit per request, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 10_000)]
    pub timeout: u64,
    /// Largest accepted response, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 16 * 1024 * 1024)]
    pub max_output: usize,
    /// One long-lived reducer process per worker, JSON Lines (protocol v1 persistent mode).
    #[arg(long)]
    pub persistent: bool,
    /// Parallel workers [default: the number of cores].
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Case directory (repeatable) [default: the kit's own corpus/].
    #[arg(long, value_name = "DIR")]
    pub corpus: Vec<PathBuf>,
    /// Generated cases to run besides the corpus.
    #[arg(long = "cases", value_name = "N", default_value_t = 2000)]
    pub generated: u64,
    /// Seed of the generated cases.
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// Run only the case with this id (repeatable; `gen/<seed>/<n>` regenerates a generated case).
    #[arg(long = "case", value_name = "ID")]
    pub cases: Vec<String>,
    /// Run only the cases in this case file (repeatable), e.g. a saved counterexample.
    #[arg(long, value_name = "FILE")]
    pub replay: Vec<PathBuf>,
    /// Run one shard K/N of the cases; the N shards run every case exactly once.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
    /// Save each minimal counterexample as a case file in DIR (content-hash names, never overwritten).
    #[arg(long, value_name = "DIR")]
    pub save_failures: Option<PathBuf>,
    /// Write the full report as JSON.
    #[arg(long, value_name = "FILE")]
    pub report_json: Option<PathBuf>,
    /// Write a JUnit XML report.
    #[arg(long, value_name = "FILE")]
    pub report_junit: Option<PathBuf>,
    /// Known failures: one `CASE-ID CLAUSE-ID` per line; they do not fail the run.
    #[arg(long, value_name = "FILE")]
    pub expect_fail: Option<PathBuf>,
    /// Fail the run when a listed known failure now passes.
    #[arg(long)]
    pub strict_expectations: bool,
    /// Most candidate runs when shrinking one failure.
    #[arg(long, value_name = "N", default_value_t = 200)]
    pub shrink_tries: usize,
    /// The reducer command and its arguments, after `--`.
    #[arg(last = true, required = true, value_name = "CMD")]
    pub command: Vec<OsString>,
}

/// The kit's own corpus: next to the sources it was built from, else `./corpus`.
pub fn default_corpus() -> PathBuf {
    let built = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/corpus"));
    if built.is_dir() {
        built
    } else {
        PathBuf::from("corpus")
    }
}

fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

fn usage(text: impl std::fmt::Display) -> ExitCode {
    eprintln!("reducer-kit: error: {text}");
    ExitCode::from(2)
}

/// The cases of the run, in a fixed order: replayed files, or the corpus
/// then the generated ones; filtered by `--case`, then sharded.
fn collect_cases(args: &Args) -> Result<Vec<RunCase>, ExitCode> {
    let mut cases: Vec<RunCase> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut push = |c: RunCase, cases: &mut Vec<RunCase>| {
        let key = serde_json::json!([c.max_messages, c.messages]).to_string();
        if seen.insert(key) {
            cases.push(c);
        }
    };
    if !args.replay.is_empty() {
        for f in &args.replay {
            for c in load_file(f).map_err(usage)? {
                push(from_case(&c), &mut cases);
            }
        }
    } else {
        let dirs = if args.corpus.is_empty() {
            vec![default_corpus()]
        } else {
            args.corpus.clone()
        };
        let only: Vec<&String> = args.cases.iter().collect();
        for dir in &dirs {
            for (_, c) in load_dir(dir).map_err(usage)? {
                if only.is_empty() || only.contains(&&c.id) {
                    push(from_case(&c), &mut cases);
                }
            }
        }
        if only.is_empty() {
            for n in 0..args.generated {
                push(
                    generated_case(args.seed, n, Format::from(args.format)),
                    &mut cases,
                );
            }
        } else {
            for id in &only {
                if let Some((seed, n)) = parse_generated_id(id) {
                    push(
                        generated_case(seed, n, Format::from(args.format)),
                        &mut cases,
                    );
                } else if !cases.iter().any(|c| &&c.id == id) {
                    return Err(usage(format!("no case with id {id:?}")));
                }
            }
        }
    }
    if let Some(shard) = args.shard {
        cases = shard.select(cases);
    }
    if cases.is_empty() {
        return Err(usage("no cases to run"));
    }
    Ok(cases)
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let expectations = match &args.expect_fail {
        None => Vec::new(),
        Some(p) => match std::fs::read_to_string(p) {
            Err(e) => return Ok(usage(format!("{}: {e}", p.display()))),
            Ok(text) => match parse_expectations(&text, p) {
                Ok(e) => e,
                Err(e) => return Ok(usage(e)),
            },
        },
    };
    let cases = match collect_cases(&args) {
        Ok(c) => c,
        Err(code) => return Ok(code),
    };
    let settings = Settings {
        argv: args.command.clone(),
        format: Format::from(args.format),
        policy: Policy::from(args.policy),
        limits: Limits {
            timeout: Duration::from_millis(args.timeout),
            max_output: args.max_output,
            ..Limits::default()
        },
        persistent: args.persistent,
        extra_requests: true,
        jobs: args
            .jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
            .max(1),
    };
    let command_line = args
        .command
        .iter()
        .map(|a| shell_word(&a.to_string_lossy()))
        .collect::<Vec<_>>()
        .join(" ");
    eprintln!(
        "certify: {} cases, policy {}, format {}, {} mode, {} jobs, reducer: {command_line}",
        cases.len(),
        Policy::from(args.policy),
        Format::from(args.format),
        if args.persistent {
            "persistent"
        } else {
            "per-case"
        },
        settings.jobs
    );
    let bar = (std::io::stderr().is_terminal() && cases.len() > 20).then(|| {
        let b = indicatif::ProgressBar::new(cases.len() as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:40} {pos}/{len} cases {elapsed_precise} eta {eta}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b
    });
    let progress = |done: usize| {
        if let Some(b) = &bar {
            b.set_position(done as u64);
        }
    };
    let results = match run_cases(&settings, &cases, &progress) {
        Ok(r) => r,
        Err(e) => return Ok(usage(e)),
    };
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let mut cxs = match counterexamples(&settings, &results, args.shrink_tries) {
        Ok(c) => c,
        Err(e) => return Ok(usage(e)),
    };
    if let Some(dir) = &args.save_failures {
        for cx in &mut cxs {
            let case = cx.to_case(Policy::from(args.policy));
            let file = format!("{}.json", case.id.replace('/', "-"));
            match save_new(dir, &file, &case) {
                Ok(_) => cx.saved_to = Some(dir.join(file)),
                Err(e) => return Ok(usage(format!("{}: {e}", dir.display()))),
            }
        }
    }
    let g = grade(Policy::from(args.policy), &results);
    let check = compare_expectations(&results, &expectations);
    let seed = (args.replay.is_empty() && args.generated > 0 && args.cases.is_empty())
        .then_some(args.seed);
    let run = Run {
        settings: &settings,
        seed,
        results: &results,
        grade: &g,
        counterexamples: &cxs,
        expectations: &check,
    };
    print_report(&run, &args, &command_line);
    if let Some(p) = &args.report_json {
        let text = serde_json::to_string_pretty(&to_json(&run))? + "\n";
        if let Err(e) = reducer_kit::atomic::replace(p, text.as_bytes()) {
            return Ok(usage(format!("{}: {e}", p.display())));
        }
    }
    if let Some(p) = &args.report_junit {
        if let Err(e) = reducer_kit::atomic::replace(p, to_junit(&run).as_bytes()) {
            return Ok(usage(format!("{}: {e}", p.display())));
        }
    }
    let failed =
        !check.unexpected.is_empty() || (args.strict_expectations && !check.now_passing.is_empty());
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn colour() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

fn red(s: &str) -> String {
    if colour() {
        format!("\x1b[31m{s}\x1b[0m")
    } else {
        s.to_string()
    }
}

fn green(s: &str) -> String {
    if colour() {
        format!("\x1b[32m{s}\x1b[0m")
    } else {
        s.to_string()
    }
}

const SHOWN: usize = 20;

fn print_report(run: &Run, args: &Args, command_line: &str) {
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
        outln!("skip {}: {}", r.case.id, r.skipped.as_deref().unwrap_or(""));
    }
    for r in failing.iter().take(SHOWN) {
        print_case_failure(r, args, command_line, run.expectations);
    }
    if failing.len() > SHOWN {
        outln!(
            "... and {} more failing cases (all in --report-json)",
            failing.len() - SHOWN
        );
    }
    for cx in run.counterexamples {
        print_counterexample(cx, args, command_line);
    }
    let g = run.grade;
    outln!();
    outln!(
        "{:<22} {:>7} {:>7} {:>11}",
        "clause",
        "passed",
        "failed",
        "not judged"
    );
    for (c, t) in &g.clauses {
        let failed = if t.failed > 0 {
            red(&format!("{:>7}", t.failed))
        } else {
            format!("{:>7}", t.failed)
        };
        outln!(
            "{:<22} {:>7} {failed} {:>11}",
            c.id(),
            t.passed,
            t.not_judged
        );
    }
    outln!();
    for (level, ok) in &g.levels {
        outln!(
            "level {:<9} {}",
            level.name(),
            if *ok { green("pass") } else { red("FAIL") }
        );
    }
    let e = run.expectations;
    if !e.expected.is_empty() || !e.now_passing.is_empty() {
        outln!(
            "known failures: {} expected, {} unexpected",
            e.expected.len(),
            e.unexpected.len()
        );
        for p in &e.now_passing {
            outln!("listed as known but passes now: {} {}", p.case, p.clause);
        }
    }
    outln!("{}", certificate(run));
    outln!(
        "{} passed, {} failed",
        g.cases_run - failing.len(),
        failing.len()
    );
}

fn reproduce(args: &Args, command_line: &str, case_id: &str) -> String {
    let corpus: String = args
        .corpus
        .iter()
        .map(|d| format!(" --corpus {}", shell_word(&d.to_string_lossy())))
        .collect();
    let persistent = if args.persistent { " --persistent" } else { "" };
    if !args.replay.is_empty() {
        let files: String = args
            .replay
            .iter()
            .map(|f| format!(" --replay {}", shell_word(&f.to_string_lossy())))
            .collect();
        return format!(
            "reducer-kit certify --policy {} --format {}{persistent}{files} -- {command_line}",
            Policy::from(args.policy),
            Format::from(args.format)
        );
    }
    format!(
        "reducer-kit certify --policy {} --format {}{persistent}{corpus} --case {} -- {command_line}",
        Policy::from(args.policy),
        Format::from(args.format),
        shell_word(case_id)
    )
}

fn print_case_failure(r: &CaseResult, args: &Args, command_line: &str, e: &ExpectationCheck) {
    outln!(
        "{} {} (maxMessages {}, {} messages)",
        red("FAIL"),
        r.case.id,
        r.case.max_messages,
        r.case.messages.len()
    );
    for v in r.failures() {
        if let Outcome::Fail(detail) = &v.outcome {
            let known = e
                .expected
                .iter()
                .any(|x| x.case == r.case.id && x.clause == v.clause.id());
            outln!(
                "  {}{}: {detail}",
                v.clause,
                if known { " (known failure)" } else { "" }
            );
            outln!("    {}", v.clause.definition());
        }
    }
    if !r.stderr_tail.trim().is_empty() {
        let lines: Vec<&str> = r.stderr_tail.trim_end().lines().collect();
        let tail = lines[lines.len().saturating_sub(5)..].join("\n      ");
        outln!("  reducer stderr (tail):\n      {tail}");
    }
    if r.skipped.is_none() {
        outln!("  reproduce: {}", reproduce(args, command_line, &r.case.id));
    }
}

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

fn print_counterexample(cx: &Counterexample, args: &Args, command_line: &str) {
    outln!();
    outln!(
        "minimal counterexample for {} ({} messages, maxMessages {}; shrunk from {} in {} tries)",
        cx.clause,
        cx.case.messages.len(),
        cx.case.max_messages,
        cx.original_id,
        cx.tries
    );
    outln!("  clause:   {}", cx.clause.definition());
    outln!("  failure:  {}", cx.detail);
    outln!(
        "  input:    {}",
        compact(&Response::Messages(cx.case.messages.clone()))
    );
    outln!("  expected: {}", compact(&cx.expected));
    match &cx.actual {
        Some(a) => outln!("  actual:   {}", compact(a)),
        None => outln!("  actual:   (no response)"),
    }
    if let Some(p) = &cx.first_difference {
        outln!("  first difference at {p}");
    }
    match &cx.saved_to {
        Some(p) => outln!(
            "  saved:    {}\n  replay:   reducer-kit certify --policy {} --format {} --replay {} -- {command_line}",
            p.display(),
            Policy::from(args.policy),
            Format::from(args.format),
            shell_word(&p.to_string_lossy())
        ),
        None => outln!("  reproduce: {}", reproduce(args, command_line, &cx.original_id)),
    }
}
