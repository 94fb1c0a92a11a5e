//! The link as a whole: both directions, the partition and the middlebox they share, and what
//! each direction did with its packets.

use std::time::Duration;

use crate::middlebox::{Middlebox, Passage};
use crate::packet::Packet;
use crate::profile::Profile;
use crate::shaper::{Counts, Dropped, Fate, Shaper};

/// Which side a packet came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The service's side: the packet goes up, to the upstream.
    Service,
    /// The upstream's side: the packet goes down, to the service.
    Upstream,
}

/// A profile as it runs.
#[derive(Debug)]
pub struct Link {
    profile: Profile,
    up: Shaper,
    down: Shaper,
    middlebox: Option<Middlebox>,
    /// The partition in force: from, until (time since the link started).
    partition: Option<(Duration, Duration)>,
    counts: [Counts; 2],
}

impl Link {
    /// The link of `profile`, its random numbers from `seed`.
    pub fn new(profile: Profile, seed: u64) -> Self {
        Self {
            up: Shaper::new(profile.up, seed),
            down: Shaper::new(profile.down, seed.wrapping_add(1)),
            middlebox: profile.forget_idle.map(Middlebox::forgetting_after),
            partition: None,
            counts: [Counts::default(); 2],
            profile,
        }
    }

    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// Every packet either way dropped from `from` for `lasting`: no RST, no FIN.
    pub fn partition(&mut self, from: Duration, lasting: Duration) {
        self.partition = Some((from, from + lasting));
    }

    /// The IP packet `bytes` from `side`, met at `at` (time since the link started; offers
    /// come in time order).
    pub fn offer(&mut self, side: Side, at: Duration, bytes: &[u8]) -> Fate {
        let packet = Packet::read(bytes);
        let fate = self.fate(side, at, &packet);
        self.counts[side as usize].count(packet.bytes, fate);
        fate
    }

    fn fate(&mut self, side: Side, at: Duration, packet: &Packet) -> Fate {
        if self
            .partition
            .is_some_and(|(from, until)| (from..until).contains(&at))
        {
            return Fate::Dropped(Dropped::Partitioned);
        }
        if let Some(middlebox) = &mut self.middlebox {
            match middlebox.offer(at, packet) {
                Passage::Pass => {}
                Passage::Forgotten => return Fate::Dropped(Dropped::Forgotten),
                Passage::TableFull => return Fate::Dropped(Dropped::TableFull),
            }
        }
        match side {
            Side::Service => self.up.offer(at, packet.bytes),
            Side::Upstream => self.down.offer(at, packet.bytes),
        }
    }

    /// A packet from `side` the link let through that the relay dropped after all (its
    /// memory bound), for `why`.
    pub fn recount(&mut self, side: Side, why: Dropped) {
        self.counts[side as usize].undeliver(why);
    }

    /// What the direction from `side` did with its packets so far.
    pub fn counts(&self, side: Side) -> Counts {
        self.counts[side as usize]
    }

    /// Flows the middlebox forgot so far (0 without one).
    pub fn flows_forgotten(&self) -> u64 {
        self.middlebox.as_ref().map_or(0, Middlebox::forgotten)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::tcp_v4;

    const SYN: u8 = 0x02;
    const ACK: u8 = 0x10;

    fn ms(ms: u64) -> Duration {
        Duration::from_millis(ms)
    }

    #[test]
    fn a_region_holds_each_way_half_its_round_trip() {
        let mut link = Link::new(Profile::named("region").unwrap(), 1);
        let syn = tcp_v4(([10, 0, 0, 1], 4000), ([10, 0, 1, 1], 80), SYN, 0);
        let answer = tcp_v4(([10, 0, 1, 1], 80), ([10, 0, 0, 1], 4000), SYN | ACK, 0);
        assert_eq!(link.offer(Side::Service, ms(0), &syn), Fate::Due(ms(15)));
        assert_eq!(
            link.offer(Side::Upstream, ms(15), &answer),
            Fate::Due(ms(30))
        );
        assert_eq!(link.counts(Side::Service).delivered, 1);
        assert_eq!(link.counts(Side::Upstream).offered_bytes, 40);
    }

    #[test]
    fn a_partition_drops_everything_either_way_while_it_lasts() {
        let mut link = Link::new(Profile::named("partition").unwrap(), 1);
        let lasting = link.profile().partition.unwrap();
        link.partition(ms(1_000), lasting);
        let data = tcp_v4(([10, 0, 0, 1], 4000), ([10, 0, 1, 1], 80), ACK, 100);
        assert!(matches!(
            link.offer(Side::Service, ms(999), &data),
            Fate::Due(_)
        ));
        for at in [1_000, 2_500, 3_999] {
            for side in [Side::Service, Side::Upstream] {
                assert_eq!(
                    link.offer(side, ms(at), &data),
                    Fate::Dropped(Dropped::Partitioned)
                );
            }
        }
        assert!(matches!(
            link.offer(Side::Service, ms(4_000), &data),
            Fate::Due(_)
        ));
        assert_eq!(link.counts(Side::Service).partitioned, 3);
        assert_eq!(link.counts(Side::Upstream).partitioned, 3);
    }

    #[test]
    fn a_forgetful_link_drops_a_flow_left_idle_and_passes_a_new_one() {
        let mut link = Link::new(Profile::named("forgetful").unwrap(), 1);
        let client = ([10, 0, 0, 1], 4000);
        let server = ([10, 0, 1, 1], 80);
        let open = tcp_v4(client, server, SYN, 0);
        let data = tcp_v4(client, server, ACK, 200);
        assert!(matches!(
            link.offer(Side::Service, ms(0), &open),
            Fate::Due(_)
        ));
        assert!(matches!(
            link.offer(Side::Service, ms(4_000), &data),
            Fate::Due(_)
        ));
        assert_eq!(
            link.offer(Side::Service, ms(9_001), &data),
            Fate::Dropped(Dropped::Forgotten)
        );
        let fresh = tcp_v4(([10, 0, 0, 1], 4001), server, SYN, 0);
        assert!(matches!(
            link.offer(Side::Service, ms(9_002), &fresh),
            Fate::Due(_)
        ));
        assert_eq!(link.flows_forgotten(), 1);
        assert_eq!(link.counts(Side::Service).forgotten, 1);
    }
}
