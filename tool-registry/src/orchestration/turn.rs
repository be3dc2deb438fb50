//! What the host hands to a turn ([`TurnState`]) and the stop signals each call watches
//! (SPEC §5.4 step 2, §5.5).

use std::sync::{Arc, OnceLock};

use tool_sdk::{CancellationToken, Extensions, InterruptBehavior};

use crate::messages;

/// What the host hands to a turn: the state tools may read and change, and the two stop
/// signals (SPEC §5.5).
#[derive(Debug, Clone, Default)]
pub struct TurnState {
    /// Host state. Context modifiers returned by tools edit it (SPEC §5.2).
    pub extensions: Extensions,
    /// A hard abort. Calls not yet started answer with the cancel message (SPEC §5.4 step 2);
    /// running calls are stopped and answer with the reject message (SPEC §5.5), whatever
    /// their `interrupt_behavior`.
    pub abort: CancellationToken,
    /// A user interrupt (the user sent a new message). Calls not yet started answer with the
    /// cancel message; running calls whose `interrupt_behavior` is `Cancel` are stopped with
    /// the reject message; running `Block` calls finish normally (SPEC §5.5).
    pub interrupt: CancellationToken,
}

/// The stop signals one call watches.
#[derive(Clone)]
pub(crate) struct Signals {
    pub(crate) abort: CancellationToken,
    /// `None`: nothing interrupts the call (a served MCP call has only its abort).
    pub(crate) interrupt: Option<CancellationToken>,
    pub(crate) sibling: Option<SiblingAbort>,
    /// The token the call's tool sees, when its caller made it (a child of `abort`); `None`:
    /// the call makes one.
    pub(crate) call_token: Option<CancellationToken>,
}

impl Signals {
    pub(crate) fn of(turn: &TurnState) -> Self {
        Self {
            abort: turn.abort.clone(),
            interrupt: Some(turn.interrupt.clone()),
            sibling: None,
            call_token: None,
        }
    }

    /// The signals of a call that only `abort` stops; `call_token`, when given, is the token
    /// its tool sees (a child of `abort` the caller keeps, to cancel the tool's work with).
    #[cfg(feature = "mcp-server")]
    pub(crate) fn abort_only(
        abort: CancellationToken,
        call_token: Option<CancellationToken>,
    ) -> Self {
        Self {
            abort,
            interrupt: None,
            sibling: None,
            call_token,
        }
    }

    /// The token the call's tool sees, cancelled when the call is stopped: the one its caller
    /// made, or a child of the abort token (a tool that cancels its own token, or a call
    /// stopped by an interrupt or a sibling's failure, does not cancel the abort).
    pub(crate) fn call_token(&self) -> CancellationToken {
        match &self.call_token {
            Some(token) => token.clone(),
            None => self.abort.child_token(),
        }
    }

    /// Whether the turn was interrupted.
    pub(crate) fn interrupted(&self) -> bool {
        self.interrupt
            .as_ref()
            .is_some_and(CancellationToken::is_cancelled)
    }

    /// Resolves with the error text once a running call whose tool answers `behavior` must
    /// stop (SPEC §5.5).
    pub(crate) async fn stopped_while_running(&self, behavior: InterruptBehavior) -> String {
        let interrupt = async {
            match behavior {
                InterruptBehavior::Cancel => match &self.interrupt {
                    Some(interrupt) => interrupt.cancelled().await,
                    None => std::future::pending().await,
                },
                InterruptBehavior::Block => std::future::pending().await,
            }
        };
        let sibling = async {
            match &self.sibling {
                Some(sibling) => {
                    sibling.token.cancelled().await;
                    sibling.message()
                }
                None => std::future::pending().await,
            }
        };
        // A hard abort wins over an interrupt, and both over a sibling failure.
        tokio::select! {
            biased;
            () = self.abort.cancelled() => messages::REJECT_MESSAGE.to_owned(),
            () = interrupt => messages::REJECT_MESSAGE.to_owned(),
            text = sibling => text,
        }
    }
}

/// Fired when a shell-class call fails in the streaming executor; carries the failed call's
/// `NAME(summary)`.
#[derive(Clone, Default)]
pub(crate) struct SiblingAbort {
    pub(crate) token: CancellationToken,
    pub(crate) description: Arc<OnceLock<Option<String>>>,
}

impl SiblingAbort {
    pub(crate) fn fire(&self, description: Option<String>) {
        let _ = self.description.set(description);
        self.token.cancel();
    }

    pub(crate) fn message(&self) -> String {
        messages::sibling_errored(self.description.get().cloned().flatten().as_deref())
    }
}
