//! Live MCP servers for tool-host: `--mcp-config FILE`, `--mcp-server NAME='CMD ARGS'` and
//! `--mcp-url NAME=URL`, shared by `pool`, `definitions`, `search` and `run`, and the
//! `tool-host mcp list` report. HTTP servers get OAuth ([`crate::oauth`]): a server that
//! answers 401 starts a login when a person is at the terminal, and otherwise fails with an
//! error saying to run `tool-host mcp login NAME`.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;
use tool_registry::mcp::{LoopbackLogin, McpManager, McpServerConfig, McpTransportConfig};
use tool_sdk::DynTool;

/// Which MCP servers to connect to.
#[derive(Args, Debug, Clone, Default)]
pub struct McpOptions {
    /// A JSON file in the `mcpServers` shape of Claude Code and Claude Desktop
    /// (`{"mcpServers": {"git": {"command": "uvx", "args": ["mcp-server-git"]}}}`) (repeatable).
    #[arg(long = "mcp-config", value_name = "FILE")]
    pub mcp_config: Vec<PathBuf>,
    /// `NAME='CMD ARGS'`: a server started as a child process, spoken to over stdio
    /// (repeatable).
    #[arg(long = "mcp-server", value_name = "NAME=CMD ARGS")]
    pub mcp_server: Vec<String>,
    /// `NAME=URL`: a streamable HTTP server (repeatable).
    #[arg(long = "mcp-url", value_name = "NAME=URL")]
    pub mcp_url: Vec<String>,
    /// Where OAuth tokens of HTTP servers are kept (`DIR/oauth/NAME.json`); by default
    /// TOOL_HOST_CONFIG_DIR, else $XDG_CONFIG_HOME/tool-host, else ~/.config/tool-host.
    #[arg(long = "config-dir", value_name = "DIR")]
    pub config_dir: Option<PathBuf>,
}

/// How long a connect may take when it may include a login in a browser: five minutes.
const LOGIN_CONNECT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(300);

impl McpOptions {
    /// Every configured server, in the order given (config files first), HTTP servers
    /// without a fixed bearer token with OAuth: their token file, and a login on a loopback
    /// port when a person is at the terminal.
    pub fn configs(&self) -> Result<Vec<McpServerConfig>, String> {
        let configs = self.server_configs()?;
        let wants_oauth = |config: &McpServerConfig| {
            matches!(
                config.transport,
                McpTransportConfig::Http {
                    bearer_token_env: None,
                    ..
                }
            )
        };
        if !configs.iter().any(wants_oauth) {
            return Ok(configs);
        }
        // With nowhere to keep tokens, servers are connected as before OAuth: one that asks for
        // a login then fails with the reason.
        let dir = match crate::oauth::config_dir(self.config_dir.as_deref()) {
            Ok(dir) => dir,
            Err(why) => {
                eprintln!(
                    "tool-host: warning: {why}; HTTP MCP servers are connected without OAuth"
                );
                return Ok(configs);
            }
        };
        // One loopback port serves every server's login, one at a time.
        let login = if crate::oauth::interactive() {
            LoopbackLogin::bind().ok().map(Arc::new)
        } else {
            None
        };
        Ok(configs
            .into_iter()
            .map(|config| {
                if wants_oauth(&config) {
                    let given = config.oauth.clone();
                    let oauth = crate::oauth::settings(&dir, &config.name, given, login.clone());
                    let config = config.with_oauth(oauth);
                    // A person logging in in a browser needs longer than a connect takes.
                    match &login {
                        Some(_) => {
                            let wait = config.connect_timeout.max(LOGIN_CONNECT_TIMEOUT);
                            config.with_connect_timeout(wait)
                        }
                        None => config,
                    }
                } else {
                    config
                }
            })
            .collect())
    }

    /// Every configured server as given, without OAuth.
    pub fn server_configs(&self) -> Result<Vec<McpServerConfig>, String> {
        let mut configs = Vec::new();
        for file in &self.mcp_config {
            let text = std::fs::read_to_string(file)
                .map_err(|error| format!("cannot read {}: {error}", file.display()))?;
            let document: serde_json::Value = serde_json::from_str(&text)
                .map_err(|error| format!("{} is not JSON: {error}", file.display()))?;
            configs.extend(
                McpServerConfig::from_mcp_servers_json(&document)
                    .map_err(|error| format!("{}: {error}", file.display()))?,
            );
        }
        for spec in &self.mcp_server {
            configs.push(
                McpServerConfig::parse_stdio_spec(spec)
                    .map_err(|error| format!("--mcp-server: {error}"))?,
            );
        }
        for spec in &self.mcp_url {
            configs.push(
                McpServerConfig::parse_url_spec(spec)
                    .map_err(|error| format!("--mcp-url: {error}"))?,
            );
        }
        let mut names: Vec<&str> = configs.iter().map(|config| config.name.as_str()).collect();
        names.sort_unstable();
        if let Some(pair) = names.windows(2).find(|pair| pair[0] == pair[1]) {
            return Err(format!(
                "two MCP servers are named `{}`; give each a different name",
                pair[0]
            ));
        }
        Ok(configs)
    }

