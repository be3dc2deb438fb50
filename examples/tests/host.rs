//! The `tool-host` binary's commands, run as a real child process.

mod common;
use common::{host, run_message};

use std::process::Command;

use serde_json::Value;

#[test]
fn demo_runs_five_calls_in_two_batches_without_errors() {
    let (ok, stdout, stderr) = host(&["demo"]);
    assert!(ok, "{stdout}\n{stderr}");
    assert!(
        stdout.contains(
            "plan:\nbatch 1: concurrent [Glob toolu_demo_glob, Grep toolu_demo_grep, Read toolu_demo_read, Bash toolu_demo_bash]\n\
             batch 2: serial [Edit toolu_demo_edit]\n"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("demo finished: 5 calls, 5 ok, 0 errors"),
        "{stdout}"
    );
    assert!(
        stdout.contains("--- Read toolu_demo_read (ok)\ninput: {\"file_path\":"),
        "{stdout}"
    );
    assert!(stdout.contains("\n     1\u{2192}[workspace]\n"), "{stdout}");
}

#[test]
fn list_shows_every_example_tool_with_its_flags() {
    let (ok, stdout, _) = host(&["list"]);
    assert!(ok);
    let names: Vec<&str> = stdout
        .lines()
        .skip(1)
        .filter_map(|line| line.split_whitespace().next())
        .collect();
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
    let stop = stdout
        .lines()
        .find(|line| line.starts_with("TaskStop "))
        .unwrap();
    assert!(
        stop.split_whitespace().nth(1) == Some("KillShell"),
        "{stop}"
    );
    let bash = stdout
        .lines()
        .find(|line| line.starts_with("Bash "))
        .unwrap();
    assert_eq!(
        bash.split_whitespace().collect::<Vec<_>>()[..4],
        ["Bash", "-", "per-input", "per-input"]
    );
    let read = stdout
        .lines()
        .find(|line| line.starts_with("Read "))
        .unwrap();
    assert_eq!(
        read.split_whitespace().collect::<Vec<_>>(),
        ["Read", "-", "yes", "yes", "default", "unbounded", "no"]
    );
    let edit = stdout
        .lines()
        .find(|line| line.starts_with("Edit "))
        .unwrap();
    assert_eq!(
        edit.split_whitespace().collect::<Vec<_>>(),
        [
            "Edit", "-", "default", "default", "default", "100000", "chars", "no"
        ]
    );
}

#[test]
fn definitions_are_anthropic_tools_with_object_schemas() {
    let (ok, stdout, _) = host(&["definitions"]);
    assert!(ok);
    let tools: Value = serde_json::from_str(&stdout).unwrap();
    let tools = tools.as_array().unwrap();
    assert_eq!(tools.len(), 9);
    for tool in tools {
        let keys: Vec<&str> = tool
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        if tool["name"] == "Grep" || tool["name"] == "Bash" {
            assert_eq!(
                keys,
                ["name", "description", "input_schema", "input_examples"]
            );
        } else {
            assert_eq!(keys, ["name", "description", "input_schema"]);
        }
        assert_eq!(tool["input_schema"]["type"], "object");
        assert!(tool["input_schema"].get("$schema").is_none());
        assert!(!tool["description"].as_str().unwrap().is_empty());
    }
    let grep = tools.iter().find(|tool| tool["name"] == "Grep").unwrap();
    let mut keys: Vec<&str> = grep["input_schema"]["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "-A",
            "-B",
            "-C",
            "-i",
            "-n",
            "glob",
            "head_limit",
            "multiline",
            "offset",
            "output_mode",
            "path",
            "pattern",
            "type"
        ]
    );
    assert_eq!(
        grep["input_schema"]["required"],
        serde_json::json!(["pattern"])
    );
}

#[test]
fn run_refuses_a_file_without_content_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.json");
    std::fs::write(&file, r#"{"role":"assistant"}"#).unwrap();
    let (ok, _, stderr) = host(&[
        "run",
        file.to_str().unwrap(),
        "--root",
        dir.path().to_str().unwrap(),
    ]);
    assert!(!ok);
    assert!(stderr.contains("top-level `content` array"), "{stderr}");
}

#[test]
fn run_ends_with_a_summary_naming_the_failed_calls() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "hello\n").unwrap();
    let turn = serde_json::json!({
        "role": "assistant",
        "content": [
            {"type": "tool_use", "id": "toolu_a", "name": "Glob", "input": {"pattern": "*.txt"}},
            {"type": "tool_use", "id": "toolu_b", "name": "WebFetch", "input": {"url": "https://example.com"}}
        ]
    });
    let (ok, stdout, stderr) = run_message(dir.path(), &turn);
    assert!(ok, "{stderr}");
    assert!(
        stderr.ends_with("answered 2 tool_use blocks: 1 ok, 1 error (WebFetch toolu_b)\n"),
        "{stderr}"
    );
    let message: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(message["content"].as_array().unwrap().len(), 2);
}

#[test]
fn run_checks_calls_against_content_rules() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(root.join("keep.txt"), "x").unwrap();
    let file = dir.path().join("turn.json");
    let turn = serde_json::json!([
        {"type": "tool_use", "id": "toolu_rm", "name": "Bash", "input": {"command": "rm keep.txt"}},
        {"type": "tool_use", "id": "toolu_ls", "name": "Bash", "input": {"command": "ls"}}
    ]);
    std::fs::write(&file, turn.to_string()).unwrap();
    let (ok, stdout, stderr) = host(&[
        "run",
        file.to_str().unwrap(),
        "--root",
        root.to_str().unwrap(),
        "--deny",
        "Bash(rm *)",
        "--run-bash",
    ]);
    assert!(ok, "{stderr}");
    let message: Value = serde_json::from_str(&stdout).unwrap();
    let results = message["content"].as_array().unwrap();
    assert_eq!(results[0]["is_error"], true, "{stdout}");
    assert!(root.join("keep.txt").exists(), "the denied rm ran");
    assert!(stderr.contains("start toolu_rm "), "{stderr}");
    assert!(stderr.contains("done toolu_rm error in "), "{stderr}");
    assert_eq!(results[1]["content"], "keep.txt");
    assert!(results[1].get("is_error").is_none(), "{stdout}");
}

