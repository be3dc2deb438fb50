//! One rmcp client connection: spawning or dialling the server, the routing of its
//! notifications (progress, in order, to the calling tool's context; `tools/list_changed` to a
//! refresh), and `tools/list` with pagination.

// rmcp marks roots deprecated (SEP-2577, a later revision); MCP 2025-11-25 and 2026-07-28
// servers still ask.
#![allow(deprecated)]

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::process::Stdio;
use std::sync::{Arc, Mutex};

use rmcp::model::{
    ClientCapabilities, ClientConfig, ClientRequest, ElicitRequestParams, ElicitResult,
    ElicitationAction, Implementation, JsonRpcMessage, ListRootsResult, ListToolsRequest,
    PaginatedRequestParams, ProgressNotificationParam, ProgressToken, ProtocolVersion,
    ServerNotification, ServerResult,
};
use rmcp::service::{MaybeSendFuture, NotificationContext, RequestContext, RunningService};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{TokioChildProcess, Transport};
use rmcp::{
    ClientHandler, ClientLifecycleMode, ClientServiceExt as _, ErrorData, Peer, RoleClient,
};
use serde_json::{Value, json};
use tokio::io::AsyncBufReadExt;
use tokio::sync::Notify;
use tool_sdk::ToolUseContext;

use super::config::{McpServerConfig, McpTransportConfig};
use super::lifecycle::{Failure, lifecycle, start_failed};

/// A running rmcp client of one server.
pub(crate) type Client = RunningService<RoleClient, McpClientHandler>;

/// Progress notifications kept for a token nobody has claimed yet (a server may report before
/// the request's handle is registered); older ones are dropped.
const EARLY_PROGRESS_LIMIT: usize = 64;

/// Lines of the server's stderr kept for error messages.
const STDERR_TAIL_LINES: usize = 20;

/// State shared by a server's handler and its calls, kept across reconnects.
#[derive(Default)]
pub(crate) struct ServerSignals {
    progress: Mutex<ProgressRoutes>,
    /// Woken by `notifications/tools/list_changed`.
    pub(crate) list_changed: Notify,
    stderr_tail: Mutex<VecDeque<String>>,
    /// The process group of the running stdio child (its leader's pid).
    process_group: Mutex<Option<u32>>,
}

#[derive(Default)]
struct ProgressRoutes {
    routes: HashMap<ProgressToken, ToolUseContext>,
    early: VecDeque<ProgressNotificationParam>,
}

/// A whole number as a JSON integer (`4`, not `4.0`), anything else as a float.
fn number(value: f64) -> Value {
    // Exact below 2^53; larger or fractional values stay floats.
    if value.fract() == 0.0 && value.abs() < 9_007_199_254_740_992.0 {
        json!(value as i64)
    } else {
        json!(value)
    }
}

fn progress_value(params: &ProgressNotificationParam) -> Value {
    let mut value = json!({"progress": number(params.progress)});
    if let Some(total) = params.total {
        value["total"] = number(total);
    }
    if let Some(message) = &params.message {
        value["message"] = json!(message);
    }
    value
}

impl ServerSignals {
    /// Sends the progress of `token` to `ctx` until the returned guard drops (the call ended or
    /// its future was dropped), so no context, and no progress channel of a finished turn,
    /// stays held.
    pub(crate) fn route(&self, token: ProgressToken, ctx: ToolUseContext) -> ProgressRoute<'_> {
        let mut progress = self.progress.lock().unwrap_or_else(|e| e.into_inner());
        let early: Vec<ProgressNotificationParam> = {
            let (mine, rest): (Vec<_>, Vec<_>) = progress
                .early
                .drain(..)
                .partition(|params| params.progress_token == token);
            progress.early = rest.into();
            mine
        };
        for params in &early {
            ctx.report_progress(&progress_value(params));
        }
        progress.routes.insert(token.clone(), ctx);
        ProgressRoute {
            signals: self,
            token,
        }
    }

    fn deliver(&self, params: ProgressNotificationParam) {
        let mut progress = self.progress.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(ctx) = progress.routes.get(&params.progress_token) {
            ctx.report_progress(&progress_value(&params));
            return;
        }
        if progress.early.len() == EARLY_PROGRESS_LIMIT {
            progress.early.pop_front();
        }
        progress.early.push_back(params);
    }

    /// The last lines the server wrote to stderr, joined, or `None`.
    /// The context of a call in flight on this server, to ask a question the server sends
    /// during it (MCP 2025-11-25 sends `elicitation/create` without naming the call; every
    /// call of one host carries the same elicitor, so any one will do); `None` when no call
    /// is running.
    pub(crate) fn a_caller(&self) -> Option<ToolUseContext> {
        let progress = self.progress.lock().unwrap_or_else(|e| e.into_inner());
        progress.routes.values().next().cloned()
    }

    pub(crate) fn stderr_tail(&self) -> Option<String> {
        let tail = self.stderr_tail.lock().unwrap_or_else(|e| e.into_inner());
        (!tail.is_empty()).then(|| tail.iter().cloned().collect::<Vec<_>>().join("\n"))
    }

    /// Kills what is left of the stdio child's process group once its connection has ended.
    ///
    /// rmcp's shutdown closes the child's stdin and waits for the child itself to exit; what
    /// the child started (`npx` running `node`, a server's own workers) stays in the group and
    /// would be orphaned. Nothing to do for HTTP servers or when the group is already gone.
    pub(crate) fn end_process_group(&self) {
        let group = self
            .process_group
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        #[cfg(unix)]
        if let Some(pid) = group
            .and_then(|pid| i32::try_from(pid).ok())
            .and_then(rustix::process::Pid::from_raw)
        {
            // ESRCH (nothing left in the group) is the usual answer.
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
        #[cfg(not(unix))]
        let _ = group;
    }

    fn push_stderr(&self, line: String) {
        let mut tail = self.stderr_tail.lock().unwrap_or_else(|e| e.into_inner());
        if tail.len() == STDERR_TAIL_LINES {
            tail.pop_front();
        }
        tail.push_back(line);
    }
}

