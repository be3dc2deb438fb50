//! The media types at the MCP endpoint: what a client's `Accept` lets the server answer
//! with, and rmcp's answer put in that form.
//!
//! MCP streamable HTTP (2025-11-25, basic/transports) has clients list both
//! `application/json` and `text/event-stream`, and rmcp answers `406 Not Acceptable` to any
//! other `Accept`. Clients in use send less: `*/*` or no `Accept` (curl, httpx, browsers),
//! `application/json` alone (Gemini CLI, some agent platforms' plugins),
//! `text/event-stream` alone (the Java SDK, some hosted proxies). The endpoint negotiates as
//! HTTP does (RFC 9110 §12.5.1: media ranges, wildcards, `q=0` ruling a type out, the most
//! specific range deciding): a client that takes JSON or SSE is served, in the form it takes;
//! only one that takes neither gets `406`.

use std::convert::Infallible;
use std::sync::Arc;

use futures::StreamExt as _;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt as _, Full};
use hyper::body::{Bytes, Incoming};
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use rmcp::ErrorData;
use rmcp::model::{ClientJsonRpcMessage, ErrorCode, RequestId};
use rmcp::transport::streamable_http_server::session::SessionManager as _;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

/// The server's MCP 2025-11-25 sessions.
pub(super) type Sessions = LocalSessionManager;

/// An MCP 2025-11-25 session's id (`Mcp-Session-Id`).
type SessionId = Arc<str>;

type Answer = Response<BoxBody<Bytes, Infallible>>;

const JSON: &str = "application/json";
const SSE: &str = "text/event-stream";

/// The `Accept` rmcp requires of a `POST`.
const BOTH: HeaderValue = HeaderValue::from_static("application/json, text/event-stream");

/// The answer forms a client takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Takes {
    /// Both (or a method with no answer form to choose): rmcp's answer as it is.
    Both,
    /// `application/json` only: an SSE answer is read to its JSON-RPC answer.
    Json,
    /// `text/event-stream` only: a JSON answer is sent as one SSE event.
    Sse,
}

/// Marks (in its extensions) an HTTP request whose client takes only a JSON answer: nothing
/// sent before the answer reaches it, so a call made by it cannot ask the client anything
/// over a 2025-11-25 session's stream (`ServedCall::request_input` says so to the tool at
/// once).
#[derive(Clone, Copy, Debug)]
pub(super) struct JsonOnly;

/// Whether the HTTP request of `context` takes only a JSON answer ([`JsonOnly`]).
pub(super) fn json_only(context: &rmcp::service::RequestContext<rmcp::RoleServer>) -> bool {
    context
        .extensions
        .get::<http::request::Parts>()
        .is_some_and(|parts| parts.extensions.get::<JsonOnly>().is_some())
}

/// What of a request decides how rmcp's answer to it is put for the client
/// ([`Asked::answered`]).
pub(super) struct Asked {
    /// A `DELETE`: a client ending its MCP 2025-11-25 session.
    delete: bool,
    takes: Takes,
    /// The session of a request taking JSON only (none for others).
    session: Option<SessionId>,
}

