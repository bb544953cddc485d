//! `reducer-kit certify`: run the corpus and generated cases against an
//! external reducer, shrink failures, and grade it (spec §6, §8, §9);
//! the work is [`reducer_kit::certify`]'s.
//!
//! SIGINT and SIGTERM stop the run (spec §8.7): every reducer in flight is
//! killed with its group, the cases that finished are summed up (marked
//! interrupted, no certificate), no report file is written, and the exit
//! code is 130 (SIGINT) or 143 (SIGTERM).

use super::{FormatArg, PolicyArg, ProtocolArg, ProviderArg};
use reducer_kit::certify::collect::FailureGroup;
use reducer_kit::certify::counterexample::{
    save_all, save_too_large, shown, Counterexample, SavedFrom, ShrinkProgress,
};
use reducer_kit::certify::interrupt;
use reducer_kit::certify::job::{Options, Watch};
use reducer_kit::certify::known_failures::read_known_failures;
use reducer_kit::certify::process::{Limits, RUN_ENV};
use reducer_kit::certify::report::text::{self, TextOptions};
use reducer_kit::certify::report::{html, json, junit};
use reducer_kit::certify::run::CaseList;
use reducer_kit::certify::Shard;
use reducer_kit::formats::Format;
use reducer_kit::protocol::Protocol;
use reducer_kit::terminal::show_path;
use reducer_kit::terms::Policy;
use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The policy the reducer claims to implement [default: turns; the
    /// start line says when the run takes the default]
    #[arg(long, value_enum)]
    pub policy: Option<PolicyArg>,
    /// The wire format the reducer speaks.
    #[arg(long, value_enum, default_value_t = FormatArg::Canonical)]
    pub format: FormatArg,
    /// The provider profile the reducer claims to honour (spec §15):
    /// judges `provider-accepts`, and the reference honours it.
    #[arg(long, value_enum)]
    pub provider: Option<ProviderArg>,
    /// The runner protocol the reducer speaks: 1, or 2 (token budgets; spec §13).
    /// Under 1, cases that need 2 are skipped.
    #[arg(long, value_enum, default_value_t = ProtocolArg::V1)]
    pub protocol: ProtocolArg,
    /// Allow summaries (protocol 2): requests carry "summary": true and the summary clauses are judged.
    #[arg(long)]
    pub summaries: bool,
    /// Time limit per request, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = DEFAULT_TIMEOUT_MS,
          value_parser = positive_u64)]
    pub timeout: u64,
    /// Persistent mode: the start-up allowance of each worker, in
    /// milliseconds: one for the run, drawn on by every (re)started
    /// reducer for the time it takes to read its first request.
    #[arg(long, value_name = "MS", default_value_t = DEFAULT_STARTUP_TIMEOUT_MS)]
    pub startup_timeout: u64,
    /// Largest accepted response, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_OUTPUT,
          value_parser = positive_usize)]
    pub max_output: usize,
    /// One long-lived reducer process per worker, JSON Lines (protocol v1 persistent mode).
    #[arg(long)]
    pub persistent: bool,
    /// Parallel workers [default: the number of cores].
    #[arg(long, value_name = "N", value_parser = positive_usize)]
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
    /// Write the report as one self-contained HTML page: the levels, the
    /// clause table, each counterexample drawn as a conversation.
    #[arg(long, value_name = "FILE")]
    pub report_html: Option<PathBuf>,
    /// Known failures: one `CASE-ID CLAUSE-ID` per line; they do not fail the run.
    #[arg(long, value_name = "FILE")]
    pub expect_fail: Option<PathBuf>,
    #[command(flatten)]
    pub limit: super::InputLimit,
    /// Fail the run when a listed known failure now passes.
    #[arg(long)]
    pub strict_expectations: bool,
    /// Skip the shapes the reducer cannot represent: generator knobs,
    /// comma-separated, of leading-segment, pinned-system, pinned-not-first,
    /// later-system, developer-role, role-case, tool-calls, multi-step,
    /// batched-results, shuffled-results, text-beside-calls,
    /// results-beside-text (anthropic, bedrock, gemini), approvals,
    /// legacy-approvals, pending, reuse-call-ids, id-spellings,
    /// opaque-contents, extra-fields, system-extra-fields, result-extra-fields, empty-text,
    /// non-ascii-text, large-payloads, non-string-results. Generated cases
    /// come from a config without them; any case that still shows one is
    /// skipped and counted; the certificate names them.
    #[arg(long, value_name = "KNOBS")]
    pub without: Option<String>,
    /// Run the shapes a default run leaves out (spec §9.5), comma-separated:
    /// role-case (not in canonical), approvals (not in openai, anthropic,
    /// gemini, bedrock), legacy-approvals (not in canonical),
    /// non-double-numbers (numbers no double holds, as 1e400; none by
    /// default), budget-spellings (budgets written 3.0, 1e1, 2.5, true;
    /// none by default). Without it a case that shows one is skipped, with the
    /// reason, and counted; the certificate names them.
    #[arg(long = "with", value_name = "KNOBS")]
    pub with_knobs: Option<String>,
    /// Declare how the reducer's contract differs from the kit's, as its
    /// documentation says (spec §16), comma-separated, repeatable:
    /// soft-budget (may exceed the budget only to keep a call group whole,
    /// or to keep one message), soft-budget=tool-run (may also keep the
    /// whole run of adjacent messages holding calls or results at its
    /// cut), budget-unit=turns, budget-unit=invocations,
    /// budget-unit=items, budget-unit=batched-results (the budget counts
    /// turns, ADK invocations, Responses items, or a run of tool messages
    /// as one), count-pinned (the message budget counts the pinned system
    /// message too, as LangChain's trim_messages with token_counter=len and
    /// include_system=True does), no-budget (takes no
    /// budget: the budget's clauses are not judged), placeholder (may
    /// insert one text note where it cut, judged by placeholder-shape),
    /// system-first-only (honours a pinned system message only at index 0:
    /// cases with one later are skipped), json-numbers (numbers beyond
    /// 2^53 or f64 may come back as the nearest double), repairs=KIND,...
    /// (--policy repair: the sanitizer claims to repair only these kinds
    /// of broken history, the break knobs such as
    /// repairs=limit-cut,interrupted-run; other broken cases are skipped,
    /// spec §17.8). Each narrows a clause, never voids it (spec §16); the
    /// certificate lists them.
    #[arg(long, value_name = "NAMES")]
    pub declare: Vec<String>,
    /// Most candidate runs when shrinking one failure.
    #[arg(long, value_name = "N", default_value_t = 200)]
    pub shrink_tries: usize,
    /// Time budget for all the shrinking of a run, in seconds; each failure
    /// keeps the smallest case found when it runs out (one too large to
    /// try in the time is shown as it failed, with its size). No try
    /// waits past it; a try holds the case and one candidate, and reads an
    /// answer of at most 4 times its request plus 64 KiB.
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    pub shrink_time: u64,
    /// Stop at the first defect (a clause failed on a valid input): begin
    /// no case after it, shrink it and report. A passing run still runs
    /// every case. For a reducer's own tests, where the first
    /// counterexample is the answer.
    #[arg(long)]
    pub stop_after_first: bool,
    /// A plain progress line on stderr every SECONDS (cases done of
    /// planned, failing, time elapsed; then the shrinking), a line when
    /// the cases are done and one per failure shrunk; 0: a line per
    /// finished case [default: 30 when stderr is not a terminal; on a
    /// terminal, a progress bar]. A per-case run (no --persistent) says
    /// once, at its first progress line, that --persistent is faster.
    #[arg(long, value_name = "SECONDS")]
    pub progress_interval: Option<u64>,
    /// The reducer command and its arguments, after `--`.
    #[arg(last = true, required = true, value_name = "CMD")]
    pub command: Vec<OsString>,
}

