//! A real Redis for the shared-store tests: Debian's `redis-server`, started on a free
//! loopback port in a temporary directory, with the persistence a deployment uses
//! (`appendonly yes`, `appendfsync always`), killed when dropped.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Redis {
    child: Child,
    pub port: u16,
    dir: tempfile::TempDir,
}

/// The `redis-server` on the `PATH`, or `None` (the test says it skips; with
/// `TOOL_SDK_REQUIRE_PEERS` set, as CI does after installing it, it fails).
pub fn redis_server() -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join("redis-server"))
            .find(|candidate| candidate.is_file())
    });
    if found.is_none() {
        assert!(
            std::env::var_os("TOOL_SDK_REQUIRE_PEERS").is_none(),
            "redis-server is missing, and TOOL_SDK_REQUIRE_PEERS says the peers are installed"
        );
        eprintln!("SKIPPED: redis-server is not installed (Debian package redis-server)");
    }
    found
}

impl Redis {
    /// Starts a Redis; `None` when there is no `redis-server`.
    pub fn start() -> Option<Self> {
        let binary = redis_server()?;
        let dir = tempfile::tempdir().unwrap();
        let port = free_port();
        let child = spawn(&binary, dir.path(), port);
        let redis = Self { child, port, dir };
        redis.wait_ready();
        Some(redis)
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Kills Redis with SIGKILL (no chance to save) and starts it again on the same port
    /// and directory: what survives is what the append-only file holds.
    pub fn kill_and_restart(&mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        let binary = redis_server().unwrap();
        self.child = spawn(&binary, self.dir.path(), self.port);
        self.wait_ready();
    }

    fn wait_ready(&self) {
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(10) {
            if let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", self.port)) {
                use std::io::{Read as _, Write as _};
                let _ = stream.set_read_timeout(Some(Duration::from_secs(1)));
                let mut reply = [0u8; 7];
                if stream.write_all(b"PING\r\n").is_ok()
                    && stream.read_exact(&mut reply).is_ok()
                    && &reply == b"+PONG\r\n"
                {
                    return;
                }
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("redis-server did not answer PING on port {}", self.port);
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn spawn(binary: &Path, dir: &Path, port: u16) -> Child {
    Command::new(binary)
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args([
            "--save",
            "",
            "--appendonly",
            "yes",
            "--appendfsync",
            "always",
        ])
        .arg("--dir")
        .arg(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap()
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}
