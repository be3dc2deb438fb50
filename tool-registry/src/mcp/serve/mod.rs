//! A tool pool as an MCP server, through rmcp's server (feature `mcp-server`): over stdio and
//! over streamable HTTP, speaking MCP 2025-11-25 (`initialize`, sessions) and MCP 2026-07-28
//! (`server/discover`, stateless requests with their own `_meta`) on the same endpoint.
//!
//! [`McpServer`] serves the tools of an [`Orchestrator`] (native `#[tool]`s, dynamic tools and
//! imported MCP tools alike):
//!
//! - `tools/list` gives every tool's MCP definition, built once per pool (the bytes
//!   `definitions --format mcp` prints)
//!   (`name`, `title` when set, `description`, `inputSchema` with an object root and the
//!   tool's own `$schema` (2020-12 when none), `annotations` with all four hints stated),
//!   in pages of [`McpServer::DEFAULT_PAGE_SIZE`] with opaque cursors.
//! - `outputSchema` is listed only for a tool whose output schema has an object root (MCP
//!   requires one); tools with scalar or array outputs list none and answer with text only,
//!   rather than being wrapped in an object the tool never declared. A tool with an output
//!   schema answers with `structuredContent` (the imported server's own, or the result text
//!   parsed as the JSON object the default result mapping writes) and the same JSON as text.
//!   When the result is over the persistence limit (SPEC §9), `structuredContent` is still the
//!   whole object (read back from the saved file) and the text is the bounded preview.
//! - `tools/call` runs through [`Orchestrator::run_tool_use`], so through every outcome of
//!   SPEC §5.4: input validation, the orchestrator's permission rules (an "ask" with no host
//!   prompt is a refusal), observers, and the large-result rules of SPEC §9. An unknown tool is
//!   a JSON-RPC error `-32602`; invalid arguments, refusals and tool failures are
//!   `isError: true` results whose text names the field or the failure (SEP-1303). Progress
//!   the tool reports goes out as `notifications/progress` when the request carried a
//!   `progressToken`; `notifications/cancelled` aborts the call; [`ServedCall::log`] lines go
//!   out as `notifications/message` at or above the `logging/setLevel` level (2025-11-25) or
//!   the request's `_meta` `logLevel` (2026-07-28; none without one).
//! - Resources, prompts and completions: [`McpServer::with_handler`] serves a user's own rmcp
//!   handler for them beside the pool.
//! - [`McpServer::set_orchestrator`] replaces the pool and, when the listing differs, sends
//!   `notifications/tools/list_changed` to every initialized session.
//! - Concurrency: see the `session` module: safe calls run together up to the orchestrator's
//!   cap, a non-safe call runs alone within its session (2025-11-25) or among every
//!   2026-07-28 request the server is running.
//!
//! ```no_run
//! use std::sync::Arc;
//! use tool_registry::mcp::serve::{HttpOptions, McpServer};
//! use tool_registry::{Orchestrator, OrchestratorConfig, ToolRegistry};
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let registry = ToolRegistry::collect()?;
//! let orchestrator = Orchestrator::new(registry.tools(), OrchestratorConfig::from_env());
//! let server = McpServer::new(orchestrator, "my-tools", "1.0.0")?;
//! // Either stdio (until the client closes it) ...
//! server.serve_stdio().await?;
//! // ... or HTTP on loopback, until shut down.
//! let http = server.serve_http("127.0.0.1:8080".parse()?, HttpOptions::default()).await?;
//! println!("listening on http://{}/mcp", http.local_addr());
//! http.shutdown().await;
//! # Ok(()) }
//! ```

mod answer;
mod asking;
pub mod auth;
mod beside;
mod content;
mod cors;
mod ended;
mod entries;
mod gate;
mod hosts;
mod http;
mod input;
mod limits;
mod listing;
mod media;
mod options;
mod progress;
#[cfg(feature = "redis")]
mod redis;
mod revision;
mod served_call;
mod session;
pub mod tasks;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use rmcp::ServiceExt as _;
use rmcp::model::{Implementation, ServerCapabilities, ServerConfig};
use rmcp::service::{Peer, RoleServer, SubscriptionSink};
use tokio::io::{AsyncRead, AsyncWrite};
use tool_sdk::Extensions;

pub use http::HttpServer;
pub use options::HttpOptions;
#[cfg(feature = "redis")]
pub use redis::RedisStore;
pub use served_call::ServedCall;

