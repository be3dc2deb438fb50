//! What the task tests share: tools declared `#[tool(task = ...)]`, a server of them over
//! HTTP, and an rmcp client that declares (or not) the tasks extension.
#![allow(dead_code)]

use std::sync::Arc;

use futures::future::BoxFuture;
use std::time::Duration;

use rmcp::model::{
    CallToolResponse, ClientCapabilities, ClientConfig, GetTaskParams, GetTaskResult,
    ProtocolVersion, TaskStatus,
};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt as _, ServiceExt as _};
use serde_json::{Value, json};
use tool_registry::mcp::serve::tasks::{
    MemoryTaskStore, TaskEdit, TaskRecord, TaskStore, TaskStoreError,
};
use tool_registry::mcp::serve::{HttpOptions, HttpServer, McpServer, ServedCall};
use tool_registry::{Orchestrator, OrchestratorConfig};
use tool_sdk::elicitation::{Elicitation, ElicitationAnswer};
use tool_sdk::prelude::*;

#[allow(unused_imports)]
pub use crate::mcp_serve_support::call;

/// Sleeps `millis`, then writes `done` into `marker` (when given) and answers.
#[tool(
    name = "sleepy",
    max_result_size_chars = 10_000,
    read_only,
    concurrency_safe,
    task = "optional"
)]
#[derive(Deserialize, JsonSchema)]
pub struct Sleepy {
    /// How long to work, in milliseconds.
    pub millis: u64,
    /// A file to write when the work is done.
    #[serde(default)]
    pub marker: Option<String>,
}

#[tool]
impl Tool for Sleepy {
    type Output = String;
    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        ctx.report_progress(&json!({"message": "working"}));
        tokio::time::sleep(Duration::from_millis(self.millis)).await;
        if let Some(marker) = &self.marker {
            std::fs::write(marker, "done").map_err(|error| ToolError::new(error.to_string()))?;
        }
        Ok(ToolResult::new(format!("slept {} ms", self.millis)))
    }
}

/// Becomes a task, then asks two questions at once.
#[tool(
    name = "two_questions",
    max_result_size_chars = 10_000,
    read_only,
    concurrency_safe,
    task = "optional"
)]
#[derive(Deserialize, JsonSchema)]
pub struct TwoQuestions {}

#[tool]
impl Tool for TwoQuestions {
    type Output = String;
    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        let served = ctx
            .get::<ServedCall>()
            .ok_or_else(|| ToolError::new("served only"))?;
        assert!(served.start_task().await, "the call became a task");
        let question = |field: &str| {
            Elicitation::new(
                format!("Your {field}?"),
                json!({"type": "object", "properties": {field: {"type": "string"}}}),
            )
            .with_id(field)
        };
        let (name, color) =
            tokio::join!(ctx.elicit(question("name")), ctx.elicit(question("color")));
        let field = |answer: ElicitationAnswer, field: &str| match answer {
            ElicitationAnswer::Accept(content) => content[field].as_str().unwrap_or("?").to_owned(),
            other => format!("{other:?}"),
        };
        Ok(ToolResult::new(format!(
            "{} likes {}",
            field(name?, "name"),
            field(color?, "color")
        )))
    }
}

/// Answers at once, but only ever as a task.
#[tool(
    name = "always_a_task",
    max_result_size_chars = 10_000,
    read_only,
    concurrency_safe,
    task = "required"
)]
#[derive(Deserialize, JsonSchema)]
pub struct AlwaysATask {}

#[tool]
impl Tool for AlwaysATask {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new("done".to_owned()))
    }
}

#[derive(Clone)]
pub struct Client {
    pub tasks: bool,
    pub version: ProtocolVersion,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let builder = ClientCapabilities::builder().enable_elicitation();
        let capabilities = if self.tasks {
            builder.enable_tasks().build()
        } else {
            builder.build()
        };
        ClientConfig::new(capabilities, rmcp::model::Implementation::new("t", "1"))
            .with_protocol_version(self.version.clone())
    }
}

/// A server of the task tools of this module; tasks in `store` when given.
pub fn server(store: Option<Arc<dyn TaskStore>>) -> McpServer {
    let tools = [
        tool_sdk::dyn_tool::<Sleepy>(),
        tool_sdk::dyn_tool::<TwoQuestions>(),
        tool_sdk::dyn_tool::<AlwaysATask>(),
        tool_sdk::dyn_tool::<FailsLate>(),
        tool_sdk::dyn_tool::<AskThenWork>(),
        tool_sdk::dyn_tool::<Writes>(),
    ];
    let server = McpServer::new(
        Orchestrator::new(&tools, OrchestratorConfig::default()),
        "t",
        "1",
    )
    .unwrap();
    match store {
        Some(store) => server.with_task_store(store),
        None => server,
    }
}

