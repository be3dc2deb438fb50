//! `mcp-conformance-client`: the MCP client under test of the official MCP conformance suite
//! (npm `@modelcontextprotocol/conformance`), built on `tool_registry::mcp` (rmcp's client
//! underneath): the server is imported as MCP tools and called through `run_tools`, as a host
//! would.
//!
//! ```text
//! MCP_CONFORMANCE_SCENARIO=tools_call mcp-conformance-client http://localhost:PORT/mcp
//! conformance client --command target/debug/mcp-conformance-client --scenario tools_call
//! ```
//!
//! The suite appends the server URL as the last argument, names the scenario in
//! `MCP_CONFORMANCE_SCENARIO` and may pass `MCP_CONFORMANCE_CONTEXT` (JSON). The client does
//! what a host built on the import does, whatever the scenario: connect (`server/discover`
//! first, `initialize` for servers before MCP 2026-07-28), list the tools, then call them:
//! none for `initialize`; the context's `toolCalls` when it lists some; in
//! `json-schema-2020-12-preservation` the schema echo (the other tool's input schema as
//! imported, sent back through the tool that takes a `schema`); otherwise every listed tool
//! with the inputs its schema asks for. A server's questions during a call (elicitation) are
//! accepted with the defaults their schema gives.
//!
//! A server that asks for OAuth gets what the import does for any host: discovery, the
//! client identified by the context's `client_id` (pre-registered) or this client's metadata
//! document, the client-credentials grant when the context gives a secret or a private key
//! and the authorization server supports it, else the authorization-code grant with PKCE,
//! whose "user" follows the authorization URL at once and hands back the redirect
//! ([`FollowingLogin`]); step-up on 403, refresh, and the issuer checks are the import's.
//!
//! Each result is printed on stdout; the exit status is 0 when the scenario's steps all
//! succeeded and 1 otherwise (with the reason on stderr). Logs go to stderr, filtered by
//! `RUST_LOG`.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::{Value, json};
use tool_registry::ToolPermissionContext;
use tool_registry::mcp::{
    ClientCredentials, McpManager, McpOAuth, McpServerConfig, McpServerStatus, OAuthLogin,
};
use tool_registry::permissions::{AliasTable, PermissionBehavior, PermissionRuleSource};
use tool_registry::{Orchestrator, OrchestratorConfig, TurnState};
use tool_sdk::elicitation::{Elicitation, ElicitationAnswer, Elicitor};
use tool_sdk::{DynTool, Extensions, ToolError, ToolUseBlock};

/// The name the server under test is imported under (`mcp__conformance__TOOL`).
const SERVER: &str = "conformance";

/// Each step's limit: well inside the suite's 30 s per scenario, so a failure is ours to
/// report rather than a suite timeout.
const STEP_TIMEOUT: Duration = Duration::from_secs(10);

/// A step of a scenario: call `tool` with `input`.
struct Call {
    tool: String,
    input: Value,
}

/// The calls a scenario makes after connecting: `initialize` makes none; the calls the suite
/// lists in `MCP_CONFORMANCE_CONTEXT`'s `toolCalls` when it lists some; in
/// `json-schema-2020-12-preservation`, the schema echo (the input schema of the server's other
/// tool, as this client imported it, sent back through the tool that takes a `schema`);
/// otherwise each tool the server lists, as a host whose model picked them would, with the
/// inputs its schema asks for ([`input_for`]).
fn scenario_calls(scenario: &str, context: &Value, tools: &[Arc<dyn DynTool>]) -> Vec<Call> {
    if scenario == "initialize" {
        return Vec::new();
    }
    if let Some(listed) = context["toolCalls"].as_array() {
        return listed
            .iter()
            .filter_map(|call| {
                Some(Call {
                    tool: call["name"].as_str()?.to_owned(),
                    input: call["arguments"].clone(),
                })
            })
            .collect();
    }
    let raw = |tool: &Arc<dyn DynTool>| {
        tool.meta()
            .mcp_info
            .as_ref()
            .map(|info| info.tool_name.clone())
    };
    if scenario == "json-schema-2020-12-preservation" {
        let takes_schema =
            |tool: &Arc<dyn DynTool>| tool.input_schema()["properties"]["schema"].is_object();
        let echo = tools.iter().find(|tool| takes_schema(tool));
        let focal = tools.iter().find(|tool| !takes_schema(tool));
        if let (Some(echo), Some(focal)) = (echo, focal) {
            return vec![Call {
                tool: raw(echo).unwrap_or_default(),
                input: json!({"schema": focal.input_schema()}),
            }];
        }
    }
    tools
        .iter()
        .filter_map(|tool| {
            let raw = tool.meta().mcp_info.as_ref()?.tool_name.clone();
            let input = input_for(&raw, tool.input_schema());
            Some(Call { tool: raw, input })
        })
        .collect()
}

