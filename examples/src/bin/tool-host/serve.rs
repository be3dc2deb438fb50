//! `tool-host serve --stdio | --http ADDR`: the pool the options describe (the example tools,
//! confined to `--root`, plus any imported MCP servers) served as an MCP server, with the
//! permission rules in front of every call. With imported servers, tool-host is an MCP proxy.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Args;
use std::sync::Arc;
use tool_examples::tools::BackgroundShells;
use tool_examples::workspace::Workspace;

use rmcp::transport::streamable_http_server::session::SessionStore;
use tool_registry::mcp::serve::auth::ResourceAuth;
use tool_registry::mcp::serve::{HttpOptions, McpServer, RedisStore};
use tool_registry::{Orchestrator, OrchestratorConfig};
use tool_registry::{ToolPool, ToolRegistry};
use tool_sdk::Extensions;

use crate::pool_options::{BuiltPool, PoolOptions};

/// The `serve` command's arguments.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Serve one client over stdin and stdout (for an `mcpServers` entry).
    #[arg(long, conflicts_with = "http", required_unless_present = "http")]
    pub stdio: bool,
    /// Serve streamable HTTP at `http://ADDR/mcp`; a loopback address (`127.0.0.1:0` picks a
    /// free port, printed on stdout).
    #[arg(long, value_name = "ADDR")]
    pub http: Option<SocketAddr>,
    /// The workspace root: file tools only touch files below it, Bash runs in it. Default:
    /// the current directory.
    #[arg(long)]
    pub root: Option<PathBuf>,
    /// Let clients run Bash. Without it Bash is neither listed nor run: a shell command can
    /// reach outside the root, which the file tools cannot.
    #[arg(long)]
    pub allow_bash: bool,
    /// Tools per `tools/list` page.
    #[arg(long, default_value_t = McpServer::DEFAULT_PAGE_SIZE)]
    pub page_size: usize,
    /// Keep tasks and MCP 2025-11-25 sessions in the Redis (or Valkey) at this URL
    /// (`redis://host:port/`), shared by every replica of the service, instead of this
    /// process's memory. See deploy/README.md. Only with --http.
    #[arg(long, value_name = "URL", requires = "http")]
    pub store: Option<String>,
    /// How long a running task stays `working` without word from this process: it renews
    /// the lease every third of this, and when the process dies the task ends as `failed`
    /// this long after the last renewal at the latest.
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    pub task_lease: u64,
    /// The largest request body accepted over HTTP, in bytes (larger: 413).
    #[arg(long, value_name = "BYTES", default_value_t = 4 * 1024 * 1024)]
    pub max_request_bytes: usize,
    /// Requests one client (its access token's subject, else its IP address) may have
    /// running at once; more are answered 429.
    #[arg(long, value_name = "N")]
    pub max_concurrent_per_client: Option<usize>,
    /// Requests one client may make per second; more are answered 429 with Retry-After.
    #[arg(long, value_name = "N")]
    pub max_requests_per_second_per_client: Option<u32>,
    /// Require OAuth access tokens (JWTs) issued by this authorization server (its issuer
    /// URL; keys found through its metadata). Needs --resource-url.
    #[arg(long, value_name = "URL", requires_all = ["http", "resource_url"])]
    pub auth_issuer: Option<String>,
    /// This endpoint's URL as clients reach it (e.g. https://mcp.example.com/mcp): the
    /// audience access tokens must name; its host is accepted in `Host` headers.
    #[arg(long, value_name = "URL", requires = "auth_issuer")]
    pub resource_url: Option<String>,
    /// A scope every request needs (repeatable).
    #[arg(long = "auth-scope", value_name = "SCOPE", requires = "auth_issuer")]
    pub auth_scopes: Vec<String>,
    /// A scope one tool also needs, TOOL=SCOPE (repeatable): without it the tool is not
    /// listed and calling it is 403.
    #[arg(
        long = "tool-scope",
        value_name = "TOOL=SCOPE",
        requires = "auth_issuer"
    )]
    pub tool_scopes: Vec<String>,
    /// Accept access tokens this many seconds past `exp` (clock skew).
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 60,
        requires = "auth_issuer"
    )]
    pub auth_leeway: u64,
    /// Serve a non-loopback address without authentication, for a private network whose
    /// every client is trusted.
    #[arg(long, conflicts_with = "auth_issuer")]
    pub insecure_no_auth: bool,
    /// A `Host` clients may name besides localhost (repeatable): the name or address they
    /// reach this server by, e.g. `mcp.internal` or `10.0.0.5:8931` (DNS-rebinding
    /// protection refuses any other). --resource-url's host is accepted already.
    #[arg(long = "allowed-host", value_name = "HOST", requires = "http")]
    pub allowed_hosts: Vec<String>,
    /// A browser page's origin that may call this server and read its answers (CORS;
    /// repeatable): `scheme://host[:port]` (without a port: 80 or 443 only), `:*` for any
    /// port, e.g. `https://agent.example` or the MCP Inspector's `http://localhost:6274`.
    /// Requests from origins other than these and `http://localhost` pages are refused with
    /// 403; only these are granted CORS.
    #[arg(long = "allowed-origin", value_name = "ORIGIN", requires = "http")]
    pub allowed_origins: Vec<String>,
    #[command(flatten)]
    pub pool: PoolOptions,
}

