//! The file tools stay inside their workspace root on real files: `..` and absolute paths,
//! symbolic links to files and directories (also one swapped in while calls run), hard links,
//! `/proc` and device files, FIFOs (no call waits on one), sockets, very long paths, non-UTF-8
//! names, huge and binary files. Each case is refused with a clear error or handled, and no
//! byte outside the root is read or written.

use std::fs;
use std::os::unix::fs::{FileTypeExt, symlink};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tempfile::TempDir;
use tool_examples::workspace::Workspace;
use tool_registry::ToolPermissionContext;
use tool_registry::permissions::PermissionMode;
use tool_registry::{Orchestrator, OrchestratorConfig, TurnState};
use tool_sdk::{Extensions, ToolUseBlock};

const SECRET: &str = "outside-secret-7f3a";

struct Fixture {
    root: TempDir,
    outside: TempDir,
    orchestrator: Orchestrator,
    turn: TurnState,
}

impl Fixture {
    fn new() -> Self {
        let root = TempDir::new().unwrap();
        let outside = TempDir::new().unwrap();
        fs::write(outside.path().join("secret.txt"), format!("{SECRET}\n")).unwrap();
        let workspace = Workspace::new(root.path()).unwrap();
        let orchestrator =
            Orchestrator::new(&tool_examples::tools::all(), OrchestratorConfig::default())
                .with_permissions(ToolPermissionContext::new(
                    PermissionMode::BypassPermissions,
                ));
        let turn = TurnState {
            extensions: Extensions::new().with(workspace),
            ..TurnState::default()
        };
        Self {
            root,
            outside,
            orchestrator,
            turn,
        }
    }

    fn root(&self) -> std::path::PathBuf {
        fs::canonicalize(self.root.path()).unwrap()
    }

    fn outside(&self) -> std::path::PathBuf {
        fs::canonicalize(self.outside.path()).unwrap()
    }

    /// Runs one call, bounded by 20 s (a call that hangs fails the test): its text and
    /// whether it is an error.
    async fn call(&self, tool: &str, input: Value) -> (String, bool) {
        let block = ToolUseBlock {
            id: "toolu_1".to_owned(),
            name: tool.to_owned(),
            input,
        };
        let outcome = tokio::time::timeout(
            Duration::from_secs(20),
            self.orchestrator
                .run_tool_use(self.orchestrator.prepare(block), &self.turn, None),
        )
        .await
        .unwrap_or_else(|_| panic!("{tool} hung"));
        (outcome.result.content.text(), outcome.result.is_error)
    }

    async fn refused(&self, tool: &str, input: Value, expected: &str) {
        let (text, is_error) = self.call(tool, input.clone()).await;
        assert!(is_error, "{tool} {input} was not refused: {text}");
        assert!(text.contains(expected), "{tool} {input}: {text}");
        assert!(!text.contains(SECRET), "{tool} {input} leaked: {text}");
    }

    fn secret_untouched(&self) {
        assert_eq!(
            fs::read_to_string(self.outside().join("secret.txt")).unwrap(),
            format!("{SECRET}\n")
        );
        let names: Vec<_> = fs::read_dir(self.outside())
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(
            names,
            ["secret.txt"],
            "nothing was created outside the root"
        );
    }
}

const OUTSIDE: &str = "outside the workspace root";

#[tokio::test]
async fn dot_dot_and_absolute_paths_are_refused_by_every_file_tool() {
    let fx = Fixture::new();
    let secret = fx.outside().join("secret.txt");
    let escape = format!(
        "../{}/secret.txt",
        fx.outside().file_name().unwrap().to_str().unwrap()
    );
    for path in [
        secret.to_str().unwrap(),
        escape.as_str(),
        "/etc/passwd",
        "a/../../x",
    ] {
        fx.refused("Read", json!({"file_path": path}), OUTSIDE)
            .await;
        fx.refused("Write", json!({"file_path": path, "content": "x"}), OUTSIDE)
            .await;
        fx.refused(
            "Edit",
            json!({"file_path": path, "old_string": SECRET, "new_string": "y"}),
            OUTSIDE,
        )
        .await;
        fx.refused("Grep", json!({"pattern": "secret", "path": path}), OUTSIDE)
            .await;
        fx.refused("Glob", json!({"pattern": "*", "path": path}), OUTSIDE)
            .await;
    }
    fx.refused(
        "NotebookEdit",
        json!({"notebook_path": "../n.ipynb", "new_source": "x"}),
        OUTSIDE,
    )
    .await;
    fx.secret_untouched();
}

