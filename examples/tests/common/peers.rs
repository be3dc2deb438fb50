//! The pinned MCP peers (`target/mcp-peers`, installed by `scripts/install-mcp-peers.sh`) and
//! the MCP servers the tests start over HTTP.

use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// Where the pinned peers are installed.
pub fn peers() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/mcp-peers")
}

/// `relative` under the peers' directory, or `None` (saying SKIPPED) when it is missing; a
/// failure instead when `TOOL_SDK_REQUIRE_PEERS` is set (CI sets it after installing them,
/// so a test never passes there without its peer).
pub fn peer(relative: &str) -> Option<PathBuf> {
    let path = peers().join(relative);
    if path.exists() {
        Some(path)
    } else {
        assert!(
            std::env::var_os("TOOL_SDK_REQUIRE_PEERS").is_none(),
            "{} is missing, and TOOL_SDK_REQUIRE_PEERS says the peers are installed",
            path.display()
        );
        eprintln!(
            "SKIPPED: {} is missing; run scripts/install-mcp-peers.sh to install the pinned MCP peers",
            path.display()
        );
        None
    }
}

/// A server child process, killed when dropped.
pub struct Server {
    /// The server process.
    pub child: Child,
    /// The endpoint's URL, as the server printed it.
    pub url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `binary args...` and reads the `listening on URL` line it prints first.
pub fn start_http(binary: &str, args: &[&str]) -> Server {
    start_http_command(Command::new(binary).args(args))
}

/// Starts `command` (its arguments and environment set) and reads the `listening on URL`
/// line it prints first.
pub fn start_http_command(command: &mut Command) -> Server {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the server starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("piped stdout"))
        .read_line(&mut line)
        .expect("the server prints its address");
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line: {line:?}"))
        .to_owned();
    Server { child, url }
}