    /// Connects to the servers (all at once; each bounded by its connect timeout), or `None`
    /// when none is configured.
    pub fn connect(&self) -> Result<Option<McpSession>, String> {
        let configs = self.configs()?;
        if configs.is_empty() {
            return Ok(None);
        }
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|error| format!("cannot start the async runtime: {error}"))?;
        let manager = runtime.block_on(McpManager::connect(configs));
        for server in manager.servers() {
            for skipped in &server.skipped {
                eprintln!("tool-host: warning: {skipped}");
            }
            if !matches!(
                server.status,
                tool_registry::mcp::McpServerStatus::Connected
            ) {
                eprintln!(
                    "tool-host: warning: MCP server `{}` {}",
                    server.name, server.status
                );
            }
        }
        Ok(Some(McpSession { runtime, manager }))
    }
}

/// Connected MCP servers and the runtime their connections live on. Dropping it stops the
/// servers (children are killed) before the runtime ends.
pub struct McpSession {
    runtime: tokio::runtime::Runtime,
    manager: McpManager,
}

impl McpSession {
    /// The tools of every server.
    pub fn tools(&self) -> Vec<Arc<dyn DynTool>> {
        self.manager.tools()
    }

    /// A receiver whose value moves whenever a server's status or tool list changes (see
    /// [`McpManager::subscribe`]); [`tools`](Self::tools) then has the new tools.
    pub fn changes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.manager.subscribe()
    }

    /// One block per server: name, status, skipped entries, then its tools with their raw
    /// names and hints.
    pub fn describe(&self) -> String {
        let mut text = String::new();
        for server in self.manager.servers() {
            let revision = server
                .protocol_version
                .as_deref()
                .map(|version| format!("MCP {version}, "))
                .unwrap_or_default();
            let _ = writeln!(
                text,
                "{}: {} ({revision}{} tools)",
                server.name,
                server.status,
                server.tools.len()
            );
            for skipped in &server.skipped {
                let _ = writeln!(text, "  skipped #{}: {}", skipped.index, skipped.reason);
            }
            for tool in &server.tools {
                let meta = tool.meta();
                let raw = meta
                    .mcp_info
                    .as_ref()
                    .map_or("", |info| info.tool_name.as_str());
                let _ = writeln!(
                    text,
                    "  {:<48} raw `{raw}`, read-only {}, destructive {}",
                    meta.name,
                    meta.read_only.label(),
                    meta.destructive.label()
                );
            }
        }
        text
    }
}

impl Drop for McpSession {
    fn drop(&mut self) {
        self.runtime.block_on(self.manager.shutdown());
    }
}

/// `tool-host mcp list`: connects and prints each server's status and tools.
pub fn list(options: &McpOptions) -> Result<(), String> {
    match options.connect()? {
        Some(session) => {
            print!("{}", session.describe());
            Ok(())
        }
        None => Err(
            "no MCP server given: use --mcp-config FILE, --mcp-server NAME='CMD ARGS' or --mcp-url NAME=URL"
                .to_owned(),
        ),
    }
}

/// The roots an imported MCP server is told when it asks (`roots/list`, MCP 2026-07-28 input
/// requests): the workspace root, as a `file://` URI. Put in a turn's extensions, where the
/// import looks for it.
// rmcp marks roots deprecated (SEP-2577, a later revision); MCP 2026-07-28 servers still ask.
#[allow(deprecated)]
pub fn client_roots(root: &std::path::Path) -> rmcp::model::ListRootsResult {
    let roots = url::Url::from_directory_path(root)
        .map(|uri| {
            let mut listed = rmcp::model::Root::new(uri.to_string());
            listed.name = Some("workspace".to_owned());
            vec![listed]
        })
        .unwrap_or_default();
    rmcp::model::ListRootsResult::new(roots)
}
