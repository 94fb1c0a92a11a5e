//! A process that built the isahc adapter for an `https://` upstream and made a call, then was
//! killed with SIGKILL (as the bench ends the payment service), leaves no file in its `TMPDIR`.
//!
//! The test runs itself again as a child (this binary, this test alone), with `TMPDIR` set to a
//! fresh directory and the address and CA of a mock-rates over TLS that the parent started. The
//! child builds the adapter, makes one verified call, says so on stdout and waits on stdin; the
//! parent kills it once it has said so. No timing: each step waits for the one before.

use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Command, Stdio};
use std::sync::Arc;

use application::RatesProvider as _;
use domain::{Currency, CurrencyPair};
use mock_rates::{MockServer, Settings, TlsSettings};
use rates_common::ClientSettings;
use rates_isahc::IsahcRates;

/// Set in the child: the mock's base URL.
const CHILD_URL: &str = "RATES_ISAHC_LEAVES_NOTHING_URL";
/// Set in the child: the mock's CA, PEM.
const CHILD_CA: &str = "RATES_ISAHC_LEAVES_NOTHING_CA";
/// What the child prints once its call over https has been answered.
const CALLED: &str = "rates-isahc child: called over https";

#[test]
fn a_process_killed_after_a_call_over_https_leaves_no_file_in_its_tmpdir() {
    if let (Ok(url), Ok(ca)) = (std::env::var(CHILD_URL), std::env::var(CHILD_CA)) {
        return child(url, &ca);
    }
    let mock = MockServer::start(Settings {
        tls: Some(TlsSettings::default()),
        ..Settings::default()
    })
    .expect("mock-rates starts on 127.0.0.1:0");
    let tmpdir = tempfile::tempdir().expect("a temporary directory");
    let mut child = Command::new(std::env::current_exe().expect("this test's binary"))
        .args([
            "--exact",
            "a_process_killed_after_a_call_over_https_leaves_no_file_in_its_tmpdir",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_URL, mock.base_url())
        .env(CHILD_CA, mock.ca_pem().expect("a TLS mock has a CA"))
        .env("TMPDIR", tmpdir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the child starts");
    let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
    let (mut said, mut called) = (Vec::new(), false);
    for line in stdout.lines() {
        let line = line.expect("the child's stdout");
        // After the harness's `test NAME ... `, on the same line.
        if line.ends_with(CALLED) {
            called = true;
            break;
        }
        said.push(line);
    }
    if !called {
        let status = child.wait().expect("the child is waited for");
        panic!(
            "the child ended without calling ({status}):\n{}",
            said.join("\n")
        );
    }
    let while_alive = entries(tmpdir.path());
    child.kill().expect("SIGKILL sent"); // `Child::kill` is SIGKILL on Unix
    let status = child.wait().expect("the child is waited for");
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(9),
        "{status}"
    );
    assert_eq!(
        entries(tmpdir.path()),
        Vec::<String>::new(),
        "after SIGKILL"
    );
    assert_eq!(while_alive, Vec::<String>::new(), "while the child ran");
    let counted = mock.state().stats();
    assert_eq!(counted.live_requests, 1, "{counted:?}");
}

/// The child's part: one call over https through the adapter, then wait to be killed.
fn child(url: String, ca: &str) {
    let settings = ClientSettings {
        extra_ca_pem: Some(Arc::from(ca.as_bytes())),
        ..ClientSettings::for_base_url(url)
    };
    let rates = IsahcRates::new(&settings).expect("the adapter builds");
    let pair = CurrencyPair::new(
        Currency::parse("EUR").expect("EUR"),
        Currency::parse("USD").expect("USD"),
    );
    let quotes = actix_rt::System::new()
        .block_on(rates.fetch_quotes(&[pair]))
        .expect("the call over https is answered");
    assert_eq!(quotes.len(), 1);
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{CALLED}")
        .and_then(|()| stdout.flush())
        .expect("stdout");
    drop(stdout);
    // Until killed (or until the parent is gone and stdin closes).
    let _ = std::io::stdin().read_line(&mut String::new());
}

fn entries(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("TMPDIR is readable")
        .map(|entry| {
            entry
                .expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect()
}
