//! `spec/spec.md` against the code: its clause index is generated from
//! [`Clause::ALL`], its contents list names every section, and every `§N`
//! citation in the repository names a section it has.
//!
//! The clause index is the block between [`BEGIN`] and [`END`]: one row per
//! clause, in report order, with the clause's level (from the code), the
//! section that defines it ([`SECTIONS`], checked against the text of that
//! section), the fuzz targets that judge it (from [`FUZZ_CHECKER`] and
//! [`reducer_kit::fuzzers::TABLE`], checked against each target's source)
//! and the test files that name it (`tests/*.rs` and the modules of
//! `tests/it/` and `tests/checker/`). When the block
//! differs from what the code gives, the test fails;
//! `REDUCER_KIT_BLESS=1 cargo test --test it spec_index::` rewrites it.

use reducer_kit::fuzzers::TABLE;
use reducer_kit::terms::{Clause, Declared, Policy};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const BEGIN: &str = "<!-- BEGIN clause index (generated: cargo test --test it spec_index::) -->";
const END: &str = "<!-- END clause index -->";

/// The section of `spec/spec.md` that defines each clause. A clause added
/// to [`Clause`] needs a row here (the test says so) and a definition in
/// that section (the test checks that the section names it).
const SECTIONS: &[(&str, &str)] = &[
    ("protocol-json", "6.2"),
    ("protocol-timeout", "6.2"),
    ("protocol-crash", "6.2"),
    ("protocol-size", "6.2"),
    ("protocol-budget", "6.2"),
    ("budget", "6.3"),
    ("system-pinned", "6.3"),
    ("no-fabrication", "6.3"),
    ("no-orphan-result", "6.3"),
    ("no-orphan-approval", "6.3"),
    ("calls-keep-results", "6.3"),
    ("valid-output", "6.3"),
    ("rejects-bad-budget", "6.3"),
    ("deterministic", "6.3"),
    ("reasoning-attached", "14.6"),
    ("provider-accepts", "15.5"),
    ("summary-shape", "12.2"),
    ("summary-replaces-prefix", "12.3"),
    ("placeholder-shape", "16.5"),
    ("repair-valid", "17.3"),
    ("no-unanswered-call", "17.3"),
    ("completes-calls", "17.4"),
    ("whole-turns", "6.4"),
    ("newest-first", "6.4"),
    ("maximal", "6.4"),
    ("overflow-question", "6.4"),
    ("contiguous-suffix", "6.5"),
    ("maximal-suffix", "6.5"),
    ("identity-when-fits", "6.4"),
    ("idempotent", "6.4"),
    ("budget-monotone", "6.4"),
    ("repair-keeps-whole", "17.3"),
    ("repair-keeps-content", "17.3"),
    ("matches-reference", "6.6"),
];

/// How a fuzz target runs the checker (`crate::check`): always without a
/// provider profile and without declarations, under the policies it names.
#[derive(Clone, Copy)]
struct CheckerRun {
    /// The policies it judges under.
    policies: &'static [Policy],
    /// It draws runs that allow summaries.
    summaries: bool,
    /// It judges a format with reasoning items (it runs every format).
    reasoning: bool,
}

/// Every fuzz target, in [`TABLE`] order, with how it runs the checker;
/// `None` for a target that does not (its source does not import
/// `crate::check`, which the test checks). `parse_no_panic` runs the
/// checker on every format and asks only that it does not panic;
/// `reduce_invariants` asks that the reference's answer passes every clause
/// judged; `checker_convicts` that a mutated answer fails at least one.
const FUZZ_CHECKER: &[(&str, Option<CheckerRun>)] = &[
    (
        "parse_no_panic",
        Some(CheckerRun {
            policies: &Policy::EVERY,
            summaries: false,
            reasoning: true,
        }),
    ),
    ("format_roundtrip", None),
    ("validator_agrees", None),
    (
        "reduce_invariants",
        Some(CheckerRun {
            policies: &Policy::ALL,
            summaries: true,
            reasoning: false,
        }),
    ),
    (
        "checker_convicts",
        Some(CheckerRun {
            policies: &Policy::ALL,
            summaries: true,
            reasoning: false,
        }),
    ),
    ("terms_agree", None),
    (
        "repair_invariants",
        Some(CheckerRun {
            policies: &[Policy::Repair],
            summaries: false,
            reasoning: true,
        }),
    ),
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn spec_path() -> PathBuf {
    root().join("spec").join("spec.md")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Whether `text` holds `word` with no identifier character (`[A-Za-z0-9_-]`)
/// right before or after it, and, when `quoted`, between quotes or
/// backticks. A string that names a member of a record (`put("budget", ..)`,
/// `"budget":`) is not the clause.
fn names(text: &str, word: &str, quoted: bool) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        if before.is_some_and(ident) || after.is_some_and(ident) {
            return false;
        }
        if !quoted {
            return true;
        }
        let rest = &text[i + word.len()..];
        match (before, after) {
            (Some('`'), Some('`')) => true,
            (Some('"'), Some('"')) => {
                !text[..i - 1].ends_with("put(") && !rest[1..].starts_with(':')
            }
            _ => false,
        }
    })
}

