//! [`ToolUseContext`]: what a running tool can see — its `tool_use` id, the abort signal, the
//! host state ([`Extensions`]) — and where it reports progress ([`ToolProgress`]).

use std::any::{Any, TypeId};
use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Arc, LazyLock, OnceLock};

use arrayvec::ArrayString;
use serde_json::{Map, Value};

pub use tokio_util::sync::CancellationToken;

/// Host state shared with tools: a map from a type to one value of that type.
///
/// Cloning is cheap (values are `Arc`s). Per-tool state lives here rather than in the tool, so
/// every tool registration stays a `const` value (DESIGN "What a user writes").
#[derive(Clone, Default)]
pub struct Extensions {
    values: HashMap<TypeId, Arc<dyn Any + Send + Sync>, BuildHasherDefault<TypeIdHasher>>,
}

/// Hashes a [`TypeId`] as the number it already is (a type's id is a hash made by the
/// compiler), instead of running SipHash over it on every insert and lookup.
#[derive(Default)]
struct TypeIdHasher(u64);

impl Hasher for TypeIdHasher {
    fn write(&mut self, bytes: &[u8]) {
        // `TypeId` writes a `u64` today; any other shape is folded in (FNV-1a).
        for byte in bytes {
            self.0 = (self.0 ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn write_u64(&mut self, value: u64) {
        self.0 ^= value;
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

impl Extensions {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// Stores `value`, replacing any earlier value of type `T`.
    pub fn insert<T: Any + Send + Sync>(&mut self, value: T) {
        self.values.insert(TypeId::of::<T>(), Arc::new(value));
    }

    /// Builder form of [`Extensions::insert`].
    #[must_use]
    pub fn with<T: Any + Send + Sync>(mut self, value: T) -> Self {
        self.insert(value);
        self
    }

    /// The value of type `T`, if the host stored one.
    pub fn get<T: Any + Send + Sync>(&self) -> Option<&T> {
        self.values
            .get(&TypeId::of::<T>())
            .and_then(|value| value.downcast_ref::<T>())
    }

    /// The value of type `T` as a shared handle, for moving into a blocking task or another
    /// thread.
    pub fn get_arc<T: Any + Send + Sync>(&self) -> Option<Arc<T>> {
        self.values
            .get(&TypeId::of::<T>())
            .and_then(|value| Arc::clone(value).downcast::<T>().ok())
    }

    /// Removes the value of type `T`; `true` when there was one.
    pub fn remove<T: Any + Send + Sync>(&mut self) -> bool {
        self.values.remove(&TypeId::of::<T>()).is_some()
    }

    /// How many values are stored.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// `true` when nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

impl fmt::Debug for Extensions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Extensions")
            .field("len", &self.values.len())
            .finish()
    }
}

/// One progress report of a running call, as the host receives it (SPEC §5.5: progress is
/// passed on at once, while the call still runs).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolProgress {
    /// The id of the `tool_use` block whose call reported it.
    pub tool_use_id: Arc<str>,
    /// The tool's progress value, serialised to JSON (the tool's own typed progress).
    pub data: Value,
}

/// Where a call's progress reports go: set by the host or orchestrator with
/// [`ToolUseContext::with_progress`]. Called on the tool's task; it must not block.
pub type ProgressSink = Arc<dyn Fn(ToolProgress) + Send + Sync>;

/// A `tool_use` id as a context holds it: ids of up to [`ToolUseId::INLINE_BYTES`] bytes (the
/// Anthropic API's `toolu_…` ids are 30 bytes, OpenAI Chat's `call_…` 29) are stored in place,
/// so making one for a call does not allocate; longer ones (OpenAI Responses' `fc_…`) go in a
/// shared `Arc<str>`. Cloning is a copy or a reference-count increment.
///
/// Made from `&str`, `String`, `&String`, `Box<str>`, `Cow<str>` or `Arc<str>` (an `Arc<str>`
/// is kept as it is, not copied). Compares and hashes as its text.
#[derive(Clone)]
pub struct ToolUseId(IdRepr);

#[derive(Clone)]
enum IdRepr {
    Inline(ArrayString<{ ToolUseId::INLINE_BYTES }>),
    Shared(Arc<str>),
}

impl ToolUseId {
    /// The longest id stored in place, in bytes.
    pub const INLINE_BYTES: usize = 30;

    // Inlined, so that the id is written where the caller keeps it: copied into a temporary
    // and moved from there in wider loads, it stalls the processor (a store that cannot be
    // forwarded), which cost about 10% of a no-op dispatch (`dispatch_paired`).
    #[inline]
    fn from_str_ref(id: &str) -> Self {
        match ArrayString::from(id) {
            Ok(inline) => Self(IdRepr::Inline(inline)),
            Err(_) => Self(IdRepr::Shared(Arc::from(id))),
        }
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            IdRepr::Inline(id) => id,
            IdRepr::Shared(id) => id,
        }
    }

    /// The id as a shared string (allocates for an id stored in place).
    pub fn to_arc(&self) -> Arc<str> {
        match &self.0 {
            IdRepr::Inline(id) => Arc::from(id.as_str()),
            IdRepr::Shared(id) => Arc::clone(id),
        }
    }
}

impl From<&str> for ToolUseId {
    #[inline]
    fn from(id: &str) -> Self {
        Self::from_str_ref(id)
    }
}

impl From<&String> for ToolUseId {
    #[inline]
    fn from(id: &String) -> Self {
        Self::from_str_ref(id)
    }
}

impl From<String> for ToolUseId {
    #[inline]
    fn from(id: String) -> Self {
        Self::from_str_ref(&id)
    }
}

impl From<Box<str>> for ToolUseId {
    #[inline]
    fn from(id: Box<str>) -> Self {
        Self::from_str_ref(&id)
    }
}

impl From<std::borrow::Cow<'_, str>> for ToolUseId {
    #[inline]
    fn from(id: std::borrow::Cow<'_, str>) -> Self {
        Self::from_str_ref(&id)
    }
}

impl From<&Arc<str>> for ToolUseId {
    fn from(id: &Arc<str>) -> Self {
        Self(IdRepr::Shared(Arc::clone(id)))
    }
}

impl AsRef<str> for ToolUseId {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl std::hash::Hash for ToolUseId {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl PartialEq<str> for ToolUseId {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for ToolUseId {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl From<Arc<str>> for ToolUseId {
    fn from(id: Arc<str>) -> Self {
        Self(IdRepr::Shared(id))
    }
}

impl std::ops::Deref for ToolUseId {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Debug for ToolUseId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for ToolUseId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq for ToolUseId {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for ToolUseId {}

/// What a tool receives for one call.
///
/// Built by the orchestrator for each `tool_use` block; cheap to clone.
pub struct ToolUseContext {
    tool_use_id: ToolUseId,
    /// Set by [`ToolUseContext::new`]; a [`ToolUseContext::detached`] context makes its token
    /// on first use, so a call that never looks at it pays nothing for it.
    abort: OnceLock<CancellationToken>,
    /// `None` for a detached context: no host state, and no reference count to touch.
    extensions: Option<Arc<Extensions>>,
    progress: Option<ProgressSink>,
}

/// The one empty [`Extensions`] every detached context shows.
static NO_EXTENSIONS: LazyLock<Extensions> = LazyLock::new(Extensions::new);

impl Clone for ToolUseContext {
    /// A context for the same call: same id, state and progress sink, and the same abort token
    /// (cancelling either cancels both).
    fn clone(&self) -> Self {
        Self {
            tool_use_id: self.tool_use_id.clone(),
            abort: OnceLock::from(self.abort().clone()),
            extensions: self.extensions.clone(),
            progress: self.progress.clone(),
        }
    }
}

impl fmt::Debug for ToolUseContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolUseContext")
            .field("tool_use_id", &self.tool_use_id)
            .field("aborted", &self.is_aborted())
            .field("extensions", self.extensions())
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

impl ToolUseContext {
    /// A context for the call `tool_use_id`, cancelled through `abort`, seeing `extensions`.
    pub fn new(
        tool_use_id: impl Into<ToolUseId>,
        abort: CancellationToken,
        extensions: Arc<Extensions>,
    ) -> Self {
        Self {
            tool_use_id: tool_use_id.into(),
            abort: OnceLock::from(abort),
            extensions: Some(extensions),
            progress: None,
        }
    }

