//! The docs tell the truth about the repository (CONTRIBUTING.md, "Docs"):
//!
//! - every repository path the docs name exists: in backquotes, in code
//!   blocks and in relative links (with their `#anchor` when they point at
//!   a Markdown file), and every `§N.M` they cite is a section of the spec;
//! - the README's sample run is what its command prints;
//! - `docs/cli.md` names every option of every command's `--help`;
//! - the README lists every example reducer.
//!
//! The docs: `README.md`, `CONTRIBUTING.md`, `CHANGELOG.md`,
//! `benches/README.md`, `fuzz/README.md` and `docs/**/*.md`.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The repository's top-level entries a path in the docs can start with.
const TOP: &[&str] = &[
    "src/",
    "tests/",
    "benches/",
    "fuzz/",
    "corpus/",
    "examples/",
    "docs/",
    "spec/",
    "compat/",
    "python/",
    ".ci/",
    ".clusterfuzzlite/",
    ".github/",
    "action.yml",
    "README.md",
    "CONTRIBUTING.md",
    "CHANGELOG.md",
    "Cargo.toml",
    "Cargo.lock",
];

/// Folders a command makes (ignored by git or written by `corpus add`):
/// the docs name them, the repository does not hold them.
const MADE_BY_RUNS: &[&str] = &[
    "fuzz/corpus",
    "fuzz/artifacts",
    "fuzz/target",
    "fuzz/target-notc",
    "fuzz/logs",
    "fuzz/coverage",
    "compat/.cache",
    "compat/node/node_modules",
    // a link to compat/node/node_modules, whose target `npm ci` makes
    "compat/repro/node_modules",
    "corpus/regressions",
];

/// Files being written elsewhere, and what stands for them until they
/// land: `spec/spec.md` is `spec/v1.md` and `spec/v2.md` merged, section
/// numbers unchanged. Remove the entry once the file exists.
const PENDING: &[(&str, &[&str])] = &[];

/// The docs this test reads, relative to the repository.
fn docs() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = [
        "README.md",
        "CONTRIBUTING.md",
        "CHANGELOG.md",
        "benches/README.md",
        "fuzz/README.md",
    ]
    .iter()
    .map(PathBuf::from)
    .collect();
    fn walk(dir: &Path, rel: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            let name = rel.join(p.file_name().unwrap());
            if p.is_dir() {
                walk(&p, &name, out);
            } else if p.extension().is_some_and(|e| e == "md") {
                out.push(name);
            }
        }
    }
    walk(&root().join("docs"), Path::new("docs"), &mut out);
    out
}

fn read(rel: &Path) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{}: {e}", rel.display()))
}

/// The spec's text.
fn spec_text() -> String {
    read(Path::new("spec/spec.md"))
}

/// Whether `rel` (a path relative to the repository) exists, or is made by
/// a run, or is pending.
fn exists(rel: &str) -> bool {
    let rel = rel.trim_end_matches('/');
    if rel.is_empty() || root().join(rel).exists() {
        return true;
    }
    if MADE_BY_RUNS
        .iter()
        .any(|m| rel == *m || rel.starts_with(&format!("{m}/")))
    {
        return true;
    }
    PENDING
        .iter()
        .any(|(p, stand_ins)| rel == *p && stand_ins.iter().all(|s| root().join(s).exists()))
}

/// A path component that stands for something (`<target>`, `TARGET`,
/// `crash-*`, `regress-….json`).
fn placeholder(component: &str) -> bool {
    component.contains(['<', '>', '*', '…', '{', '}', '$', '|'])
        || component.contains("...")
        || (component.chars().any(|c| c.is_ascii_alphabetic())
            && component
                .chars()
                .all(|c| c.is_ascii_uppercase() || c == '_' || c == '-'))
}

/// The repository path a token names, if it names one: trimmed of quotes
/// and punctuation, of a `:line` suffix and of an `#anchor`.
fn repository_path(token: &str) -> Option<String> {
    let t = token.trim_matches(|c: char| "\"'(),;`[]".contains(c));
    let t = t.trim_end_matches(['.', ':']);
    let t = t.split('#').next().unwrap();
    let t = match t.find(':') {
        Some(i) if t[i + 1..].starts_with(|c: char| c.is_ascii_digit()) => &t[..i],
        _ => t,
    };
    let t = t.strip_prefix("./").unwrap_or(t);
    TOP.iter()
        .any(|top| t == top.trim_end_matches('/') || t.starts_with(top))
        .then(|| t.to_string())
}

/// Whether a named path is right: it exists; or, cut at its first
/// placeholder component, what is left exists; or it is the id of a case
/// of the corpus (`spec/rule-result-follows-call`, `compat/<name>/<hash>`).
fn path_ok(path: &str, case_ids: &str) -> bool {
    if exists(path) {
        return true;
    }
    let parts: Vec<&str> = path.split('/').collect();
    if let Some(i) = parts.iter().position(|c| placeholder(c)) {
        return exists(&parts[..i].join("/"));
    }
    case_ids.contains(&format!("\"{path}\""))
}

