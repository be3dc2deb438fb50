//! MCP import costs: a no-op `tools/call` round trip over stdio against server-everything's
//! `echo` (tool-sdk's imported `DynamicTool` through rmcp, side by side with rmcp's own `call_tool` on a
//! bare client, the peer), and assembling a pool from 10 servers × 100 listed tools
//! (normalising the raw entries, building the tools, sorting and de-duplicating the pool).
//!
//! Run: `scripts/install-mcp-peers.sh && nice -n 19 cargo bench -p tool-registry --features mcp --bench mcp -- --warm-up-time 2 --measurement-time 5`

use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use rmcp::ServiceExt;
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation, ProtocolVersion,
};
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};
use tool_registry::PoolConfig;
use tool_registry::ToolPermissionContext;
use tool_registry::dynamic::{McpImportOptions, mcp_tools_from_list};
use tool_registry::mcp::{McpManager, McpServerConfig};
use tool_registry::test_support::assemble_tool_pool;
use tool_sdk::{DynTool, ToolUseContext};

fn everything_entry() -> Option<String> {
    let entry = Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "../target/mcp-peers/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    );
    entry.is_file().then(|| entry.display().to_string())
}

fn round_trip(c: &mut Criterion) {
    let Some(entry) = everything_entry() else {
        eprintln!("SKIPPED: server-everything is not installed; run scripts/install-mcp-peers.sh");
        return;
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let config = McpServerConfig::stdio("everything", "node", vec![entry.clone(), "stdio".into()]);
    let manager = runtime.block_on(McpManager::connect(vec![config]));
    let tools = manager.tools();
    let echo = tools
        .iter()
        .find(|tool| tool.name() == "mcp__everything__echo")
        .expect("echo listed")
        .clone();
    let mut group = c.benchmark_group("mcp_echo_round_trip");
    group.bench_function("tool_sdk_imported_tool", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let call = echo.parse_input(&json!({"message": "x"})).unwrap();
                black_box(
                    call.call(&ToolUseContext::detached("toolu_1"))
                        .await
                        .unwrap(),
                )
            })
        });
    });
    let bare = runtime.block_on(async {
        let mut command = tokio::process::Command::new("node");
        command.arg(&entry).arg("stdio");
        // The same handshake as tool-sdk's import: MCP 2025-11-25.
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("bench", "0"),
        )
        .with_protocol_version(ProtocolVersion::V_2025_11_25)
        .serve(TokioChildProcess::new(command).unwrap())
        .await
        .unwrap()
    });
    group.bench_function("rmcp_call_tool", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let mut params = CallToolRequestParams::new("echo");
                params.arguments = json!({"message": "x"}).as_object().cloned();
                black_box(bare.peer().call_tool(params).await.unwrap())
            })
        });
    });
    group.finish();
    runtime.block_on(async {
        manager.shutdown().await;
        drop(bare);
    });
}

fn listed_tools(server: usize) -> Vec<Value> {
    (0..100)
        .map(|tool| {
            json!({
                "name": format!("tool_{tool}.op"),
                "description": format!("Operation {tool} of server {server}: reads or writes records."),
                "inputSchema": {"type": "object", "properties": {
                    "id": {"type": "string"}, "limit": {"type": "integer"}
                }, "required": ["id"]},
                "annotations": {"readOnlyHint": tool % 2 == 0}
            })
        })
        .collect()
}

fn pool_assembly(c: &mut Criterion) {
    let servers: Vec<(String, Value)> = (0..10)
        .map(|server| {
            (
                format!("server{server}"),
                json!({"tools": listed_tools(server)}),
            )
        })
        .collect();
    let permissions = ToolPermissionContext::default();
    c.bench_function("mcp_pool_10_servers_x_100_tools", |b| {
        b.iter(|| {
            let mut tools: Vec<Arc<dyn DynTool>> = Vec::with_capacity(1000);
            for (server, list) in &servers {
                tools.extend(
                    mcp_tools_from_list(server, list, &McpImportOptions::default())
                        .expect("a tools array")
                        .tools,
                );
            }
            black_box(
                assemble_tool_pool(&[], &permissions, &tools, &PoolConfig::default()).unwrap(),
            )
        });
    });
}

criterion_group!(benches, round_trip, pool_assembly);
criterion_main!(benches);
