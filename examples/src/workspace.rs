//! The path sandbox every file tool goes through: [`Workspace`] keeps tools inside one
//! directory tree, the way Claude Code keeps its file tools inside the working directory.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use tool_sdk::{ToolError, ToolUseContext};

use crate::file_state::ReadFileState;

/// The directory the file tools may read and write, and the check that keeps them there.
///
/// The host stores one in the context's host state
/// (`Extensions::new().with(Workspace::new(dir)?)`); each tool fetches it with
/// [`Workspace::from_context`] and passes every path the model sends through
/// [`Workspace::resolve`].
///
/// The check is made when the path is resolved, and again on the file actually opened for
/// reading ([`Workspace::open_file`]: a symbolic link swapped in between is caught on Linux,
/// where the opened file's real path is read back). Writes replace files through a temporary
/// file beside the target and are checked at resolution only.
///
/// It also holds the session's [`ReadFileState`], shared by its clones: the files read so
/// far, which Write, Edit and NotebookEdit require before they overwrite a file.
///
/// ```
/// # fn main() -> std::io::Result<()> {
/// use tool_examples::workspace::Workspace;
///
/// let dir = tempfile::tempdir()?;
/// let workspace = Workspace::new(dir.path())?;
/// let file = workspace.resolve("src/../notes.txt").unwrap();
/// assert_eq!(file, workspace.root().join("notes.txt"));
///
/// let error = workspace.resolve("/etc/passwd").unwrap_err();
/// assert!(error.message().starts_with("Path /etc/passwd is outside the workspace root"));
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct Workspace {
    root: PathBuf,
    reads: Arc<ReadFileState>,
}

/// Two workspaces are equal when they have the same root (whatever they have read).
impl PartialEq for Workspace {
    fn eq(&self, other: &Self) -> bool {
        self.root == other.root
    }
}

impl Eq for Workspace {}