use super::StructuredContentStore;
use crate::Orchestrator;
use crate::export::RenderRequest;
use listing::Listing;
use session::Session;

/// Why serving failed. More reasons may come: match with a wildcard arm.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The pool cannot be listed over MCP: two of its tools have the same name (the message
    /// names it).
    #[error("{0}")]
    Listing(String),
    /// The MCP handshake or the transport failed.
    #[error("MCP transport: {0}")]
    Transport(String),
    /// The HTTP address cannot be used (the message says why and what to do).
    #[error("{0}")]
    Address(String),
    /// A field of [`HttpOptions`] cannot be used: the message names it, the value and the fix.
    #[error("{0}")]
    Options(String),
}

/// A tool pool served over MCP. Cheap to clone; clones serve the same pool. Every MCP
/// 2025-11-25 connection or HTTP session gets its own logging level, host state and call
/// limits; MCP 2026-07-28 requests, which belong to no session, share one set of call limits
/// for the whole server (a non-safe call runs alone among all of them, which suits a server
/// with one client; a server for many clients wants them scoped per client, which needs to
/// know who the client is).
#[derive(Clone)]
pub struct McpServer {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("server_info", &self.shared.info.server_info)
            .field("tools", &self.shared.served().listing.tools().len())
            .finish_non_exhaustive()
    }
}

/// What every session of a server shares.
pub(crate) struct Shared {
    served: RwLock<Arc<Served>>,
    info: ServerConfig,
    extensions: Extensions,
    page_size: usize,
    generation: AtomicU64,
    /// Makes the `tool_use` ids of this server's calls unique (see [`Shared::next_call_id`]).
    call_ids: CallIds,
    /// The initialized sessions, told when the tool list changes.
    peers: Mutex<Vec<Peer<RoleServer>>>,
    /// The open `subscriptions/listen` streams that asked for `toolsListChanged` (MCP
    /// 2026-07-28), by a number of their own, told when the tool list changes.
    listeners: Mutex<Vec<(u64, SubscriptionSink)>>,
    /// Numbers the listeners.
    listener_ids: AtomicU64,
    /// The call gate of MCP 2026-07-28 requests, which belong to no session: one for the
    /// whole server, so the concurrency cap and the rule that a non-safe call runs alone hold
    /// across every such request (see `session`).
    stateless_gate: Arc<gate::CallGate>,
    /// The user's handler for resources, prompts and completions
    /// ([`McpServer::with_handler`]).
    beside: RwLock<Option<Arc<beside::Beside>>>,
    /// Seals and opens the `requestState` of MCP 2026-07-28 multi round-trip requests
    /// (replaced by [`McpServer::with_request_state_key`]).
    request_state: RwLock<Arc<rmcp::model::RequestStateCodec>>,
    /// Where tasks live and how long they are kept and leased ([`McpServer::with_task_store`],
    /// [`McpServer::with_task_ttl`], [`McpServer::with_task_lease`]).
    pub(crate) tasks: tasks::TaskSettings,
}

/// A registered `subscriptions/listen` stream; dropping it unregisters the stream.
struct Listening<'a> {
    shared: &'a Shared,
    id: u64,
}

impl Drop for Listening<'_> {
    fn drop(&mut self) {
        self.shared
            .listeners
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|(other, _)| *other != self.id);
    }
}

/// The pool being served: the orchestrator that runs calls and its listing.
pub(crate) struct Served {
    orchestrator: Orchestrator,
    listing: Listing,
    /// Some tool of the pool may run as a task: the server declares the tasks extension.
    tasks: bool,
}

impl Served {
    fn new(orchestrator: Orchestrator, listing: Listing) -> Self {
        let tasks = orchestrator
            .tools()
            .iter()
            .any(|tool| tool.meta().task != tool_sdk::tool::TaskSupport::Forbidden);
        Self {
            orchestrator,
            listing,
            tasks,
        }
    }
}

impl Shared {
    fn served(&self) -> Arc<Served> {
        Arc::clone(&self.served.read().unwrap_or_else(|e| e.into_inner()))
    }

    /// The codec of this server's request states.
    fn request_state(&self) -> Arc<rmcp::model::RequestStateCodec> {
        Arc::clone(&self.request_state.read().unwrap_or_else(|e| e.into_inner()))
    }

