//! `tool-host chat` under bad conditions: an API that keeps failing (the attempts stay bounded
//! in all), an error body that repeats the key, and standard input that is not UTF-8. The
//! model is a local server; these tests need no fixtures.

mod model_server;

use std::io::Write as _;
use std::time::Duration;

use model_server::replay::{KEY, assert_key_hidden};
use model_server::{ChatProcess, ModelServer, Reply, anthropic_stream};
use serde_json::{Value, json};

fn answer(text: &str) -> Reply {
    Reply::Stream(anthropic_stream(
        &[json!({"type": "text", "text": text})],
        &[],
        None,
    ))
}

fn overloaded_status() -> Reply {
    Reply::Status {
        code: 529,
        headers: vec![("retry-after".into(), "0".into())],
        body: json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
    }
}

#[test]
fn one_request_is_tried_at_most_four_times_in_all() {
    let dir = tempfile::tempdir().unwrap();
    let overloaded_in_stream = anthropic_stream(&[], &[], None)[0].0.clone()
        + &format!(
            "event: error\ndata: {}\n\n",
            json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
        );
    let server = ModelServer::start(vec![
        Reply::Stream(vec![(overloaded_in_stream, Duration::ZERO)]),
        overloaded_status(),
        overloaded_status(),
        overloaded_status(),
        overloaded_status(),
        overloaded_status(),
        answer("too late"),
    ]);
    let chat = ChatProcess::print_answer(&server.url, dir.path().to_str().unwrap(), "hello");
    let (status, stdout, stderr) = chat.finish();
    assert!(!status.success(), "{stdout}");
    assert_eq!(server.requests().len(), 4, "{stderr}");
    assert!(stderr.contains("gave up after 4 attempts"), "{stderr}");
    assert!(!stderr.contains("attempt 5"), "{stderr}");
}

#[test]
fn an_error_body_that_repeats_the_key_does_not_print_it() {
    let dir = tempfile::tempdir().unwrap();
    let server = ModelServer::start(vec![Reply::Status {
        code: 401,
        headers: Vec::new(),
        body: json!({"type": "error", "error": {"type": "authentication_error", "message": format!("invalid x-api-key: {KEY}")}}),
    }]);
    let chat = ChatProcess::start(
        &[
            "--base-url",
            &server.url,
            "--root",
            dir.path().to_str().unwrap(),
            "-p",
            "hello",
        ],
        &[("ANTHROPIC_API_KEY", KEY), ("RUST_LOG", "trace")],
    );
    let (status, stdout, stderr) = chat.finish();
    assert!(!status.success());
    assert!(stderr.contains("authentication failed (401)"), "{stderr}");
    assert!(stderr.contains("invalid x-api-key: <redacted>"), "{stderr}");
    assert_key_hidden(&stdout, &stderr);
}

#[test]
fn a_line_that_is_not_utf8_is_read_lossily_and_the_chat_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let server = ModelServer::start(vec![answer("one"), answer("two")]);
    let mut chat = ChatProcess::start(
        &[
            "--base-url",
            &server.url,
            "--root",
            dir.path().to_str().unwrap(),
        ],
        &[("ANTHROPIC_API_KEY", KEY)],
    );
    {
        let stdin = chat.child.stdin.as_mut().unwrap();
        stdin.write_all(b"caf\xe9 au lait\nhello\n").unwrap();
        stdin.flush().unwrap();
    }
    server.wait_for_requests(2);
    let (status, _stdout, stderr) = chat.finish();
    assert!(status.success(), "{stderr}");
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{stderr}");
    let first: &Value = &requests[0].body["messages"][0]["content"][0]["text"];
    assert_eq!(first, "caf\u{fffd} au lait");
    let texts = requests[1].body["messages"].to_string();
    assert!(texts.contains("\"hello\""), "{texts}");
}

/// An Anthropic stream of `text` that stops before `message_delta` / `message_stop`, as
/// when a connection drops mid-response.
fn cut_short(text: &str) -> Reply {
    let mut parts = anthropic_stream(&[json!({"type": "text", "text": text})], &[], None);
    parts.pop();
    if text.is_empty() {
        parts.truncate(1);
    }
    Reply::Stream(parts)
}

#[test]
fn a_response_cut_short_is_an_error_not_a_final_answer() {
    let dir = tempfile::tempdir().unwrap();
    let server = ModelServer::start(vec![cut_short("The answer is 42, but only if")]);
    let chat = ChatProcess::print_answer(&server.url, dir.path().to_str().unwrap(), "hello");
    let (status, stdout, stderr) = chat.finish();
    assert!(
        !status.success(),
        "a cut-off answer passed as final: {stdout}"
    );
    assert!(!stdout.contains("The answer is 42"), "{stdout}");
    assert!(
        stderr.contains("the response ended before it was complete"),
        "{stderr}"
    );
}

#[test]
fn a_response_cut_short_before_any_content_is_sent_again() {
    let dir = tempfile::tempdir().unwrap();
    let server = ModelServer::start(vec![cut_short(""), answer("whole")]);
    let chat = ChatProcess::print_answer(&server.url, dir.path().to_str().unwrap(), "hello");
    let (status, stdout, stderr) = chat.finish();
    assert!(status.success(), "{stderr}");
    assert_eq!(stdout, "whole\n");
    assert_eq!(server.requests().len(), 2);
    assert!(
        stderr.contains("the response ended before it was complete; retrying"),
        "{stderr}"
    );
}
