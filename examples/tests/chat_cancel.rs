//! `tool-host chat` and Ctrl-C, against a local server replaying recorded turns: a cut-off
//! response and running tools are cancelled, and every `tool_use` is still answered in the
//! next request; exiting with a second Ctrl-C stops the background shells. Without the
//! fixtures each replaying test says it skips and passes.

mod model_server;

use std::time::Duration;

use model_server::replay::{KEY, READ_A, READ_B, Replay, last_results, result_text};
use model_server::{ChatProcess, ModelServer, Reply, anthropic_stream, transcript};
use serde_json::{Value, json};

#[test]
fn ctrl_c_mid_turn_still_answers_every_tool_use() {
    let Some(replay) = Replay::load() else { return };
    // The model writes the first Read whole, starts the second, then stalls.
    let server = ModelServer::start(vec![
        Reply::Stall(
            anthropic_stream(&replay.content(3), &[], Some(1)),
            Duration::from_secs(30),
        ),
        Reply::Stream(anthropic_stream(&replay.final_text(), &[], None)),
    ]);
    let mut chat = ChatProcess::start(
        &["--base-url", &server.url, "--root", replay.root()],
        &[("ANTHROPIC_API_KEY", KEY)],
    );
    chat.write_line("read the math utilities");
    chat.wait_stderr(&format!("done {READ_A}"));
    chat.interrupt();
    chat.wait_stderr("cancelling this turn");
    chat.wait_stderr("(turn cancelled)");
    chat.write_line("go on");
    let requests = server.wait_for_requests(2);
    let (status, _stdout, stderr) = chat.finish();
    assert!(status.success(), "{stderr}");

    let messages = requests[1].body["messages"].as_array().unwrap();
    let assistant = &messages[messages.len() - 2];
    let ids: Vec<&str> = assistant["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|block| block["type"] == "tool_use")
        .map(|block| block["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [READ_A, READ_B]);
    let answer = messages.last().unwrap()["content"].as_array().unwrap();
    assert_eq!(answer[0]["tool_use_id"], READ_A);
    assert!(answer[0].get("is_error").is_none(), "{}", answer[0]);
    assert!(result_text(&answer[0]).contains("def add_numbers"));
    assert_eq!(answer[1]["tool_use_id"], READ_B);
    assert_eq!(answer[1]["is_error"], true, "the cut-off call fails alone");
    assert_eq!(
        answer[2]["text"],
        "[Request interrupted by user for tool use]"
    );
    assert_eq!(answer[3]["text"], "go on");
}

/// Transcript 05's headline turn (text and two parallel Bash calls) with its commands swapped
/// for long sleeps, so that Ctrl-C lands while both calls run.
fn sleeping_bash_turn() -> Option<Vec<Value>> {
    let recorded = transcript("05-cc2.1-bash-readonly-write-parallel-error.json")?;
    let mut content = recorded["content"].as_array().unwrap().clone();
    for block in &mut content {
        if block["type"] == "tool_use" {
            block["input"]["command"] = json!("sleep 20");
        }
    }
    Some(content)
}

#[test]
fn ctrl_c_stops_running_tools_and_each_gets_the_rejection() {
    let Some(replay) = Replay::load() else { return };
    let Some(content) = sleeping_bash_turn() else {
        return;
    };
    let ids: Vec<String> = content
        .iter()
        .filter(|block| block["type"] == "tool_use")
        .map(|block| block["id"].as_str().unwrap().to_owned())
        .collect();
    let server = ModelServer::start(vec![
        Reply::Stream(anthropic_stream(&content, &[], None)),
        Reply::Stream(anthropic_stream(&replay.final_text(), &[], None)),
    ]);
    let started = std::time::Instant::now();
    let mut chat = ChatProcess::start(
        &["--base-url", &server.url, "--root", replay.root()],
        &[("ANTHROPIC_API_KEY", KEY)],
    );
    chat.write_line("delete the python files");
    chat.wait_stderr(&format!("start {}", ids[0]));
    chat.interrupt();
    chat.wait_stderr("(turn cancelled)");
    chat.write_line("stop");
    let requests = server.wait_for_requests(2);
    let (status, _stdout, stderr) = chat.finish();
    assert!(status.success(), "{stderr}");
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "the sleeping calls were not stopped"
    );
    let answer = last_results(&requests[1].body);
    let answered: Vec<&str> = answer
        .iter()
        .map(|result| result["tool_use_id"].as_str().unwrap())
        .collect();
    assert_eq!(answered, ids.iter().map(String::as_str).collect::<Vec<_>>());
    // `sleep` is read-only, so both calls ran at once, and both were stopped and rejected.
    for result in &answer {
        assert_eq!(result["is_error"], true);
        assert!(
            result_text(result)
                .starts_with("The user does not want to go ahead with this tool use"),
            "{result}"
        );
    }
    let history = requests[1].body["messages"].as_array().unwrap();
    let note = history.last().unwrap()["content"].as_array().unwrap();
    assert_eq!(
        note[note.len() - 2]["text"],
        "[Request interrupted by user for tool use]"
    );
}

#[test]
fn ctrl_c_during_a_permission_question_cancels_the_turn() {
    let Some(replay) = Replay::load() else { return };
    let Some(recorded) = transcript("05-cc2.1-bash-readonly-write-parallel-error.json") else {
        return;
    };
    // The recorded deletions, pointed at the workspace: the question about them is never
    // answered, so they must not run.
    let content: Value = serde_json::from_str(
        &recorded["content"]
            .to_string()
            .replace("/home/user/project", replay.root()),
    )
    .unwrap();
    let server = ModelServer::start(vec![
        Reply::Stream(anthropic_stream(content.as_array().unwrap(), &[], None)),
        Reply::Stream(anthropic_stream(&replay.final_text(), &[], None)),
    ]);
    let mut chat = ChatProcess::start(
        &[
            "--base-url",
            &server.url,
            "--root",
            replay.root(),
            "--ask",
            "Bash",
            "--permission-prompt",
            "stdin",
        ],
        &[("ANTHROPIC_API_KEY", KEY)],
    );
    chat.write_line("delete the python files");
    chat.wait_stderr("Bash needs your approval to run.");
    chat.interrupt();
    chat.wait_stderr("(turn cancelled)");
    chat.write_line("never mind");
    let requests = server.wait_for_requests(2);
    let (status, _stdout, stderr) = chat.finish();
    assert!(status.success(), "{stderr}");
    let answer = last_results(&requests[1].body);
    assert_eq!(answer.len(), 2);
    assert!(
        answer.iter().all(|result| result["is_error"] == true),
        "{answer:?}"
    );
    // The call being asked about was rejected; the one queued behind it (Bash calls that
    // write run one at a time) was cancelled before it started (SPEC §5.4 step 2, §5.5).
    assert!(
        result_text(&answer[0])
            .starts_with("The user does not want to go ahead with this tool use"),
        "{}",
        answer[0]
    );
    assert!(
        result_text(&answer[1])
            .starts_with("The user does not want this action to happen right now"),
        "{}",
        answer[1]
    );
    assert!(replay.dir.path().join("src/math_utils.py").exists());
    assert!(replay.dir.path().join("tests").exists());
}

/// Whether process `pid` is still running (a zombie counts as gone).
fn running(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        !stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .starts_with('Z')
    })
}

