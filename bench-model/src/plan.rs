//! The run plan: which suite measures which client over which protocol (and, for the latency
//! suite, with which larger answers), and why a pair is left out, decided once from a run's
//! settings. The runner's suites, the servers it starts and the reports read it and decide
//! none of it themselves; `--help` and docs/suites.md say what it says (the runner's tests
//! compare them). A new protocol or suite changes the rules here and nowhere else.
//!
//! The plan is not stored: results.json keeps the settings it is made from, so a saved run's
//! reports make the same plan again.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::client::ClientProtocols as _;
use crate::{ClientName, MachineAbilities, Protocol, RunSettings, SuiteName};

/// What each suite of a run measures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunPlan {
    suites: Vec<SuitePlan>,
    /// The run's protocols, in its order (what `--protocol` and the upstream left).
    protocols: Vec<Protocol>,
    /// The run's clients, in table order, and whether they were named with `--clients`.
    clients: Vec<ClientName>,
    clients_named: bool,
}

/// One suite's part of the plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SuitePlan {
    pub suite: SuiteName,
    /// Why it does not run at all, when the run or the machine cannot take it; `over` still
    /// says what it would have measured.
    pub skipped: Option<SuiteSkip>,
    /// The protocols it measures over, in the run's order, each with its clients.
    pub over: Vec<ProtocolPlan>,
    /// The run's protocols it leaves out, with why.
    pub protocols_left_out: Vec<(Protocol, LeftOut)>,
}

/// The clients a suite measures over one protocol, and those of the run it leaves out there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProtocolPlan {
    pub protocol: Protocol,
    /// In table order.
    pub clients: Vec<ClientName>,
    /// The larger answers (bytes) each client is also called for (the latency suite over
    /// http); empty elsewhere.
    pub bodies: Vec<u64>,
    pub left_out: Vec<(ClientName, LeftOut)>,
}

/// A program the bench runs that is not part of it (the runner's process layer looks for
/// each).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tool {
    /// Builds the adoption and releases suites' probes; `CARGO` when set.
    Cargo,
    /// Names the host the probes are built for; `RUSTC` when set.
    Rustc,
    /// Lists a probe's shared libraries (binutils).
    Readelf,
    /// The cost suite's callgrind.
    Valgrind,
    /// Drives callgrind in a running service (ships with valgrind).
    Vgdb,
    /// The resilience suite's reference load generator.
    Wrk,
    /// Makes the resolution suite's network namespace (iproute2).
    Ip,
}

impl Tool {
    pub const ALL: [Self; 7] = [
        Self::Cargo,
        Self::Rustc,
        Self::Readelf,
        Self::Valgrind,
        Self::Vgdb,
        Self::Wrk,
        Self::Ip,
    ];

    /// Its program's name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Cargo => "cargo",
            Self::Rustc => "rustc",
            Self::Readelf => "readelf",
            Self::Valgrind => "valgrind",
            Self::Vgdb => "vgdb",
            Self::Wrk => "wrk",
            Self::Ip => "ip",
        }
    }
}

impl fmt::Display for Tool {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.name())
    }
}

/// Why a suite of the run does not run at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "cause")]
pub enum SuiteSkip {
    /// A program it runs is not on the machine.
    Missing { tool: Tool },
    /// It needs root (a network namespace of its own).
    NeedsRoot,
    /// It needs the bench's own mock-rates (and payment service): it sets their faults and
    /// timeouts, reads their counts, stops and restarts them or reads their processes; the
    /// run was given servers by URL (`--mock-url`, `--api-url`).
    ServersGiven,
    /// No client of the run speaks plain HTTP, the only protocol it measures over.
    NoHttpClient,
}

/// Why a pair (a client over a protocol, or a protocol for a suite) has no rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeftOut {
    /// The client cannot speak the protocol: ureq speaks HTTP/1.1 only, by design.
    CannotSpeak,
    /// Over plain HTTP, another TLS backend is its library's default client with a TLS
    /// connector that is never used: a row only when named with `--clients`.
    BackendUnusedOverHttp,
    /// Over h2, another TLS backend: its TLS is what the https rows measure; a row only when
    /// named.
    BackendMeasuredOverHttps,
    /// A finding's setting ([`ClientName::setting_of`]): a row only when named.
    SettingOnlyWhenNamed,
    /// The suite measures connection set-up, where HTTP/2 adds only its preface to the https
    /// handshake.
    SetUpIsHttps,
    /// The suite's method does not depend on the protocol; it runs over plain HTTP.
    HttpOnly,
    /// The resilience suite runs over TLS only with `--resilience-tls`.
    ResilienceTlsNotAsked,
    /// The suite drives the payment service over TLS, which needs the bench's own mock-rates
    /// and service: `--mock-url` or `--api-url` gave servers over plain HTTP.
    ServersGiven,
}

