//! A network namespace of the suite's own, whose `resolv.conf` points at a DNS server on its
//! loopback: `ip netns exec` mounts `/etc/netns/NAME/resolv.conf` over `/etc/resolv.conf` for
//! what it runs, so the system's resolver (glibc's `getaddrinfo`) and hickory-dns, which both
//! read that file, ask the bench's DNS server, as a service in a container asks its cluster's.

use std::fs;
use std::path::PathBuf;

use crate::process::{self, Cmd, Tool};

/// What the namespace's `resolv.conf` says: the DNS server on the namespace's loopback, no
/// search list (a name is asked once), and one try of 2 s (a lost answer fails the call
/// rather than hiding behind retries).
const RESOLV_CONF: &str = "nameserver 127.0.0.1\noptions timeout:2 attempts:1\n";

/// A namespace made for this run; dropping it deletes it and its `/etc/netns` directory.
#[derive(Debug)]
pub struct Namespace {
    name: String,
    etc: PathBuf,
    /// `ip`, as found.
    ip: PathBuf,
}

impl Namespace {
    /// Makes `rest-libraries-dns-PID` with its loopback up and its `resolv.conf`. The error
    /// says what failed (no `ip`, not root, no namespaces), for the line of a skipped suite.
    pub fn create() -> Result<Self, String> {
        let name = format!("rest-libraries-dns-{}", std::process::id());
        let ip_path = process::tool(Tool::Ip)
            .map_err(|missing| missing.to_string())?
            .path;
        ip(&ip_path, &["netns", "add", &name])?;
        // From here on, dropping it cleans up what was made.
        let namespace = Self {
            etc: PathBuf::from("/etc/netns").join(&name),
            name,
            ip: ip_path,
        };
        fs::create_dir_all(&namespace.etc)
            .and_then(|()| fs::write(namespace.etc.join("resolv.conf"), RESOLV_CONF))
            .map_err(|error| format!("writing {}: {error}", namespace.etc.display()))?;
        ip(
            &namespace.ip,
            &["-n", &namespace.name, "link", "set", "lo", "up"],
        )?;
        Ok(namespace)
    }

    /// `ip netns exec NAME program`: a command that runs `program` inside the namespace.
    pub fn command(&self, program: &std::path::Path) -> Cmd {
        Cmd::new(&self.ip)
            .args(["netns", "exec", &self.name])
            .arg(program)
    }
}

impl Drop for Namespace {
    fn drop(&mut self) {
        if let Err(error) = ip(&self.ip, &["netns", "del", &self.name]) {
            eprintln!("bench: resolution: {error}");
        }
        let _ = fs::remove_dir_all(&self.etc);
    }
}

/// Runs `ip ARGS`; the error names the command and what it printed.
fn ip(ip: &std::path::Path, args: &[&str]) -> Result<(), String> {
    let command = format!("`ip {}`", args.join(" "));
    match Cmd::new(ip).args(args).run() {
        Ok(finished) if finished.success() => Ok(()),
        Ok(finished) => Err(format!(
            "{command} failed ({}): {}",
            finished.status,
            finished.stderr_text().trim()
        )),
        Err(error) => Err(format!("{command} could not run: {error}")),
    }
}
