//! A middlebox that forgets: a NAT or a load balancer keeps a TCP flow's state while packets
//! pass, and drops it once the flow has been idle longer than its timeout (AWS's NLB after
//! 350 s, many NATs after minutes). After that the flow's packets, either way, are dropped
//! without a word: no RST, no FIN. A new flow (a SYN without ACK) passes and is kept. Other
//! protocols pass untouched.

use std::collections::HashMap;
use std::time::Duration;

use crate::packet::{Flow, Packet};

/// The most flows a middlebox keeps, as a NAT's table is bounded: past it the idle ones are
/// swept, and a new flow that still finds no room is dropped.
pub const MAX_FLOWS: usize = 65_536;

/// What the middlebox does with a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Passage {
    Pass,
    /// A flow it does not know (never opened through it, or forgotten): dropped.
    Forgotten,
    /// A new flow with the table full of live ones: dropped.
    TableFull,
}

/// The flows a middlebox knows, each with when it last saw a packet.
#[derive(Debug)]
pub struct Middlebox {
    idle: Duration,
    limit: usize,
    flows: HashMap<Flow, Duration>,
    forgotten: u64,
}

impl Middlebox {
    /// A middlebox that forgets a flow idle longer than `idle`.
    pub fn forgetting_after(idle: Duration) -> Self {
        Self::bounded(idle, MAX_FLOWS)
    }

    fn bounded(idle: Duration, limit: usize) -> Self {
        Self {
            idle,
            limit,
            flows: HashMap::new(),
            forgotten: 0,
        }
    }

    /// The packet met at `at` (time since the link started), either way.
    pub fn offer(&mut self, at: Duration, packet: &Packet) -> Passage {
        let Some((flow, flags)) = packet.tcp else {
            return Passage::Pass;
        };
        if flags.opens() {
            if !self.flows.contains_key(&flow) && self.flows.len() >= self.limit {
                self.sweep(at);
                if self.flows.len() >= self.limit {
                    return Passage::TableFull;
                }
            }
            self.flows.insert(flow, at);
            return Passage::Pass;
        }
        match self.flows.get_mut(&flow) {
            Some(seen) if at.saturating_sub(*seen) <= self.idle => {
                *seen = at;
                Passage::Pass
            }
            Some(_) => {
                self.flows.remove(&flow);
                self.forgotten += 1;
                Passage::Forgotten
            }
            None => Passage::Forgotten,
        }
    }

    /// Flows forgotten so far (each counted once, when its first packet after the timeout met
    /// the middlebox).
    pub fn forgotten(&self) -> u64 {
        self.forgotten
    }

    /// Flows it keeps now.
    pub fn flows(&self) -> usize {
        self.flows.len()
    }

    fn sweep(&mut self, at: Duration) {
        let idle = self.idle;
        let before = self.flows.len();
        self.flows
            .retain(|_, seen| at.saturating_sub(*seen) <= idle);
        self.forgotten += (before - self.flows.len()) as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::tcp_v4;

    const SYN: u8 = 0x02;
    const ACK: u8 = 0x10;
    const FIN: u8 = 0x01;

    fn at(ms: u64) -> Duration {
        Duration::from_millis(ms)
    }

    #[test]
    fn a_flow_idle_past_the_timeout_is_dropped_both_ways_and_a_new_one_passes() {
        let client = ([10, 77, 0, 1], 40_000);
        let server = ([10, 77, 1, 1], 8080);
        let packet = |from, to, flags| Packet::read(&tcp_v4(from, to, flags, 0));
        let mut middlebox = Middlebox::forgetting_after(at(5_000));
        assert_eq!(
            middlebox.offer(at(0), &packet(client, server, SYN)),
            Passage::Pass
        );
        assert_eq!(
            middlebox.offer(at(1), &packet(server, client, SYN | ACK)),
            Passage::Pass
        );
        // Packets within the timeout keep it alive, however long the flow lives.
        for second in 1..=12 {
            assert_eq!(
                middlebox.offer(at(second * 4_000), &packet(client, server, ACK)),
                Passage::Pass
            );
        }
        // Idle 5.001 s: forgotten, and so is every packet after, either way.
        let later = 48_000 + 5_001;
        assert_eq!(
            middlebox.offer(at(later), &packet(client, server, ACK)),
            Passage::Forgotten
        );
        assert_eq!(
            middlebox.offer(at(later + 10), &packet(server, client, ACK | FIN)),
            Passage::Forgotten
        );
        assert_eq!(middlebox.forgotten(), 1);
        // A new connection, from another port, passes.
        let again = ([10, 77, 0, 1], 40_002);
        assert_eq!(
            middlebox.offer(at(later + 20), &packet(again, server, SYN)),
            Passage::Pass
        );
        assert_eq!(
            middlebox.offer(at(later + 21), &packet(server, again, SYN | ACK)),
            Passage::Pass
        );
        // ICMP passes untouched.
        let mut ping = tcp_v4(client, server, 0, 0);
        ping[9] = 1;
        assert_eq!(
            middlebox.offer(at(99_999), &Packet::read(&ping)),
            Passage::Pass
        );
    }

    #[test]
    fn a_flow_it_never_saw_open_is_dropped() {
        let mut middlebox = Middlebox::forgetting_after(at(5_000));
        let stray = Packet::read(&tcp_v4(([10, 0, 0, 1], 1), ([10, 0, 0, 2], 2), ACK, 10));
        assert_eq!(middlebox.offer(at(0), &stray), Passage::Forgotten);
    }

    #[test]
    fn its_table_is_bounded() {
        let mut middlebox = Middlebox::bounded(at(1_000), 2);
        let open = |port| Packet::read(&tcp_v4(([10, 0, 0, 1], port), ([10, 0, 0, 2], 80), SYN, 0));
        assert_eq!(middlebox.offer(at(0), &open(1)), Passage::Pass);
        assert_eq!(middlebox.offer(at(10), &open(2)), Passage::Pass);
        assert_eq!(middlebox.offer(at(20), &open(3)), Passage::TableFull);
        // Once the first two are idle past the timeout, they are swept to make room.
        assert_eq!(middlebox.offer(at(1_500), &open(3)), Passage::Pass);
        assert_eq!(middlebox.flows(), 1);
        assert_eq!(middlebox.forgotten(), 2);
    }
}