/// Routes one request's progress while it lives.
pub(crate) struct ProgressRoute<'a> {
    signals: &'a ServerSignals,
    token: ProgressToken,
}

impl Drop for ProgressRoute<'_> {
    fn drop(&mut self) {
        let mut progress = self
            .signals
            .progress
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        progress.routes.remove(&self.token);
    }
}

/// A transport that hands each progress notification to [`ServerSignals`] as it is read, in
/// the order the server sent it. rmcp runs notification handlers as tasks of their own while
/// it delivers responses at once, so progress sent just before a result could otherwise reach
/// its call after the result and be lost.
///
/// For a stdio server it also ends the connection when the server process exits: its stdout
/// only reaches end-of-file once every process holding it is gone, and a server's own
/// children (inheriting it) may outlive the server by minutes, leaving its calls to wait for
/// their timeout.
struct InOrderProgress<T> {
    inner: T,
    signals: Arc<ServerSignals>,
    /// Becomes `true` when the stdio server process has exited.
    exited: Option<tokio::sync::watch::Receiver<bool>>,
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for InOrderProgress<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        let message = match &mut self.exited {
            // What the server wrote before it exited is read first.
            Some(exited) => tokio::select! {
                biased;
                message = self.inner.receive() => message?,
                _ = exited.wait_for(|exited| *exited) => {
                    tracing::debug!("the stdio server exited; ending its connection");
                    return None;
                }
            },
            None => self.inner.receive().await?,
        };
        if let JsonRpcMessage::Notification(notification) = &message
            && let ServerNotification::ProgressNotification(progress) = &notification.notification
        {
            self.signals.deliver(progress.params.clone());
        }
        Some(message)
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

/// The rmcp client handler of one server.
pub(crate) struct McpClientHandler {
    server: String,
    signals: Arc<ServerSignals>,
}

impl ClientHandler for McpClientHandler {
    fn on_tool_list_changed(
        &self,
        _context: NotificationContext<RoleClient>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        tracing::debug!(server = %self.server, "tools/list_changed");
        self.signals.list_changed.notify_one();
        std::future::ready(())
    }

    /// An MCP 2025-11-25 server's question during a call: asked as an imported 2026-07-28
    /// server's are ([`super::answers`]), through a running call's context; declined when no
    /// call is running.
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let Some(ctx) = self.signals.a_caller() else {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        };
        let answer = super::answers::elicit(&self.server, "elicitation", &request, &ctx)
            .await
            .map_err(|error| ErrorData::internal_error(error.message().to_owned(), None))?;
        serde_json::from_value(answer)
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))
    }

    /// An MCP 2025-11-25 server's `roots/list`: the roots in a running call's context
    /// ([`super::answers`]), none when no call is running or the host gave none.
    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        Ok(self
            .signals
            .a_caller()
            .and_then(|ctx| ctx.get::<ListRootsResult>().cloned())
            .unwrap_or_default())
    }

    /// The client's facts; `initialize` (the fallback for servers before MCP 2026-07-28, see
    /// [`lifecycle`]) offers 2025-11-25. It declares elicitation (form mode): a server's
    /// question during a call is asked through the calling context (`super::answers`), and
    /// declined where nobody can be asked; and roots: the `ListRootsResult` the host put in
    /// the calling context's extensions, or none; and the tasks extension (SEP-2663): a call
    /// the server turns into a task is followed to its result (`super::follow`).
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation = Some(Default::default());
        capabilities.roots = Some(Default::default());
        // Tasks (SEP-2663): a call answered with a task is followed to its result.
        capabilities
            .extensions
            .get_or_insert_with(Default::default)
            .insert(
                rmcp::model::TASKS_EXTENSION_ID.to_owned(),
                serde_json::Map::new(),
            );
        ClientConfig::new(
            capabilities,
            Implementation::new("tool-sdk", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::V_2025_11_25)
    }
}