/// An input for a tool: the suite's own for the tools it names (`add_numbers`: 5 and 3),
/// otherwise each required property's default, or a value of its type (`"test"`, 1, 1.0,
/// `true`, the first enum value).
fn input_for(tool: &str, schema: &Value) -> Value {
    if tool == "add_numbers" {
        return json!({"a": 5, "b": 3});
    }
    let mut input = serde_json::Map::new();
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for (name, property) in schema["properties"].as_object().into_iter().flatten() {
        let value = match (&property["default"], &property["enum"]) {
            (Value::Null, Value::Array(choices)) if !choices.is_empty() => choices[0].clone(),
            (Value::Null, _) => match property["type"].as_str() {
                Some("integer") => json!(1),
                Some("number") => json!(1.0),
                Some("boolean") => json!(true),
                Some("array") => json!([]),
                Some("object") => json!({}),
                _ => json!("test"),
            },
            (default, _) => default.clone(),
        };
        if required.contains(&name.as_str()) || !property["default"].is_null() {
            input.insert(name.clone(), value);
        }
    }
    Value::Object(input)
}

fn main() -> ExitCode {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("mcp-conformance-client: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let url = std::env::args().skip(1).last().ok_or(
        "usage: MCP_CONFORMANCE_SCENARIO=NAME mcp-conformance-client SERVER_URL (the suite appends the URL)",
    )?;
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").map_err(
        |_| "MCP_CONFORMANCE_SCENARIO is not set; set it to the scenario's name (initialize connects and lists only; any other calls every tool)",
    )?;
    let context = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .unwrap_or(Value::Null);
    let config = McpServerConfig::parse_url_spec(&format!("{SERVER}={url}"))
        .map_err(|error| error.to_string())?
        .with_connect_timeout(STEP_TIMEOUT)
        .with_call_timeout(STEP_TIMEOUT)
        .with_oauth(oauth(&context));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|error| format!("cannot start the async runtime: {error}"))?;
    runtime.block_on(async {
        let manager = McpManager::connect(vec![config]).await;
        let outcome = run_calls(&manager, &scenario, &context).await;
        manager.shutdown().await;
        outcome
    })
}

