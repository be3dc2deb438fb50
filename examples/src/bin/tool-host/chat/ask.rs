//! The permission prompt of `tool-host chat` (SPEC §6, the host's `canUseTool`): when a call's
//! permission check ends in "ask", the user answers on the terminal: allow once, allow this
//! command prefix (Bash: `Bash(git status:*)`) or tool for the rest of the session, or deny.
//! Without a terminal the call is denied. Either denial reaches the model as the reference's
//! rejection result.
//!
//! The same prompt answers a tool's questions (`ToolUseContext::elicit`, and an imported MCP
//! server's elicitations): the message, then answer / decline / cancel, then one line per
//! field of the requested schema. Without a terminal the question is declined.

use std::collections::VecDeque;
use std::io::{BufRead as _, IsTerminal as _};
use std::sync::{Arc, Mutex, PoisonError};

use futures::future::BoxFuture;
use serde_json::{Map, Value};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};
use tool_examples::tools::Bash;
use tool_examples::tools::bash::rules::session_rules;
use tool_registry::ToolPermissionContext;
use tool_registry::permissions::{
    CanUseTool, HostAnswer, PermissionBehavior, PermissionRequest, PermissionRuleSource,
    PermissionRuleValue,
};
use tool_sdk::ToolError;
use tool_sdk::ToolSpec as _;
use tool_sdk::elicitation::{Elicitation, ElicitationAnswer, Elicitor};

use crate::progress::Progress;

/// Where permission questions are answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PromptChoice {
    /// Ask on standard input when it is a terminal, otherwise deny.
    Auto,
    /// Ask on standard input even when it is not a terminal (for a front end that writes the
    /// answers to tool-host's standard input).
    Stdin,
    /// Never ask: every call that needs approval is denied.
    Deny,
}

impl PromptChoice {
    /// Whether questions are asked on standard input.
    pub fn asks(self) -> bool {
        match self {
            Self::Auto => std::io::stdin().is_terminal(),
            Self::Stdin => true,
            Self::Deny => false,
        }
    }
}

/// The lines of standard input, read by a thread of their own so that waiting for one never
/// blocks the runtime; shared by the chat prompt and the permission prompt.
pub struct Lines {
    receiver: tokio::sync::Mutex<UnboundedReceiver<String>>,
    /// Lines typed on the terminal before a permission question was shown: never taken as
    /// its answer, they are the next prompts.
    typed_ahead: Mutex<VecDeque<String>>,
    /// Standard input is a terminal (where typing ahead happens; a pipe's lines are meant
    /// in order, answers included).
    terminal: bool,
}

impl Lines {
    /// Starts reading standard input. A line that is not UTF-8 is read lossily (each bad
    /// byte becomes U+FFFD) rather than ending the input; `\n` and `\r\n` end a line.
    pub fn spawn() -> Arc<Self> {
        let (sender, receiver) = unbounded_channel();
        std::thread::spawn(move || {
            let mut input = std::io::stdin().lock();
            let mut bytes = Vec::new();
            loop {
                bytes.clear();
                match input.read_until(b'\n', &mut bytes) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
                let line = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
                let line = line.strip_suffix(b"\r").unwrap_or(line);
                if sender
                    .send(String::from_utf8_lossy(line).into_owned())
                    .is_err()
                {
                    break;
                }
            }
        });
        Arc::new(Self {
            receiver: tokio::sync::Mutex::new(receiver),
            typed_ahead: Mutex::new(VecDeque::new()),
            terminal: std::io::stdin().is_terminal(),
        })
    }

    /// The next prompt line (one typed ahead first), `None` at the end of input.
    pub async fn next(&self) -> Option<String> {
        let ahead = self
            .typed_ahead
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop_front();
        match ahead {
            Some(line) => Some(line),
            None => self.receiver.lock().await.recv().await,
        }
    }

    /// On a terminal, sets aside the lines typed so far (before a question is shown) for
    /// [`Lines::next`], so that only a line typed after the question answers it.
    pub async fn set_aside_typed_ahead(&self) {
        if !self.terminal {
            return;
        }
        let mut receiver = self.receiver.lock().await;
        let mut ahead = self
            .typed_ahead
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        while let Ok(line) = receiver.try_recv() {
            ahead.push_back(line);
        }
    }

    /// The next line from standard input, typed-ahead lines left alone: an answer.
    async fn next_answer(&self) -> Option<String> {
        self.receiver.lock().await.recv().await
    }
}

/// The [`CanUseTool`] of the chat: asks on standard input, or denies.
pub struct Asker {
    lines: Option<Arc<Lines>>,
    progress: Arc<Progress>,
    /// The allow rules granted by "allow always" (source `session`), matched as `--allow`
    /// rules are.
    session: Mutex<ToolPermissionContext>,
    /// One question at a time.
    asking: tokio::sync::Mutex<()>,
}

