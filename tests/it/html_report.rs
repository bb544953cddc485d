//! The HTML report (`certify --report-html`): a failing run of
//! `naive_last_n.py` drawn and read back from headless Chromium's DOM (the
//! failing clause, the orphan result linked to no call, the reducer's
//! extra message, the reproduce command), a screenshot written for
//! review; its size for a run of 2,000 cases and 20 counterexamples; a
//! reducer's hostile text escaped and run by nothing.
//!
//! Chromium is Debian's `chromium` (or `chromium-browser`, `google-chrome`,
//! or the program `REDUCER_KIT_CHROMIUM` names); where there is none the
//! browser half of a test says so on a line of its own, past the capture,
//! and is skipped (`common::skip_without`: a failure where
//! `REDUCER_KIT_REQUIRE_TOOLS` names `chromium`).

use crate::common::{kit_path, root, skip_without, text};
use reducer_kit::certify::job::Unwatched;
use reducer_kit::certify::report::{html, text::TextOptions};
use reducer_kit::certify::session::{InProcessSession, RunError};
use reducer_kit::{CertifyOptions, Policy};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;
use wait_timeout::ChildExt;

/// The Chromium to use, if the machine has one.
fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("REDUCER_KIT_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |d| d.join(name)))
        .find(|p| p.is_file())
}

/// Runs headless Chromium on `page` with `args` (`--dump-dom`,
/// `--screenshot=...`), in a fresh profile, nothing fetched, no sandbox
/// (containers have none); its stdout. Chromium gets five minutes (a
/// loaded machine), then is killed and the test fails.
fn headless(chrome: &Path, page: &Path, args: &[&str]) -> String {
    let profile = tempfile::tempdir().unwrap();
    let mut child = Command::new(chrome)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut s).unwrap();
        s
    });
    match child.wait_timeout(Duration::from_secs(300)).unwrap() {
        Some(status) => assert!(status.success(), "chromium: {status}"),
        None => {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish within 5 minutes");
        }
    }
    reader.join().unwrap()
}

/// The text of the element of `dom` that opens with `open`, to its
/// closing `</tag>` (elements of one kind do not nest in the report).
fn element<'a>(dom: &'a str, open: &str) -> &'a str {
    let start = dom
        .find(open)
        .unwrap_or_else(|| panic!("no {open} in the page"));
    let tag: String = open[1..]
        .chars()
        .take_while(char::is_ascii_alphanumeric)
        .collect();
    let close = format!("</{tag}>");
    let end = dom[start..].find(&close).unwrap() + close.len();
    &dom[start..start + end]
}

