//! The machine's load and CPU steal, sampled on a thread of its own during the whole run and
//! summed up per suite: other work on the machine, or a hypervisor taking its CPUs away, shows
//! in the figures, and now also beside them. The load average the run's environment quotes is
//! read here too.

use std::fs;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use bench_model::{MachineLoad, SuiteName};

/// Time between two readings: often enough to catch a burst of steal, rarely enough to cost
/// nothing measurable (two small /proc reads).
const INTERVAL: Duration = Duration::from_millis(500);

/// The aggregate CPU times of /proc/stat's `cpu` line, in clock ticks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuTimes {
    pub busy: u64,
    pub idle: u64,
    pub steal: u64,
}

impl CpuTimes {
    fn total(self) -> u64 {
        self.busy + self.idle + self.steal
    }

    fn since(self, earlier: Self) -> Self {
        Self {
            busy: self.busy.saturating_sub(earlier.busy),
            idle: self.idle.saturating_sub(earlier.idle),
            steal: self.steal.saturating_sub(earlier.steal),
        }
    }

    /// The machine's CPU times now; `None` without a readable /proc/stat.
    pub fn now() -> Option<Self> {
        read().0
    }

    /// The share of CPU time the hypervisor stole from `earlier` to `self`, in percent.
    pub fn steal_percent_since(self, earlier: Self) -> Option<f64> {
        let interval = self.since(earlier);
        percent(interval.steal, interval.total())
    }
}

/// The `cpu` line of /proc/stat: user nice system idle iowait irq softirq steal (guest time is
/// already inside user and nice, so it is not added again).
pub fn parse_proc_stat(text: &str) -> Option<CpuTimes> {
    let line = text.lines().find(|line| line.starts_with("cpu "))?;
    let fields: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .map(|field| field.parse().ok())
        .collect::<Option<_>>()?;
    let field = |index: usize| fields.get(index).copied().unwrap_or(0);
    Some(CpuTimes {
        busy: field(0) + field(1) + field(2) + field(5) + field(6),
        idle: field(3) + field(4),
        steal: field(7),
    })
}

/// The 1-minute load average, the first field of /proc/loadavg.
pub fn parse_load1(text: &str) -> Option<f64> {
    text.split_whitespace().next()?.parse().ok()
}

/// The 1-, 5- and 15-minute load averages now, as /proc/loadavg writes them ("0.52 0.31 0.20").
pub fn load_average() -> Option<String> {
    fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|text| parse_loadavg(&text))
}

/// "0.52 0.31 0.20" from /proc/loadavg's "0.52 0.31 0.20 1/123 4567".
fn parse_loadavg(text: &str) -> Option<String> {
    let figures: Vec<&str> = text.split_whitespace().take(3).collect();
    (figures.len() == 3).then(|| figures.join(" "))
}

fn percent(part: u64, whole: u64) -> Option<f64> {
    (whole > 0).then(|| part as f64 * 100.0 / whole as f64)
}

/// What the sampler has gathered since the last summary.
#[derive(Debug, Default)]
struct Window {
    first: Option<CpuTimes>,
    last: Option<CpuTimes>,
    readings: u32,
    steal_max: Option<f64>,
    load1_max: Option<f64>,
}

impl Window {
    fn record(&mut self, times: Option<CpuTimes>, load1: Option<f64>) {
        self.readings += 1;
        if let Some(times) = times {
            if let Some(last) = self.last {
                let interval = times.since(last);
                if let Some(steal) = percent(interval.steal, interval.total()) {
                    self.steal_max = Some(self.steal_max.map_or(steal, |max: f64| max.max(steal)));
                }
            }
            self.first.get_or_insert(times);
            self.last = Some(times);
        }
        if let Some(load1) = load1 {
            self.load1_max = Some(self.load1_max.map_or(load1, |max: f64| max.max(load1)));
        }
    }

    fn summary(&self, suite: SuiteName, seconds: f64) -> MachineLoad {
        let whole = self
            .first
            .zip(self.last)
            .map(|(first, last)| last.since(first));
        MachineLoad {
            suite,
            seconds,
            readings: self.readings,
            busy_percent: whole.and_then(|times| percent(times.busy, times.total())),
            steal_percent: whole.and_then(|times| percent(times.steal, times.total())),
            steal_percent_max: self.steal_max,
            load1_max: self.load1_max,
        }
    }
}

