//! Running one shell command: `bash -c` in its own process group, output collected with both
//! ends kept, the whole group killed on timeout, on cancellation or when the call is dropped.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::{Child, Command};

/// The most output a result carries, in chars, per stream and for the joined text.
pub const MAX_OUTPUT_CHARS: usize = 30_000;
/// Bytes kept from each end of a stream while it is read (the middle is counted, not kept).
const KEPT_BYTES_PER_END: usize = 4 * MAX_OUTPUT_CHARS;

/// How a command ended.
#[derive(Debug)]
pub enum Ending {
    /// It exited with this code (128 + N for a signal N, as shells report it).
    Exited(i32),
    /// It ran longer than the timeout and its process group was killed.
    TimedOut(Duration),
    /// The call was cancelled and its process group was killed.
    Cancelled,
}

/// What a finished command printed and how it ended.
#[derive(Debug)]
pub struct Finished {
    /// Standard output, as kept while reading.
    pub stdout: Output,
    /// Standard error, as kept while reading.
    pub stderr: Output,
    /// How it ended.
    pub ending: Ending,
}

/// Kills a process group when dropped (unless disarmed), so a dropped call leaves no process
/// behind, grandchildren included.
pub struct GroupGuard {
    pgid: Option<rustix::process::Pid>,
}

impl GroupGuard {
    /// Guards the process group led by `child` (spawned with `process_group(0)`).
    pub fn new(child: &Child) -> Self {
        let pgid = child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .and_then(rustix::process::Pid::from_raw);
        Self { pgid }
    }

    /// Stops guarding: to call once the leader was reaped and the group killed, since the
    /// pgid may then be reused by an unrelated process group.
    pub fn disarm(&mut self) {
        self.pgid = None;
    }

