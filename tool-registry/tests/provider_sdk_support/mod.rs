//! The pinned Python provider SDKs in `target/mcp-peers/providers` (openai, google-genai 3.6.1;
//! `scripts/install-mcp-peers.sh`): their interpreter, and checking our Gemini JSON against
//! google-genai's own pydantic types.
#![allow(dead_code)]

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

/// The venv's Python, or `None` (saying the test skips) when it is not installed; with
/// `TOOL_SDK_REQUIRE_PEERS` set, a missing venv fails the test instead.
pub fn sdk_python() -> Option<PathBuf> {
    let python =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/mcp-peers/providers/bin/python");
    if python.is_file() {
        return Some(python);
    }
    assert!(
        std::env::var_os("TOOL_SDK_REQUIRE_PEERS").is_none(),
        "the providers venv is missing, and TOOL_SDK_REQUIRE_PEERS says the peers are installed"
    );
    eprintln!(
        "SKIPPED: the providers venv (target/mcp-peers/providers) is not installed; run scripts/install-mcp-peers.sh to run this check"
    );
    None
}

/// Validates `value` as `google.genai.types.<type_name>` (camelCase keys, unknown fields
/// refused: the SDK's models forbid extras); `Err` holds pydantic's message.
pub fn validate(python: &Path, type_name: &str, value: &Value) -> Result<(), String> {
    let script = format!(
        "import json, sys\nfrom google.genai import types\ntypes.{type_name}.model_validate(json.load(sys.stdin))\n"
    );
    let mut child = Command::new(python)
        .args(["-c", &script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(value.to_string().as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    if output.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).into_owned())
    }
}
