//! `pendula serve`: a local live viewer. The Rust engine simulates; a small embedded page draws.
//!
//! One thread per connection on 127.0.0.1 only, at most `max_clients` at once (more are
//! answered 503 at once). `GET /` serves the page, `GET /ws` upgrades to a WebSocket
//! (tungstenite) over which the server streams one JSON frame every 1/60 s and receives JSON
//! control messages ([`engine::Request`]).
//!
//! Only the viewer's own origin may use it: the `Host` header must be `127.0.0.1:PORT` or
//! `localhost:PORT` (PORT the listening port; against DNS rebinding), and an `Origin` header,
//! where present, must be `http://` and one of those (so no other web page open in the user's
//! browser can drive the viewer or take its slots). Anything else is 403. An upgrade without
//! `Origin` (a script, not a browser) is accepted.
//!
//! No client can hold a slot for long without taking part ([`Limits::default`]): the first byte
//! of the request must come within 2 s of the accept and the whole head (at most 8 KiB, its blank
//! line included; one `Host` header) within
//! 5 s — a hard total, not a gap between bytes (else 408). A live view is pinged every 0.5 s; one
//! that leaves a ping unanswered for 2 s, or whose socket takes longer than 2 s to accept a write,
//! has stopped reading and is dropped, so its slot is free again within 2.5 s; tungstenite's
//! write buffer is capped at 64 KiB. WebSocket messages over 4 KiB close that connection; JSON
//! that does not parse, has unknown fields or asks for values out of range is answered with an
//! error message and changes nothing. No input can stop the server.

pub mod engine;

use engine::{Engine, Request, Settings};
use std::collections::VecDeque;
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tungstenite::protocol::{Role, WebSocketConfig};
use tungstenite::{Message, WebSocket};

/// The page (HTML, CSS and JavaScript in one file, no dependencies).
pub const PAGE: &str = include_str!("page.html");
/// Largest WebSocket message a page may send (bytes).
pub const MAX_MESSAGE: usize = 4096;
/// Largest HTTP request head (bytes).
const MAX_HEAD: usize = 8192;
/// Most bytes tungstenite may hold unsent for one client (a frame is at most a few KiB).
const MAX_WRITE_BUFFER: usize = 64 * 1024;
/// Frames streamed per second.
pub const FRAME_RATE: f64 = 60.0;

/// How long a connection may hold its slot without taking part (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// From the accept to the first byte of the request.
    pub first_byte: Duration,
    /// From the accept to the end of the request head: a total, however the bytes trickle in.
    pub head: Duration,
    /// Longest a write may block, and longest a ping may go unanswered, before the client is
    /// dropped as no longer reading.
    pub stall: Duration,
    /// How often a live view is pinged.
    pub ping_every: Duration,
}

impl Default for Limits {
    /// The production bounds: 2 s to the first byte, 5 s for the head, 2 s stall, ping 0.5 s.
    fn default() -> Limits {
        Limits {
            first_byte: Duration::from_secs(2),
            head: Duration::from_secs(5),
            stall: Duration::from_secs(2),
            ping_every: Duration::from_millis(500),
        }
    }
}

/// The connections holding a slot of a [`Server`] ([`Server::occupancy`]).
#[derive(Debug, Clone)]
pub struct Occupancy(Arc<AtomicUsize>);

