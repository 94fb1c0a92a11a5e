//! A process's open file descriptors and the TCP sockets among them: `/proc/<pid>/fd` joined
//! by socket inode with the process's `/proc/<pid>/net/tcp` and `tcp6` (Linux).

use std::collections::HashSet;
use std::io;

/// TCP state ESTABLISHED as `/proc/net/tcp` writes it (`st`, hex).
pub const TCP_ESTABLISHED: u8 = 0x01;
/// TCP state CLOSE_WAIT as `/proc/net/tcp` writes it.
pub const TCP_CLOSE_WAIT: u8 = 0x08;

/// A process's open descriptors and its TCP sockets (IPv4 and IPv6).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Descriptors {
    /// Every open descriptor, sockets or not.
    pub open: u64,
    /// The process's own TCP sockets, in the tables' order.
    pub tcp: Vec<TcpSocket>,
}

/// One of a process's TCP sockets, as its line in /proc/net/tcp shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpSocket {
    /// The state, [`TCP_ESTABLISHED`], [`TCP_CLOSE_WAIT`], ...
    pub state: u8,
    /// The remote end's port.
    pub remote_port: u16,
}

impl Descriptors {
    /// Reads `/proc/<pid>/fd` and the process's TCP tables; an error where there is no
    /// `/proc`, the process is gone, or a table that exists cannot be read (a kernel without
    /// IPv6 has no `tcp6`: that one is left out).
    pub fn read(pid: u32) -> io::Result<Self> {
        let mut open = 0;
        let mut ours = HashSet::new();
        for entry in std::fs::read_dir(format!("/proc/{pid}/fd"))?.flatten() {
            open += 1;
            // A descriptor closed since the listing has no link any more: counted, not a socket.
            if let Ok(target) = std::fs::read_link(entry.path())
                && let Some(inode) = target
                    .to_str()
                    .and_then(|target| target.strip_prefix("socket:["))
                    .and_then(|target| target.strip_suffix(']'))
            {
                ours.insert(inode.to_owned());
            }
        }
        let mut tcp = Vec::new();
        for table in ["tcp", "tcp6"] {
            let text = match std::fs::read_to_string(format!("/proc/{pid}/net/{table}")) {
                Ok(text) => text,
                Err(error) if error.kind() == io::ErrorKind::NotFound => continue,
                Err(error) => return Err(error),
            };
            tcp.extend(sockets_in(&text, &ours));
        }
        Ok(Self { open, tcp })
    }

    /// The sockets in CLOSE_WAIT: the peer closed, the process has not.
    pub fn close_wait(&self) -> u64 {
        self.count(|socket| socket.state == TCP_CLOSE_WAIT)
    }

    /// The connections established to `port` on any address.
    pub fn established_to(&self, port: u16) -> u64 {
        self.count(|socket| socket.state == TCP_ESTABLISHED && socket.remote_port == port)
    }

    fn count(&self, wanted: impl Fn(&TcpSocket) -> bool) -> u64 {
        self.tcp.iter().filter(|socket| wanted(socket)).count() as u64
    }
}

/// The lines of a /proc/net/tcp table whose socket (inode) is one of `ours`.
fn sockets_in<'a>(
    table: &'a str,
    ours: &'a HashSet<String>,
) -> impl Iterator<Item = TcpSocket> + 'a {
    table.lines().skip(1).filter_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
        let (Some(remote), Some(state), Some(inode)) =
            (fields.get(2), fields.get(3), fields.get(9))
        else {
            return None;
        };
        if !ours.contains(*inode) {
            return None;
        }
        Some(TcpSocket {
            state: u8::from_str_radix(state, 16).ok()?,
            remote_port: u16::from_str_radix(remote.rsplit_once(':')?.1, 16).ok()?,
        })
    })
}

/// A process's open descriptors, and how many of them are TCP sockets in CLOSE_WAIT.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FdReading {
    pub open: u64,
    pub close_wait: u64,
}

/// [`Descriptors::read`] summed up; `None` where it cannot be read.
pub fn read_fds(pid: u32) -> Option<FdReading> {
    let descriptors = Descriptors::read(pid).ok()?;
    Some(FdReading {
        open: descriptors.open,
        close_wait: descriptors.close_wait(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_our_sockets_count_by_state_and_remote_port() {
        let table = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:A1B2 0100007F:1F90 01 00000000:00000000 00:00000000 00000000     0        0 111 1 0
   1: 0100007F:A1B3 0100007F:1F90 01 00000000:00000000 00:00000000 00000000     0        0 222 1 0
   2: 0100007F:A1B4 0100007F:1F90 06 00000000:00000000 00:00000000 00000000     0        0 333 1 0
   3: 0100007F:1F90 0100007F:A1B2 01 00000000:00000000 00:00000000 00000000     0        0 444 1 0
   4: 0100007F:A1B5 0100007F:1F91 01 00000000:00000000 00:00000000 00000000     0        0 555 1 0
   5: 0100007F:A1B6 0100007F:1F90 08 00000000:00000000 00:00000000 00000000     0        0 666 1 0
   6: 0100007F:A1B7 0100007F:1F90 08 00000000:00000000 00:00000000 00000000     0        0 777 1 0
";
        let ours: HashSet<String> = ["111", "333", "444", "555", "666"]
            .into_iter()
            .map(str::to_owned)
            .collect();
        let descriptors = Descriptors {
            open: 9,
            tcp: sockets_in(table, &ours).collect(),
        };
        // 222 and 777 are another process's; 333 is in TIME_WAIT; 444 is the server's end
        // (local port 8080); 555 goes to another port; 666 waits for its close.
        assert_eq!(descriptors.established_to(8080), 1);
        assert_eq!(descriptors.close_wait(), 1);
        assert_eq!(descriptors.tcp.len(), 5);
    }

    #[test]
    fn this_process_has_descriptors_and_none_after_it_is_gone() {
        let descriptors = Descriptors::read(std::process::id()).expect("/proc is readable");
        // The listing's own descriptor, at least.
        assert!(descriptors.open >= 1, "{descriptors:?}");
        assert_eq!(read_fds(u32::MAX), None);
    }
}
