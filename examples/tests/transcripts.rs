//! Replays every recorded assistant turn in `../shared/fixtures/transcripts` through the real
//! `tool-host run` binary, in a temporary workspace rebuilt from what the transcript shows of
//! the files it touches.
//!
//! Checked for every turn: one `tool_result` per `tool_use`, ids matching, in order. For the
//! tools checked here (Read, Glob, Grep, Edit, Write, TodoWrite): success where the recorded
//! call succeeded, and the effect the recording shows (the lines Read returned, the paths Glob
//! listed, the edited or written file contents, a string result for TodoWrite). Each turn is
//! replayed alone, so `--assume-read` stands for the reads of earlier turns. Bash is denied
//! (`--deny Bash`): the recorded commands (`cargo install`, `git commit`, `rm -r`) are not run
//! on this machine; it and every other tool absent from the pool answer with the "No such tool
//! available" error, which is correct for a host without them.
//!
//! The fixtures are not part of this repository; without them the test says so and passes.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

const RECORDED_ROOT: &str = "/home/user/project";
const OUR_TOOLS: &[&str] = &["Read", "Glob", "Grep", "Edit", "Write", "TodoWrite"];

fn fixtures_dir() -> PathBuf {
    common::fixtures_dir().join("transcripts")
}

/// One assistant turn and the results recorded for it.
struct Turn {
    label: String,
    content: Vec<Value>,
    recorded: BTreeMap<String, Value>,
}

fn tool_uses(content: &[Value]) -> Vec<&Value> {
    content
        .iter()
        .filter(|block| block["type"] == "tool_use")
        .collect()
}

fn turns_of(name: &str, transcript: &Value) -> Vec<Turn> {
    let mut all_results = BTreeMap::new();
    let mut collect = |blocks: &Value| {
        for block in blocks.as_array().into_iter().flatten() {
            if block["type"] == "tool_result" {
                all_results.insert(
                    block["tool_use_id"].as_str().unwrap().to_owned(),
                    block.clone(),
                );
            }
        }
    };
    collect(&transcript["tool_results"]);
    for message in transcript["messages"].as_array().into_iter().flatten() {
        collect(&message["content"]);
    }
    for example in transcript["more_examples"].as_array().into_iter().flatten() {
        collect(&example["tool_results"]);
    }
    let turn = |label: String, content: &Value| Turn {
        label,
        content: content.as_array().cloned().unwrap_or_default(),
        recorded: all_results.clone(),
    };
    let mut turns = vec![turn(format!("{name} headline"), &transcript["content"])];
    for (index, example) in transcript["more_examples"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        turns.push(turn(
            format!("{name} more_examples[{index}]"),
            &example["content"],
        ));
    }
    for (index, message) in transcript["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        if message["role"] == "assistant"
            && !tool_uses(message["content"].as_array().unwrap()).is_empty()
        {
            turns.push(turn(
                format!("{name} messages[{index}]"),
                &message["content"],
            ));
        }
    }
    turns
}

/// The lines of a recorded Read result (`cat -n` with `→`), without the appended reminder.
fn read_lines(text: &str) -> Vec<String> {
    text.lines()
        .map_while(|line| {
            let (number, rest) = line.split_once('\u{2192}')?;
            number.trim().parse::<u64>().ok()?;
            Some(rest.to_owned())
        })
        .collect()
}

fn rebased(path: &str, root: &Path) -> PathBuf {
    root.join(
        path.strip_prefix(RECORDED_ROOT)
            .unwrap_or(path)
            .trim_start_matches('/'),
    )
}

