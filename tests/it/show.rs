//! `reducer-kit show`: every case of the corpus drawn in every wire format
//! (as text and as a page) without error, through the library and the
//! command line; a JSON report's counterexamples; the compatibility
//! matrix's page, which `compat/run` writes as `docs/compat/index.html`.

use crate::common::{kit_path, root, text};
use reducer_kit::certify::draw::show::{entries_html, entries_text, read_document, Document};
use reducer_kit::certify::draw::State;
use reducer_kit::Format;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Every case file below `corpus/` but the fuzz seeds, in path order.
fn case_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            if !p.ends_with("fuzz") {
                case_files(&p, out);
            }
        } else if p.extension().is_some_and(|e| e == "json") {
            out.push(p);
        }
    }
}

fn show(args: &[&str]) -> Output {
    Command::new(kit_path())
        .arg("show")
        .args(args)
        .current_dir(root())
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn every_corpus_case_is_drawn_in_every_format() {
    let mut files = Vec::new();
    case_files(&root().join("corpus"), &mut files);
    assert!(files.len() > 100, "{} case files", files.len());
    let (mut drawn, mut in_canonical) = (0, 0);
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for format in Format::ALL {
            let doc = read_document(&text, file, format)
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let Document::Entries(entries) = doc else {
                panic!("{}: a case file", file.display());
            };
            assert!(!entries.is_empty());
            for e in &entries {
                let c = e.saved.draw();
                let rows = c.rows.iter().filter(|r| r.input.is_some()).count();
                assert_eq!(
                    rows + c.hidden.0 + c.hidden.1,
                    e.saved.input.len(),
                    "{}: one row per input message",
                    e.title
                );
                // Read by the format's reader: no input message unreadable;
                // a row of no input message is a message some answer
                // fabricated (a saved failure's reducer, spec §13.4).
                for row in &c.rows {
                    let cell = &row.cells[0];
                    if row.input.is_some() {
                        let m = cell.message.as_ref().unwrap();
                        assert!(m.unreadable.is_none(), "{} {format}: {m:?}", e.title);
                    } else {
                        assert!(
                            row.cells.iter().any(|c| c.state == State::Fabricated),
                            "{} {format}",
                            e.title
                        );
                    }
                }
                if e.saved.no_form.is_some() {
                    in_canonical += 1;
                    assert_eq!(e.saved.format, Format::Canonical);
                    assert!(e.notes.iter().any(|n| n.contains("drawn in canonical")));
                } else {
                    assert_eq!(e.saved.format, format);
                }
                drawn += 1;
            }
            let t = entries_text(&entries, false);
            assert!(t.starts_with("case "), "{t}");
            let page = entries_html(&entries, "corpus");
            assert_eq!(
                page.matches("<section class=\"cx\">").count(),
                entries.len()
            );
        }
    }
    println!("{drawn} drawings, {in_canonical} of a case with no form in the format asked");
    assert!(drawn > 6 * 200, "{drawn}");
    // Through the command line: a file of each corpus folder, each format.
    let mut folders: Vec<&PathBuf> = Vec::new();
    for f in &files {
        if !folders.iter().any(|g| g.parent() == f.parent()) {
            folders.push(f);
        }
    }
    for f in folders {
        for format in Format::ALL {
            let out = show(&["--format", format.name(), f.to_str().unwrap()]);
            assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
            let t = text(&out.stdout);
            assert!(t.starts_with("case ") && t.contains("REFERENCE ("), "{t}");
        }
    }
}