impl fmt::Display for LeftOut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LeftOut::CannotSpeak => "it cannot speak the protocol",
            LeftOut::BackendUnusedOverHttp => {
                "another TLS backend is its library's client over plain HTTP; named with \
                 --clients it is a row"
            }
            LeftOut::BackendMeasuredOverHttps => {
                "another TLS backend's TLS is what the https rows measure; named with --clients \
                 it is a row"
            }
            LeftOut::SettingOnlyWhenNamed => "a finding's setting is a row only when named",
            LeftOut::SetUpIsHttps => {
                "it measures connection set-up, where HTTP/2 adds only its preface to https's"
            }
            LeftOut::HttpOnly => "its method does not depend on the protocol: http only",
            LeftOut::ResilienceTlsNotAsked => "over TLS only with --resilience-tls",
            LeftOut::ServersGiven => {
                "it needs the bench's own mock-rates and payment service, and --mock-url or \
                 --api-url gives servers over plain HTTP"
            }
        })
    }
}

impl RunPlan {
    /// The plan of a run with `settings`.
    pub(crate) fn of(settings: &RunSettings) -> Self {
        let mut plan = Self {
            suites: Vec::with_capacity(settings.suites.len()),
            protocols: settings.protocols.clone(),
            clients: settings.clients.clone(),
            clients_named: settings.clients_named,
        };
        plan.suites = settings
            .suites
            .iter()
            .map(|&suite| plan.suite_plan(settings, suite))
            .collect();
        plan
    }

    fn suite_plan(&self, settings: &RunSettings, suite: SuiteName) -> SuitePlan {
        let mut over = Vec::new();
        let mut protocols_left_out = Vec::new();
        for &protocol in &self.protocols {
            let why = suite_left_out(suite, protocol, settings.resilience.over_tls).or_else(|| {
                (drives_service_over_protocols(suite)
                    && protocol.is_tls()
                    && settings.servers_given())
                .then_some(LeftOut::ServersGiven)
            });
            if let Some(why) = why {
                protocols_left_out.push((protocol, why));
                continue;
            }
            let (mut clients, mut left_out) = self.split(protocol);
            // The row of the setting the suite's method is about, by default.
            let setting = match suite {
                SuiteName::Resolution => Some(ClientName::ReqwestHickoryDns),
                SuiteName::Idle | SuiteName::Wan => Some(ClientName::ReqwestRetry),
                _ => None,
            };
            if let Some(setting) = setting {
                with_setting_row(&mut clients, &mut left_out, setting);
            }
            // A probe is a library with its TLS backend, whatever the protocol: every pair as
            // users get it, a finding's setting only when named.
            if matches!(
                suite,
                SuiteName::Adoption | SuiteName::Dependencies | SuiteName::Releases
            ) {
                clients = self.listed();
                left_out = self
                    .clients
                    .iter()
                    .filter(|client| !clients.contains(client))
                    .map(|&client| (client, LeftOut::SettingOnlyWhenNamed))
                    .collect();
            }
            let bodies = if suite == SuiteName::Latency && protocol == Protocol::Http {
                settings.latency_body_sizes.clone()
            } else {
                Vec::new()
            };
            over.push(ProtocolPlan {
                protocol,
                clients,
                bodies,
                left_out,
            });
        }
        let skipped = suite_skipped(suite, settings, &over);
        SuitePlan {
            suite,
            skipped,
            over,
            protocols_left_out,
        }
    }

    /// Every suite of the run, in its order.
    pub fn suites(&self) -> &[SuitePlan] {
        &self.suites
    }

    /// Why `suite` does not run, when the run takes it but cannot run it.
    pub fn skipped(&self, suite: SuiteName) -> Option<SuiteSkip> {
        self.suite(suite)?.skipped
    }

    /// `suite`'s part, when the run takes it.
    pub fn suite(&self, suite: SuiteName) -> Option<&SuitePlan> {
        self.suites.iter().find(|plan| plan.suite == suite)
    }

