//! The check in front of the MCP endpoint: a request is admitted (its [`Admission`] in its
//! extensions, where the session finds it) or answered here with `401`, `403`, `413` or `503`.

use std::convert::Infallible;

use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt as _, Either, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::{Method, Request, Response, StatusCode, header};
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, JsonRpcMessage};
use serde_json::{Value, json};

use super::{Admission, Door, Refusal, challenge};

type Answer = Response<BoxBody<Bytes, Infallible>>;

/// An admitted request: its body as it came, or as read to find the tool it calls.
pub(crate) type Admitted = Request<Either<Incoming, Full<Bytes>>>;

fn json_answer(status: StatusCode, value: &Value) -> Answer {
    let mut response = Response::new(Full::new(Bytes::from(value.to_string())).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/json"),
    );
    response
}

/// The RFC 9728 metadata document.
pub(crate) fn metadata(door: &Door) -> Answer {
    json_answer(StatusCode::OK, &door.metadata())
}

fn refused(door: &Door, refusal: &Refusal) -> Answer {
    let (status, authenticate, description) = challenge(door, refusal);
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::UNAUTHORIZED);
    let error = match refusal {
        Refusal::NoToken => "unauthorized",
        Refusal::Invalid(_) => "invalid_token",
        Refusal::Scope(_) => "insufficient_scope",
        Refusal::Keys(_) => "temporarily_unavailable",
    };
    let mut response = json_answer(
        status,
        &json!({"error": error, "error_description": description}),
    );
    if let Ok(value) = header::HeaderValue::from_str(&authenticate) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
    response
}

/// How long a client may take to send a request body.
const BODY_READ_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// Checks the request's access token: who made it, or the answer that refuses it.
pub(crate) async fn admit(door: &Door, headers: &header::HeaderMap) -> Result<Admission, Answer> {
    let authorization = headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok());
    door.admit(authorization)
        .await
        .map_err(|refusal| refused(door, &refusal))
}

/// Reads an admitted `POST` (up to `max_body` bytes, within 30 s) to refuse a `tools/call`
/// of a tool whose scopes the principal lacks with `403`; the request, with its
/// [`Admission`], for rmcp.
pub(crate) async fn screen(
    door: &Door,
    admission: Admission,
    request: Request<Incoming>,
    max_body: usize,
) -> Result<Admitted, Answer> {
    let (mut parts, body) = request.into_parts();
    let body = if parts.method != Method::POST {
        Either::Left(body)
    } else {
        let read = tokio::time::timeout(BODY_READ_TIMEOUT, Limited::new(body, max_body).collect());
        let Ok(read) = read.await else {
            return Err(json_answer(
                StatusCode::REQUEST_TIMEOUT,
                &json!({"error": "the request body did not arrive within 30 s"}),
            ));
        };
        let bytes = match read {
            Ok(collected) => collected.to_bytes(),
            Err(error) if error.is::<http_body_util::LengthLimitError>() => {
                return Err(json_answer(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    &json!({"error": format!("the request body is over {max_body} bytes")}),
                ));
            }
            Err(error) => {
                return Err(json_answer(
                    StatusCode::BAD_REQUEST,
                    &json!({"error": format!("cannot read the request body: {error}")}),
                ));
            }
        };
        if let Some(tool) = called_tool(&bytes)
            && let Some(needed) = door.missing_for(&admission, &tool)
        {
            return Err(refused(door, &Refusal::Scope(needed)));
        }
        Either::Right(Full::new(bytes))
    };
    parts.extensions.insert(admission);
    Ok(Request::from_parts(parts, body))
}

/// The tool a `tools/call` request body calls; `None` for any other body (rmcp answers those,
/// malformed ones included).
fn called_tool(body: &[u8]) -> Option<String> {
    match serde_json::from_slice::<ClientJsonRpcMessage>(body).ok()? {
        JsonRpcMessage::Request(request) => match request.request {
            ClientRequest::CallToolRequest(call) => Some(call.params.name.into_owned()),
            _ => None,
        },
        _ => None,
    }
}
