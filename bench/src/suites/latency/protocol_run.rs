//! Everything measured over one protocol: the clients built against its mock, and the rounds
//! in which they are called.

use application::{Quotes, RatesProvider};
use domain::CurrencyPair;
use rates_common::ClientSettings;

use crate::clients::MockAdmin;
use crate::error::BenchError;
use crate::measure::process::ProcessCpu;
use crate::servers::MockEndpoint;
use crate::suites::adapters;
use crate::suites::bare::BareCall;
use crate::suites::calibration::MinimalClient;
use crate::suites::latency::rows::Part;
use crate::suites::latency::sampled::{ClientRun, Sampled, Timed, counting};
use bench_model::SuiteName;
use bench_model::{ClientName, Decode, Protocol, Run};

/// Everything measured over one protocol.
pub(super) struct ProtocolRun<'m> {
    pub(super) protocol: Protocol,
    /// How its clients decode the answer.
    pub(super) decode: Decode,
    pub(super) mock: &'m MockEndpoint,
    pub(super) admin: MockAdmin<'m>,
    pub(super) providers: Vec<Box<dyn RatesProvider>>,
    pub(super) bare_calls: Vec<BareCall>,
    pub(super) runs: Vec<ClientRun>,
    /// The minimal client and its samples (the pinned part only).
    pub(super) calibration: Option<(MinimalClient, Sampled)>,
}

impl<'m> ProtocolRun<'m> {
    /// The clients over `protocol` that decode the answer as `decode` says, each built twice
    /// (through the port, and bare), and the minimal client, all against `mock`.
    pub(super) async fn build(
        settings: &Run,
        (mock, protocol, decode): (&'m MockEndpoint, Protocol, Decode),
        part: Part,
        pairs: &[CurrencyPair],
    ) -> Result<Self, BenchError> {
        let defaults = ClientSettings::for_base_url(part.base_url(mock.base_url()));
        let client_settings = ClientSettings {
            extra_ca_pem: mock.ca_pem().cloned(),
            http_version: adapters::http_version(protocol),
            // Room for a larger answer, twice over; the ordinary limit otherwise.
            max_body_bytes: part.body_bytes().map_or(defaults.max_body_bytes, |bytes| {
                usize::try_from(bytes.saturating_mul(2))
                    .unwrap_or(usize::MAX)
                    .max(defaults.max_body_bytes)
            }),
            decode: adapters::body_decode(decode),
            ..defaults
        };
        let clients: Vec<ClientName> = settings
            .plan()
            .clients(SuiteName::Latency, protocol)
            .into_iter()
            .filter(|&name| adapters::decodes(name).contains(&client_settings.decode))
            .collect();
        let mut run = Self {
            protocol,
            decode,
            mock,
            admin: mock.admin(),
            providers: Vec::with_capacity(clients.len()),
            bare_calls: Vec::with_capacity(clients.len()),
            runs: Vec::with_capacity(clients.len()),
            calibration: None,
        };
        for &name in &clients {
            run.providers.push(adapters::build(name, &client_settings)?);
            let bare_adapter = adapters::client(name).build(&client_settings)?;
            run.bare_calls.push(
                BareCall::new(bare_adapter, &client_settings, pairs)
                    .map_err(|why| BenchError::Latency(format!("{name}'s bare call: {why}")))?,
            );
            run.runs
                .push(ClientRun::new(name, settings, part.body_bytes().is_some()));
        }
        if part == Part::Pinned && mock.is_foreign() {
            eprintln!(
                "bench: latency: the calibration over {protocol} is not measured: it measures \
                 mock-rates' own cost, and the upstream is not mock-rates"
            );
        } else if part == Part::Pinned && decode == Decode::Whole {
            match MinimalClient::connect(
                mock.base_url(),
                mock.ca_pem().map(|pem| &pem[..]),
                protocol,
                pairs,
            )
            .await
            {
                Ok(client) => {
                    run.calibration = Some((client, Sampled::new(settings.samples as usize)));
                }
                Err(why) => eprintln!(
                    "bench: latency: the calibration over {protocol} is not measured: {why}"
                ),
            }
        }
        Ok(run)
    }

    pub(super) fn end_round(&mut self) {
        for run in &mut self.runs {
            run.port.end_round();
            run.bare.end_round();
        }
        if let Some((_, sampled)) = &mut self.calibration {
            sampled.end_round();
        }
    }

    /// The runs and the calibration's samples; the clients dropped (inside the runtime).
    pub(super) fn finish(self) -> (Protocol, Decode, Vec<ClientRun>, Option<Sampled>) {
        drop(self.providers);
        drop(self.bare_calls);
        (
            self.protocol,
            self.decode,
            self.runs,
            self.calibration.map(|(_, sampled)| sampled),
        )
    }
}

/// How the suite takes its calls.
pub(super) struct Round<'a> {
    pub(super) settings: &'a Run,
    pub(super) pairs: &'a [CurrencyPair],
    pub(super) bar: &'a indicatif::ProgressBar,
    /// Whether each client's bare call is sampled beside it.
    pub(super) bare: bool,
    /// Calls per sample, and un-timed calls before the first (fewer for a larger answer).
    pub(super) calls_per_sample: u32,
    pub(super) warmup_calls: u32,
}

