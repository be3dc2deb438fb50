//! Rendering 10,000 tool definitions through the session schema cache (SPEC §8.4): cold (a
//! fresh cache, every tool captured) and warm (every tool already captured), for the
//! Anthropic and OpenAI strict targets.
//!
//! `cargo bench -p tool-registry --bench render`

use std::sync::Arc;
use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use tool_registry::dynamic::{McpImportOptions, mcp_tools_from_list};
use tool_registry::export::{RenderRequest, SchemaCache};
use tool_registry::providers::ModelApi;
use tool_sdk::DynTool;

/// 10,000 MCP tools of 100 servers, each with a small but realistic schema.
fn tools() -> Vec<Arc<dyn DynTool>> {
    let mut tools = Vec::with_capacity(10_000);
    for server in 0..100 {
        let entries: Vec<Value> = (0..100)
            .map(|index| {
                json!({
                    "name": format!("tool_{index:03}"),
                    "description": format!("Tool {index} of server {server}: reads a path and returns its text."),
                    "inputSchema": {
                        "type": "object",
                        "properties": {
                            "path": {"type": "string", "description": "The file to read."},
                            "head": {"type": "integer", "description": "Only the first N lines."},
                            "tags": {"type": "array", "items": {"type": "string"}}
                        },
                        "required": ["path"]
                    },
                    "annotations": {"readOnlyHint": true}
                })
            })
            .collect();
        tools.extend(
            mcp_tools_from_list(
                &format!("server{server}"),
                &json!({"tools": entries}),
                &McpImportOptions::default(),
            )
            .expect("valid tools")
            .tools,
        );
    }
    tools
}

fn render(c: &mut Criterion) {
    let tools = tools();
    let plain = RenderRequest::default();
    let strict = RenderRequest {
        strict: true,
        ..RenderRequest::default()
    };
    let mut group = c.benchmark_group("render_10k");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    for (label, target, request) in [
        ("anthropic", ModelApi::Anthropic, &plain),
        ("openai_chat_strict", ModelApi::OpenAiChat, &strict),
    ] {
        group.bench_function(format!("{label}/cold"), |b| {
            b.iter_batched(
                SchemaCache::new,
                |cache| {
                    target
                        .definitions_json(&cache, &tools, request)
                        .expect("renders")
                },
                BatchSize::PerIteration,
            );
        });
        let cache = SchemaCache::new();
        let first = target
            .definitions_json(&cache, &tools, request)
            .expect("renders");
        group.bench_function(format!("{label}/warm"), |b| {
            b.iter(|| {
                let again = target
                    .definitions_json(&cache, &tools, request)
                    .expect("renders");
                assert_eq!(again.len(), first.len());
                again
            });
        });
    }
    group.finish();
}

criterion_group!(benches, render);
criterion_main!(benches);
