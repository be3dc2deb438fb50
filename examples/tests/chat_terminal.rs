//! `tool-host chat` in interactive mode on a real terminal (a tmux pane): a prompt typed at
//! `> `, the answer streamed onto the screen, a permission question answered at the prompt
//! (and a line typed before a question never taken as its answer),
//! and Ctrl-C twice to leave. The model is a local server replaying a recorded turn
//! (`transcripts/05`: two parallel Bash deletions), which really runs. Skips, saying so, when
//! tmux or the fixtures are missing.

mod model_server;
mod tmux_support;

use std::time::Duration;

use model_server::{ModelServer, Reply, anthropic_stream, transcript};
use serde_json::Value;
use tmux_support::Tmux;

#[test]
fn a_prompt_a_streamed_answer_and_an_ask_on_a_terminal() {
    if !tmux_support::installed() {
        return;
    }
    let Some(recorded) = transcript("05-cc2.1-bash-readonly-write-parallel-error.json") else {
        eprintln!(
            "SKIPPED: the fixtures are not here (set TOOL_SDK_FIXTURES), so no chat was replayed"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap().to_owned();
    // The recorded paths (inside command strings too) moved into the workspace.
    let content: Value = serde_json::from_str(
        &recorded["content"]
            .to_string()
            .replace("/home/user/project", &root),
    )
    .unwrap();
    let content = content.as_array().unwrap().clone();
    for file in [
        "dict_utils.py",
        "__init__.py",
        "math_utils.py",
        "list_utils.py",
        "string_utils.py",
        "validation.py",
    ] {
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src").join(file), "x = 1\n").unwrap();
    }
    std::fs::create_dir_all(dir.path().join("tests")).unwrap();
    std::fs::write(dir.path().join("tests/test_math.py"), "x = 1\n").unwrap();
    let text: Vec<Value> = content
        .iter()
        .filter(|block| block["type"] == "text")
        .cloned()
        .collect();
    let server = ModelServer::start(vec![
        Reply::Stream(anthropic_stream(&content, &[], None)),
        Reply::Stream(anthropic_stream(&text, &[], None)),
    ]);
    let command = format!(
        "env ANTHROPIC_API_KEY=sk-terminal-test {} chat --base-url {} --root {root} --ask Bash; echo EXITED $?; sleep 30",
        env!("CARGO_BIN_EXE_tool-host"),
        server.url,
    );
    let tmux = Tmux::start("tool-host-chat-test", "chat", (150, 40), &command);
    tmux.wait_for("the prompt", |screen| {
        screen.contains("tool-host chat (") && screen.lines().any(|line| line.trim_end() == ">")
    });
    tmux.keys(&["delete the python files", "Enter"]);
    let asked = tmux.wait_for("the streamed text and the question", |screen| {
        screen.contains("I need to delete the Python source files")
            && screen.contains("Bash needs your approval to run.")
            && screen.contains("answer [1/2/3]:")
    });
    assert!(
        asked.contains("Delete Python source files in src/") || asked.contains("rm "),
        "{asked}"
    );
    // "Allow always" grants a rule for this command line only (`rm` has no subcommand), so
    // the second, different deletion is asked about too: allowed once.
    assert!(asked.contains("2) allow Bash(rm "), "{asked}");
    tmux.keys(&["2", "Enter"]);
    tmux.wait_for("the second question", |screen| {
        screen.contains("2) allow Bash(rm -r ")
    });
    tmux.keys(&["1", "Enter"]);
    let answered = tmux.wait_for("the final answer and the next prompt", |_| {
        server.requests().len() == 2 && !dir.path().join("tests").exists()
    });
    let _ = answered;
    let screen = tmux.wait_for("the second answer", |screen| {
        screen
            .matches("I need to delete the Python source files")
            .count()
            >= 2
    });
    assert_eq!(
        screen.matches("Bash needs your approval to run.").count(),
        2,
        "{screen}"
    );
    assert!(!dir.path().join("src/math_utils.py").exists());
    let requests = server.requests();
    let results = requests[1].body["messages"][2]["content"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(results.len(), 2, "{results:?}");
    assert!(
        results
            .iter()
            .all(|result| result.get("is_error").is_none()),
        "{results:?}"
    );
    // Ctrl-C at the prompt arms the exit, the second one exits.
    tmux.keys(&["C-c"]);
    tmux.wait_for("the exit hint", |screen| {
        screen.contains("press Ctrl-C again to exit")
    });
    tmux.keys(&["C-c"]);
    tmux.wait_for("the exit", |screen| screen.contains("EXITED 130"));
    assert!(!tmux.screen().contains("sk-terminal-test"));
}

#[test]
fn a_line_typed_before_a_question_is_not_taken_as_its_answer() {
    if !tmux_support::installed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap().to_owned();
    let made = dir.path().join("made-by-the-model");
    let content = [
        serde_json::json!({"type": "text", "text": "I will create the file."}),
        serde_json::json!({"type": "tool_use", "id": "toolu_touch", "name": "Bash", "input": {"command": format!("touch {}", made.display())}}),
    ];
    let answer = |text: &str| {
        Reply::Stream(anthropic_stream(
            &[serde_json::json!({"type": "text", "text": text})],
            &[],
            None,
        ))
    };
    let server = ModelServer::start(vec![
        // The model writes, then stops for a while before its call: the user types then.
        Reply::Stream(anthropic_stream(
            &content,
            &[(0, Duration::from_millis(1500))],
            None,
        )),
        answer("Not created."),
        answer("Second answer."),
    ]);
    let command = format!(
        "env ANTHROPIC_API_KEY=sk-terminal-test {} chat --base-url {} --root {root} --ask Bash; echo EXITED $?; sleep 30",
        env!("CARGO_BIN_EXE_tool-host"),
        server.url,
    );
    let tmux = Tmux::start("tool-host-chat-ahead", "chat", (150, 40), &command);
    tmux.wait_for("the prompt", |screen| {
        screen.lines().any(|line| line.trim_end() == ">")
    });
    tmux.keys(&["make a file", "Enter"]);
    tmux.wait_for("the streamed text", |screen| {
        screen.contains("I will create the file.")
    });
    // Typed ahead, before any question: a prompt, not an approval.
    tmux.keys(&["y", "Enter"]);
    tmux.wait_for("the question", |screen| screen.contains("answer [1/2/3]:"));
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        !made.exists(),
        "a line typed before the question approved the call"
    );
    assert_eq!(server.requests().len(), 1);
    tmux.keys(&["3", "Enter"]);
    tmux.wait_for("the typed-ahead prompt answered", |screen| {
        screen.contains("Second answer.")
    });
    assert!(!made.exists());
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    let results = requests[1].body["messages"][2]["content"].to_string();
    assert!(
        results.contains("The user does not want to go ahead with this tool use"),
        "{results}"
    );
    let messages = requests[2].body["messages"].as_array().unwrap();
    let last = &messages[messages.len() - 1];
    assert_eq!(last["role"], "user");
    assert_eq!(last["content"][0]["text"], "y");
    tmux.keys(&["C-d"]);
    tmux.wait_for("the exit", |screen| screen.contains("EXITED 0"));
}
