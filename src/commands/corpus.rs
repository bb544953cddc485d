//! `reducer-kit corpus`: regression corpora as a workflow (see
//! `reducer_kit::corpus`): `regen` and `check` a directory of case
//! files against the reference under the current spec, `add` failing cases
//! (certify counterexamples, libFuzzer artifacts), `min`imize a directory by
//! (clause, shape) coverage, and `seed-fuzz` the fuzz targets.
//!
//! Exit codes: 0 done / everything matches; 1 a case differs, is not a case,
//! or cannot be judged; 2 usage or I/O error (an unreadable or invalid case
//! file, a `spec` newer than this kit's, a write that failed).

use super::PolicyArg;
use reducer_kit::case::file::{file_name, load_files, render, CaseFile, Layout, Style};
use reducer_kit::case::SPEC_VERSION;
use reducer_kit::corpus::import::import;
use reducer_kit::corpus::min::plan_min;
use reducer_kit::corpus::seeds::{fuzz_seeds, seed_name};
use reducer_kit::corpus::{compare, differences, regenerate, Comparison};
use reducer_kit::fuzzers::TARGETS;
use reducer_kit::terms::Policy;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Options of `reducer-kit corpus`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    pub command: Sub,
}

/// The `corpus` subcommands.
#[derive(clap::Subcommand, Debug)]
pub enum Sub {
    /// Recompute every case's `expected` / `expectedError` / `violations`
    /// with the reference under the current spec and rewrite changed files.
    Regen(RegenArgs),
    /// Exit 1 when a stored expectation differs from the reference (or was
    /// made under an older spec).
    Check(CheckArgs),
    /// Import failing cases (certify's saved failures, libFuzzer artifacts)
    /// as regression cases with content-hash ids.
    Add(AddArgs),
    /// Keep a smallest set of cases covering every (clause, shape) pair the
    /// directory covers; remove the rest.
    Min(MinArgs),
    /// Write seed corpora for every fuzz target from the generator.
    SeedFuzz(SeedArgs),
}

/// Options of `corpus regen`.
#[derive(clap::Args, Debug)]
pub struct RegenArgs {
    /// Case directory [default: the kit's corpus/]. `fuzz/` folders and
    /// files other than `*.json` are skipped.
    pub dir: Option<PathBuf>,
    /// Print what would change without writing.
    #[arg(long)]
    pub dry_run: bool,
}

/// Options of `corpus check`.
#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// Case directory [default: the kit's corpus/]. `fuzz/` folders and
    /// files other than `*.json` are skipped.
    pub dir: Option<PathBuf>,
}

/// Options of `corpus add`.
#[derive(clap::Args, Debug)]
pub struct AddArgs {
    /// Where regression cases go.
    #[arg(long, value_name = "DIR", default_value = "corpus/regressions")]
    pub dir: PathBuf,
    /// The policy of the new cases [default: the case file's, else the one
    /// the fuzz target drew, else turns].
    #[arg(long, value_enum)]
    pub policy: Option<PolicyArg>,
    /// Decode every FILE as an input of this fuzz target [default: case
    /// files are cases; a file in a folder named after a target is that
    /// target's input; other non-JSON bytes are reduce_invariants input].
    #[arg(long, value_name = "NAME", value_parser = clap::builder::PossibleValuesParser::new(TARGETS))]
    pub target: Option<String>,
    /// Case files or fuzz inputs.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
}

/// Options of `corpus min`.
#[derive(clap::Args, Debug)]
pub struct MinArgs {
    /// Case directory [default: the kit's corpus/].
    pub dir: Option<PathBuf>,
    /// List what would be removed without deleting.
    #[arg(long)]
    pub dry_run: bool,
}

/// Options of `corpus seed-fuzz`.
#[derive(clap::Args, Debug)]
pub struct SeedArgs {
    /// Folder of the seed corpora, one subfolder per target [default: the
    /// kit's corpus/fuzz].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Seeds per target.
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub count: usize,
    /// Seed of the generator's byte streams.
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
}

/// Runs `reducer-kit corpus ...`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    Ok(match args.command {
        Sub::Regen(a) => regen(a),
        Sub::Check(a) => check(a),
        Sub::Add(a) => add(a),
        Sub::Min(a) => min(a),
        Sub::SeedFuzz(a) => seed_fuzz(a),
    })
}

fn usage(text: impl std::fmt::Display) -> ExitCode {
    eprintln!("reducer-kit: error: {text}");
    ExitCode::from(2)
}

