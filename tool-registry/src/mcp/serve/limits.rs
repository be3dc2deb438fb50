//! Limits per client of the HTTP server: requests running at once (a permit held until the
//! response body ends, SSE streams included) and requests per second (governor's keyed
//! GCRA limiter). A client is its access token's principal when the server checks tokens,
//! else its IP address. Over a limit: `429 Too Many Requests` with `Retry-After`.

use std::collections::HashMap;
use std::convert::Infallible;
use std::num::NonZeroU32;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use http_body_util::BodyExt as _;
use http_body_util::combinators::BoxBody;
use hyper::body::{Body, Bytes, Frame, SizeHint};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Past this many clients, the semaphores of idle clients are dropped.
const TRACKED_CLIENTS: usize = 10_000;

/// The limits of one HTTP server.
pub(crate) struct Limits {
    concurrent: Option<usize>,
    running: Mutex<HashMap<String, Arc<Semaphore>>>,
    rate: Option<DefaultKeyedRateLimiter<String>>,
}

/// Why a request is turned away, and when to try again (whole seconds).
pub(crate) struct Busy {
    pub(crate) why: String,
    pub(crate) retry_after_secs: u64,
}

impl Limits {
    /// Limits of `concurrent` requests at once and `per_second` requests a second (a burst of
    /// as many) per client; `None` when neither is set.
    pub(crate) fn new(concurrent: Option<usize>, per_second: Option<u32>) -> Option<Self> {
        let rate = per_second
            .and_then(NonZeroU32::new)
            .map(|per_second| RateLimiter::keyed(Quota::per_second(per_second)));
        let concurrent = concurrent.filter(|&limit| limit > 0);
        (concurrent.is_some() || rate.is_some()).then(|| Self {
            concurrent,
            running: Mutex::default(),
            rate,
        })
    }

    /// Admits a request of `client`: the permit to hold while it runs, if running requests
    /// are limited and the request `runs` (a call; not a session's stream).
    pub(crate) fn admit(
        &self,
        client: &str,
        runs: bool,
    ) -> Result<Option<OwnedSemaphorePermit>, Busy> {
        if let Some(rate) = &self.rate {
            if let Err(not_until) = rate.check_key(&client.to_owned()) {
                let wait = not_until.wait_time_from(governor::clock::Clock::now(
                    &governor::clock::DefaultClock::default(),
                ));
                return Err(Busy {
                    why: "too many requests per second from this client".to_owned(),
                    retry_after_secs: wait.as_secs() + 1,
                });
            }
            if rate.len() > TRACKED_CLIENTS {
                rate.retain_recent();
            }
        }
        let Some(limit) = self.concurrent.filter(|_| runs) else {
            return Ok(None);
        };
        let semaphore = {
            let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
            if running.len() > TRACKED_CLIENTS {
                running.retain(|_, semaphore| Arc::strong_count(semaphore) > 1);
            }
            Arc::clone(
                running
                    .entry(client.to_owned())
                    .or_insert_with(|| Arc::new(Semaphore::new(limit))),
            )
        };
        semaphore.try_acquire_owned().map(Some).map_err(|_| Busy {
            why: format!("this client already has {limit} requests running"),
            retry_after_secs: 1,
        })
    }
}

/// A response body that holds a permit until it ends (or is dropped).
struct Held {
    body: BoxBody<Bytes, Infallible>,
    _permit: OwnedSemaphorePermit,
}

impl Body for Held {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// `body`, holding `permit` (when given) until it ends.
pub(crate) fn hold(
    body: BoxBody<Bytes, Infallible>,
    permit: Option<OwnedSemaphorePermit>,
) -> BoxBody<Bytes, Infallible> {
    match permit {
        Some(permit) => Held {
            body,
            _permit: permit,
        }
        .boxed(),
        None => body,
    }
}
