//! The runtime over one frame connection (stdio, or any duplex of frames): the handshake era's
//! session bound to the connection (`initialize` first), and 2026-07-28 requests that carry
//! their identity in `_meta`, side by side as on the HTTP endpoint. Server messages of every
//! request, and change notifications, share the one outgoing queue (bounded).

use std::collections::HashMap;
use std::sync::Arc;

use mcp_wire::ProtocolVersion;
use mcp_wire::jsonrpc::{ErrorData, JsonRpcMessage, JsonRpcNotification, RawMessage, RequestId};
use mcp_wire::model::{ClientNotification, ClientRequest, ServerResult};
use mcp_wire::wire::parse_as;
use serde_json::Value;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use super::auth::Principal;
use super::context::{ContextInner, Outgoing, RequestContext, clone_inner, emit};
use super::error::codes;
use super::handler::{Boxed, Handler, keys};
use super::notify::{change_notification, listen_ack, session_change, tag_subscription};
use super::runtime::{envelope_reply, error_frame, parse_error, response_frame};
use super::session::{Ended, Session, new_session_id};
use super::shared::{Runtime, Server};
use crate::telemetry::{self, Held, Open, RequestTrace, Wire};
use crate::{Connection, Frame, FrameSender};

/// The one revision with JSON-RPC batches; an array at any other is one -32600 (id null).
const BATCH_REVISION: ProtocolVersion = ProtocolVersion::V2025_03_26;

impl<H: Handler> Server<H> {
    /// Serves one connection (e.g. [`crate::stdio::serve_stdio`]'s) until the client closes
    /// its side: reads client frames from `connection.receiver`, writes server frames to
    /// `connection.sender`. Every request read before the end is answered within
    /// [`Limits::input_end_grace`](super::Limits::input_end_grace) (a request waiting for the
    /// client's answer to a question of its own fails, since none can arrive; one still running
    /// after the grace is cancelled); returns once each answer is queued, and closes the
    /// connection, whose transport writes the queue out ([`crate::ConnectionHandle::ended`]
    /// says when).
    pub async fn serve_connection(self: &Arc<Self>, connection: Connection, principal: Principal) {
        self.runtime().run_connection(connection, principal).await;
    }

    /// Serves on our own stdin/stdout (a server launched by a client) until stdin ends, and
    /// returns once every request read before then has been answered and its answer written
    /// and flushed (or could not be), so the process may exit.
    pub async fn serve_stdio(self: &Arc<Self>) {
        self.runtime().run_stdio().await;
    }
}