    /// Keeps `sink` told of tool list changes until the returned guard is dropped.
    fn listen(&self, sink: SubscriptionSink) -> Listening<'_> {
        let id = self.listener_ids.fetch_add(1, Ordering::Relaxed);
        self.listeners
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((id, sink));
        Listening { shared: self, id }
    }

    /// The user's handler for resources, prompts and completions, when one is set.
    fn beside(&self) -> Option<Arc<beside::Beside>> {
        self.beside
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The server's `initialize` / `server/discover` answer: its own capabilities and those
    /// of the handler beside the pool.
    fn info(&self) -> ServerConfig {
        let mut info = self.info.clone();
        if self.served().tasks {
            info.capabilities
                .extensions
                .get_or_insert_with(Default::default)
                .insert(
                    rmcp::model::TASKS_EXTENSION_ID.to_owned(),
                    serde_json::Map::new(),
                );
        }
        if let Some(beside) = self.beside() {
            beside.add_capabilities(&mut info.capabilities);
        }
        info
    }

    /// A `tool_use` id for the next call, unique across this server's sessions and across
    /// processes sharing a result directory: the large-result rules (SPEC §9) save a result
    /// under its id and keep a file already there, so an id made from the client's request id
    /// alone (which every session starts again from) would hand one session another's saved
    /// result.
    pub(crate) fn next_call_id(&self) -> String {
        let sequence = self.call_ids.next.fetch_add(1, Ordering::Relaxed);
        let mut digits = itoa::Buffer::new();
        let sequence = digits.format(sequence);
        // One allocation: `format!` would grow the string as it writes.
        let mut id = String::with_capacity(self.call_ids.prefix.len() + 5 + sequence.len());
        id.push_str("mcp_");
        id.push_str(&self.call_ids.prefix);
        id.push('_');
        id.push_str(sequence);
        id
    }

    fn remember_peer(&self, peer: Peer<RoleServer>) {
        let mut peers = self.peers.lock().unwrap_or_else(|e| e.into_inner());
        peers.retain(|peer| !peer.is_transport_closed());
        peers.push(peer);
    }

    /// The listing of `orchestrator`'s pool, each tool's definition built afresh: a session schema cache
    /// would keep the first definition it saw of a tool whose input schema stays the same, so
    /// an imported tool's new description or hints would never be listed. The listing is
    /// rendered once per pool and served as it is from then on.
    fn listing(&self, orchestrator: &Orchestrator) -> Result<Listing, ServeError> {
        let generation = self.generation.fetch_add(1, Ordering::Relaxed) + 1;
        // Lenient tools are listed as the orchestrator runs them: open at the root.
        let request = RenderRequest {
            lenient_input: orchestrator.config().lenient_input_tools.clone(),
            ..RenderRequest::default()
        };
        Listing::build(orchestrator.tools(), &request, generation, self.page_size)
            .map_err(ServeError::Listing)
    }
}

/// The parts of the `tool_use` ids a server gives its calls.
struct CallIds {
    /// The process and the time the server was made, in hex.
    prefix: String,
    next: AtomicU64,
}

impl CallIds {
    fn new() -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_nanos());
        Self {
            prefix: format!("{:x}{nanos:x}", std::process::id()),
            next: AtomicU64::new(1),
        }
    }
}

impl McpServer {
    /// The default number of tools per `tools/list` page: 100.
    pub const DEFAULT_PAGE_SIZE: usize = 100;

    /// A server for `orchestrator`'s tools, calls and rules, introducing itself as `name`
    /// `version` (`serverInfo`), with [`Self::DEFAULT_PAGE_SIZE`] tools per page and no host state.
    ///
    /// # Errors
    /// [`ServeError::Listing`] when two tools of the pool have the same name.
    pub fn new(
        orchestrator: Orchestrator,
        name: impl Into<String>,
        version: impl Into<String>,
    ) -> Result<Self, ServeError> {
        Self::with_options(
            orchestrator,
            name,
            version,
            Extensions::new(),
            Self::DEFAULT_PAGE_SIZE,
        )
    }

