//! MCP 2025-11-25 sessions ended on another replica end here too.
//!
//! With a shared session store ([`HttpOptions::session_store`](super::HttpOptions)), rmcp
//! restores a session this replica does not hold from the store, and serves one it holds
//! from memory without asking the store again. So a session ended through another replica
//! (its `DELETE`, which removes it from the store) or dropped by the store (expired) would
//! still be served here. Before rmcp serves a request of a session this replica holds,
//! [`EndedElsewhere::check`] asks the store whether the session is still there (at most once
//! per [`CHECK_EVERY`] per session) and, when it is not, ends the session here: its streams
//! close, and rmcp answers the request as it answers any unknown session, `404 Not Found`
//! (MCP 2025-11-25, basic/transports, "Session Management": a server that ended a session
//! answers its requests `404`, and the client starts a new one).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::{SessionManager, SessionStore};

/// How often one session is looked up in the store, at most, on one replica: a session
/// ended elsewhere is ended here within this time of its next request here.
pub(super) const CHECK_EVERY: Duration = Duration::from_secs(1);

/// How long a lookup may take before the session is served from memory for this time
/// (a store that is down must not hold up the sessions that are live).
const LOOKUP_TIMEOUT: Duration = Duration::from_secs(1);

/// Sessions this map may hold before it drops the lookups older than [`CHECK_EVERY`].
const PRUNE_ABOVE: usize = 1024;

/// The store's view of the sessions this replica holds.
pub(super) struct EndedElsewhere {
    store: Arc<dyn SessionStore>,
    /// When each session was last found in the store (or its lookup failed).
    looked_up: Mutex<HashMap<Arc<str>, Instant>>,
}

impl EndedElsewhere {
    pub(super) fn new(store: Arc<dyn SessionStore>) -> Self {
        Self {
            store,
            looked_up: Mutex::new(HashMap::new()),
        }
    }