    /// The same context, sending progress reports to `sink`.
    #[must_use]
    pub fn with_progress(mut self, sink: ProgressSink) -> Self {
        self.progress = Some(sink);
        self
    }

    /// Reports typed progress of this call to the host (SPEC §5.5): `progress` is serialised to
    /// JSON and delivered at once, tagged with this call's `tool_use_id`.
    ///
    /// Returns `false` when nobody listens (no sink was set) or `progress` does not serialise
    /// (for example a map with non-string keys); the call goes on either way.
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use tool_sdk::context::{ToolProgress, ToolUseContext};
    ///
    /// let seen: Arc<Mutex<Vec<ToolProgress>>> = Arc::default();
    /// let sink = Arc::clone(&seen);
    /// let ctx = ToolUseContext::detached("toolu_1")
    ///     .with_progress(Arc::new(move |p| sink.lock().unwrap().push(p)));
    /// assert!(ctx.report_progress(&serde_json::json!({"files_searched": 12})));
    /// assert_eq!(seen.lock().unwrap()[0].data["files_searched"], 12);
    /// assert_eq!(&*seen.lock().unwrap()[0].tool_use_id, "toolu_1");
    /// ```
    pub fn report_progress<P: serde::Serialize + ?Sized>(&self, progress: &P) -> bool {
        let Some(sink) = &self.progress else {
            return false;
        };
        match serde_json::to_value(progress) {
            Ok(data) => {
                sink(ToolProgress {
                    tool_use_id: self.tool_use_id.to_arc(),
                    data,
                });
                true
            }
            Err(_) => false,
        }
    }

