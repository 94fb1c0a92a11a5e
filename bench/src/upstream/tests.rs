//! The flags' resolution: protocols from the scheme, suites restricted, what each row says.

use clap::Parser as _;

use super::*;
use crate::cli::{self, Cli};
use bench_model::SuiteName;

fn parsed(args: &[&str]) -> Result<Cli, clap::Error> {
    Cli::try_parse_from(std::iter::once("bench").chain(args.iter().copied()))
}

fn restricted(args: &[&str]) -> Result<(RunSettings, Vec<String>), UpstreamError> {
    let cli = parsed(args).unwrap();
    let mut settings = cli::resolve(&cli);
    let target = GivenUpstream::from_args(&cli.upstream)?.expect("--upstream-url given");
    let lines = target.restrict(&mut settings)?;
    Ok((settings, lines))
}

#[test]
fn the_scheme_gives_the_protocols() {
    let (https, _) = restricted(&["--upstream-url", "https://localhost:8443/"]).unwrap();
    assert_eq!(https.protocols, [Protocol::Https, Protocol::H2]);
    let upstream = https.foreign_upstream.as_ref().unwrap();
    assert_eq!(upstream.url, "https://localhost:8443");
    assert!(upstream.foreign);
    assert_eq!(upstream.ca_file, None);
    assert!(
        https.mock.contains("https://localhost:8443"),
        "{}",
        https.mock
    );
    let (http, _) = restricted(&["--upstream-url", "http://127.0.0.1:9000"]).unwrap();
    assert_eq!(http.protocols, [Protocol::Http]);
    // Asked for protocols: those the scheme allows, and a line for the others.
    let (asked, lines) = restricted(&[
        "--upstream-url",
        "https://localhost:8443",
        "--protocol",
        "http,h2",
    ])
    .unwrap();
    assert_eq!(asked.protocols, [Protocol::H2]);
    assert!(lines.iter().any(|line| line.starts_with("http left out")));
    assert!(matches!(
        restricted(&["--upstream-url", "http://a", "--protocol", "h2"]),
        Err(UpstreamError::NoProtocol { .. })
    ));
}

#[test]
fn only_latency_connections_and_load_run_and_the_others_say_why() {
    let (settings, lines) = restricted(&["--upstream-url", "https://localhost:8443"]).unwrap();
    assert_eq!(
        settings.suites,
        [SuiteName::Latency, SuiteName::Connections, SuiteName::Load]
    );
    // One line per suite left out of the default run, each naming the suite.
    for suite in SuiteName::ALL {
        let said = lines
            .iter()
            .filter(|line| line.starts_with(&format!("{suite}: skipped")))
            .count();
        assert_eq!(
            said,
            usize::from(!suite.measures_a_given_upstream()),
            "{suite}"
        );
    }
    assert!(lines.iter().any(|line| {
        line.starts_with("faults: skipped with --upstream-url: it needs mock-rates' faults")
    }));
    let upstream = settings.foreign_upstream.unwrap();
    assert_eq!(upstream.left_out_suites.len(), 9);
    assert!(upstream.left_out_suites.contains(&SuiteName::Faults));
    let (one, _) = restricted(&[
        "--upstream-url",
        "https://localhost:8443",
        "--suite",
        "latency",
        "--suite",
        "faults",
    ])
    .unwrap();
    assert_eq!(one.suites, [SuiteName::Latency]);
    assert!(matches!(
        restricted(&["--upstream-url", "https://a", "--suite", "decode"]),
        Err(UpstreamError::NoSuite)
    ));
}

#[test]
fn the_flags_are_checked() {
    // --ca-file needs --upstream-url, and an https:// one.
    assert!(parsed(&["--ca-file", "ca.pem"]).is_err());
    assert!(matches!(
        restricted(&["--upstream-url", "http://a", "--ca-file", "ca.pem"]),
        Err(UpstreamError::CaFileWithoutTls(_))
    ));
    // Not with the mock-rates or the payment service given by URL.
    assert!(parsed(&["--upstream-url", "https://a", "--mock-url", "http://b"]).is_err());
    assert!(parsed(&["--upstream-url", "https://a", "--api-url", "http://b"]).is_err());
    for wrong in [
        "ftp://a",
        "https://",
        "https://a/?pairs=EURUSD",
        "localhost:8443",
    ] {
        assert!(
            matches!(
                restricted(&["--upstream-url", wrong]),
                Err(UpstreamError::Url { .. })
            ),
            "{wrong}"
        );
    }
    let cli = parsed(&[
        "--upstream-url",
        "https://a",
        "--ca-file",
        "/nonexistent/ca.pem",
    ]);
    let target = GivenUpstream::from_args(&cli.unwrap().upstream)
        .unwrap()
        .unwrap();
    assert!(matches!(target.ca_pem(), Err(UpstreamError::CaFile { .. })));
    // Without --upstream-url: nothing changes.
    let cli = parsed(&[]).unwrap();
    assert_eq!(GivenUpstream::from_args(&cli.upstream).unwrap(), None);
    assert_eq!(cli::resolve(&cli).foreign_upstream, None);
}
