//! `tool-host run SESSION.jsonl`: replaying a Claude Code session log turn by turn, with the
//! host state (files read, todo list) carried between turns, and `--compare`.

mod common;
use common::host;

use std::path::Path;

use serde_json::{Value, json};

const RECORDED_ROOT: &str = "/home/user/project";

/// Writes `messages` (API messages) as Claude Code writes a session: one line per content
/// block for assistant messages (sharing `message.id`), one line per user message.
fn write_log(path: &Path, messages: &[Value]) {
    let mut lines = Vec::new();
    for (index, message) in messages.iter().enumerate() {
        if message["role"] == "assistant" {
            for block in message["content"].as_array().unwrap() {
                lines.push(json!({
                    "type": "assistant",
                    "message": {"id": format!("msg_{index}"), "role": "assistant", "content": [block]}
                }));
            }
        } else {
            lines.push(json!({"type": "user", "message": message}));
        }
    }
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    std::fs::write(path, text).unwrap();
}

fn tool_use(id: &str, name: &str, input: Value) -> Value {
    json!({"type": "tool_use", "id": id, "name": name, "input": input})
}

fn result(id: &str, content: &str, is_error: bool) -> Value {
    json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": content, "is_error": is_error}]})
}

#[test]
fn state_carries_from_turn_to_turn_and_compare_reports_differences() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(root.join("notes.txt"), "alpha\n").unwrap();
    let log = dir.path().join("session.jsonl");
    let messages = [
        json!({"role": "user", "content": "Update the notes."}),
        // An edit before any read: refused by our host (the recording says it worked).
        json!({"role": "assistant", "content": [
            {"type": "text", "text": "Editing."},
            tool_use("toolu_1", "Edit", json!({"file_path": "notes.txt", "old_string": "alpha", "new_string": "beta"}))
        ]}),
        result("toolu_1", "The file notes.txt has been updated.", false),
        json!({"role": "assistant", "content": [
            tool_use("toolu_2", "Read", json!({"file_path": "notes.txt"})),
            tool_use("toolu_3", "TodoWrite", json!({"todos": [
                {"content": "Edit the notes", "status": "in_progress", "activeForm": "Editing the notes"}
            ]}))
        ]}),
        result("toolu_2", "     1→alpha", false),
        result("toolu_3", "Todos have been modified successfully.", false),
        // After the read in the previous turn, the edit goes through.
        json!({"role": "assistant", "content": [
            tool_use("toolu_4", "Edit", json!({"file_path": "notes.txt", "old_string": "alpha", "new_string": "beta"})),
        ]}),
        result("toolu_4", "The file notes.txt has been updated.", false),
        json!({"role": "assistant", "content": [
            tool_use("toolu_5", "Bash", json!({"command": "cat notes.txt"})),
        ]}),
        result("toolu_5", "beta", false),
    ];
    write_log(&log, &messages);
    let (ok, stdout, stderr) = host(&[
        "run",
        log.to_str().unwrap(),
        "--root",
        root.to_str().unwrap(),
        "--compare",
        "--run-bash",
    ]);
    assert!(ok, "{stderr}");
    assert_eq!(
        std::fs::read_to_string(root.join("notes.txt")).unwrap(),
        "beta\n"
    );
    assert_eq!(
        stdout,
        "turn 1/4 msg_1: answered 1 tool_use block: 0 ok, 1 error (Edit toolu_1)\n  \
         differs: Edit toolu_1: is_error: recorded false, ours true\n\
         turn 2/4 msg_3: answered 2 tool_use blocks: 2 ok, 0 errors\n\
         turn 3/4 msg_6: answered 1 tool_use block: 1 ok, 0 errors\n\
         turn 4/4 msg_8: answered 1 tool_use block: 1 ok, 0 errors\n\
         compared 5 results with the recording: 1 differ\n"
    );
    assert!(
        stderr.contains("turn 3/4 (msg_6):\nbatch 1: serial [Edit toolu_4]\n"),
        "{stderr}"
    );

    std::fs::write(root.join("notes.txt"), "alpha\n").unwrap();
    let (ok, stdout, stderr) = host(&[
        "run",
        log.to_str().unwrap(),
        "--root",
        root.to_str().unwrap(),
        "--compare",
        "--json",
        "--run-bash",
    ]);
    assert!(ok, "{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["compared"], 5);
    assert_eq!(report["differences"], 1);
    assert_eq!(report["turns"].as_array().unwrap().len(), 4);
    assert_eq!(report["turns"][3]["results"][0]["content"], "beta");
    assert_eq!(
        report["turns"][0]["differences"][0]["what"],
        "is_error: recorded false, ours true"
    );
}

fn fixture(name: &str) -> Option<Value> {
    let path = common::fixtures_dir().join("transcripts").join(name);
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(serde_json::from_str(&text).unwrap()),
        Err(_) => {
            eprintln!(
                "SKIPPED: {} is absent, so no recorded session was replayed",
                path.display()
            );
            None
        }
    }
}

/// The lines a recorded Read returned (`cat -n` with `→`), as file content.
fn file_from_read(text: &str) -> String {
    let lines: Vec<&str> = text
        .lines()
        .map_while(|line| {
            let (number, rest) = line.split_once('\u{2192}')?;
            number.trim().parse::<u64>().ok()?;
            Some(rest)
        })
        .collect();
    lines.join("\n")
}

#[test]
fn a_recorded_session_replays_with_the_recorded_structure() {
    let Some(transcript) = fixture("03-cc2.1-parallel-read-then-parallel-edit.json") else {
        return;
    };
    let messages = transcript["messages"].as_array().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    std::fs::create_dir(&root).unwrap();
    let root = root.canonicalize().unwrap();
    // The workspace the session saw: the files its Reads returned, and the Glob's other paths.
    let mut recorded_reads = std::collections::HashMap::new();
    for message in messages.iter().filter(|m| m["role"] == "user") {
        for block in message["content"].as_array().into_iter().flatten() {
            recorded_reads.insert(block["tool_use_id"].clone(), block["content"].clone());
        }
    }
    for message in messages.iter().filter(|m| m["role"] == "assistant") {
        for block in message["content"].as_array().unwrap() {
            let Some(recorded) = recorded_reads.get(&block["id"]) else {
                continue;
            };
            match block["name"].as_str() {
                Some("Glob") => {
                    for path in recorded.as_str().unwrap().lines() {
                        let file = root.join(
                            path.strip_prefix(RECORDED_ROOT)
                                .unwrap()
                                .trim_start_matches('/'),
                        );
                        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
                        std::fs::write(file, "").unwrap();
                    }
                }
                Some("Read") => {
                    let path = block["input"]["file_path"].as_str().unwrap();
                    let file = root.join(
                        path.strip_prefix(RECORDED_ROOT)
                            .unwrap()
                            .trim_start_matches('/'),
                    );
                    std::fs::write(file, file_from_read(recorded.as_str().unwrap())).unwrap();
                }
                _ => {}
            }
        }
    }
    let log = dir.path().join("session.jsonl");
    write_log(&log, messages);
    let (ok, stdout, stderr) = host(&[
        "run",
        log.to_str().unwrap(),
        "--root",
        root.to_str().unwrap(),
        "--rebase",
        RECORDED_ROOT,
        "--compare",
    ]);
    assert!(ok, "{stderr}");
    assert!(
        stdout.ends_with("compared 5 results with the recording: 0 differ\n"),
        "{stdout}"
    );
    let math = std::fs::read_to_string(root.join("src/math_utils.py")).unwrap();
    assert!(math.contains("def multiply_numbers"), "{math}");
}