/// How often [`watch_exit`] looks at the stdio server process.
#[cfg(target_os = "linux")]
const EXIT_POLL: std::time::Duration = std::time::Duration::from_millis(100);

/// A receiver that becomes `true` when the process `pid` (our child) has exited: its
/// `/proc/PID/stat` shows it a zombie (nobody reaps it while its connection lives, so its pid
/// cannot be reused meanwhile) or is gone. Looked at every [`EXIT_POLL`] until the receiver is
/// dropped. `None` off Linux, leaving end-of-file as the only sign.
#[cfg(target_os = "linux")]
fn watch_exit(pid: u32) -> Option<tokio::sync::watch::Receiver<bool>> {
    let stat = format!("/proc/{pid}/stat");
    let (sender, receiver) = tokio::sync::watch::channel(false);
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(EXIT_POLL);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = ticks.tick() => {}
                () = sender.closed() => return,
            }
            let exited = match std::fs::read_to_string(&stat) {
                // The state follows the command name, which is in parentheses.
                Ok(text) => text
                    .rsplit_once(") ")
                    .is_some_and(|(_, rest)| rest.starts_with(['Z', 'X'])),
                Err(_) => true,
            };
            if exited {
                let _ = sender.send(true);
                return;
            }
        }
    });
    Some(receiver)
}

#[cfg(not(target_os = "linux"))]
fn watch_exit(_pid: u32) -> Option<tokio::sync::watch::Receiver<bool>> {
    None
}

/// Spawns or dials the server and starts the connection ([`lifecycle`]). When the server
/// answered the discovery with something that cannot be read (some servers answer a method
/// they do not know with an empty result rather than an error, as the conformance suite's own
/// 2025 test servers do), the connection is made once more with `initialize` alone, the
/// first one ended first (its process group too). Any other failure (a command that does
/// not start, a refused connection, a missing token) is reported as it is. The caller bounds
/// the time.
pub(crate) async fn connect(
    config: &McpServerConfig,
    signals: &Arc<ServerSignals>,
) -> Result<Client, String> {
    match connect_with(config, signals, lifecycle()).await {
        Ok(client) => Ok(client),
        Err(Failure::Unreadable(discover)) => {
            signals.end_process_group();
            tracing::debug!(server = %config.name, "server/discover unreadable ({discover}); trying initialize");
            connect_with(config, signals, ClientLifecycleMode::Initialize)
                .await
                .map_err(|failure| {
                    format!(
                        "{} (before it, server/discover: {discover})",
                        failure.message()
                    )
                })
        }
        Err(failure) => Err(failure.message()),
    }
}

