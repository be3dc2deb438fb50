//! Answers to an imported server's questions (MCP 2026-07-28 multi round-trip requests,
//! SEP-2322): the `inputRequests` of an `InputRequiredResult` become the `inputResponses` of
//! the call's next round.
//!
//! - An elicitation (form mode) is asked through the calling context
//!   ([`ToolUseContext::elicit`]), so the host's own prompt asks it (`tool-host chat`: the
//!   terminal) and, with nobody to ask, it is declined. The message names the server.
//! - A roots request is answered with the `ListRootsResult` the host put in the call's
//!   extensions (`Extensions::insert`), or with no roots.
//! - A sampling request ends the call with an error: this host does not lend its model to a
//!   server.
//! - A URL-mode elicitation is declined (there is no browser to send the user to).

// rmcp marks roots deprecated (SEP-2577, a later revision); MCP 2026-07-28 servers still ask.
#![allow(deprecated)]

use rmcp::model::{
    ElicitRequestParams, ElicitResult, ElicitationAction, InputRequest, InputRequiredResult,
    InputResponses, ListRootsResult,
};
use serde_json::Value;
use tool_sdk::elicitation::{Elicitation, ElicitationAnswer};
use tool_sdk::{ToolError, ToolUseContext};

/// The answers to `asked`, the server `server`'s questions during the call of `tool`.
///
/// # Errors
/// When the server asks for sampling, or the host's elicitor fails.
pub(crate) async fn answer(
    server: &str,
    tool: &str,
    asked: &InputRequiredResult,
    ctx: &ToolUseContext,
) -> Result<InputResponses, ToolError> {
    let mut answers = InputResponses::new();
    for (key, request) in asked.input_requests.iter().flatten() {
        let answer = match request {
            InputRequest::Elicitation(request) => elicit(server, key, &request.params, ctx).await?,
            InputRequest::ListRoots(_) => {
                let roots = ctx.get::<ListRootsResult>().cloned().unwrap_or_default();
                to_json(&roots)
            }
            InputRequest::CreateMessage(_) => {
                return Err(ToolError::new(format!(
                    "MCP server `{server}` asked to sample a model while running `{tool}`; this \
                     host does not lend its model to servers, so the call has no result."
                )));
            }
            _ => {
                return Err(ToolError::new(format!(
                    "MCP server `{server}` asked for input of a kind this host does not know \
                     while running `{tool}`."
                )));
            }
        };
        answers.insert(key.clone(), answer);
    }
    Ok(answers)
}

/// One elicitation (form mode) asked through `ctx`, as an `ElicitResult`; a URL-mode one is
/// declined.
///
/// # Errors
/// The host elicitor's error.
pub(crate) async fn elicit(
    server: &str,
    key: &str,
    params: &ElicitRequestParams,
    ctx: &ToolUseContext,
) -> Result<Value, ToolError> {
    let ElicitRequestParams::FormElicitationParams {
        message,
        requested_schema,
        ..
    } = params
    else {
        return Ok(to_json(&ElicitResult::new(ElicitationAction::Decline)));
    };
    let question = Elicitation::new(
        format!("MCP server `{server}` asks: {message}"),
        to_json(requested_schema),
    )
    .with_id(key);
    let result = match ctx.elicit(question).await? {
        ElicitationAnswer::Accept(content) => {
            ElicitResult::new(ElicitationAction::Accept).with_content(Value::Object(content))
        }
        ElicitationAnswer::Decline => ElicitResult::new(ElicitationAction::Decline),
        _ => ElicitResult::new(ElicitationAction::Cancel),
    };
    Ok(to_json(&result))
}

fn to_json<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}
