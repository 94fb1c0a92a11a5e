//! The open model's timetable: when each request is due, how late the generator sent it, and
//! the throughput a scenario achieved. Pure functions; the clock is the caller's.

use std::time::Duration;

/// A request that leaves more than this after its intended time counts as sent late.
pub const LATE_AFTER: Duration = Duration::from_millis(1);

const NANOS_PER_SECOND: u128 = 1_000_000_000;

/// Requests due at a constant rate: request `i` is due `i / rate` seconds after the start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Schedule {
    rate: u32,
    count: u64,
}

impl Schedule {
    /// `rate` requests per second (at least 1) for `duration`: `rate x duration` requests,
    /// rounded to the nearest whole request.
    pub fn new(rate: u32, duration: Duration) -> Self {
        let rate = rate.max(1);
        let scaled = u128::from(rate) * duration.as_nanos();
        let count = (scaled + NANOS_PER_SECOND / 2) / NANOS_PER_SECOND;
        Self {
            rate,
            count: u64::try_from(count).unwrap_or(u64::MAX),
        }
    }

    pub fn rate(self) -> u32 {
        self.rate
    }

    /// Requests on the timetable.
    pub fn count(self) -> u64 {
        self.count
    }

    /// When request `index` is due, after the start. Computed from the index, never by adding
    /// intervals, so that rounding never accumulates (480 RPS is a 2.0833... ms interval).
    pub fn offset(self, index: u64) -> Duration {
        let nanos = u128::from(index) * NANOS_PER_SECOND / u128::from(self.rate);
        Duration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX))
    }

    /// The time the timetable covers: `count / rate`, where the request after the last would
    /// be due.
    pub fn span(self) -> Duration {
        self.offset(self.count)
    }
}

/// When each request of an open-model run is due: a constant rate ([`Schedule`]) or constant
/// rates one after another ([`Phases`]).
pub trait Timetable: Copy + Send + 'static {
    /// Requests on the timetable.
    fn count(self) -> u64;
    /// When request `index` is due, after the start.
    fn offset(self, index: u64) -> Duration;
    /// The highest rate on the timetable, in requests per second.
    fn peak_rps(self) -> u32;
}

impl Timetable for Schedule {
    fn count(self) -> u64 {
        Schedule::count(self)
    }

    fn offset(self, index: u64) -> Duration {
        Schedule::offset(self, index)
    }

    fn peak_rps(self) -> u32 {
        self.rate
    }
}

/// Constant-rate phases back to back, such as a normal rate, twice the capacity, then the normal
/// rate again: each phase's first request is due where the previous phase's span ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Phases<const N: usize>(pub [Schedule; N]);

impl<const N: usize> Phases<N> {
    /// Where phase `phase` starts, after the start of the first.
    pub fn start_of(self, phase: usize) -> Duration {
        self.0
            .iter()
            .take(phase)
            .map(|schedule| schedule.span())
            .sum()
    }

    /// The time all phases cover.
    pub fn span(self) -> Duration {
        self.start_of(N)
    }
}

impl<const N: usize> Timetable for Phases<N> {
    fn count(self) -> u64 {
        self.0.iter().map(|schedule| schedule.count()).sum()
    }

    fn offset(self, index: u64) -> Duration {
        let mut before = Duration::ZERO;
        let mut first = 0;
        for schedule in self.0 {
            if index < first + schedule.count() {
                return before + schedule.offset(index - first);
            }
            first += schedule.count();
            before += schedule.span();
        }
        before
    }

    fn peak_rps(self) -> u32 {
        self.0
            .iter()
            .map(|schedule| schedule.rate)
            .max()
            .unwrap_or(1)
    }
}

/// How punctual the generator was: the sends that left more than [`LATE_AFTER`] after their
/// intended time, and the worst delay.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Lateness {
    pub late: u64,
    pub worst: Duration,
}

impl Lateness {
    /// Adds one send that left `delay` after it was due.
    pub fn record(&mut self, delay: Duration) {
        if delay > LATE_AFTER {
            self.late += 1;
        }
        self.worst = self.worst.max(delay);
    }
}