#[test]
fn a_saved_failure_and_a_json_report_are_drawn() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    let saved = dir.path().join("saved");
    let out = Command::new(kit_path())
        .args(["certify", "--persistent", "--cases", "300", "--report-json"])
        .arg(&report)
        .arg("--save-failures")
        .arg(&saved)
        .args(["--corpus", "corpus/spec"])
        .args([
            "--",
            "python3",
            "examples/reducers/naive_last_n.py",
            "--persistent",
        ])
        .current_dir(root())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let out = show(&[report.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let t = text(&out.stdout);
    assert!(
        t.starts_with("counterexample 1: no-orphan-result, shrunk from "),
        "{t}"
    );
    assert!(t.contains("✗ orphan: no call earlier"), "{t}");
    assert!(t.contains("EXTRA: the reference removes it"), "{t}");
    assert!(!t.contains('\u{1b}'), "no colour into a pipe");
    let page = dir.path().join("report.html");
    let out = show(&[report.to_str().unwrap(), "--html", page.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("orphan: no call earlier in the answer"));
    let one = std::fs::read_dir(&saved)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let out = show(&[one.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let t = text(&out.stdout);
    assert!(t.contains("  counterexample for "), "{t}");
    assert!(
        t.contains(
            "\n  saved by: reducer-kit certify --policy turns --format canonical --persistent"
        ),
        "{t}"
    );
    assert!(
        t.contains("REDUCER ("),
        "a saved failure keeps the reducer's answer: {t}"
    );
    // Errors: a missing file, not a case file, a matrix as text.
    let out = show(&["no-such.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).starts_with("reducer-kit: error: no-such.json"));
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"id\": 1}").unwrap();
    assert_eq!(show(&[bad.to_str().unwrap()]).status.code(), Some(2));
    let out = show(&["docs/compat/matrix.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("add --html OUT"));
}

/// A failure saved from an `openai` run keeps what the run saw (spec
/// §13.4): its format, its flags and the reducer's answer as written, so
/// `show` draws it in `openai` with both columns; asked for another format
/// it draws the reference alone and says why.
#[test]
fn a_saved_failure_is_drawn_as_its_run_saw_it() {
    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("saved");
    let out = Command::new(kit_path())
        .args(["certify", "--format", "openai", "--persistent", "--replay"])
        .arg("corpus/seed/order-shipment.json")
        .arg("--save-failures")
        .arg(&saved)
        .args([
            "--",
            "python3",
            "examples/reducers/naive_last_n.py",
            "--format",
            "openai",
            "--persistent",
        ])
        .current_dir(root())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let file = saved.join("fail-e363c6f4b2ed2f54.json");
    let case: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(
        case["clauses"],
        serde_json::json!(["no-orphan-result", "valid-output", "matches-reference"])
    );
    assert_eq!(
        case["run"],
        serde_json::json!({
            "format": "openai",
            "flags": "--policy turns --format openai --persistent",
            "answer": {"messages": [{"role": "tool", "tool_call_id": "c1", "content": ""}]}
        })
    );
    let out = show(&[file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let t = text(&out.stdout);
    assert!(
        t.starts_with("case fail/e363c6f4b2ed2f54 (policy turns, maxMessages 1, openai)\n"),
        "{t}"
    );
    assert!(t.contains("REFERENCE (0 messages)"), "{t}");
    assert!(t.contains("REDUCER (1 message)"), "{t}");
    let out = show(&[file.to_str().unwrap(), "--format", "anthropic"]);
    let t = text(&out.stdout);
    assert!(t.contains(", anthropic)\n"), "{t}");
    assert!(
        t.contains(
            "\n  the reducer's answer is drawn in the run's format only (--format openai)\n"
        ),
        "{t}"
    );
    assert!(!t.contains("REDUCER"), "{t}");
}

#[test]
fn the_compat_page_is_what_the_matrix_draws() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("index.html");
    let out = show(&["docs/compat/matrix.json", "--html", page.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let drawn = std::fs::read_to_string(&page).unwrap();
    let matrix: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("docs/compat/matrix.json")).unwrap(),
    )
    .unwrap();
    for a in matrix["adapters"].as_array().unwrap() {
        let name = a["name"].as_str().unwrap();
        assert!(drawn.contains(&format!("<b>{name}</b>")), "{name}");
        let Some(run) = a["runs"].as_array().and_then(|r| r.first()) else {
            continue;
        };
        for f in run["findings"].as_array().into_iter().flatten() {
            let clause = f["clause"].as_str().unwrap();
            if run["defects"].get(clause).is_some() {
                assert!(
                    drawn.contains(&format!("<a href=\"#{name}--{clause}\">")),
                    "{name} {clause}: a defect cell"
                );
                assert!(drawn.contains(&format!("<section class=\"cx\" id=\"{name}--{clause}\">")));
            }
        }
    }
    let committed = std::fs::read_to_string(root().join("docs/compat/index.html")).unwrap();
    assert!(
        committed == drawn,
        "docs/compat/index.html is not what docs/compat/matrix.json draws: \
         cargo run --release -- show docs/compat/matrix.json --html docs/compat/index.html"
    );
}