impl Workspace {
    /// A workspace rooted at `root`, which is canonicalized (symbolic links resolved, made
    /// absolute).
    ///
    /// # Errors
    /// The error of [`std::fs::canonicalize`] when `root` does not exist, or
    /// [`io::ErrorKind::NotADirectory`] when it is not a directory.
    pub fn new(root: impl AsRef<Path>) -> io::Result<Self> {
        let root = std::fs::canonicalize(root)?;
        if !root.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::NotADirectory,
                format!("workspace root {} is not a directory", root.display()),
            ));
        }
        Ok(Self {
            root,
            reads: Arc::default(),
        })
    }

    /// The canonical root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The files read in this session (shared by every clone of this workspace).
    pub fn reads(&self) -> &ReadFileState {
        &self.reads
    }

    /// The workspace the host put into `ctx`'s host state.
    ///
    /// # Errors
    /// A [`ToolError`] saying the host did not configure a workspace root.
    pub fn from_context(ctx: &ToolUseContext) -> Result<&Self, ToolError> {
        ctx.get::<Self>().ok_or_else(|| {
            ToolError::new(
                "No workspace root is configured: the host did not put a Workspace into the \
                 tool context, so file tools cannot access any path.",
            )
        })
    }

    /// The absolute path that `path` names, after checking that it stays inside the root.
    ///
    /// A relative `path` is taken relative to the root; an absolute one must lie inside it.
    /// `.` and `..` are resolved lexically, so the returned path never contains them and the
    /// operating system never interprets a `..` after a symbolic link. The longest prefix of
    /// the result that exists is then canonicalized, so a symbolic link that leads outside the
    /// root is refused too; a path that does not exist yet (a file about to be written) is
    /// checked through its nearest existing ancestor.
    ///
    /// The result is the root joined with the normalized relative path, as paths are shown to
    /// the model; it is the canonical form only when `path` reached the root through another
    /// name (an absolute path through a symbolic link to the root).
    ///
    /// # Errors
    /// A [`ToolError`] naming `path` and the root when the path leaves the root, or when an
    /// ancestor is a symbolic link that cannot be resolved.
    pub fn resolve(&self, path: &str) -> Result<PathBuf, ToolError> {
        let requested = Path::new(path);
        let normalized = normalize(&self.root.join(requested));
        let real = self.real_path(path, &normalized)?;
        if !real.starts_with(&self.root) {
            return Err(self.outside_error(path, &normalized, &real));
        }
        if normalized.starts_with(&self.root) {
            Ok(normalized)
        } else {
            Ok(real)
        }
    }

    /// Opens the regular file at `path` (a path [`Workspace::resolve`] returned) for reading,
    /// without ever blocking on it, and checks the file that was opened.
    ///
    /// The open does not wait for a writer (a FIFO) or a device; the opened file must be a
    /// regular file; and on Linux its real path (read back from `/proc/self/fd`) must still be
    /// under the root, so a symbolic link swapped into the path after it was resolved is
    /// refused rather than followed.
    ///
    /// # Errors
    /// A [`ToolError`] naming `path`: the I/O error of the open, "is not a regular file" with
    /// its kind (FIFO, socket, character or block device), or "is outside the workspace root"
    /// with the real path.
    pub fn open_file(&self, path: &Path) -> Result<File, ToolError> {
        let file = OpenOptions::new()
            .read(true)
            .custom_flags(open_flags())
            .open(path)
            .map_err(|error| {
                ToolError::new(format!("Could not read {}: {error}", path.display()))
            })?;
        let metadata = file.metadata().map_err(|error| {
            ToolError::new(format!("Could not read {}: {error}", path.display()))
        })?;
        if let Some(kind) = special_file_kind(&metadata.file_type()) {
            return Err(not_a_regular_file(path, kind));
        }
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            let link = format!("/proc/self/fd/{}", file.as_raw_fd());
            if let Ok(real) = std::fs::read_link(link)
                && !real.starts_with(&self.root)
            {
                return Err(ToolError::new(format!(
                    "Path {} was replaced while it was being opened and now leads to {}, which \
                     is outside the workspace root {}; only files under the root can be \
                     accessed.",
                    path.display(),
                    real.display(),
                    self.root.display()
                )));
            }
        }
        Ok(file)
    }

    /// `normalized` with its longest existing ancestor canonicalized.
    fn real_path(&self, path: &str, normalized: &Path) -> Result<PathBuf, ToolError> {
        let Some(existing) = normalized
            .ancestors()
            .find(|ancestor| ancestor.symlink_metadata().is_ok())
        else {
            return Ok(normalized.to_path_buf());
        };
        let canonical = std::fs::canonicalize(existing).map_err(|error| {
            let target = std::fs::read_link(existing)
                .map(|target| format!(" (a symbolic link to {})", target.display()))
                .unwrap_or_default();
            ToolError::new(format!(
                "Path {path} cannot be checked against the workspace root {}: {}{target} \
                 cannot be resolved ({error}); only files under the root can be accessed.",
                self.root.display(),
                existing.display(),
            ))
        })?;
        let tail = normalized.strip_prefix(existing).unwrap_or(Path::new(""));
        Ok(if tail.as_os_str().is_empty() {
            canonical
        } else {
            canonical.join(tail)
        })
    }

    fn outside_error(&self, path: &str, normalized: &Path, real: &Path) -> ToolError {
        let root = self.root.display();
        if normalized.starts_with(&self.root) {
            return ToolError::new(format!(
                "Path {path} resolves through a symbolic link to {}, which is outside the \
                 workspace root {root}; only files under the root can be accessed.",
                real.display()
            ));
        }
        let resolved = if Path::new(path) == normalized {
            String::new()
        } else {
            format!(" (resolved to {})", normalized.display())
        };
        ToolError::new(format!(
            "Path {path}{resolved} is outside the workspace root {root}; only files under the \
             root can be accessed."
        ))
    }
}

/// `O_NONBLOCK | O_NOCTTY`: opening a FIFO or a terminal never waits and never takes it over.
fn open_flags() -> i32 {
    let flags = rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOCTTY;
    i32::try_from(flags.bits()).unwrap_or(0)
}

/// What a file that is neither a regular file nor a directory is, for error messages; `None`
/// for regular files, directories and symbolic links.
pub fn special_file_kind(file_type: &std::fs::FileType) -> Option<&'static str> {
    if file_type.is_fifo() {
        Some("a FIFO (named pipe)")
    } else if file_type.is_socket() {
        Some("a socket")
    } else if file_type.is_char_device() {
        Some("a character device")
    } else if file_type.is_block_device() {
        Some("a block device")
    } else {
        None
    }
}

/// "PATH is not a regular file but KIND; ...", shared by every file tool.
pub fn not_a_regular_file(path: &Path, kind: &str) -> ToolError {
    ToolError::new(format!(
        "{} is not a regular file but {kind}; the file tools read and write regular files only.",
        path.display()
    ))
}

