//! The order of the clients in each round of a suite that measures them in turn: a new random
//! order every round (randomized interleaved rounds, as Abedi and Brecht recommend and Google
//! Benchmark's `--benchmark_enable_random_interleaving` does), so that a change of the
//! machine's state during the suite (steal, a neighbour, the CPU's clock) does not fall on the
//! same client each round.

/// A small random permutation source (xorshift64*), seeded from the clock: the order of the
/// clients in each round need only differ between rounds and runs, not be cryptographic.
#[derive(Debug)]
pub struct Shuffle(u64);

impl Shuffle {
    pub fn seeded() -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0x9E37_79B9_7F4A_7C15, |since| since.as_nanos() as u64);
        Self::from_seed(nanos)
    }

    fn from_seed(seed: u64) -> Self {
        Self(seed | 1)
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Fisher-Yates.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for last in (1..items.len()).rev() {
            let pick = (self.next() % (last as u64 + 1)) as usize;
            items.swap(last, pick);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shuffle_is_a_permutation_and_differs_between_rounds() {
        let mut shuffle = Shuffle::from_seed(42);
        let mut seen = std::collections::HashSet::new();
        for _ in 0..20 {
            let mut order: Vec<usize> = (0..6).collect();
            shuffle.shuffle(&mut order);
            let mut sorted = order.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..6).collect::<Vec<_>>());
            seen.insert(order);
        }
        // 20 draws of 720 orders: all alike would mean no shuffle at all.
        assert!(seen.len() > 10, "{seen:?}");
    }
}
