//! What a served call asks its client (elicitation, sampling, roots), in the shape of the
//! call's revision:
//!
//! - MCP 2025-11-25 (a session): a server-to-client request over the session, answered while
//!   the tool waits.
//! - MCP 2026-07-28 (stateless, SEP-2322 multi round-trip requests): the server cannot wait
//!   for the client, so the first question ends the call with an `InputRequiredResult`
//!   listing every question the tool has asked so far (`inputRequests`, keyed by the names
//!   the tool gave them, or `q1`, `q2`, ... in the order asked: a tool does not name its own
//!   questions so) and a sealed `requestState` holding the answers given in earlier rounds
//!   and the names of the questions asked (answers to anything else are ignored). The client answers and retries with `inputResponses` and the state; the tool
//!   runs again from the start and its questions are answered from them in the same order,
//!   until it asks one more or finishes. So a tool asks its questions in the same order on
//!   every run, and before any side effect it would not want repeated.
//!
//! The state is signed (HMAC-SHA256, rmcp's `RequestStateCodec`, with a key made when the
//! server starts), bound to the tool's name and arguments, and valid for an hour: a state
//! that was changed, is replayed against another call, has expired, or was made by another
//! server process is refused with `-32602` before the tool runs. It is
//! signed, not encrypted: the answers in it are readable by the client that gave them.

use std::collections::BTreeMap;
use std::sync::Mutex;

use rmcp::ErrorData;
use rmcp::model::{
    InputRequest, InputRequests, InputRequiredResult, InputResponses, RequestStateCodec,
    RequestStateError, SealOptions,
};
use serde_json::Value;
use tokio::sync::Notify;

/// A new signing key for request states: 32 random bytes.
pub(crate) fn new_codec() -> RequestStateCodec {
    RequestStateCodec::new_unchecked(random_bytes::<32>().to_vec())
}

/// `N` random bytes (`N` a multiple of 8): the system's, or when it has none to give
/// directly, the standard library's randomly keyed hasher (which draws its keys from the
/// system in its own way) over a counter.
pub(crate) fn random_bytes<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    if getrandom::fill(&mut bytes).is_err() {
        use std::hash::{BuildHasher as _, Hasher as _};
        let state = std::collections::hash_map::RandomState::new();
        for (index, chunk) in bytes.chunks_mut(8).enumerate() {
            let mut hasher = state.build_hasher();
            hasher.write_usize(index);
            chunk.copy_from_slice(&hasher.finish().to_le_bytes()[..chunk.len()]);
        }
    }
    bytes
}

/// What a state is bound to: the method, the tool and its arguments (as compact JSON with
/// every object's keys in byte order, so the client's key order does not matter).
pub(crate) fn binding(tool: &str, arguments: &Value) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(512);
    bytes.extend_from_slice(b"tools/call\n");
    bytes.extend_from_slice(tool.as_bytes());
    bytes.push(b'\n');
    write_canonical(&mut bytes, arguments);
    bytes
}

/// The most keys of an object whose entries [`write_canonical`] sorts without allocating.
const SORTED_ON_STACK: usize = 16;

/// `value` as compact JSON with every object's keys in byte order.
fn write_canonical(out: &mut Vec<u8>, value: &Value) {
    fn write_entry(out: &mut Vec<u8>, first: bool, key: &str, value: &Value) {
        if !first {
            out.push(b',');
        }
        write_str(out, key);
        out.push(b':');
        write_canonical(out, value);
    }
    match value {
        Value::Object(map) => {
            out.push(b'{');
            if map.keys().is_sorted() {
                for (index, (key, value)) in map.iter().enumerate() {
                    write_entry(out, index == 0, key, value);
                }
            } else if map.len() <= SORTED_ON_STACK {
                // The usual small object: its entries sorted in place on the stack.
                const EMPTY: (&str, &Value) = ("", &Value::Null);
                let mut entries = [EMPTY; SORTED_ON_STACK];
                for (slot, (key, value)) in entries.iter_mut().zip(map) {
                    *slot = (key.as_str(), value);
                }
                let entries = &mut entries[..map.len()];
                entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
                for (index, (key, value)) in entries.iter().enumerate() {
                    write_entry(out, index == 0, key, value);
                }
            } else {
                let mut entries: Vec<(&String, &Value)> = map.iter().collect();
                entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
                for (index, (key, value)) in entries.into_iter().enumerate() {
                    write_entry(out, index == 0, key, value);
                }
            }
            out.push(b'}');
        }
        Value::Array(items) => {
            out.push(b'[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(b',');
                }
                write_canonical(out, item);
            }
            out.push(b']');
        }
        Value::String(text) => write_str(out, text),
        scalar => write_json(out, scalar),
    }
}