fn result_text(result: &Value) -> String {
    match &result["content"] {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|block| block["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Recreates the files the whole transcript shows: contents from recorded Read results,
/// the old text of Edits otherwise, and empty files for paths Glob listed.
fn build_workspace(turns: &[Turn], root: &Path) {
    let mut files: BTreeMap<PathBuf, String> = BTreeMap::new();
    let all_uses: Vec<Value> = turns
        .iter()
        .flat_map(|turn| tool_uses(&turn.content).into_iter().cloned())
        .collect();
    let recorded = &turns[0].recorded;
    for block in &all_uses {
        let input = &block["input"];
        let result = recorded.get(block["id"].as_str().unwrap());
        match block["name"].as_str().unwrap() {
            "Read" => {
                let text = result.map(result_text).unwrap_or_default();
                files.insert(
                    rebased(input["file_path"].as_str().unwrap(), root),
                    read_lines(&text).join("\n"),
                );
            }
            "Glob" => {
                for line in result.map(result_text).unwrap_or_default().lines() {
                    if line.starts_with(RECORDED_ROOT) {
                        files.entry(rebased(line, root)).or_default();
                    }
                }
            }
            _ => {}
        }
    }
    for block in &all_uses {
        if block["name"] == "Edit" {
            let path = rebased(block["input"]["file_path"].as_str().unwrap(), root);
            let old = block["input"]["old_string"].as_str().unwrap();
            let entry = files.entry(path).or_default();
            if !entry.contains(old) {
                entry.push_str(old);
                entry.push('\n');
            }
        }
    }
    for (path, contents) in files {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, contents).unwrap();
    }
}

fn run_host(message: &Value, root: &Path) -> Value {
    let file = root.parent().unwrap().join("turn.json");
    std::fs::write(&file, message.to_string()).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_tool-host"))
        .arg("run")
        .arg(&file)
        .arg("--root")
        .arg(root)
        .args(["--rebase", RECORDED_ROOT, "--assume-read", "--deny", "Bash"])
        .output()
        .expect("tool-host runs");
    assert!(
        output.status.success(),
        "tool-host failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("tool-host prints JSON")
}

fn check_turn(turn: &Turn, turns: &[Turn]) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    std::fs::create_dir_all(&root).unwrap();
    let root = root.canonicalize().unwrap();
    build_workspace(turns, &root);
    let answer = run_host(
        &json!({"role": "assistant", "content": turn.content}),
        &root,
    );
    assert_eq!(answer["role"], "user", "{}", turn.label);
    let results = answer["content"].as_array().unwrap();
    let uses = tool_uses(&turn.content);
    assert_eq!(
        results.len(),
        uses.len(),
        "{}: one tool_result per tool_use",
        turn.label
    );
    for (block, result) in uses.iter().zip(results) {
        let label = format!("{} {} {}", turn.label, block["name"], block["id"]);
        assert_eq!(result["type"], "tool_result", "{label}");
        assert_eq!(
            result["tool_use_id"], block["id"],
            "{label}: ids in tool_use order"
        );
        let name = block["name"].as_str().unwrap();
        let text = result_text(result);
        let is_error = result["is_error"] == true;
        if !OUR_TOOLS.contains(&name) {
            assert!(is_error, "{label}");
            assert_eq!(
                text,
                format!("<tool_use_error>Error: No such tool available: {name}</tool_use_error>")
            );
            continue;
        }
        let recorded = turn
            .recorded
            .get(block["id"].as_str().unwrap())
            .expect("recorded result");
        if recorded["is_error"] == true {
            assert!(
                is_error,
                "{label}: the recorded call failed, so must ours: {text}"
            );
            continue;
        }
        assert!(
            !is_error,
            "{label}: the recorded call succeeded, ours said: {text}"
        );
        check_effect(name, &block["input"], recorded, &text, &root, &label);
    }
}

fn check_effect(name: &str, input: &Value, recorded: &Value, text: &str, root: &Path, label: &str) {
    match name {
        "Read" => assert_eq!(
            read_lines(text),
            read_lines(&result_text(recorded)),
            "{label}"
        ),
        "Glob" => {
            let mut ours: Vec<String> = text.lines().map(str::to_owned).collect();
            let mut theirs: Vec<String> = result_text(recorded)
                .lines()
                .map(|line| rebased(line, root).to_string_lossy().into_owned())
                .collect();
            ours.sort();
            theirs.sort();
            assert_eq!(ours, theirs, "{label}");
        }
        "Edit" => {
            let path = rebased(input["file_path"].as_str().unwrap(), root);
            let contents = std::fs::read_to_string(path).unwrap();
            assert!(
                contents.contains(input["new_string"].as_str().unwrap()),
                "{label}"
            );
        }
        "TodoWrite" => assert_eq!(
            recorded["content"].is_string(),
            !text.is_empty(),
            "{label}: TodoWrite answers with a sentence, as recorded"
        ),
        "Write" => {
            let path = rebased(input["file_path"].as_str().unwrap(), root);
            assert_eq!(
                std::fs::read_to_string(path).unwrap(),
                input["content"].as_str().unwrap(),
                "{label}"
            );
        }
        _ => {}
    }
}

#[test]
fn every_recorded_turn_gets_one_result_per_tool_use_in_order() {
    let dir = fixtures_dir();
    if !dir.is_dir() {
        eprintln!(
            "SKIPPED: {} does not exist, so no recorded transcript was replayed",
            dir.display()
        );
        return;
    }
    let mut replayed = 0;
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    paths.sort();
    for path in paths {
        let transcript: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let turns = turns_of(&name, &transcript);
        for turn in &turns {
            check_turn(turn, &turns);
            replayed += 1;
        }
    }
    assert!(replayed >= 15, "replayed only {replayed} turns");
    eprintln!("replayed {replayed} recorded turns");
}

#[test]
fn a_fixture_file_with_top_level_content_is_accepted_as_is() {
    let path = fixtures_dir().join("03-cc2.1-parallel-read-then-parallel-edit.json");
    if !path.is_file() {
        eprintln!("SKIPPED: {} does not exist", path.display());
        return;
    }
    let transcript: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let turns = turns_of("03", &transcript);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    build_workspace(&turns, &root);
    let output = Command::new(env!("CARGO_BIN_EXE_tool-host"))
        .arg("run")
        .arg(&path)
        .arg("--root")
        .arg(&root)
        .args(["--rebase", RECORDED_ROOT, "--assume-read"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let answer: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(answer["content"].as_array().unwrap().len(), 2);
    let plan = String::from_utf8_lossy(&output.stderr);
    assert!(
        plan.contains(
            "\nbatch 1: serial [Edit toolu_012DTETgq8s6o9MajSCMmNJX]\nbatch 2: serial [Edit"
        ),
        "{plan}"
    );
}