async fn run_calls(manager: &McpManager, scenario: &str, context: &Value) -> Result<(), String> {
    let server = manager
        .servers()
        .into_iter()
        .next()
        .ok_or("no server was configured")?;
    if server.status != McpServerStatus::Connected {
        return Err(format!("the server did not connect: {}", server.status));
    }
    for skipped in &server.skipped {
        eprintln!("mcp-conformance-client: warning: {skipped}");
    }
    let tools = manager.tools();
    println!(
        "connected; {} tools: {}",
        tools.len(),
        tools
            .iter()
            .filter_map(|tool| tool.meta().mcp_info.as_ref())
            .map(|info| info.tool_name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let calls = scenario_calls(scenario, context, &tools);
    if calls.is_empty() {
        return Ok(());
    }
    let blocks = calls
        .iter()
        .enumerate()
        .map(|(index, call)| {
            let name = exported_name(&tools, &call.tool)?;
            Ok(ToolUseBlock {
                id: format!("toolu_{index}"),
                name,
                input: call.input.clone(),
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    // The user of this host allowed the server under test (an `mcp__SERVER` rule, SPEC §6).
    let mut permissions = ToolPermissionContext::default();
    permissions.add_rule_str(
        PermissionRuleSource::CliArg,
        PermissionBehavior::Allow,
        &format!("mcp__{SERVER}"),
        &AliasTable::default(),
    );
    let turn = Orchestrator::new(&tools, OrchestratorConfig::default())
        .with_permissions(permissions)
        .run_tools(
            blocks,
            TurnState {
                extensions: Extensions::new().with::<Arc<dyn Elicitor>>(Arc::new(Defaults)),
                ..TurnState::default()
            },
        )
        .collect_results()
        .await;
    let mut failed = Vec::new();
    for (call, result) in calls.iter().zip(&turn.results) {
        let text = result.text();
        println!(
            "{}: {}{text}",
            call.tool,
            if result.is_error { "error: " } else { "" }
        );
        if result.is_error {
            failed.push(format!("`{}` answered with an error: {text}", call.tool));
        }
    }
    if turn.results.len() != calls.len() {
        failed.push(format!(
            "{} calls made, {} results",
            calls.len(),
            turn.results.len()
        ));
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(failed.join("; "))
    }
}

/// This client's OAuth: its metadata document's URL and name, its login ([`FollowingLogin`]),
/// and what the suite's context gives it: a pre-registered `client_id` with its
/// `client_secret` (used as client credentials too, where the authorization server takes
/// them), or a `private_key_pem` for `private_key_jwt` client credentials.
fn oauth(context: &Value) -> McpOAuth {
    let mut oauth = McpOAuth::new()
        .with_client_metadata_url(CLIENT_METADATA_URL)
        .with_client_name("tool-sdk conformance client")
        .with_login(Arc::new(FollowingLogin));
    let text = |key: &str| context[key].as_str().map(str::to_owned);
    if let Some(client_id) = text("client_id") {
        if let Some(secret) = text("client_secret") {
            oauth = oauth
                .with_client_id(client_id.clone(), Some(secret.clone()))
                .with_client_credentials(ClientCredentials::Secret {
                    client_id,
                    client_secret: secret,
                });
        } else if let Some(key) = text("private_key_pem") {
            oauth = oauth.with_client_credentials(ClientCredentials::PrivateKeyJwt {
                client_id,
                private_key_pem: key,
                algorithm: text("signing_algorithm").unwrap_or_else(|| "ES256".to_owned()),
            });
        } else {
            oauth = oauth.with_client_id(client_id, None);
        }
    }
    oauth
}

/// The URL of this client's metadata document (MCP "Client ID Metadata Documents"); the
/// suite's authorization servers accept it without fetching it.
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// The user of this client, who approves every login at once: the authorization URL is
/// fetched without following its redirect, and the redirect's `Location` is the answer, as
/// a browser would deliver it to the redirect URI.
struct FollowingLogin;

impl OAuthLogin for FollowingLogin {
    fn redirect_uri(&self) -> String {
        "http://localhost:3000/callback".to_owned()
    }

    fn authorize<'a>(
        &'a self,
        _server: &'a str,
        authorization_url: &'a str,
    ) -> BoxFuture<'a, Result<String, String>> {
        Box::pin(async move {
            let http = reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .map_err(|error| error.to_string())?;
            let response = http
                .get(authorization_url)
                .send()
                .await
                .map_err(|error| format!("the authorization URL: {error}"))?;
            response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|location| location.to_str().ok())
                .map(str::to_owned)
                .ok_or_else(|| {
                    format!(
                        "the authorization endpoint answered {} without a redirect",
                        response.status()
                    )
                })
        })
    }
}

/// The user of this client accepts every question a server asks with the defaults its
/// schema gives (and nothing for a field without one).
struct Defaults;

impl Elicitor for Defaults {
    fn elicit<'a>(
        &'a self,
        _tool_use_id: &'a str,
        request: Elicitation,
    ) -> BoxFuture<'a, Result<ElicitationAnswer, ToolError>> {
        let mut content = serde_json::Map::new();
        for (name, field) in request.requested_schema["properties"]
            .as_object()
            .into_iter()
            .flatten()
        {
            if !field["default"].is_null() {
                content.insert(name.clone(), field["default"].clone());
            }
        }
        Box::pin(async move { Ok(ElicitationAnswer::Accept(content)) })
    }
}

/// The pool name of the server's tool `raw` (`mcp__conformance__RAW`, as cleaned on import).
fn exported_name(tools: &[Arc<dyn DynTool>], raw: &str) -> Result<String, String> {
    tools
        .iter()
        .find(|tool| {
            tool.meta()
                .mcp_info
                .as_ref()
                .is_some_and(|info| info.tool_name == raw)
        })
        .map(|tool| tool.name().to_owned())
        .ok_or_else(|| format!("the server lists no tool `{raw}`"))
}