    /// [`McpServer::new`] with `extensions` as the host state every call starts from (for
    /// instance the workspace file tools are confined to) and `page_size` tools per
    /// `tools/list` page (at least 1).
    ///
    /// # Errors
    /// As [`McpServer::new`].
    pub fn with_options(
        orchestrator: Orchestrator,
        name: impl Into<String>,
        version: impl Into<String>,
        extensions: Extensions,
        page_size: usize,
    ) -> Result<Self, ServeError> {
        // rmcp marks logging deprecated for MCP 2026-07-28 (SEP-2577); 2025-11-25 sessions
        // have it.
        #[allow(deprecated)]
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_logging()
            .build();
        let mut info = ServerConfig::new(capabilities);
        info.server_info = Implementation::new(name.into(), version.into());
        let shared = Shared {
            served: RwLock::new(Arc::new(Served::new(
                orchestrator.clone(),
                Listing::build(&[], &RenderRequest::default(), 0, page_size)
                    .map_err(ServeError::Listing)?,
            ))),
            info,
            extensions,
            page_size,
            generation: AtomicU64::new(0),
            call_ids: CallIds::new(),
            peers: Mutex::new(Vec::new()),
            listeners: Mutex::new(Vec::new()),
            listener_ids: AtomicU64::new(0),
            stateless_gate: Arc::new(gate::CallGate::new(
                orchestrator.config().effective_concurrency(),
            )),
            beside: RwLock::new(None),
            request_state: RwLock::new(Arc::new(input::new_codec())),
            tasks: tasks::TaskSettings::default(),
        };
        let server = Self {
            shared: Arc::new(shared),
        };
        let listing = server.shared.listing(&orchestrator)?;
        *server
            .shared
            .served
            .write()
            .unwrap_or_else(|e| e.into_inner()) = Arc::new(Served::new(orchestrator, listing));
        Ok(server)
    }