#[tokio::test]
async fn symlinks_to_outside_files_and_directories_are_refused() {
    let fx = Fixture::new();
    symlink(fx.outside().join("secret.txt"), fx.root().join("file-link")).unwrap();
    symlink(fx.outside(), fx.root().join("dir-link")).unwrap();
    for path in ["file-link", "dir-link/secret.txt", "dir-link/new.txt"] {
        fx.refused("Read", json!({"file_path": path}), "symbolic link")
            .await;
        fx.refused(
            "Write",
            json!({"file_path": path, "content": "x"}),
            "symbolic link",
        )
        .await;
        fx.refused(
            "Edit",
            json!({"file_path": path, "old_string": "", "new_string": "y"}),
            "symbolic link",
        )
        .await;
    }
    fx.refused(
        "Grep",
        json!({"pattern": "secret", "path": "dir-link"}),
        "symbolic link",
    )
    .await;
    fx.refused(
        "Glob",
        json!({"pattern": "*", "path": "dir-link"}),
        "symbolic link",
    )
    .await;
    // Searching the root does not follow the links out of it.
    let (text, _) = fx
        .call("Grep", json!({"pattern": SECRET, "output_mode": "content"}))
        .await;
    assert!(!text.contains(SECRET), "{text}");
    let (text, _) = fx.call("Glob", json!({"pattern": "**/secret.txt"})).await;
    assert!(!text.contains("secret.txt"), "{text}");
    fx.secret_untouched();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_symlink_swapped_in_while_reads_run_never_leaks_the_outside_file() {
    let fx = Fixture::new();
    let dir = fx.root().join("swap");
    let parked = fx.root().join("parked");
    fs::create_dir(&dir).unwrap();
    fs::write(dir.join("secret.txt"), "inside\n").unwrap();
    let link = fx.root().join("link");
    symlink(fx.outside(), &link).unwrap();
    // A thread keeps swapping `swap` between the real directory and the outside link.
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let (dir, parked, link, stop) = (dir.clone(), parked.clone(), link.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut swaps = 0u32;
            while !stop.load(Ordering::Relaxed) {
                // Mostly the real directory, now and then the link.
                std::thread::sleep(Duration::from_micros(300));
                if fs::rename(&dir, &parked).is_ok() && fs::rename(&link, &dir).is_ok() {
                    std::thread::yield_now();
                    let _ = fs::rename(&dir, &link);
                    let _ = fs::rename(&parked, &dir);
                    swaps += 1;
                }
            }
            swaps
        })
    };
    let mut answers = [0u32; 2];
    for _ in 0..400 {
        let (text, is_error) = fx
            .call("Read", json!({"file_path": "swap/secret.txt"}))
            .await;
        assert!(
            !text.contains(SECRET),
            "the swapped-in link was followed: {text}"
        );
        answers[usize::from(is_error)] += 1;
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = swapper.join().unwrap();
    assert!(swaps > 0, "the swapper never ran");
    assert!(answers[0] > 0, "no read succeeded: {answers:?}");
    fx.secret_untouched();
}

#[tokio::test]
async fn a_hard_link_to_an_outside_file_is_read_but_an_edit_never_writes_through_it() {
    let fx = Fixture::new();
    let inside = fx.root().join("hard.txt");
    if fs::hard_link(fx.outside().join("secret.txt"), &inside).is_err() {
        eprintln!("SKIPPED: the temporary directories are on different filesystems");
        return;
    }
    // The link is a file under the root, so it is readable: the content was already shared
    // by whoever made the link.
    let (text, is_error) = fx.call("Read", json!({"file_path": "hard.txt"})).await;
    assert!(!is_error && text.contains(SECRET), "{text}");
    // Writes replace the file under the root (a new inode); the outside file keeps its bytes.
    let (text, is_error) = fx
        .call(
            "Edit",
            json!({"file_path": "hard.txt", "old_string": SECRET, "new_string": "changed"}),
        )
        .await;
    assert!(!is_error, "{text}");
    assert_eq!(fs::read_to_string(&inside).unwrap(), "changed\n");
    fx.secret_untouched();
}

#[tokio::test]
async fn proc_and_device_files_are_refused() {
    let fx = Fixture::new();
    for path in [
        "/proc/self/environ",
        "/proc/self/root/etc/passwd",
        "/dev/zero",
        "/dev/urandom",
    ] {
        fx.refused("Read", json!({"file_path": path}), OUTSIDE)
            .await;
    }
    symlink("/proc/self/root", fx.root().join("proc-root")).unwrap();
    symlink("/dev/zero", fx.root().join("zero")).unwrap();
    fx.refused(
        "Read",
        json!({"file_path": "proc-root/etc/passwd"}),
        "symbolic link",
    )
    .await;
    fx.refused("Read", json!({"file_path": "zero"}), "symbolic link")
        .await;
    // A device node under the root (needs the privilege to make one).
    let made = std::process::Command::new("mknod")
        .arg(fx.root().join("null-device"))
        .args(["c", "1", "3"])
        .status()
        .is_ok_and(|status| status.success());
    if made {
        fx.refused(
            "Read",
            json!({"file_path": "null-device"}),
            "not a regular file but a character device",
        )
        .await;
    } else {
        eprintln!("SKIPPED the device-node case: mknod is not permitted here");
    }
    // A socket under the root.
    let _socket = std::os::unix::net::UnixListener::bind(fx.root().join("socket")).unwrap();
    fx.refused(
        "Read",
        json!({"file_path": "socket"}),
        "not a regular file but a socket",
    )
    .await;
}