/// What the user answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answer {
    Once,
    Always,
    Deny,
}

fn parse_answer(line: &str) -> Option<Answer> {
    match line.trim().to_ascii_lowercase().as_str() {
        "1" | "y" | "yes" => Some(Answer::Once),
        "2" | "a" | "always" => Some(Answer::Always),
        "3" | "n" | "no" | "d" | "deny" => Some(Answer::Deny),
        _ => None,
    }
}

/// The rules "allow always" grants for a call, as the reference suggests them: for Bash, one
/// per simple command of its command line (`Bash(git status:*)`, see
/// [`session_rules`]); for any other tool, the whole tool. Empty when no rule can cover the
/// call (a command line the rules cannot read).
fn session_rules_for(request: &PermissionRequest<'_>) -> Vec<PermissionRuleValue> {
    let name = request.rule_name().into_owned();
    let command = request.input.get("command").and_then(Value::as_str);
    match command {
        Some(command) if name == Bash::NAME => session_rules(command)
            .into_iter()
            .map(|content| PermissionRuleValue::with_content(&name, content))
            .collect(),
        _ => vec![PermissionRuleValue::tool(name)],
    }
}

impl Asker {
    /// Asks on `lines` when given, otherwise denies; questions are printed through
    /// `progress` so they do not break the spinners.
    pub fn new(lines: Option<Arc<Lines>>, progress: Arc<Progress>) -> Self {
        Self {
            lines,
            progress,
            session: Mutex::new(ToolPermissionContext::default()),
            asking: tokio::sync::Mutex::new(()),
        }
    }

    /// Whether a rule granted this session covers the call.
    fn allowed_always(&self, request: &PermissionRequest<'_>) -> bool {
        let session = self.session.lock().unwrap_or_else(PoisonError::into_inner);
        request
            .matching_rule(&session, PermissionBehavior::Allow)
            .is_some()
    }

    async fn ask(&self, request: &PermissionRequest<'_>) -> HostAnswer {
        let name = request.tool.name().to_owned();
        let Some(lines) = &self.lines else {
            self.progress.println(&format!(
                "denied {name}: it needs approval and there is no terminal to ask on \
                 (pass --allow {name} to allow it)"
            ));
            // As if the user had said no: the model gets the reference's rejection result.
            return HostAnswer::reject();
        };
        let _one_at_a_time = self.asking.lock().await;
        // Another question may have granted a rule while this one waited.
        if self.allowed_always(request) {
            return HostAnswer::Allow {
                updated_input: None,
            };
        }
        let call = request.call.render_tool_use_message(request.input);
        let rules = session_rules_for(request);
        let always = if rules.is_empty() {
            "allow once (no rule can cover this command)".to_owned()
        } else {
            let names: Vec<String> = rules.iter().map(ToString::to_string).collect();
            format!("allow {} for this session", names.join(", "))
        };
        lines.set_aside_typed_ahead().await;
        self.progress.println(&format!(
            "\n{} {call}\n  1) allow once   2) {always}   3) deny\n  answer [1/2/3]:",
            request.message
        ));
        loop {
            let Some(line) = lines.next_answer().await else {
                return HostAnswer::reject();
            };
            match parse_answer(&line) {
                Some(Answer::Once) => {
                    return HostAnswer::Allow {
                        updated_input: None,
                    };
                }
                Some(Answer::Always) => {
                    let mut session = self.session.lock().unwrap_or_else(PoisonError::into_inner);
                    for rule in rules {
                        session.add_rule(
                            PermissionRuleSource::Session,
                            PermissionBehavior::Allow,
                            rule,
                        );
                    }
                    return HostAnswer::Allow {
                        updated_input: None,
                    };
                }
                Some(Answer::Deny) => {
                    return HostAnswer::reject();
                }
                None => self.progress.println(&format!(
                    "  `{}`: answer 1, 2 or 3 (y, a or n)",
                    line.trim()
                )),
            }
        }
    }
}

impl CanUseTool for Asker {
    fn can_use_tool<'a>(&'a self, request: PermissionRequest<'a>) -> BoxFuture<'a, HostAnswer> {
        Box::pin(async move {
            if self.allowed_always(&request) {
                return HostAnswer::Allow {
                    updated_input: None,
                };
            }
            self.ask(&request).await
        })
    }
}

