//! Atomic file writes: a temporary file in the target's folder, renamed
//! into place, so a reader sees the old file or the new one, never a part,
//! and a failed write leaves nothing behind. New files get the usual
//! permissions (0666 less the umask), not a temporary file's 0600.
//!
//! A writer killed midway (SIGKILL) leaves its temporary file behind; the
//! next write of the kit in that folder removes it ([`clean_stale`], run
//! once per folder per process before the first write there), and only
//! such files: their name says they are the kit's and which process wrote
//! them (`.reducer-kit-tmp-<pid>-<6 characters>`), and their writer must be
//! gone.
//!
//! **Changes of a whole folder** ([`Changes`], spec §8.11): several
//! files written and removed below one folder as one change, so that a
//! writer killed at any moment leaves the folder as it was or as it is
//! after the change, never between. The new files are staged in a
//! temporary folder inside it with a plan; renaming that folder to
//! [`COMMIT_DIR`] is the commit; the plan is then carried out, and a
//! commit found later (the writer killed while carrying it out) is
//! carried out by the next reader ([`recover`]).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The start of the name of every temporary file the kit writes.
pub const TEMP_PREFIX: &str = ".reducer-kit-tmp-";

/// The folder a committed [`Changes`] is carried out from, in the folder
/// it changes; gone once carried out.
pub const COMMIT_DIR: &str = ".reducer-kit-commit";

/// How old a temporary file must be before [`clean_stale`] removes it even
/// though its writer's pid is in use (the pid may have been reused).
pub const STALE_AGE: Duration = Duration::from_secs(3600);

/// A temporary file in `dir` whose permissions are those of a file created
/// normally (`0666` less the umask on Unix), not the private `0600` of a
/// temporary file.
fn temp_in(dir: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    clean_stale_once(dir);
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
    create_new_with(dir, name, |out| out.write_all(bytes))
}

/// [`create_new`] of the bytes `write` writes (through a buffer), so that
/// a large file need not be held as one text first; an error of `write`
/// leaves nothing at `dir/name`.
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
    let target = dir.join(name);
    if target.exists() {
        return Ok(false);
    }
    let mut tmp = temp_in(dir)?;
    {
        let mut out = std::io::BufWriter::new(tmp.as_file_mut());
        write(&mut out)?;
        out.flush()?;
    }
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

/// When the process `pid` started (Linux: `/proc/<pid>/stat` and the boot
/// time of `/proc/stat`); `None` where that cannot be read.
fn started(pid: u32) -> Option<SystemTime> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command name (which may hold spaces), from the
    // third: the start time is the 22nd.
    let fields = &stat[stat.rfind(')')? + 1..];
    let ticks: u64 = fields.split_whitespace().nth(19)?.parse().ok()?;
    let boot: u64 = std::fs::read_to_string("/proc/stat")
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix("btime "))?
        .trim()
        .parse()
        .ok()?;
    // SAFETY: sysconf reads a configuration value.
    let hz = u64::try_from(unsafe { libc::sysconf(libc::_SC_CLK_TCK) }).ok()?;
    (hz > 0).then(|| {
        SystemTime::UNIX_EPOCH
            + Duration::from_secs(boot)
            + Duration::from_millis(ticks.saturating_mul(1000) / hz)
    })
}

/// Whether the writer `pid` of a temporary file last changed at `modified`
/// is gone: no process has the pid, or the one that has it started after
/// the file was last written (the pid was reused; a second of slack for
/// the boot time's rounding).
fn writer_gone(pid: u32, modified: Option<SystemTime>) -> bool {
    if !running(pid) {
        return true;
    }
    match (started(pid), modified) {
        (Some(start), Some(m)) => start > m + Duration::from_secs(1),
        _ => false,
    }
}

/// Removes the stale temporary files the kit left in `dir` (not below it):
/// regular files (and the folders [`Changes`] stages in) named as the kit
/// names them (see the module doc) whose writer is gone (no process has
/// its pid, or the one that has it started after the file was written), or
/// that are older than [`STALE_AGE`] (also the older `.tmp-XXXXXX` names,
/// which carry no pid). Nothing else is touched; symbolic links never.
/// Returns what was removed, in name order.
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
        // Not followed: a symbolic link is neither.
        let meta = entry.metadata()?;
        if !meta.is_file() && !meta.is_dir() {
            continue;
        }
        let modified = meta.modified().ok();
        let old = modified
            .and_then(|m| SystemTime::now().duration_since(m).ok())
            .is_some_and(|age| age > STALE_AGE);
        let orphaned = writer.is_some_and(|pid| writer_gone(pid, modified));
        if old || orphaned {
            let gone = if meta.is_dir() {
                std::fs::remove_dir_all(entry.path())
            } else {
                std::fs::remove_file(entry.path())
            };
            match gone {
                Ok(()) => removed.push(entry.path()),
                // Removed meanwhile (by another run cleaning the folder).
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
    }
    Ok(removed)
}

