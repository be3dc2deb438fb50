//! The tools of the suite's multi round-trip request scenarios (MCP 2026-07-28, SEP-2322):
//! each asks its questions with `ToolUseContext::elicit` (elicitation) or
//! `ServedCall::request_input` (sampling, roots), named as the suite expects, and the server
//! turns them into `InputRequiredResult` rounds. Served to an MCP 2025-11-25 client, the same
//! tools ask over the session instead.

// rmcp marks sampling deprecated for MCP 2026-07-28 as a server-to-client request; as a
// multi round-trip input request it is current.
#![allow(deprecated)]

use rmcp::model::{
    CreateMessageRequest, CreateMessageRequestParams, InputRequest, ListRootsRequest,
    SamplingMessage,
};
use serde_json::{Value, json};
use tool_sdk::elicitation::{Elicitation, ElicitationAnswer};
use tool_sdk::prelude::*;

use super::served;

/// A question for a one-field string answer, named `id`.
fn ask_for(id: &str, message: &str, field: &str, kind: &str) -> Elicitation {
    Elicitation::new(
        message,
        json!({
            "type": "object",
            "properties": {field: {"type": kind}},
            "required": [field],
        }),
    )
    .with_id(id)
}

/// The accepted answer's `field`, as text; "(declined)" otherwise.
fn answered(answer: &ElicitationAnswer, field: &str) -> String {
    match answer {
        ElicitationAnswer::Accept(content) => match &content.get(field) {
            Some(Value::String(text)) => text.clone(),
            Some(other) => other.to_string(),
            None => String::new(),
        },
        _ => "(declined)".to_owned(),
    }
}

fn sampling(prompt: &str, max_tokens: u32) -> InputRequest {
    InputRequest::CreateMessage(CreateMessageRequest::new(CreateMessageRequestParams::new(
        vec![SamplingMessage::user_text(prompt)],
        max_tokens,
    )))
}

fn roots() -> InputRequest {
    InputRequest::ListRoots(ListRootsRequest::default())
}

/// The text of a `CreateMessageResult`'s content.
fn sampled_text(result: &Value) -> String {
    super::first_text(&result["content"])
}

/// The URIs of a `ListRootsResult`, comma-separated.
fn root_uris(result: &Value) -> String {
    result["roots"]
        .as_array()
        .map(|roots| {
            roots
                .iter()
                .filter_map(|root| root["uri"].as_str())
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default()
}

macro_rules! no_input_tool {
    ($ty:ident, $name:literal, $doc:literal) => {
        #[doc = $doc]
        #[tool(
                                                                    name = $name,
                                                                    max_result_size_chars = 100_000,
                                                                    read_only,
                                                                    concurrency_safe,
                                                                    open_world = false
                                                                )]
        #[derive(Debug, Deserialize, JsonSchema)]
        pub struct $ty {}
    };
}

no_input_tool!(
    AskName,
    "test_input_required_result_elicitation",
    "Asks the user's name."
);

#[tool]
impl Tool for AskName {
    type Output = String;
    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        let answer = ctx
            .elicit(ask_for("user_name", "What is your name?", "name", "string"))
            .await?;
        Ok(ToolResult::new(format!(
            "Hello, {}!",
            answered(&answer, "name")
        )))
    }
}

no_input_tool!(
    AskModel,
    "test_input_required_result_sampling",
    "Asks the client's model a question."
);

#[tool]
impl Tool for AskModel {
    type Output = String;
    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        let result = served(ctx)?
            .request_input(
                Some("capital_question"),
                sampling("What is the capital of France?", 100),
            )
            .await?;
        Ok(ToolResult::new(format!(
            "Sampling response: {}",
            sampled_text(&result)
        )))
    }
}

no_input_tool!(
    AskRoots,
    "test_input_required_result_list_roots",
    "Asks the client's roots."
);

#[tool]
impl Tool for AskRoots {
    type Output = String;
    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        let result = served(ctx)?
            .request_input(Some("client_roots"), roots())
            .await?;
        Ok(ToolResult::new(format!(
            "Client roots: [{}]",
            root_uris(&result)
        )))
    }
}

no_input_tool!(
    Confirm,
    "test_input_required_result_request_state",
    "Asks for a confirmation; the server keeps the round's state in a signed requestState."
);

#[tool]
impl Tool for Confirm {
    type Output = String;
    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        let answer = ctx
            .elicit(ask_for("confirm", "Please confirm", "ok", "boolean"))
            .await?;
        Ok(ToolResult::new(format!(
            "Confirmed: state-ok ({})",
            answered(&answer, "ok")
        )))
    }
}

