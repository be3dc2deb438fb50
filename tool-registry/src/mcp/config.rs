//! How to reach an MCP server: a child process over stdio or a streamable HTTP endpoint, read
//! from the `mcpServers` JSON shape of Claude Code and Claude Desktop, or from the short
//! command-line forms `NAME='CMD ARGS'` and `NAME=URL`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use super::oauth::McpOAuth;

/// How long a `tools/call` may run before it ends in an error result: 120 s.
///
/// MCP itself sets no limit, and the reference waits almost without bound; a host running a
/// model turn cannot. Two minutes lets real work finish (a repository search, a build step, a
/// web fetch) while a server that hangs costs one bounded wait instead of a stuck turn. Set
/// `timeout` (milliseconds) on a server to change it.
pub(crate) const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(120);

/// How long connecting (spawn or HTTP handshake, `initialize`, the first `tools/list`) may
/// take: 30 s, the reference's default connect timeout.
pub(crate) const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// Where a server lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpTransportConfig {
    /// A child process speaking MCP over its stdin and stdout (MCP "stdio" transport). The
    /// child is killed when its connection is dropped.
    Stdio {
        /// The program, found on `PATH` when not a path.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables added to the inherited environment.
        env: BTreeMap<String, String>,
        /// Its working directory; the host's when `None`.
        cwd: Option<PathBuf>,
    },
    /// A streamable HTTP endpoint (MCP "Streamable HTTP" transport).
    Http {
        /// The endpoint URL, such as `http://127.0.0.1:3001/mcp`.
        url: String,
        /// Headers sent with every request.
        headers: BTreeMap<String, String>,
        /// The name of an environment variable holding a bearer token, sent as
        /// `Authorization: Bearer <token>`; read when connecting.
        bearer_token_env: Option<String>,
    },
}

/// One server: its name (the `SERVER` of `mcp__SERVER__TOOL`), where it lives and its
/// timeouts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpServerConfig {
    /// The server name as configured (normalised only inside tool names, SPEC §10).
    pub name: String,
    /// Where it lives.
    pub transport: McpTransportConfig,
    /// The limit of one `tools/call`; `DEFAULT_CALL_TIMEOUT` unless set.
    pub call_timeout: Duration,
    /// The limit of connecting; `DEFAULT_CONNECT_TIMEOUT` unless set.
    pub connect_timeout: Duration,
    /// OAuth for an HTTP server that asks for it ([`McpOAuth`]); `None` for none.
    pub oauth: Option<McpOAuth>,
}

/// A server configuration that cannot be used. The message names the server, the field and
/// the fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("MCP server `{server}`: {message}")]
pub struct McpConfigError {
    /// The server (or the text that was meant to name one).
    pub server: String,
    /// What is wrong and how to fix it.
    pub message: String,
}

fn config_error(server: &str, message: impl Into<String>) -> McpConfigError {
    McpConfigError {
        server: server.to_owned(),
        message: message.into(),
    }
}

/// One entry of `mcpServers`, as Claude Code and Claude Desktop write it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ServerEntry {
    #[serde(default, rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default)]
    cwd: Option<PathBuf>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    #[serde(default, rename = "bearerTokenEnv")]
    bearer_token_env: Option<String>,
    /// Milliseconds.
    #[serde(default)]
    timeout: Option<u64>,
    /// Milliseconds.
    #[serde(default, rename = "connectTimeout")]
    connect_timeout: Option<u64>,
    #[serde(default)]
    oauth: Option<OAuthEntry>,
}

/// An HTTP entry's `oauth`: how the client is known to the server's authorization server.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct OAuthEntry {
    #[serde(default)]
    client_id: Option<String>,
    #[serde(default)]
    client_secret_env: Option<String>,
    #[serde(default)]
    client_metadata_url: Option<String>,
    #[serde(default)]
    scopes: Vec<String>,
    #[serde(default)]
    client_credentials: bool,
}

