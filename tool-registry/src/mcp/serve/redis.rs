//! [`RedisStore`]: tasks and MCP 2025-11-25 sessions in Redis (or Valkey), shared by every
//! replica of a service.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{IntoConnectionInfo, ProtocolVersion, PushKind, Script};
use tokio::sync::watch;

use rmcp::transport::streamable_http_server::session::{
    SessionState, SessionStore, SessionStoreError,
};

use super::tasks::store::{millis, now_ms};
use super::tasks::{ORPHAN_GRACE, TaskEdit, TaskRecord, TaskStore, TaskStoreError};

/// The key prefix [`RedisStore::connect`] uses: a task's record is the hash
/// `tool-sdk:task:{id}`, changes are announced on the channel `tool-sdk:task-changed`, and a
/// session is the string `tool-sdk:session:{id}`.
const DEFAULT_PREFIX: &str = "tool-sdk:";

/// How long Redis keeps a session's state after it was stored or last kept longer: a day.
const SESSION_KEPT: Duration = Duration::from_secs(24 * 3600);

/// How often a session in use is kept longer, at most: an hour.
const SESSION_REFRESH: Duration = Duration::from_secs(3600);

/// Reads a session, keeping it longer if in use: `KEYS[1]` the session, `ARGV` = how long
/// to keep it (ms), the time left below which it is kept longer (ms).
const LOAD_SESSION: &str = r"
local state = redis.call('GET', KEYS[1])
if state and redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return state
";

/// How long [`TaskStore::changed`] waits for an announcement before reading the record again:
/// announcements (Redis pub/sub) are lost while a connection is down, so a waiter never relies
/// on them alone.
const REREAD_EVERY: Duration = Duration::from_secs(1);

/// How many times an update is tried when other writers keep changing the record between its
/// read and its write.
const UPDATE_TRIES: usize = 64;

/// Creates the record unless one exists: `KEYS[1]` the record, `ARGV` = version, JSON,
/// expiry (ms since the epoch), channel, task id. 1 when created, 0 when one existed.
const CREATE: &str = r"
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'r', ARGV[2])
redis.call('PEXPIREAT', KEYS[1], ARGV[3])
redis.call('PUBLISH', ARGV[4], ARGV[5])
return 1
";

/// Writes the record if its version is still `ARGV[1]`: `ARGV` = old version, new version,
/// JSON, expiry, channel, task id. 1 when written, 0 when the version moved, -1 when the
/// record is gone.
const UPDATE: &str = r"
local version = redis.call('HGET', KEYS[1], 'v')
if not version then return -1 end
if version ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'r', ARGV[3])
redis.call('PEXPIREAT', KEYS[1], ARGV[4])
redis.call('PUBLISH', ARGV[5], ARGV[6])
return 1
";

