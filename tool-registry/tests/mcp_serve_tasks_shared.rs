//! Tasks shared by replicas: a server that dies mid-task (its runtime shut down, as a killed
//! process's tasks vanish) leaves tasks that end as `failed` once their lease runs out, read
//! through another server; and, with the `redis` feature and Debian's `redis-server`, tasks in
//! a real Redis (`RedisStore`): started through one replica, answered, followed and
//! cancelled through another, kept across a Redis killed with SIGKILL and restarted, and
//! updated by two replicas at once without losing an edit.
#![cfg(feature = "mcp-server")]

use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::{ProtocolVersion, TaskStatus};
use serde_json::json;
use tool_registry::mcp::serve::tasks::{MemoryTaskStore, TaskStore};

mod mcp_serve_support;
mod mcp_tasks_support;
#[cfg(feature = "redis")]
mod redis_support;
use mcp_tasks_support::*;

/// A replica in its own runtime, so that the test can kill it: shutting the runtime down
/// drops its listener, its running calls and its task watches at once, as a process killed
/// with SIGKILL loses them.
struct Replica {
    runtime: tokio::runtime::Runtime,
    http: tool_registry::mcp::serve::HttpServer,
}

impl Replica {
    async fn start(store: Arc<dyn TaskStore>, lease: Duration) -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let server = server(Some(store)).with_task_lease(lease);
        let http = runtime
            .spawn(async move { http(&server).await })
            .await
            .unwrap();
        Self { runtime, http }
    }

    fn kill(self) {
        self.runtime.shutdown_background();
    }
}

/// Starts a 10-second task through a replica with a `lease` lease, kills the replica, and
/// follows the task through `survivor`: working until the lease runs out, then failed, with
/// an error saying why. Returns how long after the kill it failed.
async fn dies_mid_task(store: Arc<dyn TaskStore>, lease: Duration) -> Duration {
    let doomed = Replica::start(Arc::clone(&store), lease).await;
    let survivor = server(Some(store));
    let survivor_http = http(&survivor).await;
    let id = {
        let client = connect(&doomed.http, true, ProtocolVersion::V_2026_07_28).await;
        let id = task_id(
            client
                .call_tool_once(call("sleepy", json!({"millis": 10_000})))
                .await
                .unwrap(),
        );
        // Let one renewal happen first.
        tokio::time::sleep(lease / 2).await;
        drop(client);
        id
    };
    doomed.kill();
    let killed = Instant::now();
    let through_survivor = connect(&survivor_http, true, ProtocolVersion::V_2026_07_28).await;
    assert_eq!(
        get(&through_survivor, &id).await.task.status(),
        TaskStatus::Working,
        "the task failed before its lease ran out"
    );
    let ended = settled(&through_survivor, &id, TaskStatus::Failed).await;
    let after = killed.elapsed();
    assert_eq!(ended["status"], "failed", "{ended}");
    let message = ended["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("stopped before the task finished") && message.contains("lease"),
        "{ended}"
    );
    // Every process reads the same end: it was written to the store.
    assert_eq!(
        get(&through_survivor, &id).await.task.status(),
        TaskStatus::Failed
    );
    through_survivor.cancel().await.unwrap();
    survivor_http.shutdown().await;
    after
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_whose_server_died_fails_once_its_lease_runs_out() {
    let lease = Duration::from_millis(2000);
    let after = dies_mid_task(Arc::new(MemoryTaskStore::new()), lease).await;
    // Renewed at most a third of the lease before the kill; polled every 50 ms.
    assert!(after <= lease + Duration::from_millis(1200), "{after:?}");
}

/// Now, in milliseconds since the Unix epoch (a record's clock).
fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// Writers and waiters of one memory store at once, on two worker threads, as a task's call
/// (asking, answered) and its watch use it: every update and every wait ends. (A waiter once
/// read the records while still holding the version's watch lock, which an update takes under
/// the records' lock; the two threads then stopped for good, and the server with them.)
#[test]
fn a_memory_stores_writers_and_waiters_never_block_each_other() {
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let store = Arc::new(MemoryTaskStore::new());
            let mut record = tool_registry::mcp::serve::tasks::TaskRecord::new(
                "busy",
                "sleepy",
                1,
                Duration::from_secs(3600),
                Duration::from_secs(1),
            );
            record.created_at_ms = now_ms();
            record.expires_at_ms = record.created_at_ms + 3_600_000;
            store.create(record).await.unwrap();
            const UPDATES: u64 = 50_000;
            let writers = (0..2).map(|_| {
                let store = Arc::clone(&store);
                tokio::spawn(async move {
                    for n in 0..UPDATES / 2 {
                        let key = n.to_string();
                        store
                            .update("busy", &|record| {
                                record.status_message = Some(key.clone());
                            })
                            .await
                            .unwrap();
                    }
                })
            });
            let waiters = (0..2).map(|_| {
                let store = Arc::clone(&store);
                tokio::spawn(async move {
                    let mut seen = 0;
                    while seen < UPDATES {
                        let now = store
                            .changed("busy", seen, Duration::from_secs(5))
                            .await
                            .unwrap()
                            .expect("the record is kept");
                        seen = now.version;
                    }
                })
            });
            let all: Vec<_> = writers.chain(waiters).collect();
            for joined in futures::future::join_all(all).await {
                joined.unwrap();
            }
        });
        let _ = done.send(());
    });
    finished
        .recv_timeout(Duration::from_secs(60))
        .expect("an update and a wait on one memory store blocked each other for good");
}

