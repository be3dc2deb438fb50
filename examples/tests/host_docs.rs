//! `tool-host docs --out DIR`: a page per pool tool (native and imported), `index.md` and
//! `tools.json`; and `--json` on the listing commands.

mod common;
use common::host;

use std::process::Command;

use serde_json::{Value, json};

/// Every property path of `schema` (nested objects and array items as `a.b`, `a[].b`).
fn property_paths(prefix: &str, schema: &Value, paths: &mut Vec<String>) {
    for (name, property) in schema["properties"].as_object().into_iter().flatten() {
        let path = format!("{prefix}{name}");
        paths.push(path.clone());
        property_paths(&format!("{path}."), property, paths);
        if property.get("items").is_some() {
            property_paths(&format!("{path}[]."), &property["items"], paths);
        }
    }
}

fn check_catalog(out: &std::path::Path, expected_tools: usize) -> Vec<String> {
    let catalog: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("tools.json")).unwrap()).unwrap();
    let tools = catalog["tools"].as_array().unwrap();
    assert_eq!(tools.len(), expected_tools);
    let index = std::fs::read_to_string(out.join("index.md")).unwrap();
    let mut names = Vec::new();
    for tool in tools {
        let name = tool["name"].as_str().unwrap();
        let file = format!("{name}.md");
        let page = std::fs::read_to_string(out.join(&file))
            .unwrap_or_else(|_| panic!("{name} has no page {file}"));
        assert!(page.starts_with(&format!("# {name}\n")), "{page}");
        assert!(index.contains(&format!("[{name}]({file})")), "{index}");
        let mut paths = Vec::new();
        property_paths("", &tool["input_schema"], &mut paths);
        for path in paths {
            assert!(
                page.contains(&format!("| `{path}` |")),
                "{name}: property {path} is missing from its input table:\n{page}"
            );
        }
        for heading in [
            "## Input",
            "## Facts",
            "## Example",
            "| Search hint |",
            "| Aliases |",
        ] {
            assert!(page.contains(heading), "{name}: no {heading}");
        }
        names.push(name.to_owned());
    }
    names
}

#[test]
fn every_tool_has_a_page_listing_every_property() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("docs");
    let (ok, stdout, stderr) = host(&["docs", "--out", out.to_str().unwrap()]);
    assert!(ok, "{stderr}");
    assert_eq!(
        stdout.lines().count(),
        11,
        "9 pages, index.md, tools.json: {stdout}"
    );
    let names = check_catalog(&out, 9);
    assert_eq!(
        names,
        [
            "Bash",
            "Edit",
            "Glob",
            "Grep",
            "NotebookEdit",
            "Read",
            "TaskStop",
            "TodoWrite",
            "Write"
        ]
    );
    let stop = std::fs::read_to_string(out.join("TaskStop.md")).unwrap();
    assert!(stop.contains("| Aliases | `KillShell` |"), "{stop}");
    assert!(
        stop.contains("| Search hint | kill a running background task |"),
        "{stop}"
    );
    let todo = std::fs::read_to_string(out.join("TodoWrite.md")).unwrap();
    assert!(
        todo.contains(
            "| `todos[].status` | `\"pending\"` \\| `\"in_progress\"` \\| `\"completed\"` | yes |"
        ),
        "{todo}"
    );
    let bash = std::fs::read_to_string(out.join("Bash.md")).unwrap();
    assert!(bash.contains("| read_only | per-input |"), "{bash}");
    assert!(bash.contains("| Max result size | 30000 chars |"), "{bash}");
    let edit = std::fs::read_to_string(out.join("Edit.md")).unwrap();
    assert!(
        edit.contains("| `replace_all` | boolean | no | `false` |"),
        "{edit}"
    );
}

