//! `reducer-kit certify`: run the corpus and generated cases against an
//! external reducer, shrink failures, and grade it (semantics §6, §8, §9);
//! the work is [`reducer_kit::certify`]'s.

use super::{FormatArg, PolicyArg};
use reducer_kit::certify::counterexample::counterexamples;
use reducer_kit::certify::grade::grade;
use reducer_kit::certify::known_failures::{compare_known_failures, parse_known_failures};
use reducer_kit::certify::process::Limits;
use reducer_kit::certify::report::text::{self, TextOptions};
use reducer_kit::certify::report::{json, junit, Run};
use reducer_kit::certify::run::{run_cases, Settings};
use reducer_kit::certify::{Shard, Sources};
use reducer_kit::formats::Format;
use reducer_kit::terms::Policy;
use std::ffi::OsString;
use std::io::{IsTerminal, Write};
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

fn usage(text: impl std::fmt::Display) -> ExitCode {
    eprintln!("reducer-kit: error: {text}");
    ExitCode::from(2)
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let (policy, format) = (Policy::from(args.policy), Format::from(args.format));
    let known = match &args.expect_fail {
        None => Vec::new(),
        Some(p) => match std::fs::read_to_string(p) {
            Err(e) => return Ok(usage(format!("{}: {e}", p.display()))),
            Ok(text) => match parse_known_failures(&text, p) {
                Ok(e) => e,
                Err(e) => return Ok(usage(e)),
            },
        },
    };
    let sources = Sources {
        replay: args.replay.clone(),
        corpus: args.corpus.clone(),
        generated: args.generated,
        seed: args.seed,
        only: args.cases.clone(),
        shard: args.shard,
        format,
    };
    let cases = match sources.cases() {
        Ok(c) => c,
        Err(e) => return Ok(usage(e)),
    };
    let settings = Settings {
        argv: args.command.clone(),
        format,
        policy,
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
    eprintln!(
        "certify: {} cases, policy {policy}, format {format}, {} mode, {} jobs, reducer: {}",
        cases.len(),
        if args.persistent {
            "persistent"
        } else {
            "per-case"
        },
        settings.jobs,
        text::command_line(&args.command)
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
            if let Err(e) = cx.save(dir, policy) {
                return Ok(usage(format!("{}: {e}", dir.display())));
            }
        }
    }
    let g = grade(policy, &results);
    let check = compare_known_failures(&results, &known);
    let run = Run {
        settings: &settings,
        seed: sources.report_seed(),
        results: &results,
        grade: &g,
        counterexamples: &cxs,
        known_failures: &check,
    };
    let options = TextOptions {
        corpus: args.corpus.clone(),
        replay: args.replay.clone(),
        colour: std::io::stdout().is_terminal()
            && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    };
    // A closed stdout (piped into `head`) is not an error.
    let _ = std::io::stdout()
        .lock()
        .write_all(text::render(&run, &options).as_bytes());
    if let Some(p) = &args.report_json {
        let text = serde_json::to_string_pretty(&json::to_json(&run))? + "\n";
        if let Err(e) = reducer_kit::atomic::replace(p, text.as_bytes()) {
            return Ok(usage(format!("{}: {e}", p.display())));
        }
    }
    if let Some(p) = &args.report_junit {
        if let Err(e) = reducer_kit::atomic::replace(p, junit::to_junit(&run).as_bytes()) {
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
