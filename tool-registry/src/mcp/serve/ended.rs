//! MCP 2025-11-25 sessions ended on another replica end here too.
//!
//! With a shared session store ([`HttpOptions::session_store`](super::HttpOptions)), rmcp
//! restores a session this replica does not hold from the store, and serves one it holds
//! from memory without asking the store again. So a session ended through another replica
//! (the client's `DELETE`, which removes it from the store) would still be served here.
//! [`EndedElsewhere`] closes that gap around rmcp's handling of each request that names a
//! session:
//!
//! - **Before** ([`EndedElsewhere::before`]): a request of a session this replica holds
//!   looks the session up in the store, at most once per [`CHECK_EVERY`] per session; when
//!   the store no longer has a session it had, the session is ended here (its streams
//!   close) and rmcp answers the request as it answers any unknown session, `404 Not Found`
//!   (MCP 2025-11-25, basic/transports, "Session Management"). A session the store never
//!   had as far as this replica saw (its `initialize` was stored while the store was down)
//!   is served from memory as before, not ended.
//! - **A `DELETE`** removes the session from the store first; when the store cannot be
//!   reached (within [`STORE_TIMEOUT`]), it is answered `503` and the session stays (rmcp
//!   would answer success and end it only here, leaving the other replicas serving it).
//! - **A store that fails** (an error, or no answer within [`LOOKUP_TIMEOUT`]) leaves every
//!   session served from memory, and is not asked again for [`PAUSE_AFTER_FAILURE`], so an
//!   outage costs one slow request per pause, not one per session. rmcp's own calls to the
//!   store (storing a new session, restoring one) are bounded too ([`Bounded`]).
//!
//! Only requests are checked: a stream of the session left open here (a `GET`) ends at the
//! session's next request here, or when rmcp ends the session as idle (five minutes).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::{
    SessionManager, SessionState, SessionStore, SessionStoreError,
};

/// How often one session is looked up in the store, at most, on one replica: a session
/// ended elsewhere is served here at most this long (plus one lookup) after its end.
pub(super) const CHECK_EVERY: Duration = Duration::from_secs(1);

/// How long a lookup may take before the store counts as failed.
const LOOKUP_TIMEOUT: Duration = Duration::from_millis(250);

/// How long a `DELETE`'s removal from the store, and each of rmcp's calls to the store
/// ([`Bounded`]), may take.
const STORE_TIMEOUT: Duration = Duration::from_secs(2);

/// How long lookups pause after the store failed one.
const PAUSE_AFTER_FAILURE: Duration = Duration::from_secs(5);

/// A session not looked up for this long is forgotten here (rmcp ends a session idle for
/// five minutes): should it come back, its next lookup starts afresh.
const FORGET_AFTER: Duration = Duration::from_secs(600);

/// Sessions kept before [`FORGET_AFTER`] is applied (at most once per [`CHECK_EVERY`]).
const PRUNE_ABOVE: usize = 1024;

/// The `503` text of a `DELETE` the store could not carry out.
pub(super) const NOT_ENDED: &str = "Service Unavailable: the session store is unreachable, so \
     the session was not ended (every replica would still serve it); try the DELETE again\n";

/// The store's view of the sessions this replica holds.
pub(super) struct EndedElsewhere {
    store: Arc<dyn SessionStore>,
    state: Mutex<State>,
}

struct State {
    sessions: HashMap<Arc<str>, Seen>,
    pruned: Instant,
    /// While the store is failing: when to ask it again.
    paused_until: Option<Instant>,
}

struct Seen {
    /// When the last lookup started.
    at: Instant,
    /// Whether the store was seen to have the session (a lookup found it, or rmcp restored
    /// it from there): only such a session is ended when the store no longer has it.
    in_store: bool,
}

/// What the request's handling owes the session after rmcp answered: see
/// [`EndedElsewhere::after`].
pub(super) struct Pending(Option<Arc<str>>);

impl EndedElsewhere {
    pub(super) fn new(store: Arc<dyn SessionStore>) -> Self {
        Self {
            store,
            state: Mutex::new(State {
                sessions: HashMap::new(),
                pruned: Instant::now(),
                paused_until: None,
            }),
        }
    }

