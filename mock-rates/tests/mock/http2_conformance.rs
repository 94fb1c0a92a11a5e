//! RFC 9113 and RFC 7541, section by section, driven with raw frames over TLS (ALPN h2), in
//! the spirit of h2spec: each case opens a connection, sends its frames, and asserts what the
//! RFC requires: a connection error (GOAWAY with its code, then the close), a stream error
//! (RST_STREAM with its code, the connection going on), an answer, or nothing (the
//! connection answers a PING after it). Where the RFC leaves a choice, the case says which
//! one mock-rates takes and whose: a malformed request is a stream error PROTOCOL_ERROR, as
//! hyper's h2 answers it (nginx answers 400); a header list over the limit is answered 431,
//! as h2 does.

use std::time::Duration;

use mock_rates::{MockServer, Settings, TlsSettings};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;

use crate::http2::{h2_server, raw_frame as frame, runtime, tls_connect};

const DATA: u8 = 0x0;
const HEADERS: u8 = 0x1;
const PRIORITY: u8 = 0x2;
const RST_STREAM: u8 = 0x3;
const SETTINGS: u8 = 0x4;
const PUSH_PROMISE: u8 = 0x5;
const PING: u8 = 0x6;
const GOAWAY: u8 = 0x7;
const WINDOW_UPDATE: u8 = 0x8;
const CONTINUATION: u8 = 0x9;

const END_STREAM: u8 = 0x1;
const ACK: u8 = 0x1;
const END_HEADERS: u8 = 0x4;
const PADDED: u8 = 0x8;
const PRIORITY_FLAG: u8 = 0x20;
/// HEADERS that end both the block and the stream.
const WHOLE: u8 = END_HEADERS | END_STREAM;

const NO_ERROR: u32 = 0x0;
const PROTOCOL_ERROR: u32 = 0x1;
const FLOW_CONTROL_ERROR: u32 = 0x3;
const STREAM_CLOSED: u32 = 0x5;
const FRAME_SIZE_ERROR: u32 = 0x6;
const REFUSED_STREAM: u32 = 0x7;
const COMPRESSION_ERROR: u32 = 0x9;
const ENHANCE_YOUR_CALM: u32 = 0xb;

const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// What a case must end in.
#[derive(Clone, Copy, Debug)]
enum Expect {
    /// GOAWAY with this code, then the connection closes.
    ConnectionError(u32),
    /// RST_STREAM on this stream with this code; the connection goes on.
    StreamError(u32, u32),
    /// An answer on this stream with this status; the connection goes on.
    Status(u32, u16),
    /// Nothing but the connection going on.
    Nothing,
    /// The connection closes (a GOAWAY is optional).
    Closed,
}

/// One case: its section and name, the bytes sent after the preface and the client's
/// SETTINGS (unless `raw`), and what must follow.
struct Case {
    section: &'static str,
    name: &'static str,
    send: Vec<u8>,
    expect: Expect,
    /// `send` is all the client sends, the preface included.
    raw: bool,
}

fn case(section: &'static str, name: &'static str, send: Vec<u8>, expect: Expect) -> Case {
    Case {
        section,
        name,
        send,
        expect,
        raw: false,
    }
}

type RawFrame = (u8, u8, u32, Vec<u8>);

struct Client {
    stream: TlsStream<TcpStream>,
    buffer: Vec<u8>,
}

impl Client {
    async fn connect(server: &MockServer) -> Self {
        let (stream, chosen) = tls_connect(server, &[b"h2"]).await.unwrap();
        assert_eq!(chosen.as_deref(), Some(&b"h2"[..]));
        Self {
            stream,
            buffer: Vec::new(),
        }
    }

    async fn send(&mut self, bytes: &[u8]) {
        // The server may have closed already: what it wrote is read next.
        let _ = self.stream.write_all(bytes).await;
        let _ = self.stream.flush().await;
    }

    /// The next frame, or `None` once the connection has closed.
    async fn frame(&mut self) -> Option<RawFrame> {
        loop {
            if self.buffer.len() >= 9 {
                let len = usize::from(self.buffer[0]) << 16
                    | usize::from(self.buffer[1]) << 8
                    | usize::from(self.buffer[2]);
                if self.buffer.len() >= 9 + len {
                    let stream = u32::from_be_bytes(self.buffer[5..9].try_into().unwrap());
                    let frame = (
                        self.buffer[3],
                        self.buffer[4],
                        stream,
                        self.buffer[9..9 + len].to_vec(),
                    );
                    self.buffer.drain(..9 + len);
                    return Some(frame);
                }
            }
            self.buffer.reserve(16 * 1024);
            match self.stream.read_buf(&mut self.buffer).await {
                Ok(0) | Err(_) => return None,
                Ok(_) => {}
            }
        }
    }

