//! Traces in a real OpenTelemetry backend: Arize Phoenix (PyPI `arize-phoenix` 20.26.1,
//! installed by `scripts/install-mcp-peers.sh`, `phoenix serve` on loopback) receives what
//! `tool-host` exports over OTLP when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, and the test
//! reads it back through Phoenix's REST API (`GET /v1/projects/{project}/spans`):
//!
//! - `tool-host run` over a recorded turn of two parallel Reads (`transcripts/03` of the
//!   shared fixtures, replayed with `--rebase`), the second file absent: an `invoke_agent
//!   tool-host` span, parent of two overlapping `execute_tool Read` spans with the GenAI
//!   attributes, the failed one with `error.type` `tool_error` and status `ERROR`;
//! - `tool-host serve --http` called by the official MCP Python SDK client with a
//!   `traceparent` in `_meta`: the served `tools/call Glob` span continues the client's trace
//!   (its trace id, the client's span as parent), and the call's `execute_tool` is its child;
//! - `tool-host run` calling a tool of an imported server (`tool-host serve --stdio`, its
//!   child process, exporting too): one trace from the turn through our client span into the
//!   server's spans, the trace context sent in `_meta`;
//! - a `tool-host chat` turn against the local replay server of the chat tests: an
//!   `invoke_agent` span whose children are two `chat {model}` spans with the token counts
//!   the stream reported and the `execute_tool` span of the call between them.
//!
//! Without the peers the test says so and passes.

mod common;
mod model_server;

use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::peers::{peer, start_http_command};
use model_server::{ChatProcess, ModelServer, Reply, anthropic_stream};
use serde_json::{Value, json};

/// A `phoenix serve` on free loopback ports, killed when dropped.
struct Phoenix {
    child: Child,
    port: u16,
    _dir: tempfile::TempDir,
}

impl Drop for Phoenix {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl Phoenix {
    fn start(binary: &Path) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let port = free_port();
        let child = Command::new(binary)
            .arg("serve")
            .env("PHOENIX_HOST", "127.0.0.1")
            .env("PHOENIX_PORT", port.to_string())
            .env("PHOENIX_GRPC_PORT", free_port().to_string())
            .env("PHOENIX_WORKING_DIR", dir.path())
            .env("PHOENIX_TELEMETRY_ENABLED", "false")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("phoenix starts");
        let phoenix = Self {
            child,
            port,
            _dir: dir,
        };
        let deadline = Instant::now() + Duration::from_secs(180);
        while phoenix.get("/healthz").is_none() {
            assert!(Instant::now() < deadline, "Phoenix did not start in 180 s");
            std::thread::sleep(Duration::from_millis(500));
        }
        phoenix
    }

    fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The body of `GET path`, or `None` when Phoenix does not answer 200.
    fn get(&self, path: &str) -> Option<String> {
        let out = Command::new("curl")
            .args(["-sf", "-m", "10", &format!("{}{path}", self.endpoint())])
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// The spans of `project`, once there are at least `count` (waiting up to 60 s).
    fn spans(&self, project: &str, count: usize) -> Vec<Value> {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let spans: Vec<Value> = self
                .get(&format!("/v1/projects/{project}/spans?limit=1000"))
                .and_then(|body| serde_json::from_str::<Value>(&body).ok())
                .and_then(|body| body["data"].as_array().cloned())
                .unwrap_or_default();
            if spans.len() >= count {
                return spans;
            }
            assert!(
                Instant::now() < deadline,
                "{project}: {} spans after 60 s, expected {count}: {spans:#?}",
                spans.len()
            );
            std::thread::sleep(Duration::from_millis(500));
        }
    }
}

/// The OTLP settings of a `tool-host` exporting to `phoenix` into `project`.
fn exporting<'a>(command: &'a mut Command, phoenix: &Phoenix, project: &str) -> &'a mut Command {
    command
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", phoenix.endpoint())
        .env("OTEL_SERVICE_NAME", "tool-host")
        .env(
            "OTEL_RESOURCE_ATTRIBUTES",
            format!("openinference.project.name={project}"),
        )
        // Phoenix takes traces only.
        .env("OTEL_METRICS_EXPORTER", "none")
        .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
}