#[test]
fn imported_tools_get_pages_too() {
    let dir = tempfile::tempdir().unwrap();
    let tools = dir.path().join("tools.json");
    std::fs::write(
        &tools,
        json!([{"name": "Weather", "description": "Current weather for a city.",
                "input_schema": {"type": "object", "properties": {
                    "city": {"type": "string", "description": "City | name"},
                    "days": {"type": "integer", "minimum": 1, "default": 1}},
                  "required": ["city"]}}])
        .to_string(),
    )
    .unwrap();
    let out = dir.path().join("docs");
    let mut args = vec![
        "docs".to_owned(),
        "--out".to_owned(),
        out.display().to_string(),
        "--tools-json".to_owned(),
        tools.display().to_string(),
        "--json".to_owned(),
    ];
    let fixtures = common::fixtures_dir().join("mcp-tools-lists/mcp-server-git-2026.10.19.json");
    let with_mcp = fixtures.is_file();
    if with_mcp {
        args.push("--mcp-tools-json".to_owned());
        args.push(format!("git={}", fixtures.display()));
    } else {
        eprintln!("SKIPPED (MCP part): {} is absent", fixtures.display());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (ok, stdout, stderr) = host(&args);
    assert!(ok, "{stderr}");
    let written: Vec<String> = serde_json::from_str(&stdout).unwrap();
    let catalog: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("tools.json")).unwrap()).unwrap();
    let count = catalog["tools"].as_array().unwrap().len();
    assert_eq!(written.len(), count + 2);
    let names = check_catalog(&out, count);
    assert!(names.contains(&"Weather".to_owned()));
    let weather = std::fs::read_to_string(out.join("Weather.md")).unwrap();
    assert!(
        weather.contains("| `city` | string | yes | - | City \\| name |"),
        "{weather}"
    );
    assert!(
        weather.contains("| `days` | integer | no | `1` | (minimum: 1) |"),
        "{weather}"
    );
    if with_mcp {
        let git: Vec<&String> = names
            .iter()
            .filter(|n| n.starts_with("mcp__git__"))
            .collect();
        assert!(git.len() >= 5, "{names:?}");
        let page = std::fs::read_to_string(out.join(format!("{}.md", git[0]))).unwrap();
        assert!(page.contains("| Kind | mcp:git |"), "{page}");
    }
}

#[test]
fn listing_commands_print_json_on_request() {
    let (ok, stdout, _) = host(&["list", "--json"]);
    assert!(ok);
    let tools: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(tools.as_array().unwrap().len(), 9);
    let stop = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "TaskStop")
        .unwrap();
    assert_eq!(stop["aliases"], json!(["KillShell"]));
    assert_eq!(stop["concurrency_safe"], "yes");
    let (ok, stdout, _) = host(&["pool", "--json", "--deny", "Bash"]);
    assert!(ok);
    let pool: Value = serde_json::from_str(&stdout).unwrap();
    let names: Vec<&str> = pool
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(
        !names.contains(&"Bash") && names.contains(&"Read"),
        "{names:?}"
    );
    let (ok, stdout, stderr) = host(&["demo", "--json"]);
    assert!(ok, "{stderr}");
    let demo: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(demo["errors"], 0);
    assert_eq!(demo["results"].as_array().unwrap().len(), 5);
    assert_eq!(demo["plan"][1], "batch 2: serial [Edit toolu_demo_edit]");
    assert!(
        stderr.is_empty(),
        "--json shows no progress lines: {stderr}"
    );
}

#[test]
fn rust_log_filters_the_library_logs() {
    let dir = tempfile::tempdir().unwrap();
    let tools = dir.path().join("tools.json");
    std::fs::write(
        &tools,
        json!([{"name": "Zap", "description": "Zaps.",
                "input_schema": {"type": "object", "properties": {"env": {"type": "object", "additionalProperties": {"type": "string"}}}}}])
        .to_string(),
    )
    .unwrap();
    let args = [
        "definitions",
        "--format",
        "openai-chat",
        "--strict",
        "--tools-json",
        tools.to_str().unwrap(),
    ];
    let quiet = Command::new(env!("CARGO_BIN_EXE_tool-host"))
        .args(args)
        .env_remove("RUST_LOG")
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&quiet.stderr).contains("WARN"));
    let verbose = Command::new(env!("CARGO_BIN_EXE_tool-host"))
        .args(args)
        .env("RUST_LOG", "tool_registry=warn")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&verbose.stderr);
    assert!(stderr.contains("WARN tool_registry::export"), "{stderr}");
}
