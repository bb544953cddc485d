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

/// The modules of `src/certify/`, each with its files: `X.rs`, a folder
/// `X/` or both are one module `X`; `mod.rs` is their parent, not one of
/// them. A file of a folder counts when its parent's code declares it
/// (`mod Z;`), so a test module declared under `#[cfg(test)]` does not.
/// Each file comes with its depth below `src/certify/` as a module (`X.rs`
/// and `X/mod.rs`: 1, `X/Z.rs`: 2).
fn certify_modules() -> std::collections::BTreeMap<String, Vec<(PathBuf, usize)>> {
    let root = src().join("certify");
    let mut modules: std::collections::BTreeMap<String, Vec<(PathBuf, usize)>> = Default::default();
    for f in rust_files(&root) {
        let rel = f.strip_prefix(&root).unwrap();
        let parts: Vec<String> = rel
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        if parts == ["mod.rs"] {
            continue;
        }
        let stem = |p: &str| p.trim_end_matches(".rs").to_string();
        let depth = parts.len() - usize::from(parts.last().unwrap() == "mod.rs");
        if depth > 1 {
            let dir = f.parent().unwrap();
            let parent = if parts.last().unwrap() == "mod.rs" {
                dir.parent()
                    .unwrap()
                    .join(format!("{}.rs", stem(&parts[parts.len() - 2])))
            } else if dir.join("mod.rs").is_file() {
                dir.join("mod.rs")
            } else {
                dir.with_extension("rs")
            };
            let declared = format!("mod {};", stem(&parts[depth - 1]));
            if !code(&parent).contains(&declared) {
                continue;
            }
        }
        modules
            .entry(stem(&parts[0]))
            .or_default()
            .push((f.clone(), depth));
    }
    modules
}

/// The first segment of each path a `use` group names: `a` and `d` of
/// `{a::{B, C}, d}` (`group` without its outer braces).
fn group_heads(group: &str) -> Vec<String> {
    let mut heads = Vec::new();
    let mut nesting = 0;
    let mut start = true;
    for (i, c) in group.char_indices() {
        match c {
            '{' => nesting += 1,
            '}' => nesting -= 1,
            ',' if nesting == 0 => start = true,
            _ if start && !c.is_whitespace() => {
                start = false;
                let head: String = group[i..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                heads.push(head);
            }
            _ => {}
        }
    }
    heads
}

/// The modules of `src/certify/` the code of `file` (a module `depth`
/// levels below `certify`) names, each with the line that first names it:
/// `crate::certify::X` and `super::X` with as many `super::` as lead up to
/// `certify`, or a group of either (`super::{x::A, y}`).
fn named_certify_modules(file: &Path, depth: usize) -> Vec<(String, usize)> {
    let code = code(file);
    let supers = "super::".repeat(depth);
    let mut out: Vec<(String, usize)> = Vec::new();
    for prefix in ["crate::certify::", supers.as_str()] {
        for (at, _) in code.match_indices(prefix) {
            // The start of a path, not the middle of a longer one
            // (`super::super::x` in a file of depth 1 is not `super::x`).
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c == ':' || c.is_ascii_alphanumeric() || c == '_') {
                continue;
            }
            let rest = &code[at + prefix.len()..];
            if rest.starts_with("super::") {
                continue;
            }
            let heads = match rest.strip_prefix('{') {
                Some(group) => {
                    let mut nesting = 1;
                    let end = group
                        .char_indices()
                        .find(|&(_, c)| {
                            nesting += match c {
                                '{' => 1,
                                '}' => -1,
                                _ => 0,
                            };
                            nesting == 0
                        })
                        .map_or(group.len(), |(i, _)| i);
                    group_heads(&group[..end])
                }
                None => vec![rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect()],
            };
            let line = code[..at].lines().count().max(1);
            for head in heads {
                if !out.iter().any(|(m, _)| *m == head) {
                    out.push((head, line));
                }
            }
        }
    }
    out
}

