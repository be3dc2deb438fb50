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
use std::sync::{Arc, Mutex, OnceLock};

use rmcp::ErrorData;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities,
    CompleteRequestMethod, CompleteRequestParams, CompleteResult, GetPromptRequestMethod,
    GetPromptRequestParams, GetPromptResponse, GetTaskParams, GetTaskResult,
    ListPromptsRequestMethod, ListPromptsResult, ListResourceTemplatesRequestMethod,
    ListResourceTemplatesResult, ListResourcesRequestMethod, ListResourcesResult, ListToolsResult,
    LoggingLevel, PaginatedRequestParams, ProtocolVersion, ReadResourceRequestMethod,
    ReadResourceRequestParams, ReadResourceResponse, ServerConfig, SetLevelRequestParams,
    SubscribeRequestMethod, SubscribeRequestParams, SubscriptionFilter, UnsubscribeRequestMethod,
    UnsubscribeRequestParams, UpdateTaskParams,
};
use rmcp::service::{NotificationContext, RequestContext, RoleServer, SubscriptionContext};
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use tool_sdk::elicitation::Elicitor;
use tool_sdk::tool::TaskSupport;
use tool_sdk::{Extensions, ToolUseBlock};

use super::answer::Answered;
use super::asking::Asking;
use super::auth::{admission_of, requester_of};
use super::beside::Beside;
use super::content;
use super::gate::CallGate;
use super::input::{self, Rounds};
use super::progress::progress_sink;
use super::revision::{SUPPORTED_VERSIONS, is_stateless, protocol_version};
use super::served_call::{LogLevel, ServedCall, ServedElicitor};
use super::tasks::{self, ProgressSwitch, TaskCall};
use super::{Shared, StructuredContentStore};
use crate::orchestration::partition::PreparedCall;
use crate::orchestration::turn::Signals;

/// The per-session state and rmcp's handler for it. rmcp makes one per connection (stdio) or
/// per HTTP session, through the server's factory, and shares it (it is not cloned).
pub(crate) struct Session {
    shared: Arc<Shared>,
    /// Made at the first request that needs it: a 2026-07-28 request never does (rmcp makes a
    /// handler per such request, and its calls use the server's gate, the request's logging
    /// level and a copy of the server's host state).
    state: OnceLock<SessionState>,
}

struct SessionState {
    /// `logging/setLevel`'s level (default `info`).
    level: Arc<Mutex<LoggingLevel>>,
    /// The session's call gate (2025-11-25 requests).
    gate: CallGate,
    /// The host state calls see; context modifiers returned by calls edit it.
    extensions: Arc<Mutex<Extensions>>,
}

impl Session {
    pub(crate) fn new(shared: Arc<Shared>) -> Self {
        Self {
            shared,
            state: OnceLock::new(),
        }
    }

    /// The session's state, made on first use.
    fn state(&self) -> &SessionState {
        self.state.get_or_init(|| SessionState {
            level: Arc::new(Mutex::new(LoggingLevel::Info)),
            gate: CallGate::new(
                self.shared
                    .served()
                    .orchestrator
                    .config()
                    .effective_concurrency(),
            ),
            extensions: Arc::new(Mutex::new(self.shared.extensions.clone())),
        })
    }

