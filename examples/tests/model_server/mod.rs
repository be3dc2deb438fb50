//! A local stand-in for a model API, for the `tool-host chat` tests: it binds 127.0.0.1:0,
//! records every request, and answers each with the next scripted reply: an error status, or
//! a server-sent-events stream (Anthropic Messages or OpenAI Chat Completions shaped) built
//! from an assistant message of a recorded transcript. It only replays model output; the tools
//! run for real in the `tool-host` child process.

#![allow(dead_code, reason = "each test file uses part of the helpers")]

pub mod replay;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, ChildStderr, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// One scripted answer.
#[derive(Clone)]
pub enum Reply {
    /// An error status with headers and a JSON body.
    Status {
        code: u16,
        headers: Vec<(String, String)>,
        body: Value,
    },
    /// A 200 event stream: each part is written and flushed, then the pause after it.
    Stream(Vec<(String, Duration)>),
    /// A 200 event stream that stops after its parts and keeps the connection open for the
    /// given time (a model still "writing").
    Stall(Vec<(String, Duration)>, Duration),
}

/// A request the server received.
#[derive(Debug, Clone)]
pub struct Received {
    pub path: String,
    /// Lower-cased header names.
    pub headers: Vec<(String, String)>,
    pub body: Value,
    /// When its reply was completely written (for streams: after the last event).
    pub answered: Option<Instant>,
}

impl Received {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }
}

/// The server; it stops with the test process.
pub struct ModelServer {
    pub url: String,
    pub received: Arc<Mutex<Vec<Received>>>,
}

