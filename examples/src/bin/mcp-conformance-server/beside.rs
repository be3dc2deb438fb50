//! The conformance suite's resources, prompts and completions, as a plain rmcp
//! `ServerHandler` served beside the tool pool with `McpServer::with_handler` (the one way this
//! SDK offers to serve more than tools).

// `resources/subscribe` and `resources/unsubscribe` are MCP 2025-11-25's (rmcp marks them
// deprecated for 2026-07-28); the suite's 2025-11-25 scenarios call them.
#![allow(deprecated)]

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use rmcp::model::{
    CacheScope, CompleteRequestParams, CompleteResult, CompletionInfo, ContentBlock, ElicitRequest,
    ElicitRequestParams, GetPromptRequestParams, GetPromptResponse, GetPromptResult, ImageContent,
    InputRequest, InputRequests, InputRequiredResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, PaginatedRequestParams, Prompt,
    PromptArgument, PromptMessage, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, Reference, Resource, ResourceContents, ResourceTemplate, Role,
    ServerCapabilities, ServerConfig, SubscribeRequestParams, UnsubscribeRequestParams,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler};
use serde_json::json;

use super::RED_PIXEL_PNG;

/// How long a client may reuse a list or a read (SEP-2549 `ttlMs`): the suite's resources and
/// prompts never change while the server runs.
const CACHE_TTL_MS: u64 = 60_000;

/// The suite's fixed resources (`test://static-text`, `test://static-binary`), its template
/// (`test://template/{id}/data`), its prompts and its completions.
#[derive(Clone, Default)]
pub struct SuiteContent {
    /// The URIs subscribed to with `resources/subscribe` (2025-11-25).
    subscribed: Arc<Mutex<BTreeSet<String>>>,
}