impl Round<'_> {
    /// Every client's un-timed warm-up calls, through the port and bare, and the minimal
    /// client's.
    pub(super) async fn warm_up(&self, protocol: &mut ProtocolRun<'_>) {
        let (pairs, calls) = (self.pairs, self.warmup_calls);
        let admin = &protocol.admin;
        for ((run, provider), bare) in protocol
            .runs
            .iter_mut()
            .zip(&protocol.providers)
            .zip(&protocol.bare_calls)
        {
            self.bar
                .set_message(format!("warm-up {} over {}", run.name, protocol.protocol));
            let (outcome, _, _) = counting(admin, None, &mut run.port, pairs, calls, None, || {
                provider.fetch_quotes(pairs)
            })
            .await;
            run.port.note_error(outcome);
            if self.bare {
                let (outcome, _, _) =
                    counting(admin, None, &mut run.bare, pairs, calls, None, || {
                        bare.call(pairs)
                    })
                    .await;
                run.bare.note_error(outcome);
            }
            self.bar.inc(u64::from(calls));
        }
        if let Some((client, sampled)) = &mut protocol.calibration {
            let (outcome, _, _) = counting(admin, None, sampled, pairs, calls, None, || {
                client.call(pairs)
            })
            .await;
            sampled.note_error(outcome);
        }
    }

    /// `count` samples of every subject over `protocol` (samples `first..first + count` of
    /// the suite), interleaved: each client through the port beside one of its bare calls
    /// (port first in even samples, bare first in odd ones, so that neither always runs on a
    /// machine just warmed, or disturbed, by the other), and the minimal client.
    pub(super) async fn sample(&self, protocol: &mut ProtocolRun<'_>, first: u32, count: u32) {
        let settings = self.settings;
        let calls_per_sample = u64::from(self.calls_per_sample);
        let clients = protocol.runs.len();
        let subjects = clients + usize::from(protocol.calibration.is_some());
        let cpu = protocol.mock.cpu();
        for sample in first as usize..(first + count) as usize {
            // Rotate the start so that no subject always runs right after another one.
            for offset in 0..subjects {
                let index = (sample + offset) % subjects;
                if index == clients {
                    if let Some((client, sampled)) = &mut protocol.calibration {
                        self.timed(&protocol.admin, cpu, sampled, || client.call(self.pairs))
                            .await;
                    }
                    continue;
                }
                let run = &mut protocol.runs[index];
                self.bar.set_message(format!(
                    "sample {}/{} {} over {}",
                    sample + 1,
                    settings.samples,
                    run.name,
                    protocol.protocol
                ));
                let provider = &*protocol.providers[index];
                let bare_call = &protocol.bare_calls[index];
                let (admin, pairs) = (&protocol.admin, self.pairs);
                let port_first = sample % 2 == 0;
                if port_first {
                    self.through_port(admin, cpu, run, provider).await;
                }
                if self.bare {
                    self.timed(admin, None, &mut run.bare, || bare_call.call(pairs))
                        .await;
                }
                if !port_first {
                    self.through_port(admin, cpu, run, provider).await;
                }
                self.bar.inc(calls_per_sample);
            }
        }
    }

    /// One sample of `run`'s calls through the port, the mock's CPU read around it.
    pub(super) async fn through_port(
        &self,
        admin: &MockAdmin<'_>,
        cpu: Option<&ProcessCpu>,
        run: &mut ClientRun,
        provider: &dyn RatesProvider,
    ) {
        let calls = self.calls_per_sample;
        let (outcome, allocated, mock_cpu_ns) = counting(
            admin,
            cpu,
            &mut run.port,
            self.pairs,
            calls,
            Some(Timed {
                durations_ns: &mut run.call_ns,
                peak_bytes: run.peak_bytes.as_mut(),
            }),
            || provider.fetch_quotes(self.pairs),
        )
        .await;
        run.port.add_sample(outcome, calls, allocated, mock_cpu_ns);
    }

    /// One sample of `call` into `into`.
    pub(super) async fn timed<Call, Error>(
        &self,
        admin: &MockAdmin<'_>,
        cpu: Option<&ProcessCpu>,
        into: &mut Sampled,
        call: impl FnMut() -> Call,
    ) where
        Call: Future<Output = Result<Quotes, Error>>,
        Error: std::fmt::Display,
    {
        let calls = self.calls_per_sample;
        let (outcome, allocated, mock_cpu_ns) =
            counting(admin, cpu, into, self.pairs, calls, None, call).await;
        into.add_sample(outcome, calls, allocated, mock_cpu_ns);
    }
}