/// Shrinking's progress on a terminal: one line per failure shrunk
/// (clause, tries, current size); nothing otherwise.
struct ShrinkBars {
    bars: Vec<(usize, indicatif::ProgressBar)>,
    multi: Option<indicatif::MultiProgress>,
}

impl ShrinkBars {
    fn new(terminal: bool, failures: &[FailureGroup]) -> ShrinkBars {
        if !terminal {
            return ShrinkBars {
                bars: Vec::new(),
                multi: None,
            };
        }
        let multi = indicatif::MultiProgress::new();
        let style = indicatif::ProgressStyle::with_template("shrinking {prefix:<22} {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner());
        let bars = shown(failures)
            .into_iter()
            .map(|i| {
                let b = multi.add(indicatif::ProgressBar::new_spinner());
                b.set_style(style.clone());
                b.set_prefix(failures[i].clause.id());
                b.set_message(format!(
                    "waiting ({} messages)",
                    failures[i].example.case.messages.len()
                ));
                (i, b)
            })
            .collect();
        ShrinkBars {
            bars,
            multi: Some(multi),
        }
    }

    fn update(&self, index: usize, p: &ShrinkProgress) {
        if let Some((_, b)) = self.bars.iter().find(|(i, _)| *i == index) {
            b.set_message(format!(
                "{} tries, {} messages{}",
                p.tries,
                p.messages,
                if p.done { ", done" } else { "" }
            ));
        }
    }

    fn finish(&self) {
        for (_, b) in &self.bars {
            b.finish_and_clear();
        }
        if let Some(m) = &self.multi {
            let _ = m.clear();
        }
    }
}

/// `--progress-interval`'s default when stderr is not a terminal.
const DEFAULT_PROGRESS_INTERVAL: Duration = Duration::from_secs(30);
/// `--timeout`'s default, in milliseconds: the limits' default, which the
/// reproduce lines leave out ([`Settings::flags`](reducer_kit::certify::settings::Settings::flags)).
const DEFAULT_TIMEOUT_MS: u64 = Limits::DEFAULT_TIMEOUT_MS;
/// `--startup-timeout`'s default, in milliseconds (the limits' default).
const DEFAULT_STARTUP_TIMEOUT_MS: u64 = Limits::DEFAULT_STARTUP_TIMEOUT_MS;
/// `--max-output`'s default, in bytes (the limits' default).
const DEFAULT_MAX_OUTPUT: usize = Limits::DEFAULT_MAX_OUTPUT;

/// The one line that sums up the shrinking of a run.
fn shrink_summary(cxs: &[Counterexample], took: Duration) -> String {
    let tries: usize = cxs.iter().map(|c| c.tries).sum();
    let out_of_time = cxs.iter().filter(|c| c.out_of_time).count();
    format!(
        "shrunk {} failure{} in {:.1} s ({tries} tries){}",
        cxs.len(),
        if cxs.len() == 1 { "" } else { "s" },
        took.as_secs_f64(),
        if out_of_time > 0 {
            format!(", {out_of_time} stopped by --shrink-time")
        } else {
            String::new()
        }
    )
}

/// A whole number ≥ 1 (`--timeout`).
fn positive_u64(s: &str) -> Result<u64, String> {
    match s.parse::<u64>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

/// A whole number ≥ 1 (`--max-output`, `--jobs`).
fn positive_usize(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

/// What an I/O error says, without the path it names (an atomic write's
/// temporary file): `No such file or directory (os error 2)`.
fn io_reason(e: &std::io::Error) -> String {
    if let Some(code) = e.raw_os_error() {
        return std::io::Error::from_raw_os_error(code).to_string();
    }
    let inner = e
        .get_ref()
        .and_then(|i| i.source())
        .and_then(|s| s.downcast_ref::<std::io::Error>());
    match inner {
        Some(i) => io_reason(i),
        None => e.kind().to_string(),
    }
}

/// Whether the process may create files in `dir`.
fn writable(dir: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: `c` is a valid NUL-terminated path for the call's duration.
    unsafe { libc::access(c.as_ptr(), libc::W_OK | libc::X_OK) == 0 }
}

/// The folder a file `p` goes in (`.` for a bare name).
fn folder_of(p: &Path) -> &Path {
    match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// Checks the output paths before the first case runs: a report
/// file must not be a folder and its folder must exist and be writable;
/// the `--save-failures` folder must not be a file, and it (or the nearest
/// folder above it that exists, where it will be made) must be writable.
fn check_outputs(args: &Args) -> Result<(), String> {
    for (flag, file) in [
        ("--report-json", &args.report_json),
        ("--report-junit", &args.report_junit),
        ("--report-html", &args.report_html),
    ] {
        let Some(p) = file else { continue };
        let shown = show_path(p);
        if p.is_dir() {
            return Err(format!("{flag} {shown}: is a folder, not a file"));
        }
        let dir = folder_of(p);
        if !dir.is_dir() {
            return Err(format!("{flag} {shown}: no folder {}", show_path(dir)));
        }
        if !writable(dir) {
            return Err(format!(
                "{flag} {shown}: cannot write in {}",
                show_path(dir)
            ));
        }
    }
    if let Some(d) = &args.save_failures {
        let shown = show_path(d);
        if d.exists() && !d.is_dir() {
            return Err(format!(
                "--save-failures {shown}: exists and is not a folder"
            ));
        }
        let mut existing: &Path = d;
        while !existing.exists() {
            existing = folder_of(existing);
        }
        if !existing.is_dir() {
            return Err(format!(
                "--save-failures {shown}: {} is not a folder",
                show_path(existing)
            ));
        }
        if !writable(existing) {
            return Err(format!(
                "--save-failures {shown}: cannot write in {}",
                show_path(existing)
            ));
        }
    }
    Ok(())
}

use super::usage;

/// [`super::EXIT_CODES`] for `certify`: the same rule, and the codes of a
/// run stopped by a signal.
pub const EXIT_CODES: &str = "\
Verdicts (spec section 9.2): a failure on a history that passes the
validator is a defect and decides the levels; a failure on an input that
breaks a validator rule is reported apart (robustness) and decides
nothing. --declare narrows the contract a reducer is judged under (spec
section 16); under --protocol 2 answers echo the request's id, and
{\"unsupported\": \"why\"} skips a request the reducer cannot express.

Exit codes:
  0  pass: every judged clause passed on valid inputs (known failures as
     expected)
  1  a defect: the reducer failed a clause on a valid input, or gave no
     answer to 20 cases in a row (the run stopped); a case file nested
     deeper than 100 levels
  2  usage or unreadable input: a bad option, an unreadable case file or
     --expect-fail list (not a regular file, larger than --max-input), an
     output path that cannot be written
  130, 143  stopped by SIGINT, SIGTERM (the summary of what finished)";

/// The options of `args` as the library takes them ([`Options`]): the
/// command line resolved once.
fn options(args: &Args) -> Options {
    Options {
        command: args.command.clone(),
        policy: Policy::from(args.policy.unwrap_or(PolicyArg::Turns)),
        format: Format::from(args.format),
        provider: args.provider.map(Into::into),
        protocol: Protocol::from(args.protocol),
        summaries: args.summaries,
        declare: args.declare.join(","),
        without: args.without.clone().unwrap_or_default(),
        with: args.with_knobs.clone().unwrap_or_default(),
        in_process: false,
        timeout: Duration::from_millis(args.timeout),
        startup_timeout: Duration::from_millis(args.startup_timeout),
        max_output: args.max_output,
        persistent: args.persistent,
        jobs: args.jobs,
        corpus: args.corpus.clone(),
        replay: args.replay.clone(),
        generated: args.generated,
        seed: args.seed,
        only: args.cases.clone(),
        shard: args.shard,
        max_input: args.limit.max_input,
        shrink_tries: args.shrink_tries,
        shrink_time: Duration::from_secs(args.shrink_time),
        stop_after_first: args.stop_after_first,
    }
}

/// What `certify` shows while it runs, on stderr when it is a terminal:
/// a progress line (cases run of planned, failing so far, elapsed), then
/// a line per failure being shrunk; otherwise (or with
/// `--progress-interval`) plain lines ([`Plain`]); and the line that sums
/// the shrinking up, on stderr whatever it is.
struct Progress {
    cases: Option<indicatif::ProgressBar>,
    shrinking: std::sync::Mutex<Option<ShrinkBars>>,
    plain: Option<Plain>,
}

/// Plain progress lines on stderr (`--progress-interval`, and any run
/// whose stderr is not a terminal): one every `interval` (one per
/// finished case when it is zero), one when the cases are done, one per
/// failure shrunk. Lines, not a redrawn bar: a CI log keeps each.
struct Plain {
    /// Between two lines ([`Plain::tick`] is called by a timer thread);
    /// zero: a line per finished case.
    interval: Duration,
    /// Cases planned.
    total: usize,
    start: std::time::Instant,
    done: std::sync::atomic::AtomicUsize,
    failing: std::sync::atomic::AtomicUsize,
    /// While shrinking: failures shrunk, of how many.
    shrinking: std::sync::Mutex<Option<(usize, usize)>>,
    /// A per-case run (a process per request): its first line says that
    /// `--persistent` is faster.
    per_case: bool,
    hinted: std::sync::atomic::AtomicBool,
}

impl Plain {
    /// One progress line: where the run is, and the time elapsed.
    fn tick(&self) {
        use std::sync::atomic::Ordering;
        let elapsed = self.start.elapsed().as_secs();
        let line = match *self.shrinking.lock().expect("no watcher panics") {
            Some((shrunk, of)) => {
                format!(
                    "progress: shrinking, {shrunk} of {of} failures shrunk, {elapsed} s elapsed"
                )
            }
            None => format!(
                "progress: {}/{} cases, {} failing, {elapsed} s elapsed",
                self.done.load(Ordering::SeqCst),
                self.total,
                self.failing.load(Ordering::SeqCst)
            ),
        };
        eprintln!("{line}");
        if self.per_case && !self.hinted.swap(true, Ordering::SeqCst) {
            eprintln!(
                "hint: a per-case run starts the reducer for every request; a reducer that reads \
                 one request per line runs many times faster with --persistent (one process per worker)"
            );
        }
    }
}

impl Watch for Progress {
    fn cases_done(&self, done: usize, failing: usize) {
        if let Some(p) = &self.plain {
            use std::sync::atomic::Ordering;
            p.done.fetch_max(done, Ordering::SeqCst);
            p.failing.fetch_max(failing, Ordering::SeqCst);
            if p.interval.is_zero() {
                p.tick();
            }
            if done == p.total {
                eprintln!(
                    "cases done: {done}/{}, {failing} failing, {} s elapsed",
                    p.total,
                    p.start.elapsed().as_secs()
                );
            }
        }
        if let Some(b) = &self.cases {
            b.set_position(done as u64);
            if failing > 0 {
                b.set_message(format!(", {failing} failing"));
            }
        }
    }

    fn shrinking(&self, failures: &[FailureGroup]) {
        if let Some(b) = &self.cases {
            b.finish_and_clear();
        }
        if let Some(p) = &self.plain {
            let shown = reducer_kit::certify::counterexample::shown(failures).len();
            eprintln!(
                "shrinking {shown} failure{}",
                if shown == 1 { "" } else { "s" }
            );
            *p.shrinking.lock().expect("no watcher panics") = Some((0, shown));
        }
        *self.shrinking.lock().expect("no watcher panics") =
            Some(ShrinkBars::new(std::io::stderr().is_terminal(), failures));
    }

    fn shrunk(&self, index: usize, progress: &ShrinkProgress) {
        if let Some(bars) = &*self.shrinking.lock().expect("no watcher panics") {
            bars.update(index, progress);
        }
        if let (Some(p), true) = (&self.plain, progress.done) {
            let mut at = p.shrinking.lock().expect("no watcher panics");
            if let Some((shrunk, of)) = at.as_mut() {
                *shrunk += 1;
                eprintln!(
                    "shrunk {} ({shrunk} of {of}): {} message{} in {} tries",
                    progress.clause,
                    progress.messages,
                    if progress.messages == 1 { "" } else { "s" },
                    progress.tries
                );
            }
        }
    }

    fn shrinking_done(&self, counterexamples: &[Counterexample], took: Duration) {
        if let Some(bars) = self.shrinking.lock().expect("no watcher panics").take() {
            bars.finish();
        }
        eprintln!("{}", shrink_summary(counterexamples, took));
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    // Installed first: a stop before the first case (one corpus file of a
    // million messages takes seconds to parse) ends the command at once
    // with a line saying so; from the first case on, it ends the run with
    // its partial results (spec §8.7).
    if let Err(e) = interrupt::install() {
        return Ok(usage(format!("cannot handle SIGINT and SIGTERM: {e}")));
    }
    interrupt::exit_at_once(true);
    if let Err(e) = check_outputs(&args) {
        return Ok(usage(e));
    }
    let job = match options(&args).resolve() {
        Ok(j) => j,
        Err(e) => return Ok(usage(e)),
    };
    let known_list = match &args.expect_fail {
        None => None,
        Some(p) => match reducer_kit::case::file::read_case_text_with(p, args.limit.max_input) {
            Err(e) => return Ok(usage(format!("--expect-fail {e}"))),
            Ok(text) => match read_known_failures(&text, p) {
                Ok(list) => Some((p, list)),
                Err(e) => return Ok(usage(e)),
            },
        },
    };
    let planned = job.plan();
    interrupt::exit_at_once(false);
    let mut cases = match planned {
        Ok(c) => c,
        Err(e) => {
            super::print_error(&e);
            return Ok(ExitCode::from(e.exit_code()));
        }
    };
    let known = match known_list {
        None => Vec::new(),
        Some((path, mut list)) => {
            list.check_cases(path, |id| job.sources.names_case(&cases, id));
            if args.strict_expectations && !list.problems.is_empty() {
                for p in &list.problems {
                    super::print_error(p);
                }
                return Ok(ExitCode::from(2));
            }
            for p in &list.problems {
                eprintln!("reducer-kit: warning: {p}");
            }
            list.failures()
        }
    };
    let settings = &job.settings;
    eprintln!(
        "certify: {} cases, policy {}{}, format {}{}, {} mode, {} jobs, reducer: {} ({RUN_ENV}={})",
        cases.count(),
        settings.policy,
        if args.policy.is_none() {
            " (the default: --policy turns, suffix or repair names the reducer's)"
        } else {
            ""
        },
        settings.format,
        match (settings.protocol, settings.summaries) {
            (Protocol::V1, _) => String::new(),
            (Protocol::V2, false) => ", protocol 2".to_string(),
            (Protocol::V2, true) => ", protocol 2 with summaries".to_string(),
        } + &settings
            .provider
            .map_or(String::new(), |p| format!(", provider {p}")),
        if settings.persistent {
            "persistent"
        } else {
            "per-case"
        },
        settings.jobs,
        reducer_kit::terminal::command_line(&args.command),
        settings.reducer.run_id
    );
    let terminal = std::io::stderr().is_terminal();
    let interval = match (args.progress_interval, terminal) {
        (Some(s), _) => Some(Duration::from_secs(s)),
        (None, false) => Some(DEFAULT_PROGRESS_INTERVAL),
        (None, true) => None,
    };
    let progress = Progress {
        plain: interval.map(|interval| Plain {
            interval,
            total: cases.count(),
            start: std::time::Instant::now(),
            done: Default::default(),
            failing: Default::default(),
            shrinking: std::sync::Mutex::new(None),
            per_case: !settings.persistent,
            hinted: Default::default(),
        }),
        cases: (terminal && interval.is_none()).then(|| {
            let b = indicatif::ProgressBar::new(cases.count() as u64);
            b.set_style(
                indicatif::ProgressStyle::with_template(
                    "{bar:30} {pos}/{len} cases{msg}, {elapsed} elapsed, eta {eta}",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            b
        }),
        shrinking: std::sync::Mutex::new(None),
    };
    // The timer of the plain progress lines, stopped when the run ends.
    let (stop, stopped) = std::sync::mpsc::channel::<()>();
    let ran = std::thread::scope(|s| {
        if let Some(p) = progress.plain.as_ref().filter(|p| !p.interval.is_zero()) {
            s.spawn(move || {
                while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
                    stopped.recv_timeout(p.interval)
                {
                    p.tick();
                }
            });
        }
        // Each corpus case is handed to the run as it runs: a failure's
        // example is then held once, and its shrink moves it (spec §9.1).
        let handed = cases.hand_over();
        let ran = job.run(&handed, &known, &progress);
        drop(stop);
        if ran.as_ref().is_ok_and(|c| c.interrupted.is_some()) {
            // The cases not run are left to the operating system, as
            // what the run holds is below.
            std::mem::forget(handed);
        }
        ran
    });
    let mut certified = match ran {
        Ok(c) => c,
        Err(e) => return Ok(usage(e)),
    };
    if let Some(b) = &progress.cases {
        b.finish_and_clear();
    }
    if certified.interrupted.is_none() {
        if let Some(dir) = &args.save_failures {
            let flags = settings.flag_line();
            let from = SavedFrom {
                format: settings.format,
                flags: &flags,
            };
            if let Err(e) = save_all(&mut certified.counterexamples, dir, settings.policy, from) {
                return Ok(usage(format!("{}: {}", show_path(dir), io_reason(&e))));
            }
        }
        // The JSON report names a counterexample too large to copy by its
        // case file (spec §9.1): one not saved yet goes beside the report.
        if let Some(report) = &args.report_json {
            let dir = failures_beside(report);
            let flags = settings.flag_line();
            let from = SavedFrom {
                format: settings.format,
                flags: &flags,
            };
            if let Err(e) =
                save_too_large(&mut certified.counterexamples, &dir, settings.policy, from)
            {
                return Ok(usage(format!("{}: {}", show_path(&dir), io_reason(&e))));
            }
        }
    }
    let run = certified.report(&job, &cases);
    let options = TextOptions {
        corpus: args.corpus.clone(),
        replay: args.replay.clone(),
        colour: std::io::stdout().is_terminal()
            && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        flags: Vec::new(),
        report_json: args.report_json.clone(),
        rerun: None,
    };
    // A closed stdout (piped into `head`) is not an error.
    let _ = std::io::stdout()
        .lock()
        .write_all(text::render(&run, &options).as_bytes());
    if let Some(signal) = certified.interrupted {
        // No report file: a partial one could pass for a whole run. The
        // process ends now: what the run holds (a case of a million
        // messages) is left to the operating system, not freed value by
        // value, which would take most of a second.
        std::mem::forget(run);
        std::mem::forget(certified);
        std::mem::forget(cases);
        return Ok(ExitCode::from(interrupt::exit_code(signal)));
    }
    if let Some(p) = &args.report_json {
        if let Err(e) = reducer_kit::atomic::replace_with(p, |out| json::write_pretty(&run, out)) {
            return Ok(usage(format!("{}: {}", show_path(p), io_reason(&e))));
        }
    }
    if let Some(p) = &args.report_junit {
        if let Err(e) = reducer_kit::atomic::replace(p, junit::to_junit(&run).as_bytes()) {
            return Ok(usage(format!("{}: {}", show_path(p), io_reason(&e))));
        }
    }
    if let Some(p) = &args.report_html {
        let page = html::render(&run, &options);
        if let Err(e) = reducer_kit::atomic::replace(p, page.as_bytes()) {
            return Ok(usage(format!("{}: {}", show_path(p), io_reason(&e))));
        }
    }
    Ok(if certified.failed(args.strict_expectations) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Where the counterexamples too large for the JSON report `report` are
/// saved when `--save-failures` names no folder (spec §9.1): the folder
/// beside it named after it, `run.json` → `run-failures`.
fn failures_beside(report: &std::path::Path) -> PathBuf {
    let stem = report
        .file_stem()
        .map_or_else(|| "report".into(), |s| s.to_string_lossy());
    report.with_file_name(format!("{stem}-failures"))
}
