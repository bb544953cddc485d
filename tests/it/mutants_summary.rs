//! `benches/mutants/summarize.py` on a fixed mutants.out (tests/data/mutants):
//! the counts, the times, the survivors against their list, the table of
//! outcomes, and the seeded sample CI draws.

use std::process::Command;

use crate::common::{root, text};

fn summarize(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new("python3")
        .arg(root().join("benches/mutants/summarize.py"))
        .args(args)
        .current_dir(root())
        .output()
        .unwrap();
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

#[test]
fn the_figures_and_the_unlisted_survivor() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("outcomes.tsv");
    let (code, stdout, stderr) = summarize(&[
        "--listing",
        "tests/data/mutants/listing.txt",
        "--survivors",
        "tests/data/mutants/survivors.txt",
        "--write",
        table.to_str().unwrap(),
        "tests/data/mutants/mutants.out",
    ]);
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(
        stdout,
        "mutants made: 6; unviable (do not build): 1\n\
         convicted: 2; timeout (convicted by hanging): 1; survived: 2 (1 shown equivalent); harness errors: 0\n\
         conviction rate of the non-equivalent viable mutants: 75.0% (3 of 4)\n\
         time to the first failing case (s): median 0.75, 90th percentile 1.25, max 1.25 (2 convicted by certify)\n\
         whole harness run per convicted mutant (s): median 1.50\n\
         first counterexample (messages): median 2.0, max 3\n\
         convicted by: reducer 2, api 1\n\
         clauses convicting serve: maximal 1, budget 1, no-orphan-result 1\n\
         survivor: src/reduce/select.rs: replace + with * in orphans_removed\tNOT LISTED\n\
         survivor: src/reduce.rs: replace Selection::keeps_all -> bool with false\tequivalent: only a shortcut\n"
    );
    assert_eq!(
        stderr,
        "survivor not listed: src/reduce/select.rs: replace + with * in orphans_removed (matches-reference only: --policy suffix)\n"
    );
    let rows = std::fs::read_to_string(&table).unwrap();
    let rows: Vec<&str> = rows.lines().skip(1).collect();
    // In listing order; the second `> with >=` of fitting_tail in the
    // listing is `#2`, though the run tested it first.
    assert_eq!(
        rows[0],
        "src/reduce/select.rs: replace > with >= in fitting_tail\ttimeout\t\t\t-\t-"
    );
    assert_eq!(
        rows[1],
        "src/reduce/select.rs: replace > with >= in fitting_tail #2\tconvicted\treducer: maximal; budget\t3\t1.25\t2.00"
    );
    assert_eq!(rows.len(), 6);
}

/// summarize.py on the fixed mutants.out with `survivors` as the list of
/// known survivors: its exit code and stderr.
fn with_survivors(survivors: &str) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("survivors.txt");
    std::fs::write(&list, survivors).unwrap();
    let (code, _, stderr) = summarize(&[
        "--listing",
        "tests/data/mutants/listing.txt",
        "--survivors",
        list.to_str().unwrap(),
        "tests/data/mutants/mutants.out",
    ]);
    (code, stderr)
}

#[test]
fn a_listed_survivor_that_is_convicted_now_is_a_note() {
    let (code, stderr) = with_survivors(
        "src/reduce.rs: replace Selection::keeps_all -> bool with false\tequivalent: x\n\
         src/reduce/select.rs: replace + with * in orphans_removed\ta known hole\n\
         src/reduce.rs: replace reduce -> Result<Vec<Value>, ReduceError> with Ok(vec![])\tx\n",
    );
    assert_eq!(code, Some(0));
    assert_eq!(
        stderr,
        "note: listed as a survivor but convicted now (drop its line): src/reduce.rs: replace reduce -> Result<Vec<Value>, ReduceError> with Ok(vec![])\n"
    );
}

/// A listed key that names no mutant of the listing (here the name
/// cargo-mutants gave `keeps_all` before `Selection` took a lifetime)
/// fails the run: under its new name the survivor would be unlisted.
#[test]
fn a_listed_survivor_no_longer_in_the_listing_fails() {
    let (code, stderr) = with_survivors(
        "src/reduce.rs: replace Selection::keeps_all -> bool with false\tequivalent: x\n\
         src/reduce/select.rs: replace + with * in orphans_removed\ta known hole\n\
         src/reduce.rs: replace Selection<'_>::keeps_all -> bool with false\tequivalent: x\n",
    );
    assert_eq!(code, Some(1));
    assert_eq!(
        stderr,
        "listed survivor is not a mutant of the listing (renamed or gone): src/reduce.rs: replace Selection<'_>::keeps_all -> bool with false\n"
    );
}

#[test]
fn the_sample_is_seeded_and_escaped_for_cargo_mutants() {
    let listing = root().join("tests/data/mutants/listing.txt");
    let run = |seed: &str| {
        let out = Command::new("python3")
            .arg(root().join("benches/mutants/summarize.py"))
            .args(["--sample", "2", "--seed", seed])
            .stdin(std::fs::File::open(&listing).unwrap())
            .output()
            .unwrap();
        text(&out.stdout)
    };
    assert_eq!(run("7"), run("7"));
    assert_eq!(
        run("1"),
        "^(src/reduce\\.rs:220:9: replace Selection::keeps_all -> bool with false|src/reduce/select\\.rs:82:21: replace > with >= in fitting_tail)$\n"
    );
}