no_input_tool!(
    ConfirmSigned,
    "test_input_required_result_tampered_state",
    "Asks for a confirmation; a changed requestState is refused."
);

#[tool]
impl Tool for ConfirmSigned {
    type Output = String;
    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        let answer = ctx
            .elicit(ask_for("confirm", "Please confirm", "ok", "boolean"))
            .await?;
        Ok(ToolResult::new(format!(
            "Confirmed: {}",
            answered(&answer, "ok")
        )))
    }
}

no_input_tool!(
    AskThree,
    "test_input_required_result_multiple_inputs",
    "Asks for a name, a greeting from the client's model and the client's roots at once."
);

#[tool]
impl Tool for AskThree {
    type Output = String;
    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        let served = served(ctx)?;
        let (name, greeting, roots) = futures::join!(
            ctx.elicit(ask_for("user_name", "What is your name?", "name", "string")),
            served.request_input(Some("greeting"), sampling("Generate a greeting", 50)),
            served.request_input(Some("client_roots"), roots()),
        );
        let (name, greeting, roots) = (name?, greeting?, roots?);
        Ok(ToolResult::new(format!(
            "All inputs received: {}, {}, [{}]",
            answered(&name, "name"),
            sampled_text(&greeting),
            root_uris(&roots)
        )))
    }
}

no_input_tool!(
    AskTwice,
    "test_input_required_result_multi_round",
    "Asks two questions, one after the other."
);

#[tool]
impl Tool for AskTwice {
    type Output = String;
    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        let name = ctx
            .elicit(ask_for(
                "step1",
                "Step 1: What is your name?",
                "name",
                "string",
            ))
            .await?;
        let color = ctx
            .elicit(ask_for(
                "step2",
                "Step 2: What is your favorite color?",
                "color",
                "string",
            ))
            .await?;
        Ok(ToolResult::new(format!(
            "Multi-round flow complete: {} likes {}",
            answered(&name, "name"),
            answered(&color, "color")
        )))
    }
}

no_input_tool!(
    AskWhatIsDeclared,
    "test_input_required_result_capabilities",
    "Asks only what the client declared it can answer."
);

#[tool]
impl Tool for AskWhatIsDeclared {
    type Output = String;
    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        let served = served(ctx)?;
        let declared = served.client_capabilities().cloned().unwrap_or_default();
        let mut asked = Vec::new();
        if declared.elicitation.is_some() {
            ctx.elicit(ask_for("user_name", "What is your name?", "name", "string"))
                .await?;
            asked.push("elicitation");
        }
        if declared.sampling.is_some() {
            served
                .request_input(Some("greeting"), sampling("Generate a greeting", 50))
                .await?;
            asked.push("sampling");
        }
        if declared.roots.is_some() {
            served.request_input(Some("client_roots"), roots()).await?;
            asked.push("roots");
        }
        Ok(ToolResult::new(if asked.is_empty() {
            "Client declared no MRTR-capable capabilities".to_owned()
        } else {
            format!("Capability-aware flow complete: {}", asked.join(", "))
        }))
    }
}

no_input_tool!(
    StreamingElicitation,
    "test_streaming_elicitation",
    "Asks for a value (an elicitation within the call's response)."
);

#[tool]
impl Tool for StreamingElicitation {
    type Output = String;
    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        let answer = ctx
            .elicit(ask_for(
                "streaming_elicitation",
                "Provide a value",
                "value",
                "string",
            ))
            .await?;
        Ok(ToolResult::new(format!(
            "Value: {}",
            answered(&answer, "value")
        )))
    }
}

/// Every tool of this module.
pub fn tools() -> Vec<std::sync::Arc<dyn DynTool>> {
    vec![
        tool_sdk::dyn_tool::<AskName>(),
        tool_sdk::dyn_tool::<AskModel>(),
        tool_sdk::dyn_tool::<AskRoots>(),
        tool_sdk::dyn_tool::<Confirm>(),
        tool_sdk::dyn_tool::<ConfirmSigned>(),
        tool_sdk::dyn_tool::<AskThree>(),
        tool_sdk::dyn_tool::<AskTwice>(),
        tool_sdk::dyn_tool::<AskWhatIsDeclared>(),
        tool_sdk::dyn_tool::<StreamingElicitation>(),
    ]
}
