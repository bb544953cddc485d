//! `reducer-kit corpus`: regression corpora as a workflow (see
//! `reducer_kit::corpus`): `regen` and `check` a directory of case
//! files against the reference under the current spec, `add` failing cases
//! (certify counterexamples, libFuzzer artifacts), `min`imize a directory by
//! (clause, shape) coverage, `seed-fuzz` the fuzz targets, and
//! `trim-fuzz` their inputs.
//!
//! Exit codes ([`super::EXIT_CODES`]): 0 done / everything matches; 1 a
//! case differs or cannot be judged by the reference; 2 usage or unreadable
//! input (an unreadable or invalid case file, a file `add` cannot read as a
//! case or a named target's input, a `spec` newer than this kit's, the
//! kit's `corpus/spec` without `--force`, a write that failed).

use super::PolicyArg;
use reducer_kit::atomic::Changes;
use reducer_kit::case::file::{
    case_file_paths, file_name, load_files_with, read_regular, recover_changes, render, CaseFile,
    Layout, Style,
};
use reducer_kit::case::SPEC_VERSION;
use reducer_kit::corpus::import::import;
use reducer_kit::corpus::min::plan_min;
use reducer_kit::corpus::{compare, differences, regenerate, Comparison};
use reducer_kit::fuzzers::TARGETS;
use reducer_kit::terminal::{shell_quote, show, show_path};
use reducer_kit::terms::Policy;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::usage;

mod fuzz;
use fuzz::{seed_fuzz, trim_fuzz};

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
    #[command(after_help = super::EXIT_CODES)]
    Regen(RegenArgs),
    /// Exit 1 when a stored expectation differs from the reference (or was
    /// made under an older spec).
    #[command(after_help = super::EXIT_CODES)]
    Check(CheckArgs),
    /// Import failing cases (certify's saved failures, libFuzzer artifacts)
    /// as regression cases with content-hash ids.
    #[command(after_help = super::EXIT_CODES)]
    Add(AddArgs),
    /// Keep a smallest set of cases covering every (clause, shape) pair the
    /// directory covers; remove the rest.
    #[command(after_help = super::EXIT_CODES)]
    Min(MinArgs),
    /// Write seed corpora for every fuzz target from the generator.
    #[command(after_help = super::EXIT_CODES)]
    SeedFuzz(SeedArgs),
    /// Cut every fuzz input in a seed or libFuzzer corpus to the prefix its
    /// target makes the same case of (the bytes the generator leaves
    /// unread), rewriting the files in place.
    #[command(after_help = super::EXIT_CODES)]
    TrimFuzz(TrimArgs),
}

/// Options of `corpus regen`.
#[derive(clap::Args, Debug)]
pub struct RegenArgs {
    /// Case directory (no default). `fuzz/` folders and files other than
    /// `*.json` are skipped.
    pub dir: PathBuf,
    /// Print what would change without writing.
    #[arg(long)]
    pub dry_run: bool,
    /// Rewrite the kit's own corpus/spec too (refused without it: its
    /// hand-written expectations are the authority the reference is checked
    /// against).
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub limit: super::InputLimit,
}

/// Options of `corpus check`.
#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// Case directory [default: the kit's corpus/]. `fuzz/` folders and
    /// files other than `*.json` are skipped.
    pub dir: Option<PathBuf>,
    #[command(flatten)]
    pub limit: super::InputLimit,
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
    /// target's input; any other file (empty, text, truncated JSON) is
    /// refused].
    #[arg(long, value_name = "NAME", value_parser = clap::builder::PossibleValuesParser::new(TARGETS))]
    pub target: Option<String>,
    /// Case files or fuzz inputs.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub limit: super::InputLimit,
}

/// Options of `corpus min`.
#[derive(clap::Args, Debug)]
pub struct MinArgs {
    /// Case directory (no default).
    pub dir: PathBuf,
    /// List what would be removed without deleting.
    #[arg(long)]
    pub dry_run: bool,
    /// Remove cases of the kit's own corpus/spec too (refused without it).
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub limit: super::InputLimit,
}

/// Options of `corpus seed-fuzz`.
#[derive(clap::Args, Debug)]
pub struct SeedArgs {
    /// Folder of the seed corpora, one subfolder per target (no default;
    /// the kit's is corpus/fuzz).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Seeds per target.
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub count: usize,
    /// Seed of the generator's byte streams.
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// Write inside the kit's own corpus/spec too (refused without it).
    #[arg(long)]
    pub force: bool,
}

