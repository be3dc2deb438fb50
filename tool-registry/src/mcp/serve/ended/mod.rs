//! MCP 2025-11-25 sessions ended on another replica end here too.
//!
//! With a shared session store ([`HttpOptions::session_store`](super::HttpOptions)), rmcp
//! restores a session this replica does not hold from the store, and serves one it holds
//! from memory without asking the store again. So a session ended through another replica
//! (the client's `DELETE`, which removes it from the store) would still be served here.
//! [`EndedElsewhere`] closes that gap around rmcp's handling of each request that names a
//! session, and [`Bounded`] stands between rmcp and the store:
//!
//! - **A request of a session this replica holds** looks the session up in the store, at
//!   most once per [`CHECK_EVERY`] per session. When the store no longer has a session it
//!   was seen to have (rmcp stored it here, restored it here from the store, or a lookup
//!   found it), the session is ended here (its streams close) and rmcp answers the request
//!   as it answers any unknown session, `404 Not Found` (MCP 2025-11-25, basic/transports,
//!   "Session Management"). A session the store was never seen to have (made while the
//!   store was failing) lives on here, from memory.
//! - **A `DELETE`** that rmcp carried out (it ends the session here, and asks the store to
//!   remove it, ignoring a failure) is answered `503` unless the removal is confirmed within
//!   [`STORE_TIMEOUT`]: the session may then still be served by other replicas, and the
//!   client is told to send the `DELETE` again.
//! - **A store that fails** (an error, or no answer in time) is not asked for lookups for
//!   [`PAUSE_AFTER_FAILURE`] but by one probe: sessions held here are served from memory,
//!   and an outage costs one slow request per pause. The failure and the recovery are
//!   logged once. rmcp's own calls (storing a new session, restoring or removing one) are
//!   each tried, bounded by [`STORE_TIMEOUT`] ([`Bounded`]): in an outage a new session
//!   takes that long and stays unshared for its life, a request of a session this replica
//!   does not hold is answered `500` (rmcp's answer to a restore that failed), and a
//!   `DELETE` `503`. A store that answers slower than a lookup's bound keeps lookups
//!   paused until a probe gets a quick answer. A session whose state the store holds but
//!   cannot read (a JSON error) is no outage: a lookup counts it as there, and rmcp cannot
//!   restore it (`500`).
//!
//! Only requests are checked: a stream of the session left open here (a `GET`) ends at the
//! session's next request here, or when rmcp ends the session as idle (five minutes without
//! a message either way). A store that loses sessions (Redis without persistence, or
//! evicting keys) ends them here too, at their next request.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::{
    SessionManager, SessionState, SessionStore, SessionStoreError,
};

/// How often one session is looked up in the store, at most, on one replica: a session
/// ended elsewhere is served here at most this long (plus one lookup) after its end, while
/// the store answers.
pub(super) const CHECK_EVERY: Duration = Duration::from_secs(1);

/// How long a lookup before a request may take.
const LOOKUP_TIMEOUT: Duration = Duration::from_millis(250);

/// How long each of rmcp's calls to the store ([`Bounded`]), and the confirmation of a
/// `DELETE`, may take.
const STORE_TIMEOUT: Duration = Duration::from_secs(2);

/// How long the store is asked nothing (but one probe) after it failed.
const PAUSE_AFTER_FAILURE: Duration = Duration::from_secs(5);

/// A session not looked up for this long, and no longer held, is forgotten.
const FORGET_AFTER: Duration = Duration::from_secs(600);

/// Sessions kept before forgetting is tried (at most once per [`CHECK_EVERY`]).
const PRUNE_ABOVE: usize = 1024;

/// The `503` text of a `DELETE` whose removal from the store was not confirmed.
pub(super) const NOT_ENDED: &str = "Service Unavailable: the session ended on this server, \
     but the session store did not confirm its removal, so other replicas may still serve \
     it; send the DELETE again\n";

/// The store's view of the sessions this replica holds, for the HTTP route.
pub(super) struct EndedElsewhere(Arc<Shared>);

/// The shared store as rmcp is given it: see the module docs.
pub(super) struct Bounded(Arc<Shared>);

struct Shared {
    store: Arc<dyn SessionStore>,
    state: Mutex<State>,
}

struct State {
    sessions: HashMap<Arc<str>, Seen>,
    pruned: Instant,
    /// While the store is failing: when to look sessions up again.
    paused_until: Option<Instant>,
    /// Sessions whose removal rmcp's `DELETE` just made (see [`EndedElsewhere::after`]).
    removed: HashSet<Arc<str>>,
}

struct Seen {
    /// When the store was last asked about the session.
    at: Instant,
    /// Whether the store was seen to have the session: only such a session is ended when
    /// the store no longer has it. Never unset.
    in_store: bool,
}