impl ServerHandler for SuiteContent {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_resources()
                .enable_resources_subscribe()
                .enable_prompts()
                .enable_completions()
                .build(),
        )
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let resources = vec![
            Resource::new("test://static-text", "Static Text Resource")
                .with_description("A static text resource for testing")
                .with_mime_type("text/plain"),
            Resource::new("test://static-binary", "Static Binary Resource")
                .with_description("A static binary resource for testing")
                .with_mime_type("image/png"),
        ];
        Ok(ListResourcesResult::with_all_items(resources)
            .with_ttl_ms(CACHE_TTL_MS)
            .with_cache_scope(CacheScope::Public))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let templates = vec![
            ResourceTemplate::new("test://template/{id}/data", "Dynamic Resource")
                .with_description("A resource whose URI names an id")
                .with_mime_type("application/json"),
        ];
        Ok(ListResourceTemplatesResult::with_all_items(templates)
            .with_ttl_ms(CACHE_TTL_MS)
            .with_cache_scope(CacheScope::Public))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri.as_str();
        let contents = match uri {
            "test://static-text" => ResourceContents::TextResourceContents {
                uri: uri.to_owned(),
                mime_type: Some("text/plain".to_owned()),
                text: "This is the content of the static text resource.".to_owned(),
                meta: None,
            },
            "test://static-binary" => ResourceContents::BlobResourceContents {
                uri: uri.to_owned(),
                mime_type: Some("image/png".to_owned()),
                blob: RED_PIXEL_PNG.to_owned(),
                meta: None,
            },
            _ => {
                let Some(id) = uri
                    .strip_prefix("test://template/")
                    .and_then(|rest| rest.strip_suffix("/data"))
                    .filter(|id| !id.is_empty() && !id.contains('/'))
                else {
                    return Err(ErrorData::resource_not_found(
                        format!("Resource not found: {uri}"),
                        Some(json!({ "uri": uri })),
                    ));
                };
                ResourceContents::TextResourceContents {
                    uri: uri.to_owned(),
                    mime_type: Some("application/json".to_owned()),
                    text: json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")})
                        .to_string(),
                    meta: None,
                }
            }
        };
        Ok(ReadResourceResult::new(vec![contents])
            .with_ttl_ms(CACHE_TTL_MS)
            .with_cache_scope(CacheScope::Public)
            .into())
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.subscribed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(request.uri);
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.subscribed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&request.uri);
        Ok(())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let prompts = vec![
            Prompt::new(
                "test_simple_prompt",
                Some("A simple prompt without arguments"),
                None,
            ),
            Prompt::new(
                "test_prompt_with_arguments",
                Some("A prompt that takes arguments"),
                Some(vec![
                    PromptArgument::new("arg1")
                        .with_description("The first argument")
                        .with_required(true),
                    PromptArgument::new("arg2")
                        .with_description("The second argument")
                        .with_required(false),
                ]),
            ),
            Prompt::new(
                "test_prompt_with_embedded_resource",
                Some("A prompt that embeds a resource"),
                None,
            ),
            Prompt::new(
                "test_prompt_with_image",
                Some("A prompt that carries an image"),
                None,
            ),
            Prompt::new(
                "test_input_required_result_prompt",
                Some("A prompt that asks the user for its context first (MCP 2026-07-28)"),
                None,
            ),
        ];
        Ok(ListPromptsResult::with_all_items(prompts)
            .with_ttl_ms(CACHE_TTL_MS)
            .with_cache_scope(CacheScope::Public))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let result = match request.name.as_str() {
            // A multi round-trip request on a prompt (SEP-2322): ask, then answer with it.
            "test_input_required_result_prompt" => {
                let answer = request
                    .input_responses
                    .as_ref()
                    .and_then(|responses| responses.get("user_context"))
                    .filter(|answer| answer.is_object());
                let Some(answer) = answer else {
                    let question = ElicitRequestParams::FormElicitationParams {
                        meta: None,
                        message: "What context should the prompt use?".to_owned(),
                        requested_schema: serde_json::from_value(json!({
                            "type": "object",
                            "properties": {"context": {"type": "string"}},
                            "required": ["context"],
                        }))
                        .map_err(|error| ErrorData::internal_error(error.to_string(), None))?,
                    };
                    let mut questions = InputRequests::new();
                    questions.insert(
                        "user_context".to_owned(),
                        InputRequest::Elicitation(ElicitRequest::new(question)),
                    );
                    return Ok(InputRequiredResult::from_input_requests(questions).into());
                };
                let context = answer["content"]["context"].as_str().unwrap_or("(none)");
                GetPromptResult::new(vec![PromptMessage::new_text(
                    Role::User,
                    format!("Prompt with the context: {context}"),
                )])
            }
            "test_simple_prompt" => GetPromptResult::new(vec![PromptMessage::new_text(
                Role::User,
                "This is a simple test prompt.",
            )]),
            "test_prompt_with_arguments" => {
                let arguments = request.arguments.unwrap_or_default();
                let argument = |name: &str| {
                    arguments
                        .get(name)
                        .and_then(|value| value.as_str())
                        .unwrap_or("")
                        .to_owned()
                };
                GetPromptResult::new(vec![PromptMessage::new_text(
                    Role::User,
                    format!(
                        "Prompt with arguments: arg1='{}', arg2='{}'",
                        argument("arg1"),
                        argument("arg2")
                    ),
                )])
            }
            "test_prompt_with_embedded_resource" => GetPromptResult::new(vec![
                PromptMessage::new_text(Role::User, "Here is a resource:"),
                PromptMessage::new_resource(
                    Role::User,
                    "test://static-text".to_owned(),
                    Some("text/plain".to_owned()),
                    Some("This is the content of the static text resource.".to_owned()),
                    None,
                    None,
                    None,
                ),
            ]),
            "test_prompt_with_image" => GetPromptResult::new(vec![
                PromptMessage::new_text(Role::User, "Here is an image:"),
                PromptMessage::new(
                    Role::User,
                    ContentBlock::Image(ImageContent::new(RED_PIXEL_PNG, "image/png")),
                ),
            ]),
            name => {
                return Err(ErrorData::invalid_params(
                    format!(
                        "Unknown prompt: {name}. prompts/list gives the prompts this server has."
                    ),
                    None,
                ));
            }
        };
        Ok(result.into())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let argument = request.argument.name.as_str();
        let typed = request.argument.value.as_str();
        let candidates: &[&str] = match (&request.r#ref, argument) {
            (Reference::Resource(_), "id") => &["1", "2", "3"],
            (Reference::Prompt(_), "arg1" | "name") => &["Alice", "Bob", "Charlie"],
            (Reference::Prompt(_), "arg2" | "style") => &["friendly", "formal", "casual"],
            _ => &[],
        };
        let values = candidates
            .iter()
            .filter(|value| value.starts_with(typed))
            .map(|value| (*value).to_owned())
            .collect();
        let info =
            CompletionInfo::new(values).map_err(|error| ErrorData::internal_error(error, None))?;
        Ok(CompleteResult::new(info))
    }
}
