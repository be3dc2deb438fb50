//! A real browser (headless Chromium) calling `tool-host serve --http` from a page of
//! another origin, as a web agent or the MCP Inspector's direct mode does: with the page's
//! origin listed (`--allowed-origin`), the page lists the tools (a 2026-07-28 request, its
//! preflight granted) and reads its 2025-11-25 session's `Mcp-Session-Id` (an exposed header);
//! without it, the browser blocks the page's request (CORS).
//!
//! Needs Debian's `chromium` (or `$CHROMIUM`); it says SKIPPED and passes without it, unless
//! `TOOL_SDK_REQUIRE_PEERS` is set (CI, which installs it).

use std::io::{BufRead as _, BufReader, Write as _};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::Command;

mod common;
use common::peers::start_http;

/// The page: two requests to the endpoint named in its `?mcp=` parameter, what came of them
/// written into `#out`.
const PAGE: &str = r#"<!doctype html><html><body><pre id="out">pending</pre><script>
const url = new URLSearchParams(location.search).get('mcp');
const meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": {"name": "page", "version": "1"},
  "io.modelcontextprotocol/clientCapabilities": {}};
(async () => {
  const out = [];
  try {
    const listed = await fetch(url, {method: 'POST', headers: {'content-type': 'application/json',
      'accept': 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/list'},
      body: JSON.stringify({jsonrpc: '2.0', id: 1, method: 'tools/list', params: {_meta: meta}})});
    const text = await listed.text();
    out.push('listed ' + listed.status + (text.includes('"Read"') ? ' with Read' : ' without Read'));
    const opened = await fetch(url, {method: 'POST', headers: {'content-type': 'application/json',
      'accept': 'application/json, text/event-stream'},
      body: JSON.stringify({jsonrpc: '2.0', id: 2, method: 'initialize', params: {
        protocolVersion: '2025-11-25', capabilities: {}, clientInfo: {name: 'page', version: '1'}}})});
    out.push('session ' + opened.status + (opened.headers.get('mcp-session-id') ? ' id read' : ' id hidden'));
    await opened.text();
  } catch (error) {
    out.push('blocked: ' + error);
  }
  document.getElementById('out').textContent = out.join(' | ');
})();
</script></body></html>"#;

/// The browser, or `None` (saying SKIPPED) when it is not installed.
fn chromium() -> Option<PathBuf> {
    let found = std::env::var_os("CHROMIUM").map(PathBuf::from).or_else(|| {
        let path = std::env::var_os("PATH")?;
        std::env::split_paths(&path)
            .map(|dir| dir.join("chromium"))
            .find(|candidate| candidate.is_file())
    });
    if found.is_none() {
        assert!(
            std::env::var_os("TOOL_SDK_REQUIRE_PEERS").is_none(),
            "chromium is missing, and TOOL_SDK_REQUIRE_PEERS says the peers are installed"
        );
        eprintln!("SKIPPED: chromium is missing (Debian: apt-get install chromium)");
    }
    found
}

/// Serves [`PAGE`] for every request on a loopback port, in a thread; its port.
fn serve_page() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|read| read > 0) && line != "\r\n" {
                line.clear();
            }
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n{PAGE}",
                PAGE.len()
            );
        }
    });
    port
}

/// What the page at `page_port` wrote after calling `endpoint`, in headless Chromium.
fn page_says(browser: &PathBuf, page_port: u16, endpoint: &str) -> String {
    let profile = tempfile::tempdir().unwrap();
    let output = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--virtual-time-budget=15000",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!(
            "http://localhost:{page_port}/page.html?mcp={endpoint}"
        ))
        .output()
        .expect("chromium runs");
    let dom = String::from_utf8_lossy(&output.stdout).into_owned();
    let said = dom
        .split("<pre id=\"out\">")
        .nth(1)
        .and_then(|rest| rest.split("</pre>").next())
        .unwrap_or_else(|| {
            panic!(
                "no page in chromium's output: {dom}\n{}",
                String::from_utf8_lossy(&output.stderr)
            )
        });
    said.to_owned()
}

#[test]
fn a_page_of_a_listed_origin_calls_tool_host_from_the_browser_and_others_are_blocked() {
    let Some(browser) = chromium() else { return };
    let root = tempfile::tempdir().unwrap();
    let root = root.path().to_str().unwrap();
    let page_port = serve_page();
    let origin = format!("http://localhost:{page_port}");
    let tool_host = env!("CARGO_BIN_EXE_tool-host");

    let listed = start_http(
        tool_host,
        &[
            "serve",
            "--http",
            "127.0.0.1:0",
            "--root",
            root,
            "--allowed-origin",
            &origin,
        ],
    );
    let said = page_says(&browser, page_port, &listed.url);
    assert_eq!(said, "listed 200 with Read | session 200 id read", "{said}");
    drop(listed);

    let unlisted = start_http(
        tool_host,
        &["serve", "--http", "127.0.0.1:0", "--root", root],
    );
    let said = page_says(&browser, page_port, &unlisted.url);
    assert!(said.starts_with("blocked: TypeError"), "{said}");
    drop(unlisted);
}
