//! The stdio transport: newline-delimited JSON-RPC frames over a byte pipe, in both roles.
//!
//! - [`serve_stdio`]: a server on our own stdin/stdout.
//! - [`spawn_child`]: a client that starts a server process and talks to its stdin/stdout, shuts
//!   it down cleanly on close (stdin closed, a grace period, then a kill) and reports its exit.
//! - [`pipe`]: the same over any reader and writer (sockets, in-memory pipes in tests).
//!
//! Every one returns a [`Connection`]. When the input ends, the receiver ends (after the frames
//! already read); what happens to the connection depends on the role. A server's ([`pipe`],
//! [`serve_stdio`]) stays open for writing, so that every request read before the end is
//! answered: it ends when the user closes it (frames already queued are written and flushed
//! first) or drops every sender. A child's ([`spawn_child`]) ends: a child that closed its
//! stdout is exiting. A line longer than [`StdioOptions::max_line_bytes`] is
//! skipped in constant memory (the reader stops buffering at the limit and discards up to the next
//! newline) and counted in [`LineStats`], as is a line that is not one JSON value; blank lines are
//! ignored. Frames we write never contain a raw newline: JSON allows `\n` and `\r` only as
//! whitespace between tokens, so they are written as spaces, which keeps the text equivalent.

use std::process::ExitStatus;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, watch};

use crate::{Connection, ConnectionDriver, ConnectionEnd, Frame, TransportError};

/// Settings of a stdio transport.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct StdioOptions {
    /// The longest line read as a frame, newline excluded; longer lines are skipped.
    pub max_line_bytes: usize,
    /// Frames buffered each way before the sender waits.
    pub queue: usize,
    /// How long a child may take to exit after its stdin is closed before it is killed.
    pub shutdown_grace: Duration,
}

impl Default for StdioOptions {
    fn default() -> Self {
        Self {
            // Real peers carry base64 images and blobs of tens of MiB over stdio.
            max_line_bytes: 128 << 20,
            queue: 64,
            shutdown_grace: Duration::from_secs(5),
        }
    }
}

impl StdioOptions {
    /// Sets [`StdioOptions::max_line_bytes`].
    pub fn max_line_bytes(mut self, bytes: usize) -> Self {
        self.max_line_bytes = bytes;
        self
    }

    /// Sets [`StdioOptions::queue`].
    pub fn queue(mut self, frames: usize) -> Self {
        self.queue = frames;
        self
    }

    /// Sets [`StdioOptions::shutdown_grace`].
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.shutdown_grace = grace;
        self
    }
}

/// Counts of the lines a reader skipped (shared; cheap to clone), and a feed of them for a
/// peer that answers each one ([`LineStats::subscribe`]).
#[derive(Debug, Clone, Default)]
pub struct LineStats(Arc<Counters>);

/// Skipped lines a [`LineStats::subscribe`] receiver may lag behind before it misses some.
const SKIPPED_BACKLOG: usize = 16;

#[derive(Debug)]
struct Counters {
    oversized: AtomicU64,
    malformed: AtomicU64,
    skipped: tokio::sync::broadcast::Sender<Skipped>,
}

impl Default for Counters {
    fn default() -> Self {
        Self {
            oversized: AtomicU64::new(0),
            malformed: AtomicU64::new(0),
            skipped: tokio::sync::broadcast::channel(SKIPPED_BACKLOG).0,
        }
    }
}

/// A line a reader skipped, as [`LineStats::subscribe`] reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Skipped {
    /// Over the line limit; its length in bytes, newline excluded (it was never buffered).
    Oversized {
        /// The skipped line's length.
        size: usize,
        /// The limit it exceeded.
        limit: usize,
    },
    /// Not one JSON value (or not UTF-8): why.
    Malformed(String),
}

impl LineStats {
    /// Every line skipped from now on, in order (a receiver more than 16 lines behind misses
    /// the oldest; nothing is kept when no one subscribed).
    pub fn subscribe(&self) -> tokio::sync::broadcast::Receiver<Skipped> {
        self.0.skipped.subscribe()
    }

    /// Lines skipped for exceeding the line limit.
    pub fn oversized(&self) -> u64 {
        self.0.oversized.load(Ordering::Relaxed)
    }

