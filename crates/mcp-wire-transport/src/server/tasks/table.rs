//! A bounded table of tasks kept for a fixed time, the rule the runtime's task store and the
//! bridge's share: at most `max_tasks` entries; a new task first sweeps the expired ones, then
//! (if still full) drops the oldest finished one, and a table full of running tasks refuses it
//! ([`TableFull`]); each entry is kept `ttl` after its creation, a running one stopped
//! ([`TaskEntry::stop`]) when a sweep drops it; a task is [`owned`] by the principal that
//! created it. The entry, what stopping does and the error a refusal becomes are the caller's.

use std::collections::HashMap;
use std::ops::{Deref, DerefMut};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use mcp_wire::jsonrpc::{ErrorData, codes};
use mcp_wire::model::{TaskInfo, TaskStatus};

/// What a [`TaskTable`] keeps for each task beside its id and timestamps.
pub trait TaskEntry {
    /// The principal that created the task: only it reaches the task.
    fn owner(&self) -> &str;

    /// The task's state: `working` and `input_required` are running, the rest finished.
    fn status(&self) -> TaskStatus;

    /// Stops the running task's work (its TTL passed: the table drops it next).
    fn stop(&mut self);

    /// Whether the task still runs (a running task never makes room for a new one).
    fn running(&self) -> bool {
        matches!(
            self.status(),
            TaskStatus::Working | TaskStatus::InputRequired
        )
    }
}

/// One task of a [`TaskTable`]: its entry (through `Deref`) and its timestamps.
pub struct TaskRecord<E> {
    created: Instant,
    created_at: String,
    updated_at: String,
    entry: E,
}

impl<E> TaskRecord<E> {
    /// When the task was created (its age decides expiry and eviction).
    pub fn created(&self) -> Instant {
        self.created
    }

    /// Marks the task as changed now (its `lastUpdatedAt`).
    pub fn touch(&mut self) {
        self.updated_at = iso8601(SystemTime::now());
    }
}

impl<E> Deref for TaskRecord<E> {
    type Target = E;
    fn deref(&self) -> &E {
        &self.entry
    }
}

impl<E> DerefMut for TaskRecord<E> {
    fn deref_mut(&mut self) -> &mut E {
        &mut self.entry
    }
}

/// The table refused a task: it holds `max_tasks` running ones.
#[derive(Debug, PartialEq, Eq)]
pub struct TableFull;

/// The records of a locked [`TaskTable`], by task id.
pub type TaskRecords<'t, E> = MutexGuard<'t, HashMap<String, TaskRecord<E>>>;

/// Tasks by id, bounded in count and kept for a fixed time (see the module docs).
pub struct TaskTable<E> {
    records: Mutex<HashMap<String, TaskRecord<E>>>,
    max_tasks: usize,
    ttl: Duration,
    poll_interval: Duration,
}

impl<E: TaskEntry> TaskTable<E> {
    /// An empty table of at most `max_tasks` tasks, each kept `ttl`, polled every
    /// `poll_interval` (as their wire form suggests).
    pub fn new(max_tasks: usize, ttl: Duration, poll_interval: Duration) -> Self {
        let records = Mutex::new(HashMap::new());
        Self {
            records,
            max_tasks,
            ttl,
            poll_interval,
        }
    }

    /// The records as they are, expired ones included (a poisoned lock is taken over: the
    /// records are consistent between operations).
    pub fn lock(&self) -> TaskRecords<'_, E> {
        self.records.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The records after a sweep: those whose TTL passed are dropped, running ones stopped.
    pub fn live(&self) -> TaskRecords<'_, E> {
        let mut records = self.lock();
        records.retain(|_, r| {
            let keep = r.created.elapsed() < self.ttl;
            if !keep && r.running() {
                r.stop();
            }
            keep
        });
        records
    }

    /// Keeps `entry` as the new task `id` and returns its wire form; a full table drops its
    /// oldest finished task for it, or refuses it when every task runs.
    pub fn insert(&self, id: String, entry: E) -> Result<TaskInfo, TableFull> {
        let mut records = self.live();
        if records.len() >= self.max_tasks {
            let oldest_finished = records
                .iter()
                .filter(|(_, r)| !r.running())
                .min_by_key(|(_, r)| r.created)
                .map(|(id, _)| id.clone())
                .ok_or(TableFull)?;
            records.remove(&oldest_finished);
        }
        let now = iso8601(SystemTime::now());
        let (created_at, updated_at) = (now.clone(), now);
        let record = TaskRecord {
            created: Instant::now(),
            created_at,
            updated_at,
            entry,
        };
        let info = self.info(&id, &record);
        records.insert(id, record);
        Ok(info)
    }

    /// The wire form of task `id`'s base fields (TTL and poll interval in ms, at least 1).
    pub fn info(&self, id: &str, record: &TaskRecord<E>) -> TaskInfo {
        let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1);
        let (created, updated) = (record.created_at.clone(), record.updated_at.clone());
        TaskInfo::new(id, record.status(), created, updated, Some(ms(self.ttl)))
            .with_poll_interval_ms(ms(self.poll_interval))
    }
}

