//! MCP import against real servers: server-everything (stdio and streamable HTTP),
//! server-filesystem and mcp-server-git (pinned, installed into `target/mcp-peers/` by
//! `scripts/install-mcp-peers.sh`, which `.ci/run` calls), and a hostile scripted server of our
//! own (`tests/mcp_peers/hostile_server.py`). Every call goes through `run_tools`.
//!
//! A test whose peer is not installed prints why and passes, so `cargo test` works on a bare
//! machine; CI installs the peers, so there they run.
#![cfg(feature = "mcp")]

mod mcp_support;

use std::time::{Duration, Instant};

use mcp_support::*;
use serde_json::json;
use tool_registry::mcp::{McpManager, McpServerStatus, McpTransportConfig, StructuredContentStore};
use tool_sdk::{Extensions, ResultBlock, ToolResultContent};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_over_stdio_answers_each_kind_of_call() {
    let Some(config) = everything_stdio("everything") else {
        return;
    };
    let manager = McpManager::connect(vec![config.with_call_timeout(Duration::from_secs(3))]).await;
    assert_eq!(
        manager.statuses()[0].1,
        McpServerStatus::Connected,
        "{:?}",
        manager.statuses()
    );
    let tools = manager.tools();
    let names = tool_names(&tools);
    for expected in [
        "mcp__everything__echo",
        "mcp__everything__get-tiny-image",
        "mcp__everything__get-structured-content",
        "mcp__everything__trigger-long-running-operation",
        "mcp__everything__get-sum",
    ] {
        assert!(
            names.contains(&expected.to_owned()),
            "{expected} not in {names:?}"
        );
    }
    for tool in &tools {
        assert!(tool.meta().is_mcp);
        assert!(tool_registry::search::DeferralRules::default().is_deferred(tool.as_ref()));
    }
    let extensions = Extensions::new().with(StructuredContentStore::new());
    let store = extensions.get_arc::<StructuredContentStore>().unwrap();
    let turn = run_turn(
        &tools,
        &[
            ("t_text", "mcp__everything__echo", json!({"message": "hi"})),
            ("t_image", "mcp__everything__get-tiny-image", json!({})),
            (
                "t_struct",
                "mcp__everything__get-structured-content",
                json!({"location": "Chicago"}),
            ),
            (
                "t_progress",
                "mcp__everything__trigger-long-running-operation",
                json!({"duration": 1, "steps": 4}),
            ),
            (
                "t_timeout",
                "mcp__everything__trigger-long-running-operation",
                json!({"duration": 30, "steps": 2}),
            ),
        ],
        extensions,
        None,
    )
    .await;
    let results = &turn.results;
    assert_eq!(results[0].text(), "Echo: hi");
    assert!(!results[0].is_error);
    let ToolResultContent::Blocks(blocks) = &results[1].content else {
        panic!("an image result has blocks: {:?}", results[1]);
    };
    assert!(blocks.iter().any(|block| matches!(block, ResultBlock::Image { source } if source["media_type"] == "image/png")), "{blocks:?}");
    assert!(!results[2].is_error, "{:?}", results[2]);
    let structured = store.take("t_struct").expect("structuredContent kept");
    assert!(structured.get("temperature").is_some(), "{structured}");
    assert!(
        results[3]
            .text()
            .contains("Long running operation completed"),
        "{:?}",
        results[3]
    );
    let progress: Vec<_> = turn
        .progress
        .iter()
        .filter(|p| &*p.tool_use_id == "t_progress")
        .collect();
    assert_eq!(progress.len(), 4, "{:?}", turn.progress);
    assert_eq!(progress[3].data["progress"], 4);
    assert_eq!(progress[3].data["total"], 4);
    assert!(results[4].is_error);
    assert!(
        results[4].text().contains("did not answer within 3 s"),
        "{}",
        results[4].text()
    );
    manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_call_ends_at_once_and_the_server_goes_on() {
    let Some(config) = everything_stdio("everything") else {
        return;
    };
    let manager = McpManager::connect(vec![config]).await;
    let tools = manager.tools();
    let abort = tool_sdk::CancellationToken::new();
    let trigger = abort.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(700)).await;
        trigger.cancel();
    });
    let started = Instant::now();
    let turn = tokio::time::timeout(
        Duration::from_secs(10),
        run_turn(
            &tools,
            &[(
                "t_long",
                "mcp__everything__trigger-long-running-operation",
                json!({"duration": 20, "steps": 20}),
            )],
            Extensions::new(),
            Some(abort),
        ),
    )
    .await
    .expect("the cancelled turn ends");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert!(turn.results[0].is_error, "{:?}", turn.results[0]);
    // The connection survives the cancellation.
    let turn = tokio::time::timeout(
        Duration::from_secs(10),
        run_turn(
            &tools,
            &[(
                "t_echo",
                "mcp__everything__echo",
                json!({"message": "after"}),
            )],
            Extensions::new(),
            None,
        ),
    )
    .await
    .expect("the next call is answered");
    assert_eq!(turn.results[0].text(), "Echo: after");
    manager.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_over_streamable_http() {
    let log_dir = tempfile::tempdir().unwrap();
    let log = log_dir.path().join("headers.jsonl");
    let Some((mut config, _server)) = everything_http("remote", Some(&log)).await else {
        return;
    };
    // A bearer token read from a variable the test process has (cargo sets CARGO_PKG_NAME for
    // tests; PATH otherwise), and a custom header.
    let token_var = ["CARGO_PKG_NAME", "PATH"]
        .into_iter()
        .find(|name| std::env::var(name).is_ok())
        .unwrap();
    let token = std::env::var(token_var).unwrap();
    let McpTransportConfig::Http {
        headers,
        bearer_token_env,
        ..
    } = &mut config.transport
    else {
        unreachable!("an HTTP server");
    };
    headers.insert("X-Probe".into(), "probe-value".into());
    *bearer_token_env = Some(token_var.to_owned());
    let manager = McpManager::connect(vec![config]).await;
    assert_eq!(
        manager.statuses()[0].1,
        McpServerStatus::Connected,
        "{:?}",
        manager.statuses()
    );
    let tools = manager.tools();
    assert!(tools.len() >= 10, "{:?}", tool_names(&tools));
    let turn = run_turn(
        &tools,
        &[
            ("t1", "mcp__remote__echo", json!({"message": "over http"})),
            ("t2", "mcp__remote__get-sum", json!({"a": 2, "b": 3})),
            (
                "t3",
                "mcp__remote__trigger-long-running-operation",
                json!({"duration": 1, "steps": 2}),
            ),
        ],
        Extensions::new(),
        None,
    )
    .await;
    assert_eq!(turn.results[0].text(), "Echo: over http");
    assert!(
        turn.results[1].text().contains('5'),
        "{:?}",
        turn.results[1]
    );
    assert!(!turn.results[2].is_error, "{:?}", turn.results[2]);
    assert_eq!(turn.progress.len(), 2, "{:?}", turn.progress);
    manager.shutdown().await;
    let requests: Vec<serde_json::Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let posts: Vec<_> = requests.iter().filter(|r| r["method"] == "POST").collect();
    assert!(posts.len() >= 4, "{requests:?}");
    for request in posts {
        assert_eq!(request["authorization"], format!("Bearer {token}"));
        assert_eq!(request["probe"], "probe-value");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn filesystem_and_git_servers_list_and_answer() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("note.txt"), "hello from a file").unwrap();
    let mut configs = Vec::new();
    if let Some(config) = filesystem_stdio("fs", dir.path()) {
        configs.push(config);
    }
    let repo = init_git_repo();
    if let (Some(repo), Some(config)) = (&repo, git_stdio("git")) {
        let _ = repo;
        configs.push(config);
    }
    if configs.is_empty() {
        return;
    }
    let manager = McpManager::connect(configs).await;
    for (name, status) in manager.statuses() {
        assert_eq!(status, McpServerStatus::Connected, "{name}");
    }
    let tools = manager.tools();
    let names = tool_names(&tools);
    let mut blocks = Vec::new();
    if names.contains(&"mcp__fs__read_text_file".to_owned()) {
        let file = dir.path().join("note.txt").canonicalize().unwrap();
        blocks.push(("fs_ok", "mcp__fs__read_text_file", json!({"path": file})));
        blocks.push((
            "fs_err",
            "mcp__fs__read_text_file",
            json!({"path": "/etc/hostname"}),
        ));
        assert!(
            names.contains(&"mcp__fs__list_directory".to_owned()),
            "{names:?}"
        );
    }
    if let Some(repo) = &repo {
        assert!(
            names.contains(&"mcp__git__git_status".to_owned()),
            "{names:?}"
        );
        blocks.push((
            "git_ok",
            "mcp__git__git_status",
            json!({"repo_path": repo.path()}),
        ));
        blocks.push((
            "git_err",
            "mcp__git__git_log",
            json!({"repo_path": "/nonexistent/repo"}),
        ));
    }
    let turn = run_turn(&tools, &blocks, Extensions::new(), None).await;
    for (index, (id, _, _)) in blocks.iter().enumerate() {
        let result = &turn.results[index];
        match *id {
            "fs_ok" => assert_eq!(result.text(), "hello from a file"),
            "fs_err" => {
                assert!(result.is_error);
                assert!(
                    result.text().to_lowercase().contains("denied"),
                    "{}",
                    result.text()
                );
            }
            "git_ok" => assert!(
                !result.is_error && result.text().contains("branch"),
                "{result:?}"
            ),
            "git_err" => assert!(result.is_error, "{result:?}"),
            _ => unreachable!(),
        }
    }
    manager.shutdown().await;
}
