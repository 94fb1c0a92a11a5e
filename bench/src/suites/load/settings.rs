//! The load suite's flags and the sizes they resolve to (recorded in results.json under
//! `settings.load`).

use std::time::Duration;

use bench_model::LoadSettings;

/// The load suite's command-line flags (flattened into the bench's).
#[derive(Clone, Debug, Default, clap::Args)]
#[command(next_help_heading = "Load suite")]
pub struct LoadArgs {
    /// load: requests per second sent to each scenario (open model, on a fixed timetable).
    /// [default: 480; --quick: 200]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub rps: Option<u32>,

    /// load: measured seconds per scenario (fractions allowed), split into --rounds rounds,
    /// each after an unrecorded warm-up at the same rate (0.5 s in all, --quick: 0.25 s; never
    /// longer than this). [default: 3; --quick: 1]
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub duration: Option<Duration>,
}

/// The load suite's sizes: the flags given, else the defaults (of `--quick`, if given).
pub fn resolve(args: &LoadArgs, quick: bool) -> LoadSettings {
    let (rps, duration, warmup) = if quick {
        (200, Duration::from_secs(1), Duration::from_millis(250))
    } else {
        (480, Duration::from_secs(3), Duration::from_millis(500))
    };
    let duration = args.duration.unwrap_or(duration);
    let millis = |duration: Duration| u64::try_from(duration.as_millis()).unwrap_or(u64::MAX);
    LoadSettings {
        rps: args.rps.unwrap_or(rps),
        duration_ms: millis(duration),
        warmup_ms: millis(warmup.min(duration)),
        timeout_ms: millis(crate::suites::load::http::REQUEST_TIMEOUT),
        // The bench's own flag, with the other answer sizes (`--load-body`).
        large_body: None,
    }
}

/// Seconds as a positive decimal ("10", "0.5"), to the millisecond.
fn parse_seconds(text: &str) -> Result<Duration, String> {
    let seconds: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number of seconds"))?;
    if !(seconds.is_finite() && (0.001..=86_400.0).contains(&seconds)) {
        return Err(format!("{text:?}: give between 0.001 and 86400 seconds"));
    }
    Ok(Duration::from_millis((seconds * 1_000.0).round() as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_seconds() {
        assert_eq!(parse_seconds("10"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_seconds("0.5"), Ok(Duration::from_millis(500)));
        assert!(parse_seconds("0").is_err());
        assert!(parse_seconds("-1").is_err());
        assert!(parse_seconds("NaN").is_err());
        assert!(parse_seconds("ten").is_err());
    }

    #[test]
    fn defaults_quick_and_overrides() {
        let defaults = resolve(&LoadArgs::default(), false);
        assert_eq!(
            (defaults.rps, defaults.duration_ms, defaults.warmup_ms),
            (480, 3_000, 500)
        );
        let quick = resolve(&LoadArgs::default(), true);
        assert_eq!(
            (quick.rps, quick.duration_ms, quick.warmup_ms),
            (200, 1_000, 250)
        );
        let tiny = resolve(
            &LoadArgs {
                rps: Some(100),
                duration: Some(Duration::from_millis(500)),
            },
            false,
        );
        // The warm-up never outlasts the measured run.
        assert_eq!(
            (tiny.rps, tiny.duration_ms, tiny.warmup_ms),
            (100, 500, 500)
        );
    }
}