/// Whether Rust source `text` names `clause`: `Clause::Variant`, or its id
/// as a token (a one-word id such as `budget` only between quotes or
/// backticks, as prose uses the word too).
fn source_names(text: &str, clause: Clause) -> bool {
    let variant = format!("Clause::{clause:?}");
    let id = clause.id();
    names(text, &variant, false) || names(text, id, !id.contains('-'))
}

/// The section a clause is defined in.
fn section_of(clause: Clause) -> &'static str {
    SECTIONS
        .iter()
        .find(|(id, _)| *id == clause.id())
        .map(|(_, s)| *s)
        .unwrap_or_else(|| {
            panic!(
                "clause `{}` has no section in tests/it/spec_index.rs SECTIONS: define it in \
                 spec/spec.md and add the section there",
                clause.id()
            )
        })
}

/// The text of section `number` of the spec: its heading line and what
/// follows, up to the next heading.
fn section_text<'a>(spec: &'a str, number: &str) -> Option<&'a str> {
    let heading = |line: &str| {
        line.strip_prefix("### ")
            .or_else(|| line.strip_prefix("## "))
            .and_then(|rest| rest.split(' ').next())
            .map(|n| n.trim_end_matches('.').to_owned())
    };
    let mut start = None;
    let mut offset = 0;
    for line in spec.split_inclusive('\n') {
        let h = heading(line.trim_end());
        match (start, h) {
            (None, Some(n)) if n == number => start = Some(offset),
            (Some(s), Some(_)) => return Some(&spec[s..offset]),
            _ => {}
        }
        offset += line.len();
    }
    start.map(|s| &spec[s..])
}

/// A heading of the spec (`##` or `###`): its section number, if it has
/// one, its title, and whether it is a top-level (`##`) heading.
struct Heading {
    number: Option<String>,
    title: String,
    top: bool,
}

/// The spec's headings, in order.
fn headings(spec: &str) -> Vec<Heading> {
    spec.lines()
        .filter_map(|line| {
            let (rest, top) = match line.strip_prefix("## ") {
                Some(r) => (r, true),
                None => (line.strip_prefix("### ")?, false),
            };
            let numbered = rest.split_once(' ').filter(|(n, _)| {
                n.starts_with(|c: char| c.is_ascii_digit())
                    && n.chars().all(|c| c.is_ascii_digit() || c == '.')
            });
            Some(match numbered {
                Some((n, title)) => Heading {
                    number: Some(n.trim_end_matches('.').to_owned()),
                    title: title.to_owned(),
                    top,
                },
                None => Heading {
                    number: None,
                    title: rest.to_owned(),
                    top,
                },
            })
        })
        .collect()
}

