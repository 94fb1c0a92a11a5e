//! Which packets a direction loses: none, each independently, or in bursts (a Gilbert-Elliott
//! chain of a good and a bad state, each with a loss probability of its own).

/// A loss model, per packet.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Loss {
    None,
    /// Each packet lost with this probability, whatever came before.
    Independent {
        probability: f64,
    },
    /// Gilbert-Elliott: before each packet the chain moves from good to bad with
    /// `good_to_bad`, from bad to good with `bad_to_good`; the packet is lost with the
    /// probability of the state it is in.
    GilbertElliott {
        good_to_bad: f64,
        bad_to_good: f64,
        loss_in_good: f64,
        loss_in_bad: f64,
    },
}

impl Loss {
    /// Bursts that lose every packet of the bad state and none of the good, `mean` of all
    /// packets in the long run, a burst `burst` packets long on average.
    ///
    /// # Panics
    /// `mean` is not in `[0, 1)` or `burst` is below one packet.
    pub fn bursty(mean: f64, burst: f64) -> Self {
        assert!((0.0..1.0).contains(&mean), "a mean loss in [0, 1)");
        assert!(burst >= 1.0, "a burst is at least one packet");
        let bad_to_good = 1.0 / burst;
        // The bad state's share of packets is p / (p + r); set it to `mean`.
        let good_to_bad = mean * bad_to_good / (1.0 - mean);
        Self::GilbertElliott {
            good_to_bad,
            bad_to_good,
            loss_in_good: 0.0,
            loss_in_bad: 1.0,
        }
    }

    /// The share of packets lost in the long run.
    pub fn mean(&self) -> f64 {
        match *self {
            Self::None => 0.0,
            Self::Independent { probability } => probability,
            Self::GilbertElliott {
                good_to_bad,
                bad_to_good,
                loss_in_good,
                loss_in_bad,
            } => {
                let moving = good_to_bad + bad_to_good;
                if moving <= 0.0 {
                    return loss_in_good;
                }
                let bad = good_to_bad / moving;
                (1.0 - bad) * loss_in_good + bad * loss_in_bad
            }
        }
    }

    /// The mean length of a run of lost packets, in packets (1 for independent loss).
    pub fn mean_burst(&self) -> f64 {
        match *self {
            Self::None => 0.0,
            Self::GilbertElliott {
                bad_to_good,
                loss_in_bad,
                ..
            } if loss_in_bad >= 1.0 && bad_to_good > 0.0 => 1.0 / bad_to_good,
            Self::Independent { .. } | Self::GilbertElliott { .. } => 1.0,
        }
    }
}

/// A loss model as it runs: its chain's state and its random numbers.
#[derive(Debug)]
pub struct Losing {
    model: Loss,
    bad: bool,
    rng: fastrand::Rng,
}

impl Losing {
    /// The model from its good state, its random numbers from `seed` (the same seed loses the
    /// same packets).
    pub fn new(model: Loss, seed: u64) -> Self {
        Self {
            model,
            bad: false,
            rng: fastrand::Rng::with_seed(seed),
        }
    }

    /// Whether the next packet is lost.
    pub fn lose(&mut self) -> bool {
        match self.model {
            Loss::None => false,
            Loss::Independent { probability } => self.rng.f64() < probability,
            Loss::GilbertElliott {
                good_to_bad,
                bad_to_good,
                loss_in_good,
                loss_in_bad,
            } => {
                let moves = if self.bad { bad_to_good } else { good_to_bad };
                if self.rng.f64() < moves {
                    self.bad = !self.bad;
                }
                let probability = if self.bad { loss_in_bad } else { loss_in_good };
                self.rng.f64() < probability
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The share lost of `packets` packets, and the mean length of a run of losses.
    fn measured(model: Loss, packets: u32) -> (f64, f64) {
        let mut losing = Losing::new(model, 7);
        let (mut lost, mut runs, mut previous) = (0u32, 0u32, false);
        for _ in 0..packets {
            let now = losing.lose();
            if now {
                lost += 1;
                if !previous {
                    runs += 1;
                }
            }
            previous = now;
        }
        (
            f64::from(lost) / f64::from(packets),
            f64::from(lost) / f64::from(runs.max(1)),
        )
    }

    #[test]
    fn independent_loss_loses_its_share() {
        let model = Loss::Independent { probability: 0.02 };
        let (share, burst) = measured(model, 200_000);
        assert!((share - 0.02).abs() < 0.002, "{share}");
        assert!(
            burst < 1.1,
            "independent losses seldom come in runs: {burst}"
        );
        assert!(measured(Loss::None, 10_000).0.abs() < f64::EPSILON);
    }

    #[test]
    fn bursty_loss_loses_its_mean_in_bursts_of_its_length() {
        let model = Loss::bursty(0.02, 4.0);
        assert!((model.mean() - 0.02).abs() < 1e-12);
        assert!((model.mean_burst() - 4.0).abs() < 1e-12);
        let (share, burst) = measured(model, 400_000);
        assert!((share - 0.02).abs() < 0.004, "{share}");
        assert!((burst - 4.0).abs() < 0.6, "{burst}");
    }

    #[test]
    fn the_same_seed_loses_the_same_packets() {
        let model = Loss::bursty(0.05, 3.0);
        let run = |seed| {
            let mut losing = Losing::new(model, seed);
            (0..1_000).map(|_| losing.lose()).collect::<Vec<_>>()
        };
        assert_eq!(run(3), run(3));
        assert_ne!(run(3), run(4));
    }
}