    /// Lines skipped for not being one JSON value.
    pub fn malformed(&self) -> u64 {
        self.0.malformed.load(Ordering::Relaxed)
    }
}

/// One line read by a [`LineReader`].
#[derive(Debug)]
pub(crate) enum Line {
    /// A frame.
    Frame(Frame),
    /// A line over the limit, skipped; `size` is its length in bytes.
    Oversized {
        /// The skipped line's length, newline excluded.
        size: usize,
    },
    /// A line that is not one JSON value (or not UTF-8).
    Malformed(TransportError),
}

/// Reads newline-delimited frames, holding at most `max_line_bytes` of one line in memory.
#[derive(Debug)]
pub(crate) struct LineReader<R> {
    reader: R,
    max: usize,
    line: Vec<u8>,
    /// Bytes of an oversized line discarded so far (`Some` while skipping one).
    skipping: Option<usize>,
}

impl<R: AsyncBufRead + Unpin> LineReader<R> {
    /// A reader of lines of at most `max_line_bytes` bytes.
    pub fn new(reader: R, max_line_bytes: usize) -> Self {
        Self {
            reader,
            max: max_line_bytes,
            line: Vec::new(),
            skipping: None,
        }
    }

    /// The next non-blank line; `None` at the end of input. A last line without a newline counts.
    pub async fn next_line(&mut self) -> std::io::Result<Option<Line>> {
        loop {
            let chunk = self.reader.fill_buf().await?;
            if chunk.is_empty() {
                if let Some(size) = self.skipping.take() {
                    return Ok(Some(Line::Oversized { size }));
                }
                if self.line.is_empty() {
                    return Ok(None);
                }
                let line = std::mem::take(&mut self.line);
                if let Some(line) = Self::finish(line) {
                    return Ok(Some(line));
                }
                continue;
            }
            let newline = memchr::memchr(b'\n', chunk);
            let take = newline.map_or(chunk.len(), |i| i + 1);
            let content = &chunk[..newline.unwrap_or(chunk.len())];
            match &mut self.skipping {
                Some(skipped) => *skipped += content.len(),
                None if self.line.len() + content.len() > self.max => {
                    self.skipping = Some(self.line.len() + content.len());
                    // Give the memory back: a skipped line must not leave a huge buffer behind.
                    self.line = Vec::new();
                }
                None => self.line.extend_from_slice(content),
            }
            self.reader.consume(take);
            if newline.is_none() {
                continue;
            }
            if let Some(size) = self.skipping.take() {
                return Ok(Some(Line::Oversized { size }));
            }
            let line = std::mem::take(&mut self.line);
            if let Some(line) = Self::finish(line) {
                return Ok(Some(line));
            }
        }
    }

    /// A complete line as a frame, or `None` when it is blank.
    fn finish(line: Vec<u8>) -> Option<Line> {
        if line.iter().all(u8::is_ascii_whitespace) {
            return None;
        }
        Some(match Frame::parse(line) {
            Ok(frame) => Line::Frame(frame),
            Err(e) => Line::Malformed(e),
        })
    }
}

/// Writes `frame` as one line (raw `\n`/`\r` between tokens written as spaces) and flushes.
pub async fn write_frame<W: AsyncWrite + Unpin>(
    writer: &mut W,
    frame: &Frame,
) -> std::io::Result<()> {
    let bytes = frame.as_bytes();
    if memchr::memchr2(b'\n', b'\r', bytes).is_some() {
        let line: Vec<u8> = bytes
            .iter()
            .map(|&b| if b == b'\n' || b == b'\r' { b' ' } else { b })
            .collect();
        writer.write_all(&line).await?;
    } else {
        writer.write_all(bytes).await?;
    }
    writer.write_all(b"\n").await?;
    writer.flush().await
}

/// A stdio connection: the frames, and the counts of skipped lines.
#[derive(Debug)]
pub struct StdioConnection {
    /// The frames both ways.
    pub connection: Connection,
    /// Lines the reader skipped.
    pub stats: LineStats,
}

/// A connection to a child process's stdin/stdout.
#[derive(Debug)]
pub struct ChildConnection {
    /// The frames both ways.
    pub connection: Connection,
    /// Lines the reader skipped.
    pub stats: LineStats,
    /// The child's exit, once it has exited.
    pub exit: ChildExit,
}