impl Asked {
    /// Reads `request`'s media types, and gives rmcp the `Accept` it requires when the
    /// client takes what the endpoint answers with.
    ///
    /// # Errors
    /// The text of the `406 Not Acceptable` for a client that takes neither
    /// `application/json` nor `text/event-stream` (a `POST`), or no `text/event-stream` (a
    /// `GET`, which opens a stream).
    pub(super) fn of(request: &mut Request<Incoming>) -> Result<Self, &'static str> {
        let method = request.method();
        let delete = method == Method::DELETE;
        let mut session = None;
        let takes = if method == Method::POST {
            let takes = negotiate_post(request.headers_mut())?;
            if takes == Takes::Json {
                request.extensions_mut().insert(JsonOnly);
                session = request
                    .headers()
                    .get("mcp-session-id")
                    .and_then(|value| value.to_str().ok())
                    .map(SessionId::from);
            }
            takes
        } else {
            if method == Method::GET {
                negotiate_get(request.headers_mut())?;
            }
            Takes::Both
        };
        Ok(Self {
            delete,
            takes,
            session,
        })
    }

    /// rmcp's answer, put as the client asked and expects:
    /// - rmcp answers a body it cannot read as a JSON-RPC message `415 Unsupported Media
    ///   Type`, in plain text, although the media type was right (it checks that first):
    ///   the body was not, which is `400 Bad Request` with a JSON-RPC error (`-32700` Parse
    ///   error for a body that is no JSON, `-32600` Invalid Request for JSON that is no
    ///   JSON-RPC message; JSON-RPC 2.0 §5.1), rmcp's reason in its message.
    /// - rmcp answers a session's `DELETE` `202 Accepted` once it has closed the session
    ///   (here, and in the session store): done by then, which is `204 No Content` (RFC 9110
    ///   §9.3.5). The MCP spec names no success status, and the official Python SDK client
    ///   logs a warning for any but `200` and `204`.
    /// - rmcp reads a `POST` naming no revision as MCP 2025-03-26 (as the spec has a server
    ///   assume) and, outside a session and unless it is an `initialize`, answers `400`
    ///   "Session ID is required"; the answer also says how a stateless 2026-07-28 request
    ///   names its revision, which such a client most likely forgot.
    /// - A `200` in a form the client does not take is put in the one it does.
    ///
    /// `sessions`: where the request's session is, to decline a request to a client that
    /// takes JSON only on its behalf.
    pub(super) async fn answered(self, mut response: Answer, sessions: &Arc<Sessions>) -> Answer {
        let status = response.status();
        if status == StatusCode::OK {
            if self.takes == Takes::Both {
                return response;
            }
            return match (self.takes, content_type(&response)) {
                (Takes::Json, Some(SSE)) => json_of_stream(response, self.session, sessions).await,
                (Takes::Sse, Some(JSON)) => stream_of_json(response).await,
                _ => response,
            };
        }
        if status == StatusCode::UNSUPPORTED_MEDIA_TYPE || status == StatusCode::BAD_REQUEST {
            return reworded(response).await;
        }
        if self.delete && status == StatusCode::ACCEPTED {
            *response.status_mut() = StatusCode::NO_CONTENT;
        }
        response
    }
}

/// The forms a `POST`'s client takes; its `Accept` made what rmcp requires.
fn negotiate_post(headers: &mut HeaderMap) -> Result<Takes, &'static str> {
    let mut values = headers.get_all(header::ACCEPT).iter();
    // What the SDK clients send, checked without parsing.
    if let (Some(only), None) = (values.next(), values.next())
        && (only == BOTH || only.as_bytes() == b"text/event-stream, application/json")
    {
        return Ok(Takes::Both);
    }
    let takes = match (acceptable(headers, JSON), acceptable(headers, SSE)) {
        (true, true) => Takes::Both,
        (true, false) => Takes::Json,
        (false, true) => Takes::Sse,
        (false, false) => {
            return Err(
                "Not Acceptable: the MCP endpoint answers a POST with application/json or \
                 text/event-stream, and the request's Accept rules out both; send `Accept: \
                 application/json, text/event-stream`\n",
            );
        }
    };
    headers.insert(header::ACCEPT, BOTH);
    Ok(takes)
}

/// A `GET` opens a session's stream: its client must take `text/event-stream`.
fn negotiate_get(headers: &mut HeaderMap) -> Result<(), &'static str> {
    if !acceptable(headers, SSE) {
        return Err(
            "Not Acceptable: a GET at the MCP endpoint opens a text/event-stream, and the \
             request's Accept rules it out; send `Accept: text/event-stream`\n",
        );
    }
    headers.insert(header::ACCEPT, HeaderValue::from_static(SSE));
    Ok(())
}

/// Whether `Accept` admits `media` (`type/subtype`, lower case): the most specific media
/// range matching it decides (`type/subtype`, then `type/*`, then `*/*`), excluding it when
/// its weight is zero (RFC 9110 §12.5.1). No `Accept` (or only empty ones) admits anything.
fn acceptable(headers: &HeaderMap, media: &str) -> bool {
    let (kind, _) = media.split_once('/').unwrap_or((media, ""));
    // (specificity, weight above zero) of the most specific range seen.
    let mut best: Option<(u8, bool)> = None;
    let mut any = false;
    for value in headers.get_all(header::ACCEPT) {
        // A value that is not visible ASCII (RFC 9110 field values) is skipped, as rmcp does.
        let Ok(value) = value.to_str() else { continue };
        for entry in split_unquoted(value, ',') {
            let mut parts = split_unquoted(entry, ';');
            let range = parts.next().unwrap_or("").trim();
            if range.is_empty() {
                continue;
            }
            any = true;
            let Some((range_kind, range_sub)) = range.split_once('/') else {
                continue;
            };
            let specificity = if range_kind == "*" && range_sub == "*" {
                1
            } else if range_kind.eq_ignore_ascii_case(kind) && range_sub == "*" {
                2
            } else if range.eq_ignore_ascii_case(media) {
                3
            } else {
                continue;
            };
            let positive = parts.all(|parameter| {
                let Some((name, weight)) = parameter.split_once('=') else {
                    return true;
                };
                !name.trim().eq_ignore_ascii_case("q") || weight_above_zero(weight.trim())
            });
            match best {
                Some((seen, _)) if seen > specificity => {}
                // Of equally specific ranges, one with a weight above zero admits.
                Some((seen, true)) if seen == specificity => {}
                _ => best = Some((specificity, positive)),
            }
        }
    }
    if !any {
        return true;
    }
    best.is_some_and(|(_, positive)| positive)
}

