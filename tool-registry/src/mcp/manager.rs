//! [`McpManager`]: the live MCP servers of a host. Servers connect concurrently, each watched
//! by its own task: while connecting it is pending (ToolSearch names it, SPEC §3.2); once up
//! its tools are in [`McpManager::tools`]; `notifications/tools/list_changed` re-lists them;
//! a connection that ends fails its in-flight calls, leaves its tools answering "not
//! connected", and is re-established with a bounded backoff.

use std::sync::{Arc, RwLock, Weak};
use std::time::Duration;

use rmcp::model::CancelledNotificationParam;
use rmcp::service::Subscription;
use rmcp::{Peer, RoleClient};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tool_sdk::{CancellationToken, DynTool, ToolError};

use super::call::{CallTarget, call_tool};
use super::client::{Client, Listed, ServerSignals, connect, list_tool_entries};
use super::config::McpServerConfig;
use super::lifecycle::{listen_for_list_changes, next_list_change};
use crate::dynamic::{SkippedEntry, ToolHandler, import_entries, not_connected_message};

/// Reconnect attempts after an established connection ends, before the server is given up.
pub(crate) const MAX_RECONNECT_ATTEMPTS: u32 = 5;

/// The first reconnect delay; each further attempt doubles it, up to [`MAX_RECONNECT_DELAY`].
pub(crate) const FIRST_RECONNECT_DELAY: Duration = Duration::from_secs(1);

/// The longest delay between two reconnect attempts.
pub(crate) const MAX_RECONNECT_DELAY: Duration = Duration::from_secs(30);

/// Where a server stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpServerStatus {
    /// Connecting for the first time (the reference's `pending` client state).
    Pending,
    /// Connected; its tools are live.
    Connected,
    /// The connection ended; reconnect attempt `attempt` of `MAX_RECONNECT_ATTEMPTS` is
    /// waiting or running. Its tools answer "not connected" meanwhile.
    Reconnecting {
        /// Why the connection ended.
        reason: String,
        /// The attempt, from 1.
        attempt: u32,
    },
    /// Not connected and no longer trying: the first connect failed, every reconnect failed,
    /// or the manager shut down.
    Failed {
        /// Why, with the server's last stderr lines when it wrote any.
        reason: String,
    },
}

impl std::fmt::Display for McpServerStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Pending => f.write_str("pending"),
            Self::Connected => f.write_str("connected"),
            Self::Reconnecting { reason, attempt } => write!(
                f,
                "reconnecting (attempt {attempt} of {MAX_RECONNECT_ATTEMPTS}): {reason}"
            ),
            Self::Failed { reason } => write!(f, "failed: {reason}"),
        }
    }
}

/// One server as the host sees it now.
#[derive(Debug, Clone)]
pub struct McpServerSnapshot {
    /// The configured name.
    pub name: String,
    /// Its status.
    pub status: McpServerStatus,
    /// Its tools (the last listed ones while reconnecting), sorted by the pool collation.
    pub tools: Vec<Arc<dyn DynTool>>,
    /// Entries of its last `tools/list` skipped as malformed.
    pub skipped: Vec<SkippedEntry>,
    /// The MCP revision spoken with it (`2026-07-28`, `2025-11-25`, ...) while connected.
    pub protocol_version: Option<String>,
}

#[derive(Clone)]
struct Live {
    peer: Peer<RoleClient>,
    closed: CancellationToken,
}

struct LinkState {
    status: McpServerStatus,
    live: Option<Live>,
    tools: Vec<Arc<dyn DynTool>>,
    skipped: Vec<SkippedEntry>,
}

struct ServerLink {
    config: McpServerConfig,
    signals: Arc<ServerSignals>,
    state: RwLock<LinkState>,
}

impl ServerLink {
    fn read(&self) -> std::sync::RwLockReadGuard<'_, LinkState> {
        self.state.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, LinkState> {
        self.state.write().unwrap_or_else(|e| e.into_inner())
    }

    fn snapshot(&self) -> McpServerSnapshot {
        let state = self.read();
        McpServerSnapshot {
            name: self.config.name.clone(),
            status: state.status.clone(),
            tools: state.tools.clone(),
            skipped: state.skipped.clone(),
            protocol_version: state.live.as_ref().and_then(|live| {
                live.peer
                    .peer_info()
                    .map(|info| info.protocol_version.as_str().to_owned())
            }),
        }
    }

