//! How a counterexample leaves the run: its case file (`--save-failures`,
//! or beside the JSON report when it is too large to copy; spec §9, §9.1)
//! and what a report may copy of it ([`COPY_LIMIT`]).

use super::Counterexample;
use crate::case::file::file_name;
use crate::case::{save_new_with, Case};
use crate::protocol::Response;
use crate::terms::Policy;
use serde_json::Value;
use std::path::Path;

/// Bytes of compact JSON text over which a counterexample's input or
/// answer is not copied into the JSON report (spec §9.1): 1 MiB.
pub const COPY_LIMIT: u64 = 1 << 20;

/// The sizes of a counterexample too large to copy ([`Counterexample::too_large`]):
/// what the JSON report gives in place of its messages (spec §9.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sizes {
    /// The input's messages.
    pub messages: usize,
    /// The input's bytes, as compact JSON text of its canonical messages.
    pub bytes: u64,
    /// The messages of the reference's answer (0 for an error answer).
    pub expected_messages: usize,
    /// The messages of the reducer's answer, `None` when it gave no
    /// answer with messages.
    pub actual_messages: Option<usize>,
}

impl Counterexample {
    /// The sizes of this counterexample when its input, or the reducer's
    /// answer, is over [`COPY_LIMIT`] bytes of compact JSON text; `None`
    /// when both are within it (the report copies them). Counting writes
    /// no text.
    pub fn too_large(&self) -> Option<Sizes> {
        let bytes = crate::json::json_len(&*self.case.messages);
        let actual = match &self.actual {
            Some(Response::Messages(m)) => Some(m),
            _ => None,
        };
        let actual_large = actual.is_some_and(|m| crate::json::json_len(m) > COPY_LIMIT);
        (bytes > COPY_LIMIT || actual_large).then(|| Sizes {
            messages: self.case.messages.len(),
            bytes,
            expected_messages: match &self.expected {
                Response::Messages(m) => m.len(),
                _ => 0,
            },
            actual_messages: actual.map(Vec::len),
        })
    }
}

impl Counterexample {
    /// The case file [`Counterexample::save`] writes, without its
    /// messages (its id and expectation read from them):
    /// [`Counterexample::to_case`] with what the run saw
    /// ([`crate::case::SavedRun`], spec §13.4), the run's format and flags
    /// and the reducer's answer in that format (`null` when it gave none).
    /// The messages are streamed from the counterexample around it, so
    /// that saving a large case does not copy it.
    fn to_saved_case_head(&self, policy: Policy, run: SavedFrom<'_>) -> Case {
        let mut case = self.to_case_head(policy);
        case.run = Some(crate::case::SavedRun {
            format: run.format.to_string(),
            flags: run.flags.to_string(),
            answer: self.actual.as_ref().map_or(Value::Null, |r| {
                crate::protocol::response_json(run.format, r)
            }),
        });
        case
    }

    /// Saves the counterexample's case file
    /// (its case, [`Counterexample::to_case`] with what the run saw, under
    /// `policy`, from `run`) in
    /// `dir`, named by its content-hash id, atomically
    /// and never over an existing file (an existing one is the same case),
    /// and records where in [`Counterexample::saved_to`].
    ///
    /// # Errors
    ///
    /// Any I/O error creating `dir` or writing the file.
    pub fn save(&mut self, dir: &Path, policy: Policy, run: SavedFrom<'_>) -> std::io::Result<()> {
        let case = self.to_saved_case_head(policy, run);
        let file = file_name(&case.id);
        save_new_with(dir, &file, &case, &self.case.messages)?;
        self.saved_to = Some(dir.join(file));
        Ok(())
    }
}

/// The run counterexamples are saved from (`--save-failures`): its wire
/// format and its flags as one command line
/// ([`crate::certify::settings::Settings::flag_line`]).
#[derive(Clone, Copy, Debug)]
pub struct SavedFrom<'a> {
    /// The run's wire format.
    pub format: crate::formats::Format,
    /// The run's flags.
    pub flags: &'a str,
}

/// Saves every counterexample of a run in `dir` (`--save-failures`): one
/// case file per minimal case, as [`Counterexample::save`] writes it, but
/// when several clauses shrink to the same case its one file names them
/// all, in `clauses` and in the description (in the order of `cxs`). Sets
/// each one's [`Counterexample::saved_to`].
///
/// # Errors
///
/// Any I/O error creating `dir` or writing a file.
pub fn save_all(
    cxs: &mut [Counterexample],
    dir: &Path,
    policy: Policy,
    run: SavedFrom<'_>,
) -> std::io::Result<()> {
    save_where(cxs, dir, policy, run, |_| false)
}

/// Saves, as [`save_all`] does, the counterexamples of a run that are
/// [`Counterexample::too_large`] to copy into its JSON report and were not
/// saved yet (no `--save-failures`), in `dir`: the report names each by
/// its `savedTo` (spec §9.1), so that none is lost. Nothing is written
/// (and `dir` is not made) when there is none.
///
/// # Errors
///
/// Any I/O error creating `dir` or writing a file.
pub fn save_too_large(
    cxs: &mut [Counterexample],
    dir: &Path,
    policy: Policy,
    run: SavedFrom<'_>,
) -> std::io::Result<()> {
    save_where(cxs, dir, policy, run, |c| {
        c.saved_to.is_some() || c.too_large().is_none()
    })
}

/// [`save_all`] of the counterexamples `skip` does not leave out.
fn save_where(
    cxs: &mut [Counterexample],
    dir: &Path,
    policy: Policy,
    run: SavedFrom<'_>,
    skip: impl Fn(&Counterexample) -> bool,
) -> std::io::Result<()> {
    let mut done: Vec<bool> = cxs.iter().map(skip).collect();
    for i in 0..cxs.len() {
        if done[i] {
            continue;
        }
        let group: Vec<usize> = (i..cxs.len())
            .filter(|&k| !done[k] && cxs[k].case.id == cxs[i].case.id)
            .collect();
        let mut case = cxs[i].to_saved_case_head(policy, run);
        if group.len() > 1 {
            case.clauses = group
                .iter()
                .map(|&k| cxs[k].clause.id().to_string())
                .collect();
            case.description = group
                .iter()
                .map(|&k| cxs[k].head(policy).0.description)
                .collect::<Vec<_>>()
                .join("; ");
        }
        let file = file_name(&case.id);
        save_new_with(dir, &file, &case, &cxs[i].case.messages)?;
        for k in group {
            done[k] = true;
            cxs[k].saved_to = Some(dir.join(&file));
        }
    }
    Ok(())
}