pub async fn http(server: &McpServer) -> HttpServer {
    server
        .serve_http("127.0.0.1:0".parse().unwrap(), HttpOptions::default())
        .await
        .unwrap()
}

pub async fn connect(
    http: &HttpServer,
    tasks: bool,
    version: ProtocolVersion,
) -> RunningService<RoleClient, Client> {
    let transport = StreamableHttpClientTransport::from_uri(http.url());
    let client = Client {
        tasks,
        version: version.clone(),
    };
    if version == ProtocolVersion::V_2026_07_28 {
        client
            .serve_with_lifecycle(
                transport,
                ClientLifecycleMode::Discover {
                    preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                },
            )
            .await
            .unwrap()
    } else {
        client.serve(transport).await.unwrap()
    }
}

/// The id of the task `response` made.
pub fn task_id(response: CallToolResponse) -> String {
    match response {
        CallToolResponse::Task(created) => created.task.task_id,
        other => panic!("expected a task, got {other:?}"),
    }
}

pub async fn get(client: &RunningService<RoleClient, Client>, id: &str) -> GetTaskResult {
    client.get_task(GetTaskParams::new(id)).await.unwrap()
}

/// The task once its status is not `working` (or is `until`), polling every 50 ms for 10 s.
pub async fn settled(
    client: &RunningService<RoleClient, Client>,
    id: &str,
    until: TaskStatus,
) -> Value {
    for _ in 0..200 {
        let task = get(client, id).await;
        let status = task.task.status();
        if status == until || status.is_terminal() {
            return serde_json::to_value(&task).unwrap();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the task {id} did not settle");
}

/// Works `millis`, then answers with a JSON-RPC error (`ServedCall::fail`): a failed task.
#[tool(
    name = "fails_late",
    max_result_size_chars = 10_000,
    read_only,
    concurrency_safe,
    task = "optional"
)]
#[derive(Deserialize, JsonSchema)]
pub struct FailsLate {
    /// How long to work first, in milliseconds.
    pub millis: u64,
}

#[tool]
impl Tool for FailsLate {
    type Output = String;
    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        tokio::time::sleep(Duration::from_millis(self.millis)).await;
        if let Some(served) = ctx.get::<ServedCall>() {
            served.fail(rmcp::ErrorData::internal_error("the worker crashed", None));
        }
        Err(ToolError::new("the worker crashed"))
    }
}

/// Asks the user's name (a round of the request), then works 600 ms (as a task).
#[tool(
    name = "ask_then_work",
    max_result_size_chars = 10_000,
    read_only,
    concurrency_safe,
    task = "optional"
)]
#[derive(Deserialize, JsonSchema)]
pub struct AskThenWork {}

#[tool]
impl Tool for AskThenWork {
    type Output = String;
    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        let answer = ctx
            .elicit(
                Elicitation::new(
                    "Your name?",
                    json!({"type": "object", "properties": {"name": {"type": "string"}}}),
                )
                .with_id("user_name"),
            )
            .await?;
        tokio::time::sleep(Duration::from_millis(600)).await;
        Ok(ToolResult::new(match answer {
            ElicitationAnswer::Accept(content) => format!("report for {}", content["name"]),
            other => format!("not answered: {other:?}"),
        }))
    }
}

/// A store as a shared backend without change notifications would be: records kept in a
/// [`MemoryTaskStore`], but `changed` only polls (every 100 ms), so a server learns of a
/// change another server made only by reading the store.
#[derive(Default)]
pub struct PollingStore(MemoryTaskStore);

impl TaskStore for PollingStore {
    fn create(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), TaskStoreError>> {
        self.0.create(record)
    }

    fn get<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        self.0.get(task_id)
    }

    fn update<'a>(
        &'a self,
        task_id: &'a str,
        edit: TaskEdit<'a>,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        self.0.update(task_id, edit)
    }

    fn changed<'a>(
        &'a self,
        task_id: &'a str,
        seen: u64,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        Box::pin(async move {
            let started = std::time::Instant::now();
            loop {
                let record = self.0.get(task_id).await?;
                match &record {
                    Some(now) if now.version <= seen && started.elapsed() < timeout => {
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                    _ => return Ok(record),
                }
            }
        })
    }
}

/// Works `millis` and is not concurrency-safe: it runs alone.
#[tool(name = "writes", max_result_size_chars = 10_000, task = "optional")]
#[derive(Deserialize, JsonSchema)]
pub struct Writes {
    /// How long to work, in milliseconds.
    pub millis: u64,
}

#[tool]
impl Tool for Writes {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        tokio::time::sleep(Duration::from_millis(self.millis)).await;
        Ok(ToolResult::new(format!("wrote for {} ms", self.millis)))
    }
}
