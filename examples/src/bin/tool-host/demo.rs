//! `tool-host demo`: a built-in assistant turn over a temporary copy of a few files of this
//! repository (embedded at build time, so the demo runs anywhere).

use std::time::Instant;

use serde_json::json;
use tool_examples::workspace::Workspace;
use tool_registry::ToolRegistry;
use tool_sdk::ToolUseBlock;

/// The files copied into the demo workspace: (path inside the workspace, contents).
const FILES: &[(&str, &str)] = &[
    ("Cargo.toml", include_str!("../../../../Cargo.toml")),
    ("README.md", include_str!("../../../../README.md")),
    (
        "tool-sdk/src/tool.rs",
        include_str!("../../../../tool-sdk/src/tool.rs"),
    ),
    (
        "tool-sdk/src/result.rs",
        include_str!("../../../../tool-sdk/src/result.rs"),
    ),
    (
        "tool-registry/src/pool.rs",
        include_str!("../../../../tool-registry/src/pool.rs"),
    ),
];

/// Longest part of a result printed per call, in lines.
const SHOWN_LINES: usize = 12;

/// The demo turn: three concurrency-safe calls (one batch), then an Edit (a batch of its own).
fn turn(root: &str) -> Vec<ToolUseBlock> {
    let blocks = json!([
        {"type": "tool_use", "id": "toolu_demo_glob", "name": "Glob", "input": {"pattern": "**/*.rs"}},
        {"type": "tool_use", "id": "toolu_demo_grep", "name": "Grep",
         "input": {"pattern": "pub fn \\w+", "output_mode": "content", "glob": "*.rs", "head_limit": 6}},
        {"type": "tool_use", "id": "toolu_demo_read", "name": "Read",
         "input": {"file_path": format!("{root}/Cargo.toml"), "limit": 6}},
        {"type": "tool_use", "id": "toolu_demo_edit", "name": "Edit",
         "input": {"file_path": format!("{root}/Cargo.toml"), "old_string": "resolver = \"3\"",
                   "new_string": "resolver = \"3\" # edited by the tool-host demo"}}
    ]);
    serde_json::from_value(blocks).expect("the demo turn is valid")
}

pub fn run(registry: &ToolRegistry) -> Result<(), String> {
    let dir = tempfile::tempdir()
        .map_err(|error| format!("cannot create a temporary directory: {error}"))?;
    for (path, contents) in FILES {
        let target = dir.path().join(path);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|error| error.to_string())?;
        }
        std::fs::write(&target, contents).map_err(|error| error.to_string())?;
    }
    let workspace = Workspace::new(dir.path()).map_err(|error| error.to_string())?;
    let root = workspace.root().to_string_lossy().into_owned();
    println!(
        "workspace: {root} ({} files copied from this repository)\n",
        FILES.len()
    );
    let blocks = turn(&root);
    print!("plan:\n{}", super::plan(registry.tools(), &blocks));
    let started = Instant::now();
    let results = super::answer(registry.tools(), &Default::default(), &blocks, workspace)?;
    let elapsed = started.elapsed();
    println!();
    for (block, result) in blocks.iter().zip(&results) {
        let status = if result.is_error { "error" } else { "ok" };
        println!("--- {} {} ({status})", block.name, block.id);
        println!("input: {}", block.input);
        let text = result.text();
        let lines: Vec<&str> = text.lines().collect();
        for line in lines.iter().take(SHOWN_LINES) {
            println!("{line}");
        }
        if lines.len() > SHOWN_LINES {
            println!("... ({} more lines)", lines.len() - SHOWN_LINES);
        }
        println!();
    }
    let errors = results.iter().filter(|result| result.is_error).count();
    println!(
        "demo finished: {} calls, {} ok, {errors} errors, in {} ms",
        results.len(),
        results.len() - errors,
        elapsed.as_millis()
    );
    if errors > 0 {
        return Err(format!("{errors} demo calls failed"));
    }
    Ok(())
}