/// Every token of the inline code spans and code blocks of `text`, with
/// its line. A code span opens with a run of backquotes and closes with a
/// run as long, possibly on a later line (CommonMark).
fn code_tokens(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    // Text outside fenced blocks, each char with its line.
    let mut prose: Vec<(usize, char)> = Vec::new();
    let mut fenced = false;
    for (n, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            out.extend(line.split_whitespace().map(|t| (n + 1, t.to_string())));
        } else {
            prose.extend(line.chars().map(|c| (n + 1, c)));
            prose.push((n + 1, '\n'));
        }
    }
    let run_at = |i: usize| prose[i..].iter().take_while(|(_, c)| *c == '`').count();
    let mut i = 0;
    while i < prose.len() {
        if prose[i].1 != '`' {
            i += 1;
            continue;
        }
        let k = run_at(i);
        let open = i + k;
        let mut j = open;
        let close = loop {
            if j >= prose.len() {
                break None;
            }
            if prose[j].1 == '`' {
                let m = run_at(j);
                if m == k {
                    break Some(j);
                }
                j += m;
            } else {
                j += 1;
            }
        };
        let Some(close) = close else {
            i = open;
            continue;
        };
        let mut token = String::new();
        let mut line = prose[open.min(close)].0;
        for &(n, c) in &prose[open..close] {
            if c.is_whitespace() {
                if !token.is_empty() {
                    out.push((line, std::mem::take(&mut token)));
                }
            } else {
                if token.is_empty() {
                    line = n;
                }
                token.push(c);
            }
        }
        if !token.is_empty() {
            out.push((line, token));
        }
        i = close + k;
    }
    out
}

/// Every relative link target of `text`: `](target)`.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let mut rest = line;
        while let Some(i) = rest.find("](") {
            rest = &rest[i + 2..];
            let Some(end) = rest.find(')') else { break };
            let target = &rest[..end];
            if !target.contains("://") && !target.starts_with("mailto:") {
                out.push((n + 1, target.to_string()));
            }
            rest = &rest[end..];
        }
    }
    out
}

/// GitHub's anchor of a heading: lower case, punctuation dropped, spaces
/// as hyphens.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == '-' || *c == '_' || *c == ' ')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn anchors(markdown: &str) -> HashSet<String> {
    markdown
        .lines()
        .filter(|l| l.starts_with('#'))
        .map(|l| anchor(l.trim_start_matches('#')))
        .collect()
}

/// The case ids of the corpus, as the text of every case file.
fn case_ids() -> String {
    fn walk(dir: &Path, out: &mut String) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "json") {
                out.push_str(&std::fs::read_to_string(&p).unwrap());
            }
        }
    }
    let mut out = String::new();
    walk(&root().join("corpus"), &mut out);
    out
}

