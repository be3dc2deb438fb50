//! MCP import against a deliberately broken server of our own
//! (`tests/mcp_peers/hostile_server.py`, plain newline-delimited JSON-RPC over stdio): bad
//! `tools/list` entries, a server that never answers `initialize`, one that exits in the
//! middle of a call, one that floods notifications, one whose multi round-trip and task
//! answers are malformed. Nothing may hang past its timeout, and no
//! `tool_result` may be lost. Skips (saying so) without python3.
#![cfg(feature = "mcp")]

mod mcp_support;

use std::time::{Duration, Instant};

use mcp_support::*;
use serde_json::json;
use tool_registry::mcp::{McpManager, McpServerStatus, McpTransportConfig};
use tool_registry::search::SearchState;
use tool_registry::test_support::NO_MATCH_TEXT;
use tool_sdk::Extensions;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_entries_are_skipped_and_the_server_kept() {
    let Some(config) = hostile("hostile", "bad-entries") else {
        return;
    };
    let manager = McpManager::connect(vec![config]).await;
    assert_eq!(manager.statuses()[0].1, McpServerStatus::Connected);
    let server = &manager.servers()[0];
    let mut names = tool_names(&server.tools);
    names.sort();
    // Both pages read; `a.b` and `a_b` told apart, `a_b` keeping the plain name.
    assert_eq!(names.len(), 7, "{names:?}");
    for expected in [
        "mcp__hostile__echo",
        "mcp__hostile__grow",
        "mcp__hostile__refd",
        "mcp__hostile__untyped",
        "mcp__hostile__a_b",
        "mcp__hostile__rpc_error",
    ] {
        assert!(
            names.contains(&expected.to_owned()),
            "{expected} not in {names:?}"
        );
    }
    let skipped: Vec<usize> = server.skipped.iter().map(|entry| entry.index).collect();
    assert_eq!(skipped, [1, 2, 4, 10], "{:?}", server.skipped);
    let refd = server
        .tools
        .iter()
        .find(|tool| tool.name() == "mcp__hostile__refd")
        .unwrap();
    assert_eq!(refd.input_schema()["properties"]["n"]["type"], "integer");
    let suffixed = names
        .iter()
        .find(|name| name.starts_with("mcp__hostile__a_b_"))
        .unwrap()
        .clone();
    let tools = manager.tools();
    let turn = run_turn(
        &tools,
        &[
            ("t1", suffixed.as_str(), json!({"text": "x"})),
            ("t2", "mcp__hostile__echo", json!({"text": [1, 2]})),
            ("t3", "mcp__hostile__rpc_error", json!({})),
            (
                "t4",
                "mcp__hostile__untyped",
                json!({"a": "s", "list": [1, [2, "3"]], "obj": {"k": null}}),
            ),
        ],
        Extensions::new(),
        None,
    )
    .await;
    // The suffixed tool calls the server with its raw name.
    let first: serde_json::Value = serde_json::from_str(&turn.results[0].text()).unwrap();
    assert_eq!(first["name"], "a.b");
    // Schema validation answered t2 before the server: `text` must be a string.
    assert!(turn.results[1].is_error);
    assert!(turn.results[2].is_error);
    assert!(
        turn.results[2].text().contains("refused on purpose"),
        "{}",
        turn.results[2].text()
    );
    assert!(
        turn.results[2].text().contains("-32000"),
        "{}",
        turn.results[2].text()
    );
    // Arguments reach the server as the JSON they were: arrays stay arrays, nulls stay null.
    let fourth: serde_json::Value = serde_json::from_str(&turn.results[3].text()).unwrap();
    assert_eq!(
        fourth,
        json!({"name": "untyped", "arguments": {"a": "s", "list": [1, [2, "3"]], "obj": {"k": null}}})
    );
    manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_changed_refreshes_the_tools() {
    let Some(config) = hostile("hostile", "bad-entries") else {
        return;
    };
    let manager = McpManager::connect(vec![config]).await;
    let mut changes = manager.subscribe();
    changes.borrow_and_update();
    let turn = run_turn(
        &manager.tools(),
        &[("t1", "mcp__hostile__grow", json!({}))],
        Extensions::new(),
        None,
    )
    .await;
    assert_eq!(turn.results[0].text(), "grew");
    tokio::time::timeout(Duration::from_secs(10), changes.changed())
        .await
        .unwrap()
        .unwrap();
    assert!(tool_names(&manager.tools()).contains(&"mcp__hostile__grown".to_owned()));
    manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_never_initializes_fails_after_the_connect_timeout() {
    let Some(config) = hostile("silent", "no-init") else {
        return;
    };
    let Some(good) = hostile("good", "bad-entries") else {
        return;
    };
    let started = Instant::now();
    let manager = McpManager::start(vec![
        config.with_connect_timeout(Duration::from_secs(2)),
        good,
    ]);
    assert_eq!(manager.pending_servers().len(), 2);
    // While `silent` connects, ToolSearch's no-match answer names it (SPEC §3.2).
    let pending = SearchState::new(manager.tools())
        .with_pending_mcp_servers(manager.pending_servers())
        .search("zebra", 5)
        .to_content()
        .text();
    assert!(
        pending.starts_with(NO_MATCH_TEXT)
            && pending.contains("Some MCP servers are still connecting: silent"),
        "{pending}"
    );
    manager.wait_settled().await;
    assert!(
        started.elapsed() < Duration::from_secs(6),
        "{:?}",
        started.elapsed()
    );
    let statuses = manager.statuses();
    assert!(
        matches!(&statuses[0].1, McpServerStatus::Failed { reason } if reason.contains("2000 ms")),
        "{statuses:?}"
    );
    assert_eq!(statuses[1].1, McpServerStatus::Connected);
    // Settled: nothing pending, so the answer is the plain no-match text.
    assert!(manager.pending_servers().is_empty());
    let settled = SearchState::new(manager.tools())
        .with_pending_mcp_servers(manager.pending_servers())
        .search("zebra", 5)
        .to_content()
        .text();
    assert_eq!(settled, NO_MATCH_TEXT);
    manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_exiting_mid_call_fails_that_call_and_keeps_the_others() {
    let Some(dying) = hostile("dying", "exit-mid-call") else {
        return;
    };
    let Some(good) = hostile("good", "bad-entries") else {
        return;
    };
    let manager = McpManager::connect(vec![dying, good]).await;
    let tools = manager.tools();
    let started = Instant::now();
    let turn = run_turn(
        &tools,
        &[
            ("t1", "mcp__dying__echo", json!({"text": "a"})),
            ("t2", "mcp__good__echo", json!({"text": "b"})),
        ],
        Extensions::new(),
        None,
    )
    .await;
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(turn.results.len(), 2);
    assert!(turn.results[0].is_error);
    let text = turn.results[0].text();
    assert!(text.contains("`dying`"), "{text}");
    assert!(
        text.contains("exiting in the middle of a call") || text.contains("not connected"),
        "{text}"
    );
    assert!(!turn.results[1].is_error, "{:?}", turn.results[1]);
    // Until it reconnects, its tools answer "not connected".
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(
        matches!(
            manager.statuses()[0].1,
            McpServerStatus::Reconnecting { .. }
        ),
        "{:?}",
        manager.statuses()
    );
    let turn = run_turn(
        &tools,
        &[("t3", "mcp__dying__echo", json!({"text": "c"}))],
        Extensions::new(),
        None,
    )
    .await;
    assert!(turn.results[0].is_error);
    assert!(
        turn.results[0].text().contains("is not connected"),
        "{}",
        turn.results[0].text()
    );
    // The reconnect comes after the first backoff delay, and the server answers again.
    let mut changes = manager.subscribe();
    tokio::time::timeout(Duration::from_secs(10), async {
        while manager.statuses()[0].1 != McpServerStatus::Connected {
            changes.changed().await.unwrap();
        }
    })
    .await
    .unwrap();
    manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_notifications_loses_no_result() {
    let Some(config) = hostile("flood", "flood") else {
        return;
    };
    let manager =
        McpManager::connect(vec![config.with_call_timeout(Duration::from_secs(60))]).await;
    let started = Instant::now();
    let turn = run_turn(
        &manager.tools(),
        &[("t1", "mcp__flood__echo", json!({"text": "z"}))],
        Extensions::new(),
        None,
    )
    .await;
    assert!(!turn.results[0].is_error, "{:?}", turn.results[0]);
    assert!(turn.results[0].text().contains("\"z\""));
    // Progress for tokens nobody asked for never reaches the turn.
    assert!(turn.progress.is_empty());
    assert!(started.elapsed() < Duration::from_secs(60));
    manager.shutdown().await;
}

/// `pid` has exited (gone, or a zombie nobody reaped yet).
fn exited(pid: u64) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z')),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stdio_child_gets_env_and_cwd_hears_cancellations_and_dies_with_its_connection() {
    let Some(mut config) = hostile("probe", "whereami") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let McpTransportConfig::Stdio { env, cwd, .. } = &mut config.transport else {
        unreachable!("hostile servers run over stdio");
    };
    env.insert("TOOL_SDK_PROBE".into(), "set by the host".into());
    *cwd = Some(dir.path().to_owned());
    let manager = McpManager::connect(vec![config]).await;
    // A call the host cancels ends at once and the server is told which request stopped.
    let abort = tool_sdk::CancellationToken::new();
    let trigger = abort.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        trigger.cancel();
    });
    let turn = tokio::time::timeout(
        Duration::from_secs(10),
        run_turn(
            &manager.tools(),
            &[("t0", "mcp__probe__grow", json!({}))],
            Extensions::new(),
            Some(abort),
        ),
    )
    .await
    .expect("the cancelled call ends");
    assert!(turn.results[0].is_error, "{:?}", turn.results[0]);
    // The cancellation is a notification, sent beside the cancelled call's end rather than
    // before it, so the next call may reach the server first: ask again, for up to 5 s, until
    // the server has read it.
    let mut answer = serde_json::Value::Null;
    for _ in 0..100 {
        let turn = run_turn(
            &manager.tools(),
            &[("t1", "mcp__probe__echo", json!({"text": "where"}))],
            Extensions::new(),
            None,
        )
        .await;
        answer = serde_json::from_str(&turn.results[0].text())
            .unwrap_or_else(|_| panic!("{:?}", turn.results[0]));
        if answer["cancelled"]
            .as_array()
            .is_some_and(|list| !list.is_empty())
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        answer["cwd"].as_str().map(std::path::PathBuf::from),
        Some(dir.path().canonicalize().unwrap())
    );
    assert_eq!(answer["probe"], "set by the host");
    let cancelled = answer["cancelled"].as_array().unwrap();
    assert_eq!(cancelled.len(), 1, "{answer}");
    assert_eq!(cancelled[0]["reason"], "cancelled by the host");
    assert!(cancelled[0]["requestId"].is_number(), "{answer}");
    let pids = [
        answer["pid"].as_u64().unwrap(),
        answer["child"].as_u64().unwrap(),
    ];
    assert!(
        !exited(pids[1]),
        "the server's own child runs while connected"
    );
    manager.shutdown().await;
    // The server and what it started (its process group) end with the connection.
    let deadline = Instant::now() + Duration::from_secs(5);
    while !pids.iter().all(|pid| exited(*pid)) {
        assert!(Instant::now() < deadline, "still running: {pids:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_the_server_never_answers_ends_at_its_call_timeout() {
    let Some(config) = hostile("mute", "whereami") else {
        return;
    };
    let manager =
        McpManager::connect(vec![config.with_call_timeout(Duration::from_millis(300))]).await;
    let started = Instant::now();
    // `grow` is never answered; `echo` is, beside it.
    let turn = run_turn(
        &manager.tools(),
        &[
            ("t1", "mcp__mute__grow", json!({})),
            ("t2", "mcp__mute__echo", json!({"text": "beside"})),
        ],
        Extensions::new(),
        None,
    )
    .await;
    let took = started.elapsed();
    assert!(took < Duration::from_secs(5), "{took:?}");
    assert!(took >= Duration::from_millis(300), "{took:?}");
    assert!(turn.results[0].is_error, "{:?}", turn.results[0]);
    assert!(!turn.results[1].is_error, "{:?}", turn.results[1]);
    manager.shutdown().await;
}

/// Sends `signal` to `pid`.
fn signal(pid: u64, signal: rustix::process::Signal) {
    let pid = rustix::process::Pid::from_raw(i32::try_from(pid).unwrap()).unwrap();
    rustix::process::kill_process(pid, signal).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frozen_server_answers_after_an_abort_and_a_killed_one_fails_its_calls_at_once() {
    use rustix::process::Signal;
    let Some(config) = hostile("frozen", "whereami") else {
        return;
    };
    let manager = McpManager::connect(vec![config]).await;
    let tools = manager.tools();
    let echo = |id: &'static str| (id, "mcp__frozen__echo", json!({"text": id}));
    let first = run_turn(&tools, &[echo("t0")], Extensions::new(), None).await;
    let answer: serde_json::Value = serde_json::from_str(&first.results[0].text()).unwrap();
    let pid = answer["pid"].as_u64().unwrap();

    // Frozen (SIGSTOP): nothing is answered; an abort answers every call at once.
    signal(pid, Signal::STOP);
    let abort = tool_sdk::CancellationToken::new();
    let trigger = abort.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        trigger.cancel();
    });
    let started = Instant::now();
    let turn = tokio::time::timeout(
        Duration::from_secs(10),
        run_turn(
            &tools,
            &[echo("t1"), echo("t2"), echo("t3"), echo("t4")],
            Extensions::new(),
            Some(abort),
        ),
    )
    .await
    .expect("the aborted turn ends");
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_eq!(turn.results.len(), 4);
    assert!(
        turn.results.iter().all(|r| r.is_error),
        "{:?}",
        turn.results
    );

    // Thawed, it answers again: the connection survived.
    signal(pid, Signal::CONT);
    let thawed = run_turn(&tools, &[echo("t5")], Extensions::new(), None).await;
    assert!(!thawed.results[0].is_error, "{:?}", thawed.results[0]);

    // Frozen again and killed while calls wait: they fail when the pipe closes, long before
    // the 120 s call timeout.
    signal(pid, Signal::STOP);
    let killer = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        signal(pid, Signal::KILL);
    });
    let started = Instant::now();
    let turn = tokio::time::timeout(
        Duration::from_secs(20),
        run_turn(
            &tools,
            &[echo("t6"), echo("t7"), echo("t8")],
            Extensions::new(),
            None,
        ),
    )
    .await
    .expect("calls to a killed server end");
    killer.await.unwrap();
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(turn.results.len(), 3);
    for result in &turn.results {
        assert!(result.is_error, "{result:?}");
        assert!(result.text().contains("`frozen`"), "{}", result.text());
    }
    manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_rounds_and_tasks_fail_their_calls_alone_naming_the_server() {
    let Some(server) = hostile("odd", "malformed") else {
        return;
    };
    let manager = McpManager::connect(vec![server]).await;
    let tools = manager.tools();
    let started = Instant::now();
    let turn = run_turn(
        &tools,
        &[
            ("t1", "mcp__odd__bad_rounds", json!({})),
            ("t2", "mcp__odd__bad_task", json!({})),
            ("t3", "mcp__odd__lost_task", json!({})),
            ("t4", "mcp__odd__echo", json!({"text": "still here"})),
        ],
        Extensions::new(),
        None,
    )
    .await;
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(turn.results.len(), 4);
    for (index, cause) in [
        (0, "input_required"),
        (1, "could not report task bad_task"),
        (2, "Unknown task: lost_task"),
    ] {
        let text = turn.results[index].text();
        assert!(turn.results[index].is_error, "{text}");
        assert!(
            text.contains("MCP server `odd`") && text.contains(cause),
            "{text}"
        );
    }
    assert!(!turn.results[3].is_error, "{:?}", turn.results[3]);
    assert!(turn.results[3].text().contains("still here"));
    manager.shutdown().await;
}
