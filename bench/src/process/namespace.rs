//! A network namespace made for a run (root and `ip netns`): the resolution suite's, whose
//! `resolv.conf` points at the bench's DNS server, and the WAN suite's two, the service's and
//! the upstream's, joined by a relay. Dropping one deletes it.

use std::fs;
use std::path::{Path, PathBuf};

use crate::process::{Cmd, Tool};

/// A namespace made for this run; dropping it deletes it and its `/etc/netns` directory.
#[derive(Debug)]
pub struct Namespace {
    name: String,
    /// `/etc/netns/NAME`, written only when the namespace has files of its own.
    etc: PathBuf,
    /// `ip`, as found.
    ip: PathBuf,
}

impl Namespace {
    /// Makes `rest-libraries-PURPOSE-PID` with its loopback up. The error says what failed (no
    /// `ip`, not root, no namespaces), for the line of a skipped suite.
    pub fn create(purpose: &str) -> Result<Self, String> {
        let name = format!("rest-libraries-{purpose}-{}", std::process::id());
        let ip_path = super::tool(Tool::Ip)
            .map_err(|missing| missing.to_string())?
            .path;
        remove_left_over(&ip_path, purpose);
        ip(&ip_path, &["netns", "add", &name])?;
        // From here on, dropping it cleans up what was made.
        let namespace = Self {
            etc: PathBuf::from("/etc/netns").join(&name),
            name,
            ip: ip_path,
        };
        namespace.ip(&["link", "set", "lo", "up"])?;
        Ok(namespace)
    }

    /// Writes the namespace's `resolv.conf`: `ip netns exec` mounts `/etc/netns/NAME/
    /// resolv.conf` over `/etc/resolv.conf` for what it runs.
    pub fn write_resolv_conf(&self, contents: &str) -> Result<(), String> {
        fs::create_dir_all(&self.etc)
            .and_then(|()| fs::write(self.etc.join("resolv.conf"), contents))
            .map_err(|error| format!("writing {}: {error}", self.etc.display()))
    }

    /// `ip netns exec NAME program`: a command that runs `program` inside the namespace (the
    /// same process: `ip` enters the namespace and executes it).
    pub fn command(&self, program: &Path) -> Cmd {
        self.exec().arg(program)
    }

    /// `ip netns exec NAME`, for a program to be added: what wraps a child server started
    /// inside the namespace.
    pub fn exec(&self) -> Cmd {
        Cmd::new(&self.ip).args(["netns", "exec", &self.name])
    }

    /// Runs `ip -n NAME ARGS` (an address, a link set up).
    pub fn ip(&self, args: &[&str]) -> Result<(), String> {
        let mut all = vec!["-n", self.name.as_str()];
        all.extend_from_slice(args);
        ip(&self.ip, &all)
    }

    /// The namespace's handle, which a thread enters with `setns`.
    pub fn handle(&self) -> PathBuf {
        PathBuf::from("/var/run/netns").join(&self.name)
    }

    pub fn name(&self) -> &str {
        &self.name
    }
}

impl Drop for Namespace {
    fn drop(&mut self) {
        if let Err(error) = ip(&self.ip, &["netns", "del", &self.name]) {
            eprintln!("bench: {error}");
        }
        if self.etc.exists() {
            let _ = fs::remove_dir_all(&self.etc);
        }
    }
}

/// Deletes the namespaces of this `purpose` a bench that is gone left behind (killed before it
/// could delete them): `rest-libraries-PURPOSE-PID` whose process no longer exists.
fn remove_left_over(ip_path: &Path, purpose: &str) {
    let prefix = format!("rest-libraries-{purpose}-");
    let Ok(entries) = fs::read_dir("/var/run/netns") else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let gone = left_by_gone_process(&name, &prefix, |pid| {
            Path::new(&format!("/proc/{pid}")).exists()
        });
        if gone {
            if let Err(error) = ip(ip_path, &["netns", "del", &name]) {
                eprintln!("bench: a namespace left behind: {error}");
            }
            let _ = fs::remove_dir_all(PathBuf::from("/etc/netns").join(&name));
        }
    }
}

/// Whether `name` is `PREFIX` and the id of a process that `alive` says is gone.
fn left_by_gone_process(name: &str, prefix: &str, alive: impl Fn(u32) -> bool) -> bool {
    name.strip_prefix(prefix)
        .and_then(|pid| pid.parse::<u32>().ok())
        .is_some_and(|pid| !alive(pid))
}

/// Runs `ip ARGS`; the error names the command and what it printed.
fn ip(ip: &Path, args: &[&str]) -> Result<(), String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_namespace_of_the_purpose_whose_process_is_gone_is_left_over() {
        let alive = |pid: u32| pid == 42;
        let prefix = "rest-libraries-wan-service-";
        assert!(left_by_gone_process(
            "rest-libraries-wan-service-7",
            prefix,
            alive
        ));
        assert!(!left_by_gone_process(
            "rest-libraries-wan-service-42",
            prefix,
            alive
        ));
        assert!(!left_by_gone_process("rest-libraries-dns-7", prefix, alive));
        assert!(!left_by_gone_process(
            "rest-libraries-wan-service-x",
            prefix,
            alive
        ));
        assert!(!left_by_gone_process("someone-elses", prefix, alive));
    }
}
