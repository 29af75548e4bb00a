//! [`Frame`], one JSON-RPC message as it travelled, and [`Connection`], the bounded duplex of
//! frames every client transport returns.

use std::fmt;
use std::sync::Arc;

use bytes::Bytes;
use serde_json::Value;
use tokio::sync::{mpsc, watch};

use mcp_wire::jsonrpc::codes;
use mcp_wire::wire::{FrameError, ParseErrorKind, RawFrame};

use crate::TransportError;

/// One JSON-RPC message (or a 2025-03-26 batch) as the exact UTF-8 text that travelled.
///
/// A frame is checked once, when it is made ([`Frame::parse`]): the bytes are UTF-8 and hold
/// exactly one JSON value (surrounding ASCII whitespace, such as stdio's newline, is trimmed).
/// Reading it as a typed message is the boundary's job (`mcp_wire::wire::parse_as`).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Frame(Bytes);

impl Frame {
    /// Checks that `bytes` hold one JSON value and wraps them (without copying).
    pub fn parse(bytes: impl Into<Bytes>) -> Result<Self, TransportError> {
        let bytes = trim_ascii(bytes.into());
        let text = std::str::from_utf8(&bytes)
            .map_err(|e| TransportError::BadFrame(format!("not UTF-8: {e}")))?;
        serde_json::from_str::<serde::de::IgnoredAny>(text)
            .map_err(|e| TransportError::BadFrame(format!("not one JSON value: {e}")))?;
        Ok(Self(bytes))
    }

    /// [`Frame::parse`] for bytes that are normally one JSON-RPC message, read once: the
    /// envelope split ([`RawFrame::split`], which reads the whole text) is the check, and `read`
    /// gets the frame with it. Bytes that hold one JSON value but not one valid message (a
    /// batch, a bad envelope) are checked as `parse` checks them, and `read` gets `None`; bytes
    /// that hold no JSON value are the same error as `parse`'s.
    pub fn parse_split<T>(
        bytes: impl Into<Bytes>,
        read: impl FnOnce(&Frame, Option<&RawFrame<'_>>) -> T,
    ) -> Result<(Self, T), TransportError> {
        let frame = Self::unchecked_json(bytes)?;
        let read = match RawFrame::split(frame.as_str()) {
            Ok(raw) => read(&frame, Some(&raw)),
            Err(e) => {
                not_json(&e)?;
                read(&frame, None)
            }
        };
        Ok((frame, read))
    }

    /// The trimmed bytes as a frame once they are UTF-8, their JSON not yet checked: for the
    /// crate's readers that split the envelope right after ([`RawFrame::split`] reads the whole
    /// text) and refuse the frame when the split says it is not JSON ([`not_json`]).
    pub(crate) fn unchecked_json(bytes: impl Into<Bytes>) -> Result<Self, TransportError> {
        let bytes = trim_ascii(bytes.into());
        std::str::from_utf8(&bytes)
            .map_err(|e| TransportError::BadFrame(format!("not UTF-8: {e}")))?;
        Ok(Self(bytes))
    }

    /// Wraps text our own code produced (compact JSON from `serialize_for_vec`) without
    /// re-checking it.
    pub fn from_emitted(bytes: Vec<u8>) -> Self {
        debug_assert!(
            Self::parse(bytes.clone()).is_ok(),
            "emitted a non-JSON frame"
        );
        Self(Bytes::from(bytes))
    }

    /// The frame's text.
    pub fn as_str(&self) -> &str {
        // Checked in `parse`; `from_emitted` takes serde_json's (UTF-8) output.
        std::str::from_utf8(&self.0).unwrap_or_default()
    }

    /// The frame's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// The frame's bytes, without copying.
    pub fn into_bytes(self) -> Bytes {
        self.0
    }

    /// The frame as an untyped JSON value.
    pub fn to_value(&self) -> Result<Value, TransportError> {
        // Read as text (checked UTF-8): the one JSON reader every other path uses.
        serde_json::from_str(self.as_str()).map_err(|e| TransportError::BadFrame(e.to_string()))
    }

    /// The frame's size in bytes.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the frame is empty (never true for a parsed frame).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for Frame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Frame").field(&self.as_str()).finish()
    }
}