/// Tasks and MCP 2025-11-25 sessions in Redis 6 or later (or Valkey), for a service run as
/// several replicas: give each replica the same Redis, as its
/// [`TaskStore`] ([`McpServer::with_task_store`](super::McpServer::with_task_store)) and its
/// session store ([`HttpOptions::session_store`](super::HttpOptions::session_store)).
///
/// - **Tasks** (MCP tasks extension, SEP-2663): a task started through one replica is
///   followed, answered and cancelled through any other.
/// - **Sessions** (rmcp's `SessionStore`): a 2025-11-25 client whose session was made on
///   one replica and whose next request reaches another is served there (rmcp replays the
///   session's `initialize`). A replica serving a session looks it up here on its
///   requests, at most once a second: a session ended through one replica (the client's
///   `DELETE`) is served by the others about a second longer at most, then answered `404`
///   as MCP requires; and a session is kept a day from its last use. A request the server
///   sends the client inside a session (an elicitation) is answered through the replica
///   that sent it, so route such sessions to one replica (affinity by `Mcp-Session-Id`;
///   see `deploy/nginx.conf`). 2026-07-28 clients have no sessions.
///
/// How tasks are kept:
///
/// - Each task is one hash, `{prefix}task:{id}`, holding its version and its
///   [`TaskRecord`] as JSON; it expires in Redis when the record does (a task still working
///   at its expiry: a minute later).
/// - Every change is one Lua script: a compare-and-set on the version, so concurrent writers
///   from several replicas never lose each other's edits, and an announcement on
///   `{prefix}task-changed` (pub/sub, over RESP3 on the same connection) that wakes the
///   replicas waiting on that task at once; waiters also read again every second, since
///   announcements are lost while a connection is down.
/// - The connection is a `redis::aio::ConnectionManager`: it reconnects by itself; while Redis is unreachable every method fails with [`TaskStoreError`], which
///   the server answers as an internal error and retries for its own writes.
///
/// Durability is Redis's: for finished results to survive a Redis restart, run it with
/// `appendonly yes` (and `appendfsync always` to lose nothing even when Redis itself is
/// killed; `everysec` loses at most a second), as `deploy/redis.conf` does.
#[derive(Clone)]
pub struct RedisStore {
    connection: ConnectionManager,
    prefix: Arc<str>,
    channel: Arc<str>,
    waiters: Arc<Waiters>,
    create: Arc<Script>,
    update: Arc<Script>,
    load_session: Arc<Script>,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

/// The tasks this process waits on, each with a counter raised when its change is announced.
#[derive(Default)]
struct Waiters(Mutex<HashMap<String, watch::Sender<u64>>>);

impl Waiters {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, watch::Sender<u64>>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn subscribe(&self, task_id: &str) -> watch::Receiver<u64> {
        self.lock()
            .entry(task_id.to_owned())
            .or_insert_with(|| watch::channel(0).0)
            .subscribe()
    }

    /// Waits on `task_id` until the returned guard is dropped (however the wait ends: a
    /// `changed` future dropped mid-wait included).
    fn wait_on<'a>(&'a self, task_id: &'a str) -> Waiting<'a> {
        Waiting {
            announced: Some(self.subscribe(task_id)),
            waiters: self,
            task_id,
        }
    }

    /// Forgets `task_id` when no one waits on it any more.
    fn release(&self, task_id: &str) {
        let mut waiters = self.lock();
        if waiters
            .get(task_id)
            .is_some_and(|sender| sender.receiver_count() == 0)
        {
            waiters.remove(task_id);
        }
    }

    fn announce(&self, task_id: &str) {
        if let Some(sender) = self.lock().get(task_id) {
            sender.send_modify(|count| *count = count.wrapping_add(1));
        }
    }

    /// Wakes every waiter (the connection dropped: announcements may have been lost).
    fn announce_all(&self) {
        for sender in self.lock().values() {
            sender.send_modify(|count| *count = count.wrapping_add(1));
        }
    }
}

/// A wait on one task's announcements; leaving it forgets the task when no one else waits.
struct Waiting<'a> {
    announced: Option<watch::Receiver<u64>>,
    waiters: &'a Waiters,
    task_id: &'a str,
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        drop(self.announced.take());
        self.waiters.release(self.task_id);
    }
}

impl RedisStore {
    /// Connects to the Redis at `url` (`redis://[user:password@]host:port[/db]`, or
    /// `rediss://` for TLS when the `redis` crate is built with it) with the key prefix
    /// `tool-sdk:`, and subscribes to task announcements.
    ///
    /// # Errors
    /// [`TaskStoreError`] naming the URL when it is not a Redis URL or Redis cannot be
    /// reached within 5 seconds.
    pub async fn connect(url: &str) -> Result<Self, TaskStoreError> {
        Self::connect_with_prefix(url, DEFAULT_PREFIX).await
    }

