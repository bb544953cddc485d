//! The recipe for a reducer's own repository (`docs/ci/certify-reducer.sh`,
//! the steps of the composite action `action.yml`), run as a workflow runs
//! it: in a folder that holds only a reducer, with the kit installed by pip
//! from a folder of wheels (`--find-links`), as it would be from the
//! package index.
//!
//! The run needs the wheel: `bash python/ci.sh` builds it into
//! `target/python-ci/wheels/` (`REDUCER_KIT_WHEELS` names another folder).
//! Without it the test prints why it is skipped on stderr and passes;
//! `.ci/run` builds the wheel, then runs `cargo test --test it recipe::`.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The folder of wheels the recipe installs from, when it holds this
/// version's wheel.
fn wheels() -> Option<PathBuf> {
    let dir = std::env::var_os("REDUCER_KIT_WHEELS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/python-ci/wheels"));
    let prefix = format!("reducer_kit-{}-", env!("CARGO_PKG_VERSION"));
    let found = std::fs::read_dir(&dir).is_ok_and(|d| {
        d.flatten().any(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.starts_with(&prefix) && name.ends_with(".whl")
        })
    });
    if found {
        Some(dir)
    } else {
        // Past the test harness's capture: the line shows in `cargo test`.
        let _ = writeln!(
            std::io::stderr(),
            "recipe: skipped: no {prefix}*.whl in {} (bash python/ci.sh builds it)",
            dir.display()
        );
        None
    }
}