impl Elicitor for Asker {
    fn elicit<'a>(
        &'a self,
        _tool_use_id: &'a str,
        request: Elicitation,
    ) -> BoxFuture<'a, Result<ElicitationAnswer, ToolError>> {
        Box::pin(async move {
            let Some(lines) = &self.lines else {
                self.progress.println(&format!(
                    "declined a tool's question (questions are not asked here: no terminal, \
                     or --permission-prompt deny): {}",
                    request.message
                ));
                return Ok(ElicitationAnswer::Decline);
            };
            let _one_at_a_time = self.asking.lock().await;
            lines.set_aside_typed_ahead().await;
            self.progress.println(&format!(
                "\n{}\n  1) answer   2) decline   3) cancel\n  answer [1/2/3]:",
                request.message
            ));
            loop {
                let Some(line) = lines.next_answer().await else {
                    return Ok(ElicitationAnswer::Cancel);
                };
                match line.trim().to_ascii_lowercase().as_str() {
                    "1" | "y" | "yes" | "a" | "answer" => break,
                    "2" | "n" | "no" | "d" | "decline" => return Ok(ElicitationAnswer::Decline),
                    "3" | "c" | "cancel" => return Ok(ElicitationAnswer::Cancel),
                    other => self
                        .progress
                        .println(&format!("  `{other}`: answer 1, 2 or 3")),
                }
            }
            let schema = &request.requested_schema;
            let required: Vec<&str> = schema["required"]
                .as_array()
                .map(|names| names.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let mut content = Map::new();
            for (name, field) in schema["properties"].as_object().into_iter().flatten() {
                let needed = required.contains(&name.as_str());
                loop {
                    self.progress
                        .println(&format!("  {name} ({}):", describe_field(field, needed)));
                    let Some(line) = lines.next_answer().await else {
                        return Ok(ElicitationAnswer::Cancel);
                    };
                    let line = line.trim();
                    if line.is_empty() && !needed {
                        break;
                    }
                    match field_value(line, field) {
                        Ok(value) => {
                            content.insert(name.clone(), value);
                            break;
                        }
                        Err(problem) => self.progress.println(&format!("  {problem}")),
                    }
                }
            }
            Ok(ElicitationAnswer::Accept(content))
        })
    }
}

/// How a field of a requested schema is shown: its type, its choices, whether it may be left
/// empty, and its description.
fn describe_field(field: &Value, required: bool) -> String {
    let mut parts = vec![field["type"].as_str().unwrap_or("string").to_owned()];
    if let Some(choices) = field["enum"].as_array() {
        let choices: Vec<&str> = choices.iter().filter_map(Value::as_str).collect();
        parts.push(format!("one of {}", choices.join(", ")));
    }
    if !required {
        parts.push("empty to skip".to_owned());
    }
    if let Some(description) = field["description"].as_str() {
        parts.push(description.to_owned());
    }
    parts.join("; ")
}

/// A typed line as the value of a field of the requested schema, or what is wrong with it.
fn field_value(line: &str, field: &Value) -> Result<Value, String> {
    match field["type"].as_str().unwrap_or("string") {
        "boolean" => match line.to_ascii_lowercase().as_str() {
            "y" | "yes" | "true" => Ok(Value::Bool(true)),
            "n" | "no" | "false" => Ok(Value::Bool(false)),
            _ => Err("answer yes or no".to_owned()),
        },
        "integer" => line
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| "answer a whole number".to_owned()),
        "number" => line
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number)
            .ok_or_else(|| "answer a number".to_owned()),
        _ => match field["enum"].as_array() {
            Some(choices) if !choices.iter().any(|choice| choice == line) => {
                let choices: Vec<&str> = choices.iter().filter_map(Value::as_str).collect();
                Err(format!("answer one of {}", choices.join(", ")))
            }
            _ if line.is_empty() => Err("this field is required".to_owned()),
            _ => Ok(Value::String(line.to_owned())),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typed_line_becomes_the_field_type_or_says_what_to_type() {
        let boolean = serde_json::json!({"type": "boolean"});
        assert_eq!(field_value("Yes", &boolean), Ok(Value::Bool(true)));
        assert_eq!(
            field_value("maybe", &boolean),
            Err("answer yes or no".to_owned())
        );
        let integer = serde_json::json!({"type": "integer"});
        assert_eq!(field_value("42", &integer), Ok(Value::from(42)));
        assert!(field_value("4.2", &integer).is_err());
        let number = serde_json::json!({"type": "number"});
        assert_eq!(field_value("4.5", &number), Ok(serde_json::json!(4.5)));
        let choice = serde_json::json!({"type": "string", "enum": ["main", "dev"]});
        assert_eq!(field_value("dev", &choice), Ok(Value::from("dev")));
        assert_eq!(
            field_value("prod", &choice),
            Err("answer one of main, dev".to_owned())
        );
        let text = serde_json::json!({"type": "string"});
        assert_eq!(
            field_value("", &text),
            Err("this field is required".to_owned())
        );
        assert_eq!(
            describe_field(&choice, false),
            "string; one of main, dev; empty to skip"
        );
    }

    #[test]
    fn answers_are_read_by_number_letter_or_word() {
        assert_eq!(parse_answer(" y "), Some(Answer::Once));
        assert_eq!(parse_answer("2"), Some(Answer::Always));
        assert_eq!(parse_answer("Deny"), Some(Answer::Deny));
        assert_eq!(parse_answer("maybe"), None);
    }
}