/// Which modules of `src/certify/` each names (code only, as [`code`]
/// reads it), with where: `module -> [(named module, file, line)]`.
type CertifyGraph = std::collections::BTreeMap<String, Vec<(String, PathBuf, usize)>>;

fn certify_graph() -> CertifyGraph {
    let modules = certify_modules();
    let mut graph = CertifyGraph::new();
    for (module, files) in &modules {
        let edges = graph.entry(module.clone()).or_default();
        for (file, depth) in files {
            for (named, line) in named_certify_modules(file, *depth) {
                let known = modules.contains_key(&named);
                if known && named != *module && !edges.iter().any(|(m, ..)| *m == named) {
                    edges.push((named, file.clone(), line));
                }
            }
        }
    }
    graph
}

/// A circle of imports in `graph`, if it has one: the modules in order,
/// the first again at the end.
fn find_circle(graph: &CertifyGraph) -> Option<Vec<String>> {
    // Depth-first search; a module on the current path reached again
    // closes a circle.
    fn visit(
        graph: &CertifyGraph,
        module: &str,
        path: &mut Vec<String>,
        done: &mut std::collections::BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|m| m == module) {
            let mut circle = path[i..].to_vec();
            circle.push(module.to_string());
            return Some(circle);
        }
        if done.contains(module) {
            return None;
        }
        path.push(module.to_string());
        for (named, ..) in graph.get(module).into_iter().flatten() {
            if let Some(circle) = visit(graph, named, path, done) {
                return Some(circle);
            }
        }
        path.pop();
        done.insert(module.to_string());
        None
    }
    let mut done = std::collections::BTreeSet::new();
    graph
        .keys()
        .find_map(|m| visit(graph, m, &mut Vec::new(), &mut done))
}

/// The files of `src/certify/` import each other in no circle (module
/// docs of `src/certify/mod.rs`): each can be read with only the files
/// below it. A module names another with `super::x` or
/// `crate::certify::x` in its code (doc comments and test modules may
/// name any).
#[test]
fn the_files_of_certify_import_in_no_circle() {
    let graph = certify_graph();
    let edges: usize = graph.values().map(Vec::len).sum();
    assert!(graph.len() >= 15 && edges >= 30, "{graph:?}");
    if let Some(circle) = find_circle(&graph) {
        let steps: Vec<String> = circle
            .windows(2)
            .map(|w| {
                let (_, file, line) = graph[&w[0]].iter().find(|(m, ..)| *m == w[1]).unwrap();
                let file = file.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap();
                format!("{}:{line} names {}", file.display(), w[1])
            })
            .collect();
        panic!(
            "the files of src/certify/ import in a circle: {}\n{}",
            circle.join(" -> "),
            steps.join("\n")
        );
    }
}

/// The runner's files stand in order (`src/certify/mod.rs`): the records
/// and results are plain data that name neither the settings, the
/// sessions nor the run; the settings name neither the sessions nor the
/// run; the sessions do not name the run. And they name what is below
/// them (the reading above finds imports).
#[test]
fn the_runner_stands_in_order() {
    let graph = certify_graph();
    let names = |m: &str| -> Vec<&str> { graph[m].iter().map(|(n, ..)| n.as_str()).collect() };
    let above: &[(&str, &[&str])] = &[
        ("result", &["records", "settings", "session", "run"]),
        ("records", &["settings", "session", "run"]),
        ("settings", &["session", "run"]),
        ("session", &["run"]),
    ];
    for (module, forbidden) in above {
        for f in *forbidden {
            assert!(
                !names(module).contains(f),
                "src/certify/{module}.rs names {f}, which stands above it: {:?}",
                graph[*module]
            );
        }
    }
    assert!(
        names("records").contains(&"result"),
        "{:?}",
        graph["records"]
    );
    assert!(
        names("session").contains(&"settings"),
        "{:?}",
        graph["session"]
    );
    for below in ["records", "result", "settings", "exchange"] {
        assert!(names("run").contains(&below), "{:?}", graph["run"]);
    }
}