    /// Builds the tools of `entries`; each calls back through a weak link.
    fn install(self: &Arc<Self>, entries: &[serde_json::Value]) {
        let server = self.config.name.clone();
        let imported = import_entries(&server, entries, false, |raw| {
            let raw: Arc<str> = Arc::from(raw);
            let link = Arc::downgrade(self);
            ToolHandler::new(move |input, ctx| {
                let link = Weak::clone(&link);
                let raw = Arc::clone(&raw);
                async move {
                    let Some(link) = link.upgrade() else {
                        return Err(ToolError::new("the MCP manager was shut down"));
                    };
                    link.call(&raw, input, ctx).await
                }
            })
        });
        let mut tools = imported.tools;
        crate::pool::sort_tools(&mut tools);
        let mut state = self.write();
        state.tools = tools;
        state.skipped = imported.skipped;
    }

    async fn call(
        &self,
        raw: &str,
        input: serde_json::Value,
        ctx: tool_sdk::ToolUseContext,
    ) -> Result<tool_sdk::ToolResultContent, ToolError> {
        let (live, status) = {
            let state = self.read();
            (state.live.clone(), state.status.clone())
        };
        let Some(live) = live else {
            return Err(ToolError::new(format!(
                "{} ({status})",
                not_connected_message(&self.config.name, raw)
            )));
        };
        let target = CallTarget {
            server: &self.config.name,
            tool: raw,
            peer: live.peer,
            closed: live.closed,
            signals: &self.signals,
            timeout: self.config.call_timeout,
        };
        call_tool(target, input, ctx).await
    }

    fn set_status(&self, status: McpServerStatus, changes: &watch::Sender<u64>) {
        self.write().status = status;
        changes.send_modify(|generation| *generation += 1);
    }

    fn failure(&self, message: String) -> String {
        match self.signals.stderr_tail() {
            Some(tail) => format!("{message}; its last stderr lines:\n{tail}"),
            None => message,
        }
    }
}

/// The live MCP servers of a host. Dropping it stops every server (children are killed);
/// [`McpManager::shutdown`] does so and waits.
pub struct McpManager {
    links: Vec<Arc<ServerLink>>,
    changes: watch::Sender<u64>,
    shutdown: CancellationToken,
    tasks: std::sync::Mutex<Vec<JoinHandle<()>>>,
}

impl std::fmt::Debug for McpManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpManager")
            .field("servers", &self.statuses())
            .finish_non_exhaustive()
    }
}

impl McpManager {
    /// Starts connecting to every server at once and returns at once; each is
    /// [`McpServerStatus::Pending`] until its first connect ends. Must be called inside a
    /// Tokio runtime.
    pub fn start(configs: Vec<McpServerConfig>) -> Self {
        let (changes, _) = watch::channel(0);
        let shutdown = CancellationToken::new();
        let links: Vec<Arc<ServerLink>> = configs
            .into_iter()
            .map(|config| {
                Arc::new(ServerLink {
                    config,
                    signals: Arc::default(),
                    state: RwLock::new(LinkState {
                        status: McpServerStatus::Pending,
                        live: None,
                        tools: Vec::new(),
                        skipped: Vec::new(),
                    }),
                })
            })
            .collect();
        let tasks = links
            .iter()
            .map(|link| {
                tokio::spawn(supervise(
                    Arc::clone(link),
                    changes.clone(),
                    shutdown.clone(),
                ))
            })
            .collect();
        Self {
            links,
            changes,
            shutdown,
            tasks: std::sync::Mutex::new(tasks),
        }
    }

    /// [`McpManager::start`], then waits until no server is pending (each first connect is
    /// bounded by its connect timeout).
    pub async fn connect(configs: Vec<McpServerConfig>) -> Self {
        let manager = Self::start(configs);
        manager.wait_settled().await;
        manager
    }

    /// Waits until no server is [`McpServerStatus::Pending`].
    pub async fn wait_settled(&self) {
        let mut changes = self.changes.subscribe();
        while !self.pending_servers().is_empty() {
            if changes.changed().await.is_err() {
                return;
            }
        }
    }