/// [`clean_stale`] of `dir`, the first time this process writes there
/// (errors ignored: cleaning is best effort, the write goes on).
fn clean_stale_once(dir: &Path) {
    static CLEANED: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());
    let mut done = CLEANED.lock().unwrap_or_else(|e| e.into_inner());
    if done.iter().any(|d| d == dir) {
        return;
    }
    done.push(dir.to_path_buf());
    drop(done);
    let _ = clean_stale(dir);
}

/// Files written and removed below one folder as one change (see the
/// module doc): after [`Changes::commit`] returns, every change is made;
/// if the process is killed at any moment before, the folder is as it was,
/// or (after the commit point) the next [`recover`] of the folder makes
/// every change. Nothing of it is left behind either way: an uncommitted
/// staging folder is removed when the `Changes` is dropped, or, after a
/// kill, by the next [`clean_stale`] of the folder.
#[derive(Debug)]
pub struct Changes {
    root: PathBuf,
    staging: tempfile::TempDir,
    plan: String,
    staged: usize,
}

/// `path` relative to `root`, refused when it is not below it (or climbs
/// with `..`).
fn below(root: &Path, path: &Path) -> std::io::Result<PathBuf> {
    let rel = path.strip_prefix(root).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{} is not inside {}", path.display(), root.display()),
        )
    })?;
    safe_relative(rel)
}

/// `rel` when it is a relative path of plain names (no `..`, no root).
fn safe_relative(rel: &Path) -> std::io::Result<PathBuf> {
    use std::path::Component;
    let plain =
        !rel.as_os_str().is_empty() && rel.components().all(|c| matches!(c, Component::Normal(_)));
    if plain {
        Ok(rel.to_path_buf())
    } else {
        Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{} is not a path inside the folder", rel.display()),
        ))
    }
}

/// A path as hexadecimal bytes, for a plan line.
fn hex_path(rel: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    rel.as_os_str()
        .as_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The path a plan line's hexadecimal bytes spell.
fn path_of_hex(hex: &str) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    if hex.len() % 2 != 0 {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect();
    Some(PathBuf::from(std::ffi::OsStr::from_bytes(&bytes?)))
}

/// Flushes the file system that holds `file` to the disk (Linux
/// `syncfs`), or `file` alone where that is refused or there is no
/// `syncfs` (macOS).
fn sync_fs(file: &std::fs::File) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: syncfs on a descriptor this function borrows.
        if unsafe { libc::syncfs(file.as_raw_fd()) } == 0 {
            return Ok(());
        }
    }
    file.sync_all()
}

/// Flushes a folder's entries to the disk.
fn sync_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::File::open(dir)?.sync_all()
}

impl Changes {
    /// Starts a change of the files below `root`: its staging folder is
    /// made in `root` now (after [`clean_stale`] of `root`).
    ///
    /// # Errors
    ///
    /// The I/O error making the staging folder.
    pub fn new(root: &Path) -> std::io::Result<Changes> {
        clean_stale_once(root);
        let staging = tempfile::Builder::new()
            .prefix(&format!("{TEMP_PREFIX}{}-", std::process::id()))
            .rand_bytes(6)
            .tempdir_in(root)?;
        Ok(Changes {
            root: root.to_path_buf(),
            staging,
            plan: String::new(),
            staged: 0,
        })
    }

    /// Whether nothing is changed yet.
    pub fn is_empty(&self) -> bool {
        self.plan.is_empty()
    }

    /// Stages `bytes` as the new content of `path` (below the root; it
    /// keeps the permissions the file has now).
    ///
    /// # Errors
    ///
    /// A path not below the root; the I/O error staging it.
    pub fn write(&mut self, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
        let rel = below(&self.root, path)?;
        let n = self.staged;
        let staged = self.staging.path().join(n.to_string());
        // Created as any file is (0666 less the umask), then given the
        // permissions of the file it replaces.
        let mut file = std::fs::File::create(&staged)?;
        if let Ok(m) = std::fs::metadata(path) {
            file.set_permissions(m.permissions())?;
        }
        file.write_all(bytes)?;
        self.staged += 1;
        self.plan.push_str(&format!("w {n} {}\n", hex_path(&rel)));
        Ok(())
    }

