//! mock-rates' DNS server (the resolution scenario's): any datagram is answered or dropped,
//! never a panic; an answer is a response to the query's ID and its one question, within a
//! datagram's 512 bytes.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mock_rates::fuzzing::{DNS_MAX_DATAGRAM, dns_reply};

fuzz_target!(|data: &[u8]| {
    let Some(reply) = dns_reply(data) else {
        return;
    };
    assert!(data.len() <= DNS_MAX_DATAGRAM);
    assert!(reply.len() >= 12 && reply.len() <= DNS_MAX_DATAGRAM);
    assert_eq!(reply[..2], data[..2], "the query's ID");
    assert_eq!(reply[2] & 0x80, 0x80, "a response");
    assert_eq!(reply[4..6], [0, 1], "one question");
    // The question is echoed as asked: a name of labels, then type and class.
    let mut at = 12;
    while data[at] != 0 {
        at += 1 + usize::from(data[at]);
    }
    let question = &data[12..at + 5];
    assert_eq!(&reply[12..12 + question.len()], question);
});
