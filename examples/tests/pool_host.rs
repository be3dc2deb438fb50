//! `tool-host pool` and `tool-host definitions --format ...` with the pool options, run as a
//! real child process over the example tools, JSON-defined tools and recorded MCP tool lists.

mod common;
use common::host;

use std::path::PathBuf;

use serde_json::{Value, json};

fn fixtures() -> Option<PathBuf> {
    let dir = common::fixtures_dir();
    if dir.is_dir() {
        Some(dir)
    } else {
        println!("SKIPPED: {} is absent", dir.display());
        None
    }
}

fn tools_file(dir: &tempfile::TempDir) -> String {
    let file = dir.path().join("tools.json");
    let definitions = json!([
        {"name": "Weather", "description": "Current weather for a city.",
         "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
         "read_only": true, "concurrency_safe": true, "should_defer": true},
        {"name": "Zap", "description": "Zaps things.",
         "input_schema": {"type": "object", "properties": {"env": {"type": "object", "additionalProperties": {"type": "string"}}}},
         "destructive": true}
    ]);
    std::fs::write(&file, definitions.to_string()).unwrap();
    file.to_string_lossy().into_owned()
}

fn rows(stdout: &str) -> Vec<Vec<&str>> {
    stdout
        .lines()
        .skip(1)
        .map(|line| line.split_whitespace().collect())
        .collect()
}

#[test]
fn pool_prints_built_ins_then_mcp_tools_with_flags_and_deferral() {
    let Some(fixtures) = fixtures() else { return };
    let dir = tempfile::tempdir().unwrap();
    let git = format!(
        "git={}",
        fixtures
            .join("mcp-tools-lists/mcp-server-git-2026.10.19.json")
            .display()
    );
    let (ok, stdout, stderr) = host(&[
        "pool",
        "--tools-json",
        &tools_file(&dir),
        "--mcp-tools-json",
        &git,
        "--deny",
        "Grep",
        "--deny",
        "mcp__git__git_reset",
        "--deny",
        "Zap(rm *)",
    ]);
    assert!(ok, "{stderr}");
    let rows = rows(&stdout);
    assert_eq!(
        rows[0],
        [
            "1",
            "Bash",
            "built-in",
            "per-input",
            "per-input",
            "default",
            "-"
        ]
    );
    assert_eq!(
        rows[7],
        [
            "8", "Weather", "built-in", "yes", "yes", "default", "deferred"
        ]
    );
    assert_eq!(
        rows[9],
        ["10", "Zap", "built-in", "default", "default", "yes", "-"]
    );
    assert_eq!(
        rows[10],
        [
            "11",
            "mcp__git__git_add",
            "mcp:git",
            "no",
            "no",
            "no",
            "deferred"
        ]
    );
    let names: Vec<&str> = rows
        .iter()
        .filter(|row| row.len() == 7)
        .map(|row| row[1])
        .collect();
    assert_eq!(
        names,
        [
            "Bash",
            "Edit",
            "Glob",
            "NotebookEdit",
            "Read",
            "TaskStop",
            "TodoWrite",
            "Weather",
            "Write",
            "Zap",
            "mcp__git__git_add",
            "mcp__git__git_branch",
            "mcp__git__git_checkout",
            "mcp__git__git_commit",
            "mcp__git__git_create_branch",
            "mcp__git__git_diff",
            "mcp__git__git_diff_staged",
            "mcp__git__git_diff_unstaged",
            "mcp__git__git_log",
            "mcp__git__git_show",
            "mcp__git__git_status",
        ]
    );
    assert_eq!(stdout.lines().last(), Some("21 tools: 10 built-in, 11 MCP"));
}

#[test]
fn simple_and_coordinator_modes_narrow_the_pool() {
    let (ok, stdout, _) = host(&["pool", "--simple"]);
    assert!(ok);
    assert_eq!(
        rows(&stdout)
            .iter()
            .filter(|row| row.len() == 7)
            .map(|row| row[1])
            .collect::<Vec<_>>(),
        ["Bash", "Edit", "Read"]
    );
    // Coordinator mode keeps only the coordinator's tools: here TaskStop.
    let (ok, stdout, _) = host(&["pool", "--coordinator"]);
    assert!(ok);
    assert_eq!(
        stdout
            .lines()
            .nth(1)
            .map(|line| line.split_whitespace().nth(1)),
        Some(Some("TaskStop"))
    );
    assert_eq!(stdout.lines().last(), Some("1 tools: 1 built-in, 0 MCP"));
}