    /// The protocols `suite` measures over, in the run's order (none when the run does not
    /// take it).
    pub fn protocols(&self, suite: SuiteName) -> Vec<Protocol> {
        self.suite(suite)
            .map(|plan| plan.over.iter().map(|over| over.protocol).collect())
            .unwrap_or_default()
    }

    /// Whether `suite` measures over `protocol` in this run.
    pub fn runs(&self, suite: SuiteName, protocol: Protocol) -> bool {
        self.protocols(suite).contains(&protocol)
    }

    /// The clients `suite` measures over `protocol`, in table order (none when it does not run
    /// over it).
    pub fn clients(&self, suite: SuiteName, protocol: Protocol) -> Vec<ClientName> {
        self.over(suite, protocol)
            .map(|over| over.clients.clone())
            .unwrap_or_default()
    }

    /// How many (client, protocol) pairs `suite` measures: its progress bar's units.
    pub fn pairs(&self, suite: SuiteName) -> usize {
        self.protocols(suite)
            .iter()
            .map(|&protocol| self.clients(suite, protocol).len())
            .sum()
    }

    /// `suite` over `protocol`, when it runs over it.
    pub fn over(&self, suite: SuiteName, protocol: Protocol) -> Option<&ProtocolPlan> {
        self.suite(suite)?
            .over
            .iter()
            .find(|over| over.protocol == protocol)
    }

    /// The clients of the run measured over `protocol` by the suites that measure clients
    /// over each protocol (the header's line per protocol), in table order: every one named
    /// with `--clients`; by default, over plain HTTP only the libraries' default backends (see
    /// [`ClientProtocols::measured_by_default_over`](crate::ClientProtocols)).
    pub fn clients_over(&self, protocol: Protocol) -> Vec<ClientName> {
        self.split(protocol).0
    }

    /// The run's clients over `protocol`: those measured, and those left out with why.
    fn split(&self, protocol: Protocol) -> (Vec<ClientName>, Vec<(ClientName, LeftOut)>) {
        let mut clients = Vec::new();
        let mut left_out = Vec::new();
        for &client in &self.clients {
            match self.client_left_out(client, protocol) {
                None => clients.push(client),
                Some(why) => left_out.push((client, why)),
            }
        }
        (clients, left_out)
    }

    /// Why `client` has no rows over `protocol` in this run, if it has none.
    fn client_left_out(&self, client: ClientName, protocol: Protocol) -> Option<LeftOut> {
        if !client.speaks(protocol) {
            return Some(LeftOut::CannotSpeak);
        }
        if self.clients_named || client.measured_by_default_over(protocol) {
            return None;
        }
        Some(if client.setting_of().is_some() {
            LeftOut::SettingOnlyWhenNamed
        } else if protocol == Protocol::H2 {
            LeftOut::BackendMeasuredOverHttps
        } else {
            LeftOut::BackendUnusedOverHttp
        })
    }

    /// The clients of the run, whatever the protocol, in table order: every one named with
    /// `--clients`; by default the pairs as users get them, without the rows of an adapter
    /// setting ([`ClientName::setting_of`]), which share their pair's crates.
    pub fn listed(&self) -> Vec<ClientName> {
        self.clients
            .iter()
            .copied()
            .filter(|client| self.clients_named || client.setting_of().is_none())
            .collect()
    }

    /// The clients of the run that cannot speak `protocol` at all (ureq over h2), for the
    /// tables to name why they have no rows: by their library's name unless named.
    pub fn unable(&self, protocol: Protocol) -> Vec<ClientName> {
        let mut unable: Vec<ClientName> = Vec::new();
        for &client in &self.clients {
            let shown = if self.clients_named {
                client
            } else {
                client.library_default()
            };
            if !client.speaks(protocol) && !unable.contains(&shown) {
                unable.push(shown);
            }
        }
        unable
    }

    /// The protocols over which a suite of the run drives the payment service (load and
    /// fanout), so that a service of its own calling a mock-rates over TLS is needed for each
    /// that is `https` or `h2`.
    pub fn service_protocols(&self) -> Vec<Protocol> {
        self.protocols
            .iter()
            .copied()
            .filter(|&protocol| {
                self.suites.iter().any(|plan| {
                    drives_service_over_protocols(plan.suite)
                        && plan.over.iter().any(|over| over.protocol == protocol)
                })
            })
            .collect()
    }

    /// Whether a suite that runs calls the run's mock-rates over plain HTTP, so that it is
    /// started (or, with `--upstream-url`, the upstream stands in for it).
    pub fn needs_mock(&self) -> bool {
        self.running()
            .any(|plan| plan.suite.needs_mock() || plan.suite.needs_api())
    }

