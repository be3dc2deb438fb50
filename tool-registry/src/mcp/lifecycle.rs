//! How a connection to an MCP server starts and stays informed: the lifecycle (MCP
//! 2026-07-28 `server/discover` first, `initialize` with 2025-11-25 for older servers), why a
//! start failed (a discovery answer that cannot be read is retried with `initialize`), and the
//! `subscriptions/listen` stream that announces a 2026-07-28 server's tool list changes.

use rmcp::model::{ProtocolVersion, ServerNotification, SubscriptionFilter};
use rmcp::service::Subscription;
use rmcp::{ClientLifecycleMode, Peer, RoleClient};

/// How a connection starts: `server/discover` offering MCP 2026-07-28 first (stateless, each
/// request carrying its own `_meta`), and `initialize` with 2025-11-25 when the server answers
/// that it does not know the method or the version (rmcp's `Auto` lifecycle; a server that
/// does not answer at all is given up on after 10 s, within the caller's own bound).
pub(crate) fn lifecycle() -> ClientLifecycleMode {
    ClientLifecycleMode::Auto {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        legacy_version: Some(ProtocolVersion::V_2025_11_25),
    }
}

/// For a server that speaks MCP 2026-07-28 and announces tool list changes, a
/// `subscriptions/listen` stream for them (the revision's only way to hear them); `None`
/// otherwise. Dropping it cancels the stream, so the server ends it at once.
pub(crate) async fn listen_for_list_changes(peer: &Peer<RoleClient>) -> Option<Subscription> {
    let info = peer.peer_info()?;
    let modern = info.protocol_version.as_str() >= ProtocolVersion::V_2026_07_28.as_str();
    let announces = info
        .capabilities
        .tools
        .as_ref()
        .is_some_and(|tools| tools.list_changed == Some(true));
    if !modern || !announces {
        return None;
    }
    let filter = SubscriptionFilter::builder().tools_list_changed().build();
    match tokio::time::timeout(LISTEN_TIMEOUT, peer.listen(filter)).await {
        Ok(Ok(subscription)) => Some(subscription),
        Ok(Err(error)) => {
            tracing::warn!(
                "subscriptions/listen refused ({error}); tool list changes will not be heard"
            );
            None
        }
        Err(_) => {
            tracing::warn!(
                "subscriptions/listen not acknowledged within {} s; tool list changes will not be heard",
                LISTEN_TIMEOUT.as_secs()
            );
            None
        }
    }
}

/// How long the import waits for a `subscriptions/listen` acknowledgment: the server's tools
/// are listed by then, so a server that never acknowledges still connects.
const LISTEN_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(2);

/// Resolves when `subscription` announces a tool list change; never when there is none or it
/// has ended (it is then set to `None`).
pub(crate) async fn next_list_change(subscription: &mut Option<Subscription>) {
    if let Some(stream) = subscription {
        loop {
            match stream.next().await {
                Ok(Some(ServerNotification::ToolListChangedNotification(_))) => return,
                Ok(Some(_)) => {}
                Ok(None) | Err(_) => break,
            }
        }
        tracing::warn!(
            "the subscriptions/listen stream ended; tool list changes are no longer heard"
        );
        *subscription = None;
    }
    std::future::pending().await
}

/// Why [`connect_with`] failed.
pub(crate) enum Failure {
    /// The server answered the start of the connection with something that cannot be read.
    Unreadable(String),
    /// Anything else: cancelled, not started, not reached, refused.
    Other(String),
}

impl Failure {
    pub(crate) fn message(self) -> String {
        match self {
            Self::Unreadable(message) | Self::Other(message) => message,
        }
    }
}

impl From<String> for Failure {
    fn from(message: String) -> Self {
        Self::Other(message)
    }
}

pub(crate) fn start_failed(error: rmcp::service::ClientInitializeError) -> Failure {
    use rmcp::service::ClientInitializeError as E;
    let unreadable = matches!(
        error,
        E::ExpectedInitResponse(_)
            | E::ExpectedInitResult(_)
            | E::JsonRpcError(_)
            | E::NoCompatibleProtocolVersion { .. }
            | E::LegacyFallbackFailed { .. }
    );
    let message = format!("initialize failed: {error}");
    if unreadable {
        Failure::Unreadable(message)
    } else {
        Failure::Other(message)
    }
}