    /// Frames until one matches `last` (returned), or the close (`None`); every frame read
    /// is kept in `seen`.
    async fn until(
        &mut self,
        seen: &mut Vec<RawFrame>,
        last: impl Fn(&RawFrame) -> bool,
    ) -> Option<RawFrame> {
        while let Some(frame) = self.frame().await {
            seen.push(frame.clone());
            if last(&frame) {
                return Some(frame);
            }
        }
        None
    }

    /// Whether the connection goes on: a PING answered, with no GOAWAY before it.
    async fn alive(&mut self, seen: &mut Vec<RawFrame>) -> Result<(), String> {
        self.send(&frame(PING, 0, 0, b"alive?!!")).await;
        let ack =
            |frame: &RawFrame| frame.0 == PING && frame.1 & ACK != 0 && frame.3 == b"alive?!!";
        let acked = self.until(seen, ack).await;
        if let Some(goaway) = seen.iter().find(|frame| frame.0 == GOAWAY) {
            return Err(format!("a GOAWAY: {goaway:?}"));
        }
        match acked {
            Some((_, _, _, payload)) if payload == b"alive?!!" => Ok(()),
            other => Err(format!("no PING ACK but {other:?}")),
        }
    }
}

/// The code of a GOAWAY or RST_STREAM payload.
fn code_of(frame: &RawFrame) -> u32 {
    let at = if frame.0 == GOAWAY { 4 } else { 0 };
    frame.3.get(at..at + 4).map_or(u32::MAX, |code| {
        u32::from_be_bytes(code.try_into().unwrap())
    })
}

/// The `:status` of an answer's header block, as mock-rates writes it: a static-table index,
/// or a literal with the name of index 8.
fn status_of(block: &[u8]) -> Option<u16> {
    match block.first()? {
        0x88 => Some(200),
        0x89 => Some(204),
        0x8a => Some(206),
        0x8b => Some(304),
        0x8c => Some(400),
        0x8d => Some(404),
        0x8e => Some(500),
        0x08 => std::str::from_utf8(block.get(2..2 + usize::from(*block.get(1)?))?)
            .ok()?
            .parse()
            .ok(),
        _ => None,
    }
}

async fn run_case(server: &MockServer, case: &Case) -> Result<(), String> {
    let mut client = Client::connect(server).await;
    if case.raw {
        client.send(&case.send).await;
    } else {
        let mut opening = PREFACE.to_vec();
        opening.extend(frame(SETTINGS, 0, 0, &[]));
        opening.extend(&case.send);
        client.send(&opening).await;
    }
    let mut seen = Vec::new();
    match case.expect {
        Expect::ConnectionError(code) => {
            let goaway = client.until(&mut seen, |frame| frame.0 == GOAWAY).await;
            let goaway = goaway.ok_or_else(|| format!("closed without GOAWAY: {seen:?}"))?;
            if code_of(&goaway) != code {
                return Err(format!("GOAWAY code {} not {code}", code_of(&goaway)));
            }
            if client.until(&mut seen, |_| false).await.is_some() {
                return Err("not closed".into());
            }
            Ok(())
        }
        Expect::Closed => match client.until(&mut seen, |frame| frame.0 != GOAWAY).await {
            Some(frame) if frame.0 != SETTINGS => Err(format!("a frame {frame:?}")),
            Some(_) => match client.until(&mut seen, |frame| frame.0 != GOAWAY).await {
                None => Ok(()),
                Some(frame) => Err(format!("a frame {frame:?}")),
            },
            None => Ok(()),
        },
        Expect::StreamError(stream, code) => {
            let reset = |frame: &RawFrame| frame.0 == RST_STREAM && frame.2 == stream;
            let found = client
                .until(&mut seen, |frame| reset(frame) || frame.0 == GOAWAY)
                .await;
            match found {
                Some(found) if found.0 == RST_STREAM && code_of(&found) == code => {
                    client.alive(&mut seen).await
                }
                other => Err(format!("not RST_STREAM({code}) on {stream}: {other:?}")),
            }
        }
        Expect::Status(stream, status) => {
            let answer = |frame: &RawFrame| frame.0 == HEADERS && frame.2 == stream;
            let found = client
                .until(&mut seen, |frame| answer(frame) || frame.0 == GOAWAY)
                .await;
            match found {
                Some(found) if found.0 == HEADERS && status_of(&found.3) == Some(status) => {
                    client.alive(&mut seen).await
                }
                other => Err(format!("no {status} on {stream}: {other:?}")),
            }
        }
        Expect::Nothing => {
            client.alive(&mut seen).await?;
            match seen.iter().find(|frame| frame.0 == RST_STREAM) {
                Some(reset) => Err(format!("a reset: {reset:?}")),
                None => Ok(()),
            }
        }
    }
}

/// Runs every case on a connection of its own; fails with every case that did not hold.
fn run(cases: &[Case]) {
    run_with(Settings::default(), cases);
}

