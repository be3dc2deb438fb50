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

    /// A pass at once when a permit and the lock are free, without waiting or registering
    /// as a waiter (no call waits then: a waiting call holds whatever it could take of them).
    /// `None` keeps nothing.
    pub(crate) fn try_enter(&self, safe: bool) -> Option<GatePass> {
        self.try_pass(safe).ok()
    }

    /// [`CallGate::try_enter`], giving back the permit it took when the lock was not free.
    fn try_pass(&self, safe: bool) -> Result<GatePass, Option<OwnedSemaphorePermit>> {
        let permit = Arc::clone(&self.permits)
            .try_acquire_owned()
            .map_err(|_| None)?;
        let calls = Arc::clone(&self.calls);
        let (shared, exclusive) = if safe {
            match calls.try_read_owned() {
                Ok(shared) => (Some(shared), None),
                Err(_) => return Err(Some(permit)),
            }
        } else {
            match calls.try_write_owned() {
                Ok(exclusive) => (None, Some(exclusive)),
                Err(_) => return Err(Some(permit)),
            }
        };
        Ok(GatePass {
            _permit: Some(permit),
            _shared: shared,
            _exclusive: exclusive,
        })
    }

    /// Waits for a permit, then for the call lock: shared for a concurrency-safe call
    /// (`safe`), alone for any other. A permit taken is kept while the call waits for the
    /// lock, so that a call waiting in turn keeps its place.
    pub(crate) async fn enter(&self, safe: bool) -> GatePass {
        let permit = match self.try_pass(safe) {
            Ok(pass) => return pass,
            Err(Some(permit)) => Some(permit),
            Err(None) => Arc::clone(&self.permits).acquire_owned().await.ok(),
        };
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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use tokio::task::JoinHandle;

    use super::{CallGate, GatePass};

    /// A call entering `gate`, queued (the test's runtime has one thread: the call runs up to
    /// its wait at the yield).
    async fn queued(gate: &CallGate, safe: bool) -> JoinHandle<GatePass> {
        let gate = gate.clone();
        let waiting = tokio::spawn(async move { gate.enter(safe).await });
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished(), "the call waits");
        waiting
    }

    /// The pass of a queued call, once it gets in.
    async fn joined(waiting: JoinHandle<GatePass>) -> GatePass {
        tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .expect("the waiting call gets in")
            .expect("the waiting call's task")
    }

    #[test]
    fn a_pass_at_once_only_when_the_call_could_run_now() {
        let gate = CallGate::new(2);
        let first = gate
            .try_enter(true)
            .expect("a free gate lets a safe call in");
        let second = gate.try_enter(true).expect("safe calls share the lock");
        assert!(gate.try_enter(true).is_none(), "both permits are taken");
        drop(second);
        assert!(
            gate.try_enter(false).is_none(),
            "a call that is not concurrency-safe waits for the safe one to end"
        );
        assert_eq!(
            gate.permits.available_permits(),
            1,
            "a refused call keeps nothing"
        );
        drop(first);
        let alone = gate
            .try_enter(false)
            .expect("an empty gate lets any call in");
        assert!(
            gate.try_enter(true).is_none(),
            "nothing runs beside a call that is not concurrency-safe"
        );
        assert_eq!(gate.permits.available_permits(), 1);
        drop(alone);
        assert_eq!(gate.permits.available_permits(), 2);
        assert!(gate.try_enter(true).is_some());
    }

    #[tokio::test]
    async fn a_waiting_call_goes_before_a_later_one() {
        let gate = CallGate::new(4);
        let safe = gate.try_enter(true).expect("free");
        // A call that is not concurrency-safe waits for the lock, holding its permit...
        let waiting = queued(&gate, false).await;
        assert_eq!(gate.permits.available_permits(), 2);
        // ...and no safe call that comes later passes it, even once the lock is free.
        assert!(gate.try_enter(true).is_none(), "the queued call goes first");
        drop(safe);
        assert!(gate.try_enter(true).is_none(), "the queued call goes first");
        let alone = joined(waiting).await;
        assert!(gate.try_enter(true).is_none());
        drop(alone);
        assert_eq!(gate.permits.available_permits(), 4);
        assert!(gate.try_enter(true).is_some());
    }

    #[tokio::test]
    async fn a_released_permit_goes_to_the_call_waiting_for_it() {
        let gate = CallGate::new(1);
        let running = gate.try_enter(true).expect("free");
        let waiting = queued(&gate, true).await;
        drop(running);
        assert!(
            gate.try_enter(true).is_none(),
            "the permit went to the waiting call, not to a later one"
        );
        drop(joined(waiting).await);
        assert!(gate.try_enter(true).is_some());
    }
}