async fn connect_with(
    config: &McpServerConfig,
    signals: &Arc<ServerSignals>,
    lifecycle: ClientLifecycleMode,
) -> Result<Client, Failure> {
    let handler = McpClientHandler {
        server: config.name.clone(),
        signals: Arc::clone(signals),
    };
    match &config.transport {
        McpTransportConfig::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            let mut cmd = tokio::process::Command::new(command);
            cmd.args(args).envs(env);
            if let Some(cwd) = cwd {
                cmd.current_dir(cwd);
            }
            // The child leads its own process group, so killing it also ends what it started
            // (`npx` runs `node`, `uvx` runs `python`): nothing is orphaned.
            let mut wrapped = process_wrap::tokio::CommandWrap::from(cmd);
            wrapped
                .wrap(process_wrap::tokio::ProcessGroup::leader())
                .wrap(process_wrap::tokio::KillOnDrop);
            let (transport, stderr) = TokioChildProcess::builder(wrapped)
                .stderr(Stdio::piped())
                .spawn()
                .map_err(|error| format!("cannot start `{command}`: {error}"))?;
            // The child leads its group, so the group id is its pid.
            *signals
                .process_group
                .lock()
                .unwrap_or_else(|e| e.into_inner()) = transport.id();
            if let Some(stderr) = stderr {
                let signals = Arc::clone(signals);
                let server = config.name.clone();
                tokio::spawn(async move {
                    let mut lines = tokio::io::BufReader::new(stderr).lines();
                    while let Ok(Some(line)) = lines.next_line().await {
                        tracing::debug!(server = %server, "stderr: {line}");
                        signals.push_stderr(line);
                    }
                });
            }
            let exited = transport.id().and_then(watch_exit);
            let transport = InOrderProgress {
                inner: transport,
                signals: Arc::clone(signals),
                exited,
            };
            handler
                .serve_with_lifecycle(transport, lifecycle)
                .await
                .map_err(start_failed)
        }
        McpTransportConfig::Http {
            url,
            headers,
            bearer_token_env,
        } => {
            let mut http_config = StreamableHttpClientTransportConfig::with_uri(url.as_str());
            if let Some(variable) = bearer_token_env {
                let token = std::env::var(variable)
                    .map_err(|_| format!("the bearer token variable `{variable}` is not set"))?;
                http_config = http_config.auth_header(token);
            }
            let mut custom = HashMap::new();
            for (name, value) in headers {
                let header = http::HeaderName::try_from(name.as_str())
                    .map_err(|error| format!("header `{name}`: {error}"))?;
                let value = http::HeaderValue::try_from(value.as_str())
                    .map_err(|error| format!("header `{name}` value: {error}"))?;
                custom.insert(header, value);
            }
            http_config = http_config.custom_headers(custom);
            if let Some(oauth) = config.oauth.as_ref().filter(|_| bearer_token_env.is_none()) {
                let client = super::oauth::authorizing_client(&config.name, url, oauth).await?;
                let transport = InOrderProgress {
                    inner: rmcp::transport::StreamableHttpClientTransport::with_client(
                        client,
                        http_config,
                    ),
                    signals: Arc::clone(signals),
                    exited: None,
                };
                return handler
                    .serve_with_lifecycle(transport, lifecycle)
                    .await
                    .map_err(|error| match super::oauth::refusal(&error) {
                        Some(refusal) => Failure::Other(refusal),
                        None => start_failed(error),
                    });
            }
            let transport = InOrderProgress {
                inner: rmcp::transport::StreamableHttpClientTransport::from_config(http_config),
                signals: Arc::clone(signals),
                exited: None,
            };
            handler
                .serve_with_lifecycle(transport, lifecycle)
                .await
                .map_err(start_failed)
        }
    }
}

/// Every raw `tools` entry of the server, following `nextCursor` until it is absent (MCP
/// pagination). A page whose entries do not all parse is read as plain JSON, so one bad entry
/// reaches the normaliser instead of failing the page.
pub(crate) async fn list_tool_entries(peer: &Peer<RoleClient>) -> Result<Listed, String> {
    /// Pages followed at most: a server that keeps returning a cursor is cut off here.
    const MAX_PAGES: usize = 1000;
    let mut entries = Vec::new();
    let mut fresh_for: Option<std::time::Duration> = None;
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let params = cursor
            .take()
            .map(|cursor| PaginatedRequestParams::default().with_cursor(Some(cursor)));
        let request = ClientRequest::ListToolsRequest(ListToolsRequest {
            method: Default::default(),
            params,
            extensions: Default::default(),
        });
        let reply = peer
            .send_request(request)
            .await
            .map_err(|error| format!("tools/list failed: {error}"))?;
        let page = match reply {
            ServerResult::ListToolsResult(result) => {
                serde_json::to_value(&result).map_err(|error| error.to_string())?
            }
            ServerResult::CustomResult(raw) => raw.0,
            other => {
                return Err(format!(
                    "tools/list answered with another result type: {}",
                    serde_json::to_string(&other).unwrap_or_default()
                ));
            }
        };
        // The whole list is as fresh as its least fresh page (SEP-2549 `ttlMs`).
        if let Some(ttl) = page.get("ttlMs").and_then(Value::as_u64) {
            let ttl = std::time::Duration::from_millis(ttl);
            fresh_for = Some(fresh_for.map_or(ttl, |other| other.min(ttl)));
        }
        match page.get("tools") {
            Some(Value::Array(tools)) => entries.extend(tools.iter().cloned()),
            _ => return Err("the tools/list result has no `tools` array".to_owned()),
        }
        cursor = page
            .get("nextCursor")
            .and_then(Value::as_str)
            .filter(|cursor| !cursor.is_empty())
            .map(str::to_owned);
        if cursor.is_none() {
            return Ok(Listed { entries, fresh_for });
        }
    }
    tracing::warn!("tools/list returned {MAX_PAGES} pages; the rest is not read");
    Ok(Listed { entries, fresh_for })
}

/// A server's tool list as [`list_tool_entries`] read it.
pub(crate) struct Listed {
    /// The `tools` entries of every page, as JSON.
    pub entries: Vec<Value>,
    /// How long the list may be taken as fresh (the smallest `ttlMs` of its pages, MCP
    /// 2026-07-28 SEP-2549); `None` when no page said.
    pub fresh_for: Option<std::time::Duration>,
}