impl Runtime {
    /// [`Server::serve_stdio`] for any handler type; built and boxed here as
    /// [`Runtime::run_connection`]'s future is.
    fn run_stdio(self: Arc<Self>) -> Boxed<'static, ()> {
        Box::pin(async move {
            let stdio = crate::stdio::serve_stdio(crate::stdio::StdioOptions::default());
            let handle = stdio.connection.handle.clone();
            self.run_connection(stdio.connection, Principal::anonymous())
                .await;
            // `run_connection` closed it: the answers still queued are written first.
            handle.ended().await;
        })
    }

    /// [`Server::serve_connection`] for any handler type. The future is built (and boxed)
    /// here, so that a server's crate only polls it: were it built in the generic caller,
    /// its whole body would be compiled again in that crate.
    fn run_connection(
        self: Arc<Self>,
        connection: Connection,
        principal: Principal,
    ) -> Boxed<'static, ()> {
        Box::pin(async move { self.serve_frames(connection, principal).await })
    }

    /// What [`Server::serve_connection`] does.
    async fn serve_frames(self: &Arc<Self>, connection: Connection, principal: Principal) {
        let Connection {
            sender: outgoing,
            receiver: mut incoming,
            handle,
        } = connection;
        let mut session: Option<Arc<Session>> = None;
        let mut tasks = JoinSet::new();
        let mut listens: HashMap<RequestId, tokio::task::AbortHandle> = HashMap::new();
        let mut changes_task: Option<tokio::task::AbortHandle> = None;
        while let Some(frame) = incoming.recv().await {
            // Reap finished tasks so the set stays as large as the work in flight.
            while tasks.try_join_next().is_some() {}
            let revision = session.as_ref().map_or(self.fallback(), |s| s.revision);
            let value = frame.to_value().unwrap_or(Value::Null);
            if value.is_array()
                && let Some(s) = session.clone().filter(|s| s.revision == BATCH_REVISION)
            {
                self.spawn_batch(&mut tasks, s, value, &principal, outgoing.clone());
                continue;
            }
            let message = match RawMessage::from_value(value.clone()) {
                Ok(m) => m,
                Err(e) => {
                    if let Some(reply) = envelope_reply(frame.as_str(), &e) {
                        let answer = error_frame(reply.id, reply.error, revision).0;
                        let _ = outgoing.send(answer).await;
                    }
                    continue;
                }
            };
            match message {
                JsonRpcMessage::Request(r) => {
                    let modern = value
                        .pointer("/params/_meta")
                        .and_then(|m| m.get(keys::PROTOCOL_VERSION))
                        .is_some()
                        && self
                            .shared
                            .revisions
                            .contains(&ProtocolVersion::LATEST_STATELESS);
                    if modern {
                        self.connection_stateless(
                            &frame,
                            &value,
                            r.id,
                            &principal,
                            &outgoing,
                            &mut tasks,
                            &mut listens,
                        )
                        .await;
                        continue;
                    }
                    if r.request.method == "initialize" {
                        let (answer, new) =
                            self.connection_initialize(&frame, &value, r.id, &principal);
                        if let Some(new) = new {
                            // A second `initialize` replaces the session: the first one ends
                            // (its handler state, its notification task).
                            if let Some(old) = session.replace(new.clone()) {
                                old.close(Ended::Replaced);
                            }
                            if let Some(h) = changes_task.take() {
                                h.abort();
                            }
                            // Change notifications for this session, on the same queue.
                            let out = outgoing.clone();
                            let mut changes = self.shared.notifier.listen();
                            changes_task = Some(
                                crate::spawn::spawn_in(&mut tasks, async move {
                                    loop {
                                        let notifications = tokio::select! {
                                            change = changes.recv() => match change {
                                                Ok(change) => {
                                                    session_change(&change, &new)
                                                        .into_iter()
                                                        .collect()
                                                }
                                                Err(RecvError::Lagged(_)) => Vec::new(),
                                                Err(RecvError::Closed) => break,
                                            },
                                            () = new.push_signal.notified() => {
                                                new.take_pushed()
                                            }
                                        };
                                        if new.has_ended() {
                                            break;
                                        }
                                        for n in notifications {
                                            if let Ok(f) =
                                                emit(&JsonRpcNotification::new(n), new.revision)
                                                && out.send(f).await.is_err()
                                            {
                                                return;
                                            }
                                        }
                                    }
                                })
                                .clone(),
                            );
                        }
                        let _ = outgoing.send(answer).await;
                        continue;
                    }
                    let Some(s) = session.clone() else {
                        let error = ErrorData::new(codes::INVALID_REQUEST, "initialize first");
                        let _ = outgoing
                            .send(error_frame(Some(r.id), error, revision).0)
                            .await;
                        continue;
                    };
                    let request = match parse_as::<ClientRequest>(frame.as_str(), s.revision) {
                        Ok(req) => req,
                        Err(e) => {
                            let error = parse_error(&e);
                            let method = r.request.method.as_str();
                            telemetry::refused(
                                Wire::Stdio,
                                method,
                                s.revision,
                                &r.id,
                                &principal,
                                &error,
                            );
                            let _ = outgoing
                                .send(error_frame(Some(r.id), error, s.revision).0)
                                .await;
                            continue;
                        }
                    };
                    let base =
                        self.session_context(&s, r.id.clone(), &request, principal.clone(), None);
                    let handle =
                        self.spawn_answer(&mut tasks, base, request, outgoing.clone(), None);
                    s.track(r.id, handle);
                }
                JsonRpcMessage::Notification(_) => {
                    let rev = session
                        .as_ref()
                        .map_or(ProtocolVersion::LATEST_STATELESS, |s| s.revision);
                    if let Ok(ClientNotification::Cancelled(c)) =
                        parse_as::<ClientNotification>(frame.as_str(), rev)
                        && let Some(id) = c.params.request_id
                    {
                        if let Some(s) = &session {
                            s.cancel(&id);
                        }
                        if let Some(h) = listens.remove(&id) {
                            h.abort();
                        }
                    }
                }
                JsonRpcMessage::Response(r) => {
                    if let Some(s) = &session {
                        s.deliver(&r.id, Ok(Value::Object(r.result)));
                    }
                }
                JsonRpcMessage::Error(e) => {
                    if let (Some(s), Some(id)) = (&session, &e.id) {
                        s.deliver(id, Err(e.error.clone()));
                    }
                }
                #[allow(unreachable_patterns)]
                _ => {}
            }
        }
        // The client closed its side. What only it could observe stops (its listen streams, its
        // session's notifications), what waits for its answers fails (none can arrive), and the
        // requests it sent before run on to their answers, for the grace at most; then the
        // session ends and what still runs is cancelled.
        if let Some(h) = changes_task {
            h.abort();
        }
        for (_, h) in listens.drain() {
            h.abort();
        }
        if let Some(s) = &session {
            s.end_input();
        }
        let answered = async { while tasks.join_next().await.is_some() {} };
        let _ = tokio::time::timeout(self.shared.limits.input_end_grace, answered).await;
        if let Some(s) = &session {
            s.close(Ended::Disconnected);
        }
        tasks.shutdown().await;
        handle.close();
    }

    fn fallback(&self) -> ProtocolVersion {
        self.shared
            .revisions
            .iter()
            .rev()
            .find(|v| **v != ProtocolVersion::LATEST_STATELESS)
            .copied()
            .unwrap_or(ProtocolVersion::LATEST_STATELESS)
    }

    /// `initialize` on a connection: the answer, and the new session when it succeeded.
    fn connection_initialize(
        self: &Arc<Self>,
        frame: &Frame,
        value: &Value,
        id: RequestId,
        principal: &Principal,
    ) -> (Frame, Option<Arc<Session>>) {
        let legacy: Vec<ProtocolVersion> = self
            .shared
            .revisions
            .iter()
            .copied()
            .filter(|v| *v != ProtocolVersion::LATEST_STATELESS)
            .collect();
        let Some(latest) = legacy.last().copied() else {
            let error = ErrorData::new(
                codes::UNSUPPORTED_PROTOCOL_VERSION,
                "Unsupported protocol version",
            )
            .with_data(
                serde_json::json!({"supported": [ProtocolVersion::LATEST_STATELESS.as_str()]}),
            );
            return (
                error_frame(Some(id), error, ProtocolVersion::LATEST_STATELESS).0,
                None,
            );
        };
        let revision = value
            .pointer("/params/protocolVersion")
            .and_then(Value::as_str)
            .and_then(|s| s.parse::<ProtocolVersion>().ok())
            .filter(|v| legacy.contains(v))
            .unwrap_or(latest);
        let trace = RequestTrace::start(Wire::Stdio, "initialize", revision, &id, principal, None);
        let _entered = trace.span().clone().entered();
        let ((frame, code), session) = match parse_as::<ClientRequest>(frame.as_str(), revision) {
            Ok(ClientRequest::Initialize(init)) => {
                match self.open_session(new_session_id(), revision, &init.params, principal.clone())
                {
                    Ok((session, result)) => {
                        trace.span().record("session", &*session.id);
                        let answer = Ok(ServerResult::Initialize(result));
                        let framed = response_frame(&self.shared, id, answer, revision, None);
                        (framed, Some(session))
                    }
                    Err(error) => (error_frame(Some(id), error, revision), None),
                }
            }
            Ok(_) => {
                let error = ErrorData::new(codes::INVALID_REQUEST, "not an initialize request");
                (error_frame(Some(id), error, revision), None)
            }
            Err(e) => (error_frame(Some(id), parse_error(&e), revision), None),
        };
        trace.finish(code);
        (frame, session)
    }

    /// A 2026-07-28 request on a connection.
    #[allow(clippy::too_many_arguments)]
    async fn connection_stateless(
        self: &Arc<Self>,
        frame: &Frame,
        value: &Value,
        id: RequestId,
        principal: &Principal,
        outgoing: &FrameSender,
        tasks: &mut JoinSet<()>,
        listens: &mut HashMap<RequestId, tokio::task::AbortHandle>,
    ) {
        let method = value.get("method").and_then(Value::as_str).unwrap_or("");
        let refuse = |error: ErrorData| {
            telemetry::refused(
                Wire::Stdio,
                method,
                ProtocolVersion::LATEST_STATELESS,
                &id,
                principal,
                &error,
            );
            error_frame(Some(id.clone()), error, ProtocolVersion::LATEST_STATELESS).0
        };
        let facts = mcp_wire::facts::revision(ProtocolVersion::LATEST_STATELESS);
        if facts.request(method).is_none() {
            let error = ErrorData::new(
                codes::METHOD_NOT_FOUND,
                format!("method not found: {method}"),
            );
            let _ = outgoing.send(refuse(error)).await;
            return;
        }
        let meta = value.pointer("/params/_meta");
        let version = meta
            .and_then(|m| m.get(keys::PROTOCOL_VERSION))
            .and_then(Value::as_str);
        if version != Some(ProtocolVersion::LATEST_STATELESS.as_str()) {
            let error = ErrorData::new(
                codes::UNSUPPORTED_PROTOCOL_VERSION,
                "Unsupported protocol version",
            )
            .with_data(serde_json::json!({"supported": [ProtocolVersion::LATEST_STATELESS.as_str()], "requested": version}));
            let _ = outgoing.send(refuse(error)).await;
            return;
        }
        let request =
            match parse_as::<ClientRequest>(frame.as_str(), ProtocolVersion::LATEST_STATELESS) {
                Ok(r) => r,
                Err(e) => {
                    let _ = outgoing.send(refuse(parse_error(&e))).await;
                    return;
                }
            };
        if let ClientRequest::SubscriptionsListen(listen) = &request {
            use tracing::Instrument;
            let ctx = self.stateless_context(id.clone(), &request, principal.clone(), Vec::new());
            let trace = RequestTrace::start(
                Wire::Stdio,
                "subscriptions/listen",
                ProtocolVersion::LATEST_STATELESS,
                &id,
                principal,
                None,
            );
            let planned = self
                .handler
                .listen(&ctx, listen.params.notifications.clone())
                .instrument(trace.span().clone())
                .await;
            let (filter, guard) = match planned {
                Ok(planned) => {
                    trace.finish(None);
                    planned
                }
                Err(e) => {
                    trace.finish(Some(e.code));
                    let _ = outgoing
                        .send(error_frame(Some(id), e, ProtocolVersion::LATEST_STATELESS).0)
                        .await;
                    return;
                }
            };
            let id_value = serde_json::to_value(&id).unwrap_or(Value::Null);
            let out = outgoing.clone();
            let mut changes = self.shared.notifier.listen();
            let handle = crate::spawn::spawn_in(tasks, async move {
                // Held for as long as the stream lives.
                let _guard = guard;
                let _subscription = Held::new(Open::ListenSubscription);
                if let Ok(f) = emit(
                    &JsonRpcNotification::new(listen_ack(&filter, &id_value)),
                    ProtocolVersion::LATEST_STATELESS,
                ) {
                    let _ = out.send(f).await;
                }
                while let Ok(change) = changes.recv().await {
                    if let Some(n) = change_notification(&change, &filter)
                        && let Ok(f) = emit(
                            &JsonRpcNotification::new(tag_subscription(n, &id_value)),
                            ProtocolVersion::LATEST_STATELESS,
                        )
                        && out.send(f).await.is_err()
                    {
                        break;
                    }
                }
            });
            listens.insert(id, handle);
            return;
        }
        let ctx = self.stateless_context(id, &request, principal.clone(), Vec::new());
        let meta = self.server_info_meta();
        self.spawn_answer(tasks, ctx, request, outgoing.clone(), Some(meta));
    }

    /// A 2025-03-26 batch on a connection, in `tasks`: each member handled alone, in order
    /// (what a member sends meanwhile — progress, logs, requests to the client — goes out at
    /// once), then the answers as one array; nothing when no member was a request.
    fn spawn_batch(
        self: &Arc<Self>,
        tasks: &mut JoinSet<()>,
        session: Arc<Session>,
        batch: Value,
        principal: &Principal,
        outgoing: FrameSender,
    ) {
        let server = self.clone();
        let principal = principal.clone();
        crate::spawn::spawn_in(tasks, async move {
            let revision = session.revision;
            let (tx, mut rx) = mpsc::channel::<Outgoing>(server.shared.limits.stream_queue);
            let forward = {
                let outgoing = outgoing.clone();
                crate::spawn::spawn(async move {
                    while let Some(out) = rx.recv().await {
                        if let Outgoing::Frame(f) = out
                            && outgoing.send(f).await.is_err()
                        {
                            break;
                        }
                    }
                })
            };
            let mut answers = Vec::new();
            for member in batch.as_array().into_iter().flatten() {
                let text = member.to_string();
                match RawMessage::from_value(member.clone()) {
                    Ok(JsonRpcMessage::Request(r)) => {
                        let frame = match parse_as::<ClientRequest>(&text, revision) {
                            Ok(ClientRequest::Initialize(_)) => {
                                let error = ErrorData::new(
                                    codes::INVALID_REQUEST,
                                    "initialize cannot be batched",
                                );
                                error_frame(Some(r.id), error, revision).0
                            }
                            Ok(request) => {
                                let ctx = server.session_context(
                                    &session,
                                    r.id.clone(),
                                    &request,
                                    principal.clone(),
                                    Some(tx.clone()),
                                );
                                server
                                    .answer_framed(Wire::Stdio, ctx, request, None)
                                    .await
                                    .0
                            }
                            Err(e) => error_frame(Some(r.id), parse_error(&e), revision).0,
                        };
                        answers.push(frame);
                    }
                    Ok(JsonRpcMessage::Response(r)) => {
                        session.deliver(&r.id, Ok(Value::Object(r.result)));
                    }
                    Ok(JsonRpcMessage::Error(e)) => {
                        if let Some(id) = &e.id {
                            session.deliver(id, Err(e.error.clone()));
                        }
                    }
                    Ok(JsonRpcMessage::Notification(_)) => {
                        if let Ok(ClientNotification::Cancelled(c)) =
                            parse_as::<ClientNotification>(&text, revision)
                            && let Some(id) = c.params.request_id
                        {
                            session.cancel(&id);
                        }
                    }
                    #[allow(unreachable_patterns)]
                    Ok(_) => {}
                    Err(e) => {
                        if let Some(reply) = envelope_reply(&text, &e) {
                            answers.push(error_frame(reply.id, reply.error, revision).0);
                        }
                    }
                }
            }
            drop(tx);
            let _ = forward.await;
            if answers.is_empty() {
                return;
            }
            let mut text = Vec::from(&b"["[..]);
            for (i, f) in answers.iter().enumerate() {
                if i > 0 {
                    text.push(b',');
                }
                text.extend_from_slice(f.as_bytes());
            }
            text.push(b']');
            let _ = outgoing.send(Frame::from_emitted(text)).await;
        });
    }

    /// Runs one request in `tasks`; its stream frames and then its answer go to `outgoing`.
    fn spawn_answer(
        self: &Arc<Self>,
        tasks: &mut JoinSet<()>,
        base: RequestContext,
        request: ClientRequest,
        outgoing: FrameSender,
        server_meta: Option<mcp_wire::model::Meta>,
    ) -> tokio::task::AbortHandle {
        let (tx, mut rx) = mpsc::channel::<Outgoing>(self.shared.limits.stream_queue);
        let ctx = RequestContext {
            inner: Arc::new(ContextInner {
                outbox: Some(tx),
                ..clone_inner(&base.inner)
            }),
        };
        let server = self.clone();
        crate::spawn::spawn_in(tasks, async move {
            let forward = {
                let outgoing = outgoing.clone();
                async move {
                    while let Some(out) = rx.recv().await {
                        if let Outgoing::Frame(f) = out
                            && outgoing.send(f).await.is_err()
                        {
                            break;
                        }
                    }
                }
            };
            let answer = async {
                server
                    .answer_framed(Wire::Stdio, ctx, request, server_meta.as_ref())
                    .await
                    .0
            };
            let ((), frame) = tokio::join!(forward, answer);
            let _ = outgoing.send(frame).await;
        })
    }
}
