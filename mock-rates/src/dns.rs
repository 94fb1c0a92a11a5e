//! A DNS server of the bench's own, for the resolution scenario: every `A` question for any
//! name is answered with one address, after a delay that is a setting, so that what a slow
//! resolver (Kubernetes' `ndots:5` search list, a busy DNS server) adds to a client's new
//! connections can be measured, and whether the client caches the answer read from how many
//! questions arrive. `AAAA` questions get an empty answer (no IPv6 address) with an `SOA`
//! record in its authority section, as a real server's "no data" carries its zone's, so that
//! a caching resolver may keep the empty answer too (RFC 2308: one without it must not, and
//! is asked again for every connection); anything else "not implemented". UDP only: its answers are far below 512 bytes, so a resolver never
//! retries over TCP.
//!
//! It answers only what a stub resolver (glibc's, hickory's) asks: one question, class IN, a
//! standard query. It is an instrument, not a DNS server to put anywhere else; still, every
//! datagram is read as untrusted: one that is not such a question (cut short, a response, a
//! count of questions other than 1, a name with a compression pointer or a label or length
//! past RFC 1035's limits) is dropped, never followed or trusted, and another opcode is
//! answered "not implemented".

use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use tokio::net::UdpSocket;
use tokio::sync::oneshot;

/// What the server answers, and when.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DnsSettings {
    /// The address every `A` question gets.
    pub answer: Ipv4Addr,
    /// How long each answer waits before it leaves.
    pub delay: Duration,
    /// The answer's time to live, in seconds: how long a caching resolver may keep it.
    pub ttl: u32,
}

impl Default for DnsSettings {
    fn default() -> Self {
        Self {
            answer: Ipv4Addr::LOCALHOST,
            delay: Duration::ZERO,
            ttl: 300,
        }
    }
}

/// The questions the server was asked, by type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DnsCounts {
    pub a: u64,
    pub aaaa: u64,
    /// Other types, and datagrams that were not a question it reads.
    pub other: u64,
}

#[derive(Debug, Default)]
struct Counters {
    a: AtomicU64,
    aaaa: AtomicU64,
    other: AtomicU64,
}