/// Whether a `q` weight is above zero. A weight outside RFC 9110 §12.4.2's grammar is read
/// as 1 (rmcp's reading): a client that lists a type with a malformed weight is served.
fn weight_above_zero(weight: &str) -> bool {
    let (whole, fraction) = weight.split_once('.').unwrap_or((weight, ""));
    if whole != "0" || fraction.len() > 3 || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return true;
    }
    fraction.bytes().any(|digit| digit != b'0')
}

/// `value` split at `separator` outside double quotes (an `Accept` parameter may quote one).
fn split_unquoted(value: &str, separator: char) -> impl Iterator<Item = &str> {
    let mut rest = Some(value);
    std::iter::from_fn(move || {
        let text = rest?;
        let mut quoted = false;
        let mut escaped = false;
        for (at, c) in text.char_indices() {
            match c {
                _ if escaped => escaped = false,
                '\\' if quoted => escaped = true,
                '"' => quoted = !quoted,
                c if c == separator && !quoted => {
                    rest = Some(&text[at + c.len_utf8()..]);
                    return Some(&text[..at]);
                }
                _ => {}
            }
        }
        rest = None;
        Some(text)
    })
}

fn content_type(response: &Answer) -> Option<&'static str> {
    let value = response
        .headers()
        .get(header::CONTENT_TYPE)?
        .to_str()
        .ok()?;
    let essence = value.split(';').next().unwrap_or("").trim();
    if essence.eq_ignore_ascii_case(JSON) {
        Some(JSON)
    } else if essence.eq_ignore_ascii_case(SSE) {
        Some(SSE)
    } else {
        None
    }
}

/// An SSE answer read to its JSON-RPC answer, for a client that takes JSON only. The
/// notifications before it (progress, log messages) are left out: the client cannot take
/// them. A request to the client on the way cannot reach it either: a served call's
/// `request_input` does not send one ([`JsonOnly`]); one sent otherwise (through
/// `ServedCall::peer`) is declined in the session on the client's behalf (`-32601`: not
/// available to it), so that the call goes on to its answer. Outside a session, that
/// cannot be done: the stream is dropped and the client told to take `text/event-stream`
/// (`406`).
async fn json_of_stream(
    response: Answer,
    session: Option<SessionId>,
    sessions: &Arc<Sessions>,
) -> Answer {
    let (mut parts, body) = response.into_parts();
    let mut events = sse_stream::SseStream::new(body);
    while let Some(event) = events.next().await {
        let event = match event {
            Ok(event) => event,
            Err(error) => {
                return jsonrpc_error(
                    Some(parts),
                    StatusCode::INTERNAL_SERVER_ERROR,
                    ErrorCode::INTERNAL_ERROR,
                    format!("the server's answer stream could not be read: {error}"),
                );
            }
        };
        let Some(data) = event.data.filter(|data| !data.is_empty()) else {
            continue;
        };
        let Ok(shape) = serde_json::from_str::<Shape>(&data) else {
            continue;
        };
        match (shape.method, shape.id) {
            // A request to the client.
            (Some(method), Some(id)) => {
                let declined = match (&session, serde_json::from_value::<RequestId>(id)) {
                    (Some(session), Ok(id)) => {
                        let error = ErrorData::new(
                            ErrorCode::METHOD_NOT_FOUND,
                            format!(
                                "{method} cannot reach this client during this call: its \
                                 request takes only an application/json answer (its Accept \
                                 header), and a request reaches it during a call only in a \
                                 text/event-stream answer"
                            ),
                            None,
                        );
                        let message = ClientJsonRpcMessage::error(error, Some(id));
                        // Pushed from its own task: the session's worker may be waiting for
                        // room in this very stream, which is read on meanwhile. A session
                        // gone by then ends the stream (the `503` below).
                        let (sessions, session) = (Arc::clone(sessions), Arc::clone(session));
                        tokio::spawn(async move {
                            let _ = sessions.accept_message(&session, message).await;
                        });
                        true
                    }
                    _ => false,
                };
                if !declined {
                    return jsonrpc_error(
                        Some(parts),
                        StatusCode::NOT_ACCEPTABLE,
                        ErrorCode::INTERNAL_ERROR,
                        format!(
                            "this call sends the client a request on the way ({method}), which \
                             only a text/event-stream answer carries, and the request's Accept \
                             rules that out; send `Accept: application/json, text/event-stream`"
                        ),
                    );
                }
            }
            // A notification.
            (Some(_), None) => {}
            // The answer (a result or an error).
            (None, _) => {
                parts
                    .headers
                    .insert(header::CONTENT_TYPE, HeaderValue::from_static(JSON));
                parts.headers.remove(header::CACHE_CONTROL);
                return Response::from_parts(parts, Full::new(Bytes::from(data)).boxed());
            }
        }
    }
    jsonrpc_error(
        Some(parts),
        StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::INTERNAL_ERROR,
        "the call's answer stream ended before its answer: its session ended, or the server \
         is shutting down"
            .to_owned(),
    )
}