    /// [`RedisStore::connect`] with keys under `prefix` instead: services sharing one
    /// Redis keep their tasks apart this way.
    ///
    /// # Errors
    /// As [`RedisStore::connect`].
    pub async fn connect_with_prefix(url: &str, prefix: &str) -> Result<Self, TaskStoreError> {
        let failed = |error: &dyn std::fmt::Display| {
            TaskStoreError(format!("cannot use the Redis at {}: {error}", redact(url)))
        };
        let info = url.into_connection_info().map_err(|error| failed(&error))?;
        // Announcements arrive as RESP3 pushes on the command connection itself.
        let settings = info
            .redis_settings()
            .clone()
            .set_protocol(ProtocolVersion::RESP3);
        let info = info.set_redis_settings(settings);
        let client = redis::Client::open(info).map_err(|error| failed(&error))?;
        let waiters = Arc::new(Waiters::default());
        let channel: Arc<str> = format!("{prefix}task-changed").into();
        let pushed = Arc::clone(&waiters);
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(Duration::from_secs(5)))
            .set_response_timeout(Some(Duration::from_secs(5)))
            .set_automatic_resubscription()
            .set_push_sender(move |push: redis::PushInfo| {
                match push.kind {
                    PushKind::Message => {
                        if let Some(redis::Value::BulkString(task_id)) = push.data.get(1)
                            && let Ok(task_id) = std::str::from_utf8(task_id)
                        {
                            pushed.announce(task_id);
                        }
                    }
                    PushKind::Disconnection => pushed.announce_all(),
                    _ => {}
                }
                Ok::<(), redis::aio::SendError>(())
            });
        let mut connection = client
            .get_connection_manager_with_config(config)
            .await
            .map_err(|error| failed(&error))?;
        connection
            .subscribe(&*channel)
            .await
            .map_err(|error| failed(&error))?;
        Ok(Self {
            connection,
            prefix: prefix.into(),
            channel,
            waiters,
            create: Arc::new(Script::new(CREATE)),
            update: Arc::new(Script::new(UPDATE)),
            load_session: Arc::new(Script::new(LOAD_SESSION)),
        })
    }

    /// How many tasks this store's waits are on now (the crate's tests check none is left).
    #[cfg(feature = "test-support")]
    #[doc(hidden)]
    pub fn waits_on(&self) -> usize {
        self.waiters.lock().len()
    }

    fn key(&self, task_id: &str) -> String {
        format!("{}task:{task_id}", self.prefix)
    }

    fn session_key(&self, session_id: &str) -> String {
        format!("{}session:{session_id}", self.prefix)
    }

    /// The record of `task_id` with its stored version, as written.
    async fn read(&self, task_id: &str) -> Result<Option<(String, TaskRecord)>, TaskStoreError> {
        let mut connection = self.connection.clone();
        let (version, json): (Option<String>, Option<String>) = redis::cmd("HMGET")
            .arg(self.key(task_id))
            .arg("v")
            .arg("r")
            .query_async(&mut connection)
            .await
            .map_err(redis_error)?;
        let (Some(version), Some(json)) = (version, json) else {
            return Ok(None);
        };
        let record = serde_json::from_str(&json).map_err(|error| {
            TaskStoreError(format!(
                "the Redis record of task `{task_id}` is not a task record: {error}"
            ))
        })?;
        Ok(Some((version, record)))
    }
}

/// When Redis should drop a record: at its expiry, or `ORPHAN_GRACE` later while it is
/// still working (time for its server to end it).
fn drop_at_ms(record: &TaskRecord) -> u64 {
    if record.is_terminal() {
        record.expires_at_ms
    } else {
        record.expires_at_ms.saturating_add(millis(ORPHAN_GRACE))
    }
}

fn redis_error(error: redis::RedisError) -> TaskStoreError {
    TaskStoreError(format!("Redis: {error}"))
}

fn to_json(record: &TaskRecord) -> Result<String, TaskStoreError> {
    serde_json::to_string(record)
        .map_err(|error| TaskStoreError(format!("cannot write a task record: {error}")))
}

/// `url` without its password, for messages.
fn redact(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) if parsed.password().is_some() => {
            let _ = parsed.set_password(Some("***"));
            parsed.to_string()
        }
        Ok(_) => url.to_owned(),
        Err(_) => "the given URL".to_owned(),
    }
}

