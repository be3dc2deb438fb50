//! The permission prompt of `tool-host chat` (SPEC §6, the host's `canUseTool`): when a call's
//! permission check ends in "ask", the user answers on the terminal: allow once, allow this
//! tool for the rest of the session, or deny. Without a terminal the call is denied. A denial
//! reaches the model as the reference's rejection result.

use std::collections::HashSet;
use std::io::IsTerminal as _;
use std::sync::{Arc, Mutex, PoisonError};

use futures::future::BoxFuture;
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};
use tool_registry::orchestration::messages::{REJECT_MESSAGE, approval_unavailable};
use tool_registry::permissions::{CanUseTool, HostAnswer, PermissionRequest};

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
}

impl Lines {
    /// Starts reading standard input.
    pub fn spawn() -> Arc<Self> {
        let (sender, receiver) = unbounded_channel();
        std::thread::spawn(move || {
            for line in std::io::stdin().lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Arc::new(Self {
            receiver: tokio::sync::Mutex::new(receiver),
        })
    }

    /// The next line, `None` at the end of input.
    pub async fn next(&self) -> Option<String> {
        self.receiver.lock().await.recv().await
    }
}

/// The [`CanUseTool`] of the chat: asks on standard input, or denies.
pub struct Asker {
    lines: Option<Arc<Lines>>,
    progress: Arc<Progress>,
    /// Tools allowed for the rest of the session (primary names).
    always: Mutex<HashSet<String>>,
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

impl Asker {
    /// Asks on `lines` when given, otherwise denies; questions are printed through
    /// `progress` so they do not break the spinners.
    pub fn new(lines: Option<Arc<Lines>>, progress: Arc<Progress>) -> Self {
        Self {
            lines,
            progress,
            always: Mutex::new(HashSet::new()),
            asking: tokio::sync::Mutex::new(()),
        }
    }

    fn allowed_always(&self, tool: &str) -> bool {
        self.always
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(tool)
    }

    async fn ask(&self, request: &PermissionRequest<'_>) -> HostAnswer {
        let name = request.tool.name().to_owned();
        let Some(lines) = &self.lines else {
            self.progress.println(&format!(
                "denied {name}: it needs approval and there is no terminal to ask on \
                 (pass --allow {name} to allow it)"
            ));
            return HostAnswer::Deny {
                message: approval_unavailable(&name, "No terminal was attached to ask the user."),
            };
        };
        let _one_at_a_time = self.asking.lock().await;
        if self.allowed_always(&name) {
            return HostAnswer::Allow {
                updated_input: None,
            };
        }
        let call = request.call.render_tool_use_message(request.input);
        self.progress.println(&format!(
            "\n{} {call}\n  1) allow once   2) allow {name} for this session   3) deny\n  answer [1/2/3]:",
            request.message
        ));
        loop {
            let Some(line) = lines.next().await else {
                return HostAnswer::Deny {
                    message: REJECT_MESSAGE.to_owned(),
                };
            };
            match parse_answer(&line) {
                Some(Answer::Once) => {
                    return HostAnswer::Allow {
                        updated_input: None,
                    };
                }
                Some(Answer::Always) => {
                    self.always
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .insert(name);
                    return HostAnswer::Allow {
                        updated_input: None,
                    };
                }
                Some(Answer::Deny) => {
                    return HostAnswer::Deny {
                        message: REJECT_MESSAGE.to_owned(),
                    };
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
            if self.allowed_always(request.tool.name()) {
                return HostAnswer::Allow {
                    updated_input: None,
                };
            }
            self.ask(&request).await
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_read_by_number_letter_or_word() {
        assert_eq!(parse_answer(" y "), Some(Answer::Once));
        assert_eq!(parse_answer("2"), Some(Answer::Always));
        assert_eq!(parse_answer("Deny"), Some(Answer::Deny));
        assert_eq!(parse_answer("maybe"), None);
    }
}
