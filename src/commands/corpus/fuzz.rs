//! `corpus seed-fuzz` and `corpus trim-fuzz`: the fuzz targets' committed
//! seeds, made from the corpus and cut to what each target reads.

use reducer_kit::case::file::read_regular;
use reducer_kit::corpus::seeds::{fuzz_seeds, seed_name};
use reducer_kit::fuzzers::TARGETS;
use reducer_kit::terminal::show_path;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::{plural, refuse_spec, SeedArgs, TrimArgs};
use crate::commands::usage;

pub(super) fn seed_fuzz(args: SeedArgs) -> ExitCode {
    let out = args.out;
    if let Err(code) = refuse_spec("corpus seed-fuzz", &out, false, args.force) {
        return code;
    }
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
            show_path(&dir)
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

/// A dot file (the kit's temporary files among them): not a fuzz input.
pub(super) fn hidden(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with('.'))
}

/// `corpus trim-fuzz`: each input of a target whose input is the
/// generator's bytes, cut to [`reducer_kit::fuzzers::trimmed_len`] and
/// rewritten atomically. A file named by `seed-fuzz` (the hash of its
/// bytes, [`seed_name`]) is renamed to the hash of the cut bytes, and
/// removed when a file of that name already holds them. `parse_no_panic`
/// (JSON text), folders named after no target, dot files, symbolic links
/// and other non-files are left alone and said so. An unreadable file or
/// a failed write is reported and the rest still done, then exit 2; so is
/// a folder that is neither a target's nor holds one.
pub(super) fn trim_fuzz(args: TrimArgs) -> ExitCode {
    let dir = args.dir;
    let own = std::fs::canonicalize(&dir).ok().and_then(|p| {
        p.file_name()
            .and_then(|n| n.to_str())
            .filter(|n| TARGETS.contains(n))
            .map(str::to_string)
    });
    let folders: Vec<(String, PathBuf)> = match own {
        Some(t) => vec![(t, dir.clone())],
        None => {
            let entries = match std::fs::read_dir(&dir) {
                Ok(e) => e,
                Err(e) => return usage(format!("{}: {e}", show_path(&dir))),
            };
            let mut v = Vec::new();
            for e in entries {
                let e = match e {
                    Ok(e) => e,
                    Err(e) => return usage(format!("{}: {e}", show_path(&dir))),
                };
                if e.path().is_dir() {
                    v.push((e.file_name().to_string_lossy().into_owned(), e.path()));
                }
            }
            v.sort();
            v
        }
    };
    if !folders.iter().any(|(n, _)| TARGETS.contains(&n.as_str())) {
        return usage(format!(
            "{}: neither a fuzz target's folder nor a folder of them (subfolders named after targets: {})",
            show_path(&dir),
            TARGETS.join(", ")
        ));
    }
    let verb = if args.dry_run { "would cut" } else { "cut" };
    let (mut inputs, mut cut, mut before, mut after) = (0usize, 0usize, 0u64, 0u64);
    let mut errors = 0usize;
    let mut fail = |what: String| {
        super::super::print_error(what);
        errors += 1;
    };
    for (name, folder) in &folders {
        let Some(target) = reducer_kit::fuzzers::target(name) else {
            outln!("skip {}: not a fuzz target", show_path(folder));
            continue;
        };
        if target.carried.is_none() {
            outln!(
                "skip {}: {name} reads JSON text, whose prefixes are other inputs",
                show_path(folder)
            );
            continue;
        }
        let entries = match std::fs::read_dir(folder) {
            Ok(es) => es,
            Err(e) => {
                fail(format!("{}: {e}", show_path(folder)));
                continue;
            }
        };
        let mut files: Vec<PathBuf> = Vec::new();
        for e in entries {
            match e.and_then(|e| Ok((e.path(), e.file_type()?))) {
                Ok((p, _)) if hidden(&p) => {}
                Ok((p, ft)) if ft.is_file() => files.push(p),
                Ok((p, ft)) if ft.is_symlink() => {
                    outln!("skip {}: a symbolic link", show_path(&p));
                }
                Ok(_) => {}
                Err(e) => fail(format!("{}: {e}", show_path(folder))),
            }
        }
        files.sort();
        let (mut n_cut, mut b0, mut b1) = (0usize, 0u64, 0u64);
        for path in &files {
            let bytes = match read_regular(path, reducer_kit::input::DEFAULT_MAX_INPUT) {
                Ok(b) => b,
                Err(e) => {
                    fail(format!("{}: {e}", show_path(path)));
                    continue;
                }
            };
            let k = reducer_kit::fuzzers::trimmed_len(name, &bytes);
            b0 += bytes.len() as u64;
            b1 += k as u64;
            if k == bytes.len() {
                continue;
            }
            n_cut += 1;
            if args.dry_run {
                continue;
            }
            let new = &bytes[..k];
            let file = path.file_name().map(|n| n.to_string_lossy().into_owned());
            let renamed = (file.as_deref() == Some(seed_name(&bytes).as_str()))
                .then(|| path.with_file_name(seed_name(new)));
            let done = match &renamed {
                Some(to)
                    if read_regular(to, reducer_kit::input::DEFAULT_MAX_INPUT)
                        .is_ok_and(|b| b == new) =>
                {
                    outln!(
                        "remove {}: its cut bytes are {}",
                        show_path(path),
                        show_path(to)
                    );
                    std::fs::remove_file(path)
                }
                Some(to) => reducer_kit::atomic::replace(to, new).and_then(|()| {
                    outln!("rename {} to {}", show_path(path), show_path(to));
                    std::fs::remove_file(path)
                }),
                None => reducer_kit::atomic::replace(path, new),
            };
            if let Err(e) = done {
                fail(format!("{}: {e}", show_path(path)));
            }
        }
        outln!(
            "{name}: {}, {verb} {n_cut}, {b0} -> {b1} bytes, in {}",
            plural(files.len(), "input", "inputs"),
            show_path(folder)
        );
        inputs += files.len();
        cut += n_cut;
        before += b0;
        after += b1;
    }
    outln!(
        "trim-fuzz: {}, {verb} {cut}, {before} -> {after} bytes{}",
        plural(inputs, "input", "inputs"),
        if errors > 0 {
            format!("; {} (above)", plural(errors, "error", "errors"))
        } else {
            String::new()
        }
    );
    if errors > 0 {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    }
}