    /// A receiver whose value grows whenever a status or a tool list changes: rebuild the pool
    /// (and the deferred-tools delta, SPEC §8.2) when it does.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.changes.subscribe()
    }

    /// Every server, in configuration order.
    pub fn servers(&self) -> Vec<McpServerSnapshot> {
        self.links.iter().map(|link| link.snapshot()).collect()
    }

    /// Each server's name and status.
    pub fn statuses(&self) -> Vec<(String, McpServerStatus)> {
        self.links
            .iter()
            .map(|link| (link.config.name.clone(), link.read().status.clone()))
            .collect()
    }

    /// The servers still connecting for the first time, for
    /// `SearchState::with_pending_mcp_servers` (SPEC §3.2).
    pub fn pending_servers(&self) -> Vec<String> {
        self.links
            .iter()
            .filter(|link| link.read().status == McpServerStatus::Pending)
            .map(|link| link.config.name.clone())
            .collect()
    }

    /// The tools of every server, for [`ToolPool::assemble`](crate::ToolPool::assemble) (which sorts them and applies deny
    /// rules such as `mcp__server`).
    pub fn tools(&self) -> Vec<Arc<dyn DynTool>> {
        self.links
            .iter()
            .flat_map(|link| link.read().tools.clone())
            .collect()
    }

    /// Stops every server and waits for their tasks (children are killed).
    pub async fn shutdown(&self) {
        self.shutdown.cancel();
        let tasks = std::mem::take(&mut *self.tasks.lock().unwrap_or_else(|e| e.into_inner()));
        for task in tasks {
            let _ = task.await;
        }
    }
}