    /// `stateless`: the request speaks MCP 2026-07-28 or later ([`is_stateless`]).
    async fn call(
        &self,
        request: CallToolRequestParams,
        mut context: RequestContext<RoleServer>,
        stateless: bool,
    ) -> Result<CallToolResponse, ErrorData> {
        let served = self.shared.served();
        let name = request.name.as_ref();
        let found = served.orchestrator.find_tool(name).and_then(|tool| {
            let listed = served.listing.tool(tool.name())?;
            Some((tool, listed.output_schema.is_some()))
        });
        let Some((tool, has_output_schema)) = found else {
            return Err(ErrorData::invalid_params(
                format!("Unknown tool: {name}. tools/list gives the tools this server has."),
                Some(content::unknown_tool_data(name)),
            ));
        };
        let canonical = tool.name();
        let admission = admission_of(&context);
        let owner = admission.as_ref().map(super::auth::Admission::client_key);
        if let Some(admission) = &admission
            && admission
                .missing(canonical, served.listing.scopes(canonical))
                .is_some()
        {
            // The HTTP door refuses such a call (403) by the name it carries; this catches a
            // call by another name of the tool.
            return Err(ErrorData::invalid_params(
                format!(
                    "Unknown tool: {name}. tools/list gives the tools this server has for \
                     your access token's scopes."
                ),
                Some(content::unknown_tool_data(name)),
            ));
        }
        // A tool that may run as a task, called by a client that follows tasks (SEP-2663).
        let task_support = tool.meta().task;
        // Read now when they decide the call's course, or come from a session (whose client
        // may send `initialize` again); a stateless request's are read when a tool asks.
        let capabilities = (task_support != TaskSupport::Forbidden || !stateless)
            .then(|| context.client_capabilities());
        let follows_tasks = capabilities
            .as_ref()
            .and_then(Option::as_ref)
            .is_some_and(ClientCapabilities::supports_tasks);
        if task_support == TaskSupport::Required && !follows_tasks {
            return Err(ErrorData::missing_required_client_capability(
                ClientCapabilities::builder().enable_tasks().build(),
            ));
        }
        let as_task = follows_tasks && task_support != TaskSupport::Forbidden;
        let block = ToolUseBlock {
            id: self.shared.next_call_id(),
            name: request.name.into_owned(),
            input: Value::Object(request.arguments.unwrap_or_default()),
        };
        // A 2026-07-28 call's questions are rounds of a multi round-trip request, whose state
        // is bound to the call: its tool and arguments ([`input::binding`]). The binding is
        // written now when a state comes to be verified, or for a call that may become a task
        // (its run takes the arguments along); otherwise only if the tool asks what this
        // round cannot answer (from the arguments the run has borrowed).
        let binding = (stateless && (as_task || request.request_state.is_some()))
            .then(|| input::binding(canonical, &block.input));
        let rounds = if stateless {
            let rounds = Rounds::open(
                &self.shared.request_state(),
                request.request_state.as_deref(),
                binding.as_deref(),
                request.input_responses.as_ref(),
            )?;
            Some(Arc::new(rounds))
        } else {
            None
        };
        let prepared = served.orchestrator.prepare(block);
        let safe = prepared.is_concurrency_safe();
        let gate = if stateless {
            (*self.shared.stateless_gate).clone()
        } else {
            self.state().gate.clone()
        };
        // A call that may become a task waits for its place in the gate within its run, so
        // that it becomes a task while it waits. A free gate is entered at once (the
        // request's cancellation only checked, not waited on).
        let guards = if as_task {
            None
        } else if !context.ct.is_cancelled()
            && let Some(pass) = gate.try_enter(safe)
        {
            Some(pass)
        } else {
            Some(tokio::select! {
                biased;
                () = context.ct.cancelled() => {
                    return Ok(content::error_result(
                        "The call was cancelled by the client before it started.".to_owned(),
                    ).into());
                }
                guards = gate.enter(safe) => guards,
            })
        };

        let level = if stateless {
            LogLevel::Request
        } else {
            LogLevel::Session(Arc::clone(&self.state().level))
        };
        // A task outlives its request, so its abort token is its own (its tool sees a child
        // of it). Any other call stops when its request is cancelled, and its tool sees a
        // child of the request's token, cancelled too if the call ends on a question (a
        // child, so that a tool busy on its task sees the request's cancellation at once).
        let abort = if as_task {
            CancellationToken::new()
        } else {
            context.ct.child_token()
        };
        let cancelled = context.ct.clone();
        let signals = if as_task {
            Signals::abort_only(abort.clone(), None)
        } else {
            Signals::abort_only(cancelled.clone(), Some(abort.clone()))
        };
        let (progress, forwarder) = progress_sink(&context).unzip();
        let reaches = !super::media::json_only(&context);
        // What the transport attached (the HTTP request's parts, its `Authorization` header
        // among them) is read by now (`admission_of`), and not kept for the call's run.
        context.extensions.clear();
        let asking = Arc::new(Asking::new(rounds.clone(), as_task, reaches));
        let served_call = ServedCall::new(
            context,
            level,
            Arc::clone(tool),
            capabilities,
            Arc::clone(&asking),
        );
        let mut extensions = self.extensions(stateless);
        extensions.insert(served_call.clone());
        extensions.insert::<Arc<dyn Elicitor>>(Arc::new(ServedElicitor(served_call.clone())));
        // Only a tool with an output schema is answered with structured content: an imported
        // tool's goes into the store under its own type, where the import looks for it.
        let store = has_output_schema.then(|| structured_content_store(&mut extensions));
        if let Some(admission) = admission {
            extensions.insert(admission.principal);
        }
        let extensions = Arc::new(extensions);
        let answered = Answered {
            // A stateless request's context modifier has no session to outlive the request in.
            host_state: (!stateless).then(|| Arc::clone(&self.state().extensions)),
            served_call: served_call.clone(),
            store,
            tool: Arc::clone(tool),
        };
        let input_required = |rounds: &Rounds, binding: &[u8]| {
            if let Some(error) = served_call.take_error() {
                return Err(error);
            }
            rounds
                .input_required(&self.shared.request_state(), binding)
                .map(CallToolResponse::from)
        };

        if as_task {
            let switch = ProgressSwitch::default();
            let sink = switch.sink(progress);
            let run = {
                let served = Arc::clone(&served);
                async move {
                    let pass = gate.enter(safe).await;
                    let outcome = served
                        .orchestrator
                        .run_with(prepared, extensions, &signals, Some(sink))
                        .await;
                    drop(pass);
                    answered.answer(&served, outcome).await
                }
            };
            let task = TaskCall {
                store: self.shared.tasks.store(),
                tool: canonical.to_owned(),
                required: task_support == TaskSupport::Required,
                ttl: self.shared.tasks.ttl(),
                poll_interval: tasks::DEFAULT_POLL_INTERVAL,
                lease: self.shared.tasks.lease(),
                running: self.shared.tasks.running(),
                owner,
            };
            // Boxed, and behind a `dyn`: the task path's state would otherwise size every
            // call's future, and its code sit among theirs.
            let respond: futures::future::BoxFuture<'_, _> = Box::pin(task.respond(
                run,
                abort,
                cancelled,
                &asking,
                rounds.as_deref(),
                &switch,
                || match (&rounds, &binding) {
                    (Some(rounds), Some(binding)) => input_required(rounds, binding),
                    _ => Err(ErrorData::internal_error("no rounds to ask in", None)),
                },
            ));
            let response = respond.await;
            if let Some(forwarder) = forwarder {
                forwarder.finish().await;
            }
            return response;
        }

        let PreparedCall { block, prepared } = prepared;
        // Pinned in place (in an `Option`, to drop it early): the run is most of this
        // future's size, and moving it would store it twice.
        let mut run = std::pin::pin!(Some(
            served
                .orchestrator
                .run_borrowed(&block, prepared, extensions, &signals, progress)
        ));
        let running = run.as_mut().as_pin_mut().expect("set just above");
        let outcome = match &rounds {
            None => running.await,
            Some(rounds) => match input::until_asked(running, rounds).await {
                Some(outcome) => outcome,
                None => {
                    // The tool asked what this round cannot answer: end the call with its
                    // questions (the tool's run is dropped, its abort token cancelled).
                    run.set(None);
                    abort.cancel();
                    drop(guards);
                    if let Some(forwarder) = forwarder {
                        forwarder.finish().await;
                    }
                    let binding =
                        binding.unwrap_or_else(|| input::binding(canonical, &block.input));
                    return input_required(rounds, &binding);
                }
            },
        };
        drop(guards);
        if let Some(forwarder) = forwarder {
            // Every report the tool made before it answered goes out before the result, and
            // none after it (a copy of the sink the tool kept reports into a closed channel).
            forwarder.finish().await;
        }
        answered
            .answer(&served, outcome)
            .await
            .map(CallToolResponse::from)
    }

    /// The handler beside the pool, or "method not found" for `M` when there is none.
    fn beside<M: rmcp::model::ConstString>(&self) -> Result<Arc<Beside>, ErrorData> {
        self.shared
            .beside()
            .ok_or_else(ErrorData::method_not_found::<M>)
    }

    /// The host state a call sees: the session's, or for a stateless request the server's.
    fn extensions(&self, stateless: bool) -> Extensions {
        if stateless {
            return self.shared.extensions.clone();
        }
        self.state()
            .extensions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

/// A new [`StructuredContentStore`] in `extensions`, stored as itself (the type an imported
/// tool's result mapping looks up), and the handle to read it with.
fn structured_content_store(extensions: &mut Extensions) -> Arc<StructuredContentStore> {
    extensions.insert(StructuredContentStore::new());
    extensions
        .get_arc::<StructuredContentStore>()
        .expect("inserted just above")
}

impl rmcp::ServerHandler for Session {
    fn get_info(&self) -> ServerConfig {
        self.shared.info()
    }

    /// Up to MCP 2026-07-28: 2025-11-25 clients with sessions, 2026-07-28 requests stateless
    /// (rmcp routes each by the version it carries).
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(*SUPPORTED_VERSIONS)
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let cursor = request.as_ref().and_then(|params| params.cursor.as_deref());
        let admission = admission_of(&context);
        self.shared
            .served()
            .listing
            .page(cursor, admission.as_ref())
    }

    /// The listed definition of `name`: rmcp's HTTP transport checks a `tools/call`'s
    /// `Mcp-Param-*` headers against the `x-mcp-header` properties of its input schema
    /// (SEP-2243; a header missing or not matching the argument is `-32020`, HTTP 400).
    fn get_tool(&self, name: &str) -> Option<rmcp::model::Tool> {
        self.shared.served().listing.tool(name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let version = protocol_version(&context);
        let traced = crate::mcp::trace::Served::start(&request.name, &context, version.as_deref());
        let stateless = is_stateless(version.as_deref());
        drop(version);
        // Boxed: rmcp spawns every request's handler future as a task, moving it whole, and
        // the call's state (the orchestrator's run, the task path) is far larger than the
        // other handlers'; behind a box each move is a pointer's.
        let response = tracing::Instrument::instrument(
            Box::pin(self.call(request, context, stateless)),
            traced.span(),
        )
        .await;
        traced.finish(&response);
        response
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        let requester = requester_of(&context);
        tasks::get(
            &*self.shared.tasks.store(),
            &request.task_id,
            requester.as_deref(),
        )
        .await
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let requester = requester_of(&context);
        tasks::update(
            &*self.shared.tasks.store(),
            &request.task_id,
            &request.input_responses,
            requester.as_deref(),
        )
        .await
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let requester = requester_of(&context);
        tasks::cancel(
            &*self.shared.tasks.store(),
            &request.task_id,
            requester.as_deref(),
        )
        .await
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        *self.state().level.lock().unwrap_or_else(|e| e.into_inner()) = request.level;
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