/// The fuzz targets that judge each clause: `(target, names it)` per
/// clause, in [`TABLE`] order; "names it" when the target's own source
/// names the clause (a mutation that must fail it, an answer that must
/// pass it).
fn fuzz_targets() -> Vec<Vec<(&'static str, bool)>> {
    let names: Vec<&str> = TABLE.iter().map(|t| t.name).collect();
    let listed: Vec<&str> = FUZZ_CHECKER.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        listed, names,
        "tests/it/spec_index.rs FUZZ_CHECKER must list every fuzz target of fuzzers::TABLE, in order"
    );
    let mut out = vec![Vec::new(); Clause::ALL.len()];
    for &(name, run) in FUZZ_CHECKER {
        let path = root()
            .join("src")
            .join("fuzzers")
            .join(format!("{name}.rs"));
        let source = read(&path);
        assert_eq!(
            source.contains("use crate::check"),
            run.is_some(),
            "{}: FUZZ_CHECKER says the target {} the checker; its imports say otherwise",
            path.display(),
            if run.is_some() {
                "runs"
            } else {
                "does not run"
            }
        );
        let Some(run) = run else { continue };
        let mut judged = BTreeSet::new();
        for &policy in run.policies {
            for summaries in [false, run.summaries] {
                for reasoning in [false, run.reasoning] {
                    judged.extend(Clause::judged_in(
                        policy,
                        summaries,
                        reasoning,
                        false,
                        &Declared::default(),
                    ));
                }
            }
        }
        for (i, &clause) in Clause::ALL.iter().enumerate() {
            if !clause.judged_by_runner() && judged.contains(&clause) {
                out[i].push((name, source_names(&source, clause)));
            }
        }
    }
    out
}