impl OAuthEntry {
    fn settings(self, server: &str) -> Result<McpOAuth, McpConfigError> {
        if self.client_credentials && (self.client_id.is_none() || self.client_secret_env.is_none())
        {
            return Err(config_error(
                server,
                "`oauth.clientCredentials` needs `oauth.clientId` and `oauth.clientSecretEnv`",
            ));
        }
        if self.client_secret_env.is_some() && self.client_id.is_none() {
            return Err(config_error(
                server,
                "`oauth.clientSecretEnv` needs the `oauth.clientId` it belongs to",
            ));
        }
        let mut oauth = McpOAuth::new().with_scopes(self.scopes);
        if let Some(client_id) = self.client_id {
            oauth = oauth.with_client_id(client_id, None);
        }
        if let Some(url) = self.client_metadata_url {
            oauth = oauth.with_client_metadata_url(url);
        }
        oauth.client_secret_env = self.client_secret_env;
        oauth.secret_grant = self.client_credentials;
        Ok(oauth)
    }
}

impl McpServerConfig {
    /// A stdio server running `command args...`.
    pub fn stdio(name: impl Into<String>, command: impl Into<String>, args: Vec<String>) -> Self {
        Self::with_transport(
            name,
            McpTransportConfig::Stdio {
                command: command.into(),
                args,
                env: BTreeMap::new(),
                cwd: None,
            },
        )
    }

    /// A streamable HTTP server at `url`.
    pub fn http(name: impl Into<String>, url: impl Into<String>) -> Self {
        Self::with_transport(
            name,
            McpTransportConfig::Http {
                url: url.into(),
                headers: BTreeMap::new(),
                bearer_token_env: None,
            },
        )
    }

    fn with_transport(name: impl Into<String>, transport: McpTransportConfig) -> Self {
        Self {
            name: name.into(),
            transport,
            call_timeout: DEFAULT_CALL_TIMEOUT,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            oauth: None,
        }
    }

    /// The same server with another call timeout.
    #[must_use]
    pub fn with_call_timeout(mut self, timeout: Duration) -> Self {
        self.call_timeout = timeout;
        self
    }

    /// The same server with another connect timeout.
    #[must_use]
    pub fn with_connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// The same server with OAuth (MCP "Authorization"): used when an HTTP server answers
    /// 401, or 403 `insufficient_scope`; a stdio server ignores it.
    #[must_use]
    pub fn with_oauth(mut self, oauth: McpOAuth) -> Self {
        self.oauth = Some(oauth);
        self
    }

    /// Every server of a `{"mcpServers": {NAME: {...}}}` document (a bare `{NAME: {...}}` map is
    /// accepted too), in name order.
    ///
    /// An entry has `command` (with optional `args`, `env`, `cwd`) for stdio, or `url` (with
    /// `"type": "http"` or `"streamable-http"`, optional `headers` and `bearerTokenEnv`) for
    /// HTTP; `timeout` and `connectTimeout` are milliseconds. An HTTP entry's `oauth`
    /// ([`McpOAuth`]) may give `clientId` (a pre-registered client), `clientSecretEnv` (the
    /// variable holding its secret, read when authorizing), `clientMetadataUrl`, `scopes`,
    /// and `clientCredentials: true` (the client and secret are also client credentials, for
    /// hosts with nobody to log in).
    ///
    /// ```
    /// use tool_registry::mcp::{McpServerConfig, McpTransportConfig};
    /// let servers = McpServerConfig::from_mcp_servers_json(&serde_json::json!({"mcpServers": {
    ///     "git": {"command": "uvx", "args": ["mcp-server-git"]},
    ///     "remote": {"type": "http", "url": "http://127.0.0.1:3001/mcp", "timeout": 5000}
    /// }})).unwrap();
    /// assert_eq!(servers[0].name, "git");
    /// assert!(matches!(servers[1].transport, McpTransportConfig::Http { .. }));
    /// assert_eq!(servers[1].call_timeout.as_millis(), 5000);
    /// ```
    ///
    /// # Errors
    /// [`McpConfigError`] naming the server and the field: an unknown key, neither or both of
    /// `command` and `url`, `oauth` on a stdio server or missing what it needs, a `type` other than `stdio`, `http` or `streamable-http` (SSE-only
    /// servers are not supported), or a zero timeout.
    pub fn from_mcp_servers_json(document: &Value) -> Result<Vec<Self>, McpConfigError> {
        let servers = document.get("mcpServers").unwrap_or(document);
        let Some(servers) = servers.as_object() else {
            return Err(config_error(
                "mcpServers",
                "expected an object `{\"mcpServers\": {\"NAME\": {\"command\": ...}}}`",
            ));
        };
        let mut configs = Vec::with_capacity(servers.len());
        let mut names: Vec<&String> = servers.keys().collect();
        names.sort();
        for name in names {
            let entry = ServerEntry::deserialize(&servers[name.as_str()])
                .map_err(|error| config_error(name, error.to_string()))?;
            configs.push(Self::from_entry(name, entry)?);
        }
        Ok(configs)
    }