impl Occupancy {
    /// Connections holding a slot now (a connection turned away counts for the instant it
    /// takes to answer it 503).
    pub fn get(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

pub struct Server {
    listener: TcpListener,
    max_clients: usize,
    active: Arc<AtomicUsize>,
    limits: Limits,
}

impl Server {
    /// Listens on 127.0.0.1:`port` (0: any free port) with the default [`Limits`].
    pub fn bind(port: u16, max_clients: usize) -> io::Result<Server> {
        Server::bind_with(port, max_clients, Limits::default())
    }

    /// As [`Server::bind`], with other time bounds (the tests use short ones).
    pub fn bind_with(port: u16, max_clients: usize, limits: Limits) -> io::Result<Server> {
        Ok(Server {
            listener: TcpListener::bind(("127.0.0.1", port))?,
            max_clients,
            active: Arc::new(AtomicUsize::new(0)),
            limits,
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.listener.local_addr().expect("bound socket")
    }

    /// A handle on the number of connections holding a slot, readable while the server runs
    /// on another thread (what a test waits on instead of sleeping).
    pub fn occupancy(&self) -> Occupancy {
        Occupancy(Arc::clone(&self.active))
    }

    /// Serves forever.
    pub fn run(&self) {
        let port = self.local_addr().port();
        for stream in self.listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            if self.active.fetch_add(1, Ordering::SeqCst) >= self.max_clients {
                self.active.fetch_sub(1, Ordering::SeqCst);
                // A tiny reply into an empty socket buffer: this write cannot block the loop.
                let _ = respond(
                    &mut stream,
                    "503 Service Unavailable",
                    "text/plain",
                    b"busy\n",
                );
                continue;
            }
            // The deadlines run from the accept, not from when a busy machine gets round to
            // starting the connection's thread.
            let accepted = Instant::now();
            let active = Arc::clone(&self.active);
            let limits = self.limits;
            let spawned = std::thread::Builder::new()
                .name("pendula-viewer".into())
                .spawn(move || {
                    let _ = handle(stream, accepted, port, limits);
                    active.fetch_sub(1, Ordering::SeqCst);
                });
            if spawned.is_err() {
                self.active.fetch_sub(1, Ordering::SeqCst);
            }
        }
    }
}

fn respond(stream: &mut TcpStream, status: &str, kind: &str, body: &[u8]) -> io::Result<()> {
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes())?;
    stream.write_all(body)?;
    stream.flush()
}

/// Why a request head could not be read.
enum HeadError {
    TooLarge,
    TooSlow,
    /// The peer closed or reset the connection: nobody to answer.
    Gone,
}

/// Reads a request head and returns it with any bytes after it. The deadlines are absolute
/// (from `accepted`): each read may wait only for the time that remains, so a client sending
/// one byte every few seconds is still cut off at `limits.head`.
fn read_head(
    stream: &mut TcpStream,
    accepted: Instant,
    limits: Limits,
) -> Result<(Vec<u8>, Vec<u8>), HeadError> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            // The head, its blank line included, is held to MAX_HEAD exactly: a read brings up
            // to a chunk more, which must not stretch the limit (heads of 9.2 KB got through).
            if end + 4 > MAX_HEAD {
                return Err(HeadError::TooLarge);
            }
            let rest = buf.split_off(end + 4);
            return Ok((buf, rest));
        }
        if buf.len() >= MAX_HEAD {
            return Err(HeadError::TooLarge);
        }
        let bound = if buf.is_empty() {
            limits.first_byte.min(limits.head)
        } else {
            limits.head
        };
        let left = bound.saturating_sub(accepted.elapsed());
        if left.is_zero() {
            return Err(HeadError::TooSlow);
        }
        stream
            .set_read_timeout(Some(left))
            .map_err(|_| HeadError::Gone)?;
        match stream.read(&mut chunk) {
            Ok(0) => return Err(HeadError::Gone),
            Ok(k) => buf.extend_from_slice(&chunk[..k]),
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                return Err(HeadError::TooSlow)
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return Err(HeadError::Gone),
        }
    }
}

/// Whether a `Host` header names this viewer (127.0.0.1 or localhost, on its port).
fn own_host(host: &str, port: u16) -> bool {
    let (name, given_port) = match host.rsplit_once(':') {
        Some((name, p)) => (name, p.parse::<u16>().ok()),
        // No port: the scheme's default, 80.
        None => (host, Some(80)),
    };
    given_port == Some(port) && (name == "127.0.0.1" || name.eq_ignore_ascii_case("localhost"))
}

/// Whether an `Origin` header is this viewer's own page.
fn own_origin(origin: &str, port: u16) -> bool {
    origin
        .get(..7)
        .is_some_and(|s| s.eq_ignore_ascii_case("http://"))
        && own_host(&origin[7..], port)
}

