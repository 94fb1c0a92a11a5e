//! The notes that say where a client missed the suite's targets.

use crate::report::format::format_ms;
use crate::report::reasons;
use bench_model::ResilienceResults;

/// The targets the notes hold each row to.
const RECOVERY_TARGET_MS: f64 = 1_000.0;

const RSS_GROWTH_TARGET_PERCENT: f64 = 5.0;

/// Where a row missed a target of the suite, in words.
pub(super) fn notes(rows: &ResilienceResults) -> Vec<String> {
    let mut notes = Vec::new();
    for row in &rows.capacity {
        if let Some(why) = &row.unchecked {
            notes.push(format!(
                "{}: not a figure: {}",
                row.label(),
                reasons::unchecked(why, row.protocol)
            ));
        }
    }
    for row in &rows.restart {
        let timeouts = row.outage.with_status(504);
        if timeouts > 0 {
            notes.push(format!(
                "{}: {timeouts} payments got 504 while mock-rates was down, rather than a fast 502",
                row.label()
            ));
        }
        if row.first_success_ms.is_none() {
            notes.push(format!(
                "{}: no payment succeeded after mock-rates was back",
                row.label()
            ));
        }
    }
    for row in &rows.overload {
        match row.recovered_after_ms {
            Some(ms) if ms <= RECOVERY_TARGET_MS => {}
            Some(ms) => notes.push(format!(
                "{}: latency was back to normal {} after the overload, later than {}",
                row.label(),
                format_ms(Some(ms)),
                format_ms(Some(RECOVERY_TARGET_MS))
            )),
            None => notes.push(format!(
                "{}: latency was not back to normal before the run ended",
                row.label()
            )),
        }
        if !row.accounted() {
            notes.push(format!(
                "{}: of {} requests on the overload's timetable, {} were neither counted nor \
                 skipped",
                row.label(),
                row.scheduled,
                row.scheduled
                    .abs_diff(row.before.sent + row.overload.sent + row.after.sent + row.skipped)
            ));
        }
        if row.overload.unanswered() > 0 {
            notes.push(format!(
                "{}: {} requests got no answer during the overload",
                row.label(),
                row.overload.unanswered()
            ));
        }
        if row.health.ok < row.health.sent {
            notes.push(format!(
                "{}: {} of {} health checks failed during the overload",
                row.label(),
                row.health.sent - row.health.ok,
                row.health.sent
            ));
        }
    }
    if let Some(slow) = &rows.slow_connections
        && slow.still_open > 0
    {
        notes.push(format!(
            "{} slow connections were not closed by the service",
            slow.still_open
        ));
    }
    for row in &rows.soak {
        if row
            .rss_growth_percent()
            .is_some_and(|growth| growth >= RSS_GROWTH_TARGET_PERCENT)
        {
            notes.push(format!(
                "{}: RSS grew by {:.1}% after the warm-up (target: under {RSS_GROWTH_TARGET_PERCENT}%)",
                row.label(),
                row.rss_growth_percent().unwrap_or_default()
            ));
        }
        if row.fd_growth().is_some_and(|growth| growth > 0) {
            notes.push(format!(
                "{}: {} more descriptors open at the end of the soak than after its warm-up \
                 (pooled connections count)",
                row.label(),
                row.fd_growth().unwrap_or_default()
            ));
        }
    }
    notes
}