    /// Removes `path` (below the root) with the change.
    ///
    /// # Errors
    ///
    /// A path not below the root.
    pub fn remove(&mut self, path: &Path) -> std::io::Result<()> {
        let rel = below(&self.root, path)?;
        self.plan.push_str(&format!("r {}\n", hex_path(&rel)));
        Ok(())
    }

    /// Makes every change: the plan is written, the staging folder renamed
    /// to [`COMMIT_DIR`] (the commit point: from here on the change is
    /// made, by this call or by the next [`recover`]), then carried out.
    /// Returns how many files were written or removed.
    ///
    /// # Errors
    ///
    /// The I/O error writing the plan or committing (nothing is changed
    /// then; a [`COMMIT_DIR`] already there is another change, not yet
    /// carried out), or carrying the change out (the next [`recover`]
    /// finishes it).
    pub fn commit(self) -> std::io::Result<usize> {
        if self.plan.is_empty() {
            return Ok(0);
        }
        let root = self.root.clone();
        self.commit_point()?;
        Ok(recover(&root)?.unwrap_or(0))
    }

    /// Writes the plan and renames the staging folder to [`COMMIT_DIR`]:
    /// what [`Changes::commit`] does before carrying the change out.
    fn commit_point(self) -> std::io::Result<()> {
        let plan = self.staging.path().join("plan");
        let mut file = std::fs::File::create(&plan)?;
        file.write_all(self.plan.as_bytes())?;
        // Everything staged on the disk before the commit point (one flush
        // of the file system rather than one per file).
        sync_fs(&file)?;
        sync_dir(self.staging.path())?;
        let commit = self.root.join(COMMIT_DIR);
        if commit.exists() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::AlreadyExists,
                format!(
                    "{} holds a change not yet carried out ({COMMIT_DIR}); run the command again",
                    self.root.display()
                ),
            ));
        }
        let staged = self.staging.keep();
        if let Err(e) = std::fs::rename(&staged, &commit) {
            let _ = std::fs::remove_dir_all(&staged);
            return Err(e);
        }
        sync_dir(&self.root)
    }
}

/// Carries out the change committed in `root` ([`Changes::commit`]) that
/// its writer did not finish (killed after the commit point): each staged
/// file still there is renamed over its target, each removal made, then
/// the commit folder removed. Idempotent: what was already done is skipped.
/// Returns how many files the plan names, or `None` when there is no
/// commit to carry out.
///
/// # Errors
///
/// The I/O error reading the plan or making a change (the commit stays, to
/// be carried out again); an unreadable plan line.
pub fn recover(root: &Path) -> std::io::Result<Option<usize>> {
    let commit = root.join(COMMIT_DIR);
    let plan = match std::fs::read_to_string(commit.join("plan")) {
        Ok(p) => p,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            // No commit, or one carried out but for removing its folder.
            return match std::fs::remove_dir_all(&commit) {
                Ok(()) => Ok(Some(0)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(e),
            };
        }
        Err(e) => return Err(e),
    };
    let bad = |line: &str| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "{}: not a plan line: {line:?}",
                commit.join("plan").display()
            ),
        )
    };
    let mut count = 0;
    for line in plan.lines() {
        let mut parts = line.split(' ');
        match (parts.next(), parts.next(), parts.next(), parts.next()) {
            (Some("w"), Some(n), Some(hex), None) => {
                let rel = path_of_hex(hex).ok_or_else(|| bad(line))?;
                let target = root.join(safe_relative(&rel)?);
                let n: usize = n.parse().map_err(|_| bad(line))?;
                carry_write(&commit.join(n.to_string()), &target)?;
            }
            (Some("r"), Some(hex), None, None) => {
                let rel = path_of_hex(hex).ok_or_else(|| bad(line))?;
                match std::fs::remove_file(root.join(safe_relative(&rel)?)) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
                    _ => {}
                }
            }
            _ => return Err(bad(line)),
        }
        count += 1;
    }
    // The plan last but for the folder: a commit folder without a plan is
    // one carried out.
    std::fs::remove_file(commit.join("plan"))?;
    match std::fs::remove_dir_all(&commit) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    sync_dir(root)?;
    Ok(Some(count))
}

