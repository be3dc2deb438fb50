//! OAuth logins to remote MCP servers: where tool-host keeps each server's tokens
//! (`CONFIG_DIR/oauth/NAME.json`, mode 0600, `CONFIG_DIR` from `--config-dir`,
//! `TOOL_HOST_CONFIG_DIR`, `$XDG_CONFIG_HOME/tool-host` or `~/.config/tool-host`), the OAuth
//! settings every HTTP server gets, and `tool-host mcp login NAME` / `logout NAME`.

use std::io::{IsTerminal, Write as _};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use tool_registry::mcp::{
    Logout, LoopbackLogin, McpManager, McpOAuth, McpServerConfig, McpServerStatus,
    McpTransportConfig,
};

use crate::mcp::McpOptions;

/// How long `mcp login` waits for the browser by default.
const LOGIN_WAIT: Duration = Duration::from_secs(300);

/// tool-host's configuration directory: `dir` when given, else `TOOL_HOST_CONFIG_DIR`, else
/// `$XDG_CONFIG_HOME/tool-host`, else `$HOME/.config/tool-host`.
pub fn config_dir(dir: Option<&Path>) -> Result<PathBuf, String> {
    if let Some(dir) = dir {
        return Ok(dir.to_owned());
    }
    let var = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
    if let Some(dir) = var("TOOL_HOST_CONFIG_DIR") {
        return Ok(dir.into());
    }
    if let Some(dir) = var("XDG_CONFIG_HOME") {
        return Ok(PathBuf::from(dir).join("tool-host"));
    }
    var("HOME")
        .map(|home| PathBuf::from(home).join(".config/tool-host"))
        .ok_or_else(|| {
            "no configuration directory: set --config-dir, TOOL_HOST_CONFIG_DIR or HOME".to_owned()
        })
}

/// The file holding the tokens of the server `name`: its name with every character but
/// letters, digits, `-` and `_` written as `%XX`, so two names never share a file.
pub fn token_file(config_dir: &Path, name: &str) -> PathBuf {
    let mut file = String::new();
    for byte in name.bytes() {
        if byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'_' {
            file.push(char::from(byte));
        } else {
            file.push_str(&format!("%{byte:02X}"));
        }
    }
    config_dir.join("oauth").join(format!("{file}.json"))
}

/// The OAuth settings of the HTTP server `name`: those its `mcpServers` entry gave (`given`),
/// its token file, the hint its error gives, and `login` when someone can log in.
pub fn settings(
    config_dir: &Path,
    name: &str,
    given: Option<McpOAuth>,
    login: Option<Arc<LoopbackLogin>>,
) -> McpOAuth {
    let mut oauth = given
        .unwrap_or_default()
        .with_credentials_file(token_file(config_dir, name))
        .with_client_name("tool-host")
        .with_login_hint(format!(
            "run `tool-host mcp login {name}` with the same server options"
        ));
    if let Some(login) = login {
        oauth = oauth.with_login(login);
    }
    oauth
}