fn read() -> (Option<CpuTimes>, Option<f64>) {
    let times = fs::read_to_string("/proc/stat")
        .ok()
        .as_deref()
        .and_then(parse_proc_stat);
    let load1 = fs::read_to_string("/proc/loadavg")
        .ok()
        .as_deref()
        .and_then(parse_load1);
    (times, load1)
}

/// Readings every [`INTERVAL`] on a thread of its own, until dropped.
#[derive(Debug)]
pub struct Sampler {
    window: Arc<Mutex<Window>>,
    started: Instant,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Sampler {
    pub fn start() -> Self {
        let window = Arc::new(Mutex::new(Window::default()));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (window, stop) = (Arc::clone(&window), Arc::clone(&stop));
            std::thread::Builder::new()
                .name("machine-sampler".to_owned())
                .spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        let (times, load1) = read();
                        window
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner)
                            .record(times, load1);
                        std::thread::sleep(INTERVAL);
                    }
                })
                .ok()
        };
        Self {
            window,
            started: Instant::now(),
            stop,
            thread,
        }
    }

    /// The machine since the last call (or the start) as `suite`'s, and a new window from now.
    pub fn take(&mut self, suite: SuiteName) -> MachineLoad {
        let (times, load1) = read();
        let mut window = self.window.lock().unwrap_or_else(PoisonError::into_inner);
        window.record(times, load1);
        let summary = window.summary(suite, self.started.elapsed().as_secs_f64());
        // The last reading opens the next window, so no interval falls between two suites.
        *window = Window::default();
        window.record(times, load1);
        window.readings = 0;
        self.started = Instant::now();
        summary
    }
}

impl Drop for Sampler {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_cpu_line_of_proc_stat() {
        let text = "cpu  940807 10 202898 1174629 13187 0 8659 696 5 0\n\
                    cpu0 455514 0 93911 612643 4416 0 3159 343 0 0\n";
        assert_eq!(
            parse_proc_stat(text),
            Some(CpuTimes {
                busy: 940_807 + 10 + 202_898 + 8659,
                idle: 1_174_629 + 13_187,
                steal: 696,
            })
        );
        assert_eq!(parse_proc_stat("cpu0 1 2 3\n"), None);
        assert_eq!(parse_load1("1.91 2.18 2.76 2/104 24126\n"), Some(1.91));
    }

    #[test]
    fn reads_the_three_load_averages() {
        assert_eq!(
            parse_loadavg("2.95 1.89 1.12 1/96 21539\n").as_deref(),
            Some("2.95 1.89 1.12")
        );
        assert_eq!(parse_loadavg(""), None);
    }

    #[test]
    fn a_window_gives_busy_and_steal_shares_and_the_worst_interval() {
        let mut window = Window::default();
        let at = |busy, idle, steal| Some(CpuTimes { busy, idle, steal });
        window.record(at(0, 0, 0), Some(0.5));
        // 100 ticks: 50 busy, 40 idle, 10 stolen; then 100 more: 50 busy, 20 idle, 30 stolen.
        window.record(at(50, 40, 10), Some(1.5));
        window.record(at(100, 60, 40), Some(1.0));
        let summary = window.summary(SuiteName::Latency, 2.0);
        assert_eq!(summary.readings, 3);
        assert_eq!(summary.busy_percent, Some(50.0));
        assert_eq!(summary.steal_percent, Some(20.0));
        assert_eq!(summary.steal_percent_max, Some(30.0));
        assert_eq!(summary.load1_max, Some(1.5));
        assert_eq!(
            Window::default().summary(SuiteName::Load, 0.0).busy_percent,
            None
        );
    }

    #[test]
    fn the_sampler_reads_this_machine() {
        let mut sampler = Sampler::start();
        std::thread::sleep(INTERVAL + Duration::from_millis(100));
        let load = sampler.take(SuiteName::Decode);
        assert!(load.readings >= 2, "{load:?}");
        assert!(load.busy_percent.is_some(), "{load:?}");
        assert!(
            load.steal_percent.is_some_and(|steal| steal >= 0.0),
            "{load:?}"
        );
    }
}
