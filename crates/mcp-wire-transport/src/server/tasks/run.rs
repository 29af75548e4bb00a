//! Running a request as a task: [`RequestContext::run_as_task`] puts a tool's work into the
//! store and hands it the task's own context, and [`payload`] answers a 2025-11-25
//! `tasks/result`, carrying the task's input requests to the client while it waits.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use mcp_wire::jsonrpc::ErrorData;
use mcp_wire::model::{CallToolResult, InputRequest, RelatedTaskMetadata, ServerResult};
use serde_json::json;

use super::{CoreStep, Outcome, TaskHome, TaskLink, TaskOffer};
use crate::server::context::{InputMode, RequestContext};
use crate::server::error::{HandlerError, HandlerResult, codes};
use crate::server::handler::input_params_meta;

impl RequestContext {
    /// Whether this request may be answered with a task: a 2026-07-28 `tools/call` to a server
    /// offering the tasks extension from a client that declared it, or a task-augmented
    /// 2025-11-25 `tools/call` of a tool that supports tasks.
    pub fn tasks_negotiated(&self) -> bool {
        self.task_offer().is_some()
    }

    /// The store a task of this request goes to, when it may run as one.
    fn task_offer(&self) -> Option<TaskOffer> {
        match self.input_mode() {
            InputMode::Stateless(s) => s.tasks.clone(),
            InputMode::Session(link) => link.tasks.clone(),
            InputMode::Task(_) => None,
        }
        .filter(|t| t.negotiated)
    }

    /// Runs `work` as a task when [`RequestContext::tasks_negotiated`]: the task is stored,
    /// `work` starts in the background with the task's own context (whose
    /// [`RequestContext::input`] parks the task until `tasks/update` answers, or at 2025-11-25
    /// until a `tasks/result` carries the question to the client and its answer back), and
    /// this returns `Err(HandlerError::TaskCreated)`, which the runtime answers with a
    /// `CreateTaskResult` (the extension's flat one, or 2025-11-25's).
    /// Otherwise `work` runs here, with this context, and its result is the answer.
    ///
    /// `work`'s tool errors (`isError`) end the task `completed`; its JSON-RPC errors (and a
    /// panic, `-32603`) end it `failed`.
    pub async fn run_as_task<F, Fut>(&self, work: F) -> HandlerResult<CallToolResult>
    where
        F: FnOnce(RequestContext) -> Fut,
        Fut: Future<Output = HandlerResult<CallToolResult>> + Send + 'static,
    {
        let Some(offer) = self.task_offer() else {
            return work(self.clone()).await;
        };
        let store = offer.store;
        let owner: Arc<str> = self.principal().key().clone();
        let id = store.insert(&owner)?;
        let link = TaskLink {
            store: store.clone(),
            id: id.clone(),
            timeout: store.limits.client_answer_timeout,
        };
        let fut = work(self.for_task(link));
        let inner = crate::spawn::spawn(fut);
        store.set_abort(&id, inner.abort_handle());
        {
            let store = store.clone();
            let id = id.clone();
            crate::spawn::spawn(async move {
                let outcome = match inner.await {
                    Ok(Ok(result)) => Outcome::Completed(result),
                    Ok(Err(HandlerError::Rpc(e))) => Outcome::Failed(e),
                    Ok(Err(_)) => Outcome::Failed(ErrorData::new(
                        codes::INTERNAL_ERROR,
                        "the task's work cannot stop for input or start another task",
                    )),
                    Err(e) if e.is_panic() => Outcome::Failed(ErrorData::new(
                        codes::INTERNAL_ERROR,
                        "the task's work panicked",
                    )),
                    Err(_) => Outcome::Cancelled,
                };
                store.finish(&id, outcome);
            });
        }
        let info = {
            let tasks = store.tasks.lock();
            let e = tasks
                .get(&id)
                .ok_or_else(|| HandlerError::internal("the task vanished"))?;
            store.tasks.info(&id, e)
        };
        Err(HandlerError::TaskCreated(Box::new(info)))
    }
}

/// `tasks/result` at 2025-11-25 on task `id` of `ctx`'s principal, reached through `home`:
/// waits until the task ends (at most the task TTL, `ttl`) and answers what the call would
/// have (its result with `_meta.related-task`, or its error); while it waits, the task's input
/// requests go to the client on `ctx`'s stream and its answers back to the task. Each wait
/// lasts at most `slice`, so a task on another replica is asked again at that pace.
pub(crate) async fn payload(
    home: &impl TaskHome,
    ctx: &RequestContext,
    id: &str,
    ttl: Duration,
    slice: Duration,
) -> HandlerResult<ServerResult> {
    let owner = ctx.principal().key().clone();
    let deadline = tokio::time::Instant::now() + ttl;
    loop {
        let until = deadline.min(tokio::time::Instant::now() + slice);
        match home.next_step(&owner, id, until).await? {
            CoreStep::Done(Ok(mut result)) => {
                result
                    .meta
                    .get_or_insert_with(mcp_wire::model::Meta::new)
                    .set_related_task(RelatedTaskMetadata::new(id));
                return Ok(ServerResult::CallTool(result));
            }
            CoreStep::Done(Err(error)) => return Err(HandlerError::Rpc(error)),
            CoreStep::Ask(requests) => {
                let keys: Vec<String> = requests.iter().map(|(k, _)| k.clone()).collect();
                let related = requests
                    .into_iter()
                    .map(|(k, r)| (k, with_related_task(r, id)));
                match ctx.inputs(related).await {
                    Ok(answers) => home.deliver(&owner, id, answers).await?,
                    Err(e) => {
                        home.unrelay(&owner, id, keys).await?;
                        return Err(e);
                    }
                }
            }
            CoreStep::Wait if tokio::time::Instant::now() >= deadline => {
                return Err(HandlerError::internal(format!(
                    "task {id} did not finish within its TTL"
                )));
            }
            CoreStep::Wait => {}
        }
    }
}

/// `request` with `_meta.io.modelcontextprotocol/related-task` naming task `id` (a request
/// without params is left as it is).
fn with_related_task(mut request: InputRequest, id: &str) -> InputRequest {
    if let Some(meta) = input_params_meta(&mut request) {
        meta.insert(
            mcp_wire::model::meta::keys::RELATED_TASK.to_owned(),
            json!({ "taskId": id }),
        );
    }
    request
}