    fn from_entry(name: &str, entry: ServerEntry) -> Result<Self, McpConfigError> {
        if name.is_empty() {
            return Err(config_error(name, "the server name is empty"));
        }
        let mut oauth = None;
        let transport = match (entry.kind.as_deref(), entry.command, entry.url) {
            (None | Some("stdio"), Some(_), None) if entry.oauth.is_some() => {
                return Err(config_error(
                    name,
                    "`oauth` is for HTTP servers; a stdio server is not logged in to",
                ));
            }
            (None | Some("stdio"), Some(command), None) => McpTransportConfig::Stdio {
                command,
                args: entry.args,
                env: entry.env,
                cwd: entry.cwd,
            },
            (None | Some("http" | "streamable-http" | "streamableHttp"), None, Some(url)) => {
                if entry.oauth.is_some() && entry.bearer_token_env.is_some() {
                    return Err(config_error(
                        name,
                        "`bearerTokenEnv` and `oauth` both say how to authorize: keep \
                         `bearerTokenEnv` for a fixed token, or `oauth` for a login",
                    ));
                }
                if let Some(entry) = entry.oauth {
                    oauth = Some(entry.settings(name)?);
                }
                McpTransportConfig::Http {
                    url,
                    headers: entry.headers,
                    bearer_token_env: entry.bearer_token_env,
                }
            }
            (Some("sse"), ..) => {
                return Err(config_error(
                    name,
                    "`type: \"sse\"` (the deprecated HTTP+SSE transport) is not supported; use the server's streamable HTTP endpoint with `type: \"http\"`",
                ));
            }
            (_, Some(_), Some(_)) => {
                return Err(config_error(
                    name,
                    "has both `command` and `url`; keep `command` for a stdio server or `url` for an HTTP one",
                ));
            }
            (Some(kind), ..) if !matches!(kind, "stdio" | "http" | "streamable-http") => {
                return Err(config_error(
                    name,
                    format!("unknown `type` `{kind}`; use `stdio` or `http`"),
                ));
            }
            _ => {
                return Err(config_error(
                    name,
                    "needs `command` (a stdio server) or `url` (an HTTP server), matching its `type`",
                ));
            }
        };
        let mut config = Self::with_transport(name, transport);
        config.oauth = oauth;
        if let Some(ms) = entry.timeout {
            config.call_timeout = positive_millis(name, "timeout", ms)?;
        }
        if let Some(ms) = entry.connect_timeout {
            config.connect_timeout = positive_millis(name, "connectTimeout", ms)?;
        }
        Ok(config)
    }

    /// A stdio server from `NAME=CMD ARGS` (the `--mcp-server` form): the command line is split
    /// on whitespace, with single or double quotes grouping words.
    ///
    /// ```
    /// use tool_registry::mcp::McpServerConfig;
    /// let config = McpServerConfig::parse_stdio_spec("fs=npx -y server-filesystem '/tmp/a b'").unwrap();
    /// assert_eq!(config.name, "fs");
    /// ```
    ///
    /// # Errors
    /// [`McpConfigError`] when there is no `=`, the name is empty, the command is empty or a
    /// quote is not closed.
    pub fn parse_stdio_spec(spec: &str) -> Result<Self, McpConfigError> {
        let (name, command_line) =
            split_spec(spec, "NAME='CMD ARGS', such as git='uvx mcp-server-git'")?;
        let mut words = split_words(command_line).map_err(|message| config_error(name, message))?;
        if words.is_empty() {
            return Err(config_error(name, "the command after `=` is empty"));
        }
        let command = words.remove(0);
        Ok(Self::stdio(name, command, words))
    }

    /// A streamable HTTP server from `NAME=URL` (the `--mcp-url` form).
    ///
    /// # Errors
    /// [`McpConfigError`] when there is no `=`, the name is empty or the URL is not
    /// `http://` or `https://`.
    pub fn parse_url_spec(spec: &str) -> Result<Self, McpConfigError> {
        let (name, url) = split_spec(spec, "NAME=URL, such as remote=http://127.0.0.1:3001/mcp")?;
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(config_error(
                name,
                format!("`{url}` is not an http:// or https:// URL"),
            ));
        }
        Ok(Self::http(name, url))
    }
}

