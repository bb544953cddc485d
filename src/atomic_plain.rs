//! Without the feature `process` (WebAssembly): the parts of
//! `crate::atomic` the rest of the library calls, with plain file writes
//! (no temporary files, no recovery of interrupted changes).

use std::io::Write;
use std::path::Path;

/// The name of the folder of an interrupted change set, skipped when
/// listing cases.
pub const COMMIT_DIR: &str = ".reducer-kit-commit";

/// Writes `bytes` to `dir/name` unless it exists: `Ok(false)` when it does.
///
/// # Errors
///
/// Any I/O error creating the folder or writing the file.
pub fn create_new(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<bool> {
    create_new_with(dir, name, |out| out.write_all(bytes))
}

/// [`create_new`] of the bytes `write` writes (through a buffer).
///
/// # Errors
///
/// As [`create_new`], and those of `write`.
pub fn create_new_with(
    dir: &Path,
    name: &str,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<bool> {
    std::fs::create_dir_all(dir)?;
    let mut f = match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(dir.join(name))
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return Ok(false),
        Err(e) => return Err(e),
    };
    let mut out = std::io::BufWriter::new(&mut f);
    write(&mut out)?;
    out.flush()?;
    Ok(true)
}

/// Nothing to recover without the feature `process`: `Ok(None)`.
///
/// # Errors
///
/// None.
pub fn recover(_root: &Path) -> std::io::Result<Option<usize>> {
    Ok(None)
}