    /// Whether a suite that runs drives the run's payment service over plain HTTP, so that
    /// it is started.
    pub fn needs_api(&self) -> bool {
        self.running().any(|plan| {
            plan.suite.needs_api() && plan.over.iter().any(|over| over.protocol == Protocol::Http)
        })
    }

    /// The suites that run: those the plan does not skip.
    fn running(&self) -> impl Iterator<Item = &SuitePlan> {
        self.suites.iter().filter(|plan| plan.skipped.is_none())
    }

    /// The suites of the run that drive the payment service over each protocol.
    pub fn service_suites(&self) -> Vec<SuiteName> {
        self.suites
            .iter()
            .map(|plan| plan.suite)
            .filter(|&suite| drives_service_over_protocols(suite))
            .collect()
    }
}

/// Whether `suite` drives the payment service over each of the run's protocols, so that
/// `https` and `h2` need a service of their own calling a mock-rates over TLS.
fn drives_service_over_protocols(suite: SuiteName) -> bool {
    matches!(suite, SuiteName::Load | SuiteName::Fanout)
}

/// Why `suite` does not run at all with `settings`, measuring `over`: a machine that lacks
/// what it needs (known only for runs that recorded `settings.machine`), or servers it cannot
/// use.
fn suite_skipped(
    suite: SuiteName,
    settings: &RunSettings,
    over: &[ProtocolPlan],
) -> Option<SuiteSkip> {
    let machine = settings.machine;
    let lacks = |has: fn(&MachineAbilities) -> bool| machine.is_some_and(|machine| !has(&machine));
    match suite {
        SuiteName::Cost if lacks(|machine| machine.valgrind) => Some(SuiteSkip::Missing {
            tool: Tool::Valgrind,
        }),
        SuiteName::Idle | SuiteName::Resilience if settings.servers_given() => {
            Some(SuiteSkip::ServersGiven)
        }
        SuiteName::Resolution if over.iter().all(|over| over.clients.is_empty()) => {
            Some(SuiteSkip::NoHttpClient)
        }
        SuiteName::Resolution if lacks(|machine| machine.root) => Some(SuiteSkip::NeedsRoot),
        SuiteName::Resolution if lacks(|machine| machine.ip_netns) => {
            Some(SuiteSkip::Missing { tool: Tool::Ip })
        }
        SuiteName::Wan if settings.servers_given() => Some(SuiteSkip::ServersGiven),
        SuiteName::Wan if lacks(|machine| machine.root) => Some(SuiteSkip::NeedsRoot),
        SuiteName::Wan if lacks(|machine| machine.ip_netns) => {
            Some(SuiteSkip::Missing { tool: Tool::Ip })
        }
        _ => None,
    }
}

/// Why `suite` leaves out `protocol`, one of the run's, if it does. HTTP/2 changes how calls
/// share connections, which latency, load and fanout show, what a call costs, which cost
/// counts, and what a pool holds, which memory reads; the connections suite measures connection set-up, where HTTP/2 adds only its
/// preface to the https handshake; resilience runs over TLS when asked to.
fn suite_left_out(suite: SuiteName, protocol: Protocol, resilience_tls: bool) -> Option<LeftOut> {
    match suite {
        SuiteName::Latency
        | SuiteName::Load
        | SuiteName::Fanout
        | SuiteName::Cost
        | SuiteName::Memory
        | SuiteName::Wan => None,
        SuiteName::Connections => (protocol == Protocol::H2).then_some(LeftOut::SetUpIsHttps),
        SuiteName::Resilience => {
            (protocol.is_tls() && !resilience_tls).then_some(LeftOut::ResilienceTlsNotAsked)
        }
        SuiteName::Decode
        | SuiteName::Faults
        | SuiteName::Idle
        | SuiteName::Resolution
        | SuiteName::Adoption
        | SuiteName::Dependencies
        // Its probes take every protocol against mock-rates of its own: one plan, over http.
        | SuiteName::Releases => (protocol != Protocol::Http).then_some(LeftOut::HttpOnly),
    }
}

/// A suite's clients with the row of the setting its method is about, after the pair the
/// setting changes, when that pair is one of them and the row was not named already (and so no
/// longer left out): reqwest's hickory-dns row for the resolution suite, its retry row for the
/// idle suite.
fn with_setting_row(
    clients: &mut Vec<ClientName>,
    left_out: &mut Vec<(ClientName, LeftOut)>,
    setting: ClientName,
) {
    let Some(pair) = setting.setting_of() else {
        return;
    };
    if clients.contains(&pair) && !clients.contains(&setting) {
        clients.push(setting);
        left_out.retain(|&(client, _)| client != setting);
    }
}

