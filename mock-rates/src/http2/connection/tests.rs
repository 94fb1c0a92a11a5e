//! The connection driven from memory (no socket, no time passing): the bounds it keeps
//! against the shapes of issue #38, counted rather than timed.

use tokio::time::Instant;

use super::*;
use crate::Settings;
use crate::http2::calm::{CONTROL_BUDGET, RESET_BUDGET};
use crate::http2::closing::DRAIN_TIMEOUT;

const SETTINGS_INITIAL_WINDOW: u16 = 0x4;

fn connection() -> Connection<Memory> {
    connection_with(Settings::default())
}

fn connection_with(settings: Settings) -> Connection<Memory> {
    let mut memory = Memory::new(64 * 1024);
    memory.send(frame::PREFACE);
    let mut connection = Connection::new(memory, MockState::new(settings), true);
    let (ended, _) = connection.pump(true);
    assert!(ended.is_none());
    connection.written();
    connection
}

fn raw(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    frame::head(&mut out, payload.len(), kind, flags, stream);
    out.extend_from_slice(payload);
    out
}

fn settings(values: &[(u16, u32)]) -> Vec<u8> {
    let mut out = Vec::new();
    frame::settings(&mut out, values);
    out
}

/// `GET path` over https: method and scheme from the static table, the path a literal.
fn get(path: &str) -> Vec<u8> {
    let mut block = vec![0x82, 0x87, 0x04, u8::try_from(path.len()).unwrap()];
    block.extend(path.as_bytes());
    block
}

/// The frames in `bytes`: type, flags, stream, payload.
fn frames(bytes: &[u8]) -> Vec<(u8, u8, u32, Vec<u8>)> {
    let mut frames = Vec::new();
    let mut rest = bytes;
    while let Some(head) = FrameHead::parse(rest) {
        let payload = rest[FrameHead::LEN..FrameHead::LEN + head.len].to_vec();
        frames.push((head.kind, head.flags, head.stream, payload));
        rest = &rest[FrameHead::LEN + head.len..];
    }
    assert!(rest.is_empty(), "a frame cut short");
    frames
}

fn code(payload: &[u8], at: usize) -> u32 {
    u32::from_be_bytes(payload[at..at + 4].try_into().unwrap())
}

/// The RST_STREAM codes written, by stream.
fn resets(frames: &[(u8, u8, u32, Vec<u8>)]) -> Vec<(u32, u32)> {
    frames
        .iter()
        .filter(|frame| frame.0 == frame::RST_STREAM)
        .map(|frame| (frame.2, code(&frame.3, 0)))
        .collect()
}

fn goaway(frames: &[(u8, u8, u32, Vec<u8>)]) -> Option<(u32, u32)> {
    frames
        .iter()
        .find(|frame| frame.0 == frame::GOAWAY)
        .map(|frame| (code(&frame.3, 0), code(&frame.3, 4)))
}