/// `path` (absolute) with `.` and `..` removed lexically; `..` at the filesystem root stays
/// there, as the operating system does.
fn normalize(path: &Path) -> PathBuf {
    let mut normalized = PathBuf::new();
    for component in path.components() {
        match component {
            Component::Prefix(_) | Component::RootDir | Component::Normal(_) => {
                normalized.push(component.as_os_str());
            }
            Component::CurDir => {}
            Component::ParentDir => {
                normalized.pop();
            }
        }
    }
    normalized
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::os::unix::fs::symlink;

    use tempfile::TempDir;

    use super::*;

    fn workspace() -> (TempDir, Workspace) {
        let dir = TempDir::new().unwrap();
        let workspace = Workspace::new(dir.path()).unwrap();
        (dir, workspace)
    }

    #[test]
    fn relative_paths_are_joined_to_the_root() {
        let (_dir, ws) = workspace();
        assert_eq!(ws.resolve("a/b.txt").unwrap(), ws.root().join("a/b.txt"));
        assert_eq!(ws.resolve("./a/../b.txt").unwrap(), ws.root().join("b.txt"));
        assert_eq!(ws.resolve("").unwrap(), ws.root());
        assert_eq!(ws.resolve(".").unwrap(), ws.root());
    }

    #[test]
    fn absolute_paths_inside_the_root_are_kept() {
        let (_dir, ws) = workspace();
        let inside = ws.root().join("x/y.rs");
        assert_eq!(ws.resolve(inside.to_str().unwrap()).unwrap(), inside);
    }

    #[test]
    fn absolute_paths_outside_the_root_are_refused() {
        let (_dir, ws) = workspace();
        let error = ws.resolve("/etc/passwd").unwrap_err();
        assert_eq!(
            error.message(),
            format!(
                "Path /etc/passwd is outside the workspace root {}; only files under the root \
                 can be accessed.",
                ws.root().display()
            )
        );
    }

    #[test]
    fn dot_dot_that_leaves_the_root_is_refused() {
        let (_dir, ws) = workspace();
        let parent = ws.root().parent().unwrap();
        let error = ws.resolve("sub/../../secret.txt").unwrap_err();
        assert_eq!(
            error.message(),
            format!(
                "Path sub/../../secret.txt (resolved to {}) is outside the workspace root {}; \
                 only files under the root can be accessed.",
                parent.join("secret.txt").display(),
                ws.root().display()
            )
        );
    }

    #[test]
    fn a_sibling_with_the_root_as_name_prefix_is_outside() {
        let (_dir, ws) = workspace();
        let sibling = format!("{}-other/file", ws.root().display());
        assert!(ws.resolve(&sibling).is_err());
    }

    #[test]
    fn symlinks_leading_outside_are_refused_even_for_new_files() {
        let (_dir, ws) = workspace();
        let outside = TempDir::new().unwrap();
        let outside_root = fs::canonicalize(outside.path()).unwrap();
        symlink(&outside_root, ws.root().join("escape")).unwrap();
        for path in ["escape", "escape/existing.txt", "escape/new/dir/file.txt"] {
            let error = ws.resolve(path).unwrap_err();
            assert!(
                error.message().starts_with(&format!(
                    "Path {path} resolves through a symbolic link to {}",
                    outside_root.display()
                )),
                "{}",
                error.message()
            );
        }
    }

    #[test]
    fn symlinks_inside_the_root_are_allowed_and_keep_their_name() {
        let (_dir, ws) = workspace();
        fs::create_dir(ws.root().join("real")).unwrap();
        symlink(ws.root().join("real"), ws.root().join("alias")).unwrap();
        assert_eq!(
            ws.resolve("alias/f.txt").unwrap(),
            ws.root().join("alias/f.txt")
        );
    }

    #[test]
    fn a_dangling_symlink_is_refused() {
        let (_dir, ws) = workspace();
        symlink("/nonexistent/target", ws.root().join("dangling")).unwrap();
        let error = ws.resolve("dangling").unwrap_err();
        assert!(
            error
                .message()
                .contains("dangling (a symbolic link to /nonexistent/target) cannot be resolved"),
            "{}",
            error.message()
        );
    }

    #[test]
    fn the_root_must_be_a_directory() {
        let (dir, _ws) = workspace();
        let file = dir.path().join("f");
        fs::write(&file, "").unwrap();
        let error = Workspace::new(&file).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::NotADirectory);
    }

    #[test]
    fn a_context_without_workspace_is_an_error() {
        let ctx = ToolUseContext::detached("toolu_1");
        let error = Workspace::from_context(&ctx).unwrap_err();
        assert!(error.message().contains("host did not put a Workspace"));
    }
}