#[cfg(feature = "redis")]
mod through_redis {
    use super::redis_support::Redis;
    use super::*;
    use rmcp::model::{CancelTaskParams, UpdateTaskParams};
    use serde_json::Value;
    use tool_registry::mcp::serve::RedisStore;
    use tool_registry::mcp::serve::tasks::TaskRecord;

    async fn store(redis: &Redis) -> Arc<dyn TaskStore> {
        Arc::new(RedisStore::connect(&redis.url()).await.unwrap())
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_task_started_on_one_replica_is_answered_read_and_cancelled_on_another() {
        let Some(redis) = Redis::start() else { return };
        // Two replicas, each with its own connection to the one Redis.
        let (first, second) = (
            server(Some(store(&redis).await)),
            server(Some(store(&redis).await)),
        );
        let (first_http, second_http) = (http(&first).await, http(&second).await);
        let one = connect(&first_http, true, ProtocolVersion::V_2026_07_28).await;
        let two = connect(&second_http, true, ProtocolVersion::V_2026_07_28).await;

        // Questions asked by a call running on the first replica, answered through the
        // second; the result read through the second.
        let id = task_id(
            one.call_tool_once(call("two_questions", json!({})))
                .await
                .unwrap(),
        );
        let mut asked = Value::Null;
        for _ in 0..100 {
            asked = serde_json::to_value(get(&two, &id).await).unwrap();
            if asked["inputRequests"]
                .as_object()
                .is_some_and(|open| open.len() == 2)
            {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(asked["status"], "input_required", "{asked}");
        let answers = [("name", "Ada"), ("color", "teal")]
            .map(|(key, value)| {
                (
                    key.to_owned(),
                    json!({"action": "accept", "content": {key: value}}),
                )
            })
            .into_iter()
            .collect();
        two.update_task(UpdateTaskParams::new(&id, answers))
            .await
            .unwrap();
        let done = settled(&two, &id, TaskStatus::Completed).await;
        assert_eq!(
            done["result"]["content"][0]["text"], "Ada likes teal",
            "{done}"
        );

        // A long call on the first replica, cancelled through the second: the first stops it.
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("marker");
        let id = task_id(
            one.call_tool_once(call(
                "sleepy",
                json!({"millis": 1500, "marker": marker.to_str().unwrap()}),
            ))
            .await
            .unwrap(),
        );
        assert_eq!(get(&two, &id).await.task.status(), TaskStatus::Working);
        two.cancel_task(CancelTaskParams::new(&id)).await.unwrap();
        assert_eq!(get(&one, &id).await.task.status(), TaskStatus::Cancelled);
        tokio::time::sleep(Duration::from_millis(1800)).await;
        assert!(!marker.exists(), "the call went on after its cancellation");

        one.cancel().await.unwrap();
        two.cancel().await.unwrap();
        first_http.shutdown().await;
        second_http.shutdown().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_dead_replicas_task_fails_within_its_lease() {
        let Some(redis) = Redis::start() else { return };
        let lease = Duration::from_millis(2000);
        let after = dies_mid_task(store(&redis).await, lease).await;
        // Announcements are not needed for this: the survivor reads the lapsed lease.
        assert!(after <= lease + Duration::from_millis(1000), "{after:?}");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_finished_result_survives_redis_killed_and_restarted() {
        let Some(mut redis) = Redis::start() else {
            return;
        };
        let shared = store(&redis).await;
        let server = server(Some(Arc::clone(&shared)));
        let served = http(&server).await;
        let client = connect(&served, true, ProtocolVersion::V_2026_07_28).await;
        let id = task_id(
            client
                .call_tool_once(call("sleepy", json!({"millis": 400})))
                .await
                .unwrap(),
        );
        let done = settled(&client, &id, TaskStatus::Completed).await;
        assert_eq!(done["result"]["content"][0]["text"], "slept 400 ms");

        redis.kill_and_restart();
        // The same connection (it reconnects) and a fresh one both read the result.
        let mut kept = None;
        for _ in 0..100 {
            match shared.get(&id).await {
                Ok(record) => {
                    kept = record;
                    break;
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        }
        let kept = kept.expect("the finished task is still in Redis");
        assert!(kept.is_terminal(), "{kept:?}");
        let again = settled(&client, &id, TaskStatus::Completed).await;
        assert_eq!(again["result"]["content"][0]["text"], "slept 400 ms");
        let fresh = store(&redis).await;
        assert_eq!(fresh.get(&id).await.unwrap(), Some(kept));
        client.cancel().await.unwrap();
        served.shutdown().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_updates_from_two_replicas_all_land() {
        let Some(redis) = Redis::start() else { return };
        let (first, second) = (store(&redis).await, store(&redis).await);
        let record = TaskRecord::new(
            "contended",
            "sleepy",
            1,
            Duration::from_secs(3600),
            Duration::from_secs(1),
        );
        // Far in the future, so that Redis keeps it for the test.
        let mut record = record;
        record.created_at_ms = now_ms();
        record.expires_at_ms = record.created_at_ms + 3_600_000;
        first.create(record.clone()).await.unwrap();
        assert!(
            second.create(record).await.is_err(),
            "a second create of one id must fail"
        );
        let edits = (0..40).map(|n| {
            let store = if n % 2 == 0 { &first } else { &second };
            async move {
                let key = format!("k{n}");
                store
                    .update("contended", &|record| record.asked.push(key.clone()))
                    .await
            }
        });
        for edited in futures::future::join_all(edits).await {
            assert!(edited.unwrap().is_some());
        }
        let record = second.get("contended").await.unwrap().unwrap();
        assert_eq!(record.asked.len(), 40, "{:?}", record.asked);
        assert_eq!(record.version, 40);
        // A waiter on one connection wakes at a change made through the other.
        let waiter = {
            let first = Arc::clone(&first);
            tokio::spawn(async move {
                let started = Instant::now();
                let seen = first
                    .changed("contended", 40, Duration::from_secs(20))
                    .await;
                (started.elapsed(), seen)
            })
        };
        tokio::time::sleep(Duration::from_millis(200)).await;
        second
            .update("contended", &|record| {
                record.status_message = Some("x".into())
            })
            .await
            .unwrap();
        let (waited, seen) = waiter.await.unwrap();
        assert_eq!(seen.unwrap().unwrap().version, 41);
        assert!(waited < Duration::from_secs(5), "{waited:?}");
        // A wait dropped midway (as a task's watch drops its `changed` when another branch
        // fires) leaves nothing behind.
        let concrete = RedisStore::connect(&redis.url()).await.unwrap();
        let dropped = tokio::time::timeout(
            Duration::from_millis(100),
            concrete.changed("contended", 41, Duration::from_secs(20)),
        )
        .await;
        assert!(dropped.is_err(), "the wait was cut short");
        assert_eq!(concrete.waits_on(), 0);
        assert!(first.get("nope").await.unwrap().is_none());
    }
}