fn positive_millis(server: &str, field: &str, ms: u64) -> Result<Duration, McpConfigError> {
    if ms == 0 {
        return Err(config_error(
            server,
            format!("`{field}` is 0; give a positive number of milliseconds"),
        ));
    }
    Ok(Duration::from_millis(ms))
}

fn split_spec<'a>(spec: &'a str, expected: &str) -> Result<(&'a str, &'a str), McpConfigError> {
    let Some((name, rest)) = spec.split_once('=') else {
        return Err(config_error(spec, format!("expected {expected}")));
    };
    let name = name.trim();
    if name.is_empty() {
        return Err(config_error(spec, "the server name before `=` is empty"));
    }
    Ok((name, rest.trim()))
}

/// Splits a command line on whitespace; `'...'` and `"..."` group words (no escapes).
fn split_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => current.push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                in_word = true;
            }
            None if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut current));
                    in_word = false;
                }
            }
            None => {
                current.push(c);
                in_word = true;
            }
        }
    }
    if let Some(q) = quote {
        return Err(format!("the quote {q} is never closed"));
    }
    if in_word {
        words.push(current);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn words_group_by_quotes() {
        assert_eq!(
            split_words(r#"a 'b c' "d" e''"#).unwrap(),
            ["a", "b c", "d", "e"]
        );
        assert!(split_words("a 'b").is_err());
    }

    #[test]
    fn bad_entries_name_server_and_field() {
        let error = McpServerConfig::from_mcp_servers_json(&json!({"mcpServers": {
            "x": {"command": "a", "url": "http://h"}
        }}))
        .unwrap_err();
        assert!(error.to_string().contains("`x`"), "{error}");
        let error = McpServerConfig::from_mcp_servers_json(&json!({"mcpServers": {
            "y": {"command": "a", "argz": []}
        }}))
        .unwrap_err();
        assert!(error.to_string().contains("argz"), "{error}");
        let error = McpServerConfig::from_mcp_servers_json(&json!({"mcpServers": {
            "z": {"type": "sse", "url": "http://h"}
        }}))
        .unwrap_err();
        assert!(error.to_string().contains("sse"), "{error}");
    }

    #[test]
    fn oauth_entries_name_what_is_missing() {
        let servers = McpServerConfig::from_mcp_servers_json(&json!({"mcpServers": {
            "r": {"url": "http://h/mcp", "oauth": {"clientId": "c", "clientSecretEnv": "S",
                  "clientCredentials": true, "scopes": ["a"]}}
        }}))
        .unwrap();
        let oauth = servers[0].oauth.as_ref().unwrap();
        assert_eq!(oauth.client_id.as_deref(), Some("c"));
        assert_eq!(oauth.client_secret_env.as_deref(), Some("S"));
        assert!(oauth.secret_grant);
        assert_eq!(oauth.scopes, ["a"]);
        for (entry, says) in [
            (json!({"command": "x", "oauth": {}}), "stdio"),
            (
                json!({"url": "http://h", "oauth": {"clientCredentials": true}}),
                "clientId",
            ),
            (
                json!({"url": "http://h", "oauth": {"clientSecretEnv": "S"}}),
                "clientId",
            ),
            (
                json!({"url": "http://h", "oauth": {"clientSecret": "inline"}}),
                "clientSecret",
            ),
            (
                json!({"url": "http://h", "bearerTokenEnv": "T", "oauth": {}}),
                "`bearerTokenEnv` and `oauth`",
            ),
        ] {
            let error =
                McpServerConfig::from_mcp_servers_json(&json!({"mcpServers": {"s": entry}}))
                    .unwrap_err();
            assert!(error.to_string().contains(says), "{error}");
        }
    }

    #[test]
    fn specs_parse() {
        let config =
            McpServerConfig::parse_stdio_spec("git=uvx mcp-server-git --repository .").unwrap();
        assert_eq!(
            config.transport,
            McpTransportConfig::Stdio {
                command: "uvx".into(),
                args: vec!["mcp-server-git".into(), "--repository".into(), ".".into()],
                env: BTreeMap::new(),
                cwd: None,
            }
        );
        assert!(McpServerConfig::parse_url_spec("r=ftp://x").is_err());
        assert!(McpServerConfig::parse_stdio_spec("=x").is_err());
    }
}