/// A JSON-RPC 2.0 message's shape: a request has a method and an id, a notification a method
/// only, an answer neither a method nor (for an error without one) an id.
#[derive(serde::Deserialize)]
struct Shape {
    method: Option<String>,
    id: Option<serde_json::Value>,
}

/// A JSON answer sent as one SSE event, for a client that takes SSE only.
async fn stream_of_json(response: Answer) -> Answer {
    let (mut parts, body) = response.into_parts();
    let Ok(collected) = body.collect().await;
    let data = String::from_utf8_lossy(&collected.to_bytes()).into_owned();
    let event = sse_stream::Sse::default().data(data);
    let stream = futures::stream::once(std::future::ready(Ok::<_, Infallible>(event)));
    parts
        .headers
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(SSE));
    parts
        .headers
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, sse_stream::SseBody::new(stream).boxed())
}

/// rmcp's `415` and `400` answers that say less than the client needs, reworded (the rest
/// as they are).
async fn reworded(response: Answer) -> Answer {
    let (parts, body) = response.into_parts();
    let Ok(collected) = body.collect().await;
    let said = collected.to_bytes();
    if let Some(reason) = said.strip_prefix(UNREADABLE.as_bytes()) {
        return unreadable(&String::from_utf8_lossy(reason));
    }
    if said.starts_with(SESSION_REQUIRED.as_bytes()) {
        let mut response = Response::from_parts(
            parts,
            Full::new(Bytes::from_static(SESSION_REQUIRED_SAID.as_bytes())).boxed(),
        );
        response.headers_mut().remove(header::CONTENT_LENGTH);
        return response;
    }
    Response::from_parts(parts, Full::new(said).boxed())
}

/// How rmcp's `415` to a body it could not read as a JSON-RPC message begins (its
/// `Content-Type` was `application/json`: rmcp checks that first, with another answer).
const UNREADABLE: &str = "fail to deserialize request body ";

/// rmcp's `400` to a request of a revision with sessions (as it reads one without
/// `MCP-Protocol-Version`: 2025-03-26, as the spec has a server assume) outside a session,
/// unless an `initialize`.
const SESSION_REQUIRED: &str = "Bad Request: Session ID is required";

const SESSION_REQUIRED_SAID: &str = "Bad Request: Session ID is required: a request without \
    `MCP-Protocol-Version` is taken to be MCP 2025-03-26, and a request of that revision or of \
    2025-11-25 belongs to a session, which begins with `initialize` and sends its \
    `Mcp-Session-Id` on every later request. A stateless MCP 2026-07-28 request sends \
    `MCP-Protocol-Version: 2026-07-28` and its `_meta` \
    (`io.modelcontextprotocol/protocolVersion`, `io.modelcontextprotocol/clientInfo`, \
    `io.modelcontextprotocol/clientCapabilities`).\n";