#[test]
fn every_path_the_docs_name_exists() {
    let ids = case_ids();
    let spec = spec_text();
    let sections: HashSet<String> = spec
        .lines()
        .filter(|l| l.starts_with("## ") || l.starts_with("### "))
        .filter_map(|l| l.split_whitespace().nth(1))
        .map(|n| n.trim_end_matches('.').to_string())
        .collect();
    let mut bad = Vec::new();
    for doc in docs() {
        let text = read(&doc);
        for (line, token) in code_tokens(&text) {
            if let Some(path) = repository_path(&token) {
                if !path_ok(&path, &ids) {
                    bad.push(format!("{}:{line}: `{path}` does not exist", doc.display()));
                }
            }
        }
        let dir = doc.parent().unwrap();
        for (line, target) in links(&text) {
            let (file, frag) = match target.split_once('#') {
                Some((f, a)) => (f, Some(a)),
                None => (target.as_str(), None),
            };
            let rel = if file.is_empty() {
                doc.clone()
            } else {
                normalize(&dir.join(file))
            };
            let rel_text = rel.to_string_lossy().to_string();
            if !exists(&rel_text) {
                bad.push(format!(
                    "{}:{line}: link to {target}: no such file",
                    doc.display()
                ));
                continue;
            }
            let markdown = rel_text.ends_with(".md") && root().join(&rel).exists();
            if let Some(frag) = frag.filter(|_| markdown) {
                if !anchors(&read(&rel)).contains(frag) {
                    bad.push(format!(
                        "{}:{line}: link to {target}: no such heading",
                        doc.display()
                    ));
                }
            }
        }
        for (n, line) in text.lines().enumerate() {
            for cited in line.split('§').skip(1) {
                let number: String = cited
                    .chars()
                    .take_while(|c| c.is_ascii_digit() || *c == '.')
                    .collect();
                let number = number.trim_end_matches('.');
                if !number.is_empty() && !sections.contains(number) {
                    bad.push(format!(
                        "{}:{}: §{number} is no section of the spec",
                        doc.display(),
                        n + 1
                    ));
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} problems:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// `a/b/../c` as `a/c`, relative to the repository.
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

/// The README's sample: the command after the marker comment, and the
/// text block after it as runs of consecutive lines (a `...` line stands
/// for lines left out, and separates the runs).
fn readme_sample() -> (Vec<String>, Vec<Vec<String>>) {
    let readme = read(Path::new("README.md"));
    let after = readme
        .split("<!-- tests/it/docs.rs runs the next command")
        .nth(1)
        .expect("the README's sample marker");
    let mut blocks = after.split("```").skip(1).step_by(2);
    let command = blocks.next().unwrap().trim_start_matches("sh").trim();
    let sample = blocks.next().unwrap().trim_start_matches("text");
    let args: Vec<String> = command
        .strip_prefix("reducer-kit ")
        .expect("the sample command runs reducer-kit")
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let mut runs = vec![Vec::new()];
    for line in sample.trim_matches('\n').lines() {
        if line.trim() == "..." {
            runs.push(Vec::new());
        } else {
            runs.last_mut().unwrap().push(line.trim_end().to_string());
        }
    }
    runs.retain(|r| !r.is_empty());
    (args, runs)
}

#[test]
fn the_readme_sample_is_what_its_command_prints() {
    let (args, runs) = readme_sample();
    assert!(runs.iter().map(Vec::len).sum::<usize>() >= 10, "{runs:?}");
    let out = Command::new(env!("CARGO_BIN_EXE_reducer-kit"))
        .args(&args)
        .current_dir(root())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "the sample run fails a clause");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let printed: Vec<&str> = stdout.lines().map(str::trim_end).collect();
    // Each run of the sample's lines is printed as it is, the runs in order.
    let mut at = 0;
    for run in &runs {
        let found = (at..printed.len().saturating_sub(run.len() - 1))
            .find(|&i| run.iter().zip(&printed[i..]).all(|(a, b)| a == b));
        match found {
            Some(i) => at = i + run.len(),
            None => panic!(
                "these lines of the README's sample are not printed together (after line {at}) by `reducer-kit {}`:\n{}\nIt printed:\n{stdout}",
                args.join(" "),
                run.join("\n")
            ),
        }
    }
}

/// The long options of `reducer-kit ARGS --help`.
fn options(args: &[&str]) -> Vec<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_reducer-kit"))
        .args(args)
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?} --help");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with("--") || (l.starts_with('-') && l.get(2..5) == Some(", -")))
        .filter_map(|l| l.split("--").nth(1))
        .map(|o| {
            o.chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect::<String>()
        })
        .filter(|o| o != "help" && o != "version")
        .collect()
}

#[test]
fn the_cli_reference_names_every_option() {
    let cli = read(Path::new("docs/cli.md"));
    let named = |opt: &str| {
        let needle = format!("--{opt}");
        cli.match_indices(&needle).any(|(i, _)| {
            !cli[i + needle.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '-')
        })
    };
    let mut missing = Vec::new();
    let commands: &[&[&str]] = &[
        &["certify"],
        &["serve"],
        &["reduce"],
        &["validate"],
        &["check"],
        &["generate"],
        &["corpus", "add"],
        &["corpus", "check"],
        &["corpus", "regen"],
        &["corpus", "min"],
        &["corpus", "seed-fuzz"],
        &["corpus", "trim-fuzz"],
        &["show"],
    ];
    let mut seen = 0;
    for cmd in commands {
        let name = cmd.join(" ");
        assert!(
            cli.contains(&format!("`{}", cmd.last().unwrap())),
            "docs/cli.md does not name `{name}`"
        );
        for opt in options(cmd) {
            seen += 1;
            if !named(&opt) {
                missing.push(format!("{name} --{opt}"));
            }
        }
    }
    assert!(seen > 40, "only {seen} options read from --help");
    assert!(missing.is_empty(), "docs/cli.md does not name: {missing:?}");
}

#[test]
fn the_readme_lists_every_example_reducer() {
    let readme = read(Path::new("README.md"));
    let mut reducers = Vec::new();
    for e in std::fs::read_dir(root().join("examples/reducers")).unwrap() {
        let p = e.unwrap().path();
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        // A reducer runs on the shared protocol module (which is none), or
        // on its own wire loop (the trimmers, on the `json` module alone).
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if name.ends_with(".py")
            && name != "reducer_protocol.py"
            && (text.contains("from reducer_protocol import")
                || text.contains("if __name__ == \"__main__\":"))
        {
            reducers.push(name);
        }
    }
    reducers.sort();
    assert!(reducers.len() >= 5, "{reducers:?}");
    for r in &reducers {
        assert!(
            readme.contains(&format!("| `{r}` |")),
            "README's table of example reducers has no row for {r}"
        );
    }
    let words = [
        "", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve", "thirteen", "fourteen", "fifteen",
    ];
    let count = words.get(reducers.len()).copied().unwrap_or("many");
    assert!(
        readme.contains(&format!("holds {count} reducers")),
        "README should say `examples/reducers/` holds {count} reducers"
    );
}
