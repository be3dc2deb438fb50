//! Driving a real terminal: a tmux server of the test's own (its own socket), one detached
//! session running the command under test, killed when dropped.
#![allow(dead_code)] // each test binary uses part of it

use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// Whether tmux is installed; when not, prints that the test is skipped and why
/// (`.ci/run` installs it).
pub fn installed() -> bool {
    let found = Command::new("tmux").arg("-V").output().is_ok();
    if !found {
        eprintln!(
            "SKIPPED: tmux is not installed (apt-get install -y tmux), so no terminal was driven"
        );
    }
    found
}

/// A tmux server with one session, `pane`, killed with everything in it when dropped.
pub struct Tmux {
    socket: String,
    pane: String,
}

impl Tmux {
    /// Starts `command` (a shell command line) in a detached session named `pane`, `columns`
    /// × `rows` characters, on a tmux server named `socket` plus this process's id.
    ///
    /// # Panics
    /// When tmux cannot start the session (its stderr is in the message).
    pub fn start(socket: &str, pane: &str, (columns, rows): (u16, u16), command: &str) -> Self {
        let tmux = Self {
            socket: format!("{socket}-{}", std::process::id()),
            pane: pane.to_owned(),
        };
        let (columns, rows) = (columns.to_string(), rows.to_string());
        let started = tmux.run(&[
            "new-session",
            "-d",
            "-s",
            pane,
            "-x",
            &columns,
            "-y",
            &rows,
            command,
        ]);
        assert!(
            started.status.success(),
            "{}",
            String::from_utf8_lossy(&started.stderr)
        );
        tmux
    }

    /// Runs `tmux ARGS` against this server.
    pub fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("tmux runs")
    }

    /// The pane's visible text.
    pub fn screen(&self) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-p", "-t", &self.pane]).stdout)
            .into_owned()
    }

    /// Types `keys` (tmux key names such as `Enter` and `C-c`, or literal text).
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", &self.pane];
        args.extend_from_slice(keys);
        assert!(self.run(&args).status.success());
    }

    /// Polls the pane every 50 ms until `done` holds for its text, and returns that text.
    ///
    /// # Panics
    /// After 20 s, naming `what` and showing the screen.
    pub fn wait_for(&self, what: &str, done: impl Fn(&str) -> bool) -> String {
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(20) {
            let screen = self.screen();
            if done(&screen) {
                return screen;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("{what} never showed:\n{}", self.screen());
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}
