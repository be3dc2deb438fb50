//! One MCP session of a [`super::McpServer`]: rmcp's `ServerHandler` for `initialize` /
//! `server/discover`, `tools/list`, `tools/call`, `logging/setLevel` and `ping`, with the
//! session's logging level, host state and concurrency limits.
//!
//! Revisions: MCP 2025-11-25 clients get a session (stdio: the connection; HTTP:
//! `Mcp-Session-Id`); MCP 2026-07-28 requests are stateless (no `initialize`, no session,
//! rmcp builds a handler per HTTP request), so what a session kept comes from the request or
//! from the server: the logging level is the request's `_meta` `logLevel` (no
//! `notifications/message` without one, SEP-2575; `logging/setLevel` is gone in that
//! revision), the call gate is the server's, and a call's context modifier does not outlive
//! the request.
//!
//! Concurrency: every `tools/call` takes one of its gate's
//! [`OrchestratorConfig::effective_concurrency`](crate::OrchestratorConfig::effective_concurrency)
//! permits, so at most that many calls run at once; a call that is concurrency-safe for its
//! input shares the gate's call lock, and any other call takes it alone. So safe calls
//! overlap each other freely up to the cap, and a non-safe call (an edit, a write, a shell
//! command that is not read-only) never overlaps any other call of the gate, which is
//! SPEC §5.1's rule for one model turn (a non-safe call runs alone) applied to the calls one
//! client sends (2025-11-25: per session) or the server receives (2026-07-28). The lock is
//! fair, so a waiting non-safe call is not starved by a stream of safe ones.

// rmcp marks logging deprecated for MCP 2026-07-28 (SEP-2577); 2025-11-25 sessions have it.
#![allow(deprecated)]

use std::borrow::Cow;
use std::future::Future;
use std::sync::{Arc, Mutex};

use rmcp::ErrorData;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CompleteRequestMethod, CompleteRequestParams,
    CompleteResult, GetPromptRequestMethod, GetPromptRequestParams, GetPromptResponse,
    ListPromptsRequestMethod, ListPromptsResult, ListResourceTemplatesRequestMethod,
    ListResourceTemplatesResult, ListResourcesRequestMethod, ListResourcesResult, ListToolsResult,
    LoggingLevel, PaginatedRequestParams, ProtocolVersion, ReadResourceRequestMethod,
    ReadResourceRequestParams, ReadResourceResponse, ServerConfig, SetLevelRequestParams,
    SubscribeRequestMethod, SubscribeRequestParams, SubscriptionFilter, UnsubscribeRequestMethod,
    UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RequestContext, RoleServer, SubscriptionContext};
use serde_json::Value;
use tokio::sync::{RwLock, Semaphore};
use tool_sdk::context::ProgressSink;
use tool_sdk::elicitation::Elicitor;
use tool_sdk::{Extensions, ToolUseBlock};

use super::beside::Beside;
use super::content;
use super::input::{self, Rounds};
use super::served_call::{LogLevel, ServedCall, ServedElicitor};
use super::{Shared, StructuredContentStore};
use crate::TurnState;

/// The per-session state and rmcp's handler for it. rmcp makes one per connection (stdio) or
/// per HTTP session, through the server's factory.
#[derive(Clone)]
pub(crate) struct Session {
    shared: Arc<Shared>,
    state: Arc<SessionState>,
}

struct SessionState {
    /// `logging/setLevel`'s level (default `info`).
    level: Arc<Mutex<LoggingLevel>>,
    /// The session's call gate (2025-11-25 requests).
    gate: CallGate,
    /// The host state calls see; context modifiers returned by calls edit it.
    extensions: Mutex<Extensions>,
}

/// Who may run a call now: the permits (the orchestrator's concurrency cap) and the lock that
/// concurrency-safe calls share and any other call takes alone.
pub(crate) struct CallGate {
    permits: Semaphore,
    calls: RwLock<()>,
}

