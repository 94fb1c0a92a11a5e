//! The faults suite's flags, the settings they resolve to (recorded in results.json under
//! `settings.faults`), and what mock-rates is set to for each fault.

use mock_rates::{FaultMode, Faults};

use bench_model::{FaultCase, FaultsSettings};

/// Storm payments per client. [default; --quick]
const STORM_REQUESTS: (u32, u32) = (200, 40);
/// The service's upstream timeout under --quick; a full run keeps the service's own (2000 ms).
const QUICK_TIMEOUT_MS: u32 = 500;

/// The suite's flags (flattened into the bench's).
#[derive(Clone, Debug, Default, clap::Args)]
#[command(next_help_heading = "Faults suite")]
pub struct FaultsArgs {
    /// faults: the faults to inject, comma-separated, in table order. [default: all]
    #[arg(
        long = "faults",
        value_enum,
        value_delimiter = ',',
        value_name = "NAMES"
    )]
    pub faults: Vec<FaultCase>,

    /// faults: the payment service's upstream timeout (`rates.timeout_ms`) for the suite, in ms;
    /// the suite starts its own api child with it. Not applied to a service given by --api-url.
    /// [default: the service's own, 2000; --quick: 500]
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u32).range(1..=600_000))]
    pub fault_timeout_ms: Option<u32>,

    /// faults: payments per client in the fault storm around the file-descriptor check.
    /// [default: 200; --quick: 40]
    #[arg(long, value_name = "N")]
    pub storm_requests: Option<u32>,
}

/// The suite's settings: the flags given, else the defaults (of `--quick`, if given).
pub fn resolve(args: &FaultsArgs, quick: bool) -> FaultsSettings {
    let mut faults = Vec::with_capacity(FaultCase::ALL.len());
    for &case in &args.faults {
        if !faults.contains(&case) {
            faults.push(case);
        }
    }
    if faults.is_empty() {
        faults = FaultCase::ALL.to_vec();
    }
    let (storm, quick_storm) = STORM_REQUESTS;
    FaultsSettings {
        faults,
        timeout_ms: args.fault_timeout_ms.or(quick.then_some(QUICK_TIMEOUT_MS)),
        storm_requests: args
            .storm_requests
            .unwrap_or(if quick { quick_storm } else { storm }),
    }
}

/// What mock-rates is set to, for a service whose upstream timeout is `timeout_ms`.
pub fn mock_faults(case: FaultCase, timeout_ms: u64) -> Faults {
    let mode = |mode| Faults {
        mode,
        ..Faults::default()
    };
    let status = |status| Faults {
        status,
        ..mode(FaultMode::Status)
    };
    match case {
        FaultCase::None => Faults::default(),
        FaultCase::Status500 => status(500),
        FaultCase::Status503 => status(503),
        FaultCase::Reset => mode(FaultMode::Reset),
        FaultCase::Eof => mode(FaultMode::Eof),
        FaultCase::Truncated => mode(FaultMode::Truncated),
        FaultCase::Malformed => mode(FaultMode::Malformed),
        FaultCase::Drip => mode(FaultMode::Drip),
        FaultCase::Hang => mode(FaultMode::Hang),
        FaultCase::Latency => Faults {
            latency_ms: timeout_ms.saturating_mul(2),
            ..Faults::default()
        },
    }
}