/// `owner`'s task `id` among `records`; another owner's task is as unknown as a missing one
/// (`-32602`, the id in `data.taskId`).
pub fn owned<'t, E: TaskEntry>(
    records: &'t mut HashMap<String, TaskRecord<E>>,
    owner: &str,
    id: &str,
) -> Result<&'t mut TaskRecord<E>, ErrorData> {
    let unknown = || {
        ErrorData::new(codes::INVALID_PARAMS, format!("unknown task: {id}"))
            .with_data(serde_json::json!({ "taskId": id }))
    };
    let record = records.get_mut(id).filter(|r| r.owner() == owner);
    record.ok_or_else(unknown)
}

/// `t` as ISO 8601 UTC with milliseconds, e.g. `2026-12-02T04:05:06.789Z` (task timestamps);
/// a time outside the years 1970 to 9999 is written as the nearer end of that range.
pub fn iso8601(t: SystemTime) -> String {
    let last = UNIX_EPOCH + Duration::from_millis(253_402_300_799_999);
    humantime::format_rfc3339_millis(t.clamp(UNIX_EPOCH, last)).to_string()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    use super::*;

    /// A task in state `.0`; `.1` says whether it was stopped (and outlives it).
    struct Job(TaskStatus, Arc<AtomicBool>);

    impl TaskEntry for Job {
        fn owner(&self) -> &str {
            "o"
        }
        fn status(&self) -> TaskStatus {
            self.0
        }
        fn stop(&mut self) {
            self.1.store(true, Ordering::SeqCst);
        }
    }

    /// Adds a task of `status` to `t`; its stopped flag.
    fn add(t: &TaskTable<Job>, id: &str, status: TaskStatus) -> Result<Arc<AtomicBool>, TableFull> {
        let stopped = Arc::new(AtomicBool::new(false));
        t.insert(id.into(), Job(status, stopped.clone()))?;
        std::thread::sleep(Duration::from_millis(2));
        Ok(stopped)
    }

    fn ids(t: &TaskTable<Job>) -> Vec<String> {
        let mut ids: Vec<String> = t.live().keys().cloned().collect();
        ids.sort();
        ids
    }

    #[test]
    fn iso8601_is_utc_with_millis() {
        assert_eq!(iso8601(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let t = UNIX_EPOCH + Duration::from_millis(1_796_184_306_789);
        assert_eq!(iso8601(t), "2026-12-02T04:05:06.789Z");
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400);
        assert_eq!(iso8601(leap), "2000-02-29T00:00:00.000Z");
        let before = UNIX_EPOCH - Duration::from_secs(1);
        assert_eq!(iso8601(before), "1970-01-01T00:00:00.000Z");
        let after = UNIX_EPOCH + Duration::from_secs(400_000_000_000);
        assert_eq!(iso8601(after), "9999-12-31T23:59:59.999Z");
    }

    #[test]
    fn the_oldest_finished_task_makes_room_and_running_ones_refuse() {
        use TaskStatus::{Completed, Failed, InputRequired, Working};
        let t = TaskTable::new(3, Duration::from_secs(60), Duration::ZERO);
        add(&t, "a", Working).unwrap();
        add(&t, "b", Failed).unwrap();
        add(&t, "c", Completed).unwrap();
        add(&t, "d", InputRequired).unwrap();
        assert_eq!(ids(&t), ["a", "c", "d"]);
        add(&t, "e", Working).unwrap();
        assert_eq!(ids(&t), ["a", "d", "e"]);
        assert_eq!(add(&t, "f", Completed).err(), Some(TableFull));
        assert_eq!(ids(&t), ["a", "d", "e"]);
    }

    #[test]
    fn expired_tasks_are_swept_and_running_ones_stopped() {
        let t = TaskTable::new(2, Duration::from_millis(30), Duration::ZERO);
        let running = add(&t, "a", TaskStatus::Working).unwrap();
        let finished = add(&t, "b", TaskStatus::Cancelled).unwrap();
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(t.lock().len(), 2, "expiry waits for a sweep");
        add(&t, "c", TaskStatus::Working).unwrap();
        assert_eq!(ids(&t), ["c"]);
        assert!(running.load(Ordering::SeqCst));
        assert!(!finished.load(Ordering::SeqCst));
    }

    #[test]
    fn the_wire_form_counts_ms_and_only_the_owner_reaches_a_task() {
        let t = TaskTable::new(1, Duration::from_secs(90), Duration::ZERO);
        let info = t
            .insert("a".into(), Job(TaskStatus::Working, Arc::default()))
            .unwrap();
        assert_eq!(info.task_id, "a");
        assert_eq!(info.status, TaskStatus::Working);
        assert_eq!(info.ttl_ms, Some(90_000));
        assert_eq!(info.poll_interval_ms, Some(1));
        assert_eq!(info.created_at, info.last_updated_at);
        assert!(owned(&mut t.lock(), "o", "a").is_ok());
        for (owner, id) in [("p", "a"), ("o", "b")] {
            let unknown = owned(&mut t.lock(), owner, id).err().unwrap();
            assert_eq!(unknown.code, codes::INVALID_PARAMS);
            assert_eq!(unknown.data, Some(serde_json::json!({ "taskId": id })));
        }
    }
}
