//! The rooms of `src/` keep to their imports (CONTRIBUTING.md, "Layout"): a room
//! that must not depend on another fails here when it starts to.
//! Doc comments and test modules may name any room.

use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file below `dir` (or `dir` itself when it is a file).
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    if dir.is_file() {
        return vec![dir.to_owned()];
    }
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// The checker judges the reference reducer's output, so it must not be
/// built from it: a bug in the reference would otherwise hide in the
/// checker too. `matches-reference` gets the reference answer from its
/// caller. No file under `src/check/` names the reference module, not even
/// in a comment.
#[test]
fn the_checker_does_not_import_the_reference_reducer() {
    let files = rust_files(&src().join("check"));
    assert!(files.len() >= 5, "{files:?}");
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.trim_start();
            let named = ["crate::reduce", "super::reduce", "reducer_kit::reduce"]
                .iter()
                .any(|p| line.contains(p));
            let imported = code.starts_with("use ") && code.contains("reduce::");
            assert!(
                !named && !imported,
                "{}:{}: the checker names the reference reducer: {line}",
                f.display(),
                n + 1
            );
        }
    }
}

/// The code of a file as far as imports go: before its `#[cfg(test)]`
/// module, without `//` comments (doc links are not imports).
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The rooms of the crate each file of `room` names (`crate::<room>`).
fn named_rooms(room: &str) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for f in rust_files(&src().join(room)) {
        let code = code(&f);
        let mut rest = code.as_str();
        while let Some(i) = rest.find("crate::") {
            rest = &rest[i + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            out.push((f.clone(), name));
        }
    }
    out
}

/// CONTRIBUTING.md's "Layout" table, column "may not import": each room names
/// only the rooms it may.
#[test]
fn every_room_imports_only_what_it_may() {
    let everything = [
        "terms", "formats", "protocol", "reduce", "validate", "check", "case", "generate",
        "certify", "corpus", "fuzzers", "json", "atomic", "input", "terminal",
    ];
    let rules: &[(&str, &[&str])] = &[
        ("terms", &["terms", "json"]),
        ("formats", &["formats", "terms", "json"]),
        ("protocol.rs", &["formats", "terms", "json"]),
        ("reduce.rs", &["formats", "protocol", "terms", "json"]),
        ("validate.rs", &["terms", "json"]),
        (
            "check",
            &["check", "formats", "protocol", "terms", "validate", "json"],
        ),
        (
            "case",
            &[
                "case", "formats", "protocol", "reduce", "terms", "validate", "json", "atomic",
                "input",
            ],
        ),
        (
            "generate",
            &[
                "generate", "case", "formats", "protocol", "reduce", "terms", "validate", "json",
            ],
        ),
        (
            "certify",
            &[
                "certify", "case", "check", "formats", "generate", "protocol", "reduce", "terms",
                "validate", "json", "atomic", "terminal", "input",
            ],
        ),
        (
            "corpus",
            &[
                "corpus", "case", "check", "formats", "fuzzers", "generate", "protocol", "reduce",
                "terms", "validate", "json", "atomic", "terminal", "input",
            ],
        ),
        (
            "fuzzers",
            &[
                "fuzzers", "case", "check", "formats", "generate", "input", "protocol", "reduce",
                "terms", "validate", "json",
            ],
        ),
        ("json", &[]),
        ("atomic.rs", &[]),
        ("input.rs", &[]),
        ("terminal.rs", &[]),
    ];
    let mut broken = Vec::new();
    for (room, may) in rules {
        for (file, name) in named_rooms(room) {
            assert!(
                everything.contains(&name.as_str()),
                "{}: crate::{name}",
                file.display()
            );
            if !may.contains(&name.as_str()) {
                broken.push(format!("{}: imports crate::{name}", file.display()));
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

/// Whether `rel` (a path below `src/`) is the command line: `src/commands/`,
/// `src/cli.rs` (the command line as a library function, feature `cli`)
/// and `src/main.rs` (the binary's shim over it).
fn is_command_line(rel: &Path) -> bool {
    rel.starts_with("commands") || rel == Path::new("cli.rs") || rel == Path::new("main.rs")
}

/// The library builds without the command line's crates (they sit behind
/// the `cli` feature, for the command line's files only).
#[test]
fn only_the_command_line_uses_clap_anyhow_or_indicatif() {
    for f in rust_files(&src()) {
        let rel = f.strip_prefix(src()).unwrap();
        if is_command_line(rel) {
            continue;
        }
        let code = code(&f);
        for krate in ["clap::", "anyhow", "indicatif"] {
            assert!(!code.contains(krate), "{} uses {krate}", f.display());
        }
    }
}

/// The command line calls the library, never the other way round: no room
/// names `crate::commands` or `crate::cli` (only `src/lib.rs` declares
/// them, behind the `cli` feature).
#[test]
fn the_library_never_imports_the_command_line() {
    let mut broken = Vec::new();
    for f in rust_files(&src()) {
        let rel = f.strip_prefix(src()).unwrap();
        if is_command_line(rel) || rel == Path::new("lib.rs") {
            continue;
        }
        let code = code(&f);
        for name in ["crate::commands", "crate::cli", "reducer_kit::cli"] {
            if code.contains(name) {
                broken.push(format!("{}: names {name}", f.display()));
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}