impl fmt::Display for Frame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl AsRef<[u8]> for Frame {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

/// The error of a frame whose envelope split found no JSON value (the splitter's own verdict;
/// its other faults are of a JSON value that is not one message, which [`Frame::parse`]
/// accepts).
pub(crate) fn not_json(split: &FrameError) -> Result<(), TransportError> {
    if split.error.kind == ParseErrorKind::Syntax {
        return Err(TransportError::BadFrame(format!(
            "not one JSON value: {}",
            split.error.message
        )));
    }
    Ok(())
}

/// `bytes` without leading and trailing ASCII whitespace (a slice of the same buffer).
fn trim_ascii(bytes: Bytes) -> Bytes {
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(start, |i| i + 1);
    bytes.slice(start..end)
}

/// How a connection ended.
#[derive(Debug, Clone)]
pub enum ConnectionEnd {
    /// Closed in order: by [`ConnectionHandle::close`], or the peer ended the stream cleanly.
    Closed,
    /// The transport failed.
    Failed(Arc<TransportError>),
}

/// The sending half of a [`Connection`]: frames to the peer (cloneable; bounded).
#[derive(Debug, Clone)]
pub struct FrameSender(mpsc::Sender<Frame>);

impl FrameSender {
    /// Queues `frame` for the peer, waiting while the queue is full.
    pub async fn send(&self, frame: Frame) -> Result<(), TransportError> {
        self.0
            .send(frame)
            .await
            .map_err(|_| TransportError::PeerClosed)
    }

    /// Queues `frame` if there is room now.
    pub fn try_send(&self, frame: Frame) -> Result<(), TransportError> {
        self.0.try_send(frame).map_err(|e| match e {
            mpsc::error::TrySendError::Full(_) => {
                TransportError::protocol(codes::INTERNAL_ERROR, "outgoing frame queue is full")
            }
            mpsc::error::TrySendError::Closed(_) => TransportError::PeerClosed,
        })
    }
}

/// The receiving half of a [`Connection`]: frames from the peer (bounded).
#[derive(Debug)]
pub struct FrameReceiver(mpsc::Receiver<Frame>);

impl FrameReceiver {
    /// The next frame from the peer; `None` once the connection has ended (see
    /// [`ConnectionHandle::ended`] for why).
    pub async fn recv(&mut self) -> Option<Frame> {
        self.0.recv().await
    }
}

/// Closes a [`Connection`] and tells how it ended (cloneable).
#[derive(Debug, Clone)]
pub struct ConnectionHandle {
    close: Arc<watch::Sender<bool>>,
    end: watch::Receiver<Option<ConnectionEnd>>,
    server_stream: watch::Receiver<bool>,
}

impl ConnectionHandle {
    /// Asks the transport to close the connection (idempotent).
    pub fn close(&self) {
        self.close.send_replace(true);
    }

    /// How the connection ended, once it has (`None` while it is open).
    pub fn end(&self) -> Option<ConnectionEnd> {
        self.end.borrow().clone()
    }

    /// Waits until what the server sends outside any request can reach this connection: at once
    /// where one channel carries everything (stdio, the HTTP+SSE transport, the stateless
    /// wire); on Streamable HTTP's stateful wire, once the standalone stream that opens after
    /// `notifications/initialized` is answered (opened, or declined by the server). Returns
    /// when the connection ends, too. A server announces a change only to the streams open
    /// when it happens, so a client that must not miss one (say, the update of a resource it
    /// just subscribed to) waits here first.
    pub async fn server_stream_ready(&self) {
        let mut ready = self.server_stream.clone();
        let mut end = self.end.clone();
        tokio::select! {
            _ = ready.wait_for(|open| *open) => {}
            _ = end.wait_for(Option::is_some) => {}
        }
    }