impl ModelServer {
    /// Starts answering with `replies` in order (a request past the end gets a 500).
    pub fn start(replies: Vec<Reply>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        let url = format!("http://{}", listener.local_addr().unwrap());
        let received = Arc::new(Mutex::new(Vec::new()));
        let log = received.clone();
        std::thread::spawn(move || {
            let mut replies = replies.into_iter();
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let reply = replies.next();
                let log = log.clone();
                std::thread::spawn(move || serve(stream, reply, &log));
            }
        });
        Self { url, received }
    }

    pub fn requests(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    /// Waits until `count` requests arrived (up to 20 s).
    pub fn wait_for_requests(&self, count: usize) -> Vec<Received> {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let requests = self.requests();
            if requests.len() >= count {
                return requests;
            }
            assert!(
                Instant::now() < deadline,
                "the server got {} requests, expected {count}",
                requests.len()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn serve(stream: TcpStream, reply: Option<Reply>, log: &Mutex<Vec<Received>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    let path = request_line
        .split_whitespace()
        .nth(1)
        .unwrap_or_default()
        .to_owned();
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    let length: usize = headers
        .iter()
        .find(|(name, _)| name == "content-length")
        .and_then(|(_, value)| value.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    let _ = reader.read_exact(&mut body);
    let index = {
        let mut log = log.lock().unwrap();
        log.push(Received {
            path,
            headers,
            body: serde_json::from_slice(&body).unwrap_or(Value::Null),
            answered: None,
        });
        log.len() - 1
    };
    let mut out = stream;
    let reply = reply.unwrap_or(Reply::Status {
        code: 500,
        headers: Vec::new(),
        body: json!({"error": {"message": "the test script has no more replies"}}),
    });
    match reply {
        Reply::Status {
            code,
            headers,
            body,
        } => {
            let text = body.to_string();
            let mut head = format!(
                "HTTP/1.1 {code} Status\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
                text.len()
            );
            for (name, value) in headers {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
            let _ = write!(out, "{head}\r\n{text}");
        }
        Reply::Stream(parts) => {
            stream_parts(&mut out, &parts);
        }
        Reply::Stall(parts, hold) => {
            stream_parts(&mut out, &parts);
            log.lock().unwrap()[index].answered = Some(Instant::now());
            std::thread::sleep(hold);
            return;
        }
    }
    let _ = out.flush();
    log.lock().unwrap()[index].answered = Some(Instant::now());
}

fn stream_parts(out: &mut TcpStream, parts: &[(String, Duration)]) {
    let _ = write!(
        out,
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n"
    );
    for (part, pause) in parts {
        if out.write_all(part.as_bytes()).is_err() {
            return;
        }
        let _ = out.flush();
        std::thread::sleep(*pause);
    }
}

fn event(name: &str, data: &Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

/// Splits `text` into `pieces` parts on char boundaries (as a model streams it).
fn split(text: &str, pieces: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let size = chars.len().div_ceil(pieces.max(1)).max(1);
    chars
        .chunks(size)
        .map(|chunk| chunk.iter().collect())
        .collect()
}

/// An Anthropic Messages stream replaying `content` (text and `tool_use` blocks), each
/// block's events one part, with `pause` after the blocks listed in `pause_after`. Stops
/// after `cut_after` blocks (the next block's start and half its input sent) when given.
pub fn anthropic_stream(
    content: &[Value],
    pause_after: &[(usize, Duration)],
    cut_after: Option<usize>,
) -> Vec<(String, Duration)> {
    let stop_reason = if content.iter().any(|block| block["type"] == "tool_use") {
        "tool_use"
    } else {
        "end_turn"
    };
    let mut parts = vec![(
        event(
            "message_start",
            &json!({"type": "message_start", "message": {"id": "msg_replay", "type": "message", "role": "assistant", "model": "replay", "content": [], "stop_reason": null, "usage": {"input_tokens": 1, "output_tokens": 1}}}),
        ),
        Duration::ZERO,
    )];
    for (index, block) in content.iter().enumerate() {
        let mut text = String::new();
        let (start, deltas) = match block["type"].as_str() {
            Some("text") => (
                json!({"type": "text", "text": ""}),
                split(block["text"].as_str().unwrap(), 3)
                    .into_iter()
                    .map(|piece| json!({"type": "text_delta", "text": piece}))
                    .collect::<Vec<_>>(),
            ),
            Some(kind @ ("tool_use" | "server_tool_use")) => {
                let mut start =
                    json!({"type": kind, "id": block["id"], "name": block["name"], "input": {}});
                if let Some(caller) = block.get("caller") {
                    // Programmatic tool calling: the call's caller comes with its start.
                    start["caller"] = caller.clone();
                }
                (
                    start,
                    split(&block["input"].to_string(), 3)
                        .into_iter()
                        .map(|piece| json!({"type": "input_json_delta", "partial_json": piece}))
                        .collect(),
                )
            }
            // A server tool's result comes whole with its start.
            Some("code_execution_tool_result") => (block.clone(), Vec::new()),
            _ => continue,
        };
        text.push_str(&event(
            "content_block_start",
            &json!({"type": "content_block_start", "index": index, "content_block": start}),
        ));
        if cut_after == Some(index) {
            let delta = &deltas[0];
            text.push_str(&event(
                "content_block_delta",
                &json!({"type": "content_block_delta", "index": index, "delta": delta}),
            ));
            parts.push((text, Duration::ZERO));
            return parts;
        }
        for delta in deltas {
            text.push_str(&event(
                "content_block_delta",
                &json!({"type": "content_block_delta", "index": index, "delta": delta}),
            ));
        }
        text.push_str(&event(
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": index}),
        ));
        let pause = pause_after
            .iter()
            .find(|(at, _)| *at == index)
            .map_or(Duration::ZERO, |(_, pause)| *pause);
        parts.push((text, pause));
    }
    parts.push((
        event("message_delta", &message_delta(content, stop_reason))
            + &event("message_stop", &json!({"type": "message_stop"})),
        Duration::ZERO,
    ));
    parts
}

/// The `message_delta` event ending a replayed response; when code execution ran
/// (`server_tool_use`), it names the container as the API does
/// (`anthropic` SDK 2.16.0 `types/raw_message_delta_event.py`: `delta.container`).
fn message_delta(content: &[Value], stop_reason: &str) -> Value {
    let mut delta = json!({"stop_reason": stop_reason, "stop_sequence": null});
    if content
        .iter()
        .any(|block| block["type"] == "server_tool_use")
    {
        delta["container"] =
            json!({"id": REPLAY_CONTAINER, "expires_at": REPLAY_CONTAINER_EXPIRES});
    }
    json!({"type": "message_delta", "delta": delta, "usage": {"output_tokens": 10}})
}

/// The container id of a replayed response whose code ran.
pub const REPLAY_CONTAINER: &str = "container_replay";

/// When the replayed container expires: far ahead, so that a test's next request still names
/// it (a test that wants it expired rewrites this text in the stream).
pub const REPLAY_CONTAINER_EXPIRES: &str = "2999-01-01T00:00:00Z";

/// An OpenAI Chat Completions stream replaying `content` (an Anthropic content array: text
/// becomes `delta.content`, each `tool_use` a `delta.tool_calls` entry with its arguments in
/// pieces), `pause` after each tool call.
pub fn openai_stream(content: &[Value], pause: Duration) -> Vec<(String, Duration)> {
    let chunk = |delta: Value, finish: Value| {
        format!(
            "data: {}\n\n",
            json!({"id": "chatcmpl-replay", "object": "chat.completion.chunk", "created": 0, "model": "replay", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        )
    };
    let mut parts = vec![(
        chunk(json!({"role": "assistant", "content": ""}), Value::Null),
        Duration::ZERO,
    )];
    let mut calls = 0;
    for block in content {
        match block["type"].as_str() {
            Some("text") => {
                let text: String = split(block["text"].as_str().unwrap(), 3)
                    .into_iter()
                    .map(|piece| chunk(json!({"content": piece}), Value::Null))
                    .collect();
                parts.push((text, Duration::ZERO));
            }
            Some("tool_use") => {
                let mut text = chunk(
                    json!({"tool_calls": [{"index": calls, "id": block["id"], "type": "function", "function": {"name": block["name"], "arguments": ""}}]}),
                    Value::Null,
                );
                for piece in split(&block["input"].to_string(), 3) {
                    text.push_str(&chunk(
                        json!({"tool_calls": [{"index": calls, "function": {"arguments": piece}}]}),
                        Value::Null,
                    ));
                }
                calls += 1;
                parts.push((text, pause));
            }
            _ => {}
        }
    }
    let finish = if calls > 0 { "tool_calls" } else { "stop" };
    parts.push((
        chunk(json!({}), json!(finish)) + "data: [DONE]\n\n",
        Duration::ZERO,
    ));
    parts
}

/// Rewrites every string starting with `from` to start with `to`, in place.
pub fn rebase(value: &mut Value, from: &str, to: &str) {
    match value {
        Value::String(text) if text.starts_with(from) => {
            *text = format!("{to}{}", &text[from.len()..]);
        }
        Value::Array(items) => items.iter_mut().for_each(|item| rebase(item, from, to)),
        Value::Object(map) => map.values_mut().for_each(|item| rebase(item, from, to)),
        _ => {}
    }
}

/// The recorded transcript `name` from `$TOOL_SDK_FIXTURES/transcripts` (default
/// `../shared/fixtures` beside the repository, the CI layout), or `None` (the caller says it
/// skips) when the fixtures are not on this machine.
pub fn transcript(name: &str) -> Option<Value> {
    let fixtures = std::env::var_os("TOOL_SDK_FIXTURES").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures"),
        std::path::PathBuf::from,
    );
    let path = fixtures.join("transcripts").join(name);
    let text = std::fs::read_to_string(&path).ok()?;
    Some(serde_json::from_str(&text).expect("the transcript is JSON"))
}

/// A file's text from a recorded Read result (`cat -n` lines with `→`), without the
/// appended `<system-reminder>`.
pub fn file_from_read_result(result: &str) -> String {
    let mut text = String::new();
    for line in result.lines() {
        if line.trim_start().starts_with("<system-reminder>") {
            break;
        }
        if let Some((_, rest)) = line.split_once('→') {
            text.push_str(rest);
            text.push('\n');
        }
    }
    text
}

/// A running `tool-host chat` with its stderr lines timestamped.
pub struct ChatProcess {
    pub child: Child,
    pub stderr: Arc<Mutex<Vec<(Instant, String)>>>,
    done: Receiver<()>,
}

impl ChatProcess {
    /// Starts `tool-host chat ARGS` with `env` set (and the API key variables cleared first).
    pub fn start(args: &[&str], env: &[(&str, &str)]) -> Self {
        let mut command = Command::new(env!("CARGO_BIN_EXE_tool-host"));
        command
            .arg("chat")
            .args(args)
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("OPENAI_API_KEY")
            .env_remove("ENABLE_TOOL_SEARCH")
            .env_remove("ANTHROPIC_BASE_URL")
            .env_remove("OPENAI_BASE_URL")
            .env("RUST_LOG", "debug")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (name, value) in env {
            command.env(name, value);
        }
        let mut child = command.spawn().expect("tool-host starts");
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let (sender, done) = channel();
        let pipe: ChildStderr = child.stderr.take().unwrap();
        let lines = stderr.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines() {
                let Ok(line) = line else { break };
                lines.lock().unwrap().push((Instant::now(), line));
            }
            let _ = sender.send(());
        });
        Self {
            child,
            stderr,
            done,
        }
    }

    /// `tool-host chat -p PROMPT` (print mode) against the model server at `url` with the
    /// test's Anthropic key ([`replay::KEY`]), its workspace at `root`.
    pub fn print_answer(url: &str, root: &str, prompt: &str) -> Self {
        Self::start(
            &["--base-url", url, "--root", root, "-p", prompt],
            &[("ANTHROPIC_API_KEY", replay::KEY)],
        )
    }

    /// The first stderr line containing `needle` and when it came, waiting up to 20 s.
    pub fn wait_stderr(&self, needle: &str) -> (Instant, String) {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(found) = self
                .stderr
                .lock()
                .unwrap()
                .iter()
                .find(|(_, line)| line.contains(needle))
            {
                return found.clone();
            }
            assert!(
                Instant::now() < deadline,
                "no stderr line with `{needle}`:\n{}",
                self.stderr_text()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    pub fn stderr_text(&self) -> String {
        self.stderr
            .lock()
            .unwrap()
            .iter()
            .map(|(_, line)| format!("{line}\n"))
            .collect()
    }

    pub fn write_line(&mut self, line: &str) {
        let stdin = self.child.stdin.as_mut().expect("stdin is open");
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    /// Closes stdin and waits (up to 20 s) for the exit; returns the status and stdout.
    pub fn finish(mut self) -> (std::process::ExitStatus, String, String) {
        drop(self.child.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(20);
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("tool-host did not exit:\n{}", self.stderr_text());
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let _ = self.done.recv_timeout(Duration::from_secs(5));
        let mut stdout = String::new();
        self.child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut stdout)
            .unwrap();
        (status, stdout, self.stderr_text())
    }

    /// Sends SIGINT, as Ctrl-C on a terminal does.
    pub fn interrupt(&self) {
        let status = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success());
    }
}