/// How a child process exited (cloneable).
#[derive(Debug, Clone)]
pub struct ChildExit(watch::Receiver<Option<Result<ExitStatus, Arc<std::io::Error>>>>);

impl ChildExit {
    /// The exit status once the child has exited (`None` while it runs).
    pub fn status(&self) -> Option<Result<ExitStatus, Arc<std::io::Error>>> {
        self.0.borrow().clone()
    }

    /// Waits for the child to exit.
    pub async fn wait(&self) -> Result<ExitStatus, Arc<std::io::Error>> {
        let mut rx = self.0.clone();
        match rx.wait_for(Option::is_some).await {
            Ok(status) => status.clone().unwrap_or_else(|| Err(gone())),
            Err(_) => Err(gone()),
        }
    }
}

fn gone() -> Arc<std::io::Error> {
    Arc::new(std::io::Error::other("the child's supervisor ended"))
}

/// Serves on our own stdin/stdout (a server launched by a client). The end of stdin ends the
/// receiver; a process that exits once it has answered waits for [`Connection::ended`] after
/// closing, so that its answers are written and flushed first.
pub fn serve_stdio(options: StdioOptions) -> StdioConnection {
    pipe(tokio::io::stdin(), tokio::io::stdout(), options)
}

/// A connection over any reader and writer. Must be called inside a tokio runtime.
pub fn pipe<R, W>(reader: R, writer: W, options: StdioOptions) -> StdioConnection
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (connection, mut driver) = Connection::pair(options.queue);
    let stats = LineStats::default();
    let lines = LineReader::new(BufReader::new(reader), options.max_line_bytes);
    let reading = crate::spawn::spawn(read_lines(
        lines,
        reader_sender(&mut driver),
        stats.clone(),
        Counted::Yes,
    ));
    crate::spawn::spawn(async move {
        let (driver, end, _writer) = drive(
            driver,
            writer,
            reading,
            InputEnd::ReceiverEnds,
            Counted::Yes,
        )
        .await;
        driver.finish(end);
    });
    StdioConnection { connection, stats }
}

/// Starts `command` with piped stdin and stdout (stderr as the command says) and connects to it.
///
/// Closing the connection (or dropping every sender) closes the child's stdin; a child still
/// running after [`StdioOptions::shutdown_grace`] is killed. The connection ends `Closed` when the
/// child exits successfully, and fails with its exit status otherwise.
pub fn spawn_child(
    mut command: tokio::process::Command,
    options: StdioOptions,
) -> Result<ChildConnection, TransportError> {
    command
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true);
    let mut child = command.spawn()?;
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(TransportError::Io(std::io::Error::other(
            "child process without piped stdin/stdout",
        )));
    };
    let (connection, mut driver) = Connection::pair(options.queue);
    let stats = LineStats::default();
    let (exit_tx, exit_rx) = watch::channel(None);
    let lines = LineReader::new(BufReader::new(stdout), options.max_line_bytes);
    let reading = crate::spawn::spawn(read_lines(
        lines,
        reader_sender(&mut driver),
        stats.clone(),
        Counted::No,
    ));
    let grace = options.shutdown_grace;
    crate::spawn::spawn(async move {
        let (driver, end, stdin) = drive(driver, stdin, reading, InputEnd::Ends, Counted::No).await;
        // Closing stdin is the shutdown request of the stdio transport.
        drop(stdin);
        let status = match tokio::time::timeout(grace, child.wait()).await {
            Ok(status) => status,
            Err(_) => {
                let _ = child.start_kill();
                child.wait().await
            }
        };
        let end = match (&status, end) {
            (_, ConnectionEnd::Failed(e)) => ConnectionEnd::Failed(e),
            (Ok(s), ConnectionEnd::Closed) if s.success() => ConnectionEnd::Closed,
            (Ok(s), ConnectionEnd::Closed) => ConnectionEnd::Failed(Arc::new(TransportError::Io(
                std::io::Error::other(format!("child process exited with {s}")),
            ))),
            (Err(e), ConnectionEnd::Closed) => ConnectionEnd::Failed(Arc::new(TransportError::Io(
                std::io::Error::new(e.kind(), e.to_string()),
            ))),
        };
        exit_tx.send_replace(Some(status.map_err(Arc::new)));
        driver.finish(end);
    });
    Ok(ChildConnection {
        connection,
        stats,
        exit: ChildExit(exit_rx),
    })
}

