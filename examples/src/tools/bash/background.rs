//! Commands Bash started with `run_in_background`, kept by the host so TaskStop can stop
//! them (the reference's background shells, `bash_1`, `bash_2`, ...).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::task::JoinHandle;

use super::process::{GroupGuard, shell_command};

/// The background shells of a session. The host puts one into the tool context's host state
/// (`Extensions::new().with(BackgroundShells::default())`); Bash registers runs in it and
/// TaskStop stops them. Dropping it kills every run still going.
#[derive(Debug, Default)]
pub struct BackgroundShells {
    next: AtomicU64,
    shells: Mutex<BTreeMap<String, Shell>>,
}

struct Shell {
    command: String,
    guard: Arc<GroupGuard>,
    waiter: JoinHandle<()>,
    exit: Arc<Mutex<Option<i32>>>,
}

impl std::fmt::Debug for Shell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shell")
            .field("command", &self.command)
            .finish_non_exhaustive()
    }
}

/// Why a background shell could not be stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopError {
    /// No shell has this id.
    Unknown(String),
    /// The shell already ended with this exit code.
    Finished {
        /// The shell's id.
        id: String,
        /// Its exit code.
        exit_code: i32,
    },
}

impl BackgroundShells {
    /// Starts `command` in `cwd` (its own process group, output discarded) and returns its id.
    ///
    /// # Errors
    /// The I/O error of spawning `bash`.
    pub fn spawn(&self, command: &str, cwd: &Path) -> std::io::Result<String> {
        let mut shell = shell_command(command, cwd);
        shell
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        let mut child = shell.spawn()?;
        let guard = Arc::new(GroupGuard::new(&child));
        let exit = Arc::new(Mutex::new(None));
        let recorded = Arc::clone(&exit);
        let waiter = tokio::spawn(async move {
            if let Ok(status) = child.wait().await {
                use std::os::unix::process::ExitStatusExt;
                let code = status
                    .code()
                    .or_else(|| status.signal().map(|signal| 128 + signal))
                    .unwrap_or(-1);
                *recorded.lock().unwrap_or_else(PoisonError::into_inner) = Some(code);
            }
        });
        let id = format!("bash_{}", self.next.fetch_add(1, Ordering::Relaxed) + 1);
        self.lock().insert(
            id.clone(),
            Shell {
                command: command.to_owned(),
                guard,
                waiter,
                exit,
            },
        );
        Ok(id)
    }

    /// Kills the process group of shell `id` and forgets it; returns the command it ran.
    ///
    /// # Errors
    /// [`StopError::Unknown`] for an id never given out (or already stopped),
    /// [`StopError::Finished`] when the command had ended on its own.
    pub async fn stop(&self, id: &str) -> Result<String, StopError> {
        let shell = self
            .lock()
            .remove(id)
            .ok_or_else(|| StopError::Unknown(id.to_owned()))?;
        if let Some(exit_code) = *shell.exit.lock().unwrap_or_else(PoisonError::into_inner) {
            return Err(StopError::Finished {
                id: id.to_owned(),
                exit_code,
            });
        }
        shell.guard.kill();
        let _ = shell.waiter.await;
        Ok(shell.command)
    }

    /// Kills every run still going (its whole process group) at once, without waiting: for a
    /// host about to exit without dropping this (as `std::process::exit` does).
    pub fn kill_all(&self) {
        for shell in self.lock().values() {
            shell.guard.kill();
        }
    }

    /// The ids of the shells started and not stopped, in order.
    pub fn ids(&self) -> Vec<String> {
        self.lock().keys().cloned().collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Shell>> {
        self.shells.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