    /// Before rmcp handles `request` (see the module docs); `this` is the server's, if it
    /// has a shared store.
    ///
    /// # Errors
    /// A `DELETE` the store could not carry out: answer [`NOT_ENDED`] (`503`).
    pub(super) async fn before<B>(
        this: Option<&Self>,
        request: &hyper::Request<B>,
        sessions: &LocalSessionManager,
    ) -> Result<Pending, ()> {
        let Some(this) = this else {
            return Ok(Pending(None));
        };
        let Some(id) = request
            .headers()
            .get("mcp-session-id")
            .and_then(|value| value.to_str().ok())
        else {
            return Ok(Pending(None));
        };
        let id: Arc<str> = Arc::from(id);
        if request.method() == hyper::Method::DELETE {
            return this.delete(&id).await.map(|()| Pending(None));
        }
        if !sessions.has_session(&id).await.unwrap_or(false) {
            // rmcp restores it from the store, or answers 404.
            return Ok(Pending(Some(id)));
        }
        let Some(in_store) = this.claim(&id) else {
            return Ok(Pending(None));
        };
        match tokio::time::timeout(LOOKUP_TIMEOUT, this.store.load(&id)).await {
            Ok(Ok(Some(_))) => this.found(&id),
            Ok(Ok(None)) if in_store => {
                this.lock().sessions.remove(&id);
                tracing::info!(
                    session = %id,
                    "MCP session ended: the session store no longer has it (ended through \
                     another replica)"
                );
                if let Err(error) = sessions.close_session(&id).await {
                    tracing::warn!(session = %id, %error, "MCP session: could not end it");
                }
            }
            // Never stored (its `initialize` met a failing store): it lives here only.
            Ok(Ok(None)) => this.resumed(),
            Ok(Err(error)) => this.failed(&error.to_string()),
            Err(_) => this.failed(&format!("no answer within {LOOKUP_TIMEOUT:?}")),
        }
        Ok(Pending(None))
    }

    /// After rmcp answered a request of a session this replica did not hold: held now,
    /// rmcp restored it from the store.
    pub(super) async fn after(
        this: Option<&Self>,
        pending: Pending,
        sessions: &LocalSessionManager,
    ) {
        if let (Some(this), Pending(Some(id))) = (this, pending)
            && sessions.has_session(&id).await.unwrap_or(false)
        {
            this.found(&id);
        }
    }