    /// A context with no host state and its own abort token (nobody else holds it, so it is
    /// cancelled only through [`ToolUseContext::abort`]), for tests, one-off calls and hosts
    /// that dispatch without an orchestrator. Allocates nothing for an id of up to
    /// [`ToolUseId::INLINE_BYTES`] bytes: no state is held and the token is made on first
    /// use.
    pub fn detached(tool_use_id: impl Into<ToolUseId>) -> Self {
        Self {
            tool_use_id: tool_use_id.into(),
            abort: OnceLock::new(),
            extensions: None,
            progress: None,
        }
    }

    /// The id of the `tool_use` block being answered.
    pub fn tool_use_id(&self) -> &str {
        self.tool_use_id.as_str()
    }

    /// The abort signal: long-running tools should stop soon after it fires
    /// (`abort().cancelled().await`, or poll `is_cancelled()`).
    pub fn abort(&self) -> &CancellationToken {
        self.abort.get_or_init(CancellationToken::new)
    }

    /// `true` once the call was cancelled.
    pub fn is_aborted(&self) -> bool {
        self.abort
            .get()
            .is_some_and(CancellationToken::is_cancelled)
    }

    /// The host state.
    pub fn extensions(&self) -> &Extensions {
        self.extensions.as_deref().unwrap_or(&NO_EXTENSIONS)
    }

    /// The host's value of type `T`, if any.
    pub fn get<T: Any + Send + Sync>(&self) -> Option<&T> {
        self.extensions().get::<T>()
    }
}

/// Who made a request: the claims of its OAuth access token (a JWT, RFC 9068). A server that
/// checks access tokens (tool-registry's `mcp::serve::auth`) puts it in each call's context,
/// so a tool reads it with `ctx.get::<Principal>()`; `None` when the call came some other way
/// (a model's turn, an unauthenticated server).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Principal {
    /// The token's `sub`: the user (or, for a client-credentials token, often the client).
    pub subject: Option<String>,
    /// The client the token was issued to (`client_id`, else `azp`).
    pub client_id: Option<String>,
    /// The granted scopes (`scope`, space-separated, or `scp`).
    pub scopes: BTreeSet<String>,
    /// Every claim of the token, as signed.
    pub claims: Map<String, Value>,
}

impl Principal {
    /// The principal of a verified token's `claims`: `sub`, `client_id` (else `azp`), and
    /// the scopes of `scope` (space-separated) and `scp` (an array, or space-separated).
    pub fn from_claims(claims: Map<String, Value>) -> Self {
        let text = |name: &str| claims.get(name).and_then(Value::as_str).map(str::to_owned);
        let mut scopes = BTreeSet::new();
        if let Some(scope) = claims.get("scope").and_then(Value::as_str) {
            scopes.extend(scope.split_whitespace().map(str::to_owned));
        }
        match claims.get("scp") {
            Some(Value::Array(scp)) => {
                scopes.extend(scp.iter().filter_map(Value::as_str).map(str::to_owned));
            }
            // Some servers (Microsoft Entra ID) write `scp` as a space-separated string.
            Some(Value::String(scp)) => {
                scopes.extend(scp.split_whitespace().map(str::to_owned));
            }
            _ => {}
        }
        Self {
            subject: text("sub"),
            client_id: text("client_id").or_else(|| text("azp")),
            scopes,
            claims,
        }
    }

    /// Whether every scope of `needed` was granted.
    pub fn has_scopes(&self, needed: &[String]) -> bool {
        needed.iter().all(|scope| self.scopes.contains(scope))
    }
}
