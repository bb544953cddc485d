//! The rooms of `src/` keep to their imports (README, "Layout"): a room
//! that must not depend on another fails here when it starts to.

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
