//! `tool-host chat` permission answers read from a pipe (`--permission-prompt stdin`):
//! "allow always" on a Bash call allows that command's prefix for the session (a
//! `Bash(git status:*)` rule, as the reference suggests), not every Bash command. The model is
//! a local server; every call really runs. Needs git (skips, saying so, without it).

mod model_server;

use std::process::Command;

use model_server::replay::{KEY, last_results, result_text};
use model_server::{ChatProcess, ModelServer, Reply, anthropic_stream};
use serde_json::{Value, json};

fn bash(id: &str, command: &str) -> Value {
    json!({"type": "tool_use", "id": id, "name": "Bash", "input": {"command": command}})
}

#[test]
fn allow_always_on_bash_covers_the_command_prefix_only() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap().to_owned();
    if Command::new("git")
        .args(["init", "-q", &root])
        .status()
        .map_or(true, |status| !status.success())
    {
        eprintln!("SKIPPED: git is not installed, so no git command was run");
        return;
    }
    let server = ModelServer::start(vec![
        Reply::Stream(anthropic_stream(
            &[bash("toolu_a", "git status")],
            &[],
            None,
        )),
        Reply::Stream(anthropic_stream(
            &[
                bash("toolu_b", "git status --short"),
                bash("toolu_c", "touch made-by-the-model"),
            ],
            &[],
            None,
        )),
        Reply::Stream(anthropic_stream(
            &[json!({"type": "text", "text": "done"})],
            &[],
            None,
        )),
    ]);
    let mut chat = ChatProcess::start(
        &[
            "--base-url",
            &server.url,
            "--root",
            &root,
            "--ask",
            "Bash",
            "--permission-prompt",
            "stdin",
            "-p",
            "look around",
        ],
        &[("ANTHROPIC_API_KEY", KEY)],
    );
    chat.wait_stderr("allow Bash(git status:*) for this session");
    chat.write_line("2");
    // The second turn: `git status --short` is covered; `touch` is asked about and denied.
    chat.wait_stderr("touch made-by-the-model");
    chat.write_line("3");
    let (status, stdout, stderr) = chat.finish();
    assert!(status.success(), "{stderr}");
    assert_eq!(stdout, "done\n");
    assert_eq!(stderr.matches("answer [1/2/3]").count(), 2, "{stderr}");
    let requests = server.requests();
    let first = last_results(&requests[1].body);
    assert_eq!(first[0]["tool_use_id"], "toolu_a");
    assert!(first[0].get("is_error").is_none(), "{}", first[0]);
    let second = last_results(&requests[2].body);
    assert_eq!(second[0]["tool_use_id"], "toolu_b");
    assert!(second[0].get("is_error").is_none(), "{}", second[0]);
    assert_eq!(second[1]["tool_use_id"], "toolu_c");
    assert_eq!(second[1]["is_error"], true);
    assert!(
        result_text(&second[1])
            .starts_with("The user does not want to go ahead with this tool use"),
        "{}",
        second[1]
    );
    assert!(!dir.path().join("made-by-the-model").exists());
}