impl TaskStore for RedisStore {
    fn create(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), TaskStoreError>> {
        Box::pin(async move {
            let json = to_json(&record)?;
            let mut connection = self.connection.clone();
            let created: i64 = self
                .create
                .key(self.key(&record.task_id))
                .arg(record.version)
                .arg(json)
                .arg(drop_at_ms(&record))
                .arg(&*self.channel)
                .arg(&record.task_id)
                .invoke_async(&mut connection)
                .await
                .map_err(redis_error)?;
            if created == 1 {
                Ok(())
            } else {
                Err(TaskStoreError(format!(
                    "a task `{}` exists already",
                    record.task_id
                )))
            }
        })
    }

    fn get<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        Box::pin(async move { Ok(self.read(task_id).await?.map(|(_, record)| record)) })
    }

    fn update<'a>(
        &'a self,
        task_id: &'a str,
        edit: TaskEdit<'a>,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        Box::pin(async move {
            for _ in 0..UPDATE_TRIES {
                let Some((version, mut record)) = self.read(task_id).await? else {
                    return Ok(None);
                };
                edit(&mut record);
                record.version = record.version.wrapping_add(1);
                record.last_updated_at_ms = now_ms();
                let mut connection = self.connection.clone();
                let written: i64 = self
                    .update
                    .key(self.key(task_id))
                    .arg(&version)
                    .arg(record.version)
                    .arg(to_json(&record)?)
                    .arg(drop_at_ms(&record))
                    .arg(&*self.channel)
                    .arg(task_id)
                    .invoke_async(&mut connection)
                    .await
                    .map_err(redis_error)?;
                match written {
                    1 => return Ok(Some(record)),
                    -1 => return Ok(None),
                    _ => tokio::task::yield_now().await,
                }
            }
            Err(TaskStoreError(format!(
                "task `{task_id}` kept changing under {UPDATE_TRIES} tries to update it"
            )))
        })
    }

    fn changed<'a>(
        &'a self,
        task_id: &'a str,
        seen: u64,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        Box::pin(async move {
            let deadline = tokio::time::Instant::now() + timeout;
            // Subscribed before the first read, so no announcement falls between.
            let mut waiting = self.waiters.wait_on(task_id);
            loop {
                let Some((_, record)) = self.read(task_id).await? else {
                    return Ok(None);
                };
                let now = tokio::time::Instant::now();
                if record.version > seen || now >= deadline {
                    return Ok(Some(record));
                }
                let wait = (deadline - now).min(REREAD_EVERY);
                if let Some(announced) = waiting.announced.as_mut() {
                    let _ = tokio::time::timeout(wait, announced.changed()).await;
                    announced.mark_unchanged();
                }
            }
        })
    }
}

/// rmcp's store of 2025-11-25 sessions, for a session to be served by any replica.
#[async_trait::async_trait]
impl SessionStore for RedisStore {
    /// The session's state. A session in use does not expire: when less than 23 hours of
    /// its day are left, it is kept another day from now (a write at most once an hour).
    async fn load(&self, session_id: &str) -> Result<Option<SessionState>, SessionStoreError> {
        let mut connection = self.connection.clone();
        let json: Option<String> = self
            .load_session
            .key(self.session_key(session_id))
            .arg(millis(SESSION_KEPT))
            .arg(millis(SESSION_KEPT - SESSION_REFRESH))
            .invoke_async(&mut connection)
            .await?;
        Ok(json.map(|json| serde_json::from_str(&json)).transpose()?)
    }

    async fn store(&self, session_id: &str, state: &SessionState) -> Result<(), SessionStoreError> {
        let mut connection = self.connection.clone();
        let () = redis::cmd("SET")
            .arg(self.session_key(session_id))
            .arg(serde_json::to_string(state)?)
            .arg("PX")
            .arg(millis(SESSION_KEPT))
            .query_async(&mut connection)
            .await?;
        Ok(())
    }

    async fn delete(&self, session_id: &str) -> Result<(), SessionStoreError> {
        let mut connection = self.connection.clone();
        let _: i64 = redis::cmd("DEL")
            .arg(self.session_key(session_id))
            .query_async(&mut connection)
            .await?;
        Ok(())
    }
}
