//! A process's open file descriptors and its sockets in CLOSE_WAIT, read from /proc (Linux).

use std::collections::HashSet;

/// A process's open descriptors, and how many of them are TCP sockets in CLOSE_WAIT.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FdReading {
    pub open: u64,
    pub close_wait: u64,
}

/// TCP state CLOSE_WAIT as `/proc/net/tcp` writes it.
const TCP_CLOSE_WAIT: &str = "08";

/// Reads `/proc/<pid>/fd` and the process's TCP tables (Linux); `None` where there is no
/// `/proc` or the process is gone.
pub fn read_fds(pid: u32) -> Option<FdReading> {
    let mut open = 0;
    let mut sockets = HashSet::new();
    for entry in std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?.flatten() {
        open += 1;
        // A descriptor closed since the listing has no link any more: counted, not a socket.
        if let Ok(target) = std::fs::read_link(entry.path())
            && let Some(inode) = target
                .to_str()
                .and_then(|target| target.strip_prefix("socket:["))
                .and_then(|target| target.strip_suffix(']'))
        {
            sockets.insert(inode.to_owned());
        }
    }
    let mut close_wait = 0;
    for table in ["tcp", "tcp6"] {
        let Ok(text) = std::fs::read_to_string(format!("/proc/{pid}/net/{table}")) else {
            continue;
        };
        // Columns: sl local rem st tx:rx tr:when retrnsmt uid timeout inode ...
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            if fields.get(3) == Some(&TCP_CLOSE_WAIT)
                && fields.get(9).is_some_and(|inode| sockets.contains(*inode))
            {
                close_wait += 1;
            }
        }
    }
    Some(FdReading { open, close_wait })
}
