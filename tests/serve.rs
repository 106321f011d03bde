//! The live viewer over loopback: the page is served, frames stream, controls act, and
//! malformed, hostile or oversized messages are rejected while the server keeps serving; only
//! the viewer's own origin is served, and idle sockets, slow heads and clients that stop reading
//! lose their slots within the stated bounds.
//! Also runs the headless-Chromium test (tests/browser) when PENDULA_REQUIRE_BROWSER=1.

#[path = "common/running.rs"]
mod running;

use pendula::serve::engine::Request;
use pendula::serve::{Limits, Occupancy, Server};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tungstenite::client::IntoClientRequest;
use tungstenite::http::HeaderValue;
use tungstenite::{connect, Message};

struct Viewer {
    child: Child,
    addr: String,
}

impl Drop for Viewer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `pendula serve --port 0` and reads the address it printed.
fn start() -> Viewer {
    start_with(4)
}

fn start_with(max_clients: usize) -> Viewer {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("pendula"))
        .args(["serve", "--port", "0", "--max-clients"])
        .arg(max_clients.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line.split_whitespace().last().unwrap().to_string();
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string();
    assert!(addr.starts_with("127.0.0.1:"), "{line}");
    Viewer { child, addr }
}

type Ws = tungstenite::WebSocket<tungstenite::stream::MaybeTlsStream<TcpStream>>;

fn open(v: &Viewer) -> Ws {
    open_at(&v.addr)
}

fn open_at(addr: &str) -> Ws {
    let (ws, _) = connect(format!("ws://{addr}/ws")).unwrap();
    ws
}

/// How long a test waits for something that takes milliseconds on an idle machine: a deadline
/// for a busy one, never a time the test sleeps.
const PATIENCE: Duration = Duration::from_secs(30);

/// Polls `done` until it holds; panics naming `what` after [`PATIENCE`].
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    running::poll(what, PATIENCE, || done().then_some(()));
}

/// Next message of `kind` (frames or errors), within [`PATIENCE`].
fn next(ws: &mut Ws, kind: &str) -> serde_json::Value {
    let end = Instant::now() + PATIENCE;
    while Instant::now() < end {
        if let Message::Text(t) = ws.read().unwrap() {
            let v: serde_json::Value = serde_json::from_str(t.as_str()).unwrap();
            if v["type"] == kind {
                return v;
            }
        }
    }
    panic!("no {kind} message within {PATIENCE:?}");
}

/// `http_get`, with a refused or reset connection as `None`.
fn try_http_get(addr: &str, path: &str) -> Option<String> {
    let mut s = TcpStream::connect(addr).ok()?;
    write!(s, "GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n").ok()?;
    let mut body = String::new();
    s.read_to_string(&mut body).ok()?;
    Some(body)
}

fn http_get(addr: &str, path: &str) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    write!(s, "GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n").unwrap();
    let mut body = String::new();
    s.read_to_string(&mut body).unwrap();
    body
}

/// Whether a `GET /` is turned away at once for want of a slot. The server answers 503 and
/// closes without reading the request (its accept loop must never block), so the kernel may
/// reset the connection and the reply be lost: a reset or an empty reply counts as refused too.
fn refused_busy(addr: &str) -> bool {
    let mut s = TcpStream::connect(addr).unwrap();
    // Either reply comes at once; the timeout only keeps a broken server from hanging the test.
    s.set_read_timeout(Some(PATIENCE)).unwrap();
    let _ = write!(s, "GET / HTTP/1.1\r\nHost: {addr}\r\n\r\n");
    let mut reply = Vec::new();
    match s.read_to_end(&mut reply) {
        Ok(_) => reply.is_empty() || reply.starts_with(b"HTTP/1.1 503"),
        Err(e) => e.kind() == std::io::ErrorKind::ConnectionReset,
    }
}

