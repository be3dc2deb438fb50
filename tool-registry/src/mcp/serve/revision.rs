//! Which MCP revision a request speaks, read where the request carries it: a 2026-07-28
//! request names its revision in its `_meta` and belongs to no session; any other has the
//! revision rmcp recorded for its peer (its session's `initialize`, or for a request without
//! one, its `MCP-Protocol-Version` header).

use std::borrow::Cow;
use std::sync::LazyLock;

use rmcp::model::ProtocolVersion;
use rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;

/// Whether a request of protocol `version` speaks MCP 2026-07-28 or later (no session).
pub(super) fn is_stateless(version: Option<&str>) -> bool {
    version.is_some_and(|version| version >= ProtocolVersion::V_2026_07_28.as_str())
}

/// The request's protocol version, as [`RequestContext::protocol_version`] reads it (its
/// `_meta` `io.modelcontextprotocol/protocolVersion`, else the version rmcp recorded for the
/// peer), but borrowed from the request where it is written there.
pub(super) fn protocol_version(context: &RequestContext<RoleServer>) -> Option<Cow<'_, str>> {
    match context
        .meta
        .0
        .0
        .get("io.modelcontextprotocol/protocolVersion")
    {
        Some(Value::String(version)) => Some(Cow::Borrowed(version)),
        _ => context
            .protocol_version()
            .map(|version| version.as_str().to_owned().into()),
    }
}

/// Every revision up to MCP 2026-07-28 (rmcp asks for them for every request that names its
/// revision in its `_meta`, and at `initialize`).
pub(super) static SUPPORTED_VERSIONS: LazyLock<&[ProtocolVersion]> =
    LazyLock::new(|| ProtocolVersion::known_up_to(&ProtocolVersion::V_2026_07_28));