fn handle(mut stream: TcpStream, accepted: Instant, port: u16, limits: Limits) -> io::Result<()> {
    // No reply of ours may block for longer than a stalled live view may.
    stream.set_write_timeout(Some(limits.stall))?;
    let (head, rest) = match read_head(&mut stream, accepted, limits) {
        Ok(h) => h,
        Err(HeadError::Gone) => return Ok(()),
        Err(HeadError::TooSlow) => {
            return respond(
                &mut stream,
                "408 Request Timeout",
                "text/plain",
                b"request head not received in time\n",
            )
        }
        Err(HeadError::TooLarge) => {
            return respond(
                &mut stream,
                "400 Bad Request",
                "text/plain",
                b"request head too large\n",
            )
        }
    };
    let mut headers = [httparse::EMPTY_HEADER; 32];
    let mut req = httparse::Request::new(&mut headers);
    if !matches!(req.parse(&head), Ok(httparse::Status::Complete(_))) {
        return respond(
            &mut stream,
            "400 Bad Request",
            "text/plain",
            b"bad request\n",
        );
    }
    let header = |name: &str| {
        req.headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
            .map(|h| std::str::from_utf8(h.value).unwrap_or("\u{fffd}"))
    };
    // Two `Host` headers name two hosts: which one a proxy or a cache in between believes is
    // not ours to guess (RFC 9112 §3.2 answers 400).
    let hosts = req
        .headers
        .iter()
        .filter(|h| h.name.eq_ignore_ascii_case("host"))
        .count();
    if hosts > 1 {
        return respond(
            &mut stream,
            "400 Bad Request",
            "text/plain",
            b"bad request: more than one Host header\n",
        );
    }
    if !header("host").is_some_and(|h| own_host(h.trim(), port)) {
        let why = format!("forbidden: Host must be 127.0.0.1:{port} or localhost:{port}\n");
        return respond(&mut stream, "403 Forbidden", "text/plain", why.as_bytes());
    }
    if header("origin").is_some_and(|o| !own_origin(o.trim(), port)) {
        let why = format!(
            "forbidden: Origin must be http://127.0.0.1:{port} or http://localhost:{port}\n"
        );
        return respond(&mut stream, "403 Forbidden", "text/plain", why.as_bytes());
    }
    let path = req.path.unwrap_or("");
    match (req.method, path) {
        (Some("GET"), "/") | (Some("GET"), "/index.html") => respond(
            &mut stream,
            "200 OK",
            "text/html; charset=utf-8",
            PAGE.as_bytes(),
        ),
        (Some("GET"), "/ws") => {
            let upgrade = header("upgrade").is_some_and(|v| v.eq_ignore_ascii_case("websocket"));
            let Some(key) = header("sec-websocket-key").filter(|_| upgrade) else {
                return respond(
                    &mut stream,
                    "400 Bad Request",
                    "text/plain",
                    b"expected a WebSocket upgrade\n",
                );
            };
            let accept = tungstenite::handshake::derive_accept_key(key.as_bytes());
            let head = format!(
                "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: {accept}\r\n\r\n"
            );
            stream.write_all(head.as_bytes())?;
            live(stream, rest, limits)
        }
        _ => respond(&mut stream, "404 Not Found", "text/plain", b"not found\n"),
    }
}

/// The message sent back for a rejected request.
fn error_message(why: &str) -> Message {
    Message::text(serde_json::json!({"type": "error", "message": why}).to_string())
}

