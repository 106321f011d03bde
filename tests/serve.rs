//! The live viewer over loopback: the page is served, frames stream, controls act, and
//! malformed, hostile or oversized messages are rejected while the server keeps serving.
//! Also runs the headless-Chromium test (tests/browser) when PENDULA_REQUIRE_BROWSER=1.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
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
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("pendula"))
        .args(["serve", "--port", "0", "--max-clients", "4"])
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
    let (ws, _) = connect(format!("ws://{}/ws", v.addr)).unwrap();
    ws
}

/// Next message of `kind` (frames or errors), within 5 s.
fn next(ws: &mut Ws, kind: &str) -> serde_json::Value {
    let end = Instant::now() + Duration::from_secs(5);
    while Instant::now() < end {
        if let Message::Text(t) = ws.read().unwrap() {
            let v: serde_json::Value = serde_json::from_str(t.as_str()).unwrap();
            if v["type"] == kind {
                return v;
            }
        }
    }
    panic!("no {kind} message within 5 s");
}

fn http_get(addr: &str, path: &str) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    write!(s, "GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n").unwrap();
    let mut body = String::new();
    s.read_to_string(&mut body).unwrap();
    body
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
    let end = Instant::now() + Duration::from_secs(5);
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

#[test]
fn engine_steps_match_seed_002_time_scaling() {
    use pendula::serve::engine::{Engine, Request, Settings};
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

/// The headless-Chromium test of tests/browser. Ignored, with the reason, where build.rs found
/// no Chromium, node or `npm ci` in tests/browser (`bash .ci/run` installs them; with
/// PENDULA_REQUIRE_BROWSER=1 their absence fails the build).
#[test]
#[cfg_attr(
    not(have_browser),
    ignore = "needs /usr/bin/chromium (or PENDULA_CHROMIUM), node, and npm ci in tests/browser"
)]
fn browser_page_in_headless_chromium() {
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