/// The driver's sender of incoming frames, handed to the reader alone: the receiver then ends
/// when the reader does (the input ended or failed), whatever the writer still does. (The
/// driver keeps a sender of a channel nobody reads.)
fn reader_sender(driver: &mut ConnectionDriver) -> mpsc::Sender<Frame> {
    let (unread, _) = mpsc::channel(1);
    std::mem::replace(&mut driver.incoming, unread)
}

/// What the end of the input (cleanly, at EOF) does to a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum InputEnd {
    /// The connection ends: a child that closed its stdout is exiting.
    Ends,
    /// Only the receiver ends; the writer goes on until the user closes the connection or drops
    /// every sender: a server answers the requests it read before its client closed its side.
    ReceiverEnds,
}

/// Whether a connection's bytes count in the `mcp_bytes_*_total{transport="stdio"}` metrics:
/// those of a pipe we serve (ours, or one handed to us), not a child's we are a client of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Counted {
    Yes,
    No,
}

/// Reads lines into `incoming` until the input ends (`Closed`) or fails.
async fn read_lines<R: AsyncBufRead + Unpin>(
    mut lines: LineReader<R>,
    incoming: mpsc::Sender<Frame>,
    stats: LineStats,
    counted: Counted,
) -> ConnectionEnd {
    loop {
        match lines.next_line().await {
            Ok(Some(Line::Frame(frame))) => {
                if counted == Counted::Yes {
                    crate::telemetry::bytes_received(
                        crate::telemetry::Transport::Stdio,
                        frame.as_bytes().len() + 1,
                    );
                }
                if incoming.send(frame).await.is_err() {
                    // The user dropped the receiver: nobody reads any more.
                    return ConnectionEnd::Closed;
                }
            }
            Ok(Some(Line::Oversized { size })) => {
                stats.0.oversized.fetch_add(1, Ordering::Relaxed);
                let limit = lines.max;
                let _ = stats.0.skipped.send(Skipped::Oversized { size, limit });
            }
            Ok(Some(Line::Malformed(e))) => {
                stats.0.malformed.fetch_add(1, Ordering::Relaxed);
                let _ = stats.0.skipped.send(Skipped::Malformed(e.to_string()));
            }
            Ok(None) => return ConnectionEnd::Closed,
            Err(e) => return ConnectionEnd::Failed(Arc::new(TransportError::Io(e))),
        }
    }
}