fn named<'a>(spans: &'a [Value], name: &str) -> Vec<&'a Value> {
    spans.iter().filter(|span| span["name"] == name).collect()
}

fn one<'a>(spans: &'a [Value], name: &str) -> &'a Value {
    let found = named(spans, name);
    assert_eq!(found.len(), 1, "one `{name}` span expected: {spans:#?}");
    found[0]
}

fn trace_id(span: &Value) -> &str {
    span["context"]["trace_id"].as_str().unwrap()
}

fn span_id(span: &Value) -> &str {
    span["context"]["span_id"].as_str().unwrap()
}

/// Each call of a turn: its id, its tool, whether it fails.
type Expected = Vec<(String, String, bool)>;

/// The turn of part 1, written under `root`: its file, the recorded root to rebase (for the
/// recorded turn), and each call's id, tool and whether it fails.
fn recorded_turn(root: &Path) -> (std::path::PathBuf, Option<&'static str>, Expected) {
    let turn = root.join("turn.json");
    let fixture =
        common::fixtures_dir().join("transcripts/03-cc2.1-parallel-read-then-parallel-edit.json");
    if let Ok(text) = std::fs::read_to_string(&fixture) {
        let transcript: Value = serde_json::from_str(&text).unwrap();
        let content = transcript["messages"][3]["content"].clone();
        let reads: Vec<&Value> = content
            .as_array()
            .unwrap()
            .iter()
            .filter(|block| block["type"] == "tool_use")
            .collect();
        assert_eq!(
            reads.len(),
            2,
            "transcripts/03 message 3: two parallel Reads"
        );
        // The first file is there; the second is not, so its Read fails.
        let first = reads[0]["input"]["file_path"].as_str().unwrap();
        let present = root.join(first.trim_start_matches("/home/user/project/"));
        std::fs::create_dir_all(present.parent().unwrap()).unwrap();
        std::fs::write(&present, "def add_numbers(a, b):\n    return a + b\n").unwrap();
        let expected = reads
            .iter()
            .enumerate()
            .map(|(n, read)| {
                (
                    read["id"].as_str().unwrap().to_owned(),
                    "Read".to_owned(),
                    n == 1,
                )
            })
            .collect();
        std::fs::write(
            &turn,
            json!({"role": "assistant", "content": content}).to_string(),
        )
        .unwrap();
        return (turn, Some("/home/user/project"), expected);
    }
    eprintln!(
        "SKIPPED the recorded turn: {} is missing; a turn of the same shape is used",
        fixture.display()
    );
    std::fs::write(
        &turn,
        json!({"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_read", "name": "Read", "input": {"file_path": "notes.txt"}},
            {"type": "tool_use", "id": "toolu_missing", "name": "Read", "input": {"file_path": "missing.txt"}}
        ]})
        .to_string(),
    )
    .unwrap();
    let expected = vec![
        ("toolu_read".to_owned(), "Read".to_owned(), false),
        ("toolu_missing".to_owned(), "Read".to_owned(), true),
    ];
    (turn, None, expected)
}

fn workspace() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    std::fs::write(root.path().join("notes.txt"), "hello from the root\n").unwrap();
    root
}

