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
        let permit = Arc::clone(&self.permits).acquire_owned().await.ok();
        let calls = Arc::clone(&self.calls);
        if safe {
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
