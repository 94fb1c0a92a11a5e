//! What the link reads of a packet off a TUN device (IPv4 or IPv6, no link-layer header): its
//! length, and for TCP its flow and flags, which the middlebox keys on.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// IP protocol number of TCP.
const TCP: u8 = 6;

/// A TCP flow, the same both ways: its two ends in a fixed order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Flow {
    low: (IpAddr, u16),
    high: (IpAddr, u16),
}

impl Flow {
    /// The flow between the two ends, whichever sent.
    pub fn between(one: (IpAddr, u16), other: (IpAddr, u16)) -> Self {
        if one <= other {
            Self {
                low: one,
                high: other,
            }
        } else {
            Self {
                low: other,
                high: one,
            }
        }
    }
}

/// A TCP segment's flags byte.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpFlags(pub u8);

impl TcpFlags {
    const FIN: u8 = 0x01;
    const SYN: u8 = 0x02;
    const RST: u8 = 0x04;
    const ACK: u8 = 0x10;

    pub fn syn(self) -> bool {
        self.0 & Self::SYN != 0
    }

    pub fn ack(self) -> bool {
        self.0 & Self::ACK != 0
    }

    pub fn fin(self) -> bool {
        self.0 & Self::FIN != 0
    }

    pub fn rst(self) -> bool {
        self.0 & Self::RST != 0
    }

    /// A connection's first packet: SYN without ACK.
    pub fn opens(self) -> bool {
        self.syn() && !self.ack()
    }
}

/// What the link knows of one packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet {
    /// Bytes on the wire (the IP packet).
    pub bytes: usize,
    /// Its TCP flow and flags; `None` for anything else (ICMP, UDP, a packet too short).
    pub tcp: Option<(Flow, TcpFlags)>,
}

impl Packet {
    /// Reads an IP packet; what it cannot read as TCP is a packet of its length only.
    pub fn read(bytes: &[u8]) -> Self {
        Self {
            bytes: bytes.len(),
            tcp: tcp(bytes),
        }
    }
}

fn tcp(bytes: &[u8]) -> Option<(Flow, TcpFlags)> {
    let version = bytes.first()? >> 4;
    let (source, destination, protocol, payload) = match version {
        4 => {
            let header = usize::from(bytes.first()? & 0x0f) * 4;
            if header < 20 {
                return None;
            }
            let address = |at: usize| -> Option<IpAddr> {
                let octets: [u8; 4] = bytes.get(at..at + 4)?.try_into().ok()?;
                Some(IpAddr::V4(Ipv4Addr::from(octets)))
            };
            (
                address(12)?,
                address(16)?,
                *bytes.get(9)?,
                bytes.get(header..)?,
            )
        }
        6 => {
            let address = |at: usize| -> Option<IpAddr> {
                let octets: [u8; 16] = bytes.get(at..at + 16)?.try_into().ok()?;
                Some(IpAddr::V6(Ipv6Addr::from(octets)))
            };
            // The next header right after the fixed one: extension headers are not read
            // (a flow behind one is no TCP to the middlebox, and passes).
            (address(8)?, address(24)?, *bytes.get(6)?, bytes.get(40..)?)
        }
        _ => return None,
    };
    if protocol != TCP || payload.len() < 20 {
        return None;
    }
    let port = |at: usize| u16::from_be_bytes([payload[at], payload[at + 1]]);
    Some((
        Flow::between((source, port(0)), (destination, port(2))),
        TcpFlags(payload[13]),
    ))
}

/// Test packets: a TCP segment over IPv4 between two ends with the given flags.
#[cfg(test)]
pub(crate) fn tcp_v4(
    from: ([u8; 4], u16),
    to: ([u8; 4], u16),
    flags: u8,
    payload: usize,
) -> Vec<u8> {
    let mut packet = vec![0u8; 40 + payload];
    packet[0] = 0x45;
    let total = u16::try_from(packet.len()).unwrap_or(u16::MAX);
    packet[2..4].copy_from_slice(&total.to_be_bytes());
    packet[9] = TCP;
    packet[12..16].copy_from_slice(&from.0);
    packet[16..20].copy_from_slice(&to.0);
    packet[20..22].copy_from_slice(&from.1.to_be_bytes());
    packet[22..24].copy_from_slice(&to.1.to_be_bytes());
    packet[32] = 0x50;
    packet[33] = flags;
    packet
}

#[cfg(test)]
mod tests {
    use super::*;

    const SYN: u8 = 0x02;
    const ACK: u8 = 0x10;

    #[test]
    fn reads_a_tcp_segment_over_ipv4_the_same_flow_both_ways() {
        let client = ([10, 77, 0, 1], 40_000);
        let server = ([10, 77, 1, 1], 8080);
        let syn = Packet::read(&tcp_v4(client, server, SYN, 0));
        let (flow, flags) = syn.tcp.unwrap();
        assert!(flags.opens());
        assert_eq!(syn.bytes, 40);
        let answer = Packet::read(&tcp_v4(server, client, SYN | ACK, 0));
        let (back, flags) = answer.tcp.unwrap();
        assert_eq!(back, flow, "one flow both ways");
        assert!(flags.syn() && flags.ack() && !flags.opens() && !flags.rst());
        let other = Packet::read(&tcp_v4(([10, 77, 0, 1], 40_001), server, ACK, 100));
        assert_ne!(other.tcp.unwrap().0, flow);
        assert_eq!(other.bytes, 140);
    }

    #[test]
    fn reads_a_tcp_segment_over_ipv6() {
        let mut packet = vec![0u8; 60];
        packet[0] = 0x60;
        packet[6] = TCP;
        packet[23] = 1;
        packet[39] = 2;
        packet[40..42].copy_from_slice(&443u16.to_be_bytes());
        packet[42..44].copy_from_slice(&50_000u16.to_be_bytes());
        packet[53] = 0x11;
        let (flow, flags) = Packet::read(&packet).tcp.unwrap();
        assert!(flags.fin() && flags.ack() && !flags.syn());
        let one = IpAddr::V6(Ipv6Addr::from(1u128));
        let two = IpAddr::V6(Ipv6Addr::from(2u128));
        assert_eq!(flow, Flow::between((two, 50_000), (one, 443)));
    }

    #[test]
    fn what_is_not_tcp_is_a_length_only() {
        let mut icmp = tcp_v4(([10, 0, 0, 1], 0), ([10, 0, 0, 2], 0), 0, 24);
        icmp[9] = 1;
        assert_eq!(Packet::read(&icmp).tcp, None);
        assert_eq!(Packet::read(&icmp).bytes, 64);
        assert_eq!(Packet::read(&[]).tcp, None);
        assert_eq!(Packet::read(&[0x45, 0, 0]).tcp, None, "too short");
        let truncated = &tcp_v4(([10, 0, 0, 1], 1), ([10, 0, 0, 2], 2), SYN, 0)[..30];
        assert_eq!(Packet::read(truncated).tcp, None);
    }
}