/// Puts the staged file `staged` in place of `target`: renamed (a missing
/// staged file was renamed already), or, across file systems, copied
/// atomically ([`replace`]) and then removed.
fn carry_write(staged: &Path, target: &Path) -> std::io::Result<()> {
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent)?;
    }
    match std::fs::rename(staged, target) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) if e.raw_os_error() == Some(libc::EXDEV) => {
            replace(target, &std::fs::read(staged)?)?;
            std::fs::remove_file(staged)
        }
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The files below `dir`, with their contents, in path order.
    fn tree(dir: &Path) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else {
                    let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                    out.push((rel, std::fs::read_to_string(&p).unwrap()));
                }
            }
        }
        out.sort();
        out
    }

    #[test]
    fn changes_are_made_whole_or_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir(d.join("sub")).unwrap();
        for (name, text) in [("a.json", "a0"), ("sub/b.json", "b0"), ("c.json", "c0")] {
            std::fs::write(d.join(name), text).unwrap();
        }
        let before = tree(d);
        let stage = || {
            let mut c = Changes::new(d).unwrap();
            c.write(&d.join("a.json"), b"a1").unwrap();
            c.write(&d.join("sub/b.json"), b"b1").unwrap();
            c.remove(&d.join("c.json")).unwrap();
            c
        };
        let after = vec![
            ("a.json".to_string(), "a1".to_string()),
            ("sub/b.json".to_string(), "b1".to_string()),
        ];
        // Dropped before the commit: nothing changed, nothing left.
        drop(stage());
        assert_eq!(tree(d), before);
        // Killed after the commit point: the next recover makes the change.
        stage().commit_point().unwrap();
        assert!(d.join(COMMIT_DIR).is_dir());
        assert_eq!(recover(d).unwrap(), Some(3));
        assert_eq!(tree(d), after);
        assert_eq!(recover(d).unwrap(), None);
        // Killed in the middle of carrying it out: the rest is made.
        std::fs::write(d.join("c.json"), "c0").unwrap();
        std::fs::write(d.join("a.json"), "a0").unwrap();
        std::fs::write(d.join("sub/b.json"), "b0").unwrap();
        stage().commit_point().unwrap();
        std::fs::rename(d.join(COMMIT_DIR).join("0"), d.join("a.json")).unwrap();
        assert_eq!(recover(d).unwrap(), Some(3));
        assert_eq!(tree(d), after);
        // Whole.
        std::fs::write(d.join("c.json"), "c0").unwrap();
        assert_eq!(stage().commit().unwrap(), 3);
        assert_eq!(tree(d), after);
        let names: Vec<_> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
        // Outside the folder: refused.
        let mut c = Changes::new(&d.join("sub")).unwrap();
        assert_eq!(
            c.write(&d.join("a.json"), b"x").unwrap_err().kind(),
            std::io::ErrorKind::InvalidInput
        );
        assert!(c.is_empty());
    }

    #[test]
    fn the_first_write_in_a_folder_removes_what_a_killed_writer_left() {
        let dir = tempfile::tempdir().unwrap();
        let dead = dir.path().join(format!("{TEMP_PREFIX}{}-zzzzzz", i32::MAX));
        std::fs::write(&dead, "half a report").unwrap();
        replace(&dir.path().join("report.json"), b"{}").unwrap();
        assert!(!dead.exists());
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["report.json"]);
    }

    #[test]
    fn a_plan_cannot_reach_outside_its_folder() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        std::fs::create_dir_all(root.join(COMMIT_DIR)).unwrap();
        std::fs::write(dir.path().join("victim"), "keep").unwrap();
        std::fs::write(
            root.join(COMMIT_DIR).join("plan"),
            format!("r {}\n", hex_path(Path::new("../victim"))),
        )
        .unwrap();
        assert!(recover(&root).is_err());
        assert_eq!(
            std::fs::read_to_string(dir.path().join("victim")).unwrap(),
            "keep"
        );
    }

    #[test]
    fn a_staging_folder_of_a_dead_writer_is_stale() {
        let dir = tempfile::tempdir().unwrap();
        let live = Changes::new(dir.path()).unwrap();
        let dead = dir.path().join(format!("{TEMP_PREFIX}{}-abcdef", i32::MAX));
        std::fs::create_dir(&dead).unwrap();
        std::fs::write(dead.join("0"), "x").unwrap();
        assert_eq!(clean_stale(dir.path()).unwrap(), vec![dead]);
        assert!(live.staging.path().is_dir());
    }

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