/// The `400` with a JSON-RPC error for a body rmcp could not read as a JSON-RPC message, for
/// `reason`.
fn unreadable(reason: &str) -> Answer {
    let reason = reason.trim();
    // rmcp's reader reads the JSON first; a body that is JSON but no message fails with
    // this reason (rmcp's `UNRECOGNIZED_MESSAGE`), any other failure is the JSON's.
    let (code, message) = if reason.contains("unrecognized JSON-RPC message") {
        (
            ErrorCode::INVALID_REQUEST,
            format!(
                "Invalid Request: the body is JSON but no JSON-RPC 2.0 message (a request \
                 needs \"jsonrpc\": \"2.0\", \"method\" and params of that method's shape, an \
                 \"id\" a string or number; a notification, no \"id\") ({reason})"
            ),
        )
    } else {
        (
            ErrorCode::PARSE_ERROR,
            format!("Parse error: the body is no JSON text ({reason})"),
        )
    };
    jsonrpc_error(None, StatusCode::BAD_REQUEST, code, message)
}

/// A JSON-RPC error answer whose request id is not known: `"id": null` (JSON-RPC 2.0 §5;
/// rmcp's `JsonRpcError` leaves the member out instead). `parts`: the answer it replaces,
/// whose headers (`Mcp-Session-Id`) it keeps.
fn jsonrpc_error(
    parts: Option<http::response::Parts>,
    status: StatusCode,
    code: ErrorCode,
    message: String,
) -> Answer {
    let error = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": ErrorData::new(code, message, None),
    });
    let body = Full::new(Bytes::from(serde_json::to_vec(&error).unwrap_or_default())).boxed();
    let mut response = match parts {
        Some(parts) => Response::from_parts(parts, body),
        None => Response::new(body),
    };
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(JSON));
    headers.remove(header::CACHE_CONTROL);
    headers.remove(header::CONTENT_LENGTH);
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accept(values: &[&str]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append(header::ACCEPT, HeaderValue::from_str(value).unwrap());
        }
        headers
    }

    fn takes(values: &[&str]) -> Option<Takes> {
        negotiate_post(&mut accept(values)).ok()
    }

    #[test]
    fn post_clients_are_served_in_the_form_they_take() {
        for both in [
            &["application/json, text/event-stream"][..],
            &["text/event-stream, application/json"],
            &["application/json", "text/event-stream"],
            &["*/*"],
            &[],
            &[""],
            &["application/*, text/*"],
            &["TEXT/EVENT-STREAM;q=0.5, Application/JSON"],
            &["application/json;q=0.9, text/event-stream;q=abc"],
            &["text/html, */*;q=0.1"],
        ] {
            assert_eq!(takes(both), Some(Takes::Both), "{both:?}");
        }
        for json in [
            &["application/json"][..],
            &["application/*"],
            &["*/*, text/event-stream;q=0"],
            &["application/json, text/*;q=0"],
            &["application/json, text/event-stream;q=0.000"],
        ] {
            assert_eq!(takes(json), Some(Takes::Json), "{json:?}");
        }
        for sse in [
            &["text/event-stream"][..],
            &["text/*"],
            &["*/*, application/json;q=0"],
            &[r#"text/event-stream;foo="a,application/json""#],
        ] {
            assert_eq!(takes(sse), Some(Takes::Sse), "{sse:?}");
        }
        for neither in [
            &["text/html"][..],
            &["application/xml, text/plain"],
            &["*/*;q=0"],
            &["application/json;q=0, text/event-stream;q=0"],
            &["*/*;q=0, application/json;q=0"],
        ] {
            assert_eq!(takes(neither), None, "{neither:?}");
        }
    }

    #[test]
    fn rmcp_is_given_the_accept_it_requires() {
        let mut headers = accept(&["*/*"]);
        negotiate_post(&mut headers).unwrap();
        assert_eq!(headers.get_all(header::ACCEPT).iter().count(), 1);
        assert_eq!(headers[header::ACCEPT], BOTH);
        let mut headers = accept(&["*/*"]);
        negotiate_get(&mut headers).unwrap();
        assert_eq!(headers[header::ACCEPT], SSE);
        assert!(negotiate_get(&mut accept(&["application/json"])).is_err());
    }

    #[test]
    fn weights() {
        for zero in ["0", "0.", "0.0", "0.00", "0.000"] {
            assert!(!weight_above_zero(zero), "{zero}");
        }
        for above in ["1", "0.001", "0.5", "1.000", "abc", "0.0000", "0.0a", ""] {
            assert!(weight_above_zero(above), "{above}");
        }
    }
}