#[test]
fn the_report_of_naive_last_n_reads_back_from_chromium() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("report.html");
    let out = Command::new(kit_path())
        .args(["certify", "--persistent", "--report-html"])
        .arg(&page)
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
    let written = std::fs::read_to_string(&page).unwrap();
    assert!(written.starts_with("<!DOCTYPE html>"));
    assert!(!written.contains("<script"), "the page has no script");
    assert!(!written.contains("src=\"http"), "the page fetches nothing");
    let Some(chrome) = chromium() else {
        skip_without(
            "chromium",
            "html_report",
            "no Chromium here (apt-get install chromium, or set REDUCER_KIT_CHROMIUM); \
             the report was written and checked as text only",
        );
        return;
    };
    let dom = headless(&chrome, &page, &["--dump-dom"]);
    assert!(dom.contains("<h1>reducer-kit certify"), "{dom}");
    assert!(!dom.contains("<script"));
    // The failing clause: a row of the clause table with defects, and the
    // first counterexample.
    let row = element(
        &dom,
        "<tr class=\"f\"><td><a href=\"#spec-no-orphan-result\">",
    );
    assert!(row.contains("<a href=\"#cx-1\">#1</a>"), "{row}");
    let cx = element(&dom, "<section class=\"cx\" id=\"cx-1\">");
    assert!(cx.contains("<code>no-orphan-result</code>"), "{cx}");
    // The same input fails valid-output with the same answers: drawn
    // once, with both clauses.
    assert!(cx.contains(
        "<b>clause:</b> <code>no-orphan-result</code>: every result in the output has its call in an earlier output message"
    ), "{cx}");
    assert!(cx.contains(
        "<b>clause:</b> <code>valid-output</code>: the output of a valid input is valid (validator rules)"
    ), "{cx}");
    // The orphan result, linked to no call: an item marked an orphan, a
    // cross in the reducer's gutter at it, and no line from it.
    assert!(
        cx.contains("<p class=\"it re o\"><b>result</b><code>c1</code><em>orphan: no call earlier in the answer</em>"),
        "{cx}"
    );
    let gutter = element(cx, "<svg class=\"g\" style=\"grid-column:4;grid-row:1/-1\"");
    assert!(gutter.contains("data-side=\"reducer\""), "{gutter}");
    assert!(
        gutter.contains("<path class=\"or\" data-from=\"1.0\""),
        "{gutter}"
    );
    assert!(
        !gutter.contains("class=\"ln"),
        "a line from the orphan: {gutter}"
    );
    // The reducer's extra message: kept by it, removed by the reference.
    assert!(cx.contains("<div class=\"m t k vx bad\">"), "{cx}");
    assert!(cx.contains("extra: the reference removes it"));
    assert!(cx.contains(
        "<div class=\"m t d\"><div class=\"h\"><b>tool</b><span class=\"tag dr\">removed</span>"
    ));
    // The reproduce command, which reruns the failure.
    let repro = element(cx, "<pre class=\"repro\">");
    let command = repro
        .trim_start_matches("<pre class=\"repro\">reproduce: ")
        .trim_end_matches("</pre>");
    assert!(
        command.starts_with(
            "reducer-kit certify --policy turns --format canonical --persistent --case gen/1/"
        ) && command.ends_with(" -- python3 examples/reducers/naive_last_n.py --persistent"),
        "{repro}"
    );
    let words: Vec<&str> = command.split(' ').skip(1).collect();
    let again = Command::new(kit_path())
        .args(&words)
        .current_dir(root())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(1));
    assert!(text(&again.stdout).contains("no-orphan-result"));
    // A screenshot of the first counterexample, for review (README shows
    // one: docs/img/counterexample.png).
    let shot = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("counterexample.png");
    let _ = std::fs::remove_file(&shot);
    // The page's head and that counterexample's section, as the kit wrote
    // them (a screenshot shows the top of a page only).
    let alone = dir.path().join("counterexample.html");
    let head = &written[..written.find("<main>").unwrap()];
    let section = element(&written, "<section class=\"cx\" id=\"cx-1\">");
    std::fs::write(
        &alone,
        format!("{head}<main>{section}</main></body></html>\n"),
    )
    .unwrap();
    headless(
        &chrome,
        &alone,
        &[
            "--window-size=1180,430",
            &format!("--screenshot={}", shot.display()),
        ],
    );
    let png = std::fs::read(&shot).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    println!("screenshot for review: {}", shot.display());
}

/// The text a mischievous reducer writes into its answers: markup, a
/// script, an event handler, control characters and a bidi override.
const HOSTILE: &str = "<script>document.body.setAttribute('data-pwned','1')</script>\
<img src=x onerror=\"document.body.setAttribute('data-pwned','2')\">\u{7}\u{1b}[31m\u{202e}txt.exe";

/// A reducer that breaks a different rule by the request: the last N
/// messages (orphans), every message (over the budget), the last N
/// reversed, the last N with a fabricated message of [`HOSTILE`] text,
/// the first N; and an error of that text for a bad budget.
fn mischief(request: &str) -> Result<String, RunError> {
    let r: Value = serde_json::from_str(request).unwrap();
    let Some(n) = r["maxMessages"].as_u64().filter(|&n| n >= 1) else {
        return Ok(json!({ "error": HOSTILE }).to_string());
    };
    let m = r["messages"].as_array().unwrap();
    let n = (n as usize).min(m.len());
    let last = m[m.len() - n..].to_vec();
    let out: Vec<Value> = match request.len() % 5 {
        0 => last,
        1 => m.clone(),
        2 => last.into_iter().rev().collect(),
        3 => {
            let mut v = last;
            v.push(json!({"role": "assistant", "contents": [{"$type": "text", "text": HOSTILE}]}));
            v
        }
        _ => m[..n].to_vec(),
    };
    Ok(json!({ "messages": out }).to_string())
}