/// A string as serde_json writes it: as it is between quotes when nothing in it needs an
/// escape (the common case, written without serde_json's per-byte escaping).
fn write_str(out: &mut Vec<u8>, text: &str) {
    if text
        .bytes()
        .all(|byte| byte >= 0x20 && byte != b'"' && byte != b'\\')
    {
        out.reserve(text.len() + 2);
        out.push(b'"');
        out.extend_from_slice(text.as_bytes());
        out.push(b'"');
    } else {
        write_json(out, text);
    }
}

/// A string or scalar as serde_json writes it (writing to a `Vec` cannot fail).
fn write_json<T: serde::Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) {
    let _ = serde_json::to_writer(&mut *out, value);
}

/// How long a sealed state stays valid: a person may take a while to answer.
const STATE_LIFETIME: std::time::Duration = std::time::Duration::from_secs(3600);

/// What a `requestState` holds: the answers of the rounds so far, and the questions the last
/// round asked (the only ones whose answers the next round takes).
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct State {
    answers: BTreeMap<String, Value>,
    open: Vec<String>,
}

/// One round of a 2026-07-28 call: the answers known so far and the questions still open.
#[derive(Debug)]
pub(crate) struct Rounds {
    answers: BTreeMap<String, Value>,
    open: Mutex<InputRequests>,
    wake: Notify,
}

impl Rounds {
    /// The answers of earlier rounds (from the verified `state`, bound to `binding`, what
    /// [`binding`] wrote for this call) and of this one (`responses`; an answer that is not a
    /// JSON object counts as none, so its question is asked again).
    ///
    /// # Errors
    /// `-32602` when `state` fails verification (changed, or made for another call); an
    /// internal error for a `state` without a `binding` to verify it against.
    pub(crate) fn open(
        codec: &RequestStateCodec,
        state: Option<&str>,
        binding: Option<&[u8]>,
        responses: Option<&InputResponses>,
    ) -> Result<Self, ErrorData> {
        let state = match (state, binding) {
            (Some(sealed), Some(binding)) => Some((sealed, binding)),
            (Some(_), None) => {
                return Err(ErrorData::internal_error(
                    "a requestState came without the call's binding to verify it against",
                    None,
                ));
            }
            (None, _) => None,
        };
        let State { mut answers, open } = match state {
            Some((sealed, binding)) => codec.open_json_with(sealed, binding).map_err(|error| {
                let why = match error {
                    RequestStateError::Expired => {
                        "requestState has expired (it is kept for an hour): make the call \
                         again without requestState and inputResponses"
                    }
                    _ => {
                        "requestState failed integrity verification: it was changed, was made \
                         for another call, or by another server process (a restart, or a \
                         replica without the same McpServer::with_request_state_key). Send \
                         back the requestState of this call's last InputRequiredResult \
                         unchanged, or make the call again without it"
                    }
                };
                ErrorData::invalid_params(why, None)
            })?,
            None => State::default(),
        };
        // Only answers to the questions the last round asked count; an answer that is not a
        // JSON object counts as none, so its question is asked again.
        for (key, value) in responses.into_iter().flatten() {
            if value.is_object() && open.contains(key) {
                answers.entry(key.clone()).or_insert_with(|| value.clone());
            }
        }
        Ok(Self {
            answers,
            open: Mutex::new(InputRequests::new()),
            wake: Notify::new(),
        })
    }

