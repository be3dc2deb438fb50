//! The call gate of a session or of a stateless server: how many calls run at once, and
//! which run alone (see the `session` module docs).

use std::sync::Arc;

use tokio::sync::{
    OwnedRwLockReadGuard, OwnedRwLockWriteGuard, OwnedSemaphorePermit, RwLock, Semaphore,
};

/// Who may run a call now: the permits (the orchestrator's concurrency cap) and the lock that
/// concurrency-safe calls share and any other call takes alone. Clones share them.
#[derive(Clone)]
pub(crate) struct CallGate {
    permits: Arc<Semaphore>,
    calls: Arc<RwLock<()>>,
}

/// A call's place in its [`CallGate`], held until dropped.
pub(crate) struct GatePass {
    _permit: Option<OwnedSemaphorePermit>,
    _shared: Option<OwnedRwLockReadGuard<()>>,
    _exclusive: Option<OwnedRwLockWriteGuard<()>>,
}

impl CallGate {
    pub(crate) fn new(permits: usize) -> Self {
        Self {
            permits: Arc::new(Semaphore::new(permits)),
            calls: Arc::new(RwLock::new(())),
        }
    }

    /// Waits for a permit, then for the call lock: shared for a concurrency-safe call
    /// (`safe`), alone for any other.
    pub(crate) async fn enter(&self, safe: bool) -> GatePass {
        // Without waiting when a permit and the lock are free (no call waits then: a waiting
        // call holds whatever it could take of them); else in turn.
        let permit = match Arc::clone(&self.permits).try_acquire_owned() {
            Ok(permit) => Some(permit),
            Err(_) => Arc::clone(&self.permits).acquire_owned().await.ok(),
        };
        let calls = Arc::clone(&self.calls);
        if safe {
            if let Ok(shared) = Arc::clone(&calls).try_read_owned() {
                return GatePass {
                    _permit: permit,
                    _shared: Some(shared),
                    _exclusive: None,
                };
            }
            GatePass {
                _permit: permit,
                _shared: Some(calls.read_owned().await),
                _exclusive: None,
            }
        } else {
            GatePass {
                _permit: permit,
                _shared: None,
                _exclusive: Some(calls.write_owned().await),
            }
        }
    }
}