#[test]
fn a_run_of_2000_cases_and_20_counterexamples_is_under_a_megabyte_and_escaped() {
    let job = CertifyOptions {
        policy: Policy::Turns,
        // Besides corpus/spec, enough generated cases that 2,000 run once
        // repeats are dropped.
        generated: 2100,
        corpus: vec![root().join("corpus/spec")],
        jobs: Some(2),
        shrink_tries: 30,
        ..CertifyOptions::default()
    }
    .resolve()
    .unwrap()
    .with_sessions(|settings| Box::new(InProcessSession::new(settings, mischief)));
    let plan = job.plan().unwrap();
    let mut certified = job.run(&plan, &[], &Unwatched).unwrap();
    assert!(
        certified.grade.cases_run >= 2000,
        "{}",
        certified.grade.cases_run
    );
    let found = certified.counterexamples.len();
    assert!(found >= 10, "{found} counterexamples");
    // Twenty counterexamples: the run's, and as many of them again as it
    // takes.
    let mut i = 0;
    while certified.counterexamples.len() < 20 {
        // Another input (a message more), so that it is drawn apart.
        let mut again = certified.counterexamples[i % found].clone();
        let mut messages = again.case.messages.to_vec();
        messages.push(serde_json::json!({"role": "user", "contents": [{"$type": "text", "text": format!("again {i}")}]}));
        again.case.messages = std::sync::Arc::new(messages);
        certified.counterexamples.push(again);
        i += 1;
    }
    certified.counterexamples.truncate(20);
    let run = certified.report(&job, &plan);
    let page = html::render(&run, &TextOptions::default());
    assert!(page.len() < 1_000_000, "{} bytes", page.len());
    // One section per input, one anchor per counterexample.
    let inputs = reducer_kit::certify::counterexample::grouped_by_input(run.counterexamples).len();
    assert!(inputs >= 10, "{inputs} inputs");
    assert_eq!(page.matches("<section class=\"cx\"").count(), inputs);
    assert_eq!(page.matches(" id=\"cx-").count(), 20);
    println!(
        "{} bytes for {} cases and 20 counterexamples",
        page.len(),
        run.grade.cases_run
    );
    // Escaped: no markup of the reducer's, no control character.
    assert!(!page.contains("<script"));
    assert!(!page.contains("<img"));
    assert!(!page.contains('\u{7}') && !page.contains('\u{1b}') && !page.contains('\u{202e}'));
    let shown =
        "&lt;script&gt;document.body.setAttribute(&#39;data-pwned&#39;,&#39;1&#39;)&lt;/script&gt;";
    assert!(page.contains(shown), "the reducer's text is drawn, escaped");
    assert!(page.contains("\\x07\\x1b[31m\\u{202e}txt.exe"));
    let Some(chrome) = chromium() else {
        skip_without(
            "chromium",
            "html_report",
            "no Chromium here: the page was checked as text only",
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("hostile.html");
    std::fs::write(&file, &page).unwrap();
    let dom = headless(&chrome, &file, &["--dump-dom"]);
    assert!(dom.contains("<section class=\"cx\" id=\"cx-20\">"));
    // Nothing ran: no attribute set by the reducer's script or handler,
    // no element of its markup; its text is text.
    assert!(!dom.contains("data-pwned=\""), "the reducer's script ran");
    assert!(!dom.contains("<img"));
    // (The DOM's serializer writes `'` as itself.)
    assert!(dom.contains(
        "&lt;script&gt;document.body.setAttribute('data-pwned','1')&lt;/script&gt;&lt;img src=x onerror="
    ));
}

#[test]
fn a_report_path_that_cannot_be_written_stops_the_run_before_its_first_case() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(kit_path())
        .args(["certify", "--report-html"])
        .arg(dir.path().join("no-such-folder/report.html"))
        .args(["--", "python3", "examples/reducers/naive_last_n.py"])
        .current_dir(root())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.starts_with("reducer-kit: error: --report-html "),
        "{err}"
    );
    assert!(err.contains(": no folder "), "{err}");
    assert!(text(&out.stdout).is_empty(), "no case ran");
    let out = Command::new(kit_path())
        .args(["certify", "--report-html"])
        .arg(dir.path())
        .args(["--", "python3", "examples/reducers/naive_last_n.py"])
        .current_dir(root())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("is a folder, not a file"));
}