impl Drop for McpManager {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

/// A connected server: the client, its tool entries, and its list-change stream (MCP
/// 2026-07-28).
type Connected = (Client, Listed, Option<Subscription>);

/// Connects (bounded by the connect timeout), lists the tools and, for an MCP 2026-07-28
/// server, opens the stream that announces list changes.
async fn connect_and_list(link: &ServerLink) -> Result<Connected, String> {
    let timeout = link.config.connect_timeout;
    let attempt = async {
        let client = connect(&link.config, &link.signals).await?;
        let entries = list_tool_entries(client.peer()).await?;
        let changes = listen_for_list_changes(client.peer()).await;
        Ok((client, entries, changes))
    };
    match tokio::time::timeout(timeout, attempt).await {
        Ok(outcome) => outcome,
        Err(_) => Err(format!(
            "no answer to server/discover or initialize and tools/list within {} ms",
            timeout.as_millis()
        )),
    }
}

/// What the supervisor knows of a server's listed tools: the last entries installed and how
/// many refreshes in a row failed.
struct Listing {
    entries: Vec<serde_json::Value>,
    failures: u32,
}

/// Lists the server's tools again after it announced a change or its list went stale, and
/// installs them when they differ from the last ones (only then are watchers told); returns
/// when the new list goes stale (see [`stale_at`]). A failed refresh is tried again after
/// [`MIN_FRESHNESS`], doubling with each failure in a row up to [`MAX_RECONNECT_DELAY`].
async fn refresh(
    link: &Arc<ServerLink>,
    peer: &Peer<RoleClient>,
    changes: &watch::Sender<u64>,
    listing: &mut Listing,
) -> Option<tokio::time::Instant> {
    let name = &link.config.name;
    let outcome = tokio::time::timeout(link.config.connect_timeout, list_tool_entries(peer)).await;
    let error = match outcome {
        Ok(Ok(listed)) => {
            listing.failures = 0;
            if listed.entries != listing.entries {
                link.install(&listed.entries);
                listing.entries = listed.entries;
                changes.send_modify(|generation| *generation += 1);
            }
            return stale_at(listed.fresh_for);
        }
        Ok(Err(error)) => error,
        Err(_) => "timed out".to_owned(),
    };
    listing.failures = listing.failures.saturating_add(1);
    tracing::warn!(server = %name, "refreshing tools failed: {error}");
    let wait = MIN_FRESHNESS
        .saturating_mul(1 << listing.failures.min(6))
        .min(MAX_RECONNECT_DELAY);
    Some(tokio::time::Instant::now() + wait)
}

/// The shortest time a listed tool list is kept before it is listed again, whatever `ttlMs`
/// the server gave: a server that says 1 ms is not listed a thousand times a second.
const MIN_FRESHNESS: Duration = Duration::from_secs(1);

/// When a list fresh for `fresh_for` goes stale and is listed again: never for a server that
/// gave no `ttlMs`, or `0` (no promise of freshness, rmcp's default: its changes are heard
/// from its `list_changed` notifications); otherwise after `ttlMs`, at least
/// [`MIN_FRESHNESS`].
fn stale_at(fresh_for: Option<Duration>) -> Option<tokio::time::Instant> {
    let fresh_for = fresh_for.filter(|fresh_for| !fresh_for.is_zero())?;
    Some(tokio::time::Instant::now() + fresh_for.max(MIN_FRESHNESS))
}

/// Resolves at `at`; never without one.
async fn until(at: Option<tokio::time::Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

async fn supervise(
    link: Arc<ServerLink>,
    changes: watch::Sender<u64>,
    shutdown: CancellationToken,
) {
    let name = link.config.name.clone();
    let mut attempt: u32 = 0;
    loop {
        let outcome = tokio::select! {
            () = shutdown.cancelled() => return,
            outcome = connect_and_list(&link) => outcome,
        };
        let (client, listed, mut list_changes) = match outcome {
            Ok(connected) => connected,
            Err(error) => {
                link.signals.end_process_group();
                let reason = link.failure(error);
                tracing::warn!(server = %name, "MCP server did not connect: {reason}");
                if attempt == 0 || attempt >= MAX_RECONNECT_ATTEMPTS {
                    link.set_status(McpServerStatus::Failed { reason }, &changes);
                    return;
                }
                attempt += 1;
                link.set_status(McpServerStatus::Reconnecting { reason, attempt }, &changes);
                if !backoff(attempt, &shutdown).await {
                    return;
                }
                continue;
            }
        };
        link.install(&listed.entries);
        let mut stale = stale_at(listed.fresh_for);
        let mut listing = Listing {
            entries: listed.entries,
            failures: 0,
        };
        let peer = client.peer().clone();
        let stop = client.cancellation_token();
        let closed = CancellationToken::new();
        link.write().live = Some(Live {
            peer: peer.clone(),
            closed: closed.clone(),
        });
        link.set_status(McpServerStatus::Connected, &changes);
        let waiting = client.waiting();
        tokio::pin!(waiting);
        let shut_down = loop {
            tokio::select! {
                _ = &mut waiting => break false,
                () = link.signals.list_changed.notified() => {
                    stale = refresh(&link, &peer, &changes, &mut listing).await;
                }
                () = next_list_change(&mut list_changes) => {
                    stale = refresh(&link, &peer, &changes, &mut listing).await;
                }
                () = until(stale) => {
                    stale = refresh(&link, &peer, &changes, &mut listing).await;
                }
                () = shutdown.cancelled() => {
                    // Cancels the list-change stream first, so the server ends it at once
                    // rather than when it gives up waiting for it.
                    if let Some(stream) = list_changes.take() {
                        let cancel = CancelledNotificationParam::new(
                            Some(stream.id().clone()),
                            Some("the host shut the connection down".to_owned()),
                        );
                        let _ = peer.notify_cancelled(cancel).await;
                    }
                    stop.cancel();
                    let _ = waiting.await;
                    break true;
                }
            }
        };
        drop(list_changes);
        closed.cancel();
        link.write().live = None;
        link.signals.end_process_group();
        if shut_down {
            link.set_status(
                McpServerStatus::Failed {
                    reason: "the host shut the connection down".to_owned(),
                },
                &changes,
            );
            return;
        }
        let reason = link.failure("the connection closed".to_owned());
        tracing::warn!(server = %name, "MCP server disconnected: {reason}");
        attempt = 1;
        link.set_status(McpServerStatus::Reconnecting { reason, attempt }, &changes);
        if !backoff(attempt, &shutdown).await {
            return;
        }
    }
}

/// Sleeps before reconnect `attempt` (1, 2, 4, ... seconds, at most
/// [`MAX_RECONNECT_DELAY`]); `false` when the manager shut down meanwhile.
async fn backoff(attempt: u32, shutdown: &CancellationToken) -> bool {
    let delay = FIRST_RECONNECT_DELAY
        .saturating_mul(1 << attempt.saturating_sub(1).min(16))
        .min(MAX_RECONNECT_DELAY);
    tokio::select! {
        () = shutdown.cancelled() => false,
        () = tokio::time::sleep(delay) => true,
    }
}