/// The amplification of issue #38: a 4 000-byte entry in the dynamic table, then one header
/// block of 64 KiB that references it about 65 000 times. The decoder stops handing fields
/// over at the header-list limit, so the connection keeps its buffers and nothing more.
#[tokio::test]
async fn a_header_block_that_amplifies_an_entry_is_held_to_the_limit() {
    let mut connection = connection();
    let mut input = settings(&[]);
    // Stream 1 indexes `x-big: <4 000 bytes>` (a new name with incremental indexing).
    let mut first = get("/health");
    first.extend([0x40, 5]);
    first.extend(b"x-big");
    first.extend([0x7f, 0xa1, 30]);
    first.extend(vec![b'a'; 4000]);
    input.extend(raw(
        frame::HEADERS,
        frame::END_HEADERS | frame::END_STREAM,
        1,
        &first,
    ));
    // Stream 3 references it (index 62) as often as 64 KiB allow, across CONTINUATIONs.
    let mut block = get("/health");
    block.resize(64 * 1024, 0xbe);
    let mut parts = block.chunks(frame::DEFAULT_MAX_FRAME);
    input.extend(raw(
        frame::HEADERS,
        frame::END_STREAM,
        3,
        parts.next().unwrap(),
    ));
    let parts: Vec<&[u8]> = parts.collect();
    for (at, part) in parts.iter().enumerate() {
        let flags = if at + 1 == parts.len() {
            frame::END_HEADERS
        } else {
            0
        };
        input.extend(raw(frame::CONTINUATION, flags, 3, part));
    }
    connection.client_sends(&input);
    let (ended, peak) = connection.pump(false);
    assert!(ended.is_none(), "the connection goes on");
    let frames = frames(&connection.written());
    let statuses: Vec<(u32, Vec<u8>)> = frames
        .iter()
        .filter(|frame| frame.0 == frame::HEADERS)
        .map(|frame| (frame.2, frame.3.clone()))
        .collect();
    assert_eq!(statuses.len(), 2, "{frames:?}");
    assert_eq!(statuses[0].1[0], 0x88, "stream 1: 200");
    assert_eq!(&statuses[1].1[..5], b"\x08\x03431", "stream 3: 431");
    assert!(
        connection.decoder.retained() < 16 * 1024,
        "the decoder keeps {} bytes",
        connection.decoder.retained()
    );
    assert!(
        connection.head.retained() <= MAX_HEADER_LIST as usize,
        "the head keeps {} bytes",
        connection.head.retained()
    );
    // The read buffer, a 16 KiB output buffer and the 64 KiB block (given back after).
    assert!(peak < 256 * 1024, "peak {peak} bytes");
    assert!(
        connection.retained() < 160 * 1024,
        "{}",
        connection.retained()
    );
}

/// A doubled pseudo-header is a malformed request, not appended to the first.
#[tokio::test]
async fn a_doubled_pseudo_header_resets_the_stream() {
    let mut connection = connection();
    let mut block = get("/health");
    block.push(0x82);
    let mut input = settings(&[]);
    input.extend(raw(
        frame::HEADERS,
        frame::END_HEADERS | frame::END_STREAM,
        1,
        &block,
    ));
    connection.client_sends(&input);
    connection.pump(false);
    let frames = frames(&connection.written());
    assert_eq!(resets(&frames), [(1, Reason::ProtocolError as u32)]);
}

/// Issue #38's stalled streams: a client whose INITIAL_WINDOW_SIZE is 0 opens streams whose
/// answers can never go out. The default limit (128) holds; the rest are refused; frames
/// that open no stream's window touch none of them; and they end after STALL_TIMEOUT.
#[tokio::test]
async fn streams_that_never_get_window_are_limited_untouched_and_timed_out() {
    let mut connection = connection();
    let mut input = settings(&[(SETTINGS_INITIAL_WINDOW, 0)]);
    let count = 300u32;
    for stream in 0..count {
        let flags = frame::END_HEADERS | frame::END_STREAM;
        input.extend(raw(frame::HEADERS, flags, 2 * stream + 1, &get("/health")));
    }
    connection.client_sends(&input);
    connection.pump(false);
    let written = frames(&connection.written());
    let refused = resets(&written);
    assert_eq!(refused.len(), (count - DEFAULT_MAX_STREAMS) as usize);
    assert!(
        refused
            .iter()
            .all(|&(_, code)| code == Reason::RefusedStream as u32)
    );
    let (open, waiting, touched) = connection.streams_seen();
    assert_eq!((open, waiting), (128, 128));
    assert!(connection.retained() < memory_bound(DEFAULT_MAX_STREAMS));

    // The connection's window, an empty SETTINGS, a PING: no stream is looked at.
    let mut update = vec![];
    frame::window_update(&mut update, 0, 1_000_000);
    update.extend(settings(&[]));
    update.extend(raw(frame::PING, 0, 0, b"12345678"));
    connection.client_sends(&update);
    connection.pump(false);
    assert_eq!(connection.streams_seen().2, touched, "no stream touched");

    // One stream's window: that stream alone, answered and gone.
    let mut update = vec![];
    frame::window_update(&mut update, 5, 100);
    connection.client_sends(&update);
    connection.pump(false);
    let (open, waiting, after) = connection.streams_seen();
    assert_eq!((open, waiting), (127, 127));
    assert_eq!(after - touched, 1, "one stream touched");
    let written = frames(&connection.written());
    assert!(
        written.iter().any(|frame| frame.0 == frame::DATA
            && frame.2 == 5
            && frame.1 & frame::END_STREAM != 0)
    );

    // Nothing more comes: past STALL_TIMEOUT every stream is reset (CANCEL), in time order.
    connection.due_work(Instant::now() + STALL_TIMEOUT + Duration::from_secs(1));
    connection.pump(false);
    let (open, waiting, _) = connection.streams_seen();
    assert_eq!((open, waiting), (0, 0));
    let cancelled = resets(&frames(&connection.written()));
    assert_eq!(cancelled.len(), 127);
    assert!(
        cancelled
            .iter()
            .all(|&(_, code)| code == Reason::Cancel as u32)
    );
}