#[test]
fn viewer_streams_frames_obeys_controls_and_survives_bad_messages() {
    let v = start();
    let page = http_get(&v.addr, "/");
    assert!(
        page.starts_with("HTTP/1.1 200"),
        "{}",
        &page[..40.min(page.len())]
    );
    assert!(page.contains("<canvas id=\"chain\""));
    assert!(http_get(&v.addr, "/nope").starts_with("HTTP/1.1 404"));
    // A request head that never ends is cut off at its size limit.
    let mut s = TcpStream::connect(&v.addr).unwrap();
    let junk = vec![b'a'; 20_000];
    let _ = s.write_all(&junk);
    let mut reply = String::new();
    let _ = s.read_to_string(&mut reply);
    assert!(
        reply.is_empty() || reply.starts_with("HTTP/1.1 400"),
        "{reply}"
    );

    let mut ws = open(&v);
    let f0 = next(&mut ws, "frame");
    assert_eq!(f0["n"], 3);
    let f1 = next(&mut ws, "frame");
    assert!(
        f1["t"].as_f64().unwrap() > f0["t"].as_f64().unwrap(),
        "time advances"
    );
    // The bob positions follow from the angles (x_k = Σ l sin θ, y_k = −Σ l cos θ).
    let th: Vec<f64> = serde_json::from_value(f1["theta"].clone()).unwrap();
    let l: Vec<f64> = serde_json::from_value(f1["lengths"].clone()).unwrap();
    let x: Vec<f64> = serde_json::from_value(f1["x"].clone()).unwrap();
    let tip: f64 = (0..3).map(|j| l[j] * th[j].sin()).sum();
    assert!((x[3] - tip).abs() < 1e-5);

    // Malformed, unknown and out-of-range requests: an error reply, nothing changes.
    for bad in [
        "{not json",
        r#"{"type":"explode"}"#,
        r#"{"type":"config","n":100000}"#,
        r#"{"type":"config","masses":[1e308, -1, 1]}"#,
        r#"{"type":"config","speed":"fast"}"#,
        r#"{"type":"set_angles","theta":[1,2]}"#,
        r#"{"type":"config","n":3,"extra":1}"#,
    ] {
        ws.send(Message::text(bad)).unwrap();
        let e = next(&mut ws, "error");
        assert!(!e["message"].as_str().unwrap().is_empty(), "{bad}");
    }
    assert_eq!(next(&mut ws, "frame")["n"], 3);

    // Controls: N, pause, set angles.
    ws.send(Message::text(
        r#"{"type":"config","n":5,"speed":2,"substeps":20}"#,
    ))
    .unwrap();
    let mut f = next(&mut ws, "frame");
    while f["n"] != 5 {
        f = next(&mut ws, "frame");
    }
    assert_eq!(f["x"].as_array().unwrap().len(), 6);
    assert_eq!(f["substeps"], 20);
    ws.send(Message::text(r#"{"type":"pause","paused":true}"#))
        .unwrap();
    let mut f = next(&mut ws, "frame");
    while f["paused"] != true {
        f = next(&mut ws, "frame");
    }
    let t_paused = f["t"].as_f64().unwrap();
    for _ in 0..5 {
        assert_eq!(next(&mut ws, "frame")["t"].as_f64().unwrap(), t_paused);
    }
    ws.send(Message::text(
        r#"{"type":"set_angles","theta":[0.1,0.2,0.3,0.4,0.5]}"#,
    ))
    .unwrap();
    let mut f = next(&mut ws, "frame");
    while f["theta"][0] != 0.1 {
        f = next(&mut ws, "frame");
    }
    assert_eq!(f["t"], 0.0);
    ws.send(Message::text(r#"{"type":"pause","paused":false}"#))
        .unwrap();
    // The Lyapunov estimate appears once time runs.
    let mut f = next(&mut ws, "frame");
    while f["lyapunov"].is_null() {
        f = next(&mut ws, "frame");
    }
    assert!(f["lyapunov"].as_f64().unwrap().is_finite());

    // An oversized message closes that connection only.
    ws.send(Message::text("x".repeat(10_000))).unwrap();
    let end = Instant::now() + PATIENCE;
    let mut closed = false;
    while Instant::now() < end {
        match ws.read() {
            Ok(Message::Close(_)) | Err(_) => {
                closed = true;
                break;
            }
            Ok(_) => {}
        }
    }
    assert!(closed, "an oversized message must close the connection");
    // The server keeps serving: a new connection streams frames.
    let mut ws2 = open(&v);
    assert_eq!(next(&mut ws2, "frame")["n"], 3);
    assert!(http_get(&v.addr, "/").starts_with("HTTP/1.1 200"));
}

/// A library server with `limits` on a free port, serving on a thread for the rest of the test
/// process; its address.
fn serve_lib(max_clients: usize, limits: Limits) -> String {
    serve_watched(max_clients, limits).0
}

/// [`serve_lib`], with a handle on the slots held.
fn serve_watched(max_clients: usize, limits: Limits) -> (String, Occupancy) {
    let server = Server::bind_with(0, max_clients, limits).unwrap();
    let addr = server.local_addr().to_string();
    let held = server.occupancy();
    std::thread::spawn(move || server.run());
    (addr, held)
}

/// Short bounds, so the slot tests take a few seconds each, yet long enough that a test
/// thread a busy machine keeps waiting for a few hundred milliseconds still probes the slots
/// while they are held.
fn short_limits() -> Limits {
    Limits {
        first_byte: Duration::from_millis(1000),
        head: Duration::from_millis(2000),
        stall: Duration::from_millis(1000),
        ping_every: Duration::from_millis(250),
    }
}

/// Sends `head` as it is and returns the whole reply.
fn raw(addr: &str, head: &str) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(PATIENCE)).unwrap();
    s.write_all(head.as_bytes()).unwrap();
    let mut reply = String::new();
    let _ = s.read_to_string(&mut reply);
    reply
}

/// Polls `GET /` until it is served (not 503), within [`PATIENCE`]; the time that took. A
/// test bounds that time itself where the bound is what it checks.
fn time_to_a_free_slot(addr: &str) -> Duration {
    let t0 = Instant::now();
    running::poll("a free slot", PATIENCE, || {
        // The probe's own connection holds the slot it found until the server sees it close,
        // so the GET that follows may still be turned away (reset): only a 200 ends the wait.
        (!refused_busy(addr)
            && try_http_get(addr, "/").is_some_and(|r| r.starts_with("HTTP/1.1 200")))
        .then(|| t0.elapsed())
    })
}

/// A WebSocket client that completes the handshake and then never reads.
fn stalled_reader(addr: &str) -> tungstenite::WebSocket<TcpStream> {
    stalled_reader_timed(addr).0
}

/// [`stalled_reader`], and when its successful attempt began. A server still releasing the
/// slot of a connection it just cut (its thread not yet scheduled on a busy machine) answers
/// 503: the attempt is repeated until a slot is free, within [`PATIENCE`].
fn stalled_reader_timed(addr: &str) -> (tungstenite::WebSocket<TcpStream>, Instant) {
    running::poll("a WebSocket slot (not 503)", PATIENCE, || {
        let began = Instant::now();
        let stream = TcpStream::connect(addr).unwrap();
        match tungstenite::client::client(format!("ws://{addr}/ws"), stream) {
            Ok((ws, _)) => Some((ws, began)),
            Err(tungstenite::HandshakeError::Failure(tungstenite::Error::Http(r)))
                if r.status().as_u16() == 503 =>
            {
                None
            }
            Err(e) => panic!("WebSocket handshake with {addr}: {e}"),
        }
    })
}

#[test]
fn foreign_origin_and_host_are_refused_with_403() {
    let addr = serve_lib(4, Limits::default());
    let port = addr.rsplit_once(':').unwrap().1;
    let get = |host: &str, extra: &str| {
        raw(
            &addr,
            &format!("GET / HTTP/1.1\r\nHost: {host}\r\n{extra}\r\n"),
        )
    };
    assert!(get(&addr, "").starts_with("HTTP/1.1 200"));
    assert!(get(&format!("localhost:{port}"), "").starts_with("HTTP/1.1 200"));
    assert!(get(&format!("LocalHost:{port}"), "").starts_with("HTTP/1.1 200"));
    let own = format!("Origin: http://localhost:{port}\r\n");
    assert!(get(&addr, &own).starts_with("HTTP/1.1 200"));
    // DNS rebinding: a foreign name, or our address on another port.
    for host in [
        format!("evil.example:{port}"),
        "evil.example".to_string(),
        "127.0.0.1:1".to_string(),
        format!("127.0.0.2:{port}"),
    ] {
        let reply = get(&host, "");
        assert!(reply.starts_with("HTTP/1.1 403"), "{host}: {reply:.60}");
        assert!(reply.contains("Host must be 127.0.0.1:"), "{reply}");
    }
    let no_host = raw(&addr, "GET / HTTP/1.1\r\n\r\n");
    assert!(no_host.starts_with("HTTP/1.1 403"), "{no_host:.60}");
    let reply = get(&addr, "Origin: http://evil.example\r\n");
    assert!(reply.starts_with("HTTP/1.1 403"), "{reply:.60}");

    // The WebSocket: a foreign (or opaque) Origin or Host is 403, never 101. The upgrade
    // gives the socket (after a 101) or the HTTP status it was refused with.
    let upgrade = |host: &str, origin: Option<&str>| -> Result<Ws, u16> {
        let mut req = format!("ws://{addr}/ws").into_client_request().unwrap();
        req.headers_mut()
            .insert("Host", HeaderValue::from_str(host).unwrap());
        if let Some(o) = origin {
            req.headers_mut()
                .insert("Origin", HeaderValue::from_str(o).unwrap());
        }
        match connect(req) {
            Ok((ws, resp)) => {
                assert_eq!(resp.status(), 101);
                Ok(ws)
            }
            Err(tungstenite::Error::Http(resp)) => Err(resp.status().as_u16()),
            Err(e) => panic!("{host} {origin:?}: {e}"),
        }
    };
    for (host, origin) in [
        (addr.clone(), Some("http://evil.example")),
        (addr.clone(), Some(&*format!("http://evil.example:{port}"))),
        (addr.clone(), Some(&*format!("https://127.0.0.1:{port}"))),
        (addr.clone(), Some("null")),
        (format!("evil.example:{port}"), None),
    ] {
        match upgrade(&host, origin) {
            Err(status) => assert_eq!(status, 403, "{host} {origin:?}"),
            Ok(_) => panic!("{host} {origin:?}: upgraded"),
        }
    }
    // The page's own origin, and a script without Origin, get frames.
    for origin in [
        Some(format!("http://127.0.0.1:{port}")),
        Some(format!("http://localhost:{port}")),
        None,
    ] {
        let mut ws = upgrade(&addr, origin.as_deref()).unwrap();
        assert_eq!(next(&mut ws, "frame")["n"], 3, "{origin:?}");
    }
}

#[test]
fn idle_sockets_and_slow_heads_lose_their_slots() {
    let limits = short_limits();
    let (addr, held) = serve_watched(4, limits);
    // Four sockets that never send a byte take every slot ...
    let t0 = Instant::now();
    let idle: Vec<TcpStream> = (0..4).map(|_| TcpStream::connect(&addr).unwrap()).collect();
    wait_until("the idle sockets take the slots", || held.get() == 4);
    assert!(refused_busy(&addr));
    // ... until the first-byte deadline: each is answered 408 and closed.
    for mut s in idle {
        let mut reply = String::new();
        s.set_read_timeout(Some(PATIENCE)).unwrap();
        let _ = s.read_to_string(&mut reply);
        assert!(reply.starts_with("HTTP/1.1 408"), "{reply:.60}");
    }
    let freed = t0.elapsed();
    assert!(freed >= limits.first_byte, "{freed:?}");
    let waited = time_to_a_free_slot(&addr);
    assert!(
        freed + waited < limits.first_byte + Duration::from_secs(1),
        "{freed:?} + {waited:?}"
    );

    // A slow loris: one byte every 150 ms (each gap well inside any per-read timeout) is cut
    // off at the head's total deadline, not kept alive by its trickle. Every slot is free
    // first (the probes' connections are let go), so each loris takes one.
    wait_until("the probes let go of their slots", || held.get() == 0);
    let lorises: Vec<_> = (0..4)
        .map(|_| {
            let addr = addr.clone();
            std::thread::spawn(move || {
                let mut s = TcpStream::connect(&addr).unwrap();
                let t0 = Instant::now();
                s.set_read_timeout(Some(Duration::from_millis(150)))
                    .unwrap();
                let mut reply = Vec::new();
                for &b in
                    b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                {
                    if s.write_all(&[b]).is_err() {
                        break;
                    }
                    let mut buf = [0u8; 256];
                    match s.read(&mut buf) {
                        Ok(0) => break,
                        Ok(k) => {
                            reply.extend_from_slice(&buf[..k]);
                            break;
                        }
                        Err(_) => {}
                    }
                }
                (t0.elapsed(), String::from_utf8_lossy(&reply).into_owned())
            })
        })
        .collect();
    wait_until("the lorises take the slots", || held.get() == 4);
    assert!(refused_busy(&addr), "lorises hold the slots");
    for l in lorises {
        let (cut, reply) = l.join().unwrap();
        assert!(reply.starts_with("HTTP/1.1 408"), "{reply:.60}");
        assert!(
            cut >= limits.head && cut < limits.head + Duration::from_secs(1),
            "cut after {cut:?}"
        );
    }
    time_to_a_free_slot(&addr);
}

#[test]
fn stalled_readers_lose_their_slots_and_live_readers_keep_theirs() {
    let limits = short_limits();
    let addr = serve_lib(4, limits);
    let t0 = Instant::now();
    let stalled: Vec<_> = (0..4).map(|_| stalled_reader(&addr)).collect();
    assert!(refused_busy(&addr));
    // A client that stops reading is dropped once a ping has gone unanswered for `stall`.
    time_to_a_free_slot(&addr);
    let freed = t0.elapsed();
    let bound = limits.stall + limits.ping_every;
    assert!(
        freed >= limits.stall && freed < bound + Duration::from_secs(1),
        "freed after {freed:?}"
    );
    drop(stalled);
    // A client that keeps reading stays connected over many stall bounds.
    let mut ws = open_at(&addr);
    let t0 = Instant::now();
    let mut frames = 0;
    while t0.elapsed() < limits.stall * 4 {
        match ws.read() {
            Ok(Message::Text(_)) => frames += 1,
            Ok(_) => {}
            Err(e) => panic!("a reading client was dropped after {:?}: {e}", t0.elapsed()),
        }
    }
    assert!(frames > 30, "{frames} frames");
}

#[test]
fn default_limits_are_the_documented_ones() {
    // The numbers the module doc and the README state.
    assert_eq!(
        Limits::default(),
        Limits {
            first_byte: Duration::from_secs(2),
            head: Duration::from_secs(5),
            stall: Duration::from_secs(2),
            ping_every: Duration::from_millis(500),
        }
    );
    // And `pendula serve` uses them: an idle socket is answered 408 at 2 s, a loris sending a
    // byte every 4 s (each gap under any 5 s read timeout) at 5 s, and a client that stops
    // reading is dropped within 2.5 s.
    let v = start_with(2);
    let idle = std::thread::spawn({
        let addr = v.addr.clone();
        move || {
            let mut s = TcpStream::connect(&addr).unwrap();
            let t0 = Instant::now();
            let mut reply = String::new();
            let _ = s.read_to_string(&mut reply);
            (t0.elapsed(), reply)
        }
    });
    let mut s = TcpStream::connect(&v.addr).unwrap();
    let t0 = Instant::now();
    s.set_read_timeout(Some(Duration::from_secs(4))).unwrap();
    let mut reply = Vec::new();
    for &b in b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n" {
        if s.write_all(&[b]).is_err() {
            break;
        }
        let mut buf = [0u8; 256];
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(k) => {
                reply.extend_from_slice(&buf[..k]);
                break;
            }
            Err(_) => {}
        }
    }
    let cut = t0.elapsed();
    assert!(
        reply.starts_with(b"HTTP/1.1 408"),
        "{}",
        String::from_utf8_lossy(&reply)
    );
    assert!(
        cut >= Duration::from_secs(5) && cut < Duration::from_millis(6500),
        "{cut:?}"
    );
    let (idle_cut, idle_reply) = idle.join().unwrap();
    assert!(idle_reply.starts_with("HTTP/1.1 408"), "{idle_reply:.60}");
    assert!(
        idle_cut >= Duration::from_secs(2) && idle_cut < Duration::from_millis(3500),
        "{idle_cut:?}"
    );

    // Both slots held by readers that never read; the first one's stall is timed from its
    // handshake (the idle socket's and the loris's slots may take a moment to be released).
    let (first, t0) = stalled_reader_timed(&v.addr);
    let _stalled = [first, stalled_reader(&v.addr)];
    assert!(refused_busy(&v.addr));
    time_to_a_free_slot(&v.addr);
    let freed = t0.elapsed();
    assert!(
        freed >= Duration::from_secs(2) && freed < Duration::from_millis(4000),
        "{freed:?}"
    );
}