    /// Waits until the connection has ended and says how.
    pub async fn ended(&self) -> ConnectionEnd {
        let mut end = self.end.clone();
        match end.wait_for(Option::is_some).await {
            Ok(value) => value.clone().unwrap_or(ConnectionEnd::Closed),
            // The transport went away without saying why.
            Err(_) => ConnectionEnd::Failed(Arc::new(TransportError::PeerClosed)),
        }
    }
}

/// The one client-side interface every client transport returns: a bounded duplex of frames.
#[derive(Debug)]
pub struct Connection {
    /// Frames to the peer.
    pub sender: FrameSender,
    /// Frames from the peer.
    pub receiver: FrameReceiver,
    /// Closes the connection; tells how it ended.
    pub handle: ConnectionHandle,
}

impl Connection {
    /// A connection whose queues hold at most `capacity` frames each way, and the transport's
    /// side of it.
    pub fn pair(capacity: usize) -> (Connection, ConnectionDriver) {
        let capacity = capacity.max(1);
        let (out_tx, out_rx) = mpsc::channel(capacity);
        let (in_tx, in_rx) = mpsc::channel(capacity);
        let (close_tx, close_rx) = watch::channel(false);
        let (end_tx, end_rx) = watch::channel(None);
        let (stream_tx, stream_rx) = watch::channel(true);
        let connection = Connection {
            sender: FrameSender(out_tx),
            receiver: FrameReceiver(in_rx),
            handle: ConnectionHandle {
                close: Arc::new(close_tx),
                end: end_rx,
                server_stream: stream_rx,
            },
        };
        let driver = ConnectionDriver {
            incoming: in_tx,
            outgoing: out_rx,
            close_requested: close_rx,
            end: end_tx,
            server_stream: Arc::new(stream_tx),
        };
        (connection, driver)
    }

    /// Asks the transport to close the connection.
    pub fn close(&self) {
        self.handle.close();
    }

    /// Waits until the connection has ended and says how.
    pub async fn ended(&self) -> ConnectionEnd {
        self.handle.ended().await
    }

    /// Waits until what the server sends outside any request can reach this connection (see
    /// [`ConnectionHandle::server_stream_ready`]).
    pub async fn server_stream_ready(&self) {
        self.handle.server_stream_ready().await;
    }
}

/// The transport's side of a [`Connection`]: what a transport implementation drives.
#[derive(Debug)]
pub struct ConnectionDriver {
    /// Frames read from the peer go here.
    pub incoming: mpsc::Sender<Frame>,
    /// Frames to write to the peer come from here.
    pub outgoing: mpsc::Receiver<Frame>,
    /// Becomes `true` when the user asked to close.
    pub close_requested: watch::Receiver<bool>,
    end: watch::Sender<Option<ConnectionEnd>>,
    server_stream: Arc<watch::Sender<bool>>,
}

impl ConnectionDriver {
    /// For a transport whose server-initiated frames arrive on a stream of their own: from now
    /// until the returned gate opens (or is dropped), [`ConnectionHandle::server_stream_ready`]
    /// waits. Call it before handing out the [`Connection`].
    pub fn hold_server_stream(&self) -> ServerStreamGate {
        self.server_stream.send_replace(false);
        ServerStreamGate(self.server_stream.clone())
    }

    /// Records how the connection ended; the receiver yields `None` once `incoming` is dropped.
    pub fn finish(self, end: ConnectionEnd) {
        self.end.send_replace(Some(end));
    }