/// Resolves once the user asks to close; never when every handle is gone (dropping the handles
/// alone does not close a connection whose sender is still in use).
pub(crate) async fn close_requested(close: &mut watch::Receiver<bool>) {
    if close.wait_for(|closed| *closed).await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// Writes outgoing frames until the user closes (the frames already queued are written
/// first), drops every sender, the writer fails, the reader fails, or the input ends where
/// `input_end` says that ends the connection; returns the driver, how it ended and the writer
/// (flushed, still open).
async fn drive<W: AsyncWrite + Unpin>(
    mut driver: ConnectionDriver,
    mut writer: W,
    mut reading: tokio::task::JoinHandle<ConnectionEnd>,
    input_end: InputEnd,
    counted: Counted,
) -> (ConnectionDriver, ConnectionEnd, W) {
    let failed = |e: std::io::Error| ConnectionEnd::Failed(Arc::new(TransportError::Io(e)));
    let mut close = driver.close_requested.clone();
    let mut reader_running = true;
    let end = loop {
        tokio::select! {
            frame = driver.outgoing.recv() => match frame {
                Some(frame) => {
                    if let Err(e) = write_frame(&mut writer, &frame).await {
                        break failed(e);
                    }
                    if counted == Counted::Yes {
                        crate::telemetry::bytes_sent(
                            crate::telemetry::Transport::Stdio,
                            frame.as_bytes().len() + 1,
                        );
                    }
                }
                None => break ConnectionEnd::Closed,
            },
            () = close_requested(&mut close) => {
                let mut end = ConnectionEnd::Closed;
                while let Ok(frame) = driver.outgoing.try_recv() {
                    if let Err(e) = write_frame(&mut writer, &frame).await {
                        end = failed(e);
                        break;
                    }
                }
                break end;
            }
            end = &mut reading, if reader_running => {
                reader_running = false;
                match end.unwrap_or_else(|e| failed(std::io::Error::other(e))) {
                    ConnectionEnd::Closed if input_end == InputEnd::ReceiverEnds => {}
                    end => break end,
                }
            }
        }
    };
    reading.abort();
    let _ = writer.shutdown().await;
    (driver, end, writer)
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn lines_of(input: &[u8], max: usize) -> Vec<String> {
        let mut reader = LineReader::new(input, max);
        let mut out = Vec::new();
        while let Some(line) = reader.next_line().await.unwrap() {
            out.push(match line {
                Line::Frame(f) => f.as_str().to_owned(),
                Line::Oversized { size } => format!("oversized {size}"),
                Line::Malformed(_) => "malformed".to_owned(),
            });
        }
        out
    }

    #[tokio::test]
    async fn lines_are_split_skipped_and_counted() {
        let input = b"{\"a\":1}\n\n  \r\n{\"b\":[1,2]}\r\n0123456789012\nnot json\n[1]";
        assert_eq!(
            lines_of(input, 12).await,
            [
                "{\"a\":1}",
                "{\"b\":[1,2]}",
                "oversized 13",
                "malformed",
                "[1]"
            ]
        );
        // An oversized last line without a newline is still reported.
        assert_eq!(lines_of(b"1\n[1,2,3,4,5]", 4).await, ["1", "oversized 11"]);
    }

    #[tokio::test]
    async fn an_oversized_line_is_skipped_in_chunks_without_buffering_it() {
        // A reader with a tiny buffer forces the line through many fill_buf calls.
        let mut big = vec![b'['; 1];
        big.extend(std::iter::repeat_n(b'1', 100_000));
        big.extend_from_slice(b"]\n{}\n");
        let mut reader = LineReader::new(BufReader::with_capacity(64, &big[..]), 1000);
        assert!(matches!(
            reader.next_line().await.unwrap(),
            Some(Line::Oversized { size: 100_002 })
        ));
        assert!(reader.line.capacity() <= 1064, "{}", reader.line.capacity());
        assert!(
            matches!(reader.next_line().await.unwrap(), Some(Line::Frame(f)) if f.as_str() == "{}")
        );
        assert!(reader.next_line().await.unwrap().is_none());
    }

    #[tokio::test]
    async fn written_frames_are_single_lines() {
        let frame = Frame::parse("{\n  \"a\": [1,\r\n 2]\n}").unwrap();
        let mut out = Vec::new();
        write_frame(&mut out, &frame).await.unwrap();
        assert_eq!(out, b"{   \"a\": [1,   2] }\n");
        assert_eq!(
            serde_json::from_slice::<serde_json::Value>(&out).unwrap(),
            frame.to_value().unwrap()
        );
    }

    #[tokio::test]
    async fn a_pipe_carries_frames_both_ways_and_its_receiver_ends_when_input_ends() {
        let (ours, theirs) = tokio::io::duplex(1024);
        let (our_read, our_write) = tokio::io::split(ours);
        let mut conn = pipe(
            our_read,
            our_write,
            StdioOptions::default().max_line_bytes(16),
        );
        let (their_read, mut their_write) = tokio::io::split(theirs);
        conn.connection
            .sender
            .send(Frame::parse(r#"{"id":1}"#).unwrap())
            .await
            .unwrap();
        let mut their_lines = LineReader::new(BufReader::new(their_read), 1024);
        assert!(
            matches!(their_lines.next_line().await.unwrap(), Some(Line::Frame(f)) if f.as_str() == r#"{"id":1}"#)
        );
        their_write
            .write_all(b"{\"id\":2}\n[\"this line is too long\"]\n")
            .await
            .unwrap();
        their_write.shutdown().await.unwrap();
        let frame = conn.connection.receiver.recv().await.unwrap();
        assert_eq!(frame.as_str(), r#"{"id":2}"#);
        assert!(conn.connection.receiver.recv().await.is_none());
        // The connection itself ends when we close it.
        assert!(conn.connection.handle.end().is_none());
        conn.connection.close();
        assert!(matches!(
            conn.connection.ended().await,
            ConnectionEnd::Closed
        ));
        assert_eq!(conn.stats.oversized(), 1);
    }

    /// The end of the input ends the receiver, not the connection: a frame sent after it (the
    /// answer to a request read before it) is still written, and closing writes what is queued.
    #[tokio::test]
    async fn frames_sent_after_the_input_ended_are_written() {
        let (ours, theirs) = tokio::io::duplex(1024);
        let (our_read, our_write) = tokio::io::split(ours);
        let mut conn = pipe(our_read, our_write, StdioOptions::default());
        let (their_read, mut their_write) = tokio::io::split(theirs);
        their_write.write_all(b"{\"id\":1}\n").await.unwrap();
        their_write.shutdown().await.unwrap();
        let c = &mut conn.connection;
        assert_eq!(c.receiver.recv().await.unwrap().as_str(), r#"{"id":1}"#);
        assert!(c.receiver.recv().await.is_none(), "the input ended");
        for id in [1, 2] {
            let answer = Frame::parse(format!(r#"{{"id":{id},"result":{{}}}}"#)).unwrap();
            c.sender.send(answer).await.unwrap();
        }
        c.close();
        assert!(matches!(c.ended().await, ConnectionEnd::Closed));
        let mut lines = LineReader::new(BufReader::new(their_read), 1024);
        for id in [1, 2] {
            let Some(Line::Frame(f)) = lines.next_line().await.unwrap() else {
                panic!("answer {id} was written")
            };
            assert_eq!(f.as_str(), format!(r#"{{"id":{id},"result":{{}}}}"#));
        }
        assert!(lines.next_line().await.unwrap().is_none());
    }

    #[tokio::test]
    async fn skipped_lines_are_reported_to_subscribers_in_order() {
        let (ours, theirs) = tokio::io::duplex(1024);
        let (our_read, our_write) = tokio::io::split(ours);
        let mut conn = pipe(
            our_read,
            our_write,
            StdioOptions::default().max_line_bytes(8),
        );
        let mut skipped = conn.stats.subscribe();
        let (_their_read, mut their_write) = tokio::io::split(theirs);
        their_write
            .write_all(b"[\"far too long\"]\n{oops\n{\"id\":3}\n")
            .await
            .unwrap();
        assert_eq!(
            skipped.recv().await.unwrap(),
            Skipped::Oversized { size: 16, limit: 8 }
        );
        assert!(matches!(
            skipped.recv().await.unwrap(),
            Skipped::Malformed(_)
        ));
        assert_eq!(
            conn.connection.receiver.recv().await.unwrap().as_str(),
            r#"{"id":3}"#
        );
        assert_eq!((conn.stats.oversized(), conn.stats.malformed()), (1, 1));
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn a_child_is_driven_shut_down_and_its_exit_reported() {
        // `cat` echoes each line back and exits 0 when its stdin closes.
        let mut conn = spawn_child(tokio::process::Command::new("cat"), StdioOptions::default())
            .expect("cat runs");
        let frame = Frame::parse(r#"{"jsonrpc":"2.0","method":"ping","id":7}"#).unwrap();
        conn.connection.sender.send(frame.clone()).await.unwrap();
        assert_eq!(conn.connection.receiver.recv().await.unwrap(), frame);
        conn.connection.close();
        assert!(matches!(
            conn.connection.ended().await,
            ConnectionEnd::Closed
        ));
        assert!(conn.exit.wait().await.unwrap().success());

        // A child that fails is reported with its status.
        let mut command = tokio::process::Command::new("sh");
        command.args(["-c", "read line; exit 3"]);
        let conn = spawn_child(command, StdioOptions::default()).unwrap();
        conn.connection.sender.send(frame).await.unwrap();
        let end = conn.connection.ended().await;
        assert!(
            matches!(&end, ConnectionEnd::Failed(e) if e.to_string().contains("exit status: 3")),
            "{end:?}"
        );
        assert_eq!(conn.exit.wait().await.unwrap().code(), Some(3));
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn a_child_ignoring_stdin_close_is_killed_after_the_grace_period() {
        let mut command = tokio::process::Command::new("sh");
        command.args(["-c", "trap '' TERM; exec sleep 30"]);
        let conn = spawn_child(
            command,
            StdioOptions::default().shutdown_grace(Duration::from_millis(200)),
        )
        .unwrap();
        conn.connection.close();
        let status = tokio::time::timeout(Duration::from_secs(10), conn.exit.wait())
            .await
            .expect("killed within the grace period")
            .unwrap();
        assert!(!status.success());
    }
}
