//! Process-wide memos of values built once and kept for the rest of the process.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{PoisonError, RwLock};

/// The value `memo` holds for `key`, else `build()`, inserted and leaked. `build` runs with no
/// lock held, so it may itself read any memo (a schema may be made from another type's);
/// when two threads build the same key at once, the first to insert wins and only its value is
/// leaked. Callers bound a memo by keys that name types, so what it leaks is bounded too.
pub(crate) fn memoised<K: Eq + Hash, V: Send + Sync>(
    memo: &RwLock<HashMap<K, &'static V>>,
    key: K,
    build: impl FnOnce() -> V,
) -> &'static V {
    let known = memo
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&key)
        .copied();
    if let Some(value) = known {
        return value;
    }
    let built = build();
    memo.write()
        .unwrap_or_else(PoisonError::into_inner)
        .entry(key)
        .or_insert_with(|| Box::leak(Box::new(built)))
}