    /// The answer to the question `id`, or, when this round has none, `None`: the question is
    /// recorded and the call ends with it.
    pub(crate) fn answer_or_record(&self, id: String, request: InputRequest) -> Option<Value> {
        if let Some(answer) = self.answers.get(&id) {
            return Some(answer.clone());
        }
        self.open
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id, request);
        self.wake.notify_one();
        None
    }

    /// Whether the call has asked a question this round cannot answer.
    pub(crate) fn has_open(&self) -> bool {
        !self
            .open
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_empty()
    }

    /// Resolves once the tool has asked a question this round cannot answer.
    pub(crate) async fn asked(&self) {
        self.wake.notified().await;
    }

    /// The call's answer for now: the open questions and the sealed answers so far.
    ///
    /// # Errors
    /// An internal error when the answers cannot be sealed.
    pub(crate) fn input_required(
        &self,
        codec: &RequestStateCodec,
        binding: &[u8],
    ) -> Result<InputRequiredResult, ErrorData> {
        let open = std::mem::take(&mut *self.open.lock().unwrap_or_else(|e| e.into_inner()));
        let state = State {
            answers: self.answers.clone(),
            open: open.keys().cloned().collect(),
        };
        let sealed = codec
            .seal_json_with(
                &state,
                &SealOptions::new()
                    .associated_data(binding)
                    .ttl(STATE_LIFETIME),
            )
            .map_err(|error| {
                ErrorData::internal_error(format!("cannot seal the request state: {error}"), None)
            })?;
        Ok(InputRequiredResult::new(Some(open), Some(sealed)))
    }
}

/// How long a call that asked a question this round cannot answer keeps running, so that
/// questions it asks at the same time (`join!`) go out in the same round.
pub(crate) const ASK_GRACE: std::time::Duration = std::time::Duration::from_millis(20);

/// `run`'s outcome, or `None` once the tool has asked a question `rounds` cannot answer (and
/// [`ASK_GRACE`] has passed without the run finishing); the run is then still alive, and the
/// caller drops it to stop the tool. `run` is pinned by the caller: taken by value, it would
/// be stored twice in this future (the argument and its pinned copy), and a served call's run
/// is its largest part.
pub(crate) async fn until_asked<F: Future>(
    mut run: std::pin::Pin<&mut F>,
    rounds: &Rounds,
) -> Option<F::Output> {
    tokio::select! {
        biased;
        outcome = run.as_mut() => return Some(outcome),
        () = rounds.asked() => {}
    }
    tokio::time::timeout(ASK_GRACE, run).await.ok()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use proptest::prelude::*;
    use serde_json::{Value, json};

    use super::binding;

    /// The binding as a sorted map written by serde_json: what `binding` must equal byte for
    /// byte (a state sealed before and opened after an upgrade still verifies).
    fn reference(tool: &str, arguments: &Value) -> Vec<u8> {
        fn canonical(value: &Value) -> Value {
            match value {
                Value::Object(map) => {
                    let sorted: BTreeMap<&String, Value> = map
                        .iter()
                        .map(|(key, value)| (key, canonical(value)))
                        .collect();
                    serde_json::to_value(sorted).unwrap()
                }
                Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
                other => other.clone(),
            }
        }
        format!("tools/call\n{tool}\n{}", canonical(arguments)).into_bytes()
    }

    #[test]
    fn the_binding_is_sorted_compact_json_whatever_the_key_order() {
        let arguments = json!({
            "z": [1, -2, 2.5, 1e300, null, true, {"b": "q\"uote", "a": "back\\slash"}],
            "a": {"é": "tab\there", "E": "\u{1}control", "": "ünïcödé ✓"},
            "m": "plain"
        });
        assert_eq!(binding("Tool", &arguments), reference("Tool", &arguments));
        let reordered = json!({"m": "plain", "a": arguments["a"], "z": arguments["z"]});
        assert_eq!(binding("Tool", &reordered), binding("Tool", &arguments));
    }

    #[test]
    fn objects_on_either_side_of_the_stack_sort_are_written_sorted() {
        for keys in [1, 2, 15, 16, 17, 40] {
            // Keys in descending order, so every object needs sorting.
            let map: serde_json::Map<String, Value> = (0..keys)
                .rev()
                .map(|key| (format!("k{key:02}"), json!({"z": key, "a": [key]})))
                .collect();
            let arguments = json!({"outer": Value::Object(map)});
            assert_eq!(
                binding("t", &arguments),
                reference("t", &arguments),
                "{keys} keys"
            );
        }
    }

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(Value::from),
            any::<String>().prop_map(Value::String),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                // Past 16 keys an object is sorted on the heap, not the stack.
                prop::collection::vec((any::<String>(), inner), 0..20)
                    .prop_map(|entries| Value::Object(entries.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn the_binding_equals_the_sorted_map_written_by_serde_json(arguments in json_value()) {
            prop_assert_eq!(binding("t", &arguments), reference("t", &arguments));
        }
    }
}
