//! mock-rates' HTTP/2 server as a whole: arbitrary frame sequences sent to one connection,
//! served in memory. It must never panic, never keep more than its stated bound, and write
//! only what RFC 9113 lets a server write: whole frames, its SETTINGS first, nothing after a
//! GOAWAY with an error code, answers and resets only on streams the client could open, and
//! nothing on a stream after the server ended or reset it.
//!
//! Input: the first byte sets how many bytes each read takes (1 to 4 081, so that frames
//! arrive cut anywhere); the rest is what the client sends after its preface.

#![no_main]

use std::collections::HashSet;

use libfuzzer_sys::fuzz_target;
use mock_rates::fuzzing::serve_h2_frames;

const DATA: u8 = 0x0;
const HEADERS: u8 = 0x1;
const RST_STREAM: u8 = 0x3;
const SETTINGS: u8 = 0x4;
const PING: u8 = 0x6;
const GOAWAY: u8 = 0x7;
const WINDOW_UPDATE: u8 = 0x8;
const END_STREAM: u8 = 0x1;

fuzz_target!(|data: &[u8]| {
    let Some((&chunk, frames)) = data.split_first() else {
        return;
    };
    let run = serve_h2_frames(frames, usize::from(chunk) * 16 + 1);
    assert!(
        run.ended,
        "the connection ended once the client's bytes ran out"
    );
    assert!(
        run.peak_retained <= run.memory_bound,
        "kept {} bytes, bound {}",
        run.peak_retained,
        run.memory_bound
    );

    let mut rest = run.output.as_slice();
    let mut first = true;
    let mut failed = false;
    let mut last_named = u32::MAX;
    let mut ended: HashSet<u32> = HashSet::new();
    while !rest.is_empty() {
        assert!(rest.len() >= 9, "a frame head cut short");
        let len = usize::from(rest[0]) << 16 | usize::from(rest[1]) << 8 | usize::from(rest[2]);
        let (kind, flags) = (rest[3], rest[4]);
        let stream = u32::from_be_bytes([rest[5], rest[6], rest[7], rest[8]]);
        assert!(rest.len() >= 9 + len, "a frame cut short");
        let payload = &rest[9..9 + len];
        rest = &rest[9 + len..];
        assert!(!failed, "a frame after a GOAWAY with an error code");
        if first {
            assert_eq!((kind, flags, stream), (SETTINGS, 0, 0), "SETTINGS first");
            first = false;
        }
        match kind {
            SETTINGS | PING | GOAWAY => assert_eq!(stream, 0),
            DATA | HEADERS | RST_STREAM => {
                assert!(stream % 2 == 1, "a frame on stream {stream}");
                assert!(!ended.contains(&stream), "a frame on ended stream {stream}");
                if kind == RST_STREAM || flags & END_STREAM != 0 {
                    ended.insert(stream);
                }
            }
            WINDOW_UPDATE => assert_eq!(len, 4),
            other => panic!("a frame of type {other}"),
        }
        if kind == PING {
            assert_eq!(len, 8);
        }
        if kind == GOAWAY {
            assert!(len >= 8);
            let named = u32::from_be_bytes(payload[..4].try_into().unwrap());
            let code = u32::from_be_bytes(payload[4..8].try_into().unwrap());
            assert!(
                named <= last_named,
                "GOAWAY named {named} after {last_named}"
            );
            last_named = named;
            failed = code != 0;
        }
    }
    assert!(!first, "the server's SETTINGS were written");
});