impl CallGate {
    pub(crate) fn new(permits: usize) -> Self {
        Self {
            permits: Semaphore::new(permits),
            calls: RwLock::new(()),
        }
    }
}

/// Whether a request speaks MCP 2026-07-28 or later (no session).
fn is_stateless(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|version| version.as_str() >= ProtocolVersion::V_2026_07_28.as_str())
}

impl Session {
    pub(crate) fn new(shared: Arc<Shared>) -> Self {
        let state = SessionState {
            level: Arc::new(Mutex::new(LoggingLevel::Info)),
            gate: CallGate::new(
                shared
                    .served()
                    .orchestrator
                    .config()
                    .effective_concurrency(),
            ),
            extensions: Mutex::new(shared.extensions.clone()),
        };
        Self {
            shared,
            state: Arc::new(state),
        }
    }

    async fn call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let served = self.shared.served();
        let name = request.name.as_ref();
        let Some(tool) = served.orchestrator.find_tool(name) else {
            return Err(ErrorData::invalid_params(
                format!("Unknown tool: {name}. tools/list gives the tools this server has."),
                Some(content::unknown_tool_data(name)),
            ));
        };
        let canonical = tool.name().to_owned();
        let arguments = request.arguments.unwrap_or_default();
        let stateless = is_stateless(&context);
        // A 2026-07-28 call's questions are rounds of a multi round-trip request, whose state
        // is bound to the call.
        let binding = stateless.then(|| input::binding(&canonical, &arguments));
        let rounds = match &binding {
            Some(binding) => Some(Arc::new(Rounds::open(
                &self.shared.request_state(),
                request.request_state.as_deref(),
                request.input_responses.as_ref(),
                binding,
            )?)),
            None => None,
        };
        let block = ToolUseBlock {
            id: self.shared.next_call_id(),
            name: name.to_owned(),
            input: Value::Object(arguments),
        };
        let prepared = served.orchestrator.prepare(&block);
        let safe = prepared.is_concurrency_safe();
        let cancelled = context.ct.clone();
        let gate = if stateless {
            &*self.shared.stateless_gate
        } else {
            &self.state.gate
        };
        let wait = async {
            let permit = gate.permits.acquire().await;
            let shared_guard;
            let exclusive_guard;
            if safe {
                shared_guard = Some(gate.calls.read().await);
                exclusive_guard = None;
            } else {
                shared_guard = None;
                exclusive_guard = Some(gate.calls.write().await);
            }
            (permit, shared_guard, exclusive_guard)
        };
        let guards = tokio::select! {
            guards = wait => guards,
            () = cancelled.cancelled() => {
                return Ok(content::error_result(
                    "The call was cancelled by the client before it started.".to_owned(),
                ).into());
            }
        };

        let level = if stateless {
            LogLevel::Request(context.meta.log_level())
        } else {
            LogLevel::Session(Arc::clone(&self.state.level))
        };
        let served_call = ServedCall::new(
            context.peer.clone(),
            level,
            &canonical,
            context.client_capabilities(),
            rounds.clone(),
        );
        let store = Arc::new(StructuredContentStore::new());
        let mut extensions = self.extensions();
        extensions.insert(served_call.clone());
        extensions.insert::<Arc<dyn Elicitor>>(Arc::new(ServedElicitor(served_call.clone())));
        extensions.insert(Arc::clone(&store));
        let abort = context.ct.child_token();
        let turn = TurnState {
            extensions,
            abort: abort.clone(),
            ..TurnState::default()
        };
        let (progress, forwarder) = progress_sink(&context).unzip();
        let run = served.orchestrator.run_tool_use(prepared, &turn, progress);
        let outcome = match &rounds {
            None => run.await,
            Some(rounds) => match until_asked(run, rounds).await {
                Some(outcome) => outcome,
                None => {
                    // The tool asked what this round cannot answer: end the call with its
                    // questions (the tool's run is dropped, its abort token cancelled).
                    abort.cancel();
                    drop(guards);
                    if let Some(forwarder) = forwarder {
                        forwarder.finish().await;
                    }
                    if let Some(missing) = served_call.take_missing() {
                        return Err(ErrorData::missing_required_client_capability(missing));
                    }
                    return rounds
                        .input_required(
                            &self.shared.request_state(),
                            binding.as_deref().unwrap_or_default(),
                        )
                        .map(CallToolResponse::from);
                }
            },
        };
        drop(guards);
        if let Some(forwarder) = forwarder {
            // Every report the tool made before it answered goes out before the result, and
            // none after it (a copy of the sink the tool kept reports into a closed channel).
            forwarder.finish().await;
        }