/// What the handling of one request owes after rmcp answered: see [`EndedElsewhere::after`].
pub(super) struct Pending(Option<Arc<str>>);

impl EndedElsewhere {
    /// The route's side and rmcp's side ([`Bounded`]) of one shared `store`.
    pub(super) fn new(store: Arc<dyn SessionStore>) -> (Self, Bounded) {
        let shared = Arc::new(Shared {
            store,
            state: Mutex::new(State {
                sessions: HashMap::new(),
                pruned: Instant::now(),
                paused_until: None,
                removed: HashSet::new(),
            }),
        });
        (Self(Arc::clone(&shared)), Bounded(shared))
    }

    /// Before rmcp handles `request` (see the module docs); `this` is the server's, if it
    /// has a shared store.
    pub(super) async fn before<B>(
        this: Option<&Self>,
        request: &hyper::Request<B>,
        sessions: &LocalSessionManager,
    ) -> Pending {
        let Some(this) = this else {
            return Pending(None);
        };
        let Some(id) = request
            .headers()
            .get("mcp-session-id")
            .and_then(|value| value.to_str().ok())
        else {
            return Pending(None);
        };
        let id: Arc<str> = Arc::from(id);
        if request.method() == hyper::Method::DELETE {
            return Pending(Some(id));
        }
        if this.0.prune_due() {
            this.prune(sessions).await;
        }
        if !sessions.has_session(&id).await.unwrap_or(false) {
            // rmcp restores it from the store ([`Bounded::load`]), or answers 404.
            return Pending(None);
        }
        let Some(in_store) = this.0.claim(&id) else {
            return Pending(None);
        };
        match tokio::time::timeout(LOOKUP_TIMEOUT, this.0.store.load(&id)).await {
            Ok(Ok(Some(_))) => this.0.answered(Some(&id)),
            Ok(Ok(None)) => {
                this.0.answered(None);
                if in_store {
                    this.0.lock().sessions.remove(&id);
                    tracing::info!(
                        session = %id,
                        "MCP session ended: the session store no longer has it (ended through \
                         another replica, or lost by the store)"
                    );
                    if let Err(error) = sessions.close_session(&id).await {
                        tracing::warn!(session = %id, %error, "MCP session: could not end it");
                    }
                }
            }
            // A state the store holds but cannot read: the session is there.
            Ok(Err(error)) if !outage(&error) => this.0.answered(Some(&id)),
            Ok(Err(error)) => this.0.failed(&error.to_string()),
            Err(_) => this
                .0
                .failed(&format!("no answer within {LOOKUP_TIMEOUT:?}")),
        }
        Pending(None)
    }

    /// After rmcp answered `status` to the request [`EndedElsewhere::before`] saw: a
    /// `DELETE` it carried out is confirmed in the store.
    ///
    /// # Errors
    /// The removal could not be confirmed: answer [`NOT_ENDED`] (`503`) instead.
    pub(super) async fn after(
        this: Option<&Self>,
        pending: Pending,
        status: hyper::StatusCode,
    ) -> Result<(), ()> {
        let (Some(this), Pending(Some(id))) = (this, pending) else {
            return Ok(());
        };
        if !status.is_success() {
            return Ok(());
        }
        let failing = {
            let mut state = this.0.lock();
            state.sessions.remove(&id);
            if state.removed.remove(&id) {
                return Ok(());
            }
            state.paused_until.is_some()
        };
        // rmcp's removal failed (it ignores that): tried again to know, unless the store
        // is failing (it just failed that removal, most likely).
        let error = if failing {
            "the session store is failing".to_owned()
        } else {
            match Bounded(Arc::clone(&this.0)).delete(&id).await {
                Ok(()) => {
                    this.0.lock().removed.remove(&id);
                    return Ok(());
                }
                Err(error) => error.to_string(),
            }
        };
        tracing::warn!(
            session = %id, %error,
            "MCP session store: an ended session could not be removed; DELETE answered 503"
        );
        Err(())
    }

    /// Forgets the sessions looked up long ago that this replica no longer holds.
    async fn prune(&self, sessions: &LocalSessionManager) {
        let old = |seen: &Seen| seen.at.elapsed() >= FORGET_AFTER;
        let candidates: Vec<Arc<str>> = {
            let state = self.0.lock();
            state
                .sessions
                .iter()
                .filter(|(_, seen)| old(seen))
                .map(|(id, _)| Arc::clone(id))
                .collect()
        };
        for id in candidates {
            if !sessions.has_session(&id).await.unwrap_or(true) {
                // Unless asked about (a restore) meanwhile.
                let mut state = self.0.lock();
                if state.sessions.get(&id).is_some_and(old) {
                    state.sessions.remove(&id);
                }
            }
        }
    }
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether forgetting is due now (then marked done).
    fn prune_due(&self) -> bool {
        let mut state = self.lock();
        let due = state.sessions.len() >= PRUNE_ABOVE && state.pruned.elapsed() >= CHECK_EVERY;
        if due {
            state.pruned = Instant::now();
        }
        due
    }