    /// Records a failure.
    pub fn fail(self, error: TransportError) {
        self.finish(ConnectionEnd::Failed(Arc::new(error)));
    }
}

/// Holds [`ConnectionHandle::server_stream_ready`] until the server's own stream is answered;
/// dropping it opens it too, so a transport that gives up never leaves a waiter hanging.
#[derive(Debug)]
pub struct ServerStreamGate(Arc<watch::Sender<bool>>);

impl Drop for ServerStreamGate {
    fn drop(&mut self) {
        self.0.send_replace(true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_trims_and_checks_one_value() {
        let frame =
            Frame::parse(&b" {\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":1}\n"[..]).unwrap();
        assert_eq!(
            frame.as_str(),
            r#"{"jsonrpc":"2.0","method":"ping","id":1}"#
        );
        assert!(matches!(
            Frame::parse(&b"{} {}"[..]),
            Err(TransportError::BadFrame(_))
        ));
        assert!(matches!(
            Frame::parse(&b""[..]),
            Err(TransportError::BadFrame(_))
        ));
        assert!(matches!(
            Frame::parse(&b"\xff"[..]),
            Err(TransportError::BadFrame(_))
        ));
        assert_eq!(frame.to_value().unwrap()["id"], 1);
    }

    #[test]
    fn parse_split_accepts_and_refuses_exactly_what_parse_does() {
        let cases: [&[u8]; 14] = [
            b" {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n",
            b"{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":\"a\"}",
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-1,\"message\":\"m\"}}",
            // One JSON value, not one valid message: a batch, a bad envelope, a repeated member.
            b"[{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}]",
            b"{\"id\":1,\"result\":{}}",
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"result\":{}}",
            b"42",
            b"{}",
            // No JSON value, or more than one.
            b"{} {}",
            b"",
            b"\xff",
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}",
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"a\":tru}}",
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"a\":\"\\q\"}}",
        ];
        for bytes in cases {
            let parsed = Frame::parse(bytes);
            let split = Frame::parse_split(bytes, |frame, raw| {
                raw.map(|raw| {
                    assert_eq!(raw.text(), frame.as_str());
                    raw.envelope().clone()
                })
            });
            match (parsed, split) {
                (Ok(a), Ok((b, envelope))) => {
                    assert_eq!(a, b);
                    let valid = RawFrame::split(a.as_str())
                        .ok()
                        .map(|r| r.envelope().clone());
                    assert_eq!(envelope, valid, "{a}");
                }
                (Err(_), Err(TransportError::BadFrame(_))) => {}
                (a, b) => panic!(
                    "{:?}: parse {a:?}, parse_split {b:?}",
                    String::from_utf8_lossy(bytes)
                ),
            }
        }
    }

    #[tokio::test]
    async fn connection_carries_frames_and_reports_its_end() {
        let (mut conn, mut driver) = Connection::pair(2);
        conn.sender.send(Frame::parse("[]").unwrap()).await.unwrap();
        assert_eq!(driver.outgoing.recv().await.unwrap().as_str(), "[]");
        driver
            .incoming
            .send(Frame::parse("1").unwrap())
            .await
            .unwrap();
        assert_eq!(conn.receiver.recv().await.unwrap().as_str(), "1");
        conn.close();
        assert!(*driver.close_requested.borrow());
        let incoming = driver.incoming.clone();
        driver.fail(TransportError::PeerClosed);
        drop(incoming);
        assert!(conn.receiver.recv().await.is_none());
        assert!(
            matches!(conn.ended().await, ConnectionEnd::Failed(e) if matches!(*e, TransportError::PeerClosed))
        );
    }

    #[tokio::test]
    async fn the_server_stream_gate_holds_waiters_until_dropped_or_the_end() {
        let (conn, driver) = Connection::pair(1);
        // No gate: ready at once.
        conn.handle.server_stream_ready().await;
        let gate = driver.hold_server_stream();
        let waiting = conn.handle.server_stream_ready();
        tokio::pin!(waiting);
        assert!(
            tokio::time::timeout(std::time::Duration::from_millis(50), &mut waiting)
                .await
                .is_err(),
            "held while the gate is up"
        );
        drop(gate);
        waiting.await;
        // A gate never opened: the connection's end releases the waiter.
        let (conn, driver) = Connection::pair(1);
        let gate = driver.hold_server_stream();
        driver.finish(ConnectionEnd::Closed);
        conn.handle.server_stream_ready().await;
        drop(gate);
    }
}
