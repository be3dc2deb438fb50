//! Asking the user from inside a tool: [`ToolUseContext::elicit`] sends a message and the
//! schema of the answer wanted (the shape of MCP elicitation, MCP 2025-11-25
//! client/elicitation, form mode) to whoever runs the tool, and returns what the user did:
//! accepted with content, declined, or cancelled.
//!
//! The host decides how the question reaches a person, through an [`Elicitor`] it puts in the
//! call's extensions: `tool-host chat` asks at the terminal as it asks for a permission; a
//! tool served over MCP asks the MCP client (an `elicitation/create` request in an MCP
//! 2025-11-25 session, an `InputRequiredResult` round trip in MCP 2026-07-28). With no
//! elicitor (a batch run, no terminal), the answer is [`ElicitationAnswer::Decline`]: a tool
//! must be ready for it.
//!
//! **A tool served over MCP 2026-07-28 runs again for every answer.** That revision is
//! stateless: the server cannot wait for the client, so the call ends at the first question
//! the client has not answered yet (the tool's run is dropped there) and, once the client
//! answers, the whole call is made again with the answers, from the start: a new run, a new
//! `tool_use_id`, the permission checks and observers again. So a tool asks its questions in
//! the same order on every run, and before any side effect it would not want repeated.
//!
//! ```
//! use tool_sdk::elicitation::{Elicitation, ElicitationAnswer};
//! # async fn demo(ctx: &tool_sdk::ToolUseContext) -> Result<(), tool_sdk::ToolError> {
//! let question = Elicitation::new(
//!     "Which branch should I deploy?",
//!     serde_json::json!({
//!         "type": "object",
//!         "properties": {"branch": {"type": "string"}},
//!         "required": ["branch"],
//!     }),
//! );
//! match ctx.elicit(question).await? {
//!     ElicitationAnswer::Accept(content) => {
//!         let branch = content.get("branch").and_then(|branch| branch.as_str());
//!         println!("deploying {}", branch.unwrap_or("main"));
//!     }
//!     _ => println!("not deploying"),
//! }
//! # Ok(()) }
//! # let ctx = tool_sdk::ToolUseContext::detached("toolu_1");
//! # let answer = futures::executor::block_on(ctx.elicit(tool_sdk::elicitation::Elicitation::new("?", serde_json::json!({"type": "object"})))).unwrap();
//! # assert_eq!(answer, ElicitationAnswer::Decline);
//! ```

use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::{Map, Value};

use crate::context::ToolUseContext;
use crate::result::ToolError;

/// A question for the user: a message and the JSON Schema of the answer (MCP elicitation's
/// `requestedSchema`: an object whose properties are strings, numbers, integers, booleans or
/// enums of strings, MCP 2025-11-25 client/elicitation).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Elicitation {
    /// What to ask, shown to the user as it is.
    pub message: String,
    /// The schema of the content an accepted answer carries.
    pub requested_schema: Value,
    /// The question's name among the call's questions, where the host needs one (the key of
    /// an MCP 2026-07-28 `inputRequests` entry); `None`: the host numbers the questions in
    /// the order asked. Asked twice in one call, one name gets one answer.
    pub id: Option<String>,
}

impl Elicitation {
    /// The question `message`, its answer shaped by `requested_schema`.
    pub fn new(message: impl Into<String>, requested_schema: Value) -> Self {
        Self {
            message: message.into(),
            requested_schema,
            id: None,
        }
    }

    /// The same question named `id` (see [`Elicitation::id`]).
    #[must_use]
    pub fn with_id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }
}

/// What the user did with an [`Elicitation`] (MCP's `action`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ElicitationAnswer {
    /// Answered: the content, an object shaped by the requested schema.
    Accept(Map<String, Value>),
    /// Chose not to answer (or there was nobody to ask).
    Decline,
    /// Dismissed the question without choosing.
    Cancel,
}

/// How a host brings an [`Elicitation`] to a person: put it in the call's extensions as an
/// `Arc<dyn Elicitor>` (exactly that type: an `Arc<MyElicitor>` is another entry, which
/// [`ToolUseContext::elicit`] does not look for) and `elicit` uses it.
///
/// ```
/// use std::sync::Arc;
/// use futures::future::BoxFuture;
/// use tool_sdk::elicitation::{Elicitation, ElicitationAnswer, Elicitor};
/// use tool_sdk::{Extensions, ToolError};
///
/// /// Says no to everything, and logs what it was asked.
/// struct Refuse;
///
/// impl Elicitor for Refuse {
///     fn elicit<'a>(
///         &'a self,
///         tool_use_id: &'a str,
///         request: Elicitation,
///     ) -> BoxFuture<'a, Result<ElicitationAnswer, ToolError>> {
///         eprintln!("{tool_use_id} asked: {}", request.message);
///         Box::pin(async { Ok(ElicitationAnswer::Decline) })
///     }
/// }
///
/// let extensions = Extensions::new().with::<Arc<dyn Elicitor>>(Arc::new(Refuse));
/// # assert!(extensions.get::<Arc<dyn Elicitor>>().is_some());
/// ```
pub trait Elicitor: Send + Sync {
    /// Asks `request` on behalf of the call `tool_use_id`.
    ///
    /// # Errors
    /// A [`ToolError`] when the question could not be asked or answered (a broken
    /// connection, an answer that is not an object); the tool sees it as [`ToolUseContext::elicit`]'s
    /// error.
    fn elicit<'a>(
        &'a self,
        tool_use_id: &'a str,
        request: Elicitation,
    ) -> BoxFuture<'a, Result<ElicitationAnswer, ToolError>>;
}

impl ToolUseContext {
    /// Asks the user `request` through the host's [`Elicitor`] and returns the answer;
    /// [`ElicitationAnswer::Decline`] when the host has none (nobody to ask). Served over MCP
    /// 2026-07-28, an unanswered question ends this run and the tool runs again with the
    /// answer (see the [module docs](crate::elicitation)).
    ///
    /// # Errors
    /// The elicitor's error when the question could not be asked or answered.
    pub async fn elicit(&self, request: Elicitation) -> Result<ElicitationAnswer, ToolError> {
        match self.get::<Arc<dyn Elicitor>>() {
            Some(elicitor) => elicitor.elicit(self.tool_use_id(), request).await,
            None => Ok(ElicitationAnswer::Decline),
        }
    }
}