/// The test files (`tests/*.rs` and the modules of `tests/it/` and
/// `tests/checker/`, stems, sorted) that name each clause, but for this
/// file, the binaries' roots and shared helpers, and the mutants' harness
/// and summary.
fn test_files() -> Vec<Vec<String>> {
    let mut files: Vec<PathBuf> = ["tests", "tests/it", "tests/checker"]
        .iter()
        .flat_map(|dir| std::fs::read_dir(root().join(dir)).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        // The mutants' harness and its summary name clauses as data (a
        // verdict's clauses), not as what they test.
        .filter(|p| {
            p.file_stem().is_some_and(|s| {
                ![
                    "main",
                    "common",
                    "spec_index",
                    "mutant_conviction",
                    "mutants_summary",
                ]
                .contains(&s.to_str().unwrap_or(""))
            })
        })
        .collect();
    files.sort_by(|a, b| a.file_stem().cmp(&b.file_stem()));
    let texts: Vec<(String, String)> = files
        .iter()
        .map(|p| {
            let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
            (stem, read(p))
        })
        .collect();
    Clause::ALL
        .iter()
        .map(|&c| {
            texts
                .iter()
                .filter(|(_, text)| source_names(text, c))
                .map(|(stem, _)| stem.clone())
                .collect()
        })
        .collect()
}

/// The clause index as it should stand between [`BEGIN`] and [`END`].
fn render(spec: &str) -> String {
    let fuzz = fuzz_targets();
    let tests = test_files();
    let mut out = String::from(
        "| clause | level | defined in | fuzz targets | tests |\n\
         |--------|-------|------------|--------------|-------|\n",
    );
    let list = |items: Vec<String>| {
        if items.is_empty() {
            "—".to_owned()
        } else {
            items.join(", ")
        }
    };
    for (i, &clause) in Clause::ALL.iter().enumerate() {
        let section = section_of(clause);
        let text = section_text(spec, section)
            .unwrap_or_else(|| panic!("spec/spec.md has no section {section} (clause `{clause}`)"));
        assert!(
            text.contains(&format!("`{}`", clause.id())),
            "spec/spec.md §{section} does not name `{clause}`, which SECTIONS says it defines"
        );
        let targets = fuzz[i]
            .iter()
            .map(|&(t, named)| {
                if named {
                    format!("**`{t}`**")
                } else {
                    format!("`{t}`")
                }
            })
            .collect();
        let files = tests[i].iter().map(|t| format!("`{t}`")).collect();
        out.push_str(&format!(
            "| `{}` | {} | §{} | {} | {} |\n",
            clause.id(),
            clause.level().name(),
            section,
            list(targets),
            list(files)
        ));
    }
    out
}

/// The text between the markers, and where it starts and ends in `spec`.
fn block(spec: &str) -> (usize, usize) {
    assert_eq!(
        spec.matches(BEGIN).count(),
        1,
        "spec/spec.md must hold the line {BEGIN:?} once"
    );
    assert_eq!(
        spec.matches(END).count(),
        1,
        "spec/spec.md must hold the line {END:?} once"
    );
    let start = spec.find(BEGIN).unwrap() + BEGIN.len() + 1;
    let end = spec.find(END).unwrap();
    assert!(start <= end, "{END:?} comes before {BEGIN:?}");
    (start, end)
}

#[test]
fn the_clause_index_is_generated_from_the_code() {
    let path = spec_path();
    let spec = read(&path);
    let (start, end) = block(&spec);
    let want = render(&spec);
    let have = &spec[start..end];
    if have == want {
        return;
    }
    if std::env::var_os("REDUCER_KIT_BLESS").is_some_and(|v| v == "1") {
        let new = format!("{}{}{}", &spec[..start], want, &spec[end..]);
        std::fs::write(&path, new).unwrap();
        eprintln!("rewrote the clause index of {}", path.display());
        return;
    }
    let first = have
        .lines()
        .zip(want.lines())
        .position(|(a, b)| a != b)
        .unwrap_or_else(|| have.lines().count().min(want.lines().count()));
    panic!(
        "the clause index of spec/spec.md is not what the code gives (terms::Clause, \
         fuzzers::TABLE, tests/*.rs, tests/it/, tests/checker/); run `REDUCER_KIT_BLESS=1 cargo test --test it spec_index::` \
         to rewrite it.\nfirst difference, row {}:\n  spec: {}\n  code: {}",
        first,
        have.lines().nth(first).unwrap_or("(nothing)"),
        want.lines().nth(first).unwrap_or("(nothing)")
    );
}

/// The contents list at the top (between `Contents:` and the first `---`)
/// names every section, in order, as its heading does.
#[test]
fn the_contents_list_every_section() {
    let spec = read(&spec_path());
    let start = spec.find("\nContents:\n").expect("a contents list") + "\nContents:\n".len();
    let end = start
        + spec[start..]
            .find("\n---\n")
            .expect("the contents end at ---");
    let listed: Vec<&str> = spec[start..end]
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let want: Vec<String> = headings(&spec[end..])
        .into_iter()
        .map(|h| match (h.number, h.top) {
            (Some(num), true) => format!("- {num}. {}", h.title),
            (Some(num), false) => format!("- {num} {}", h.title),
            (None, _) => format!("- {}", h.title),
        })
        .collect();
    assert_eq!(
        listed, want,
        "spec/spec.md's contents list and its headings differ"
    );
}

/// Every citation `§N` or `§N.M` in the repository (outside `target/` and
/// hidden folders) names a section of `spec/spec.md`.
#[test]
fn every_citation_names_a_section() {
    let spec = read(&spec_path());
    let sections: BTreeSet<String> = headings(&spec)
        .into_iter()
        .filter_map(|h| h.number)
        .collect();
    let mut bad = Vec::new();
    let mut stack = vec![root()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy();
            // Build output and the libraries compat/run installs are not
            // the project's text.
            if name.starts_with('.') || name == "target" || name == "node_modules" {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            for (n, line) in text.lines().enumerate() {
                for (i, _) in line.match_indices('§') {
                    let rest = line[i + '§'.len_utf8()..].trim_start_matches(' ');
                    let num: String = rest
                        .chars()
                        .take_while(|c| c.is_ascii_digit() || *c == '.')
                        .collect();
                    let num = num.trim_end_matches('.');
                    if !num.is_empty() && !sections.contains(num) {
                        let shown = path.strip_prefix(root()).unwrap_or(&path);
                        bad.push(format!("{}:{}: §{num}", shown.display(), n + 1));
                    }
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "citations of sections spec/spec.md does not have:\n{}",
        bad.join("\n")
    );
}

/// One statement of each rule: no section amends another, and decisions
/// keep their reasons without issue numbers.
#[test]
fn the_spec_neither_amends_nor_cites_issues() {
    for entry in std::fs::read_dir(root().join("spec")).unwrap() {
        let path = entry.unwrap().path();
        let text = read(&path);
        for (n, line) in text.lines().enumerate() {
            let lower = line.to_lowercase();
            let issue = lower.match_indices("issue ").any(|(i, m)| {
                lower[i + m.len()..]
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_digit())
            });
            assert!(
                !lower.contains("amends") && !issue,
                "{}:{}: {line}",
                path.display(),
                n + 1
            );
        }
    }
}
