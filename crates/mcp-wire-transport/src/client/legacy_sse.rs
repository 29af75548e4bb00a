//! The HTTP+SSE client of 2024-11-05: a GET opens the server's event stream, whose first
//! `endpoint` event names the URL every client message is POSTed to; every server message
//! arrives as a `message` event on the stream.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http::{Method, Request, Uri, header};
use http_body_util::Full;
use mcp_wire::ProtocolVersion;
use mcp_wire::jsonrpc::{RequestId, codes};
use mcp_wire::wire::RawFrame;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};
use tokio::task::JoinSet;

use super::ClientOptions;
use super::http::{
    HttpClient, Media, Reason, SseBody, client, each_answer, error_answer, hand, hand_bytes,
    media_type, parse_url, read_body, send, status_message,
};
use super::peek::messages;
use crate::stdio::close_requested;
use crate::{Connection, ConnectionEnd, Frame, TransportError};

/// Requests awaiting an answer on the stream, at most; a request beyond it is answered at once.
const MAX_PENDING: usize = 4096;

/// Connects to a 2024-11-05 server's SSE endpoint `url` (e.g. `http://127.0.0.1:3001/sse`):
/// waits (at most [`ClientOptions::request_timeout`]) for the `endpoint` event, which must name a
/// URL of the same origin. Closing the connection closes the stream. Must be called inside a
/// tokio runtime.
pub async fn connect_legacy_sse(
    url: &str,
    options: ClientOptions,
) -> Result<Connection, TransportError> {
    let url = parse_url(url)?;
    let http = client();
    let request = Request::builder()
        .method(Method::GET)
        .uri(url.clone())
        .header(header::ACCEPT, "text/event-stream")
        .body(Full::new(Bytes::new()))
        .map_err(|e| TransportError::protocol(codes::INVALID_PARAMS, e.to_string()))?;
    let response = send(&http, request, options.request_timeout).await?;
    let status = response.status();
    if !status.is_success() || media_type(response.headers()) != Media::EventStream {
        let body = read_body(response.into_body(), 1 << 16)
            .await
            .unwrap_or_default();
        return Err(TransportError::HttpStatus {
            status: status.as_u16(),
            message: status_message(status, &body),
        });
    }
    let mut stream = SseBody::new(response.into_body(), options.max_frame_bytes);
    let endpoint = tokio::time::timeout(options.request_timeout, async {
        loop {
            match stream.next().await? {
                Some(event) if event.event == "endpoint" => return Ok(event.data),
                Some(_) => continue,
                None => return Err(TransportError::PeerClosed),
            }
        }
    })
    .await
    .map_err(|_| TransportError::Timeout(options.request_timeout))??;
    let endpoint = resolve(&url, endpoint.trim())?;

    let (connection, mut driver) = Connection::pair(options.queue);
    let shared = Arc::new(Shared {
        client: http,
        endpoint,
        permits: Arc::new(Semaphore::new(options.max_in_flight.max(1))),
        options,
        incoming: driver.incoming.clone(),
        pending: Mutex::new(HashSet::new()),
    });
    let mut reading = crate::spawn::spawn(Arc::clone(&shared).read(stream));
    crate::spawn::spawn(async move {
        let mut posts = JoinSet::new();
        let mut close = driver.close_requested.clone();
        let end = loop {
            let frame = tokio::select! {
                frame = driver.outgoing.recv() => frame,
                () = close_requested(&mut close) => break ConnectionEnd::Closed,
                end = &mut reading => break end.unwrap_or_else(|e| {
                    ConnectionEnd::Failed(Arc::new(TransportError::Io(std::io::Error::other(e))))
                }),
            };
            let Some(frame) = frame else {
                break ConnectionEnd::Closed;
            };
            while posts.try_join_next().is_some() {}
            let permit = tokio::select! {
                permit = shared.permits.clone().acquire_owned() => permit.expect("never closed"),
                () = close_requested(&mut close) => break ConnectionEnd::Closed,
            };
            crate::spawn::spawn_in(&mut posts, Arc::clone(&shared).post(frame, permit));
        };
        reading.abort();
        posts.abort_all();
        // Requests still waiting for the stream are answered now: it is gone.
        let rest: Vec<RequestId> = shared.lock().drain().collect();
        shared
            .answer(
                rest,
                Reason::Closed,
                "the event stream ended before the answer",
            )
            .await;
        driver.finish(end);
    });
    Ok(connection)
}