        if let Some(modifier) = outcome.context_modifier {
            modifier.apply(
                &mut self
                    .state
                    .extensions
                    .lock()
                    .unwrap_or_else(|e| e.into_inner()),
            );
        }
        let result = outcome.result;
        if let Some(missing) = served_call.take_missing() {
            return Err(ErrorData::missing_required_client_capability(missing));
        }
        if result.is_error {
            return Ok(content::error_result(content::error_text(&result)).into());
        }
        let blocks = served_call
            .take_content()
            .unwrap_or_else(|| content::content_blocks(&result.content));
        let has_output_schema = served.listing.has_output_schema(&canonical);
        // A result too large for the persistence limit arrives as a preview of a saved file;
        // the structured content is still the whole result, read back from that file.
        let persisted = if has_output_schema {
            content::persisted_text(
                &result.content,
                served.orchestrator.config().result_dir.as_deref(),
                &block.id,
            )
            .await
        } else {
            None
        };
        let structured = if has_output_schema {
            store.take(&block.id).or_else(|| match &persisted {
                Some(text) => serde_json::from_str::<Value>(text)
                    .ok()
                    .filter(Value::is_object),
                None => content::structured_from_text(&result.content),
            })
        } else {
            None
        };
        if structured.is_none() && has_output_schema {
            // What a tool advertises, it returns: a listed `outputSchema` promises
            // `structuredContent` (clients check it), so a result that cannot be one is an error.
            return Ok(content::error_result(format!(
                "`{canonical}` declares an output schema (MCP outputSchema) but its result is not \
                 a JSON object, so it cannot be answered as structured content. Make the tool \
                 return an object, or stop declaring the schema (a tool that overrides \
                 map_result declares none unless it overrides output_schema too)."
            ))
            .into());
        }
        Ok(content::success_result(blocks, structured, persisted.is_some()).into())
    }

    /// The handler beside the pool, or "method not found" for `M` when there is none.
    fn beside<M: rmcp::model::ConstString>(&self) -> Result<Arc<Beside>, ErrorData> {
        self.shared
            .beside()
            .ok_or_else(ErrorData::method_not_found::<M>)
    }

    fn extensions(&self) -> Extensions {
        self.state
            .extensions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

/// A sink turning the call's progress reports into `notifications/progress`, when the request
/// carried a `progressToken` (MCP 2025-11-25, basic/utilities/progress); `None` otherwise.
/// Reports are sent in order from one task, never blocking the tool, until
/// [`ProgressForwarder::finish`].
fn progress_sink(
    context: &RequestContext<RoleServer>,
) -> Option<(ProgressSink, ProgressForwarder)> {
    let token = context.meta.get_progress_token()?;
    let peer = context.peer.clone();
    let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel();
    let done = tokio_util::sync::CancellationToken::new();
    let finished = done.clone();
    let task = tokio::spawn(async move {
        let mut count = 0u64;
        loop {
            let report = tokio::select! {
                biased;
                report = receiver.recv() => report,
                () = finished.cancelled() => {
                    // The call has answered: refuse further reports, send the ones made
                    // before.
                    receiver.close();
                    receiver.recv().await
                }
            };
            let Some(report) = report else { break };
            count += 1;
            let params = content::progress_params(token.clone(), &report, count);
            if peer.notify_progress(params).await.is_err() {
                break;
            }
        }
    });
    let sink: ProgressSink = Arc::new(move |report| {
        let _ = sender.send(report);
    });
    Some((sink, ProgressForwarder { done, task }))
}

/// The task sending one call's progress notifications.
struct ProgressForwarder {
    done: tokio_util::sync::CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

impl ProgressForwarder {
    /// Closes the call's progress channel, sends the reports already made, and returns when
    /// they are out (giving up after [`PROGRESS_DRAIN`] on a stuck connection, so that nothing
    /// is sent after the result).
    async fn finish(self) {
        self.done.cancel();
        let abort = self.task.abort_handle();
        if tokio::time::timeout(PROGRESS_DRAIN, self.task)
            .await
            .is_err()
        {
            abort.abort();
        }
    }
}

/// How long a call that asked a question this round cannot answer keeps running, so that
/// questions it asks at the same time (`join!`) go out in the same round.
const ASK_GRACE: std::time::Duration = std::time::Duration::from_millis(20);

/// `run`'s outcome, or `None` once the tool has asked a question `rounds` cannot answer (and
/// [`ASK_GRACE`] has passed without the run finishing).
async fn until_asked<F: Future>(run: F, rounds: &Rounds) -> Option<F::Output> {
    let mut run = std::pin::pin!(run);
    tokio::select! {
        outcome = &mut run => return Some(outcome),
        () = rounds.asked() => {}
    }
    tokio::time::timeout(ASK_GRACE, run).await.ok()
}

/// How long a finished call waits for its progress reports to go out.
const PROGRESS_DRAIN: std::time::Duration = std::time::Duration::from_secs(1);

impl rmcp::ServerHandler for Session {
    fn get_info(&self) -> ServerConfig {
        self.shared.info()
    }

    /// Up to MCP 2026-07-28: 2025-11-25 clients with sessions, 2026-07-28 requests stateless
    /// (rmcp routes each by the version it carries).
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::V_2026_07_28))
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let cursor = request.as_ref().and_then(|params| params.cursor.as_deref());
        self.shared.served().listing.page(cursor)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.call(request, context).await
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        *self.state.level.lock().unwrap_or_else(|e| e.into_inner()) = request.level;
        Ok(())
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.beside::<ListResourcesRequestMethod>()?
            .list_resources(request, context)
            .await
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.beside::<ListResourceTemplatesRequestMethod>()?
            .list_resource_templates(request, context)
            .await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.beside::<ReadResourceRequestMethod>()?
            .read_resource(request, context)
            .await
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.beside::<SubscribeRequestMethod>()?
            .subscribe(request, context)
            .await
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.beside::<UnsubscribeRequestMethod>()?
            .unsubscribe(request, context)
            .await
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        self.beside::<ListPromptsRequestMethod>()?
            .list_prompts(request, context)
            .await
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        self.beside::<GetPromptRequestMethod>()?
            .get_prompt(request, context)
            .await
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        self.beside::<CompleteRequestMethod>()?
            .complete(request, context)
            .await
    }

    /// `subscriptions/listen` (MCP 2026-07-28): the pool's `toolsListChanged` when asked for;
    /// nothing else (the resource and prompt changes of a handler beside the pool reach
    /// 2025-11-25 sessions only, through the handler's own notifications).
    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        let builder = SubscriptionFilter::builder();
        Some(if requested.tools_list_changed == Some(true) {
            builder.tools_list_changed().build()
        } else {
            builder.build()
        })
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        if context.accepted().tools_list_changed == Some(true) {
            // Removed when the stream ends, however it ends (the guard's drop).
            let _listening = self.shared.listen(context.sink().clone());
            context.cancelled().await;
        } else {
            context.cancelled().await;
        }
        Ok(())
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.shared.remember_peer(context.peer);
    }
}