/// Runs the recipe in `repo` with the action's inputs `inputs` (as the
/// action passes them: `RK_*` variables), the kit kept in `home`.
fn recipe(repo: &Path, home: &Path, wheels: &Path, inputs: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new("bash");
    for (k, _) in std::env::vars() {
        if k.starts_with("RK_") || k.starts_with("PIP_") {
            cmd.env_remove(k);
        }
    }
    cmd.arg(root().join("docs/ci/certify-reducer.sh"))
        .current_dir(repo)
        .env("HOME", home)
        .env("RK_HOME", home.join("reducer-kit"))
        .env("RK_FIND_LINKS", wheels)
        .env("NO_COLOR", "1");
    for (k, v) in inputs {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The names of a folder's entries.
fn names(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn copy_reducer(repo: &Path, files: &[&str]) {
    std::fs::create_dir_all(repo).unwrap();
    for f in files {
        std::fs::copy(root().join("examples/reducers").join(f), repo.join(f)).unwrap();
    }
}

#[test]
fn the_recipe_certifies_a_reducer_from_a_folder_that_holds_only_it() {
    let Some(wheels) = wheels() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let repo = tmp.path().join("repo");
    copy_reducer(&repo, &["suffix_reducer.py", "reducer_protocol.py"]);
    let version = env!("CARGO_PKG_VERSION");
    let inputs = [
        ("RK_POLICY", "suffix"),
        ("RK_FORMAT", "openai"),
        ("RK_CASES", "300"),
        (
            "RK_COMMAND",
            "python3 suffix_reducer.py --format 'openai' --persistent",
        ),
    ];

    let first = recipe(&repo, &home, &wheels, &inputs);
    let out = text(&first);
    assert_eq!(first.status.code(), Some(0), "{out}");
    assert!(
        out.contains(&format!(
            "installing reducer-kit {version} into {}",
            home.join("reducer-kit")
                .join(format!("venv-{version}"))
                .display()
        )),
        "{out}"
    );
    assert!(out.contains("reducer-kit certify --policy suffix --format openai --protocol 1 --cases 300 --persistent --report-junit reducer-kit-reports/junit.xml --report-json reducer-kit-reports/report.json --save-failures reducer-kit-reports/failures -- python3 suffix_reducer.py --format openai --persistent\n"), "{out}");
    assert!(
        out.contains(&format!("certificate: reducer-kit {version} spec v1 policy suffix format openai: levels passed [protocol, safety, policy, exact];")),
        "{out}"
    );
    assert!(
        out.contains("0 counterexamples in reducer-kit-reports/failures/"),
        "{out}"
    );
    // The folder holds the reducer and the reports, nothing else.
    assert_eq!(
        names(&repo),
        BTreeSet::from(
            [
                "reducer-kit-reports",
                "reducer_protocol.py",
                "suffix_reducer.py"
            ]
            .map(String::from)
        )
    );
    assert_eq!(
        names(&repo.join("reducer-kit-reports")),
        BTreeSet::from(["junit.xml", "report.json"].map(String::from))
    );
    let report: serde_json::Value = serde_json::from_slice(
        &std::fs::read(repo.join("reducer-kit-reports/report.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(report["passed"], true);
    assert_eq!(report["mode"], "persistent");
    assert_eq!(report["format"], "openai");
    assert_eq!(report["kit"]["version"], version);
    let run = report["casesRun"].as_u64().unwrap();
    assert!(run >= 300, "{run} cases run");
    let junit = std::fs::read_to_string(repo.join("reducer-kit-reports/junit.xml")).unwrap();
    assert!(
        junit.contains(r#"<testsuites name="reducer-kit certify (suffix policy, openai format)""#)
            && junit.contains(r#" failures="0" errors="0">"#),
        "{}",
        &junit[..junit.len().min(400)]
    );

    // The second run finds the kit where the first put it (the folder the
    // action caches), and installs nothing.
    let second = recipe(&repo, &home, &wheels, &inputs);
    let out = text(&second);
    assert_eq!(second.status.code(), Some(0), "{out}");
    assert!(
        out.starts_with(&format!(
            "reducer-kit {version}: installed in {} (kept from an earlier run)\n",
            home.join("reducer-kit")
                .join(format!("venv-{version}"))
                .display()
        )),
        "{out}"
    );
    assert!(!out.contains("installing"), "{out}");

    // A reducer that keeps the last N messages fails, and its minimal
    // counterexamples are saved as case files naming the clause.
    std::fs::remove_dir_all(&repo).unwrap();
    copy_reducer(&repo, &["naive_last_n.py", "reducer_protocol.py"]);
    let naive = recipe(
        &repo,
        &home,
        &wheels,
        &[
            ("RK_POLICY", "suffix"),
            ("RK_CASES", "300"),
            ("RK_COMMAND", "python3 naive_last_n.py --persistent"),
        ],
    );
    let out = text(&naive);
    assert_eq!(naive.status.code(), Some(1), "{out}");
    assert!(
        out.contains("minimal counterexample for no-orphan-result"),
        "{out}"
    );
    let failures = repo.join("reducer-kit-reports/failures");
    let saved = names(&failures);
    assert!(
        out.contains(&format!(
            "{} counterexamples in reducer-kit-reports/failures/",
            saved.len()
        )),
        "{out}"
    );
    let clauses: BTreeSet<String> = saved
        .iter()
        .flat_map(|f| {
            let case: serde_json::Value =
                serde_json::from_slice(&std::fs::read(failures.join(f)).unwrap()).unwrap();
            case["clauses"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_str().unwrap().to_string())
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(
        clauses.contains("no-orphan-result"),
        "{saved:?}: {clauses:?}"
    );
    let junit = std::fs::read_to_string(repo.join("reducer-kit-reports/junit.xml")).unwrap();
    assert!(
        junit.contains("<failure"),
        "{}",
        &junit[..junit.len().min(400)]
    );
}

#[test]
fn a_bad_input_stops_the_recipe_before_the_install() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    for (inputs, says) in [
        (
            vec![("RK_COMMAND", "python3 r.py")],
            "certify-reducer: no policy: set RK_POLICY (the action's input policy) to turns, suffix or repair\n",
        ),
        (
            vec![("RK_POLICY", "suffix")],
            "certify-reducer: no reducer command: set RK_COMMAND (the action's input command)\n",
        ),
    ] {
        let out = recipe(tmp.path(), &home, Path::new("/nonexistent"), &inputs);
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(String::from_utf8_lossy(&out.stderr), says);
        assert!(!home.exists(), "nothing installed");
    }
    let out = recipe(
        tmp.path(),
        &home,
        &tmp.path().join("no-such-folder"),
        &[("RK_POLICY", "suffix"), ("RK_COMMAND", "python3 r.py")],
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "certify-reducer: RK_FIND_LINKS: {} is not a folder\n",
            tmp.path().join("no-such-folder").display()
        )
    );
}

/// Every input of the action reaches the recipe as its `RK_` variable, and
/// the recipe documents each variable it reads.
#[test]
fn every_input_of_the_action_reaches_the_recipe() {
    let action = std::fs::read_to_string(root().join("action.yml")).unwrap();
    let script = std::fs::read_to_string(root().join("docs/ci/certify-reducer.sh")).unwrap();
    let inputs_block =
        &action[action.find("\ninputs:\n").unwrap()..action.find("\noutputs:\n").unwrap()];
    let inputs: Vec<&str> = inputs_block
        .lines()
        .filter(|l| l.starts_with("  ") && !l.starts_with("   ") && l.ends_with(':'))
        .map(|l| l.trim().trim_end_matches(':'))
        .collect();
    assert!(inputs.len() >= 15, "{inputs:?}");
    // Inputs the action's own steps use, not the recipe.
    let the_action_s = ["working-directory", "upload", "artifact-name"];
    for input in inputs.iter().filter(|i| !the_action_s.contains(i)) {
        let var = format!("RK_{}", input.to_uppercase().replace('-', "_"));
        assert!(
            action.contains(&format!("        {var}: ${{{{ inputs.{input} }}}}\n")),
            "action.yml passes no {var} for input {input}"
        );
        assert!(
            script.contains(&format!("#   {var} ")),
            "docs/ci/certify-reducer.sh documents no {var}"
        );
    }
    // The version the action installs by default is this one.
    assert!(
        action.contains(&format!(
            "  version:\n    description: \"The reducer-kit version to install\"\n    default: \"{}\"\n",
            env!("CARGO_PKG_VERSION")
        )),
        "action.yml's default version is not {}",
        env!("CARGO_PKG_VERSION")
    );
    assert!(script.contains(&format!(
        "RK_VERSION=${{RK_VERSION:-{}}}\n",
        env!("CARGO_PKG_VERSION")
    )));
}
