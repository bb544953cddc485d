//! `reducer-kit certify`: run every case against an external reducer and
//! grade it (semantics §6, §7).

use reducer_kit::case::{load_dir, SPEC_VERSION};
use reducer_kit::check::Outcome;
use reducer_kit::format::Format;
use reducer_kit::process::Limits;
use reducer_kit::reduce::Policy;
use reducer_kit::runner::{grade, run_cases, CaseResult, RunCase, Settings};
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The policy the reducer claims to implement.
    #[arg(long, value_enum, default_value_t = Policy::Turns)]
    pub policy: Policy,
    /// The wire format the reducer speaks.
    #[arg(long, value_enum, default_value_t = Format::Canonical)]
    pub format: Format,
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
    /// Run only the case with this id (repeatable).
    #[arg(long = "case", value_name = "ID")]
    pub cases: Vec<String>,
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

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let dirs = if args.corpus.is_empty() {
        vec![default_corpus()]
    } else {
        args.corpus.clone()
    };
    let mut cases: Vec<RunCase> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for dir in &dirs {
        let loaded = match load_dir(dir) {
            Ok(l) => l,
            Err(e) => {
                eprintln!("reducer-kit: error: {e}");
                return Ok(ExitCode::from(2));
            }
        };
        for (_, case) in loaded {
            if !args.cases.is_empty() && !args.cases.contains(&case.id) {
                continue;
            }
            let key = serde_json::json!([case.max_messages, case.messages]).to_string();
            if seen.insert(key) {
                cases.push(RunCase {
                    id: case.id,
                    max_messages: case.max_messages,
                    messages: case.messages,
                });
            }
        }
    }
    if let Some(missing) = args
        .cases
        .iter()
        .find(|id| !cases.iter().any(|c| &c.id == *id))
    {
        eprintln!(
            "reducer-kit: error: no case with id {missing:?} in {}",
            dirs.iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        return Ok(ExitCode::from(2));
    }
    if cases.is_empty() {
        eprintln!("reducer-kit: error: no cases found");
        return Ok(ExitCode::from(2));
    }
    let settings = Settings {
        argv: args.command.clone(),
        format: args.format,
        policy: args.policy,
        limits: Limits {
            timeout: Duration::from_millis(args.timeout),
            max_output: args.max_output,
            ..Limits::default()
        },
        persistent: args.persistent,
        jobs: args
            .jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
    };
    let command_line: Vec<String> = args
        .command
        .iter()
        .map(|a| shell_word(&a.to_string_lossy()))
        .collect();
    let command_line = command_line.join(" ");
    eprintln!(
        "certify: {} cases, policy {}, format {}, {} mode, reducer: {command_line}",
        cases.len(),
        args.policy,
        args.format,
        if args.persistent {
            "persistent"
        } else {
            "per-case"
        }
    );
    let results = match run_cases(&settings, &cases, &|_| {}) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("reducer-kit: error: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    print_failures(&results, &args, &command_line);
    let g = grade(args.policy, &results);
    println!();
    println!(
        "{:<22} {:>7} {:>7} {:>11}",
        "clause", "passed", "failed", "not judged"
    );
    for (c, t) in &g.clauses {
        println!(
            "{:<22} {:>7} {:>7} {:>11}",
            c.id(),
            t.passed,
            t.failed,
            t.not_judged
        );
    }
    println!();
    for (level, ok) in &g.levels {
        println!(
            "level {:<9} {}",
            level.name(),
            if *ok { "pass" } else { "FAIL" }
        );
    }
    let passed: Vec<&str> = g
        .levels
        .iter()
        .filter(|(_, ok)| *ok)
        .map(|(l, _)| l.name())
        .collect();
    println!(
        "certificate: reducer-kit {} spec v{SPEC_VERSION} policy {} format {}: levels passed [{}]; {} cases run, {} skipped; seed none",
        env!("CARGO_PKG_VERSION"),
        args.policy,
        args.format,
        passed.join(", "),
        g.cases_run,
        g.cases_skipped
    );
    let failed_cases = results
        .iter()
        .filter(|r| r.failures().next().is_some())
        .count();
    println!(
        "{} passed, {} failed",
        g.cases_run - failed_cases,
        failed_cases
    );
    Ok(if g.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn print_failures(results: &[CaseResult], args: &Args, command_line: &str) {
    for r in results {
        if let Some(why) = &r.skipped {
            println!("skip {}: {why}", r.case.id);
            continue;
        }
        let failures: Vec<_> = r.failures().collect();
        if failures.is_empty() {
            continue;
        }
        println!(
            "FAIL {} (maxMessages {}, {} messages)",
            r.case.id,
            r.case.max_messages,
            r.case.messages.len()
        );
        for v in failures {
            if let Outcome::Fail(detail) = &v.outcome {
                println!("  {}: {detail}", v.clause);
                println!("    {}", v.clause.definition());
            }
        }
        if !r.stderr_tail.trim().is_empty() {
            let tail: String = r
                .stderr_tail
                .trim_end()
                .lines()
                .rev()
                .take(5)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect::<Vec<_>>()
                .join("\n      ");
            println!("  reducer stderr (tail):\n      {tail}");
        }
        let corpus: String = args
            .corpus
            .iter()
            .map(|d| format!(" --corpus {}", shell_word(&d.to_string_lossy())))
            .collect();
        println!(
            "  reproduce: reducer-kit certify --policy {} --format {}{corpus} --case {} -- {command_line}",
            args.policy,
            args.format,
            shell_word(&r.case.id)
        );
    }
}