#[test]
fn unknown_fields_are_refused_in_every_message_type() {
    // Each message type parses as documented, and the same message with one extra field is
    // refused (serde ignores extras of tagged unit variants, hence `reset {}`).
    for (good, bad) in [
        (
            r#"{"type":"config","n":3}"#,
            r#"{"type":"config","n":3,"extra":1}"#,
        ),
        (
            r#"{"type":"pause","paused":true}"#,
            r#"{"type":"pause","paused":true,"extra":1}"#,
        ),
        (r#"{"type":"reset"}"#, r#"{"type":"reset","extra":1}"#),
        (
            r#"{"type":"set_angles","theta":[1,2,3]}"#,
            r#"{"type":"set_angles","theta":[1,2,3],"extra":1}"#,
        ),
    ] {
        serde_json::from_str::<Request>(good).unwrap_or_else(|e| panic!("{good}: {e}"));
        let e = serde_json::from_str::<Request>(bad).expect_err(bad);
        assert!(
            e.to_string().contains("unknown field `extra`"),
            "{bad}: {e}"
        );
    }
    // Over the socket: an error reply each, and the state is unchanged (still running, not
    // reset, the angles not taken, the chain still three links).
    let addr = serve_lib(4, Limits::default());
    let mut ws = open_at(&addr);
    let mut f = next(&mut ws, "frame");
    while f["t"].as_f64().unwrap() < 0.3 {
        f = next(&mut ws, "frame");
    }
    for bad in [
        r#"{"type":"config","n":5,"extra":1}"#,
        r#"{"type":"pause","paused":true,"extra":1}"#,
        r#"{"type":"reset","extra":1}"#,
        r#"{"type":"set_angles","theta":[0.1,0.2,0.3],"extra":1}"#,
    ] {
        let t_before = f["t"].as_f64().unwrap();
        ws.send(Message::text(bad)).unwrap();
        let e = next(&mut ws, "error");
        assert!(
            e["message"]
                .as_str()
                .unwrap()
                .contains("unknown field `extra`"),
            "{bad}: {e}"
        );
        f = next(&mut ws, "frame");
        assert!(f["t"].as_f64().unwrap() > t_before, "{bad} changed the run");
        assert_eq!(f["n"], 3, "{bad}");
        assert_eq!(f["paused"], false, "{bad}");
        assert_ne!(f["theta"][0], 0.1, "{bad}");
    }
}

#[test]
fn engine_steps_match_seed_002_time_scaling() {
    use pendula::serve::engine::{Engine, Settings};
    let mut e = Engine::new(Settings::triple());
    e.apply(Request::Config {
        n: None,
        masses: None,
        lengths: None,
        shape: None,
        damping: None,
        speed: Some(3.0),
        substeps: Some(7),
    })
    .unwrap();
    for _ in 0..60 {
        e.advance(1.0 / 60.0);
    }
    // 60 frames of Δt = 1/60 s at α = 3: 3 s of model time in 60·7 RK4 steps.
    assert!((e.t - 3.0).abs() < 1e-12, "{}", e.t);
    assert_eq!(e.steps, 420);
    // The same run with the library's RK4 at δt = 3/(60·7): identical state.
    let chain = pendula::model::Chain::new(pendula::model::ChainParams::new(vec![
        pendula::model::Link::point(1.0 / 3.0, 1.0);
        3
    ]))
    .unwrap();
    let x0: Vec<f64> = Settings::triple()
        .theta0
        .iter()
        .copied()
        .chain([0.0; 3])
        .collect();
    let tr = pendula::analysis::simulate(
        &chain,
        &pendula::integrate::Method::Rk4 { dt: 3.0 / 420.0 },
        &x0,
        &pendula::analysis::SimulateOptions {
            t_end: 3.0,
            dt_out: 3.0,
        },
        &mut pendula::observe::Silent,
    )
    .unwrap();
    let fin = tr.final_state();
    for (a, b) in e.state().iter().zip(&fin) {
        assert!((a - b).abs() < 1e-9, "{a} vs {b}");
    }
    assert!(e.lyapunov().unwrap().is_finite());
}

/// What the headless-Chromium test of tests/browser lacks: Chromium at `$PENDULA_CHROMIUM`
/// (default /usr/bin/chromium), `node` on the PATH, `npm ci` done in tests/browser. Probed when
/// the test runs, not in build.rs (whose watches of `PATH` and /usr/bin rebuilt the crate).
fn browser_missing() -> Vec<String> {
    let chromium = std::env::var("PENDULA_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    let node = std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join("node").is_file()));
    let playwright = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/browser/node_modules/playwright-core");
    let mut missing = vec![];
    if !std::path::Path::new(&chromium).is_file() {
        missing.push(format!("Chromium at {chromium}"));
    }
    if !node {
        missing.push("node on the PATH".to_string());
    }
    if !playwright.is_dir() {
        missing.push("`npm ci` in tests/browser".to_string());
    }
    missing
}

/// The headless-Chromium test of tests/browser. Skipped, saying why on stderr, where Chromium,
/// node or `npm ci` in tests/browser is missing (`bash .ci/run` installs them); with
/// PENDULA_REQUIRE_BROWSER=1 their absence fails it.
#[test]
fn browser_page_in_headless_chromium() {
    let missing = browser_missing();
    if !missing.is_empty() {
        let why = format!(
            "the browser test cannot run: missing {}",
            missing.join(", ")
        );
        if std::env::var("PENDULA_REQUIRE_BROWSER").is_ok_and(|v| v == "1") {
            panic!("PENDULA_REQUIRE_BROWSER=1 but {why}; `bash .ci/run` installs them (Debian's chromium, then npm ci in tests/browser)");
        }
        eprintln!("skipped: {why}");
        return;
    }
    let v = start();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/browser");
    let status = Command::new("node")
        .arg("viewer.test.mjs")
        .current_dir(dir)
        .env("PENDULA_URL", format!("http://{}/", v.addr))
        .status()
        .expect("node runs");
    assert!(status.success(), "the browser test failed");
}

/// Two `Host` headers are refused (400), whichever comes first; the head is held to 8 KiB
/// exactly, its blank line included (heads up to 9.2 KB used to get through).
#[test]
fn duplicate_hosts_and_heads_over_8_kib_are_refused() {
    let addr = serve_lib(4, Limits::default());
    let foreign = "evil.example:80";
    for (a, b) in [
        (addr.as_str(), foreign),
        (foreign, addr.as_str()),
        (addr.as_str(), addr.as_str()),
    ] {
        let reply = raw(
            &addr,
            &format!("GET / HTTP/1.1\r\nHost: {a}\r\nHost: {b}\r\n\r\n"),
        );
        assert!(reply.starts_with("HTTP/1.1 400"), "{a}, {b}: {reply:.60}");
        assert!(reply.contains("more than one Host header"), "{reply}");
    }
    // A head of exactly `len` bytes: a padding header fills it up.
    let head = |len: usize| {
        let start = format!("GET / HTTP/1.1\r\nHost: {addr}\r\nX-Pad: ");
        let pad = len - start.len() - "\r\n\r\n".len();
        format!("{start}{}\r\n\r\n", "a".repeat(pad))
    };
    assert_eq!(head(8192).len(), 8192);
    let reply = raw(&addr, &head(8192));
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply:.60}");
    for len in [8193, 8200, 9200, 9215] {
        let reply = raw(&addr, &head(len));
        assert!(reply.starts_with("HTTP/1.1 400"), "{len}: {reply:.60}");
        assert!(reply.contains("request head too large"), "{len}: {reply}");
    }
}