#[test]
fn run_deny_rules_cover_every_part_and_wrapper_of_a_command() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    std::fs::create_dir(&root).unwrap();
    let commands = [
        "ls && rm a0.txt",
        "ls; rm a1.txt",
        "FOO=1 rm a2.txt",
        "\\rm a3.txt",
        "'rm' a4.txt",
        "echo $(rm a5.txt)",
        "command rm a6.txt",
        "env nice -n 1 rm a7.txt",
        "sh -c 'rm a8.txt'",
    ];
    let mut blocks = Vec::new();
    for (index, command) in commands.iter().enumerate() {
        std::fs::write(root.join(format!("a{index}.txt")), "x").unwrap();
        blocks.push(serde_json::json!({
            "type": "tool_use", "id": format!("toolu_{index}"), "name": "Bash",
            "input": {"command": command}
        }));
    }
    // An allow rule does not let a chained writer through either.
    std::fs::write(root.join("b.txt"), "x").unwrap();
    blocks.push(serde_json::json!({
        "type": "tool_use", "id": "toolu_git", "name": "Bash",
        "input": {"command": "git status; rm b.txt < /dev/null"}
    }));
    let file = dir.path().join("turn.json");
    std::fs::write(&file, Value::Array(blocks).to_string()).unwrap();
    let (ok, stdout, stderr) = host(&[
        "run",
        file.to_str().unwrap(),
        "--root",
        root.to_str().unwrap(),
        "--deny",
        "Bash(rm *)",
        "--allow",
        "Bash(git *)",
        "--run-bash",
    ]);
    assert!(ok, "{stderr}");
    let message: Value = serde_json::from_str(&stdout).unwrap();
    let results = message["content"].as_array().unwrap();
    for (index, command) in commands.iter().enumerate() {
        assert_eq!(results[index]["is_error"], true, "{command}: {stdout}");
        assert!(
            root.join(format!("a{index}.txt")).exists(),
            "the denied {command:?} ran"
        );
    }
    assert!(
        root.join("b.txt").exists(),
        "Bash(git *) allowed a chained rm"
    );
}

#[test]
fn run_refuses_bash_unless_asked_and_rebases_paths_inside_commands() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir_all(project.join("tests")).unwrap();
    std::fs::write(project.join("tests/a.txt"), "x").unwrap();
    let root = dir.path().join("ws");
    std::fs::create_dir_all(root.join("tests")).unwrap();
    let file = dir.path().join("turn.json");
    let command = format!("rm -r {}/tests/", project.display());
    let turn = serde_json::json!([
        {"type": "tool_use", "id": "toolu_rm", "name": "Bash", "input": {"command": command}}
    ]);
    std::fs::write(&file, turn.to_string()).unwrap();
    let args = |extra: &[&str]| {
        let mut args = vec![
            "run",
            file.to_str().unwrap(),
            "--root",
            root.to_str().unwrap(),
            "--rebase",
            project.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        args.into_iter().map(str::to_owned).collect::<Vec<_>>()
    };
    let refused = args(&[]);
    let refused: Vec<&str> = refused.iter().map(String::as_str).collect();
    let (ok, stdout, stderr) = host(&refused);
    assert!(ok, "{stderr}");
    assert!(stderr.contains("--run-bash"), "{stderr}");
    let message: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(message["content"][0]["is_error"], true, "{stdout}");
    assert!(root.join("tests").exists(), "Bash ran without --run-bash");

    let opted = args(&["--run-bash"]);
    let opted: Vec<&str> = opted.iter().map(String::as_str).collect();
    let (ok, stdout, stderr) = host(&opted);
    assert!(ok, "{stderr}");
    assert!(
        project.join("tests/a.txt").exists(),
        "the real directory was deleted"
    );
    assert!(
        !root.join("tests").exists(),
        "the rebased command did not run: {stdout}"
    );
}

#[test]
fn a_closed_stdout_ends_the_command_quietly() {
    for args in [&["definitions"][..], &["pool", "--json"], &["list"]] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tool-host"))
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // The reader goes away before anything is printed.
        drop(child.stdout.take());
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(output.status.success(), "{args:?}: {stderr}");
    }
}

#[test]
fn run_json_compare_on_a_message_carries_the_differences() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("transcript.json");
    let transcript = serde_json::json!({
        "content": [
            {"type": "tool_use", "id": "toolu_r", "name": "Read", "input": {"file_path": "missing.txt"}}
        ],
        "tool_results": [
            {"type": "tool_result", "tool_use_id": "toolu_r", "content": "     1\u{2192}x"}
        ]
    });
    std::fs::write(&file, transcript.to_string()).unwrap();
    let (ok, stdout, stderr) = host(&[
        "run",
        file.to_str().unwrap(),
        "--root",
        dir.path().to_str().unwrap(),
        "--compare",
        "--json",
    ]);
    assert!(ok, "{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["compared"], 1, "{stdout}");
    assert_eq!(
        report["message"]["content"][0]["is_error"], true,
        "{stdout}"
    );
    assert_eq!(
        report["differences"][0]["tool_use_id"], "toolu_r",
        "{stdout}"
    );
    assert_eq!(
        report["differences"][0]["what"],
        "is_error: recorded false, ours true"
    );
}