    /// Whether the store may be asked now: not while it is paused, but for one probe once
    /// the pause is over (the pause then runs on until the probe's outcome).
    fn permitted(state: &mut State, now: Instant) -> bool {
        match state.paused_until {
            Some(until) if now < until => false,
            Some(_) => {
                state.paused_until = Some(now + PAUSE_AFTER_FAILURE);
                true
            }
            None => true,
        }
    }

    /// Takes the lookup of `id` now, answering whether the store was seen to have it; `None`
    /// when it was asked about less than [`CHECK_EVERY`] ago (or is being asked, so that
    /// concurrent requests make one lookup), or the store is paused.
    fn claim(&self, id: &Arc<str>) -> Option<bool> {
        let now = Instant::now();
        let mut state = self.lock();
        if state
            .sessions
            .get(id)
            .is_some_and(|seen| now.duration_since(seen.at) < CHECK_EVERY)
            || !Self::permitted(&mut state, now)
        {
            return None;
        }
        let seen = state.sessions.entry(Arc::clone(id)).or_insert(Seen {
            at: now,
            in_store: false,
        });
        seen.at = now;
        Some(seen.in_store)
    }

    /// The store answered a lookup (within [`LOOKUP_TIMEOUT`]); `has` names a session it
    /// was seen to have. Lookups resume.
    fn answered(&self, has: Option<&Arc<str>>) {
        if let Some(id) = has {
            self.has(id);
        }
        self.resume();
    }

    /// The store was seen to have `id`.
    fn has(&self, id: &Arc<str>) {
        let now = Instant::now();
        let mut state = self.lock();
        let seen = state.sessions.entry(Arc::clone(id)).or_insert(Seen {
            at: now,
            in_store: true,
        });
        seen.in_store = true;
        seen.at = now;
    }

    fn resume(&self) {
        if self.lock().paused_until.take().is_some() {
            tracing::info!("MCP session store answers again: sessions are looked up again");
        }
    }

    /// The store failed: paused, logged once per outage.
    fn failed(&self, error: &str) {
        let mut state = self.lock();
        if state.paused_until.is_none() {
            tracing::warn!(
                %error,
                "MCP session store failing or slow: sessions held here are served from memory \
                 without looking them up, until a lookup in {PAUSE_AFTER_FAILURE:?} succeeds"
            );
        }
        state.paused_until = Some(Instant::now() + PAUSE_AFTER_FAILURE);
    }

    /// `call` to the store, within [`STORE_TIMEOUT`]: a failure pauses lookups, an answer
    /// as quick as a lookup's bound resumes them (a slower one leaves that to the probe).
    /// Never refused beforehand: a session rmcp could not store stays unshared for its life.
    async fn bounded<T>(
        &self,
        call: impl Future<Output = Result<T, SessionStoreError>>,
    ) -> Result<T, SessionStoreError> {
        let started = Instant::now();
        let outcome = tokio::time::timeout(STORE_TIMEOUT, call)
            .await
            .unwrap_or_else(|_| Err(format!("no answer within {STORE_TIMEOUT:?}").into()));
        match &outcome {
            Err(error) if outage(error) => self.failed(&error.to_string()),
            _ if started.elapsed() < LOOKUP_TIMEOUT => self.resume(),
            _ => {}
        }
        outcome
    }
}

/// Whether `error` says the store failed, rather than that one session's state in it cannot
/// be read (a JSON error: rmcp's `SessionState` changed, or the value is corrupt).
fn outage(error: &SessionStoreError) -> bool {
    error.downcast_ref::<serde_json::Error>().is_none()
}

#[async_trait::async_trait]
impl SessionStore for Bounded {
    /// rmcp restores a session this replica does not hold.
    async fn load(&self, id: &str) -> Result<Option<SessionState>, SessionStoreError> {
        let state = self.0.bounded(self.0.store.load(id)).await?;
        if state.is_some() {
            self.0.has(&Arc::from(id));
        }
        Ok(state)
    }

    /// rmcp stores a session made here.
    async fn store(&self, id: &str, state: &SessionState) -> Result<(), SessionStoreError> {
        self.0.bounded(self.0.store.store(id, state)).await?;
        self.0.has(&Arc::from(id));
        Ok(())
    }

    /// rmcp carries out a `DELETE`.
    async fn delete(&self, id: &str) -> Result<(), SessionStoreError> {
        self.0.bounded(self.0.store.delete(id)).await?;
        let mut state = self.0.lock();
        if state.removed.len() >= PRUNE_ABOVE {
            // Left by requests dropped before their answer: at worst a second removal.
            state.removed.clear();
        }
        state.removed.insert(Arc::from(id));
        Ok(())
    }
}

#[cfg(test)]
mod tests;
