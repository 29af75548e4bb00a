//! A request's answer: JSON when the answer comes first, else an SSE stream that carries what
//! the handler sends (and keeps it in the session's replay log), then the answer.

use std::sync::Arc;
use std::time::Duration;

use axum::response::Response;
use bytes::Bytes;
use mcp_wire::ProtocolVersion;
use mcp_wire::model::{ClientRequest, Meta};
use tokio::sync::mpsc;

use super::response::{json_response, sse_response, status_for};
use crate::Frame;
use crate::server::context::{Outgoing, RequestContext};
use crate::server::runtime::AbortOnDrop;
use crate::server::session::{Session, StreamLog};
use crate::server::shared::Runtime;
use crate::telemetry::{self, StreamKind, Wire};

/// Runs a request and answers it: JSON when the answer comes first, else an SSE stream that
/// carries what the handler sends and then the answer.
pub(super) async fn answer_request(
    server: &Arc<Runtime>,
    wire: Wire,
    ctx: RequestContext,
    request: ClientRequest,
    session: Option<Arc<Session>>,
    server_meta: Option<Meta>,
) -> Response {
    let limits = server.shared.limits;
    let (tx, mut rx) = mpsc::channel::<Outgoing>(limits.stream_queue);
    let ctx = ctx.edited(|inner| inner.outbox = Some(tx.clone()));
    let revision = ctx.revision();
    let id = ctx.request_id().clone();
    let (final_tx, mut final_rx) = tokio::sync::oneshot::channel::<(Frame, Option<i64>)>();
    let task = {
        let server = server.clone();
        let session = session.clone();
        crate::spawn::spawn(async move {
            let framed = server
                .answer_framed(wire, ctx, request, server_meta.as_ref())
                .await;
            let _ = final_tx.send(framed);
            drop(tx);
            drop(session);
        })
    };
    if let Some(s) = &session {
        s.track(id.clone(), task.abort_handle());
    }
    let guard = AbortOnDrop(task.abort_handle());
    // JSON if the answer comes before anything else. What the handler sent before its answer
    // is queued first, so a queued frame wins over a ready answer (an answer-first choice
    // dropped the progress and logs of a handler that finished before this select ran).
    let first = tokio::select! {
        biased;
        out = rx.recv() => match out {
            Some(out) => Ok(Some(out)),
            // Every sender is gone without a frame: only the answer can come.
            None => Err((&mut final_rx).await),
        },
        answer = &mut final_rx => Err(answer),
    };
    match first {
        Err(Ok((frame, code))) => {
            drop(guard);
            json_response(status_for(revision, code), frame)
        }
        Err(Err(_)) => {
            // The request was cancelled (`notifications/cancelled`): no answer is sent, so the
            // POST gets an SSE stream that ends without an event.
            drop(guard);
            let (_, empty) = mpsc::channel::<Bytes>(1);
            sse_response(empty, StreamKind::Request, None)
        }
        Ok(first) => {
            // Stream: the pump owns the request from here (the guard moves with it).
            let log = session
                .as_ref()
                .filter(|s| s.revision.is_at_least(ProtocolVersion::V2025_03_26))
                .map(|s| s.open_stream());
            let priming = revision == ProtocolVersion::V2025_11_25 && log.is_some();
            let (sink, body_rx) = mpsc::channel::<Bytes>(limits.stream_queue);
            if let Some(log) = &log {
                log.attach(sink.clone());
            }
            crate::spawn::spawn(pump(
                PumpInput {
                    first,
                    rx,
                    final_rx,
                },
                log,
                sink,
                priming,
                limits.slow_reader_timeout,
                guard,
            ));
            sse_response(
                body_rx,
                StreamKind::Request,
                session.as_ref().map(|s| s.id.clone()),
            )
        }
    }
}

struct PumpInput {
    first: Option<Outgoing>,
    rx: mpsc::Receiver<Outgoing>,
    final_rx: tokio::sync::oneshot::Receiver<(Frame, Option<i64>)>,
}

/// Moves a request's frames to its SSE stream (and its replay log), then its answer.
async fn pump(
    mut input: PumpInput,
    log: Option<Arc<StreamLog>>,
    sink: mpsc::Sender<Bytes>,
    priming: bool,
    slow: Duration,
    guard: AbortOnDrop,
) {
    let mut writer = EventWriter {
        log,
        sink: Some(sink),
        slow,
    };
    if priming {
        writer
            .write(|id| Bytes::from(format!("id: {id}\ndata: \n\n")))
            .await;
    }
    let mut pending = input.first.take();
    loop {
        let out = match pending.take() {
            Some(o) => Some(o),
            None => tokio::select! {
                out = input.rx.recv() => out,
                // A request that writes nothing until its answer (no progress, no logs) still
                // learns that its client went away: that cancels it too.
                () = writer.closed() => return,
            },
        };
        match out {
            Some(Outgoing::Frame(f)) => writer.message(&f).await,
            Some(Outgoing::CloseStream { retry }) => {
                let ms = retry.as_millis();
                writer
                    .write(|id| Bytes::from(format!("id: {id}\nretry: {ms}\ndata: \n\n")))
                    .await;
                writer.detach();
            }
            None => break,
        }
        if writer.gone() {
            // The client went away without a replay log to come back to: that cancels.
            return;
        }
    }
    if let Ok((frame, _)) = input.final_rx.await {
        writer.message(&frame).await;
    }
    if let Some(log) = &writer.log {
        log.finish();
    }
    drop(guard);
}

/// Writes SSE events to the live connection (if any) and the replay log (if any).
pub(super) struct EventWriter {
    log: Option<Arc<StreamLog>>,
    sink: Option<mpsc::Sender<Bytes>>,
    slow: Duration,
}

impl EventWriter {
    pub(super) fn new(
        log: Option<Arc<StreamLog>>,
        sink: mpsc::Sender<Bytes>,
        slow: Duration,
    ) -> Self {
        EventWriter {
            log,
            sink: Some(sink),
            slow,
        }
    }

    pub(super) async fn message(&mut self, frame: &Frame) {
        let data = frame.as_str().to_owned();
        self.write(move |id| {
            Bytes::from(if id.is_empty() {
                format!("event: message\ndata: {data}\n\n")
            } else {
                format!("id: {id}\nevent: message\ndata: {data}\n\n")
            })
        })
        .await;
    }

    pub(super) async fn write(&mut self, render: impl FnOnce(&str) -> Bytes) {
        let (event, sink) = match &self.log {
            Some(log) => log.record(render),
            None => (render(""), self.sink.clone()),
        };
        let Some(sink) = sink else { return };
        let sent = tokio::time::timeout(self.slow, sink.send(event)).await;
        if !matches!(sent, Ok(Ok(()))) {
            if sent.is_err() {
                telemetry::limit_hit("slow_reader_timeout");
            }
            // Slow or gone: drop the connection; a log keeps the events for a resumption.
            self.detach();
        }
    }

    pub(super) fn detach(&mut self) {
        self.sink = None;
        if let Some(log) = &self.log {
            log.detach();
        }
    }

    /// Resolves once there is no way left to deliver: the connection closed with no log to
    /// keep the events (never, while a log is kept or no connection was attached).
    pub(super) async fn closed(&self) {
        match (&self.log, &self.sink) {
            (None, Some(sink)) => sink.closed().await,
            _ => std::future::pending().await,
        }
    }

    /// Whether there is no way left to deliver (no connection, no log).
    pub(super) fn gone(&self) -> bool {
        self.log.is_none() && self.sink.as_ref().is_none_or(|s| s.is_closed())
    }
}