    async fn delete(&self, id: &Arc<str>) -> Result<(), ()> {
        self.lock().sessions.remove(id);
        let error = match tokio::time::timeout(STORE_TIMEOUT, self.store.delete(id)).await {
            Ok(Ok(())) => return Ok(()),
            Ok(Err(error)) => error.to_string(),
            Err(_) => format!("no answer within {STORE_TIMEOUT:?}"),
        };
        tracing::warn!(
            session = %id, %error,
            "MCP session store: a DELETE could not remove the session; answered 503"
        );
        Err(())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Takes the lookup of `id` now (whether the store was seen to have it), or `None` when
    /// it was looked up less than [`CHECK_EVERY`] ago (or is being looked up) or the store
    /// is paused. Marked before the lookup, so that concurrent requests make one.
    fn claim(&self, id: &Arc<str>) -> Option<bool> {
        let now = Instant::now();
        let mut state = self.lock();
        match state.paused_until {
            Some(until) if now < until => return None,
            // One request tries the store again; the others wait for its outcome.
            Some(_) => state.paused_until = Some(now + PAUSE_AFTER_FAILURE),
            None => {}
        }
        if state.sessions.len() >= PRUNE_ABOVE && now.duration_since(state.pruned) >= CHECK_EVERY {
            state.pruned = now;
            state
                .sessions
                .retain(|_, seen| now.duration_since(seen.at) < FORGET_AFTER);
        }
        match state.sessions.get_mut(id) {
            Some(seen) if now.duration_since(seen.at) < CHECK_EVERY => None,
            Some(seen) => {
                seen.at = now;
                Some(seen.in_store)
            }
            None => {
                let seen = Seen {
                    at: now,
                    in_store: false,
                };
                state.sessions.insert(Arc::clone(id), seen);
                Some(false)
            }
        }
    }

    /// The store has `id`.
    fn found(&self, id: &Arc<str>) {
        let mut state = self.lock();
        let now = Instant::now();
        let seen = state.sessions.entry(Arc::clone(id)).or_insert(Seen {
            at: now,
            in_store: true,
        });
        seen.in_store = true;
        Self::resume(&mut state);
    }

    /// The store answered.
    fn resumed(&self) {
        Self::resume(&mut self.lock());
    }

    fn resume(state: &mut State) {
        if state.paused_until.take().is_some() {
            tracing::info!("MCP session store answers again: sessions are looked up again");
        }
    }

    /// The store failed a lookup: logged once per outage, lookups paused.
    fn failed(&self, error: &str) {
        let mut state = self.lock();
        if state.paused_until.is_none() {
            tracing::warn!(
                %error,
                "MCP session store failing: sessions are served from memory, and looked up \
                 again in {PAUSE_AFTER_FAILURE:?}"
            );
        }
        state.paused_until = Some(Instant::now() + PAUSE_AFTER_FAILURE);
    }
}

/// The shared store as rmcp is given it: every call bounded by [`STORE_TIMEOUT`], so that
/// a store that hangs (a Redis being reconnected to) holds up an `initialize` or a restore
/// that long at most, then counts as failed (rmcp serves a new session from memory, and
/// answers a restore it could not make `500`).
pub(super) struct Bounded(pub(super) Arc<dyn SessionStore>);

#[async_trait::async_trait]
impl SessionStore for Bounded {
    async fn load(&self, id: &str) -> Result<Option<SessionState>, SessionStoreError> {
        bounded(self.0.load(id)).await
    }
    async fn store(&self, id: &str, state: &SessionState) -> Result<(), SessionStoreError> {
        bounded(self.0.store(id, state)).await
    }
    async fn delete(&self, id: &str) -> Result<(), SessionStoreError> {
        bounded(self.0.delete(id)).await
    }
}

async fn bounded<T>(
    call: impl Future<Output = Result<T, SessionStoreError>>,
) -> Result<T, SessionStoreError> {
    tokio::time::timeout(STORE_TIMEOUT, call)
        .await
        .unwrap_or_else(|_| Err(format!("no answer within {STORE_TIMEOUT:?}").into()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    /// Sessions by id (the state itself is not read here); it may fail or be slow, and
    /// counts its lookups.
    #[derive(Default)]
    struct Store {
        has: Mutex<HashSet<String>>,
        fails: AtomicBool,
        slow: AtomicBool,
        hangs: AtomicBool,
        loads: AtomicUsize,
    }

    impl Store {
        fn keep(&self, id: &str) {
            self.has.lock().unwrap().insert(id.to_owned());
        }
        fn lose(&self, id: &str) {
            self.has.lock().unwrap().remove(id);
        }
        fn loads(&self) -> usize {
            self.loads.load(Ordering::SeqCst)
        }
        async fn answer(&self) -> Result<(), SessionStoreError> {
            if self.slow.load(Ordering::SeqCst) {
                tokio::time::sleep(LOOKUP_TIMEOUT * 2).await;
            }
            if self.hangs.load(Ordering::SeqCst) {
                std::future::pending::<()>().await;
            }
            if self.fails.load(Ordering::SeqCst) {
                return Err("connection refused".into());
            }
            Ok(())
        }
    }

    #[async_trait::async_trait]
    impl SessionStore for Store {
        async fn load(&self, id: &str) -> Result<Option<SessionState>, SessionStoreError> {
            self.loads.fetch_add(1, Ordering::SeqCst);
            self.answer().await?;
            if !self.has.lock().unwrap().contains(id) {
                return Ok(None);
            }
            let state = serde_json::json!({"initialize_params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}}});
            Ok(Some(serde_json::from_value(state).unwrap()))
        }
        async fn store(&self, id: &str, _: &SessionState) -> Result<(), SessionStoreError> {
            self.keep(id);
            Ok(())
        }
        async fn delete(&self, id: &str) -> Result<(), SessionStoreError> {
            self.answer().await?;
            self.lose(id);
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

    struct Replica {
        store: Arc<Store>,
        ended: EndedElsewhere,
        sessions: LocalSessionManager,
    }

    impl Replica {
        fn new() -> Self {
            let store = Arc::new(Store::default());
            Self {
                ended: EndedElsewhere::new(store.clone()),
                store,
                sessions: LocalSessionManager::default(),
            }
        }

        /// A session held here, and (`stored`) in the store.
        async fn session(&self, stored: bool) -> Arc<str> {
            let (id, _transport) = self.sessions.create_session().await.unwrap();
            if stored {
                self.store.keep(&id);
            }
            id
        }

        async fn post(&self, id: &str) -> Pending {
            let request = request(hyper::Method::POST, Some(id));
            EndedElsewhere::before(Some(&self.ended), &request, &self.sessions)
                .await
                .unwrap()
        }

        async fn holds(&self, id: &str) -> bool {
            self.sessions.has_session(&Arc::from(id)).await.unwrap()
        }

        /// Lets the session's last lookup age past [`CHECK_EVERY`].
        fn age(&self, id: &str) {
            let mut state = self.ended.lock();
            state.sessions.get_mut(id).unwrap().at -= CHECK_EVERY;
        }
    }

    #[tokio::test]
    async fn a_session_the_store_had_and_has_no_more_is_ended_here() {
        let replica = Replica::new();
        let none = request(hyper::Method::POST, None);
        EndedElsewhere::before(Some(&replica.ended), &none, &replica.sessions)
            .await
            .unwrap();
        assert!(
            replica.post("not-held").await.0.is_some(),
            "rmcp's to restore"
        );
        assert_eq!(replica.store.loads(), 0);

        let id = replica.session(true).await;
        replica.post(&id).await;
        replica.post(&id).await;
        assert_eq!(replica.store.loads(), 1, "once per interval");
        replica.store.lose(&id);
        replica.post(&id).await;
        assert!(
            replica.holds(&id).await,
            "not looked up again within the interval"
        );
        replica.age(&id);
        replica.post(&id).await;
        assert!(!replica.holds(&id).await);
    }

    #[tokio::test]
    async fn a_session_the_store_never_had_lives_on_here() {
        let replica = Replica::new();
        let id = replica.session(false).await;
        replica.post(&id).await;
        replica.age(&id);
        replica.post(&id).await;
        assert_eq!(replica.store.loads(), 2);
        assert!(replica.holds(&id).await);
    }

    #[tokio::test]
    async fn a_session_restored_here_is_ended_once_the_store_has_it_no_more() {
        let replica = Replica::new();
        // As rmcp leaves a session it restored from the store: held, and stored.
        let id = replica.session(true).await;
        let restored = Pending(Some(Arc::clone(&id)));
        EndedElsewhere::after(Some(&replica.ended), restored, &replica.sessions).await;
        replica.store.lose(&id);
        replica.post(&id).await;
        assert!(replica.holds(&id).await, "the restore was a lookup");
        replica.age(&id);
        replica.post(&id).await;
        assert!(!replica.holds(&id).await);
        assert_eq!(replica.store.loads(), 1);
    }

    #[tokio::test]
    async fn a_delete_ends_the_session_in_the_store_or_is_refused() {
        let replica = Replica::new();
        let id = replica.session(true).await;
        replica.store.fails.store(true, Ordering::SeqCst);
        let delete = request(hyper::Method::DELETE, Some(&id));
        assert!(
            EndedElsewhere::before(Some(&replica.ended), &delete, &replica.sessions)
                .await
                .is_err()
        );
        assert!(replica.store.has.lock().unwrap().contains(&*id));
        replica.store.fails.store(false, Ordering::SeqCst);
        EndedElsewhere::before(Some(&replica.ended), &delete, &replica.sessions)
            .await
            .unwrap();
        assert!(!replica.store.has.lock().unwrap().contains(&*id));
        assert_eq!(replica.store.loads(), 0);
    }

    #[tokio::test]
    async fn a_failing_store_is_asked_once_per_pause_and_concurrent_requests_share_a_lookup() {
        let replica = Replica::new();
        replica.store.slow.store(true, Ordering::SeqCst);
        let id = replica.session(true).await;
        let started = Instant::now();
        tokio::join!(replica.post(&id), replica.post(&id), replica.post(&id));
        assert_eq!(
            replica.store.loads(),
            1,
            "one lookup for concurrent requests"
        );
        assert!(
            started.elapsed() < LOOKUP_TIMEOUT * 2,
            "the lookup timed out"
        );

        // Paused now: other sessions are served from memory without a lookup.
        let others = [replica.session(true).await, replica.session(false).await];
        for other in &others {
            replica.post(other).await;
            assert!(replica.holds(other).await);
        }
        assert_eq!(replica.store.loads(), 1);
        // After the pause, one request asks again; the store answers, lookups resume.
        replica.store.slow.store(false, Ordering::SeqCst);
        replica.ended.lock().paused_until = Some(Instant::now());
        replica.age(&id);
        replica.post(&id).await;
        assert_eq!(replica.store.loads(), 2);
        assert!(replica.ended.lock().paused_until.is_none());
        assert!(replica.holds(&id).await);
    }

    #[tokio::test(start_paused = true)]
    async fn rmcps_calls_to_a_store_that_hangs_fail_in_bounded_time() {
        let store = Arc::new(Store::default());
        store.keep("s");
        let bounded = Bounded(store.clone());
        assert!(bounded.load("s").await.unwrap().is_some());
        store.hangs.store(true, Ordering::SeqCst);
        let started = tokio::time::Instant::now();
        let error = bounded.delete("s").await.unwrap_err().to_string();
        assert_eq!(started.elapsed(), STORE_TIMEOUT);
        assert!(error.contains("no answer within 2s"), "{error}");
        assert!(bounded.load("s").await.is_err());
    }

    #[test]
    fn sessions_not_looked_up_for_long_are_forgotten_once_many() {
        let ended = EndedElsewhere::new(Arc::new(Store::default()));
        let long_ago = Instant::now() - FORGET_AFTER;
        {
            let mut state = ended.lock();
            state.pruned = long_ago;
            state.sessions.extend((0..PRUNE_ABOVE).map(|n| {
                let seen = Seen {
                    at: long_ago,
                    in_store: true,
                };
                (Arc::from(format!("old-{n}").as_str()), seen)
            }));
        }
        assert_eq!(ended.claim(&Arc::from("new")), Some(false));
        assert_eq!(ended.lock().sessions.len(), 1);
    }
}