/// Successful responses per second over the scenario's window: from the first intended send to
/// the end of the timetable, or to the last response if that came later. A server that keeps
/// up therefore scores exactly the target rate; one that falls behind stretches the window and
/// scores what it really served.
pub fn achieved_rps(ok: u64, span: Duration, last_response: Duration) -> f64 {
    let window = span.max(last_response).as_secs_f64();
    if window > 0.0 {
        ok as f64 / window
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_timetable_of_480_rps() {
        let schedule = Schedule::new(480, Duration::from_secs(10));
        assert_eq!(schedule.count(), 4800);
        assert_eq!(schedule.offset(0), Duration::ZERO);
        // 1/480 s = 2_083_333.33 ns, truncated; the 480th is due at exactly one second.
        assert_eq!(schedule.offset(1), Duration::from_nanos(2_083_333));
        assert_eq!(schedule.offset(2), Duration::from_nanos(4_166_666));
        assert_eq!(schedule.offset(479), Duration::from_nanos(997_916_666));
        assert_eq!(schedule.offset(480), Duration::from_secs(1));
        assert_eq!(schedule.offset(4799), Duration::from_nanos(9_997_916_666));
        assert_eq!(schedule.span(), Duration::from_secs(10));
    }

    #[test]
    fn counts_round_to_the_nearest_request() {
        assert_eq!(Schedule::new(100, Duration::from_millis(500)).count(), 50);
        // 3 x 0.5 s = 1.5 -> 2; 3 x 0.49 s = 1.47 -> 1.
        assert_eq!(Schedule::new(3, Duration::from_millis(500)).count(), 2);
        assert_eq!(Schedule::new(3, Duration::from_millis(490)).count(), 1);
        assert_eq!(Schedule::new(480, Duration::ZERO).count(), 0);
        // A rate of 0 would divide by zero: it is taken as 1.
        assert_eq!(Schedule::new(0, Duration::from_secs(2)).count(), 2);
    }

    #[test]
    fn phases_follow_one_another() {
        let phases = Phases([
            Schedule::new(100, Duration::from_secs(1)),
            Schedule::new(400, Duration::from_millis(500)),
            Schedule::new(100, Duration::from_secs(1)),
        ]);
        assert_eq!(Timetable::count(phases), 100 + 200 + 100);
        assert_eq!(phases.offset(99), Duration::from_millis(990));
        // The second phase starts at 1 s, a request every 2.5 ms.
        assert_eq!(phases.offset(100), Duration::from_secs(1));
        assert_eq!(phases.offset(101), Duration::from_micros(1_002_500));
        assert_eq!(phases.offset(300), Duration::from_millis(1_500));
        assert_eq!(phases.offset(399), Duration::from_millis(2_490));
        assert_eq!(phases.start_of(2), Duration::from_millis(1_500));
        assert_eq!(phases.span(), Duration::from_millis(2_500));
        // Past the end: where the last phase ends.
        assert_eq!(phases.offset(400), Duration::from_millis(2_500));
        assert_eq!(phases.peak_rps(), 400);
    }

    #[test]
    fn late_means_more_than_one_millisecond() {
        let mut lateness = Lateness::default();
        for micros in [0, 40, 1_000, 1_001, 2_500] {
            lateness.record(Duration::from_micros(micros));
        }
        assert_eq!(lateness.late, 2);
        assert_eq!(lateness.worst, Duration::from_micros(2_500));
        assert_eq!(Lateness::default().late, 0);
    }

    #[test]
    fn achieved_rate_over_the_window() {
        let span = Duration::from_secs(10);
        // Kept up: the last response came inside the timetable.
        assert!((achieved_rps(4800, span, Duration::from_millis(9_998)) - 480.0).abs() < 1e-9);
        // Fell behind: 4800 responses over 12 s.
        assert!((achieved_rps(4800, span, Duration::from_secs(12)) - 400.0).abs() < 1e-9);
        // Failures do not count: 4752 ok of 4800.
        assert!((achieved_rps(4752, span, span) - 475.2).abs() < 1e-9);
        assert!(achieved_rps(0, Duration::ZERO, Duration::ZERO).abs() < f64::EPSILON);
    }
}