    /// Serves `handler`'s resources, prompts and completions beside the tool pool: the
    /// server forwards `resources/list`, `resources/templates/list`, `resources/read`,
    /// `resources/subscribe`, `resources/unsubscribe`, `prompts/list`, `prompts/get` and
    /// `completion/complete` to it, and declares the `resources`, `prompts` and `completions`
    /// capabilities its [`get_info`](rmcp::ServerHandler::get_info) declares. Tools, logging
    /// and the lifecycle stay the pool's (the handler's own tools, if any, are not served).
    /// This is the one way to offer more than tools from one server: write the rest as any
    /// rmcp server (with rmcp's `#[prompt_router]` or by hand) and hand it here. Replaces a
    /// handler set before, for this server and every clone of it (they share one server);
    /// sessions already open see the new one from their next request. The handler's own
    /// notifications (resource updates, prompt list changes) reach MCP 2025-11-25 sessions;
    /// an MCP 2026-07-28 `subscriptions/listen` stream carries the pool's tool list changes
    /// only.
    ///
    /// ```no_run
    /// use rmcp::model::{ListResourcesResult, PaginatedRequestParams, Resource};
    /// use rmcp::model::{ServerCapabilities, ServerConfig};
    /// use rmcp::service::{RequestContext, RoleServer};
    /// use rmcp::{ErrorData, ServerHandler};
    /// use tool_registry::mcp::serve::McpServer;
    /// use tool_registry::{Orchestrator, OrchestratorConfig};
    ///
    /// #[derive(Clone)]
    /// struct Docs;
    ///
    /// impl ServerHandler for Docs {
    ///     fn get_info(&self) -> ServerConfig {
    ///         ServerConfig::new(ServerCapabilities::builder().enable_resources().build())
    ///     }
    ///
    ///     async fn list_resources(
    ///         &self,
    ///         _request: Option<PaginatedRequestParams>,
    ///         _context: RequestContext<RoleServer>,
    ///     ) -> Result<ListResourcesResult, ErrorData> {
    ///         let readme = Resource::new("file:///README.md", "README");
    ///         Ok(ListResourcesResult::with_all_items(vec![readme]))
    ///     }
    /// }
    ///
    /// # fn demo() -> Result<(), Box<dyn std::error::Error>> {
    /// let orchestrator = Orchestrator::new(&[], OrchestratorConfig::default());
    /// let server = McpServer::new(orchestrator, "docs", "1.0.0")?.with_handler(Docs);
    /// # Ok(()) }
    /// ```
    #[must_use]
    pub fn with_handler<H: rmcp::ServerHandler>(self, handler: H) -> Self {
        *self
            .shared
            .beside
            .write()
            .unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(beside::Beside::new(handler)));
        self
    }

    /// Signs MCP 2026-07-28 request states (the `requestState` of the `InputRequiredResult`
    /// a tool's question ends a round with) with `key` instead of the key made at random
    /// when the server started: give every replica of one service the same secret key, so a
    /// round answered through another replica, or after a restart, is accepted. 32 random
    /// bytes from a secret store; never a constant in the source. Applies to this server and
    /// every clone of it; states signed before are refused from then on.
    #[must_use]
    pub fn with_request_state_key(self, key: [u8; 32]) -> Self {
        *self
            .shared
            .request_state
            .write()
            .unwrap_or_else(|e| e.into_inner()) =
            Arc::new(rmcp::model::RequestStateCodec::new_unchecked(key.to_vec()));
        self
    }

    /// Keeps tasks (see [`tasks`]) in `store` instead of this process's memory
    /// ([`tasks::MemoryTaskStore`]): give every replica of one service the same shared store,
    /// so a task started through one is followed, answered and cancelled through any.
    /// Applies to this server and every clone of it; tasks kept before are not carried over.
    #[must_use]
    pub fn with_task_store(self, store: impl tasks::TaskStore) -> Self {
        self.shared.tasks.set_store(Arc::new(store));
        self
    }

    /// Keeps each task `ttl` from its creation (its `ttlMs`) rather than the default, an hour: a task still running then is stopped
    /// and `failed`. At least a second. Applies to this server and every clone of it, for
    /// tasks made from then on.
    #[must_use]
    pub fn with_task_ttl(self, ttl: std::time::Duration) -> Self {
        self.shared.tasks.set_ttl(ttl);
        self
    }

    /// Leases each running task for `lease` (default 30 s),
    /// renewed every third of it while the task runs: when this process dies mid-task, the
    /// task ends as `failed` (its outcome unknown) at most `lease` after its last renewal,
    /// for every process sharing the [`tasks::TaskStore`]. At least 300 ms. Applies to this
    /// server and every clone of it, for tasks made from then on.
    #[must_use]
    pub fn with_task_lease(self, lease: std::time::Duration) -> Self {
        self.shared.tasks.set_lease(lease);
        self
    }

    /// The `tools/list` entries, in pool order, as served.
    pub fn tools(&self) -> Vec<rmcp::model::Tool> {
        self.shared.served().listing.tools().to_vec()
    }

    /// Serves a new pool from now on (calls already running finish on the old one) and, when
    /// its `tools/list` differs from the one served before, sends
    /// `notifications/tools/list_changed` to every initialized session still connected and
    /// every open `subscriptions/listen` stream that asked for it (the old listing's cursors
    /// are then refused; with the same listing they stay valid).
    ///
    /// # Errors
    /// As [`McpServer::new`]; the old pool stays served.
    pub async fn set_orchestrator(&self, orchestrator: Orchestrator) -> Result<(), ServeError> {
        let mut listing = self.shared.listing(&orchestrator)?;
        let unchanged = listing.continues(&self.shared.served().listing);
        *self
            .shared
            .served
            .write()
            .unwrap_or_else(|e| e.into_inner()) = Arc::new(Served::new(orchestrator, listing));
        if unchanged {
            return Ok(());
        }
        let peers: Vec<Peer<RoleServer>> = {
            let mut peers = self.shared.peers.lock().unwrap_or_else(|e| e.into_inner());
            peers.retain(|peer| !peer.is_transport_closed());
            peers.clone()
        };
        for peer in peers {
            // A session that went away meanwhile needs no notice.
            let _ = peer.notify_tool_list_changed().await;
        }
        let listeners: Vec<SubscriptionSink> = self
            .shared
            .listeners
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .map(|(_, sink)| sink.clone())
            .collect();
        for sink in listeners {
            // A stream closed meanwhile needs no notice.
            let _ = sink.notify_tool_list_changed().await;
        }
        Ok(())
    }

    /// Serves one client over this process's stdin and stdout until the client closes them.
    /// Nothing else may write to stdout meanwhile (logs go to stderr).
    ///
    /// # Errors
    /// [`ServeError::Transport`] when the handshake fails or the connection breaks.
    pub async fn serve_stdio(&self) -> Result<(), ServeError> {
        self.serve_io(tokio::io::stdin(), tokio::io::stdout()).await
    }

    /// Serves one client over `reader` and `writer` (newline-delimited JSON-RPC, as stdio),
    /// until the client closes the connection.
    ///
    /// # Errors
    /// As [`McpServer::serve_stdio`].
    pub async fn serve_io<R, W>(&self, reader: R, writer: W) -> Result<(), ServeError>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let running = Session::new(Arc::clone(&self.shared))
            .serve((reader, writer))
            .await
            .map_err(|error| ServeError::Transport(error.to_string()))?;
        running
            .waiting()
            .await
            .map(|_| ())
            .map_err(|error| ServeError::Transport(error.to_string()))
    }

    /// A new session handler, for rmcp's HTTP service factory.
    fn session(&self) -> Session {
        Session::new(Arc::clone(&self.shared))
    }
}
