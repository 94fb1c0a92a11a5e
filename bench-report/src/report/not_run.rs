//! Why a suite, or a part of one, did not run: the sentences, written here from the typed
//! reasons results.json keeps (`not_run`), for the terminal and the page alike.

use crate::report::reasons;
use bench_model::{NotRunWhy, Results, SuiteName, SuitePart, SuiteSkip, Tool};

/// Why `suite` (or `part` of it) did not run.
pub fn sentence(suite: SuiteName, part: Option<SuitePart>, why: &NotRunWhy) -> String {
    match why {
        NotRunWhy::Planned { skip } => skip_sentence(suite, *skip),
        NotRunWhy::Toolchain { toolchain } => reasons::toolchain(toolchain),
        NotRunWhy::Failed { error } => match (suite, part) {
            (SuiteName::Resolution, None) => format!(
                "it needs a network namespace of its own, with a resolv.conf of its own (root \
                 and `ip netns`): {error}"
            ),
            (_, Some(SuitePart::Probe { client })) => format!("{client}: {error}"),
            _ => error.clone(),
        },
    }
}

/// The line the runner prints on stderr when `suite` (or `part` of it) does not run.
pub fn not_run_line(suite: SuiteName, part: Option<SuitePart>, why: &NotRunWhy) -> String {
    let why = sentence(suite, part, why);
    match part {
        None => format!("{suite}: skipped: {why}"),
        Some(SuitePart::ServiceCost) => {
            format!("{suite}: the service's instructions per payment: {why}")
        }
        Some(SuitePart::Probe { .. } | SuitePart::StoredAdoption) => format!("{suite}: {why}"),
        Some(SuitePart::ServiceBudget) => format!(
            "{suite}: the service shares the machine with the generator and mock-rates, not \
             held to its CPU budget: {why}"
        ),
        Some(SuitePart::CpuQuota) => format!("{suite}: no capacity under a CPU quota: {why}"),
    }
}

/// Why the plan skipped `suite`.
fn skip_sentence(suite: SuiteName, skip: SuiteSkip) -> String {
    match skip {
        SuiteSkip::Missing { tool } => missing(tool),
        SuiteSkip::NeedsRoot => "it needs a network namespace of its own, with a resolv.conf of \
                                 its own (root and `ip netns`): the bench is not running as root"
            .to_owned(),
        SuiteSkip::ServersGiven if suite == SuiteName::Idle => {
            "it sets mock-rates' idle timeout and reads its counts of idle closes, so it needs a \
             mock-rates of the bench's own, not one given by --mock-url or --upstream-url"
                .to_owned()
        }
        SuiteSkip::ServersGiven => "the suite kills and restarts mock-rates and reads the \
                                    service's memory and descriptors from /proc, so it needs the \
                                    bench's own servers, not ones given by --mock-url or --api-url"
            .to_owned(),
        SuiteSkip::NoHttpClient => "no client of the run speaks plain HTTP".to_owned(),
    }
}

/// That `tool` is missing, with what needs it and how to install it.
fn missing(tool: Tool) -> String {
    let needs = match tool {
        Tool::Valgrind | Tool::Vgdb => "; the cost suite needs its callgrind tool",
        Tool::Ip => "; the suite needs `ip netns` for a network namespace of its own",
        Tool::Wrk => "; the resilience suite holds its generator against it",
        Tool::Cargo | Tool::Rustc => "; the probes need it",
        Tool::Readelf => "; it lists a probe's shared libraries",
    };
    format!(
        "{tool} is not installed{needs} ({})",
        reasons::install_hint(tool)
    )
}

/// Why `suite` as a whole did not run, when it did not.
pub fn suite_not_run(results: &Results, suite: SuiteName) -> Option<String> {
    results.not_run(suite).map(|why| sentence(suite, None, why))
}

/// Why `part` of `suite` did not run, when it did not.
pub fn part_not_run(results: &Results, suite: SuiteName, part: SuitePart) -> Option<String> {
    parts_not_run(results, suite)
        .into_iter()
        .find_map(|(recorded, why)| (recorded == part).then_some(why))
}

/// Why each part of `suite` that did not run did not, in the order recorded.
pub fn parts_not_run(results: &Results, suite: SuiteName) -> Vec<(SuitePart, String)> {
    results
        .not_run
        .iter()
        .filter(|not_run| not_run.suite == suite)
        .filter_map(|not_run| {
            let part = not_run.part?;
            Some((part, sentence(suite, Some(part), &not_run.why)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::{ClientName, NotRun};

    #[test]
    fn each_reason_is_worded_with_its_suite_and_part() {
        let planned = |skip| NotRunWhy::Planned { skip };
        assert_eq!(
            not_run_line(
                SuiteName::Cost,
                None,
                &planned(SuiteSkip::Missing {
                    tool: Tool::Valgrind
                })
            ),
            "cost: skipped: valgrind is not installed; the cost suite needs its callgrind tool \
             (Debian: apt-get install valgrind)"
        );
        assert!(
            sentence(SuiteName::Idle, None, &planned(SuiteSkip::ServersGiven))
                .contains("idle timeout")
        );
        assert!(
            sentence(
                SuiteName::Resilience,
                None,
                &planned(SuiteSkip::ServersGiven)
            )
            .contains("restarts mock-rates")
        );
        let failed = NotRunWhy::Failed {
            error: "ip netns add: exit status 1".to_owned(),
        };
        assert!(
            sentence(SuiteName::Resolution, None, &failed)
                .ends_with("(root and `ip netns`): ip netns add: exit status 1")
        );
        let probe = Some(SuitePart::Probe {
            client: ClientName::Ureq,
        });
        assert_eq!(
            not_run_line(SuiteName::Adoption, probe, &failed),
            "adoption: ureq: ip netns add: exit status 1"
        );
        assert_eq!(
            not_run_line(SuiteName::Cost, Some(SuitePart::ServiceCost), &failed),
            "cost: the service's instructions per payment: ip netns add: exit status 1"
        );
    }

    #[test]
    fn a_suite_and_its_parts_are_found_apart() {
        let mut results = crate::report::fanout::test_rows::results("360");
        assert_eq!(suite_not_run(&results, SuiteName::Cost), None);
        results.not_run.push(NotRun {
            suite: SuiteName::Cost,
            part: Some(SuitePart::ServiceCost),
            why: NotRunWhy::Failed {
                error: "cannot run vgdb".to_owned(),
            },
        });
        assert_eq!(suite_not_run(&results, SuiteName::Cost), None);
        assert_eq!(
            parts_not_run(&results, SuiteName::Cost),
            [(SuitePart::ServiceCost, "cannot run vgdb".to_owned())]
        );
    }
}