#[tokio::test]
async fn a_fifo_never_makes_a_call_wait() {
    let fx = Fixture::new();
    let fifo = fx.root().join("pipe");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    let kind = "not a regular file but a FIFO";
    fx.refused("Read", json!({"file_path": "pipe"}), kind).await;
    fx.refused(
        "Read",
        json!({"file_path": "pipe", "offset": 1, "limit": 5}),
        kind,
    )
    .await;
    // Never opened for writing, never replaced.
    fx.refused(
        "Edit",
        json!({"file_path": "pipe", "old_string": "a", "new_string": "b"}),
        kind,
    )
    .await;
    fx.refused("Write", json!({"file_path": "pipe", "content": "x"}), kind)
        .await;
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    // Searches pass it by (each call is bounded by `call`'s timeout).
    fs::write(fx.root().join("a.txt"), "needle\n").unwrap();
    let (text, is_error) = fx.call("Grep", json!({"pattern": "needle"})).await;
    assert!(!is_error && text.contains("a.txt"), "{text}");
    let (text, is_error) = fx.call("Glob", json!({"pattern": "*"})).await;
    assert!(!is_error, "{text}");
}

#[tokio::test]
async fn very_long_paths_get_a_clear_error() {
    let fx = Fixture::new();
    let long_name = "n".repeat(300);
    let deep = "d/".repeat(3000) + "f.txt";
    for path in [long_name.as_str(), deep.as_str()] {
        let (text, is_error) = fx
            .call("Write", json!({"file_path": path, "content": "x"}))
            .await;
        assert!(is_error, "{text}");
        assert!(
            text.contains("File name too long") || text.contains("Could not"),
            "{}",
            &text[..200.min(text.len())]
        );
        let (text, is_error) = fx.call("Read", json!({"file_path": path})).await;
        assert!(is_error, "{text}");
    }
}

#[tokio::test]
async fn non_utf8_names_are_listed_and_searched_without_failing() {
    use std::os::unix::ffi::OsStrExt;
    let fx = Fixture::new();
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.txt");
    fs::write(fx.root().join(name), "needle\n").unwrap();
    let (text, is_error) = fx.call("Glob", json!({"pattern": "*.txt"})).await;
    assert!(!is_error && text.contains("caf"), "{text}");
    let (text, is_error) = fx.call("Grep", json!({"pattern": "needle"})).await;
    assert!(!is_error && text.contains("caf"), "{text}");
    // The lossy name the model sees does not name the file: a clear "does not exist".
    let (text, is_error) = fx
        .call("Read", json!({"file_path": "caf\u{fffd}.txt"}))
        .await;
    assert!(is_error && text.contains("does not exist"), "{text}");
}

#[tokio::test]
async fn huge_and_binary_files_are_refused_or_read_in_part() {
    let fx = Fixture::new();
    let big = fx.root().join("big.txt");
    fs::write(&big, "line\n".repeat(100_000)).unwrap();
    let (text, is_error) = fx.call("Read", json!({"file_path": "big.txt"})).await;
    assert!(
        is_error && text.contains("exceeds maximum allowed size"),
        "{text}"
    );
    let (text, is_error) = fx
        .call(
            "Read",
            json!({"file_path": "big.txt", "offset": 99_999, "limit": 2}),
        )
        .await;
    assert!(!is_error && text.contains(" 99999\u{2192}line"), "{text}");
    // A sparse 16 GiB file: refused at once as too large, or as binary when a window is asked.
    let sparse = fs::File::create(fx.root().join("sparse.bin")).unwrap();
    sparse.set_len(16 << 30).unwrap();
    fx.refused(
        "Read",
        json!({"file_path": "sparse.bin"}),
        "exceeds maximum allowed size",
    )
    .await;
    fx.refused(
        "Read",
        json!({"file_path": "sparse.bin", "offset": 1, "limit": 3}),
        "binary file",
    )
    .await;
    fs::write(
        fx.root().join("image.png"),
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR",
    )
    .unwrap();
    fx.refused("Read", json!({"file_path": "image.png"}), "binary file")
        .await;
    fs::write(fx.root().join("latin1.txt"), b"caf\xe9\n").unwrap();
    let (_, is_error) = fx.call("Read", json!({"file_path": "latin1.txt"})).await;
    assert!(!is_error);
    fx.refused(
        "Edit",
        json!({"file_path": "latin1.txt", "old_string": "caf", "new_string": "tea"}),
        "not UTF-8 text",
    )
    .await;
    assert!(Path::new(&fx.root().join("latin1.txt")).exists());
}