#[test]
fn exiting_with_two_ctrl_c_stops_the_background_shells() {
    background_shells_stop_on_exit(Exit::CtrlCTwice);
}

#[test]
fn a_terminate_or_hangup_signal_stops_the_background_shells() {
    background_shells_stop_on_exit(Exit::Signal("TERM", 143));
    background_shells_stop_on_exit(Exit::Signal("HUP", 129));
}

#[test]
fn a_terminate_signal_during_a_bash_call_stops_its_command() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pid");
    let command = format!("echo $$ > '{}'; exec sleep 300", pid_file.display());
    let server = ModelServer::start(vec![Reply::Stream(anthropic_stream(
        &[
            json!({"type": "tool_use", "id": "toolu_fg", "name": "Bash", "input": {"command": command}}),
        ],
        &[],
        None,
    ))]);
    let mut chat = ChatProcess::start(
        &[
            "--base-url",
            &server.url,
            "--root",
            dir.path().to_str().unwrap(),
            "--allow",
            "Bash",
            "-p",
            "run it",
        ],
        &[("ANTHROPIC_API_KEY", KEY)],
    );
    let pid = wait_for_pid(&pid_file);
    let sent = std::process::Command::new("kill")
        .args(["-TERM", &chat.child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let status = wait_for_exit(&mut chat);
    assert_eq!(status.code(), Some(143));
    std::thread::sleep(Duration::from_millis(300));
    let left = running(&pid);
    if left {
        let _ = std::process::Command::new("kill").arg(&pid).status();
    }
    assert!(!left, "the Bash command outlived tool-host");
}

/// The pid a test command wrote into `file`, waiting up to 10 s.
fn wait_for_pid(file: &std::path::Path) -> String {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        if let Ok(pid) = std::fs::read_to_string(file)
            && !pid.trim().is_empty()
        {
            return pid.trim().to_owned();
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the shell never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits up to 10 s for tool-host to exit.
fn wait_for_exit(chat: &mut ChatProcess) -> std::process::ExitStatus {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(status) = chat.child.try_wait().unwrap() {
            return status;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "tool-host did not exit"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// How tool-host is made to leave.
enum Exit {
    CtrlCTwice,
    /// `kill -NAME`, and the exit code it gives.
    Signal(&'static str, i32),
}

fn background_shells_stop_on_exit(exit: Exit) {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pid");
    let command = format!("echo $$ > '{}'; exec sleep 300", pid_file.display());
    let server = ModelServer::start(vec![
        Reply::Stream(anthropic_stream(
            &[
                json!({"type": "tool_use", "id": "toolu_bg", "name": "Bash", "input": {"command": command, "run_in_background": true}}),
            ],
            &[],
            None,
        )),
        Reply::Stream(anthropic_stream(
            &[json!({"type": "text", "text": "It runs."})],
            &[],
            None,
        )),
    ]);
    let mut chat = ChatProcess::start(
        &[
            "--base-url",
            &server.url,
            "--root",
            dir.path().to_str().unwrap(),
            "--allow",
            "Bash",
        ],
        &[("ANTHROPIC_API_KEY", KEY)],
    );
    chat.write_line("start a server");
    server.wait_for_requests(2);
    let pid = wait_for_pid(&pid_file);
    assert!(running(&pid));
    std::thread::sleep(Duration::from_millis(300));
    let code = match exit {
        Exit::CtrlCTwice => {
            // At the prompt: the first Ctrl-C arms the exit, the second exits.
            chat.interrupt();
            chat.wait_stderr("press Ctrl-C again to exit");
            chat.interrupt();
            130
        }
        Exit::Signal(name, code) => {
            let sent = std::process::Command::new("kill")
                .args([&format!("-{name}"), &chat.child.id().to_string()])
                .status()
                .unwrap();
            assert!(sent.success());
            code
        }
    };
    let status = wait_for_exit(&mut chat);
    assert_eq!(status.code(), Some(code));
    std::thread::sleep(Duration::from_millis(300));
    let left = running(&pid);
    if left {
        let _ = std::process::Command::new("kill").arg(&pid).status();
    }
    assert!(!left, "the background shell outlived tool-host");
}