/// Options of `corpus trim-fuzz`.
#[derive(clap::Args, Debug)]
pub struct TrimArgs {
    /// Folder of fuzz corpora, one subfolder per target, as corpus/fuzz
    /// (no default); or one target's folder, named after it.
    pub dir: PathBuf,
    /// Print what would be cut without writing.
    #[arg(long)]
    pub dry_run: bool,
}

/// Runs `reducer-kit corpus ...`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    Ok(match args.command {
        Sub::Regen(a) => regen(a),
        Sub::Check(a) => check(a),
        Sub::Add(a) => add(a),
        Sub::Min(a) => min(a),
        Sub::SeedFuzz(a) => seed_fuzz(a),
        Sub::TrimFuzz(a) => trim_fuzz(a),
    })
}

/// The versions a summary names: the newest spec version among the cases
/// (each at least the version that has every field it uses; v1 for a
/// directory of version 1 cases, whatever the kit's newest,
/// [`SPEC_VERSION`]) and the kit's.
fn versions(files: &[reducer_kit::case::file::CaseFile]) -> String {
    let spec = files
        .iter()
        .flat_map(|f| &f.cases)
        .map(|c| c.spec.max(c.required_spec()).min(SPEC_VERSION))
        .max()
        .unwrap_or(1);
    format!("spec v{spec}, reducer-kit {}", env!("CARGO_PKG_VERSION"))
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn dir_or_default(dir: Option<PathBuf>) -> PathBuf {
    dir.unwrap_or_else(reducer_kit::certify::kit_corpus)
}

/// `path` made absolute with its links resolved, as far as it exists (a
/// folder `seed-fuzz` has yet to make resolves through its parent).
fn resolved(path: &Path) -> Option<PathBuf> {
    if let Ok(p) = path.canonicalize() {
        return Some(p);
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    Some(resolved(parent)?.join(path.file_name()?))
}

/// Refuses (exit 2) a command that would write in the kit's hand-written
/// spec cases, `corpus/spec` (the kit's own, and `./corpus/spec`): `dir`
/// is inside it, or (for `regen` and `min`, which work on every folder
/// below `dir`: `recursive`) holds it. Those expectations are the
/// authority the reference is checked against, so `regen`, `min` and
/// `seed-fuzz` change them only with `--force`.
fn refuse_spec(command: &str, given: &Path, recursive: bool, force: bool) -> Result<(), ExitCode> {
    if force {
        return Ok(());
    }
    let Some(dir) = resolved(given) else {
        return Ok(());
    };
    let protected = [
        reducer_kit::certify::kit_corpus().join("spec"),
        PathBuf::from("corpus/spec"),
    ];
    for spec in protected.iter().filter_map(|p| p.canonicalize().ok()) {
        if dir.starts_with(&spec) || (recursive && spec.starts_with(&dir)) {
            return Err(usage(format!(
                "{}: {command} would change the kit's hand-written spec cases in {} (the authority the reference is checked against); pass --force to do it anyway",
                show_path(given),
                show_path(&spec)
            )));
        }
    }
    Ok(())
}

/// Prints a case file error and gives its exit code
/// ([`reducer_kit::case::CaseError::exit_code`]: 1 for a file nested too
/// deep, 2 for one that cannot be read or is not a case file).
fn case_failure(e: &reducer_kit::case::CaseError) -> ExitCode {
    super::print_error(e);
    ExitCode::from(e.exit_code())
}

fn count_cases(files: &[CaseFile]) -> usize {
    files.iter().map(|f| f.cases.len()).sum()
}

/// Removes the stale temporary files that an atomic write killed midway
/// (SIGKILL) left in `dirs` ([`reducer_kit::atomic::clean_stale`]),
/// printing each; `false` after printing an error.
fn clean_stale_in(dirs: &[PathBuf]) -> bool {
    for dir in dirs {
        match reducer_kit::atomic::clean_stale(dir) {
            Ok(removed) => {
                for p in removed {
                    outln!("removed stale temporary file: {}", show_path(&p));
                }
            }
            Err(e) => {
                usage(format!("{}: {e}", show_path(dir)));
                return false;
            }
        }
    }
    true
}

/// Carries out the changes committed below `dir` whose writer was killed
/// before finishing ([`recover_changes`]), printing each; `false` after
/// printing an error.
fn recover_in(dir: &Path) -> bool {
    match recover_changes(dir) {
        Ok(done) => {
            for (folder, n) in done {
                outln!(
                    "completed an interrupted change of {} in {}",
                    plural(n, "file", "files"),
                    show_path(&folder)
                );
            }
            true
        }
        Err(e) => {
            case_failure(&e);
            false
        }
    }
}

/// `dir` and every folder below it that holds case files.
fn case_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut dirs = vec![dir.to_path_buf()];
    if let Ok(paths) = case_file_paths(dir) {
        for p in paths {
            if let Some(parent) = p.parent() {
                if !dirs.iter().any(|d| d == parent) {
                    dirs.push(parent.to_path_buf());
                }
            }
        }
    }
    dirs
}

fn regen(args: RegenArgs) -> ExitCode {
    let dir = args.dir;
    if !args.dry_run {
        if let Err(code) = refuse_spec("corpus regen", &dir, true, args.force) {
            return code;
        }
    }
    if !args.dry_run && dir.is_dir() && !(recover_in(&dir) && clean_stale_in(&case_dirs(&dir))) {
        return ExitCode::from(2);
    }
    let files = match load_files_with(&dir, args.limit.max_input) {
        Ok(f) => f,
        Err(e) => return case_failure(&e),
    };
    let verb = if args.dry_run {
        "would update"
    } else {
        "updated"
    };
    // Every rewritten file is staged, then all are put in place as one
    // change: a kill at any moment leaves the corpus as it was or as it is
    // after (spec §8.11).
    let mut changes: Option<Changes> = None;
    let (mut updated, mut touched, mut unusable) = (0, 0, 0);
    for f in &files {
        let mut replaced = Vec::new();
        let mut bad = false;
        for (i, case) in f.cases.iter().enumerate() {
            match regenerate(case) {
                Err(e) => {
                    outln!(
                        "unusable: {} ({}): {}",
                        show(&case.id),
                        show_path(&f.path),
                        show(&e.to_string())
                    );
                    bad = true;
                    unusable += 1;
                }
                Ok(new) => {
                    let d = differences(case, &new);
                    if !d.is_empty() {
                        let what: Vec<String> = d.iter().map(ToString::to_string).collect();
                        outln!(
                            "{verb}: {} ({}): {}",
                            show(&case.id),
                            show_path(&f.path),
                            show(&what.join("; "))
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
                show_path(&f.path)
            );
            continue;
        }
        updated += replaced.len();
        touched += 1;
        if !args.dry_run {
            let refs: Vec<(usize, &_)> = replaced.iter().map(|(i, c)| (*i, c)).collect();
            let staged = match &mut changes {
                Some(c) => Ok(c),
                None => Changes::new(&dir).map(|c| changes.insert(c)),
            }
            .and_then(|c| c.write(&f.path, f.text_with(&refs).as_bytes()));
            if let Err(e) = staged {
                return usage(format!("{}: {e}; nothing written", show_path(&f.path)));
            }
        }
    }
    if let Some(c) = changes {
        if let Err(e) = c.commit() {
            return usage(format!("{}: {e}", show_path(&dir)));
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
        versions(&files)
    );
    if unusable > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn check(args: CheckArgs) -> ExitCode {
    let dir = dir_or_default(args.dir);
    if dir.is_dir() && !(recover_in(&dir) && clean_stale_in(&case_dirs(&dir))) {
        return ExitCode::from(2);
    }
    let files = match load_files_with(&dir, args.limit.max_input) {
        Ok(f) => f,
        Err(e) => return case_failure(&e),
    };
    let (mut differ, mut older, mut unusable) = (0, 0, 0);
    for f in &files {
        for case in &f.cases {
            let place = format!("{} ({})", show(&case.id), show_path(&f.path));
            match compare(case) {
                Comparison::Matches => {}
                Comparison::OlderSpec(v) => {
                    older += 1;
                    outln!(
                        "older spec: {place}: made under spec v{v}, not judged under spec v{}",
                        case.required_spec()
                    );
                }
                Comparison::Differs(_, d) => {
                    differ += 1;
                    let what: Vec<String> = d.iter().map(ToString::to_string).collect();
                    outln!("differs: {place}: {}", show(&what.join("; ")));
                }
                Comparison::Unusable(e) => {
                    unusable += 1;
                    outln!("unusable: {place}: {}", show(&e.to_string()));
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
            versions(&files)
        );
        return ExitCode::SUCCESS;
    }
    outln!(
        "corpus check: {} in {files_text}: {} the reference, {} made under an older spec, {} unusable ({})",
        plural(total, "case", "cases"),
        if differ == 1 { "1 differs from".to_string() } else { format!("{differ} differ from") },
        older,
        unusable,
        versions(&files)
    );
    if differ + older > 0 {
        outln!(
            "regenerate with: reducer-kit corpus regen {}",
            shell_quote(&dir.to_string_lossy())
        );
    }
    ExitCode::from(1)
}

fn add(args: AddArgs) -> ExitCode {
    // Cases already in DIR, by id and by equality key (the same case under
    // the spec's equality, however spelled), with their file.
    let mut present: HashMap<String, (String, PathBuf)> = HashMap::new();
    if args.dir.is_dir() {
        if !clean_stale_in(std::slice::from_ref(&args.dir)) {
            return ExitCode::from(2);
        }
        match load_files_with(&args.dir, args.limit.max_input) {
            Ok(files) => {
                for f in files {
                    for c in f.cases {
                        let entry = (c.id.clone(), f.path.clone());
                        present.insert(c.equality_key(), entry.clone());
                        present.insert(c.id, entry);
                    }
                }
            }
            Err(e) => return case_failure(&e),
        }
    }
    let mut code = 0u8;
    for file in &args.files {
        let shown = show_path(file);
        let bytes = match read_regular(file, args.limit.max_input) {
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
                outln!("{shown}: not a case: {}", show(&why.to_string()));
                code = code.max(if why.unreadable() { 2 } else { 1 });
                continue;
            }
        };
        for imp in imported {
            let id = imp.case.id.clone();
            let key = imp.case.equality_key();
            if let Some((pid, p)) = present.get(&key).or_else(|| present.get(&id)) {
                let same = if *pid == id {
                    String::new()
                } else {
                    format!(" as {}", show(pid))
                };
                outln!(
                    "{shown}: already present: {}{same} in {}",
                    show(&id),
                    show_path(p)
                );
                continue;
            }
            let name = file_name(&id);
            let text = render(&[imp.case], Layout::Single, Style::Corpus);
            let target = args.dir.join(&name);
            match reducer_kit::atomic::create_new(&args.dir, &name, text.as_bytes()) {
                Ok(true) => {
                    outln!(
                        "{shown}: added {} as {} (from {})",
                        show(&id),
                        show_path(&target),
                        show(&imp.origin.to_string())
                    );
                    present.insert(key, (id.clone(), target.clone()));
                    present.insert(id.clone(), (id, target));
                }
                Ok(false) => {
                    outln!(
                        "{shown}: already present: {} in {}",
                        show(&id),
                        show_path(&target)
                    );
                }
                Err(e) => {
                    outln!("{shown}: cannot write {}: {e}", show_path(&target));
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
    let dir = args.dir;
    if !args.dry_run {
        if let Err(code) = refuse_spec("corpus min", &dir, true, args.force) {
            return code;
        }
    }
    if !args.dry_run && dir.is_dir() && !(recover_in(&dir) && clean_stale_in(&case_dirs(&dir))) {
        return ExitCode::from(2);
    }
    let files = match load_files_with(&dir, args.limit.max_input) {
        Ok(f) => f,
        Err(e) => return case_failure(&e),
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
            show(&files[f].cases[c].id),
            show_path(&files[f].path),
            show(&r.covered_by.join(", "))
        );
    }
    for (f, n) in &plan.kept_whole {
        outln!(
            "keep {}: holds {} cases, {} of them removable on its own; a file of several cases is removed only whole",
            show_path(&files[*f].path),
            files[*f].cases.len(),
            n
        );
    }
    for (f, c) in &plan.unjudged {
        outln!(
            "keep {} ({}): no signature (the reference cannot read its messages)",
            show(&files[*f].cases[*c].id),
            show_path(&files[*f].path)
        );
    }
    let mut deleted = 0;
    if !args.dry_run && !plan.delete.is_empty() {
        // All the files go as one change (spec §8.11).
        let mut changes = match Changes::new(&dir) {
            Ok(c) => c,
            Err(e) => return usage(format!("{}: {e}", show_path(&dir))),
        };
        for f in &plan.delete {
            let path = &files[*f].path;
            if !inside(path, &dir) {
                return usage(format!(
                    "{}: not inside {}; nothing deleted",
                    show_path(path),
                    show_path(&dir)
                ));
            }
            if let Err(e) = changes.remove(path) {
                return usage(format!("{}: {e}; nothing deleted", show_path(path)));
            }
            deleted += 1;
        }
        if let Err(e) = changes.commit() {
            return usage(format!("{}: {e}", show_path(&dir)));
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