/// `--max-concurrent-streams` still sets the limit, and it is announced.
#[tokio::test]
async fn the_stream_limit_is_the_flag_s_when_given() {
    let settings = Settings {
        tls: Some(crate::TlsSettings {
            max_concurrent_streams: Some(3),
            ..crate::TlsSettings::default()
        }),
        ..Settings::default()
    };
    let mut memory = Memory::new(64 * 1024);
    memory.send(frame::PREFACE);
    let mut connection = Connection::new(memory, MockState::new(settings), true);
    connection.pump(true);
    let frames = frames(&connection.written());
    assert_eq!(frames[0].0, frame::SETTINGS);
    assert_eq!(frames[0].3[..6], [0, 3, 0, 0, 0, 3]);
    assert_eq!(connection.limit(), 3);
}

/// A graceful close whose PING the client never answers ends after DRAIN_TIMEOUT.
#[tokio::test]
async fn a_drain_whose_ping_is_never_answered_closes() {
    let mut connection = connection();
    connection.client_sends(&settings(&[]));
    connection.pump(false);
    connection.drain();
    connection.due_work(Instant::now() + DRAIN_TIMEOUT + Duration::from_secs(1));
    let (ended, _) = connection.pump(false);
    assert!(matches!(ended, Some(Ok(()))), "{ended:?}");
    let frames = frames(&connection.written());
    let goaways: Vec<_> = frames
        .iter()
        .filter(|frame| frame.0 == frame::GOAWAY)
        .collect();
    assert_eq!(goaways.len(), 2, "the drain's, then the last stream's");
    assert_eq!(code(&goaways[1].3, 0), 0);
}

/// Rapid reset (CVE-2023-44487): streams opened and reset at once, over and over, run out
/// of the budget: GOAWAY(ENHANCE_YOUR_CALM).
#[tokio::test]
async fn a_reset_flood_is_told_to_calm_down() {
    let mut connection = connection();
    let mut input = settings(&[]);
    for stream in 0..=RESET_BUDGET {
        let id = 2 * stream + 1;
        input.extend(raw(frame::HEADERS, frame::END_HEADERS, id, &get("/health")));
        input.extend(raw(frame::RST_STREAM, 0, id, &8u32.to_be_bytes()));
    }
    connection.client_sends(&input);
    let (ended, _) = connection.pump(false);
    assert!(ended.is_some());
    let frames = frames(&connection.written());
    assert_eq!(
        goaway(&frames),
        Some((2 * RESET_BUDGET + 1, Reason::EnhanceYourCalm as u32))
    );
}