/// Whether a person can answer a login: stdin and stderr are terminals.
pub fn interactive() -> bool {
    std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

/// `tool-host mcp login NAME` and `logout NAME`.
#[derive(Args, Debug, Clone)]
pub struct LoginArgs {
    /// The server's name, as given to `--mcp-url NAME=URL` or in `--mcp-config`.
    pub name: String,
    /// Seconds to wait for the browser's redirect.
    #[arg(long, default_value_t = LOGIN_WAIT.as_secs())]
    pub wait: u64,
    #[command(flatten)]
    pub mcp: McpOptions,
}

/// `tool-host mcp login NAME`: prints the authorization URL on stdout, waits for the redirect
/// on a loopback port, connects with the new tokens and says where they are kept. A login
/// that fails keeps the tokens stored before it.
pub fn login(args: &LoginArgs) -> Result<(), String> {
    let dir = config_dir(args.mcp.config_dir.as_deref())?;
    let config = http_server(&args.mcp, &args.name)?;
    let file = token_file(&dir, &args.name);
    let wait = Duration::from_secs(args.wait.max(1));
    let login = LoopbackLogin::bind()
        .map_err(|error| format!("cannot listen on a loopback port: {error}"))?
        .with_wait(wait)
        .with_show(|server, url| {
            println!("Open this URL in a browser to log in to MCP server `{server}`:\n{url}");
            let _ = std::io::stdout().flush();
        });
    let given = config.oauth.clone();
    let config = config
        .with_oauth(settings(&dir, &args.name, given, Some(Arc::new(login))))
        .with_connect_timeout(wait + Duration::from_secs(30));
    // The stored tokens step aside, so the server asks for a login; they come back if it fails.
    let aside = file.with_extension("json.old");
    let had_tokens = std::fs::rename(&file, &aside).is_ok();
    let outcome = connect_once(config);
    match &outcome {
        Ok(_) if had_tokens => {
            let _ = std::fs::remove_file(&aside);
        }
        Err(_) if had_tokens => {
            let _ = std::fs::rename(&aside, &file);
        }
        _ => {}
    }
    let tools = outcome?;
    if file.is_file() {
        println!(
            "Logged in to MCP server `{}` ({tools} tools); tokens kept in {}",
            args.name,
            file.display()
        );
    } else {
        println!(
            "MCP server `{}` did not ask for a login ({tools} tools)",
            args.name
        );
    }
    Ok(())
}

/// `tool-host mcp logout NAME`: revokes the server's stored tokens at its authorization
/// server when it can (RFC 7009), and removes them.
pub fn logout(args: &LogoutArgs) -> Result<(), String> {
    let dir = config_dir(args.config_dir.as_deref())?;
    let oauth = McpOAuth::new().with_credentials_file(token_file(&dir, &args.name));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| format!("cannot start the async runtime: {error}"))?;
    let name = &args.name;
    match runtime.block_on(oauth.logout())? {
        Logout::NothingStored => println!("No login stored for MCP server `{name}`"),
        Logout::Revoked => {
            println!("Logged out of MCP server `{name}` (its tokens revoked and removed)");
        }
        _ => println!(
            "Logged out of MCP server `{name}` (its tokens removed; its authorization server did not revoke them)"
        ),
    }
    Ok(())
}

/// `tool-host mcp logout NAME`.
#[derive(Args, Debug, Clone)]
pub struct LogoutArgs {
    /// The server's name.
    pub name: String,
    /// The configuration directory holding the tokens (see `--config-dir` of the other
    /// commands).
    #[arg(long, value_name = "DIR")]
    pub config_dir: Option<PathBuf>,
}

/// The HTTP server `name` among the configured ones.
fn http_server(options: &McpOptions, name: &str) -> Result<McpServerConfig, String> {
    let config = options
        .server_configs()?
        .into_iter()
        .find(|config| config.name == name)
        .ok_or_else(|| {
            format!("no MCP server named `{name}`: give it with --mcp-url {name}=URL or --mcp-config FILE")
        })?;
    if !matches!(config.transport, McpTransportConfig::Http { .. }) {
        return Err(format!(
            "MCP server `{name}` is a stdio server; only HTTP servers log in"
        ));
    }
    Ok(config)
}

/// Connects to the one server and lists its tools; the number of tools, or why not.
fn connect_once(config: McpServerConfig) -> Result<usize, String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|error| format!("cannot start the async runtime: {error}"))?;
    runtime.block_on(async {
        let manager = McpManager::connect(vec![config]).await;
        let server = manager.servers().into_iter().next();
        manager.shutdown().await;
        let server = server.ok_or("no server was configured")?;
        match server.status {
            McpServerStatus::Connected => Ok(server.tools.len()),
            status => Err(format!("MCP server `{}` {status}", server.name)),
        }
    })
}