#[test]
fn bad_rules_and_files_are_refused_with_every_problem() {
    let (ok, _, stderr) = host(&["pool", "--deny", "bash(", "--allow", "Read()"]);
    assert!(!ok);
    assert_eq!(
        stderr,
        "tool-host: bad permission rules:\n  \
         --deny rule 0 `bash(`: 1 unescaped `(` but 0 unescaped `)`; balance them or escape literal ones as `\\(` and `\\)`\n  \
         --deny rule 0 `bash(`: tool names start with an uppercase letter (e.g. `Bash`, not `bash`)\n  \
         --allow rule 0 `Read()`: empty `()`; write the tool name alone (or `Tool(*)`) for a tool-wide rule\n"
    );
    let (ok, _, stderr) = host(&["pool", "--mcp-tools-json", "nofile.json"]);
    assert!(!ok);
    assert_eq!(
        stderr,
        "tool-host: --mcp-tools-json `nofile.json`: expected SERVER=FILE, such as github=tools.json\n"
    );
}

fn check_schema(label: &str, schema: &Value) {
    assert!(
        jsonschema::draft202012::meta::is_valid(schema),
        "{label}: {schema}"
    );
    assert_eq!(schema["type"], "object", "{label}");
    for key in ["$schema", "anyOf", "oneOf", "allOf"] {
        assert!(schema.get(key).is_none(), "{label}: root `{key}`");
    }
}

#[test]
fn every_format_exports_valid_schemas_for_the_example_tools() {
    let dir = tempfile::tempdir().unwrap();
    let tools = tools_file(&dir);
    for format in ["anthropic", "openai-chat", "openai-responses", "mcp"] {
        for strict in [false, true] {
            let mut args = vec!["definitions", "--format", format, "--tools-json", &tools];
            if strict {
                args.push("--strict");
            }
            let (ok, stdout, stderr) = host(&args);
            assert!(ok, "{stderr}");
            let definitions: Value = serde_json::from_str(&stdout).unwrap();
            let definitions = definitions.as_array().unwrap();
            assert_eq!(definitions.len(), 11, "{format}");
            for definition in definitions {
                let schema = match format {
                    "anthropic" => &definition["input_schema"],
                    "openai-chat" => &definition["function"]["parameters"],
                    "openai-responses" => &definition["parameters"],
                    _ => &definition["inputSchema"],
                };
                check_schema(&format!("{format} {definition}"), schema);
            }
            let openai = format.starts_with("openai");
            assert_eq!(
                stderr,
                if strict && openai {
                    "tool-host: warning: tool `Zap`: field `env` cannot be strict: it is a map (`additionalProperties` allows any key); drop `strict` for this tool or change the field; sent without strict mode\n"
                } else {
                    ""
                }
            );
            if format == "openai-chat" {
                let glob = definitions
                    .iter()
                    .find(|d| d["function"]["name"] == "Glob")
                    .unwrap();
                assert_eq!(glob["function"]["strict"], strict);
                if strict {
                    assert_eq!(
                        glob["function"]["parameters"]["required"],
                        json!(["pattern", "path"])
                    );
                    assert_eq!(
                        glob["function"]["parameters"]["properties"]["path"]["type"],
                        json!(["string", "null"])
                    );
                }
            }
            if format == "mcp" {
                let read = definitions.iter().find(|d| d["name"] == "Read").unwrap();
                assert_eq!(
                    read["annotations"],
                    json!({"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": true})
                );
            }
        }
    }
}

#[test]
fn unknown_formats_are_refused() {
    let (ok, _, stderr) = host(&["definitions", "--format", "cohere"]);
    assert!(!ok);
    assert!(
        stderr.contains(
            "unknown format `cohere`; use anthropic, openai-chat, openai-responses, gemini, gemini-openapi or mcp"
        ),
        "{stderr}"
    );
}