/// Runs the command until the client disconnects (stdio) or SIGINT, SIGTERM or SIGHUP (either
/// transport), then stops the running calls and background shells.
pub fn run(registry: &ToolRegistry, args: &ServeArgs) -> Result<(), String> {
    let root = match &args.root {
        Some(root) => root.clone(),
        None => std::env::current_dir()
            .map_err(|error| format!("cannot read the current directory: {error}"))?,
    };
    let workspace = Workspace::new(&root)
        .map_err(|error| format!("cannot use --root {}: {error}", root.display()))?;
    // Without --allow-bash, Bash is denied by a blanket rule, which also leaves it out of the
    // pool (SPEC §7): clients never list a tool every call of which would be refused.
    let mut options = args.pool.clone();
    if !args.allow_bash {
        options.deny.push("Bash".to_owned());
    }
    // Kept until the end: imported servers stay connected while the server runs.
    let live = options.build_live(registry)?;
    let pool = &live.pool;
    let permissions = live.permissions.clone();
    let orchestrator_for = |pool: &ToolPool| {
        Orchestrator::new(pool.tools(), OrchestratorConfig::from_env())
            .with_permissions(permissions.clone())
    };
    let orchestrator = orchestrator_for(pool);
    let extensions = Extensions::new()
        .with(crate::mcp::client_roots(workspace.root()))
        .with(workspace)
        .with(BackgroundShells::default());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|error| format!("cannot start the async runtime: {error}"))?;
    runtime.block_on(async {
        let server = McpServer::with_options(
            orchestrator,
            "tool-host",
            env!("CARGO_PKG_VERSION"),
            extensions,
            args.page_size,
        )
        .map_err(|error| error.to_string())?
        .with_task_lease(std::time::Duration::from_secs(args.task_lease));
        let store = match &args.store {
            Some(url) => Some(Arc::new(
                RedisStore::connect(url)
                    .await
                    .map_err(|error| format!("--store: {error}"))?,
            )),
            None => None,
        };
        let server = match &store {
            Some(store) => server.with_task_store(Arc::clone(store)),
            None => server,
        };
        let follow = follow_imports(&live, &server, &orchestrator_for);
        match args.http {
            None => tokio::select! {
                served = server.serve_stdio() => served.map_err(|error| error.to_string()),
                () = stop_signal() => Ok(()),
                () = follow => Ok(()),
            },
            Some(addr) => {
                let mut options = HttpOptions {
                    max_request_body_bytes: args.max_request_bytes,
                    session_store: store.map(|store| store as Arc<dyn SessionStore>),
                    allow_remote: args.insecure_no_auth,
                    max_concurrent_per_client: args.max_concurrent_per_client,
                    max_requests_per_second_per_client: args.max_requests_per_second_per_client,
                    auth: resource_auth(args)?,
                    ..HttpOptions::default()
                };
                if let Some(host) = args
                    .resource_url
                    .as_deref()
                    .and_then(|url| url::Url::parse(url).ok())
                    .and_then(|url| url.host_str().map(str::to_owned))
                {
                    options.allowed_hosts.push(host);
                }
                options
                    .allowed_hosts
                    .extend(args.allowed_hosts.iter().cloned());
                options.cors_origins = args.allowed_origins.clone();
                let loopback_hosts_only = options.allows_loopback_hosts_only();
                let http = server
                    .serve_http(addr, options)
                    .await
                    .map_err(|error| error.to_string())?;
                println!("listening on {}", http.url());
                if !addr.ip().is_loopback() && loopback_hosts_only {
                    eprintln!(
                        "note: requests must name localhost or a loopback address in `Host`; \
                         a client reaching this server by another name or address gets 403 \
                         until --allowed-host HOST lists it"
                    );
                }
                let stop = http.stop_token();
                tokio::spawn(async move {
                    stop_signal().await;
                    stop.cancel();
                });
                tokio::select! {
                    () = http.wait() => {}
                    () = follow => {}
                }
                Ok(())
            }
        }
    })
    // Leaving the runtime drops the running calls and the host state, which stops their
    // commands and background shells; `live` then disconnects the imported servers.
}