/// The state of one HTTP+SSE connection.
struct Shared {
    client: HttpClient,
    endpoint: Uri,
    options: ClientOptions,
    permits: Arc<Semaphore>,
    incoming: mpsc::Sender<Frame>,
    /// Requests POSTed whose answers have not arrived on the stream.
    pending: Mutex<HashSet<RequestId>>,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<RequestId>> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Delivers the stream's `message` events until it ends.
    async fn read(self: Arc<Self>, mut stream: SseBody) -> ConnectionEnd {
        loop {
            match stream.next().await {
                Ok(Some(event)) => {
                    if !(event.event.is_empty() || event.event == "message") {
                        continue;
                    }
                    let note = |frame: &Frame, raw: Option<&RawFrame<'_>>| {
                        let mut pending = self.lock();
                        each_answer(frame, raw, |id, _| {
                            pending.remove(id);
                        });
                    };
                    let bytes = event.data.into();
                    // An event that is not one JSON value is skipped.
                    let handed =
                        hand_bytes(&self.incoming, self.options.tap.as_ref(), bytes, note).await;
                    if matches!(handed, Ok(false)) {
                        return ConnectionEnd::Closed;
                    }
                }
                Ok(None) => return ConnectionEnd::Closed,
                Err(e) => return ConnectionEnd::Failed(Arc::new(e)),
            }
        }
    }

    /// POSTs one frame to the endpoint; its requests are answered here if the POST fails.
    async fn post(self: Arc<Self>, frame: Frame, _permit: OwnedSemaphorePermit) {
        let requests: Vec<RequestId> = messages(&frame)
            .iter()
            .filter_map(|p| p.request_id().cloned())
            .collect();
        let admitted = {
            let mut pending = self.lock();
            let room = pending.len() + requests.len() <= MAX_PENDING;
            if room {
                pending.extend(requests.iter().cloned());
            }
            room
        };
        if !admitted {
            let message = format!("more than {MAX_PENDING} requests await answers");
            return self.answer(requests, Reason::Unavailable, &message).await;
        }
        let request = Request::builder()
            .method(Method::POST)
            .uri(self.endpoint.clone())
            .header(header::CONTENT_TYPE, "application/json")
            .body(Full::new(frame.into_bytes()));
        let failure = match request {
            Err(e) => Some((
                Reason::Unavailable,
                format!("cannot build the request: {e}"),
            )),
            Ok(request) => match send(&self.client, request, self.options.request_timeout).await {
                Err(e) => Some((
                    Reason::of(&e),
                    format!("POST {} failed: {e}", self.endpoint),
                )),
                Ok(response) => {
                    let status = response.status();
                    let body = read_body(response.into_body(), 1 << 16)
                        .await
                        .unwrap_or_default();
                    (!status.is_success())
                        .then(|| (Reason::Unavailable, status_message(status, &body)))
                }
            },
        };
        if let Some((reason, message)) = failure {
            let unanswered: Vec<RequestId> = {
                let mut pending = self.lock();
                requests
                    .into_iter()
                    .filter(|id| pending.remove(id))
                    .collect()
            };
            self.answer(unanswered, reason, &message).await;
        }
    }

    async fn answer(&self, ids: Vec<RequestId>, reason: Reason, message: &str) {
        for id in ids {
            let frame = error_answer(id, reason, message, None, ProtocolVersion::V2024_11_05);
            hand(&self.incoming, self.options.tap.as_ref(), frame).await;
        }
    }
}

/// The endpoint event's URI resolved against the stream's URL; it must keep the same origin.
fn resolve(base: &Uri, endpoint: &str) -> Result<Uri, TransportError> {
    let bad = |why: &str| {
        TransportError::protocol(
            codes::INTERNAL_ERROR,
            format!("bad endpoint event {endpoint:?}: {why}"),
        )
    };
    let authority = base.authority().map(|a| a.as_str()).unwrap_or_default();
    let absolute = if endpoint.starts_with("http://") || endpoint.starts_with("https://") {
        endpoint.to_owned()
    } else if endpoint.starts_with('/') {
        format!("http://{authority}{endpoint}")
    } else {
        let path = base.path();
        let dir = &path[..path.rfind('/').map_or(0, |i| i + 1)];
        format!("http://{authority}{dir}{endpoint}")
    };
    let uri: Uri = absolute.parse().map_err(|_| bad("not a URI"))?;
    if uri.scheme_str() != Some("http") || uri.authority().map(|a| a.as_str()) != Some(authority) {
        return Err(bad("not the stream's origin"));
    }
    Ok(uri)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_resolve_against_the_stream_url_and_keep_its_origin() {
        let base: Uri = "http://127.0.0.1:3001/mcp/sse".parse().unwrap();
        assert_eq!(
            resolve(&base, "/message?sessionId=abc").unwrap(),
            "http://127.0.0.1:3001/message?sessionId=abc"
        );
        assert_eq!(
            resolve(&base, "messages?s=1").unwrap(),
            "http://127.0.0.1:3001/mcp/messages?s=1"
        );
        assert_eq!(
            resolve(&base, "http://127.0.0.1:3001/m").unwrap(),
            "http://127.0.0.1:3001/m"
        );
        assert!(resolve(&base, "http://evil.example/m").is_err());
    }
}
