//! What the file tools remember between calls, and how they write: [`ReadFileState`] records
//! which files the model has read (and their modification time then), so Write, Edit and
//! NotebookEdit refuse to overwrite a file the model has not seen or that changed since it
//! saw it; [`write_atomically`] replaces a file through a temporary file and a rename, so a
//! failed write never leaves a half-written file behind.

use std::collections::HashMap;
use std::fs::{self, File};
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use tool_sdk::ToolError;

/// The files read in this session, each with its modification time when it was last read or
/// written by a tool (the reference's `readFileState`).
///
/// Shared by every clone of a [`Workspace`](crate::workspace::Workspace), so a Read in one
/// turn lets an Edit in a later turn through.
#[derive(Debug, Default)]
pub struct ReadFileState {
    files: Mutex<HashMap<PathBuf, Option<SystemTime>>>,
}

impl ReadFileState {
    /// Records that `path` (resolved, absolute) was read or written now; its current
    /// modification time is what later writes compare against.
    pub fn record(&self, path: &Path) {
        let modified = fs::metadata(path).and_then(|m| m.modified()).ok();
        self.lock().insert(path.to_path_buf(), modified);
    }

    /// Whether `path` was read in this session.
    pub fn was_read(&self, path: &Path) -> bool {
        self.lock().contains_key(path)
    }

    /// Records every regular file under `root` as read now: for replaying one turn of a
    /// recorded session out of its context, where the reads happened in earlier turns.
    pub fn record_tree(&self, root: &Path) {
        let walker = ignore::WalkBuilder::new(root)
            .standard_filters(false)
            .build();
        for entry in walker.flatten() {
            if entry.file_type().is_some_and(|kind| kind.is_file()) {
                self.record(entry.path());
            }
        }
    }

    /// Checks that an existing file at `path` may be overwritten: it was read in this session
    /// and has not changed since. A missing file always may be written.
    ///
    /// # Errors
    /// A [`ToolError`] naming the file and saying to read it (again) first.
    pub fn check_writable(&self, path: &Path) -> Result<(), ToolError> {
        let current = match fs::metadata(path) {
            Ok(metadata) if metadata.is_file() => metadata.modified().ok(),
            _ => return Ok(()),
        };
        match self.lock().get(path) {
            None => Err(ToolError::new(format!(
                "{} has not been read in this session. Read it with the Read tool first, \
                 then write it.",
                path.display()
            ))),
            Some(seen) if *seen != current => Err(ToolError::new(format!(
                "{} has changed since it was last read (by the user or another program). \
                 Read it again before writing it.",
                path.display()
            ))),
            Some(_) => Ok(()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, Option<SystemTime>>> {
        // A panic while holding the lock cannot leave the map half-updated (one insert).
        self.files
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Replaces (or creates) `path` with `content`: writes a temporary file in the same
/// directory, flushes it to disk, keeps the old file's permissions and owner (the owner where
/// the process may set it), then renames it over `path`. Readers see the old content or the
/// new, never a part. A new file gets mode `0o666` less the umask, as `open(2)` gives it. When
/// `path` is a symbolic link, the file it leads to is replaced and the link is kept (callers
/// check that the target lies where they allow writes, as [`crate::workspace::Workspace::resolve`]
/// does).
///
/// # Errors
/// The I/O error of any step; the temporary file is removed and `path` is untouched.
pub fn write_atomically(path: &Path, content: &[u8]) -> io::Result<()> {
    write_atomically_with(path, |file| file.write_all(content))
}

/// [`write_atomically`] with the content written by `fill`: if `fill` fails, the temporary
/// file is removed and `path` keeps its old content.
///
/// # Errors
/// The error of `fill`, or of creating, syncing or renaming the temporary file.
pub fn write_atomically_with(
    path: &Path,
    fill: impl FnOnce(&mut File) -> io::Result<()>,
) -> io::Result<()> {
    use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
    let is_link = fs::symlink_metadata(path).is_ok_and(|meta| meta.file_type().is_symlink());
    let target = if is_link {
        fs::canonicalize(path)?
    } else {
        path.to_path_buf()
    };
    let parent = target
        .parent()
        .filter(|parent| !parent.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let old = fs::metadata(&target).ok();
    let mut temporary = tempfile::Builder::new()
        .prefix(".tool-write-")
        // Passed to open(2), which applies the umask: a new file's usual mode.
        .permissions(fs::Permissions::from_mode(0o666))
        .tempfile_in(parent)?;
    fill(temporary.as_file_mut())?;
    if let Some(old) = &old {
        // Another owner can only be kept by a privileged process; the content matters more.
        let _ = std::os::unix::fs::fchown(temporary.as_file(), Some(old.uid()), Some(old.gid()));
        temporary.as_file().set_permissions(old.permissions())?;
    }
    temporary.as_file().sync_all()?;
    temporary.persist(&target).map_err(|error| error.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        fs::write(&path, "old content").unwrap();
        let error = write_atomically_with(&path, |file| {
            file.write_all(b"new con")?;
            Err(io::Error::other("disk full"))
        })
        .unwrap_err();
        assert_eq!(error.to_string(), "disk full");
        assert_eq!(fs::read_to_string(&path).unwrap(), "old content");
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(names, ["f.txt"]);
    }

    #[test]
    fn a_write_replaces_the_file_and_keeps_its_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("script.sh");
        fs::write(&path, "old").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o750)).unwrap();
        write_atomically(&path, b"new").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o750);
    }

    #[test]
    fn a_new_file_gets_the_usual_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let reference = dir.path().join("reference.txt");
        fs::write(&reference, "x").unwrap();
        let path = dir.path().join("new.txt");
        write_atomically(&path, b"new").unwrap();
        let mode = |path: &Path| fs::metadata(path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), mode(&reference));
    }

    #[test]
    fn a_write_through_a_symlink_replaces_its_target_and_keeps_the_link() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("real")).unwrap();
        let target = dir.path().join("real/a.txt");
        fs::write(&target, "old").unwrap();
        let link = dir.path().join("link.txt");
        std::os::unix::fs::symlink("real/a.txt", &link).unwrap();
        write_atomically(&link, b"new").unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read_to_string(&target).unwrap(), "new");
        let names: Vec<_> = fs::read_dir(dir.path().join("real"))
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(names, ["a.txt"]);
    }

    #[test]
    fn writes_need_a_read_and_an_unchanged_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        let state = ReadFileState::default();
        assert!(state.check_writable(&path).is_ok(), "a new file");
        fs::write(&path, "x").unwrap();
        let error = state.check_writable(&path).unwrap_err();
        assert!(error.message().contains("has not been read"), "{error:?}");
        state.record(&path);
        assert!(state.check_writable(&path).is_ok());
        crate::tools::fixture::set_mtime(&path, 1_000_000);
        let error = state.check_writable(&path).unwrap_err();
        assert!(error.message().contains("has changed since"), "{error:?}");
    }
}
