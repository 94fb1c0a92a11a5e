//! The resilience suite's flags and the sizes they resolve to (recorded in results.json under
//! `settings.resilience`).

use bench_model::ResilienceSettings;

/// The suite's command-line flags (flattened into the bench's).
#[derive(Clone, Debug, Default, clap::Args)]
#[command(next_help_heading = "Resilience suite")]
pub struct ResilienceArgs {
    /// resilience: the full sizes: restart 2 s before, 3 s down, 5 s after; overload 2 s, 5 s
    /// at twice the capacity, 3 s; slow clients 2 s per client and phase; a soak of 3 minutes
    /// per client (1 minute of warm-up).
    #[arg(long)]
    pub resilience_full: bool,

    /// resilience: the soak's seconds per client, whatever the size. [default: 8; --quick: 3;
    /// --resilience-full: 180]
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(2..=86_400))]
    pub soak_secs: Option<u64>,

    /// resilience: each client's capacity again with the payment service held to this many
    /// CPUs by a CFS quota (cgroup `cpu.cfs_quota_us` or `cpu.max`, a 100 ms period, as a
    /// Kubernetes CPU limit sets it), after the other parts; `1`, `0.5` or `500m`, a list or
    /// the flag repeated. Needs root and a cgroup file system (said and skipped otherwise).
    /// What it adds to a run: docs/suites.md. [default: none]
    #[arg(long, value_name = "CPUS", value_delimiter = ',', value_parser = parse_cpus)]
    pub cpu_quota: Vec<u32>,

    /// resilience: every part over https and h2 too (those of `--protocol`), each against a
    /// mock-rates over TLS restarted in place with the same certificate, and a service of its
    /// own trusting its CA; the CPU quotas stay over http. Each TLS backend's pairs are
    /// measured too (docs/suites.md says what it costs). [default: http only]
    #[arg(long)]
    pub resilience_tls: bool,

    /// resilience: the CPUs the payment service is held to through the suite (after the
    /// generator against wrk), by a CFS quota with a 10 ms period, so that what the generator
    /// and mock-rates take from the machine does not set its figures (on two cores the
    /// open-model generator spends about as much CPU per request as the service); `all` leaves
    /// it the whole machine. Needs root and a cgroup file system (said, and the suite runs
    /// without it, otherwise). [default: 0.5]
    #[arg(long, value_name = "CPUS|all", value_parser = parse_service_cpus)]
    pub service_cpus: Option<ServiceCpus>,
}

/// The service's CPU budget through the suite: millicpus, or `None` for the whole machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServiceCpus(pub Option<u32>);

/// The budget when `--service-cpus` is not given: half a CPU, which leaves a 2-core machine's
/// generator and mock-rates 1.5 CPUs, more than they take at the service's capacity.
pub const DEFAULT_SERVICE_MILLICPUS: u32 = 500;

fn parse_service_cpus(text: &str) -> Result<ServiceCpus, String> {
    if text.trim().eq_ignore_ascii_case("all") {
        return Ok(ServiceCpus(None));
    }
    parse_cpus(text).map(|millicpus| ServiceCpus(Some(millicpus)))
}

/// A CPU quota as Kubernetes writes it, in millicpus: `0.5` and `500m` are 500.
fn parse_cpus(text: &str) -> Result<u32, String> {
    let millicpus = match text.trim().strip_suffix('m') {
        Some(millis) => millis.parse::<f64>(),
        None => text.trim().parse::<f64>().map(|cpus| cpus * 1_000.0),
    }
    .map_err(|error| format!("{text:?} is not a number of CPUs (1, 0.5, 500m): {error}"))?;
    if !(millicpus.is_finite() && (10.0..=64_000.0).contains(&millicpus)) {
        return Err(format!(
            "{text:?}: a CPU quota is from 0.01 (10m) to 64 CPUs"
        ));
    }
    Ok(millicpus.round() as u32)
}