fn versions() -> String {
    format!(
        "spec v{SPEC_VERSION}, reducer-kit {}",
        env!("CARGO_PKG_VERSION")
    )
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn dir_or_default(dir: Option<PathBuf>) -> PathBuf {
    dir.unwrap_or_else(reducer_kit::certify::kit_corpus)
}

fn count_cases(files: &[CaseFile]) -> usize {
    files.iter().map(|f| f.cases.len()).sum()
}

fn regen(args: RegenArgs) -> ExitCode {
    let dir = dir_or_default(args.dir);
    let files = match load_files(&dir) {
        Ok(f) => f,
        Err(e) => return usage(e),
    };
    let verb = if args.dry_run {
        "would update"
    } else {
        "updated"
    };
    let (mut updated, mut touched, mut unusable) = (0, 0, 0);
    for f in &files {
        let mut replaced = Vec::new();
        let mut bad = false;
        for (i, case) in f.cases.iter().enumerate() {
            match regenerate(case) {
                Err(e) => {
                    outln!("unusable: {} ({}): {e}", case.id, f.path.display());
                    bad = true;
                    unusable += 1;
                }
                Ok(new) => {
                    let d = differences(case, &new);
                    if !d.is_empty() {
                        let what: Vec<String> = d.iter().map(ToString::to_string).collect();
                        outln!(
                            "{verb}: {} ({}): {}",
                            case.id,
                            f.path.display(),
                            what.join("; ")
                        );
                        replaced.push((i, new));
                    }
                }
            }
        }
        if replaced.is_empty() {
            continue;
        }
        if bad {
            outln!(
                "not written: {}: it holds a case the reference cannot judge",
                f.path.display()
            );
            continue;
        }
        updated += replaced.len();
        touched += 1;
        if !args.dry_run {
            let refs: Vec<(usize, &_)> = replaced.iter().map(|(i, c)| (*i, c)).collect();
            if let Err(e) = reducer_kit::atomic::replace(&f.path, f.text_with(&refs).as_bytes()) {
                return usage(format!("{}: {e}", f.path.display()));
            }
        }
    }
    let total = count_cases(&files);
    let done = if args.dry_run {
        format!(
            "{} would be updated in {}; nothing written",
            plural(updated, "case", "cases"),
            plural(touched, "file", "files")
        )
    } else {
        format!(
            "{} updated in {}",
            plural(updated, "case", "cases"),
            plural(touched, "file", "files")
        )
    };
    let unusable_text = if unusable > 0 {
        format!(", {unusable} unusable")
    } else {
        String::new()
    };
    outln!(
        "corpus regen: {} in {}: {done}{unusable_text} ({})",
        plural(total, "case", "cases"),
        plural(files.len(), "file", "files"),
        versions()
    );
    if unusable > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn check(args: CheckArgs) -> ExitCode {
    let dir = dir_or_default(args.dir);
    let files = match load_files(&dir) {
        Ok(f) => f,
        Err(e) => return usage(e),
    };
    let (mut differ, mut older, mut unusable) = (0, 0, 0);
    for f in &files {
        for case in &f.cases {
            let place = format!("{} ({})", case.id, f.path.display());
            match compare(case) {
                Comparison::Matches => {}
                Comparison::OlderSpec(v) => {
                    older += 1;
                    outln!(
                        "older spec: {place}: made under spec v{v}, not judged under spec v{SPEC_VERSION}"
                    );
                }
                Comparison::Differs(_, d) => {
                    differ += 1;
                    let what: Vec<String> = d.iter().map(ToString::to_string).collect();
                    outln!("differs: {place}: {}", what.join("; "));
                }
                Comparison::Unusable(e) => {
                    unusable += 1;
                    outln!("unusable: {place}: {e}");
                }
            }
        }
    }
    let total = count_cases(&files);
    let bad = differ + older + unusable;
    let files_text = plural(files.len(), "file", "files");
    if bad == 0 {
        outln!(
            "corpus check: {} in {files_text} match the reference ({})",
            plural(total, "case", "cases"),
            versions()
        );
        return ExitCode::SUCCESS;
    }
    outln!(
        "corpus check: {} in {files_text}: {} the reference, {} made under an older spec, {} unusable ({})",
        plural(total, "case", "cases"),
        if differ == 1 { "1 differs from".to_string() } else { format!("{differ} differ from") },
        older,
        unusable,
        versions()
    );
    if differ + older > 0 {
        outln!(
            "regenerate with: reducer-kit corpus regen {}",
            dir.display()
        );
    }
    ExitCode::from(1)
}

fn add(args: AddArgs) -> ExitCode {
    // Cases already in DIR, by id and by content id, with their file.
    let mut present: HashMap<String, (String, PathBuf)> = HashMap::new();
    if args.dir.is_dir() {
        match load_files(&args.dir) {
            Ok(files) => {
                for f in files {
                    for c in f.cases {
                        let entry = (c.id.clone(), f.path.clone());
                        present.insert(c.content_id("regress"), entry.clone());
                        present.insert(c.id, entry);
                    }
                }
            }
            Err(e) => return usage(e),
        }
    }
    let mut code = 0u8;
    for file in &args.files {
        let shown = file.display();
        let bytes = match std::fs::read(file) {
            Ok(b) => b,
            Err(e) => {
                outln!("{shown}: cannot read: {e}");
                code = 2;
                continue;
            }
        };
        let imported = match import(
            &bytes,
            file,
            args.target.as_deref(),
            args.policy.map(Policy::from),
        ) {
            Ok(i) => i,
            Err(why) => {
                outln!("{shown}: not a case: {why}");
                code = code.max(1);
                continue;
            }
        };
        for imp in imported {
            let id = imp.case.id.clone();
            if let Some((pid, p)) = present.get(&id) {
                let same = if *pid == id {
                    String::new()
                } else {
                    format!(" as {pid}")
                };
                outln!("{shown}: already present: {id}{same} in {}", p.display());
                continue;
            }
            let name = file_name(&id);
            let text = render(&[imp.case], Layout::Single, Style::Corpus);
            let target = args.dir.join(&name);
            match reducer_kit::atomic::create_new(&args.dir, &name, text.as_bytes()) {
                Ok(true) => {
                    outln!(
                        "{shown}: added {id} as {} (from {})",
                        target.display(),
                        imp.origin
                    );
                    present.insert(id.clone(), (id, target));
                }
                Ok(false) => {
                    outln!("{shown}: already present: {id} in {}", target.display());
                }
                Err(e) => {
                    outln!("{shown}: cannot write {}: {e}", target.display());
                    code = 2;
                }
            }
        }
    }
    ExitCode::from(code)
}

/// Whether `file` lies inside `dir` (both resolved), so that deleting it
/// never reaches outside the directory `min` was given.
fn inside(file: &Path, dir: &Path) -> bool {
    let (Some(parent), Some(_)) = (file.parent(), file.file_name()) else {
        return false;
    };
    match (parent.canonicalize(), dir.canonicalize()) {
        (Ok(p), Ok(d)) => p.starts_with(d),
        _ => false,
    }
}

fn min(args: MinArgs) -> ExitCode {
    let dir = dir_or_default(args.dir);
    let files = match load_files(&dir) {
        Ok(f) => f,
        Err(e) => return usage(e),
    };
    let plan = plan_min(&files);
    let verb = if args.dry_run {
        "would remove"
    } else {
        "remove"
    };
    for r in &plan.removed {
        let (f, c) = r.case;
        outln!(
            "{verb} {} ({}): covered by {}",
            files[f].cases[c].id,
            files[f].path.display(),
            r.covered_by.join(", ")
        );
    }
    for (f, n) in &plan.kept_whole {
        outln!(
            "keep {}: holds {} cases, {} of them removable on its own; a file of several cases is removed only whole",
            files[*f].path.display(),
            files[*f].cases.len(),
            n
        );
    }
    for (f, c) in &plan.unjudged {
        outln!(
            "keep {} ({}): no signature (the reference cannot read its messages)",
            files[*f].cases[*c].id,
            files[*f].path.display()
        );
    }
    let mut deleted = 0;
    if !args.dry_run {
        for f in &plan.delete {
            let path = &files[*f].path;
            if !inside(path, &dir) {
                return usage(format!(
                    "{}: not inside {}; not deleted",
                    path.display(),
                    dir.display()
                ));
            }
            if let Err(e) = std::fs::remove_file(path) {
                return usage(format!("{}: {e}", path.display()));
            }
            deleted += 1;
        }
    }
    let removed = plan.removed.len();
    let tail = if args.dry_run {
        format!(
            "would remove {} in {}; nothing deleted",
            plural(removed, "case", "cases"),
            plural(plan.delete.len(), "file", "files")
        )
    } else {
        format!(
            "removed {} in {}",
            plural(removed, "case", "cases"),
            plural(deleted, "file", "files")
        )
    };
    outln!(
        "corpus min: {} in {} cover {} (clause, shape) pairs; keeping {}, {tail}",
        plural(count_cases(&files), "case", "cases"),
        plural(files.len(), "file", "files"),
        plan.pairs,
        plural(plan.kept.len(), "case", "cases"),
    );
    ExitCode::SUCCESS
}

fn seed_fuzz(args: SeedArgs) -> ExitCode {
    let out = args
        .out
        .unwrap_or_else(|| reducer_kit::certify::kit_corpus().join("fuzz"));
    let mut total = 0;
    for t in TARGETS {
        let dir = out.join(t);
        let seeds = fuzz_seeds(t, args.seed, args.count);
        let mut new = 0;
        for s in &seeds {
            match reducer_kit::atomic::create_new(&dir, &seed_name(s), s) {
                Ok(true) => new += 1,
                Ok(false) => {}
                Err(e) => return usage(format!("{}: {e}", dir.display())),
            }
        }
        total += seeds.len();
        outln!(
            "{t}: {}, {new} new, in {}",
            plural(seeds.len(), "seed", "seeds"),
            dir.display()
        );
    }
    outln!(
        "seed-fuzz: {} for {} targets (seed {}); shrink with `cargo fuzz cmin <target>`",
        plural(total, "seed", "seeds"),
        TARGETS.len(),
        args.seed
    );
    ExitCode::SUCCESS
}
