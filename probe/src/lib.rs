//! A one-shot HTTP health probe over `std::net`, for container health checks without curl.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::process::ExitCode;
use std::time::Duration;

/// Bound on each step of a `--probe` run: under compose's 3 s health-check timeout.
const STEP_TIMEOUT: Duration = Duration::from_secs(2);

/// A binary's `--probe URL`: GETs `url` once; success on HTTP 200, failure otherwise, with the
/// reason on stderr prefixed by `program`.
pub fn run(program: &str, url: &str) -> ExitCode {
    match probe(url, STEP_TIMEOUT) {
        Ok(200) => ExitCode::SUCCESS,
        Ok(status) => {
            eprintln!("{program} probe: {url} answered {status}");
            ExitCode::FAILURE
        }
        Err(error) => {
            eprintln!("{program} probe: {url}: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Sends one `GET` to a plain `http://` URL and returns the response status.
///
/// Each step (connect, write, read) is bounded by `timeout`.
pub fn probe(url: &str, timeout: Duration) -> io::Result<u16> {
    let invalid = |message: &str| io::Error::new(io::ErrorKind::InvalidInput, message.to_owned());
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| invalid("the probe URL must start with http://"))?;
    let (authority, path) = match rest.find('/') {
        Some(slash) => rest.split_at(slash),
        None => (rest, "/"),
    };
    if authority.is_empty() {
        return Err(invalid("the probe URL has no host"));
    }
    let with_port = if authority
        .rsplit_once(':')
        .is_some_and(|(_, port)| port.parse::<u16>().is_ok())
    {
        authority.to_owned()
    } else {
        format!("{authority}:80")
    };
    let addr = with_port
        .to_socket_addrs()?
        .next()
        .ok_or_else(|| invalid("the probe host did not resolve"))?;
    let mut stream = TcpStream::connect_timeout(&addr, timeout)?;
    stream.set_read_timeout(Some(timeout))?;
    stream.set_write_timeout(Some(timeout))?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n"
    )?;
    let mut status_line = String::new();
    // Bounded, so a misbehaving server cannot make the probe buffer forever.
    BufReader::new(stream.take(1024)).read_line(&mut status_line)?;
    parse_status(&status_line)
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "malformed status line"))
}

fn parse_status(line: &str) -> Option<u16> {
    let mut parts = line.split(' ');
    let version = parts.next()?;
    if !version.starts_with("HTTP/1.") {
        return None;
    }
    let status = parts.next()?.trim_end();
    if status.len() != 3 {
        return None;
    }
    status.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_status_lines() {
        assert_eq!(parse_status("HTTP/1.1 200 OK\r\n"), Some(200));
        assert_eq!(parse_status("HTTP/1.0 503\r\n"), Some(503));
        assert_eq!(parse_status("SSH-2.0-OpenSSH\r\n"), None);
        assert_eq!(parse_status("HTTP/1.1 2000 OK\r\n"), None);
    }

    #[test]
    fn refuses_other_schemes() {
        let error = probe("https://127.0.0.1/health", Duration::from_secs(1)).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::InvalidInput);
    }
}