#[test]
fn phoenix_receives_the_turns_the_served_calls_and_the_imported_calls_as_one_trace_each() {
    let (Some(phoenix), Some(python)) = (peer("phoenix/bin/phoenix"), peer("venv/bin/python"))
    else {
        return;
    };
    let phoenix = Phoenix::start(&phoenix);
    let tool_host = env!("CARGO_BIN_EXE_tool-host");
    let root = workspace();
    let root_text = root.path().to_str().unwrap();

    // 1. A recorded turn of parallel calls, one failing: the two parallel Reads of
    // `transcripts/03` (Claude Code 2.1), the second file absent from the workspace. Without
    // the fixtures, a turn of the same shape written here.
    let (turn, rebase, expected) = recorded_turn(root.path());
    let mut command = Command::new(tool_host);
    exporting(&mut command, &phoenix, "run").args([
        "run",
        turn.to_str().unwrap(),
        "--root",
        root_text,
    ]);
    if let Some(recorded_root) = rebase {
        command.args(["--rebase", recorded_root]);
    }
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let spans = phoenix.spans("run", expected.len() + 1);
    let agent = one(&spans, "invoke_agent tool-host");
    assert_eq!(agent["parent_id"], Value::Null);
    assert_eq!(agent["attributes"]["gen_ai.operation.name"], "invoke_agent");
    let calls: Vec<&Value> = spans
        .iter()
        .filter(|span| span["attributes"]["gen_ai.operation.name"] == "execute_tool")
        .collect();
    assert_eq!(calls.len(), expected.len(), "{spans:#?}");
    for (id, tool, failed) in &expected {
        let span = calls
            .iter()
            .find(|span| span["attributes"]["gen_ai.tool.call.id"] == id.as_str())
            .unwrap_or_else(|| panic!("no span for {id}: {spans:#?}"));
        assert_eq!(span["name"], format!("execute_tool {tool}"));
        assert_eq!(trace_id(span), trace_id(agent), "{id}");
        assert_eq!(
            span["parent_id"],
            span_id(agent),
            "{id}: a child of the turn"
        );
        let attributes = &span["attributes"];
        assert_eq!(attributes["gen_ai.tool.name"], tool.as_str());
        assert_eq!(attributes["gen_ai.tool.type"], "function");
        assert!(
            attributes.get("gen_ai.tool.call.arguments").is_none(),
            "content only on opt-in: {span:#}"
        );
        if *failed {
            assert_eq!(span["status_code"], "ERROR", "{span:#}");
            assert_eq!(attributes["error.type"], "tool_error", "{span:#}");
        } else {
            assert_ne!(span["status_code"], "ERROR", "{span:#}");
            assert!(attributes.get("error.type").is_none(), "{span:#}");
        }
    }
    // Each call ran within the turn. (Whether two sub-millisecond Reads overlap in time
    // depends on the machine's load; that concurrency-safe calls run side by side is shown
    // with calls that take time, in `tool-registry/tests/orchestration.rs`.)
    let time = |span: &Value, field: &str| span[field].as_str().unwrap().to_owned();
    for call in &calls {
        assert!(
            time(agent, "start_time") <= time(call, "start_time")
                && time(call, "end_time") <= time(agent, "end_time"),
            "within the turn: {call:#} {agent:#}"
        );
    }

    // 2. A served call continues the trace of the client's `traceparent`.
    let mut server = start_http_command(
        exporting(&mut Command::new(tool_host), &phoenix, "served").args([
            "serve",
            "--http",
            "127.0.0.1:0",
            "--root",
            root_text,
        ]),
    );
    let (client_trace, client_span) = ("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7");
    let out = Command::new(&python)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_peers/python_client_traced.py"))
        .args([&server.url, &format!("00-{client_trace}-{client_span}-01")])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["is_error"], false, "{report}");
    // SIGTERM: the server stops and sends what is left.
    let _ = Command::new("kill")
        .args(["-TERM", &server.child.id().to_string()])
        .status();
    let _ = server.child.wait();
    let spans = phoenix.spans("served", 2);
    let served = one(&spans, "tools/call Glob");
    assert_eq!(trace_id(served), client_trace, "{served:#}");
    assert_eq!(served["parent_id"], client_span, "{served:#}");
    assert_eq!(served["attributes"]["mcp.method.name"], "tools/call");
    assert_eq!(served["attributes"]["gen_ai.tool.name"], "Glob");
    let call = one(&spans, "execute_tool Glob");
    assert_eq!(trace_id(call), client_trace);
    assert_eq!(call["parent_id"], span_id(served));

    // 3. An imported server's call joins the turn's trace through `_meta`.
    let imported = root.path().join("imported.json");
    std::fs::write(
        &imported,
        json!({"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_remote", "name": "mcp__inner__Glob", "input": {"pattern": "*.txt"}}
        ]})
        .to_string(),
    )
    .unwrap();
    let spec = format!("inner={tool_host} serve --stdio --root {root_text}");
    let out = exporting(&mut Command::new(tool_host), &phoenix, "imported")
        .args(["run", imported.to_str().unwrap(), "--root", root_text])
        .args(["--mcp-server", &spec, "--allow", "mcp__inner"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let spans = phoenix.spans("imported", 5);
    let agent = one(&spans, "invoke_agent tool-host");
    let local = one(&spans, "execute_tool mcp__inner__Glob");
    let sent = named(&spans, "tools/call Glob");
    assert_eq!(
        sent.len(),
        2,
        "the client's and the server's span: {spans:#?}"
    );
    let client = sent
        .iter()
        .find(|span| span["parent_id"] == span_id(local))
        .expect("our client span, a child of the local call");
    let server = sent
        .iter()
        .find(|span| span["parent_id"] == span_id(client))
        .expect("the server's span, a child of our client span");
    let remote = one(&spans, "execute_tool Glob");
    assert_eq!(remote["parent_id"], span_id(server));
    for span in [local, *client, *server, remote] {
        assert_eq!(trace_id(span), trace_id(agent), "one trace: {span:#}");
    }

    // 4. A chat turn: the model asks for a call, then answers.
    let server = ModelServer::start(vec![
        Reply::Stream(anthropic_stream(
            &[
                json!({"type": "tool_use", "id": "toolu_chat", "name": "Glob", "input": {"pattern": "*.txt"}}),
            ],
            &[],
            None,
        )),
        Reply::Stream(anthropic_stream(
            &[json!({"type": "text", "text": "One file."})],
            &[],
            None,
        )),
    ]);
    let endpoint = phoenix.endpoint();
    let chat = ChatProcess::start(
        &[
            "--base-url",
            &server.url,
            "--root",
            root_text,
            "--model",
            "replay-model",
            "-p",
            "list the text files",
        ],
        &[
            ("ANTHROPIC_API_KEY", "sk-test"),
            ("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.as_str()),
            (
                "OTEL_RESOURCE_ATTRIBUTES",
                "openinference.project.name=chat",
            ),
            ("OTEL_METRICS_EXPORTER", "none"),
        ],
    );
    let (status, stdout, stderr) = chat.finish();
    assert!(status.success(), "{stderr}");
    assert_eq!(stdout, "One file.\n");
    let spans = phoenix.spans("chat", 4);
    let agent = one(&spans, "invoke_agent tool-host");
    assert_eq!(agent["attributes"]["gen_ai.request.model"], "replay-model");
    let requests = named(&spans, "chat replay-model");
    assert_eq!(requests.len(), 2, "{spans:#?}");
    for request in &requests {
        assert_eq!(request["parent_id"], span_id(agent));
        let attributes = &request["attributes"];
        assert_eq!(attributes["gen_ai.operation.name"], "chat");
        assert_eq!(attributes["gen_ai.provider.name"], "anthropic");
        assert!(
            attributes["gen_ai.usage.input_tokens"].as_u64().is_some(),
            "{request:#}"
        );
        assert!(
            attributes["gen_ai.usage.output_tokens"].as_u64().is_some(),
            "{request:#}"
        );
    }
    let call = one(&spans, "execute_tool Glob");
    assert_eq!(
        call["parent_id"],
        span_id(agent),
        "the call is the turn's child"
    );
    assert_eq!(call["attributes"]["gen_ai.tool.call.id"], "toolu_chat");
}