/// A client that gives up on answers it waits for (a hang) resets routed streams: as often as
/// it likes, as h2 lets it.
#[tokio::test]
async fn resets_of_streams_that_wait_for_their_answer_are_not_a_flood() {
    let mut connection = connection_with(Settings {
        faults: crate::Faults {
            mode: crate::FaultMode::Hang,
            percent: 100,
            ..crate::Faults::default()
        },
        ..Settings::default()
    });
    let mut input = settings(&[]);
    for stream in 0..=RESET_BUDGET {
        let id = 2 * stream + 1;
        let flags = frame::END_HEADERS | frame::END_STREAM;
        input.extend(raw(
            frame::HEADERS,
            flags,
            id,
            &get("/api/live?pairs=EURUSD"),
        ));
        input.extend(raw(frame::RST_STREAM, 0, id, &8u32.to_be_bytes()));
    }
    connection.client_sends(&input);
    let (ended, _) = connection.pump(false);
    assert!(ended.is_none(), "the connection goes on");
    assert_eq!(goaway(&frames(&connection.written())), None);
    assert_eq!(connection.streams_seen().0, 0, "every stream ended");
}

/// A PING flood from a client that does not read: past the budget of control frames queued,
/// GOAWAY(ENHANCE_YOUR_CALM). A client that reads its ACKs is not limited.
#[tokio::test]
async fn a_ping_flood_that_is_not_read_is_told_to_calm_down() {
    let mut connection = connection();
    let mut input = settings(&[]);
    for _ in 0..=CONTROL_BUDGET {
        input.extend(raw(frame::PING, 0, 0, b"flooding"));
    }
    connection.io.write_blocked = true;
    connection.client_sends(&input);
    let (ended, _) = connection.pump(false);
    assert!(ended.is_none(), "the GOAWAY waits for the client to read");
    connection.io.write_blocked = false;
    let (ended, _) = connection.pump(false);
    assert!(ended.is_some());
    let frames = frames(&connection.written());
    assert_eq!(goaway(&frames), Some((0, Reason::EnhanceYourCalm as u32)));

    let mut reading = self::connection();
    reading.client_sends(&input);
    let (ended, _) = reading.pump(false);
    assert!(ended.is_none());
    assert_eq!(goaway(&self::frames(&reading.written())), None);
}

/// Answers held for window are bounded together: past MAX_HELD, new requests are parked,
/// not routed, and routed in order once the client reads: nothing refused.
#[tokio::test]
async fn answers_held_for_window_are_bounded_and_what_follows_waits() {
    let mut connection = connection();
    let mut input = settings(&[(SETTINGS_INITIAL_WINDOW, 0)]);
    let size = 4 * 1024 * 1024;
    for stream in 0..4u32 {
        let flags = frame::END_HEADERS | frame::END_STREAM;
        let path = format!("/api/live?pairs=EURUSD&size={size}");
        input.extend(raw(frame::HEADERS, flags, 2 * stream + 1, &get(&path)));
    }
    connection.client_sends(&input);
    connection.pump(false);
    let written = frames(&connection.written());
    // Streams 1, 3 and 5 are answered (the third takes the answers past the limit); 7 waits.
    let answered: Vec<u32> = written
        .iter()
        .filter(|frame| frame.0 == frame::HEADERS)
        .map(|frame| frame.2)
        .collect();
    assert_eq!(answered, [1, 3, 5]);
    assert_eq!(connection.streams.held(), 3 * size);
    assert_eq!(connection.streams.next_parked(), Some(7));
    assert!(resets(&written).is_empty());
    assert!(connection.retained() <= memory_bound(DEFAULT_MAX_STREAMS));

    // The client reads stream 1 whole: the answers held drop under the limit, 7 is routed.
    let mut update = vec![];
    frame::window_update(&mut update, 0, 0x7fff_0000);
    frame::window_update(&mut update, 1, 0x7fff_0000);
    update.extend(settings(&[(0x5, 1 << 20)]));
    connection.client_sends(&update);
    connection.pump(false);
    let written = frames(&connection.written());
    assert!(
        written.iter().any(|frame| frame.0 == frame::DATA
            && frame.2 == 1
            && frame.1 & frame::END_STREAM != 0)
    );
    assert!(
        written
            .iter()
            .any(|frame| frame.0 == frame::HEADERS && frame.2 == 7)
    );
    assert_eq!(connection.streams.next_parked(), None);
    assert_eq!(connection.streams.held(), 3 * size);
}