/// The token check the `--auth-*` options ask for, if any.
fn resource_auth(args: &ServeArgs) -> Result<Option<ResourceAuth>, String> {
    let (Some(issuer), Some(resource)) = (&args.auth_issuer, &args.resource_url) else {
        return Ok(None);
    };
    let mut auth = ResourceAuth::new(resource, issuer)
        .with_required_scopes(args.auth_scopes.iter().cloned())
        .with_leeway(std::time::Duration::from_secs(args.auth_leeway));
    for entry in &args.tool_scopes {
        let (tool, scope) = entry
            .split_once('=')
            .filter(|(tool, scope)| !tool.is_empty() && !scope.is_empty())
            .ok_or_else(|| {
                format!("--tool-scope {entry}: write TOOL=SCOPE, e.g. Bash=shell:run")
            })?;
        auth = auth.with_tool_scopes(tool, [scope]);
    }
    Ok(Some(auth))
}

/// Keeps the served pool in step with the imported servers: whenever one of them changes its
/// tools (`notifications/tools/list_changed`) or connects, dies or reconnects, the pool is
/// assembled again and served, and clients get `notifications/tools/list_changed` when their
/// listing differs. Never resolves (pending at once when nothing is imported).
async fn follow_imports(
    live: &BuiltPool,
    server: &McpServer,
    orchestrator_for: &dyn Fn(&ToolPool) -> Orchestrator,
) {
    if let Some(session) = &live.mcp {
        let mut changes = session.changes();
        loop {
            // Also once at the start: a change made between assembling the first pool and
            // subscribing would otherwise wait for the next one (an unchanged listing is not
            // announced, so this costs clients nothing).
            let served = match live.reassembled() {
                Ok(pool) => server
                    .set_orchestrator(orchestrator_for(&pool))
                    .await
                    .map_err(|error| error.to_string()),
                Err(error) => Err(error),
            };
            if let Err(error) = served {
                eprintln!(
                    "tool-host: warning: the imported tools changed, but the pool was kept: {error}"
                );
            }
            if changes.changed().await.is_err() {
                break;
            }
        }
    }
    std::future::pending::<()>().await;
}

/// Resolves on SIGINT (Ctrl-C), SIGTERM or SIGHUP: how hosts such as Claude Desktop and
/// process managers stop a server. The server then stops its calls and background shells
/// before exiting, rather than dying and leaving them running.
async fn stop_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    let mut terminate = signal(SignalKind::terminate()).ok();
    let mut hangup = signal(SignalKind::hangup()).ok();
    let next = |stream: Option<tokio::signal::unix::Signal>| async move {
        match stream {
            Some(mut stream) => {
                stream.recv().await;
            }
            None => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = next(terminate.take()) => {}
        () = next(hangup.take()) => {}
    }
}