/// A running server; dropping it stops it.
#[derive(Debug)]
pub struct DnsServer {
    addr: SocketAddr,
    counters: Arc<Counters>,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl DnsServer {
    /// Serves on `addr` (a UDP address; port 0 picks one) on a thread of its own.
    pub fn start(addr: SocketAddr, settings: DnsSettings) -> io::Result<Self> {
        let socket = std::net::UdpSocket::bind(addr)?;
        socket.set_nonblocking(true)?;
        let addr = socket.local_addr()?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let socket = {
            let _entered = runtime.enter();
            Arc::new(UdpSocket::from_std(socket)?)
        };
        let counters = Arc::new(Counters::default());
        let (stop, stopped) = oneshot::channel::<()>();
        let served = Arc::clone(&counters);
        let thread = std::thread::Builder::new()
            .name(format!("mock-dns {addr}"))
            .spawn(move || {
                runtime.block_on(async move {
                    tokio::select! {
                        () = serve(socket, settings, served) => {}
                        _ = stopped => {}
                    }
                });
            })?;
        Ok(Self {
            addr,
            counters,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The questions asked so far.
    pub fn counts(&self) -> DnsCounts {
        DnsCounts {
            a: self.counters.a.load(Ordering::Relaxed),
            aaaa: self.counters.aaaa.load(Ordering::Relaxed),
            other: self.counters.other.load(Ordering::Relaxed),
        }
    }
}

impl Drop for DnsServer {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

async fn serve(socket: Arc<UdpSocket>, settings: DnsSettings, counters: Arc<Counters>) {
    let mut buffer = [0_u8; MAX_DATAGRAM];
    loop {
        let Ok((length, peer)) = socket.recv_from(&mut buffer).await else {
            continue;
        };
        let Some((question, reply)) = answer(&buffer[..length], &settings) else {
            counters.other.fetch_add(1, Ordering::Relaxed);
            continue;
        };
        match question {
            Question::A => &counters.a,
            Question::Aaaa => &counters.aaaa,
            Question::Other => &counters.other,
        }
        .fetch_add(1, Ordering::Relaxed);
        let socket = Arc::clone(&socket);
        let delay = settings.delay;
        tokio::spawn(async move {
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            let _ = socket.send_to(&reply, peer).await;
        });
    }
}

/// The type of a question.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Question {
    A,
    Aaaa,
    Other,
}

const TYPE_A: u16 = 1;
const TYPE_AAAA: u16 = 28;
const TYPE_SOA: u16 = 6;
const CLASS_IN: u16 = 1;
/// RCODE 4: not implemented.
const NOT_IMPLEMENTED: u8 = 4;
/// The longest label and name (RFC 1035 §2.3.4), the name counted as it is sent.
const MAX_LABEL: usize = 63;
const MAX_NAME: usize = 255;
/// The largest datagram read, and answered (RFC 1035 §4.2.1, without EDNS).
pub(crate) const MAX_DATAGRAM: usize = 512;

/// The reply to `query`, one question of class IN; `None` for a datagram that is not one.
/// The answer and authority counts and the additional section (an EDNS OPT record) of a query
/// are not read: only the question is.
pub(crate) fn answer(query: &[u8], settings: &DnsSettings) -> Option<(Question, Vec<u8>)> {
    // Header: ID, flags, QDCOUNT, ANCOUNT, NSCOUNT, ARCOUNT, 2 bytes each.
    let header = query.get(..12)?;
    let is_query = header[2] & 0x80 == 0;
    let standard = header[2] & 0x78 == 0;
    let questions = u16::from_be_bytes([header[4], header[5]]);
    if !is_query || questions != 1 || query.len() > MAX_DATAGRAM {
        return None;
    }
    // The question: a name of labels up to a zero byte, then type and class. A compression
    // pointer (0b11 in a length's top bits) has no place in the one name of a query: it is
    // not followed, so it cannot loop or reach out of the datagram.
    let mut at = 12;
    loop {
        let label = usize::from(*query.get(at)?);
        if label == 0 {
            at += 1;
            break;
        }
        if label > MAX_LABEL || at - 12 + label + 2 > MAX_NAME {
            return None;
        }
        at += 1 + label;
    }
    let kind = u16::from_be_bytes([*query.get(at)?, *query.get(at + 1)?]);
    let class = u16::from_be_bytes([*query.get(at + 2)?, *query.get(at + 3)?]);
    let question_end = at + 4;
    let question = match (kind, class) {
        _ if !standard => Question::Other,
        (TYPE_A, CLASS_IN) => Question::A,
        (TYPE_AAAA, CLASS_IN) => Question::Aaaa,
        _ => Question::Other,
    };
    let mut reply = Vec::with_capacity(question_end + 16);
    reply.extend_from_slice(&header[..2]);
    // QR=1, the query's opcode and RD; RA=1; RCODE.
    let rcode = if question == Question::Other {
        NOT_IMPLEMENTED
    } else {
        0
    };
    reply.push(0x80 | (header[2] & 0x79));
    reply.push(0x80 | rcode);
    let answers: u16 = u16::from(question == Question::A);
    let authority: u16 = u16::from(question == Question::Aaaa);
    reply.extend_from_slice(&1_u16.to_be_bytes());
    reply.extend_from_slice(&answers.to_be_bytes());
    reply.extend_from_slice(&authority.to_be_bytes());
    reply.extend_from_slice(&[0, 0]);
    reply.extend_from_slice(&query[12..question_end]);
    if question == Question::A {
        // The name as a pointer to the question's, at offset 12.
        reply.extend_from_slice(&[0xC0, 12]);
        reply.extend_from_slice(&TYPE_A.to_be_bytes());
        reply.extend_from_slice(&CLASS_IN.to_be_bytes());
        reply.extend_from_slice(&settings.ttl.to_be_bytes());
        reply.extend_from_slice(&4_u16.to_be_bytes());
        reply.extend_from_slice(&settings.answer.octets());
    }
    if question == Question::Aaaa {
        // The name's SOA, as if it were its own zone: primary server and mailbox the name
        // itself (pointers to the question's), serial, refresh, retry, expire, and the
        // minimum that bounds how long "no data" may be kept: the answers' time to live.
        reply.extend_from_slice(&[0xC0, 12]);
        reply.extend_from_slice(&TYPE_SOA.to_be_bytes());
        reply.extend_from_slice(&CLASS_IN.to_be_bytes());
        reply.extend_from_slice(&settings.ttl.to_be_bytes());
        reply.extend_from_slice(&24_u16.to_be_bytes());
        reply.extend_from_slice(&[0xC0, 12, 0xC0, 12]);
        for field in [1, 3_600, 600, 86_400, settings.ttl] {
            reply.extend_from_slice(&u32::to_be_bytes(field));
        }
    }
    Some((question, reply))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A query for `name` of type `kind`, ID 0x1234, recursion desired.
    fn query(name: &str, kind: u16) -> Vec<u8> {
        let mut bytes = vec![0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0];
        for label in name.split('.') {
            bytes.push(u8::try_from(label.len()).unwrap());
            bytes.extend_from_slice(label.as_bytes());
        }
        bytes.push(0);
        bytes.extend_from_slice(&kind.to_be_bytes());
        bytes.extend_from_slice(&CLASS_IN.to_be_bytes());
        bytes
    }

    #[test]
    fn an_a_question_gets_the_address_and_an_aaaa_question_none() {
        let settings = DnsSettings {
            answer: Ipv4Addr::new(10, 200, 0, 1),
            ttl: 60,
            ..DnsSettings::default()
        };
        let asked = query("rates.bench.test", TYPE_A);
        let (question, reply) = answer(&asked, &settings).unwrap();
        assert_eq!(question, Question::A);
        assert_eq!(&reply[..2], &[0x12, 0x34], "the query's ID");
        assert_eq!(reply[2] & 0x80, 0x80, "a response");
        assert_eq!(reply[2] & 0x01, 0x01, "recursion desired, echoed");
        assert_eq!(reply[3] & 0x0f, 0, "no error");
        assert_eq!(u16::from_be_bytes([reply[6], reply[7]]), 1, "one answer");
        assert_eq!(&reply[reply.len() - 4..], &[10, 200, 0, 1]);
        assert_eq!(
            &reply[reply.len() - 10..reply.len() - 6],
            &60_u32.to_be_bytes()
        );

        let (question, reply) = answer(&query("rates.bench.test", TYPE_AAAA), &settings).unwrap();
        assert_eq!(question, Question::Aaaa);
        assert_eq!(reply[3] & 0x0f, 0);
        assert_eq!(u16::from_be_bytes([reply[6], reply[7]]), 0, "no address");
        assert_eq!(u16::from_be_bytes([reply[8], reply[9]]), 1, "an SOA");
        let soa = &reply[reply.len() - 36..];
        assert_eq!(&soa[2..4], &TYPE_SOA.to_be_bytes());
        assert_eq!(&soa[6..10], &60_u32.to_be_bytes(), "its time to live");
        assert_eq!(&soa[10..12], &24_u16.to_be_bytes(), "its data's length");
        assert_eq!(
            &soa[32..],
            &60_u32.to_be_bytes(),
            "the minimum: no data kept 60 s"
        );

        let (question, reply) = answer(&query("rates.bench.test", 16), &settings).unwrap();
        assert_eq!(question, Question::Other);
        assert_eq!(reply[3] & 0x0f, NOT_IMPLEMENTED);
    }

    #[test]
    fn what_is_not_one_question_gets_no_reply() {
        let settings = DnsSettings::default();
        assert!(answer(&[0; 5], &settings).is_none());
        let mut response = query("x.test", TYPE_A);
        response[2] |= 0x80;
        assert!(answer(&response, &settings).is_none(), "a response");
        let mut two = query("x.test", TYPE_A);
        two[5] = 2;
        assert!(answer(&two, &settings).is_none(), "two questions");
        let truncated = &query("x.test", TYPE_A)[..15];
        assert!(answer(truncated, &settings).is_none());
    }

    /// Every datagram cut short of a whole question, at every length: dropped, no panic.
    #[test]
    fn truncated_queries_are_dropped() {
        let settings = DnsSettings::default();
        let whole = query("rates.bench.test", TYPE_A);
        for len in 0..whole.len() {
            assert!(answer(&whole[..len], &settings).is_none(), "{len} bytes");
        }
        assert!(answer(&whole, &settings).is_some());
    }

    /// A compression pointer in the question, one pointing at itself, one pointing past the
    /// datagram: never followed, so never a loop; the query is dropped.
    #[test]
    fn compression_pointers_are_not_followed() {
        let settings = DnsSettings::default();
        let header = [0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0];
        for name in [
            &[0xc0, 12][..],
            &[0xc0, 0xff],
            &[1, b'a', 0xc0, 12],
            &[0x40, 0],
        ] {
            let mut bytes = header.to_vec();
            bytes.extend_from_slice(name);
            bytes.extend_from_slice(&[0, 1, 0, 1]);
            assert!(answer(&bytes, &settings).is_none(), "{name:02x?}");
        }
    }

    /// Counts that lie: no question, many, or records the query does not carry. Only the
    /// question count is believed, and only 1.
    #[test]
    fn counts_that_lie_are_not_believed() {
        let settings = DnsSettings::default();
        for questions in [0_u16, 2, u16::MAX] {
            let mut bytes = query("x.test", TYPE_A);
            bytes[4..6].copy_from_slice(&questions.to_be_bytes());
            assert!(answer(&bytes, &settings).is_none(), "{questions} questions");
        }
        let mut bytes = query("x.test", TYPE_A);
        for count in [6, 8, 10] {
            bytes[count..count + 2].copy_from_slice(&u16::MAX.to_be_bytes());
        }
        let (question, reply) = answer(&bytes, &settings).unwrap();
        assert_eq!(question, Question::A);
        assert_eq!(
            &reply[8..12],
            &[0, 0, 0, 0],
            "its own counts, not the query's"
        );
    }

    /// Names past RFC 1035's limits: a label over 63 bytes, a name over 255.
    #[test]
    fn oversized_names_are_dropped() {
        let settings = DnsSettings::default();
        let long_label = "a".repeat(64);
        assert!(answer(&query(&long_label, TYPE_A), &settings).is_none());
        let label = "a".repeat(63);
        let at_limit = [label.as_str(); 4].join(".");
        assert!(answer(&query(&at_limit[..253], TYPE_A), &settings).is_some());
        let over = [label.as_str(); 5].join(".");
        assert!(answer(&query(&over, TYPE_A), &settings).is_none());
        let mut large = query("x.test", TYPE_A);
        large.resize(MAX_DATAGRAM + 1, 0);
        assert!(answer(&large, &settings).is_none());
    }

    #[test]
    fn another_opcode_is_not_implemented() {
        let mut bytes = query("x.test", TYPE_A);
        bytes[2] |= 0x10; // opcode 2: status
        let (question, reply) = answer(&bytes, &DnsSettings::default()).unwrap();
        assert_eq!(question, Question::Other);
        assert_eq!(reply[3] & 0x0f, NOT_IMPLEMENTED);
        assert_eq!(u16::from_be_bytes([reply[6], reply[7]]), 0);
    }

    #[test]
    fn a_running_server_answers_after_its_delay_and_counts_the_questions() {
        let settings = DnsSettings {
            answer: Ipv4Addr::new(127, 0, 0, 7),
            delay: Duration::from_millis(30),
            ttl: 1,
        };
        let server = DnsServer::start("127.0.0.1:0".parse().unwrap(), settings).unwrap();
        let socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        socket
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        let started = std::time::Instant::now();
        socket
            .send_to(&query("rates.bench.test", TYPE_A), server.addr())
            .unwrap();
        let mut buffer = [0_u8; MAX_DATAGRAM];
        let (length, _) = socket.recv_from(&mut buffer).unwrap();
        assert!(
            started.elapsed() >= settings.delay,
            "answered after its delay"
        );
        assert_eq!(&buffer[length - 4..length], &[127, 0, 0, 7]);
        socket
            .send_to(&query("rates.bench.test", TYPE_AAAA), server.addr())
            .unwrap();
        socket.recv_from(&mut buffer).unwrap();
        assert_eq!(
            server.counts(),
            DnsCounts {
                a: 1,
                aaaa: 1,
                other: 0
            }
        );
    }
}
