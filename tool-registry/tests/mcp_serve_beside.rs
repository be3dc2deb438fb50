//! `McpServer::with_handler`: a user's own rmcp handler answers resources, prompts and
//! completions beside the tool pool, over both MCP revisions.
#![cfg(feature = "mcp-server")]

use rmcp::model::{
    CompleteRequestParams, CompleteResult, CompletionInfo, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, ListResourcesResult, PaginatedRequestParams, PromptMessage,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Reference, Resource,
    ResourceContents, Role, ServerCapabilities, ServerConfig,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler};
use serde_json::json;
use tool_registry::OrchestratorConfig;

mod mcp_serve_support;
use mcp_serve_support::*;

/// One resource, one prompt, completions for the prompt's argument; and a tool of its own,
/// which the server must not serve (tools are the pool's).
#[derive(Clone)]
struct Docs;

impl ServerHandler for Docs {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_resources()
                .enable_prompts()
                .enable_completions()
                .enable_tools()
                .build(),
        )
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(vec![Resource::new(
            "docs://readme",
            "README",
        )]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri != "docs://readme" {
            return Err(ErrorData::resource_not_found(
                format!("no resource {}", request.uri),
                None,
            ));
        }
        Ok(
            ReadResourceResult::new(vec![ResourceContents::text("# Hello", "docs://readme")])
                .into(),
        )
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let topic = request
            .arguments
            .and_then(|arguments| arguments.get("topic")?.as_str().map(str::to_owned))
            .unwrap_or_default();
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(
            Role::User,
            format!("Explain {topic}"),
        )])
        .into())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let values = match &request.r#ref {
            Reference::Prompt(_) => vec!["tools".to_owned(), "tasks".to_owned()],
            _ => Vec::new(),
        };
        Ok(CompleteResult::new(CompletionInfo::new(values).unwrap()))
    }
}

#[tokio::test]
async fn resources_prompts_and_completions_come_from_the_handler_and_tools_from_the_pool() {
    let server = serve_pool(&[chatty_tool()], OrchestratorConfig::default()).with_handler(Docs);
    let (client, _) = connect(&server).await;
    let capabilities = client.peer().peer_info().unwrap().capabilities.clone();
    assert!(capabilities.tools.is_some());
    assert!(capabilities.resources.is_some());
    assert!(capabilities.prompts.is_some());
    assert!(capabilities.completions.is_some());

    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(
        tools
            .iter()
            .map(|tool| tool.name.as_ref())
            .collect::<Vec<_>>(),
        ["chatty"]
    );
    let resources = client.list_all_resources().await.unwrap();
    assert_eq!(resources[0].uri, "docs://readme");
    let read = client
        .read_resource(ReadResourceRequestParams::new("docs://readme"))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&read.contents[0]).unwrap()["text"],
        json!("# Hello")
    );
    let missing = client
        .read_resource(ReadResourceRequestParams::new("docs://nothing"))
        .await
        .unwrap_err();
    assert!(
        missing.to_string().contains("no resource docs://nothing"),
        "{missing}"
    );

    let mut arguments = serde_json::Map::new();
    arguments.insert("topic".to_owned(), json!("MCP"));
    let prompt = client
        .get_prompt(GetPromptRequestParams::new("explain").with_arguments(arguments))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&prompt.messages[0]).unwrap()["content"]["text"],
        json!("Explain MCP")
    );
    let completion = client
        .complete(CompleteRequestParams::new(
            Reference::for_prompt("explain"),
            serde_json::from_value(json!({"name": "topic", "value": "t"})).unwrap(),
        ))
        .await
        .unwrap();
    assert_eq!(completion.completion.values, ["tools", "tasks"]);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn without_a_handler_the_server_declares_and_answers_tools_only() {
    let server = serve_pool(&[chatty_tool()], OrchestratorConfig::default());
    let (client, _) = connect(&server).await;
    let capabilities = client.peer().peer_info().unwrap().capabilities.clone();
    assert!(capabilities.tools.is_some());
    assert!(capabilities.resources.is_none());
    assert!(capabilities.prompts.is_none());
    let error = client.list_all_resources().await.unwrap_err();
    assert!(error.to_string().contains("resources/list"), "{error}");
    client.cancel().await.unwrap();
}