/// Streams frames and applies requests until the page goes away, breaks the protocol or stops
/// reading (a ping left unanswered, or a write blocked, for `limits.stall`).
fn live(stream: TcpStream, rest: Vec<u8>, limits: Limits) -> io::Result<()> {
    let frame_dt = 1.0 / FRAME_RATE;
    stream.set_read_timeout(Some(Duration::from_millis(2)))?;
    // A page that stops reading fills the socket buffers; the write that then blocks gives up
    // after `stall` (the pings below usually notice first, whatever the buffer sizes).
    stream.set_write_timeout(Some(limits.stall))?;
    stream.set_nodelay(true)?;
    let config = WebSocketConfig::default()
        .max_message_size(Some(MAX_MESSAGE))
        .max_frame_size(Some(MAX_MESSAGE))
        .write_buffer_size(0)
        .max_write_buffer_size(MAX_WRITE_BUFFER);
    let mut ws = WebSocket::from_partially_read(stream, rest, Role::Server, Some(config));
    let mut engine = Engine::new(Settings::triple());
    let period = Duration::from_secs_f64(frame_dt);
    let mut next = Instant::now();
    let mut sent_frames: u64 = 0;
    let started = Instant::now();
    let mut compute = Duration::ZERO;
    // Pings sent and not yet answered (sequence number, when sent), oldest first.
    let mut unanswered: VecDeque<(u64, Instant)> = VecDeque::new();
    let mut ping_seq: u64 = 0;
    let mut next_ping = Instant::now();
    loop {
        // Requests until the next frame is due (reads time out every 2 ms).
        while Instant::now() < next {
            match ws.read() {
                Ok(Message::Text(text)) => {
                    let reply = match serde_json::from_str::<Request>(text.as_str()) {
                        Ok(req) => engine.apply(req).err(),
                        Err(e) => Some(format!("malformed request: {e}")),
                    };
                    if let Some(why) = reply {
                        ws.send(error_message(&why)).map_err(to_io)?;
                    }
                }
                Ok(Message::Binary(_)) => ws
                    .send(error_message("binary messages are not accepted"))
                    .map_err(to_io)?,
                Ok(Message::Pong(data)) => {
                    // A pong answers its ping and every earlier one; others are ignored.
                    if let Ok(seq) = <[u8; 8]>::try_from(&data[..]).map(u64::from_be_bytes) {
                        while unanswered.front().is_some_and(|&(s, _)| s <= seq) {
                            unanswered.pop_front();
                        }
                    }
                }
                Ok(Message::Close(_)) => return Ok(()),
                Ok(_) => {}
                Err(tungstenite::Error::Io(e))
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) =>
                {
                    std::thread::sleep(Duration::from_millis(1));
                }
                Err(tungstenite::Error::Capacity(e)) => {
                    // An oversized message: say why, then drop this connection only.
                    let _ = ws.send(error_message(&format!("message too large: {e}")));
                    let _ = ws.close(None);
                    let _ = ws.flush();
                    return Ok(());
                }
                Err(e) => return Err(to_io(e)),
            }
        }
        if unanswered
            .front()
            .is_some_and(|&(_, sent)| sent.elapsed() >= limits.stall)
        {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client stopped reading",
            ));
        }
        if Instant::now() >= next_ping {
            ping_seq += 1;
            ws.send(Message::Ping(ping_seq.to_be_bytes().to_vec().into()))
                .map_err(to_io)?;
            unanswered.push_back((ping_seq, Instant::now()));
            next_ping = Instant::now() + limits.ping_every;
        }
        let t0 = Instant::now();
        engine.advance(frame_dt);
        compute += t0.elapsed();
        sent_frames += 1;
        let mut frame = engine.frame();
        let wall = started.elapsed().as_secs_f64();
        frame["frame_rate"] =
            serde_json::json!((sent_frames as f64 / wall.max(1e-9) * 10.0).round() / 10.0);
        // Steps the engine could take per second of compute: the headroom over real time.
        frame["steps_per_s_capacity"] =
            serde_json::json!((engine.steps as f64 / compute.as_secs_f64().max(1e-9)).round());
        frame["steps_per_s"] = serde_json::json!((engine.steps as f64 / wall.max(1e-9)).round());
        ws.send(Message::text(frame.to_string())).map_err(to_io)?;
        next += period;
        if Instant::now() > next + period * 10 {
            // Far behind (a slow client or machine): skip ahead instead of bursting.
            next = Instant::now() + period;
        }
    }
}

fn to_io(e: tungstenite::Error) -> io::Error {
    match e {
        tungstenite::Error::Io(e) => e,
        other => io::Error::other(other.to_string()),
    }
}
