//! Embeds the kit's own corpus in the library (spec §9: the default cases
//! of `certify`), so that an installed `reducer-kit` (cargo install, a
//! Python wheel) needs no clone of the repository: every `*.json` file
//! below `corpus/`, but for the `fuzz` folders (fuzzer seeds) and the
//! kit's own staging folders, as `certify::kit_cases` reads them.

use std::path::{Path, PathBuf};

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        if path.is_dir() {
            if name != "fuzz" {
                walk(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
}

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let corpus = root.join("corpus");
    println!("cargo::rerun-if-changed={}", corpus.display());
    let mut files = Vec::new();
    walk(&corpus, &mut files);
    files.sort();
    let mut code = String::from(
        "/// The kit's corpus: (path below `corpus/`, file text), in path order.\npub(crate) static FILES: &[(&str, &str)] = &[\n",
    );
    for f in &files {
        let rel = f.strip_prefix(&corpus).expect("below corpus/");
        println!("cargo::rerun-if-changed={}", f.display());
        code.push_str(&format!(
            "    ({:?}, include_str!({:?})),\n",
            rel.to_string_lossy(),
            f.display().to_string()
        ));
    }
    code.push_str("];\n");
    let out =
        PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it")).join("corpus_files.rs");
    std::fs::write(out, code).expect("OUT_DIR is writable");
}
