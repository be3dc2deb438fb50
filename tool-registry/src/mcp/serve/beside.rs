//! Resources, prompts and completions beside the tool pool: a user's own rmcp
//! [`ServerHandler`](rmcp::ServerHandler), set with [`super::McpServer::with_handler`], answers
//! `resources/list`, `resources/templates/list`, `resources/read`, `resources/subscribe`,
//! `resources/unsubscribe`, `prompts/list`, `prompts/get` and `completion/complete`; the pool
//! keeps `tools/*`, logging and the lifecycle. The handler's declared `resources`, `prompts`
//! and `completions` capabilities are added to the server's own.

// `resources/subscribe` and `resources/unsubscribe` are MCP 2025-11-25's (rmcp marks them
// deprecated for 2026-07-28, which uses `subscriptions/listen`); 2025-11-25 clients use them.
#![allow(deprecated)]

use rmcp::ErrorData;
use rmcp::model::{
    ClientRequest, CompleteRequest, CompleteRequestParams, CompleteResult, GetPromptRequest,
    GetPromptRequestParams, GetPromptResponse, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, PaginatedRequestParams, ReadResourceRequest, ReadResourceRequestParams,
    ReadResourceResponse, RequestOptionalParam, ServerCapabilities, ServerResult, SubscribeRequest,
    SubscribeRequestParams, UnsubscribeRequest, UnsubscribeRequestParams,
};
use rmcp::service::{DynService, RequestContext, RoleServer};

/// The user's handler, type-erased (rmcp's `DynService`), and the capabilities it declares.
pub(crate) struct Beside {
    service: Box<dyn DynService<RoleServer>>,
}

impl Beside {
    pub(crate) fn new<H: rmcp::ServerHandler>(handler: H) -> Self {
        Self {
            service: rmcp::ServiceExt::<RoleServer>::into_dyn(handler),
        }
    }

    /// `ours` with the handler's `resources`, `prompts` and `completions` capabilities
    /// (ours win where both declare one).
    pub(crate) fn add_capabilities(&self, ours: &mut ServerCapabilities) {
        let theirs = self.service.get_info().capabilities;
        if ours.resources.is_none() {
            ours.resources = theirs.resources;
        }
        if ours.prompts.is_none() {
            ours.prompts = theirs.prompts;
        }
        if ours.completions.is_none() {
            ours.completions = theirs.completions;
        }
    }

    async fn forward(
        &self,
        request: ClientRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<ServerResult, ErrorData> {
        self.service.handle_request(request, context).await
    }
}

/// The error for a handler that answered a request with another request's result.
fn mismatched(method: &str) -> ErrorData {
    ErrorData::internal_error(
        format!("the server's {method} handler answered with a result of another kind"),
        None,
    )
}

/// Answers one kind of request through [`Beside::forward`]: the method, its params, how the
/// request is made from them, and which results are accepted (pattern => value).
macro_rules! forward {
    ($name:ident, $method:literal, $params:ty, $result:ty, |$p:ident| $make:expr,
     { $($pattern:pat => $value:expr),+ $(,)? }) => {
        pub(crate) async fn $name(
            &self,
            $p: $params,
            context: RequestContext<RoleServer>,
        ) -> Result<$result, ErrorData> {
            match self.forward($make, context).await? {
                $($pattern => Ok($value),)+
                _ => Err(mismatched($method)),
            }
        }
    };
}

impl Beside {
    forward!(list_resources, "resources/list", Option<PaginatedRequestParams>,
        ListResourcesResult,
        |params| ClientRequest::ListResourcesRequest(optional(params)),
        { ServerResult::ListResourcesResult(result) => result });
    forward!(list_resource_templates, "resources/templates/list",
        Option<PaginatedRequestParams>, ListResourceTemplatesResult,
        |params| ClientRequest::ListResourceTemplatesRequest(
            optional(params)),
        { ServerResult::ListResourceTemplatesResult(result) => result });
    forward!(read_resource, "resources/read", ReadResourceRequestParams, ReadResourceResponse,
    |params| ClientRequest::ReadResourceRequest(ReadResourceRequest::new(params)),
    {
        ServerResult::ReadResourceResult(result) => ReadResourceResponse::Complete(result),
        ServerResult::InputRequiredResult(input) => ReadResourceResponse::InputRequired(input),
    });
    forward!(subscribe, "resources/subscribe", SubscribeRequestParams, (),
        |params| ClientRequest::SubscribeRequest(SubscribeRequest::new(params)),
        { ServerResult::EmptyResult(_) => () });
    forward!(unsubscribe, "resources/unsubscribe", UnsubscribeRequestParams, (),
        |params| ClientRequest::UnsubscribeRequest(UnsubscribeRequest::new(params)),
        { ServerResult::EmptyResult(_) => () });
    forward!(list_prompts, "prompts/list", Option<PaginatedRequestParams>, ListPromptsResult,
        |params| ClientRequest::ListPromptsRequest(optional(params)),
        { ServerResult::ListPromptsResult(result) => result });
    forward!(get_prompt, "prompts/get", GetPromptRequestParams, GetPromptResponse,
    |params| ClientRequest::GetPromptRequest(GetPromptRequest::new(params)),
    {
        ServerResult::GetPromptResult(result) => GetPromptResponse::Complete(result),
        ServerResult::InputRequiredResult(input) => GetPromptResponse::InputRequired(input),
    });
    forward!(complete, "completion/complete", CompleteRequestParams, CompleteResult,
        |params| ClientRequest::CompleteRequest(CompleteRequest::new(params)),
        { ServerResult::CompleteResult(result) => result });
}

/// A request with optional params (the paginated lists).
fn optional<M: Default, P>(params: Option<P>) -> RequestOptionalParam<M, P> {
    RequestOptionalParam {
        method: M::default(),
        params,
        extensions: Default::default(),
    }
}