    /// Sends SIGKILL to every process of the group now.
    pub fn kill(&self) {
        if let Some(pgid) = self.pgid {
            // ESRCH (the group is gone already) is the expected outcome after a normal exit.
            let _ = rustix::process::kill_process_group(pgid, rustix::process::Signal::KILL);
        }
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The `bash -c COMMAND` command in `cwd`, in a new process group, stdin closed.
pub fn shell_command(command: &str, cwd: &Path) -> Command {
    let mut shell = Command::new("bash");
    shell
        .arg("-c")
        .arg(command)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    shell
}

/// Runs `command` in `cwd` until it exits, `timeout` passes or `cancel` fires; every
/// second it calls `progress` with the time elapsed.
///
/// # Errors
/// The I/O error of spawning `bash`.
pub async fn run(
    command: &str,
    cwd: &Path,
    timeout: Duration,
    cancel: &tool_sdk::CancellationToken,
    mut progress: impl FnMut(Duration),
) -> std::io::Result<Finished> {
    let started = Instant::now();
    let mut child = shell_command(command, cwd).spawn()?;
    let mut guard = GroupGuard::new(&child);
    let stdout_capture = SharedCapture::default();
    let stderr_capture = SharedCapture::default();
    let stdout_reader = child
        .stdout
        .take()
        .map(|pipe| tokio::spawn(collect(pipe, stdout_capture.clone())));
    let stderr_reader = child
        .stderr
        .take()
        .map(|pipe| tokio::spawn(collect(pipe, stderr_capture.clone())));
    let deadline = tokio::time::sleep(timeout);
    tokio::pin!(deadline);
    let mut ticker = tokio::time::interval(Duration::from_secs(1));
    ticker.tick().await;
    let ending = loop {
        tokio::select! {
            status = child.wait() => {
                let status = status?;
                break Ending::Exited(exit_code(status));
            }
            () = &mut deadline => {
                guard.kill();
                let _ = child.wait().await;
                break Ending::TimedOut(timeout);
            }
            () = cancel.cancelled() => {
                guard.kill();
                let _ = child.wait().await;
                break Ending::Cancelled;
            }
            _ = ticker.tick() => progress(started.elapsed()),
        }
    };
    // Background children of the command may hold the pipes open: kill the rest of the group
    // so reading ends. The leader is reaped, so its pgid may be reused once the group is
    // empty: this is the last kill, and the guard is disarmed right after it.
    guard.kill();
    guard.disarm();
    // A child that left the group (`setsid cmd &`) may keep the pipes open for ever: read
    // what is there for a short while, then stop reading.
    for reader in [stdout_reader, stderr_reader].into_iter().flatten() {
        let abort = reader.abort_handle();
        if tokio::time::timeout(READ_GRACE, reader).await.is_err() {
            abort.abort();
        }
    }
    Ok(Finished {
        stdout: stdout_capture.take().into_output(),
        stderr: stderr_capture.take().into_output(),
        ending,
    })
}

/// Room left for the truncation marker line in a capped text.
const MARKER_CHARS: usize = 64;

/// How long output is still read after the command exited and its group was killed.
const READ_GRACE: Duration = Duration::from_millis(300);

/// A [`Capture`] that a reader task fills while the caller may stop it at any time.
#[derive(Clone, Default)]
struct SharedCapture(std::sync::Arc<std::sync::Mutex<Capture>>);

impl SharedCapture {
    fn push(&self, bytes: &[u8]) {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(bytes);
    }

    fn take(&self) -> Capture {
        std::mem::take(
            &mut *self
                .0
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        )
    }
}

/// The exit code of `status`: its code, or 128 + the signal that ended it.
fn exit_code(status: std::process::ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    status
        .code()
        .or_else(|| status.signal().map(|signal| 128 + signal))
        .unwrap_or(-1)
}

/// The start and the end of a stream, with the number of bytes between them dropped.
#[derive(Debug, Default)]
pub struct Capture {
    head: Vec<u8>,
    tail: std::collections::VecDeque<u8>,
    dropped: usize,
}

impl Capture {
    /// Adds `bytes` read from the stream.
    pub fn push(&mut self, mut bytes: &[u8]) {
        let room = KEPT_BYTES_PER_END.saturating_sub(self.head.len());
        let into_head = room.min(bytes.len());
        self.head.extend_from_slice(&bytes[..into_head]);
        bytes = &bytes[into_head..];
        self.tail.extend(bytes);
        let excess = self.tail.len().saturating_sub(KEPT_BYTES_PER_END);
        self.tail.drain(..excess);
        self.dropped += excess;
    }

    /// The kept text, lossily decoded, with the count of bytes read but not kept.
    pub fn into_output(self) -> Output {
        let mut text = String::from_utf8_lossy(&self.head).into_owned();
        let head_len = text.len();
        let tail: Vec<u8> = self.tail.into_iter().collect();
        text.push_str(&String::from_utf8_lossy(&tail));
        Output {
            text,
            head_len,
            unseen: self.dropped,
        }
    }
}

/// The output of one stream: its first and last bytes (lossily decoded), and how many bytes
/// between them were read but not kept. Each kept end is far longer than a result shows, so
/// the unkept middle never reaches the shown part of a capped text.
#[derive(Debug, Default)]
pub struct Output {
    /// The kept head and tail, joined without a gap.
    pub text: String,
    /// Where the tail starts in `text`, in bytes.
    head_len: usize,
    /// Bytes read between the head and the tail and not kept.
    pub unseen: usize,
}

impl Output {
    /// The stream alone, capped to [`MAX_OUTPUT_CHARS`] keeping both ends, its marker counting
    /// the unkept middle too.
    pub fn capped(&self) -> String {
        if self.unseen == 0 {
            return cap_both_ends(&self.text);
        }
        let (head, tail) = self.text.split_at(self.head_len);
        join_ends(head, tail, self.unseen)
    }
}

/// `text` (which had `unseen` more chars in its middle) capped once to [`MAX_OUTPUT_CHARS`]
/// keeping both ends, the marker giving the true number of chars left out.
pub fn cap_joined(text: &str, unseen: usize) -> String {
    if unseen == 0 {
        return cap_both_ends(text);
    }
    let chars = text.chars().count();
    let keep = ((MAX_OUTPUT_CHARS - MARKER_CHARS) / 2).min(chars / 2);
    let shown_head: String = text.chars().take(keep).collect();
    let shown_tail: String = text.chars().skip(chars - keep).collect();
    let dropped = chars - 2 * keep + unseen;
    format!("{shown_head}\n\n... [{dropped} characters truncated] ...\n\n{shown_tail}")
}

async fn collect(mut reader: impl AsyncRead + Unpin, capture: SharedCapture) {
    let mut buffer = vec![0; 64 * 1024];
    while let Ok(read) = reader.read(&mut buffer).await {
        if read == 0 {
            break;
        }
        capture.push(&buffer[..read]);
    }
}

/// `text` if it has at most [`MAX_OUTPUT_CHARS`] chars; otherwise its first and last chars
/// around `\n\n... [N characters truncated] ...\n\n`, at most [`MAX_OUTPUT_CHARS`] in all.
pub fn cap_both_ends(text: &str) -> String {
    if text.chars().count() <= MAX_OUTPUT_CHARS {
        return text.to_owned();
    }
    join_ends(text, text, 0)
}

/// The first chars of `head` and the last of `tail` around the truncation marker, at most
/// [`MAX_OUTPUT_CHARS`] chars in all; `unseen` bytes between the two were never kept and
/// count as dropped characters (`head` and `tail` are the same text when nothing was unseen).
fn join_ends(head: &str, tail: &str, unseen: usize) -> String {
    let keep = (MAX_OUTPUT_CHARS - MARKER_CHARS) / 2;
    let head_chars = head.chars().count();
    let tail_chars = tail.chars().count();
    let shown_head: String = head.chars().take(keep).collect();
    let shown_tail: String = tail.chars().skip(tail_chars.saturating_sub(keep)).collect();
    let dropped = if unseen == 0 {
        head_chars - shown_head.chars().count() - shown_tail.chars().count()
    } else {
        head_chars - shown_head.chars().count() + unseen + tail_chars - shown_tail.chars().count()
    };
    format!("{shown_head}\n\n... [{dropped} characters truncated] ...\n\n{shown_tail}")
}