/// The sizes: full, quick or default, then `--soak-secs`.
pub fn resolve(args: &ResilienceArgs, quick: bool) -> ResilienceSettings {
    // (capacity ramp step, capacity confirmation, restart before/outage/after, overload
    // before/during/after, slow phase, soak, soak warm-up, soak sample), in ms.
    let sizes: [u64; 12] = if args.resilience_full {
        [
            1_000, 5_000, 2_000, 3_000, 5_000, 2_000, 5_000, 3_000, 2_000, 180_000, 60_000, 1_000,
        ]
    } else if quick {
        [
            250, 750, 500, 500, 1_500, 500, 1_000, 1_500, 500, 3_000, 1_000, 100,
        ]
    } else {
        [
            300, 2_000, 1_000, 1_000, 2_000, 1_000, 2_000, 2_000, 1_000, 8_000, 4_000, 250,
        ]
    };
    let [
        ramp_step_ms,
        confirm_ms,
        restart_before_ms,
        restart_outage_ms,
        restart_after_ms,
        overload_before_ms,
        overload_ms,
        overload_after_ms,
        slow_phase_ms,
        soak_ms,
        soak_warmup_ms,
        soak_sample_ms,
    ] = sizes;
    let soak_ms = args.soak_secs.map_or(soak_ms, |seconds| seconds * 1_000);
    ResilienceSettings {
        full: args.resilience_full,
        ramp_step_ms,
        confirm_ms,
        restart_rps: 200,
        restart_before_ms,
        restart_outage_ms,
        restart_after_ms,
        overload_percent: 200,
        overload_before_ms,
        overload_ms,
        overload_after_ms,
        health_rps: 50,
        slow_connections: 1_000,
        slow_rps: 200,
        slow_phase_ms,
        soak_percent: 50,
        soak_ms,
        // A third of the soak at most, so that a short one still has readings after it.
        soak_warmup_ms: soak_warmup_ms.min(soak_ms / 3),
        soak_sample_ms,
        cpu_quotas_millicpus: args.cpu_quota.clone(),
        over_tls: args.resilience_tls,
        service_cpus_millicpus: args
            .service_cpus
            .map_or(Some(DEFAULT_SERVICE_MILLICPUS), |cpus| cpus.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_by_flag() {
        let default = resolve(&ResilienceArgs::default(), false);
        assert_eq!(
            (
                default.restart_outage_ms,
                default.overload_ms,
                default.soak_ms
            ),
            (1_000, 2_000, 8_000)
        );
        assert_eq!(
            (default.overload_percent, default.slow_connections),
            (200, 1_000)
        );
        let quick = resolve(&ResilienceArgs::default(), true);
        assert_eq!((quick.soak_ms, quick.soak_warmup_ms), (3_000, 1_000));
        let full = resolve(
            &ResilienceArgs {
                resilience_full: true,
                ..ResilienceArgs::default()
            },
            true,
        );
        assert!(full.full);
        assert_eq!((full.soak_ms, full.soak_warmup_ms), (180_000, 60_000));
        // A short soak keeps two thirds of itself after the warm-up.
        let short = resolve(
            &ResilienceArgs {
                resilience_full: true,
                soak_secs: Some(6),
                ..ResilienceArgs::default()
            },
            false,
        );
        assert_eq!((short.soak_ms, short.soak_warmup_ms), (6_000, 2_000));
        assert!(
            default.cpu_quotas_millicpus.is_empty(),
            "no quota unless asked"
        );
        assert!(!default.over_tls, "http only unless asked");
        assert_eq!(default.service_cpus_millicpus, Some(500));
        let whole =
            <crate::cli::Cli as clap::Parser>::parse_from(["bench", "--service-cpus", "all"]);
        assert_eq!(
            resolve(&whole.resilience, false).service_cpus_millicpus,
            None
        );
        let one = <crate::cli::Cli as clap::Parser>::parse_from(["bench", "--service-cpus", "1"]);
        assert_eq!(
            resolve(&one.resilience, true).service_cpus_millicpus,
            Some(1_000)
        );
        assert!(parse_service_cpus("none").is_err());
        let cli = <crate::cli::Cli as clap::Parser>::parse_from(["bench", "--resilience-tls"]);
        assert!(resolve(&cli.resilience, false).over_tls);
    }

    #[test]
    fn cpu_quotas_read_as_kubernetes_writes_them() {
        assert_eq!(parse_cpus("1"), Ok(1_000));
        assert_eq!(parse_cpus("0.5"), Ok(500));
        assert_eq!(parse_cpus("250m"), Ok(250));
        assert!(parse_cpus("0").unwrap_err().contains("from 0.01"));
        assert!(
            parse_cpus("half")
                .unwrap_err()
                .contains("not a number of CPUs")
        );
        let cli = <crate::cli::Cli as clap::Parser>::parse_from(["bench", "--cpu-quota", "1,500m"]);
        assert_eq!(
            resolve(&cli.resilience, false).cpu_quotas_millicpus,
            [1_000, 500]
        );
    }
}
