//! The fanout suite's flags and the settings they resolve to (recorded in results.json under
//! `settings.fanout`).

use bench_model::FanoutSettings;

/// The reference's group sizes: from a group a pool serves at once to the largest, where h1
/// pools and h2's stream limits part (5, 15, 25, 30 and 50 were measured until 2026-12-07, and
/// only filled in the curve between these).
pub const DEFAULT_GROUP_SIZES: [u32; 5] = [5, 10, 20, 40, 70];
const QUICK_GROUP_SIZES: [u32; 2] = [5, 20];
const DEFAULT_LATENCY_MS: u64 = 50;
const QUICK_LATENCY_MS: u64 = 20;
const DEFAULT_REPETITIONS: u32 = 3;
/// Sequential groups are the suite's long part (the default sizes add up to 145 upstream
/// latencies per client and repetition) and vary little: N calls in a row already average.
const DEFAULT_SEQUENTIAL_REPETITIONS: u32 = 1;
/// The stream limit: well under the largest group, so that every client meets it.
const DEFAULT_H2_STREAM_LIMIT: u32 = 10;

/// The suite's flags (flattened into the bench's).
#[derive(Clone, Debug, Default, clap::Args)]
#[command(next_help_heading = "Fanout suite")]
pub struct FanoutArgs {
    /// fanout: latency mock-rates adds to every upstream call, in ms, set through its admin
    /// endpoint for the suite and removed after it. 360 reproduces the reference's API (the
    /// suite then takes longer). [default: 50; --quick: 20]
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=60_000))]
    pub upstream_latency_ms: Option<u64>,

    /// fanout: extra latency per upstream call, drawn uniformly from 0..=MS. [default: 0]
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(0..=60_000))]
    pub upstream_jitter_ms: Option<u64>,

    /// fanout: payments per group, comma-separated (the reference's sizes were
    /// 5,10,15,20,25,30,40,50,70); sequential groups at the smallest and the largest only.
    /// [default: 5,10,20,40,70; --quick: 5,20]
    #[arg(long, value_name = "N,...", value_delimiter = ',',
          value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub group_sizes: Vec<u32>,

    /// fanout: times each concurrent group is sent; tables show the median. [default: 3;
    /// --quick: 1]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub fanout_repetitions: Option<u32>,

    /// fanout: times each sequential group is sent. One by default: a sequential group of N
    /// takes N upstream latencies (145 per client at the default sizes), so repeating it
    /// would multiply the suite's time, and N calls in a row already average out.
    /// [default: 1]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub fanout_sequential_repetitions: Option<u32>,

    /// fanout over h2: the concurrent groups are sent again through a mock-rates whose
    /// HTTP/2 connections allow this many streams at once (SETTINGS_MAX_CONCURRENT_STREAMS), to
    /// show what each client does past it: queue, open more connections, or fail. 0 leaves
    /// those rows out. [default: 10]
    #[arg(long, value_name = "N")]
    pub h2_stream_limit: Option<u32>,
}

/// The suite's settings: the flags given, else the defaults (of `--quick`, if given).
pub fn resolve(args: &FanoutArgs, quick: bool) -> FanoutSettings {
    let (latency, sizes, repetitions) = if quick {
        (QUICK_LATENCY_MS, &QUICK_GROUP_SIZES[..], 1)
    } else {
        (
            DEFAULT_LATENCY_MS,
            &DEFAULT_GROUP_SIZES[..],
            DEFAULT_REPETITIONS,
        )
    };
    let mut group_sizes = if args.group_sizes.is_empty() {
        sizes.to_vec()
    } else {
        args.group_sizes.clone()
    };
    group_sizes.sort_unstable();
    group_sizes.dedup();
    // In sequence the smallest and the largest only: a sequential group of N takes N upstream
    // latencies whatever the client (145 per client at the default sizes, 75 now), and the
    // sizes between only filled in a straight line.
    let sequential_group_sizes = match group_sizes.as_slice() {
        [first, .., last] => vec![*first, *last],
        sizes => sizes.to_vec(),
    };
    FanoutSettings {
        sequential_group_sizes: Some(sequential_group_sizes),
        upstream_latency_ms: args.upstream_latency_ms.unwrap_or(latency),
        upstream_jitter_ms: args.upstream_jitter_ms.unwrap_or(0),
        group_sizes,
        repetitions: args.fanout_repetitions.unwrap_or(repetitions),
        sequential_repetitions: args
            .fanout_sequential_repetitions
            .unwrap_or(DEFAULT_SEQUENTIAL_REPETITIONS),
        h2_stream_limit: Some(args.h2_stream_limit.unwrap_or(DEFAULT_H2_STREAM_LIMIT))
            .filter(|&limit| limit > 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::FanoutMode;

    fn resolved(flags: &[&str]) -> FanoutSettings {
        use clap::Parser as _;
        #[derive(clap::Parser)]
        struct Flags {
            #[arg(long)]
            quick: bool,
            #[command(flatten)]
            fanout: FanoutArgs,
        }
        let flags = Flags::parse_from(std::iter::once("bench").chain(flags.iter().copied()));
        resolve(&flags.fanout, flags.quick)
    }

    #[test]
    fn settings_defaults_quick_and_overrides() {
        let defaults = resolved(&[]);
        assert_eq!(defaults.upstream_latency_ms, 50);
        assert_eq!(defaults.upstream_jitter_ms, 0);
        assert_eq!(defaults.group_sizes, DEFAULT_GROUP_SIZES);
        assert_eq!(
            (defaults.repetitions, defaults.sequential_repetitions),
            (3, 1)
        );
        let quick = resolved(&["--quick"]);
        assert_eq!(quick.upstream_latency_ms, 20);
        assert_eq!(quick.group_sizes, [5, 20]);
        assert_eq!((quick.repetitions, quick.sequential_repetitions), (1, 1));
        let chosen = resolved(&[
            "--quick",
            "--upstream-latency-ms",
            "360",
            "--upstream-jitter-ms",
            "20",
            "--group-sizes",
            "70,5,20,5",
            "--fanout-repetitions",
            "5",
            "--fanout-sequential-repetitions",
            "2",
        ]);
        assert_eq!(chosen.upstream_latency_ms, 360);
        assert_eq!(chosen.upstream_jitter_ms, 20);
        assert_eq!(chosen.group_sizes, [5, 20, 70]);
        assert_eq!(chosen.repetitions_of(FanoutMode::Concurrent), 5);
        assert_eq!(chosen.repetitions_of(FanoutMode::Sequential), 2);
        assert_eq!(chosen.sizes_of(FanoutMode::Concurrent), [5, 20, 70]);
        assert_eq!(chosen.sizes_of(FanoutMode::Sequential), [5, 70]);
        assert_eq!(
            defaults.sizes_of(FanoutMode::Sequential),
            [5, 70],
            "the smallest and the largest in sequence"
        );
        let one = resolved(&["--group-sizes", "8"]);
        assert_eq!(one.sizes_of(FanoutMode::Sequential), [8]);
        // A run from before the field sent every size in sequence.
        let before = FanoutSettings {
            sequential_group_sizes: None,
            ..chosen
        };
        assert_eq!(before.sizes_of(FanoutMode::Sequential), [5, 20, 70]);
        assert_eq!(defaults.h2_stream_limit, Some(10));
        assert_eq!(resolved(&["--h2-stream-limit", "0"]).h2_stream_limit, None);
        assert_eq!(
            resolved(&["--h2-stream-limit", "4"]).h2_stream_limit,
            Some(4)
        );
    }
}
