//! Atomic file writes: a temporary file in the target's folder, renamed
//! into place, so a reader sees the old file or the new one, never a part,
//! and a failed write leaves nothing behind. New files get the usual
//! permissions (0666 less the umask), not a temporary file's 0600.

use std::io::Write;
use std::path::Path;

/// A temporary file in `dir` whose permissions are those of a file created
/// normally (`0666` less the umask on Unix), not the private `0600` of a
/// temporary file.
fn temp_in(dir: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    let mut b = tempfile::Builder::new();
    b.prefix(".tmp-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        b.permissions(std::fs::Permissions::from_mode(0o666));
    }
    b.tempfile_in(dir)
}

/// Writes `bytes` to `path` atomically: a temporary file in the same folder,
/// renamed over `path`, with the permissions `path` had. A reader sees the
/// old file or the new one, never a part.
///
/// # Errors
///
/// Any I/O error (the temporary file is then removed).
pub fn replace(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp = temp_in(dir)?;
    if let Ok(m) = std::fs::metadata(path) {
        tmp.as_file().set_permissions(m.permissions())?;
    }
    tmp.write_all(bytes)?;
    tmp.flush()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Writes `bytes` to `dir/name` atomically, creating `dir`, but never over
/// an existing file: `Ok(false)` when `dir/name` already exists.
///
/// # Errors
///
/// Any I/O error creating the folder or writing the file.
pub fn create_new(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<bool> {
    std::fs::create_dir_all(dir)?;
    let target = dir.join(name);
    if target.exists() {
        return Ok(false);
    }
    let mut tmp = temp_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.flush()?;
    match tmp.persist_noclobber(&target) {
        Ok(_) => Ok(true),
        Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(e.error),
    }
}
