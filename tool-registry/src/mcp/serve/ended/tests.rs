//! Tests of [`super::EndedElsewhere`] and [`super::Bounded`] with a store in memory.

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
    /// Loads answer a JSON error (a state that cannot be read).
    unreadable: AtomicBool,
    loads: AtomicUsize,
    deletes: AtomicUsize,
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
        if self.unreadable.load(Ordering::SeqCst) {
            return Err(serde_json::from_str::<SessionState>("1")
                .unwrap_err()
                .into());
        }
        Ok(self.has.lock().unwrap().contains(id).then(state))
    }
    async fn store(&self, id: &str, _: &SessionState) -> Result<(), SessionStoreError> {
        self.answer().await?;
        self.keep(id);
        Ok(())
    }
    async fn delete(&self, id: &str) -> Result<(), SessionStoreError> {
        self.deletes.fetch_add(1, Ordering::SeqCst);
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

/// One replica: its sessions, and both sides of its shared store.
struct Replica {
    store: Arc<Store>,
    ended: EndedElsewhere,
    bounded: Bounded,
    sessions: LocalSessionManager,
}

impl Replica {
    fn new() -> Self {
        Self::sharing(Arc::new(Store::default()))
    }

    fn sharing(store: Arc<Store>) -> Self {
        let (ended, bounded) = EndedElsewhere::new(store.clone());
        Self {
            ended,
            bounded,
            store,
            sessions: LocalSessionManager::default(),
        }
    }

    /// A session held here, and (`stored`) in the store, as another replica stored it.
    async fn session(&self, stored: bool) -> Arc<str> {
        let (id, _transport) = self.sessions.create_session().await.unwrap();
        if stored {
            self.store.keep(&id);
        }
        id
    }

    async fn send(&self, method: hyper::Method, id: &str) -> Pending {
        let request = request(method, Some(id));
        EndedElsewhere::before(Some(&self.ended), &request, &self.sessions).await
    }

    async fn post(&self, id: &str) {
        self.send(hyper::Method::POST, id).await;
    }

    async fn holds(&self, id: &str) -> bool {
        self.sessions.has_session(&Arc::from(id)).await.unwrap()
    }

    /// Lets the session's last lookup age past [`CHECK_EVERY`].
    fn age(&self, id: &str) {
        let mut state = self.ended.0.lock();
        state.sessions.get_mut(id).unwrap().at -= CHECK_EVERY;
    }

    fn paused(&self) -> bool {
        self.ended.0.lock().paused_until.is_some()
    }
}

#[tokio::test]
async fn a_session_the_store_had_and_has_no_more_is_ended_here() {
    let replica = Replica::new();
    let none = request(hyper::Method::POST, None);
    EndedElsewhere::before(Some(&replica.ended), &none, &replica.sessions).await;
    replica.post("not-held").await;
    assert_eq!(
        replica.store.loads(),
        0,
        "a session not held is rmcp's to restore"
    );

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
async fn a_session_made_here_and_ended_elsewhere_before_any_lookup_is_ended() {
    let replica = Replica::new();
    let id = replica.session(false).await;
    // What rmcp does after the session's `initialize`.
    replica.bounded.store(&id, &state()).await.unwrap();
    replica.store.lose(&id);
    replica.post(&id).await;
    assert!(replica.holds(&id).await, "the store was just asked");
    replica.age(&id);
    replica.post(&id).await;
    assert!(!replica.holds(&id).await);
    assert_eq!(replica.store.loads(), 1);
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
    // As rmcp restores a session from the store: loaded, then held.
    let id = replica.session(true).await;
    assert!(replica.bounded.load(&id).await.unwrap().is_some());
    replica.store.lose(&id);
    replica.post(&id).await;
    assert!(replica.holds(&id).await, "the restore was a lookup");
    replica.age(&id);
    replica.post(&id).await;
    assert!(!replica.holds(&id).await);
    assert_eq!(replica.store.loads(), 2);
}

#[tokio::test]
async fn a_delete_rmcp_carried_out_is_confirmed_in_the_store_or_answered_503() {
    let replica = Replica::new();
    let id = replica.session(true).await;
    let (replica, id) = (&replica, &id);
    let after = |status| async move {
        let pending = replica.send(hyper::Method::DELETE, id).await;
        EndedElsewhere::after(Some(&replica.ended), pending, status).await
    };
    // rmcp refused it (a bad header, an Origin): nothing is removed.
    assert!(after(hyper::StatusCode::BAD_REQUEST).await.is_ok());
    assert!(replica.store.has.lock().unwrap().contains(&**id));

    replica.store.fails.store(true, Ordering::SeqCst);
    assert!(after(hyper::StatusCode::ACCEPTED).await.is_err());
    assert!(replica.store.has.lock().unwrap().contains(&**id));

    assert!(replica.paused());
    assert!(
        after(hyper::StatusCode::ACCEPTED).await.is_err(),
        "not tried again while the store is failing"
    );
    replica.store.fails.store(false, Ordering::SeqCst);
    assert!(after(hyper::StatusCode::ACCEPTED).await.is_err());
    replica.ended.0.lock().paused_until = None;
    assert!(after(hyper::StatusCode::ACCEPTED).await.is_ok());
    assert!(!replica.store.has.lock().unwrap().contains(&**id));
    assert_eq!(replica.store.loads(), 0);

    // rmcp's own removal went through: confirmed without a second one.
    replica.store.deletes.store(0, Ordering::SeqCst);
    replica.bounded.delete(id).await.unwrap();
    assert!(after(hyper::StatusCode::ACCEPTED).await.is_ok());
    assert_eq!(replica.store.deletes.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_failing_store_pauses_lookups_but_one_probe_and_rmcps_calls_are_still_tried() {
    let replica = Replica::new();
    let id = replica.session(true).await;
    replica.post(&id).await;
    replica.age(&id);
    replica.store.slow.store(true, Ordering::SeqCst);
    let started = Instant::now();
    tokio::join!(replica.post(&id), replica.post(&id), replica.post(&id));
    assert_eq!(
        replica.store.loads(),
        2,
        "one lookup for concurrent requests"
    );
    assert!(
        started.elapsed() < LOOKUP_TIMEOUT * 2,
        "the lookup timed out"
    );
    assert!(replica.paused());

    // Paused: sessions held here are served from memory without a lookup.
    let others = [replica.session(true).await, replica.session(false).await];
    for other in &others {
        replica.post(other).await;
        assert!(replica.holds(other).await);
    }
    assert_eq!(replica.store.loads(), 2);
    // rmcp's calls are still made: a slow store stores a new session (one slow lookup must
    // not leave it unshared for its life), without resuming lookups (they would time out
    // again); a quick answer resumes them.
    replica.bounded.store("slow", &state()).await.unwrap();
    assert!(replica.store.has.lock().unwrap().contains("slow"));
    assert!(replica.paused());
    replica.store.slow.store(false, Ordering::SeqCst);
    replica.bounded.store("new", &state()).await.unwrap();
    assert!(replica.store.has.lock().unwrap().contains("new"));
    assert!(!replica.paused());

    // Paused again; after the pause, one lookup probes, and its answer resumes them.
    replica.ended.0.failed("test");
    replica.ended.0.lock().paused_until = Some(Instant::now());
    replica.age(&id);
    replica.store.lose(&id);
    replica.post(&id).await;
    assert_eq!(replica.store.loads(), 3);
    assert!(
        !replica.paused(),
        "a probe that ends a session resumes lookups too"
    );
    assert!(!replica.holds(&id).await);
}

#[tokio::test]
async fn a_state_the_store_cannot_read_is_no_outage_and_ends_nothing() {
    let replica = Replica::new();
    let id = replica.session(true).await;
    replica.post(&id).await;
    replica.age(&id);
    replica.store.unreadable.store(true, Ordering::SeqCst);
    replica.post(&id).await;
    assert!(!replica.paused());
    assert!(replica.holds(&id).await);
    assert!(
        replica.bounded.load("other").await.is_err(),
        "rmcp cannot restore it"
    );
    assert!(!replica.paused());
}

#[tokio::test(start_paused = true)]
async fn rmcps_calls_to_a_store_that_hangs_fail_in_bounded_time() {
    let replica = Replica::new();
    replica.store.keep("s");
    assert!(replica.bounded.load("s").await.unwrap().is_some());
    replica.store.hangs.store(true, Ordering::SeqCst);
    let started = tokio::time::Instant::now();
    let error = replica.bounded.delete("s").await.unwrap_err().to_string();
    assert_eq!(started.elapsed(), STORE_TIMEOUT);
    assert!(error.contains("no answer within 2s"), "{error}");
    assert!(replica.paused());
}

#[tokio::test]
async fn sessions_looked_up_long_ago_and_no_longer_held_are_forgotten_once_many() {
    let replica = Replica::new();
    let held = replica.session(true).await;
    let long_ago = Instant::now() - FORGET_AFTER;
    {
        let mut state = replica.ended.0.lock();
        state.pruned = long_ago;
        let old = (0..PRUNE_ABOVE).map(|n| Arc::from(format!("old-{n}").as_str()));
        for id in old.chain([Arc::clone(&held)]) {
            let seen = Seen {
                at: long_ago,
                in_store: true,
            };
            state.sessions.insert(id, seen);
        }
    }
    replica.post("another").await;
    let state = replica.ended.0.lock();
    assert_eq!(state.sessions.len(), 1);
    assert!(state.sessions.contains_key(&held), "a session held is kept");
}

fn state() -> SessionState {
    serde_json::from_value(serde_json::json!({"initialize_params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}}))
    .unwrap()
}