fn run_with(settings: Settings, cases: &[Case]) {
    let server = h2_server(TlsSettings::default(), settings);
    let failures = runtime().block_on(async {
        let mut failures = Vec::new();
        for case in cases {
            let ran = tokio::time::timeout(Duration::from_secs(10), run_case(&server, case)).await;
            let outcome = ran.unwrap_or_else(|_| Err("no end within 10 s".into()));
            if let Err(why) = outcome {
                failures.push(format!(
                    "§{} {}: expected {:?}: {why}",
                    case.section, case.name, case.expect
                ));
            }
        }
        failures
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `GET path` over https for localhost.
fn get(path: &str) -> Vec<u8> {
    let mut block = vec![0x82, 0x87, 0x04, u8::try_from(path.len()).unwrap()];
    block.extend(path.as_bytes());
    block.extend([0x01, 9]);
    block.extend(b"localhost");
    block
}

/// A literal field without indexing, its name literal too.
fn field(name: &str, value: &str) -> Vec<u8> {
    let mut out = vec![0x00];
    string(&mut out, name);
    string(&mut out, value);
    out
}

/// A raw string literal: its length as a 7-bit-prefix integer, then its bytes.
fn string(out: &mut Vec<u8>, text: &str) {
    let mut len = text.len();
    if len < 127 {
        out.push(u8::try_from(len).unwrap());
    } else {
        out.push(127);
        len -= 127;
        while len >= 128 {
            out.push(u8::try_from(len % 128).unwrap() | 0x80);
            len /= 128;
        }
        out.push(u8::try_from(len).unwrap());
    }
    out.extend(text.as_bytes());
}

/// A block of the given representations, in order.
fn block(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

fn headers(stream: u32, block: &[u8]) -> Vec<u8> {
    frame(HEADERS, WHOLE, stream, block)
}

fn settings(values: &[(u16, u32)]) -> Vec<u8> {
    let payload: Vec<u8> = values
        .iter()
        .flat_map(|(id, value)| [&id.to_be_bytes()[..], &value.to_be_bytes()[..]].concat())
        .collect();
    frame(SETTINGS, 0, 0, &payload)
}

fn window_update(stream: u32, increment: u32) -> Vec<u8> {
    frame(WINDOW_UPDATE, 0, stream, &increment.to_be_bytes())
}

fn rst(stream: u32, code: u32) -> Vec<u8> {
    frame(RST_STREAM, 0, stream, &code.to_be_bytes())
}

/// A client whose INITIAL_WINDOW_SIZE is 0: every answer's body waits, so its stream stays
/// half-closed (remote).
fn no_window() -> Vec<u8> {
    settings(&[(0x4, 0)])
}

fn cat(parts: &[Vec<u8>]) -> Vec<u8> {
    parts.concat()
}

#[test]
fn rfc9113_section_3_the_preface() {
    let mut not_preface = b"PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n".to_vec();
    not_preface.extend(frame(SETTINGS, 0, 0, &[]));
    let mut ping_first = PREFACE.to_vec();
    ping_first.extend(frame(PING, 0, 0, b"12345678"));
    let mut ack_first = PREFACE.to_vec();
    ack_first.extend(frame(SETTINGS, ACK, 0, &[]));
    run(&[
        Case {
            raw: true,
            ..case(
                "3.4",
                "a preface that is not the preface",
                not_preface,
                Expect::Closed,
            )
        },
        Case {
            raw: true,
            ..case(
                "3.4",
                "a first frame other than SETTINGS",
                ping_first,
                Expect::ConnectionError(PROTOCOL_ERROR),
            )
        },
        Case {
            raw: true,
            ..case(
                "3.4",
                "a SETTINGS ACK as the first frame",
                ack_first,
                Expect::ConnectionError(PROTOCOL_ERROR),
            )
        },
        case("3.4", "the preface and SETTINGS", vec![], Expect::Nothing),
    ]);
}

#[test]
fn rfc9113_section_4_frames() {
    let mut reserved_bit = frame(HEADERS, WHOLE, 1, &get("/health"));
    reserved_bit[5] |= 0x80;
    let mut compression = get("/health");
    compression.push(0x80);
    run(&[
        case(
            "4.1",
            "an unknown frame type is ignored",
            frame(0x20, 0xff, 0, b"whatever"),
            Expect::Nothing,
        ),
        case(
            "4.1",
            "unknown flags on a PING are ignored",
            frame(PING, 0xfe, 0, b"12345678"),
            Expect::Nothing,
        ),
        case(
            "4.1",
            "the reserved bit of a stream id is ignored",
            reserved_bit,
            Expect::Status(1, 200),
        ),
        case(
            "4.2",
            "a DATA frame past the largest frame",
            cat(&[
                frame(HEADERS, END_HEADERS, 1, &get("/health")),
                frame(DATA, 0, 1, &vec![0; 16_385]),
            ]),
            Expect::ConnectionError(FRAME_SIZE_ERROR),
        ),
        case(
            "4.2",
            "a HEADERS frame past the largest frame",
            frame(HEADERS, WHOLE, 1, &vec![0x82; 16_385]),
            Expect::ConnectionError(FRAME_SIZE_ERROR),
        ),
        case(
            "4.3",
            "a header block that does not decode",
            headers(1, &compression),
            Expect::ConnectionError(COMPRESSION_ERROR),
        ),
        case(
            "4.3",
            "another frame inside a header block",
            cat(&[
                frame(HEADERS, END_STREAM, 1, &get("/health")),
                frame(PING, 0, 0, b"12345678"),
            ]),
            Expect::ConnectionError(PROTOCOL_ERROR),
        ),
    ]);
}

#[test]
#[allow(clippy::too_many_lines)] // a table of cases, one per requirement
fn rfc9113_section_5_streams() {
    let health = || get("/health");
    run(&[
        // 5.1: idle.
        case(
            "5.1",
            "idle: DATA",
            frame(DATA, END_STREAM, 1, b"x"),
            Expect::ConnectionError(PROTOCOL_ERROR),
        ),
        case(
            "5.1",
            "idle: RST_STREAM",
            rst(1, 8),
            Expect::ConnectionError(PROTOCOL_ERROR),
        ),
        case(
            "5.1",
            "idle: WINDOW_UPDATE",
            window_update(1, 100),
            Expect::ConnectionError(PROTOCOL_ERROR),
        ),
        case(
            "5.1",
            "idle: CONTINUATION",
            frame(CONTINUATION, END_HEADERS, 1, &health()),
            Expect::ConnectionError(PROTOCOL_ERROR),
        ),
        case(
            "5.1",
            "idle: PRIORITY is allowed",
            frame(PRIORITY, 0, 1, &[0, 0, 0, 0, 16]),
            Expect::Nothing,
        ),
        // 5.1: half-closed (remote): the request ended, the answer waits for window.
        case(
            "5.1",
            "half-closed (remote): DATA",
            cat(&[no_window(), headers(1, &health()), frame(DATA, 0, 1, b"x")]),
            Expect::StreamError(1, STREAM_CLOSED),
        ),
        case(
            "5.1",
            "half-closed (remote): HEADERS",
            cat(&[no_window(), headers(1, &health()), headers(1, &health())]),
            Expect::StreamError(1, STREAM_CLOSED),
        ),
        case(
            "5.1",
            "half-closed (remote): WINDOW_UPDATE lets the answer out",
            cat(&[no_window(), headers(1, &health()), window_update(1, 100)]),
            Expect::Status(1, 200),
        ),
        // 5.1: closed.
        case(
            "5.1",
            "closed: DATA after END_STREAM both ways",
            cat(&[headers(1, &health()), frame(DATA, 0, 1, b"x")]),
            Expect::ConnectionError(STREAM_CLOSED),
        ),
        case(
            "5.1",
            "closed: HEADERS after END_STREAM both ways",
            cat(&[headers(1, &health()), headers(1, &health())]),
            Expect::ConnectionError(STREAM_CLOSED),
        ),
        case(
            "5.1",
            "closed: DATA after the client's RST_STREAM",
            cat(&[
                frame(HEADERS, END_HEADERS, 1, &health()),
                rst(1, 8),
                frame(DATA, 0, 1, b"x"),
            ]),
            Expect::StreamError(1, STREAM_CLOSED),
        ),
        case(
            "5.1",
            "closed: WINDOW_UPDATE, RST_STREAM and PRIORITY are ignored",
            cat(&[
                headers(1, &health()),
                window_update(1, 100),
                rst(1, 8),
                frame(PRIORITY, 0, 1, &[0, 0, 0, 0, 16]),
            ]),
            Expect::Nothing,
        ),
        case(
            "5.1",
            "closed by the server's reset: DATA in flight is ignored",
            cat(&[
                frame(
                    HEADERS,
                    END_HEADERS,
                    1,
                    &block(&[&health(), &field("te", "gzip")]),
                ),
                frame(DATA, END_STREAM, 1, b"x"),
            ]),
            Expect::StreamError(1, PROTOCOL_ERROR),
        ),
        // 5.1.1: stream identifiers.
        case(
            "5.1.1",
            "a stream opened by the client with an even id",
            headers(2, &health()),
            Expect::ConnectionError(PROTOCOL_ERROR),
        ),
        case(
            "5.1.1",
            "a stream id lower than one opened before",
            cat(&[headers(5, &health()), headers(3, &health())]),
            Expect::ConnectionError(PROTOCOL_ERROR),
        ),
        // 5.3.1: a stream cannot depend on itself.
        case(
            "5.3.1",
            "HEADERS whose priority names its own stream",
            frame(
                HEADERS,
                WHOLE | PRIORITY_FLAG,
                1,
                &[&[0, 0, 0, 1, 16][..], &health()].concat(),
            ),
            Expect::StreamError(1, PROTOCOL_ERROR),
        ),
        case(
            "5.3.1",
            "PRIORITY that names its own stream",
            cat(&[
                frame(HEADERS, END_HEADERS, 3, &health()),
                frame(PRIORITY, 0, 3, &[0, 0, 0, 3, 16]),
            ]),
            Expect::StreamError(3, PROTOCOL_ERROR),
        ),
        case(
            "5.3.1, 6.4",
            "PRIORITY that names its own idle stream: no RST_STREAM on an idle stream",
            frame(PRIORITY, 0, 3, &[0, 0, 0, 3, 16]),
            Expect::ConnectionError(PROTOCOL_ERROR),
        ),
        // 5.4.1: after a connection error, GOAWAY and the close (every ConnectionError case).
    ]);
}

/// 5.1.2: the concurrent-stream limit, 128 by default (nginx's), announced and kept: a stream
/// past it is refused, and the connection goes on.
#[test]
fn rfc9113_section_5_1_2_the_stream_limit() {
    let mut opening = vec![no_window()];
    for stream in 0..=128u32 {
        opening.push(headers(2 * stream + 1, &get("/health")));
    }
    run(&[case(
        "5.1.2",
        "stream 129 of a client whose answers all wait",
        cat(&opening),
        Expect::StreamError(2 * 128 + 1, REFUSED_STREAM),
    )]);
    let server = h2_server(TlsSettings::default(), Settings::default());
    runtime().block_on(async {
        let mut client = Client::connect(&server).await;
        let mut opening = PREFACE.to_vec();
        opening.extend(frame(SETTINGS, 0, 0, &[]));
        client.send(&opening).await;
        let settings = client.frame().await.unwrap();
        assert_eq!(settings.0, SETTINGS);
        let values: Vec<(u16, u32)> = settings
            .3
            .chunks(6)
            .map(|setting| {
                (
                    u16::from_be_bytes([setting[0], setting[1]]),
                    u32::from_be_bytes(setting[2..6].try_into().unwrap()),
                )
            })
            .collect();
        assert!(values.contains(&(0x3, 128)), "{values:?}");
        assert!(values.contains(&(0x6, 16 * 1024)), "{values:?}");
    });
}

#[test]
#[allow(clippy::too_many_lines)] // a table of cases, one per requirement
fn rfc9113_section_6_frame_definitions() {
    let health = || get("/health");
    let open = || frame(HEADERS, END_HEADERS, 1, &health());
    let mut continuations = vec![frame(HEADERS, END_STREAM, 1, &health())];
    for _ in 0..100 {
        continuations.push(frame(CONTINUATION, 0, 1, &[]));
    }
    let mut empty_data = vec![open()];
    for _ in 0..101 {
        empty_data.push(frame(DATA, 0, 1, &[]));
    }
    run(&[
        // 6.1 DATA.
        case(
            "6.1",
            "DATA on stream 0",
            frame(DATA, 0, 0, b"x"),
            Expect::ConnectionError(PROTOCOL_ERROR),
        ),
        case(
            "6.1",
            "DATA whose padding is longer than it",
            cat(&[open(), frame(DATA, PADDED, 1, &[5, b'x'])]),
            Expect::ConnectionError(PROTOCOL_ERROR),
        ),
        case(
            "6.1",
            "padded DATA that ends the request",
            cat(&[
                open(),
                frame(DATA, PADDED | END_STREAM, 1, &[2, b'x', 0, 0]),
            ]),
            Expect::Status(1, 200),
        ),
        case(
            "6.1 (10.5)",
            "a flood of empty DATA frames",
            cat(&empty_data),
            Expect::ConnectionError(ENHANCE_YOUR_CALM),
        ),
        // 6.2 HEADERS.
        case(
            "6.2",
            "HEADERS on stream 0",
            frame(HEADERS, WHOLE, 0, &health()),
            Expect::ConnectionError(PROTOCOL_ERROR),
        ),
        case(
            "6.2",
            "HEADERS whose padding is longer than it",
            frame(HEADERS, WHOLE | PADDED, 1, &[0xff, 0x82]),
            Expect::ConnectionError(PROTOCOL_ERROR),
        ),
        case(
            "6.2",
            "padded HEADERS with a priority",
            frame(
                HEADERS,
                WHOLE | PADDED | PRIORITY_FLAG,
                1,
                &[&[2, 0, 0, 0, 0, 16][..], &health(), &[0, 0]].concat(),
            ),
            Expect::Status(1, 200),
        ),
        // 6.3 PRIORITY.
        case(
            "6.3",
            "PRIORITY on stream 0",
            frame(PRIORITY, 0, 0, &[0, 0, 0, 1, 16]),
            Expect::ConnectionError(PROTOCOL_ERROR),
        ),
        case(
            "6.3",
            "PRIORITY of 4 bytes",
            cat(&[open(), frame(PRIORITY, 0, 1, &[0, 0, 0, 3])]),
            Expect::StreamError(1, FRAME_SIZE_ERROR),
        ),
        case(
            "6.3, 5.1",
            "PRIORITY of 4 bytes on a closed stream: nothing more sent on it",
            cat(&[headers(1, &health()), frame(PRIORITY, 0, 1, &[0, 0, 0, 3])]),
            Expect::Nothing,
        ),
        case(
            "6.3, 6.4",
            "PRIORITY of 4 bytes on an idle stream: no RST_STREAM on an idle stream",
            frame(PRIORITY, 0, 1, &[0, 0, 0, 3]),
            Expect::ConnectionError(FRAME_SIZE_ERROR),
        ),
        // 6.4 RST_STREAM.
        case(
            "6.4",
            "RST_STREAM on stream 0",
            rst(0, 8),
            Expect::ConnectionError(PROTOCOL_ERROR),
        ),
        case(
            "6.4",
            "RST_STREAM of 3 bytes",
            cat(&[open(), frame(RST_STREAM, 0, 1, &[0, 0, 8])]),
            Expect::ConnectionError(FRAME_SIZE_ERROR),
        ),
        // 6.5 SETTINGS.
        case(
            "6.5",
            "a SETTINGS ACK with a payload",
            frame(SETTINGS, ACK, 0, &[0, 1, 0, 0, 0, 0]),
            Expect::ConnectionError(FRAME_SIZE_ERROR),
        ),
        case(
            "6.5",
            "SETTINGS on a stream",
            frame(SETTINGS, 0, 1, &[]),
            Expect::ConnectionError(PROTOCOL_ERROR),
        ),
        case(
            "6.5",
            "SETTINGS of a length not a multiple of 6",
            frame(SETTINGS, 0, 0, &[0, 1, 0, 0, 0]),
            Expect::ConnectionError(FRAME_SIZE_ERROR),
        ),
        case(
            "6.5.2",
            "SETTINGS_ENABLE_PUSH of 2",
            settings(&[(0x2, 2)]),
            Expect::ConnectionError(PROTOCOL_ERROR),
        ),
        case(
            "6.5.2",
            "SETTINGS_INITIAL_WINDOW_SIZE past 2^31-1",
            settings(&[(0x4, 0x8000_0000)]),
            Expect::ConnectionError(FLOW_CONTROL_ERROR),
        ),
        case(
            "6.5.2",
            "SETTINGS_MAX_FRAME_SIZE under 16 384",
            settings(&[(0x5, 16_383)]),
            Expect::ConnectionError(PROTOCOL_ERROR),
        ),
        case(
            "6.5.2",
            "SETTINGS_MAX_FRAME_SIZE over 2^24-1",
            settings(&[(0x5, 1 << 24)]),
            Expect::ConnectionError(PROTOCOL_ERROR),
        ),
        case(
            "6.5.2",
            "an unknown setting is ignored",
            settings(&[(0xff, 1), (0x2, 0), (0x1, 0)]),
            Expect::Nothing,
        ),
        // 6.6 PUSH_PROMISE.
        case(
            "6.6",
            "PUSH_PROMISE from a client",
            cat(&[open(), frame(PUSH_PROMISE, END_HEADERS, 1, &[0, 0, 0, 2])]),
            Expect::ConnectionError(PROTOCOL_ERROR),
        ),
        // 6.7 PING.
        case(
            "6.7",
            "PING on a stream",
            frame(PING, 0, 1, b"12345678"),
            Expect::ConnectionError(PROTOCOL_ERROR),
        ),
        case(
            "6.7",
            "PING of 7 bytes",
            frame(PING, 0, 0, b"1234567"),
            Expect::ConnectionError(FRAME_SIZE_ERROR),
        ),
        case(
            "6.7",
            "a PING ACK is not answered",
            frame(PING, ACK, 0, b"12345678"),
            Expect::Nothing,
        ),
        // 6.8 GOAWAY.
        case(
            "6.8",
            "GOAWAY on a stream",
            frame(GOAWAY, 0, 1, &[0; 8]),
            Expect::ConnectionError(PROTOCOL_ERROR),
        ),
        case(
            "6.8",
            "GOAWAY from the client: the server closes too",
            frame(GOAWAY, 0, 0, &[0; 8]),
            Expect::ConnectionError(NO_ERROR),
        ),
        // 6.9 WINDOW_UPDATE.
        case(
            "6.9",
            "WINDOW_UPDATE of 0 on the connection",
            window_update(0, 0),
            Expect::ConnectionError(PROTOCOL_ERROR),
        ),
        case(
            "6.9",
            "WINDOW_UPDATE of 0 on a stream",
            cat(&[open(), window_update(1, 0)]),
            Expect::StreamError(1, PROTOCOL_ERROR),
        ),
        case(
            "6.9",
            "WINDOW_UPDATE of 3 bytes",
            frame(WINDOW_UPDATE, 0, 0, &[0, 0, 1]),
            Expect::ConnectionError(FRAME_SIZE_ERROR),
        ),
        case(
            "6.9.1",
            "a connection window past 2^31-1",
            window_update(0, 0x7fff_ffff),
            Expect::ConnectionError(FLOW_CONTROL_ERROR),
        ),
        case(
            "6.9.1",
            "a stream window past 2^31-1",
            cat(&[open(), window_update(1, 0x7fff_ffff)]),
            Expect::StreamError(1, FLOW_CONTROL_ERROR),
        ),
        case(
            "6.9.2",
            "an INITIAL_WINDOW_SIZE that takes a stream's window past 2^31-1",
            cat(&[
                no_window(),
                open(),
                window_update(1, 0x7fff_fff0),
                settings(&[(0x4, 100)]),
            ]),
            Expect::ConnectionError(FLOW_CONTROL_ERROR),
        ),
        case(
            "6.9.2",
            "an INITIAL_WINDOW_SIZE that opens a waiting stream's window",
            cat(&[
                no_window(),
                headers(1, &health()),
                settings(&[(0x4, 65_535)]),
            ]),
            Expect::Status(1, 200),
        ),
        // 6.10 CONTINUATION.
        case(
            "6.10",
            "CONTINUATION after a block that ended",
            cat(&[
                headers(1, &health()),
                frame(CONTINUATION, END_HEADERS, 1, &[0x82]),
            ]),
            Expect::ConnectionError(PROTOCOL_ERROR),
        ),
        case(
            "6.10",
            "CONTINUATION on another stream",
            cat(&[
                frame(HEADERS, END_STREAM, 1, &health()),
                frame(CONTINUATION, END_HEADERS, 3, &[0x82]),
            ]),
            Expect::ConnectionError(PROTOCOL_ERROR),
        ),
        case(
            "6.10",
            "a header block in HEADERS and CONTINUATIONs",
            cat(&[
                frame(HEADERS, END_STREAM, 1, &[0x82, 0x87]),
                frame(CONTINUATION, 0, 1, &[0x84]),
                frame(CONTINUATION, END_HEADERS, 1, &[0x01, 1, b'a']),
            ]),
            Expect::Status(1, 404),
        ),
        case(
            "6.10 (10.5)",
            "a flood of empty CONTINUATIONs",
            cat(&continuations),
            Expect::ConnectionError(ENHANCE_YOUR_CALM),
        ),
    ]);
}

/// 8: HTTP messages. A malformed request is a stream error PROTOCOL_ERROR (§8.1.1), as h2
/// answers it; nginx answers most with 400.
#[test]
#[allow(clippy::too_many_lines)] // a table of cases, one per requirement
fn rfc9113_section_8_http_messages() {
    let base = || {
        vec![
            0x82, 0x87, 0x04, 7, b'/', b'h', b'e', b'a', b'l', b't', b'h',
        ]
    };
    let malformed = |name, block: Vec<u8>| {
        case(
            "8.1.1",
            name,
            headers(1, &block),
            Expect::StreamError(1, PROTOCOL_ERROR),
        )
    };
    let with = |extra: &[u8]| [&base()[..], extra].concat();
    let upload = |length: &str| {
        frame(
            HEADERS,
            END_HEADERS,
            1,
            &[&get("/health")[..], &field("content-length", length)].concat(),
        )
    };
    run(&[
        case(
            "8.1",
            "a request",
            headers(1, &get("/health")),
            Expect::Status(1, 200),
        ),
        malformed("8.3.1: no :method", vec![0x87, 0x84]),
        malformed("8.3.1: no :scheme", vec![0x82, 0x84]),
        malformed("8.3.1: no :path", vec![0x82, 0x87]),
        malformed("8.3.1: an empty :path", vec![0x82, 0x87, 0x04, 0]),
        malformed("8.3: a pseudo-header twice", with(&[0x82])),
        malformed("8.3: an unknown pseudo-header", with(&field(":foo", "x"))),
        malformed("8.3: a response pseudo-header", with(&[0x88])),
        malformed(
            "8.3: a pseudo-header after a regular field",
            [&field("accept", "*/*")[..], &base()].concat(),
        ),
        malformed(
            "8.2.1: an upper-case field name",
            with(&field("Accept", "*/*")),
        ),
        malformed("8.2.1: a field value with a CR", with(&field("x", "a\rb"))),
        malformed("8.2.2: connection", with(&field("connection", "close"))),
        malformed(
            "8.2.2: transfer-encoding",
            with(&field("transfer-encoding", "chunked")),
        ),
        malformed("8.2.2: te other than trailers", with(&field("te", "gzip"))),
        case(
            "8.2.2",
            "te: trailers",
            headers(1, &with(&field("te", "trailers"))),
            Expect::Status(1, 200),
        ),
        malformed(
            "8.1.1: content-length with an empty, ended request",
            with(&field("content-length", "3")),
        ),
        case(
            "8.1.1",
            "content-length longer than the DATA",
            cat(&[upload("5"), frame(DATA, END_STREAM, 1, b"abc")]),
            Expect::StreamError(1, PROTOCOL_ERROR),
        ),
        case(
            "8.1.1",
            "content-length shorter than the DATA",
            cat(&[upload("2"), frame(DATA, 0, 1, b"abc")]),
            Expect::StreamError(1, PROTOCOL_ERROR),
        ),
        case(
            "8.1.1",
            "content-length equal to the DATA",
            cat(&[upload("3"), frame(DATA, END_STREAM, 1, b"abc")]),
            Expect::Status(1, 200),
        ),
        case(
            "8.1",
            "trailers",
            cat(&[
                upload("3"),
                frame(DATA, 0, 1, b"abc"),
                headers(1, &field("x-checksum", "1")),
            ]),
            Expect::Status(1, 200),
        ),
        case(
            "8.1",
            "a pseudo-header in trailers",
            cat(&[upload("3"), frame(DATA, 0, 1, b"abc"), headers(1, &[0x82])]),
            Expect::StreamError(1, PROTOCOL_ERROR),
        ),
        case(
            "8.1",
            "trailers that do not end the stream",
            cat(&[
                upload("3"),
                frame(DATA, 0, 1, b"abc"),
                frame(HEADERS, END_HEADERS, 1, &field("x-checksum", "1")),
            ]),
            Expect::StreamError(1, PROTOCOL_ERROR),
        ),
        case(
            "8.5",
            "CONNECT, well formed, is answered: no route tunnels (501)",
            headers(
                1,
                &[&[0x02, 7][..], b"CONNECT", &[0x01, 9], b"localhost"].concat(),
            ),
            Expect::Status(1, 501),
        ),
        case(
            "8.5",
            "CONNECT with a :path is malformed",
            headers(
                1,
                &[
                    &[0x02, 7][..],
                    b"CONNECT",
                    &[0x01, 9],
                    b"localhost",
                    &[0x84],
                ]
                .concat(),
            ),
            Expect::StreamError(1, PROTOCOL_ERROR),
        ),
    ]);
}

/// RFC 7541: HPACK errors are connection errors (COMPRESSION_ERROR, RFC 9113 §4.3); the
/// dynamic table carries from block to block; a header list over the limit is answered 431.
#[test]
fn rfc7541_header_compression() {
    let mut indexed_path = vec![0x82, 0x87, 0x44, 7];
    indexed_path.extend(b"/health");
    let mut large = get("/health");
    for _ in 0..5 {
        large.extend(field("x-large", &"a".repeat(4000)));
    }
    // `/` Huffman-coded is 011000, so ":path /" is 0x63 with its padding of 1s.
    run(&[
        case(
            "2.3.3",
            "an index past the table",
            headers(1, &[0x82, 0x87, 0xbe]),
            Expect::ConnectionError(COMPRESSION_ERROR),
        ),
        case(
            "2.3.3",
            "index 0",
            headers(1, &[0x80]),
            Expect::ConnectionError(COMPRESSION_ERROR),
        ),
        case(
            "2.3.2",
            "the dynamic table carries to the next block",
            cat(&[headers(1, &indexed_path), headers(3, &[0x82, 0x87, 0xbe])]),
            Expect::Status(3, 200),
        ),
        case(
            "4.2",
            "a table size update past SETTINGS_HEADER_TABLE_SIZE",
            headers(1, &[0x3f, 0xe2, 0x1f]),
            Expect::ConnectionError(COMPRESSION_ERROR),
        ),
        case(
            "6.3",
            "a table size update after a field",
            headers(1, &[0x82, 0x20]),
            Expect::ConnectionError(COMPRESSION_ERROR),
        ),
        case(
            "6.3",
            "a table size update at the start",
            headers(1, &[&[0x20][..], &get("/health")].concat()),
            Expect::Status(1, 200),
        ),
        case(
            "5.1",
            "an integer past 2^28",
            headers(1, &[0xff, 0xff, 0xff, 0xff, 0xff, 0x0f]),
            Expect::ConnectionError(COMPRESSION_ERROR),
        ),
        case(
            "5.2",
            "a string longer than the block",
            headers(1, &[0x04, 0x05, b'/']),
            Expect::ConnectionError(COMPRESSION_ERROR),
        ),
        case(
            "5.2",
            "a Huffman string holding EOS",
            headers(1, &[0x04, 0x84, 0xff, 0xff, 0xff, 0xff]),
            Expect::ConnectionError(COMPRESSION_ERROR),
        ),
        case(
            "5.2",
            "a Huffman string padded with more than 7 bits",
            headers(1, &[0x82, 0x87, 0x04, 0x82, 0x63, 0xff]),
            Expect::ConnectionError(COMPRESSION_ERROR),
        ),
        case(
            "5.2",
            "a Huffman-coded :path",
            headers(1, &[0x82, 0x87, 0x04, 0x81, 0x63]),
            Expect::Status(1, 404),
        ),
        case(
            "RFC 9113 6.5.2",
            "a header list over SETTINGS_MAX_HEADER_LIST_SIZE: 431",
            cat(&[
                frame(HEADERS, END_STREAM, 1, &large[..16_000]),
                frame(CONTINUATION, END_HEADERS, 1, &large[16_000..]),
            ]),
            Expect::Status(1, 431),
        ),
    ]);
}