/// The suites that measure their clients over `protocol` when a run names it, and those that
/// do with `--resilience-tls`: what `--help` and docs/suites.md say of each protocol.
pub fn suites_over(protocol: Protocol) -> (Vec<SuiteName>, Vec<SuiteName>) {
    let every = SuiteName::ALL.into_iter().chain([SuiteName::Adoption]);
    let always: Vec<SuiteName> = every
        .clone()
        .filter(|&suite| suite_left_out(suite, protocol, false).is_none())
        .collect();
    let asked = every
        .filter(|&suite| {
            !always.contains(&suite) && suite_left_out(suite, protocol, true).is_none()
        })
        .collect();
    (always, asked)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rows::default_settings;

    #[test]
    fn a_default_run_measures_the_default_backends_and_says_why_not_the_others() {
        let plan = RunPlan::of(&default_settings());
        let latency_h2 = plan.over(SuiteName::Latency, Protocol::H2).unwrap();
        assert_eq!(
            latency_h2.clients,
            [
                ClientName::Hyper,
                ClientName::Awc,
                ClientName::Reqwest,
                ClientName::ReqwestBlocking,
                ClientName::Isahc
            ]
        );
        assert!(
            latency_h2
                .left_out
                .contains(&(ClientName::Ureq, LeftOut::CannotSpeak))
        );
        assert!(
            latency_h2
                .left_out
                .contains(&(ClientName::AwcOpenssl, LeftOut::BackendMeasuredOverHttps))
        );
        let latency_http = plan.over(SuiteName::Latency, Protocol::Http).unwrap();
        assert!(
            latency_http
                .left_out
                .contains(&(ClientName::ReqwestNativeTls, LeftOut::BackendUnusedOverHttp))
        );
        assert!(
            latency_http
                .left_out
                .contains(&(ClientName::UreqInlineIp, LeftOut::SettingOnlyWhenNamed))
        );
        assert!(
            plan.clients(SuiteName::Load, Protocol::Https)
                .contains(&ClientName::UreqNativeTls)
        );
    }

    #[test]
    fn each_suite_runs_over_the_protocols_its_method_needs() {
        let mut settings = default_settings();
        settings.suites = SuiteName::ALL.to_vec();
        settings.protocols = Protocol::ALL.to_vec();
        settings.resilience.over_tls = false;
        let plan = RunPlan::of(&settings);
        let all = Protocol::ALL.to_vec();
        for suite in [
            SuiteName::Latency,
            SuiteName::Cost,
            SuiteName::Load,
            SuiteName::Fanout,
        ] {
            assert_eq!(plan.protocols(suite), all, "{suite}");
        }
        assert_eq!(
            plan.protocols(SuiteName::Connections),
            [Protocol::Http, Protocol::Https]
        );
        assert_eq!(
            plan.suite(SuiteName::Connections)
                .unwrap()
                .protocols_left_out,
            [(Protocol::H2, LeftOut::SetUpIsHttps)]
        );
        for suite in [
            SuiteName::Decode,
            SuiteName::Faults,
            SuiteName::Idle,
            SuiteName::Resolution,
            SuiteName::Dependencies,
            SuiteName::Resilience,
        ] {
            assert_eq!(plan.protocols(suite), [Protocol::Http], "{suite}");
        }
        settings.resilience.over_tls = true;
        assert_eq!(RunPlan::of(&settings).protocols(SuiteName::Resilience), all);
        // The service is driven over TLS by load and fanout only.
        assert_eq!(plan.service_suites(), [SuiteName::Load, SuiteName::Fanout]);
        assert_eq!(plan.service_protocols(), all);
    }

    #[test]
    fn the_protocols_follow_the_run_and_a_suite_not_run_has_none() {
        let mut settings = default_settings();
        settings.suites = vec![SuiteName::Latency];
        settings.protocols = vec![Protocol::H2, Protocol::Http];
        let plan = RunPlan::of(&settings);
        assert_eq!(
            plan.protocols(SuiteName::Latency),
            [Protocol::H2, Protocol::Http]
        );
        assert!(plan.protocols(SuiteName::Load).is_empty());
        assert!(plan.clients(SuiteName::Load, Protocol::Http).is_empty());
        assert!(plan.service_protocols().is_empty());
    }

    #[test]
    fn larger_answers_are_the_latency_suites_over_http() {
        let mut settings = default_settings();
        settings.suites = vec![SuiteName::Latency, SuiteName::Load];
        settings.latency_body_sizes = vec![16_384, 1_048_576];
        let plan = RunPlan::of(&settings);
        assert_eq!(
            plan.over(SuiteName::Latency, Protocol::Http)
                .unwrap()
                .bodies,
            [16_384, 1_048_576]
        );
        assert!(
            plan.over(SuiteName::Latency, Protocol::Https)
                .unwrap()
                .bodies
                .is_empty()
        );
        assert!(
            plan.over(SuiteName::Load, Protocol::Http)
                .unwrap()
                .bodies
                .is_empty()
        );
    }

    #[test]
    fn the_resolution_suite_adds_reqwests_resolver_row_once() {
        let mut settings = default_settings();
        settings.suites = vec![SuiteName::Resolution];
        let clients = RunPlan::of(&settings).clients(SuiteName::Resolution, Protocol::Http);
        let rows = clients
            .iter()
            .filter(|&&client| client == ClientName::ReqwestHickoryDns)
            .count();
        assert_eq!(rows, 1);
        settings.clients = vec![ClientName::Hyper, ClientName::Ureq];
        settings.clients_named = true;
        assert_eq!(
            RunPlan::of(&settings).clients(SuiteName::Resolution, Protocol::Http),
            [ClientName::Hyper, ClientName::Ureq]
        );
    }

    #[test]
    fn the_idle_suite_adds_reqwests_retry_row_after_reqwest_and_no_other_suite_does() {
        let mut settings = default_settings();
        settings.suites = SuiteName::ALL.to_vec();
        let plan = RunPlan::of(&settings);
        let idle = plan.over(SuiteName::Idle, Protocol::Http).unwrap();
        assert_eq!(
            idle.clients,
            [
                ClientName::Hyper,
                ClientName::Awc,
                ClientName::Reqwest,
                ClientName::Ureq,
                ClientName::ReqwestBlocking,
                ClientName::Isahc,
                ClientName::ReqwestRetry
            ]
        );
        assert!(
            idle.left_out
                .iter()
                .all(|&(client, _)| client != ClientName::ReqwestRetry)
        );
        for suite in SuiteName::ALL
            .into_iter()
            .filter(|&suite| suite != SuiteName::Idle)
        {
            for protocol in plan.protocols(suite) {
                assert!(
                    !plan
                        .clients(suite, protocol)
                        .contains(&ClientName::ReqwestRetry),
                    "{suite} over {protocol}"
                );
            }
        }
        // Without reqwest, no row of its setting; named, the row is where it was named.
        settings.suites = vec![SuiteName::Idle];
        settings.clients_named = true;
        settings.clients = vec![ClientName::Hyper, ClientName::Isahc];
        assert_eq!(
            RunPlan::of(&settings).clients(SuiteName::Idle, Protocol::Http),
            [ClientName::Hyper, ClientName::Isahc]
        );
        settings.clients = vec![ClientName::ReqwestRetry, ClientName::Reqwest];
        assert_eq!(
            RunPlan::of(&settings).clients(SuiteName::Idle, Protocol::Http),
            [ClientName::ReqwestRetry, ClientName::Reqwest]
        );
    }

    #[test]
    fn named_clients_are_measured_over_every_protocol_they_speak() {
        let mut settings = default_settings();
        settings.clients = vec![ClientName::UreqInlineIp, ClientName::AwcOpenssl];
        settings.clients_named = true;
        let plan = RunPlan::of(&settings);
        assert_eq!(
            plan.clients_over(Protocol::Http),
            [ClientName::UreqInlineIp, ClientName::AwcOpenssl]
        );
        assert_eq!(plan.clients_over(Protocol::H2), [ClientName::AwcOpenssl]);
        assert_eq!(plan.unable(Protocol::H2), [ClientName::UreqInlineIp]);
        assert_eq!(plan.listed(), settings.clients);
    }

    #[test]
    fn narrowing_the_protocols_keeps_their_order_and_says_what_went() {
        let mut settings = default_settings();
        settings.protocols = Protocol::ALL.to_vec();
        let gone = settings.leave_out_protocols(Protocol::is_tls);
        assert_eq!(gone, [Protocol::Http]);
        assert_eq!(settings.protocols, [Protocol::Https, Protocol::H2]);
    }
}
