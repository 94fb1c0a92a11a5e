//! The connections suite's flags and the settings they resolve to (recorded in results.json
//! under `settings.connections`).

use bench_model::ConnectionsSettings;

const DEFAULT_SAMPLES: u32 = 15;
const QUICK_SAMPLES: u32 = 3;
const DEFAULT_SAMPLE_MS: u32 = 40;
const QUICK_SAMPLE_MS: u32 = 5;
/// Enough for the first connection, handshake and session ticket to be behind, and for a
/// mean to size the samples with.
const DEFAULT_WARMUP_CALLS: u32 = 10;
const QUICK_WARMUP_CALLS: u32 = 3;
/// The pooled call is tens of microseconds: without a cap its samples would hold thousands of
/// calls and take as long as the slow modes' for no better figure.
const DEFAULT_MAX_CALLS: u32 = 200;
const QUICK_MAX_CALLS: u32 = 20;

/// The suite's flags (flattened into the bench's).
#[derive(Clone, Debug, Default, clap::Args)]
#[command(next_help_heading = "Connections suite")]
pub struct ConnectionsArgs {
    /// connections: samples per client and mode, and per client and build; Error needs at
    /// least 2. [default: 15; --quick: 3]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub connections_samples: Option<u32>,

    /// connections: the time one sample aims to take. Its calls (at most 200; --quick: 20)
    /// follow from the mean of the client's warm-up calls in that mode, so a mode whose
    /// calls take milliseconds (a client built per call) gets few and the pooled call many.
    /// [default: 40; --quick: 5]
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u32).range(1..=60_000))]
    pub connections_sample_ms: Option<u32>,
}

/// The suite's settings: the flags given, else the defaults (of `--quick`, if given).
pub fn resolve(args: &ConnectionsArgs, quick: bool) -> ConnectionsSettings {
    let (samples, sample_ms, warmup_calls, max_calls) = if quick {
        (
            QUICK_SAMPLES,
            QUICK_SAMPLE_MS,
            QUICK_WARMUP_CALLS,
            QUICK_MAX_CALLS,
        )
    } else {
        (
            DEFAULT_SAMPLES,
            DEFAULT_SAMPLE_MS,
            DEFAULT_WARMUP_CALLS,
            DEFAULT_MAX_CALLS,
        )
    };
    ConnectionsSettings {
        samples: args.connections_samples.unwrap_or(samples),
        warmup_calls,
        sample_ms: args.connections_sample_ms.unwrap_or(sample_ms),
        max_calls_per_sample: max_calls,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolved(flags: &[&str]) -> ConnectionsSettings {
        use clap::Parser as _;
        #[derive(clap::Parser)]
        struct Flags {
            #[arg(long)]
            quick: bool,
            #[command(flatten)]
            connections: ConnectionsArgs,
        }
        let flags = Flags::parse_from(std::iter::once("bench").chain(flags.iter().copied()));
        resolve(&flags.connections, flags.quick)
    }

    #[test]
    fn settings_defaults_quick_and_overrides() {
        let defaults = resolved(&[]);
        assert_eq!(
            defaults,
            ConnectionsSettings {
                samples: 15,
                warmup_calls: 10,
                sample_ms: 40,
                max_calls_per_sample: 200,
            }
        );
        let quick = resolved(&["--quick"]);
        assert_eq!((quick.samples, quick.sample_ms), (3, 5));
        assert_eq!((quick.warmup_calls, quick.max_calls_per_sample), (3, 20));
        let chosen = resolved(&[
            "--quick",
            "--connections-samples",
            "7",
            "--connections-sample-ms",
            "250",
        ]);
        assert_eq!((chosen.samples, chosen.sample_ms), (7, 250));
        assert_eq!(chosen.max_calls_per_sample, 20);
    }
}