    /// Before rmcp serves `request`: a request of session `Mcp-Session-Id` that `sessions`
    /// holds, whose session the store no longer has, ends the session in `sessions`. A
    /// `DELETE` is left to rmcp (it ends the session here and in the store); a session
    /// `sessions` does not hold is rmcp's to restore from the store or refuse.
    pub(super) async fn check<B>(
        &self,
        request: &hyper::Request<B>,
        sessions: &LocalSessionManager,
    ) {
        if request.method() == hyper::Method::DELETE {
            return;
        }
        let Some(id) = request
            .headers()
            .get("mcp-session-id")
            .and_then(|value| value.to_str().ok())
        else {
            return;
        };
        let id: Arc<str> = Arc::from(id);
        if self.recently(&id) || !sessions.has_session(&id).await.unwrap_or(false) {
            return;
        }
        match tokio::time::timeout(LOOKUP_TIMEOUT, self.store.load(&id)).await {
            Ok(Ok(Some(_))) => self.found(id),
            Ok(Ok(None)) => {
                self.forget(&id);
                tracing::info!(
                    session = %id,
                    "MCP session ended: the session store no longer has it (ended through \
                     another replica, or expired there)"
                );
                if let Err(error) = sessions.close_session(&id).await {
                    tracing::warn!(session = %id, %error, "MCP session: could not end it");
                }
            }
            Ok(Err(error)) => {
                tracing::warn!(
                    session = %id, %error,
                    "MCP session store unreachable: the session is served from memory"
                );
                self.found(id);
            }
            Err(_) => {
                tracing::warn!(
                    session = %id,
                    "MCP session store did not answer within {LOOKUP_TIMEOUT:?}: the \
                     session is served from memory"
                );
                self.found(id);
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Arc<str>, Instant>> {
        self.looked_up.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether `id` was looked up less than [`CHECK_EVERY`] ago.
    fn recently(&self, id: &str) -> bool {
        self.lock()
            .get(id)
            .is_some_and(|at| at.elapsed() < CHECK_EVERY)
    }

    fn found(&self, id: Arc<str>) {
        let now = Instant::now();
        let mut looked_up = self.lock();
        if looked_up.len() >= PRUNE_ABOVE {
            // An entry older than the check interval decides nothing: drop them all, so
            // the map holds only the sessions served in the last interval.
            looked_up.retain(|_, at| now.duration_since(*at) < CHECK_EVERY);
        }
        looked_up.insert(id, now);
    }

    fn forget(&self, id: &str) {
        self.lock().remove(id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::transport::streamable_http_server::session::{SessionState, SessionStoreError};
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A store that has no session, or fails, counting its lookups.
    struct Store {
        fails: bool,
        loads: AtomicUsize,
    }

    #[async_trait::async_trait]
    impl SessionStore for Store {
        async fn load(&self, _: &str) -> Result<Option<SessionState>, SessionStoreError> {
            self.loads.fetch_add(1, Ordering::SeqCst);
            if self.fails {
                Err("connection refused".into())
            } else {
                Ok(None)
            }
        }
        async fn store(&self, _: &str, _: &SessionState) -> Result<(), SessionStoreError> {
            Ok(())
        }
        async fn delete(&self, _: &str) -> Result<(), SessionStoreError> {
            Ok(())
        }
    }

    fn request(method: hyper::Method, session: Option<&str>) -> hyper::Request<()> {
        let mut request = hyper::Request::builder().method(method).uri("/mcp");
        if let Some(session) = session {
            request = request.header("mcp-session-id", session);
        }
        request.body(()).unwrap()
    }

    #[tokio::test]
    async fn the_store_is_asked_only_of_held_sessions_and_not_for_a_delete() {
        let store = Arc::new(Store {
            fails: false,
            loads: AtomicUsize::new(0),
        });
        let ended = EndedElsewhere::new(store.clone());
        let sessions = LocalSessionManager::default();
        ended
            .check(&request(hyper::Method::POST, None), &sessions)
            .await;
        ended
            .check(&request(hyper::Method::POST, Some("unknown")), &sessions)
            .await;
        let (id, _transport) = sessions.create_session().await.unwrap();
        ended
            .check(&request(hyper::Method::DELETE, Some(&id)), &sessions)
            .await;
        assert_eq!(store.loads.load(Ordering::SeqCst), 0);
        assert!(sessions.has_session(&id).await.unwrap());

        ended
            .check(&request(hyper::Method::GET, Some(&id)), &sessions)
            .await;
        assert_eq!(store.loads.load(Ordering::SeqCst), 1);
        assert!(
            !sessions.has_session(&id).await.unwrap(),
            "a held session the store no longer has is ended here"
        );
    }

    #[tokio::test]
    async fn a_store_that_fails_leaves_the_session_served_and_is_asked_once_an_interval() {
        let store = Arc::new(Store {
            fails: true,
            loads: AtomicUsize::new(0),
        });
        let ended = EndedElsewhere::new(store.clone());
        let sessions = LocalSessionManager::default();
        let (id, _transport) = sessions.create_session().await.unwrap();
        for _ in 0..3 {
            ended
                .check(&request(hyper::Method::POST, Some(&id)), &sessions)
                .await;
        }
        assert!(sessions.has_session(&id).await.unwrap());
        assert_eq!(store.loads.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn old_lookups_are_dropped_once_many() {
        let ended = EndedElsewhere::new(Arc::new(Store {
            fails: false,
            loads: AtomicUsize::new(0),
        }));
        let long_ago = Instant::now() - 2 * CHECK_EVERY;
        ended
            .lock()
            .extend((0..PRUNE_ABOVE).map(|n| (Arc::from(format!("old-{n}").as_str()), long_ago)));
        ended.found(Arc::from("new"));
        assert_eq!(ended.lock().len(), 1);
        assert!(ended.recently("new"));
        assert!(!ended.recently("old-1"));
    }
}
