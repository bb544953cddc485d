//! Atomic file writes: a temporary file in the target's folder, renamed
//! into place, so a reader sees the old file or the new one, never a part,
//! and a failed write leaves nothing behind. New files get the usual
//! permissions (0666 less the umask), not a temporary file's 0600.
//!
//! A writer killed midway (SIGKILL) leaves its temporary file behind;
//! [`clean_stale`] removes such files, and only those: their name says
//! they are the kit's and which process wrote them
//! (`.reducer-kit-tmp-<pid>-<6 characters>`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The start of the name of every temporary file the kit writes.
pub const TEMP_PREFIX: &str = ".reducer-kit-tmp-";

/// How old a temporary file must be before [`clean_stale`] removes it even
/// though its writer's pid is in use (the pid may have been reused).
pub const STALE_AGE: Duration = Duration::from_secs(3600);

/// A temporary file in `dir` whose permissions are those of a file created
/// normally (`0666` less the umask on Unix), not the private `0600` of a
/// temporary file.
fn temp_in(dir: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    let mut b = tempfile::Builder::new();
    let prefix = format!("{TEMP_PREFIX}{}-", std::process::id());
    b.prefix(&prefix);
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
    replace_with(path, |out| out.write_all(bytes))
}

/// Writes what `write` writes to `path` atomically, as [`replace`] does
/// (through a buffer, so a large document need never be held whole).
///
/// # Errors
///
/// Any I/O error, `write`'s included (the temporary file is then removed).
pub fn replace_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp = temp_in(dir)?;
    if let Ok(m) = std::fs::metadata(path) {
        tmp.as_file().set_permissions(m.permissions())?;
    }
    {
        let mut out = std::io::BufWriter::new(tmp.as_file_mut());
        write(&mut out)?;
        out.flush()?;
    }
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

/// Whether `name` is the name of a temporary file of the kit, and the pid
/// of the process that wrote it: `.reducer-kit-tmp-<pid>-<6 letters or
/// digits>`, or `.tmp-<6 letters or digits>` (what earlier builds wrote;
/// no pid).
fn temp_writer(name: &str) -> Option<Option<u32>> {
    let random = |s: &str| s.len() == 6 && s.bytes().all(|b| b.is_ascii_alphanumeric());
    if let Some(rest) = name.strip_prefix(TEMP_PREFIX) {
        let (pid, tail) = rest.split_once('-')?;
        return (random(tail) && !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
            .then(|| pid.parse().ok());
    }
    name.strip_prefix(".tmp-")
        .filter(|r| random(r))
        .map(|_| None)
}

/// Whether a process with this pid exists.
fn running(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 checks for the process without sending anything.
    let rc = unsafe { libc::kill(pid, 0) };
    rc == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

/// Removes the stale temporary files the kit left in `dir` (not below it):
/// regular files named as the kit names them (see the module doc) whose
/// writer is no longer running, or that are older than [`STALE_AGE`] (also
/// the older `.tmp-XXXXXX` names, which carry no pid). Nothing else is
/// touched. Returns the files removed, in name order.
///
/// # Errors
///
/// The I/O error listing `dir` or removing a file.
pub fn clean_stale(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut removed = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name();
        let Some(writer) = name.to_str().and_then(temp_writer) else {
            continue;
        };
        let meta = entry.metadata()?;
        if !meta.is_file() {
            continue;
        }
        let old = meta
            .modified()
            .ok()
            .and_then(|m| SystemTime::now().duration_since(m).ok())
            .is_some_and(|age| age > STALE_AGE);
        let orphaned = writer.is_some_and(|pid| !running(pid));
        if old || orphaned {
            std::fs::remove_file(entry.path())?;
            removed.push(entry.path());
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporary_names_are_recognised_exactly() {
        assert_eq!(temp_writer(".reducer-kit-tmp-123-aB3xYz"), Some(Some(123)));
        assert_eq!(temp_writer(".tmp-aB3xYz"), Some(None));
        for other in [
            ".reducer-kit-tmp-123-aB3xY",
            ".reducer-kit-tmp--aB3xYz",
            ".reducer-kit-tmp-12a-aB3xYz",
            ".tmp-aB3xYz.json",
            ".tmp-aB3x",
            "tmp-aB3xYz",
            "case.json",
        ] {
            assert_eq!(temp_writer(other), None, "{other}");
        }
    }

    #[test]
    fn only_stale_temporary_files_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let write = |name: &str, age: Duration| {
            let p = d.join(name);
            std::fs::write(&p, b"").unwrap();
            let f = std::fs::File::options().write(true).open(&p).unwrap();
            f.set_modified(SystemTime::now() - age).unwrap();
        };
        let me = std::process::id();
        // A dead writer: i32::MAX is above any pid_max (at most 2^22).
        let dead = format!("{TEMP_PREFIX}{}-aaaaaa", i32::MAX);
        let live = format!("{TEMP_PREFIX}{me}-bbbbbb");
        let live_old = format!("{TEMP_PREFIX}{me}-cccccc");
        write(&dead, Duration::ZERO);
        write(&live, Duration::ZERO);
        write(&live_old, STALE_AGE + Duration::from_secs(60));
        write(".tmp-dddddd", STALE_AGE + Duration::from_secs(60));
        write(".tmp-eeeeee", Duration::ZERO);
        write("keep.json", STALE_AGE * 2);
        write(".tmp-notours.json", STALE_AGE * 2);
        let removed: Vec<String> = clean_stale(d)
            .unwrap()
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        let mut expected = vec![dead, live_old, ".tmp-dddddd".to_string()];
        expected.sort();
        assert_eq!(removed, expected);
        let mut left: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(
            left,
            [
                live.as_str(),
                ".tmp-eeeeee",
                ".tmp-notours.json",
                "keep.json"
            ]
        );
    }
}
