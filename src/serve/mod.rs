//! `pendula serve`: a local live viewer. The Rust engine simulates; a small embedded page draws.
//!
//! One thread per connection on 127.0.0.1 only, at most `max_clients` at once. `GET /` serves
//! the page, `GET /ws` upgrades to a WebSocket (tungstenite) over which the server streams one
//! JSON frame every 1/60 s and receives JSON control messages ([`engine::Request`]). Every
//! input is bounded: request heads (8 KiB, 5 s), WebSocket messages (4 KiB: larger ones close
//! that connection), JSON that does not parse or asks for values out of range is answered with
//! an error message and changes nothing. No input can stop the server.

pub mod engine;

use engine::{Engine, Request, Settings};
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
/// Frames streamed per second.
pub const FRAME_RATE: f64 = 60.0;

pub struct Server {
    listener: TcpListener,
    max_clients: usize,
    active: Arc<AtomicUsize>,
}

impl Server {
    /// Listens on 127.0.0.1:`port` (0: any free port).
    pub fn bind(port: u16, max_clients: usize) -> io::Result<Server> {
        Ok(Server {
            listener: TcpListener::bind(("127.0.0.1", port))?,
            max_clients,
            active: Arc::new(AtomicUsize::new(0)),
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.listener.local_addr().expect("bound socket")
    }

    /// Serves forever.
    pub fn run(&self) {
        for stream in self.listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            if self.active.fetch_add(1, Ordering::SeqCst) >= self.max_clients {
                self.active.fetch_sub(1, Ordering::SeqCst);
                let _ = respond(
                    &mut stream,
                    "503 Service Unavailable",
                    "text/plain",
                    b"busy\n",
                );
                continue;
            }
            let active = Arc::clone(&self.active);
            let spawned = std::thread::Builder::new()
                .name("pendula-viewer".into())
                .spawn(move || {
                    let _ = handle(stream);
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

/// Reads a request head (bounded in size and time) and returns it with any bytes after it.
fn read_head(stream: &mut TcpStream) -> io::Result<(Vec<u8>, Vec<u8>)> {
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let rest = buf.split_off(end + 4);
            return Ok((buf, rest));
        }
        if buf.len() > MAX_HEAD || Instant::now() > deadline {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "request head too large or slow",
            ));
        }
        let k = stream.read(&mut chunk)?;
        if k == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        buf.extend_from_slice(&chunk[..k]);
    }
}

fn handle(mut stream: TcpStream) -> io::Result<()> {
    let (head, rest) = match read_head(&mut stream) {
        Ok(h) => h,
        Err(_) => {
            let _ = respond(
                &mut stream,
                "400 Bad Request",
                "text/plain",
                b"bad request\n",
            );
            return Ok(());
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
            .and_then(|h| std::str::from_utf8(h.value).ok())
    };
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
            live(stream, rest)
        }
        _ => respond(&mut stream, "404 Not Found", "text/plain", b"not found\n"),
    }
}

/// The message sent back for a rejected request.
fn error_message(why: &str) -> Message {
    Message::text(serde_json::json!({"type": "error", "message": why}).to_string())
}

/// Streams frames and applies requests until the page goes away (or breaks the protocol).
fn live(stream: TcpStream, rest: Vec<u8>) -> io::Result<()> {
    let frame_dt = 1.0 / FRAME_RATE;
    stream.set_read_timeout(Some(Duration::from_millis(2)))?;
    // A page that stops reading frames fills the socket buffer: give up on it after 5 s
    // instead of holding its connection slot for ever.
    stream.set_write_timeout(Some(Duration::from_secs(5)))?;
    stream.set_nodelay(true)?;
    let config = WebSocketConfig::default()
        .max_message_size(Some(MAX_MESSAGE))
        .max_frame_size(Some(MAX_MESSAGE));
    let mut ws = WebSocket::from_partially_read(stream, rest, Role::Server, Some(config));
    let mut engine = Engine::new(Settings::triple());
    let period = Duration::from_secs_f64(frame_dt);
    let mut next = Instant::now();
    let mut sent_frames: u64 = 0;
    let started = Instant::now();
    let mut compute = Duration::ZERO;
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
