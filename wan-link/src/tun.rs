//! A TUN device made in a network namespace: the process enters the namespace on a thread of
//! its own, opens `/dev/net/tun` there (the device lives in the namespace it was made in), and
//! keeps the descriptor, which works from any namespace. The device goes when it is dropped.
//! Its addresses and routes are the caller's to set (`ip -n NAME addr add ...`).

// The one ioctl that makes a TUN device (TUNSETIFF) has no safe wrapper in libc or nix.
#![allow(unsafe_code)]

use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use crate::namespace::in_namespace;

/// `TUNSETIFF`, `_IOW('T', 202, int)`.
const TUNSETIFF: libc::c_ulong = 0x4004_54ca;
/// An IP device (no Ethernet header) whose packets come without the 4-byte packet
/// information header.
const IFF_TUN: libc::c_short = 0x0001;
const IFF_NO_PI: libc::c_short = 0x1000;

/// `struct ifreq` as TUNSETIFF reads it: the name, then the flags.
#[repr(C)]
struct IfReq {
    name: [u8; libc::IFNAMSIZ],
    flags: libc::c_short,
    padding: [u8; 22],
}

/// A TUN device: each read is one IP packet from the namespace's side, each write one IP
/// packet into it.
#[derive(Debug)]
pub struct Tun {
    file: File,
    name: String,
}

impl Tun {
    /// Makes the device `name` in the namespace whose handle is at `namespace` (as `ip netns
    /// add` makes them: `/var/run/netns/NAME`), not blocking on reads.
    ///
    /// # Errors
    /// The namespace cannot be entered (not root), the name is too long, or the device
    /// cannot be made.
    pub fn make_in(namespace: &Path, name: &str) -> io::Result<Self> {
        if name.is_empty() || name.len() >= libc::IFNAMSIZ {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "a device name of 1 to {} bytes: {name:?}",
                    libc::IFNAMSIZ - 1
                ),
            ));
        }
        in_namespace(namespace, || Self::make(name))
    }

    fn make(name: &str) -> io::Result<Self> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
            .open("/dev/net/tun")?;
        let mut request = IfReq {
            name: [0; libc::IFNAMSIZ],
            flags: IFF_TUN | IFF_NO_PI,
            padding: [0; 22],
        };
        request.name[..name.len()].copy_from_slice(name.as_bytes());
        // SAFETY: `request` is a valid `struct ifreq` for TUNSETIFF, alive for the call, and
        // the descriptor is open.
        let made = unsafe { libc::ioctl(file.as_raw_fd(), TUNSETIFF, &raw mut request) };
        if made < 0 {
            let error = io::Error::last_os_error();
            return Err(io::Error::new(
                error.kind(),
                format!("making the TUN device {name}: {error}"),
            ));
        }
        Ok(Self {
            file,
            name: name.to_owned(),
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Another handle on the same device (for the thread that writes into it).
    ///
    /// # Errors
    /// The descriptor cannot be duplicated.
    pub fn try_clone(&self) -> io::Result<Self> {
        Ok(Self {
            file: self.file.try_clone()?,
            name: self.name.clone(),
        })
    }

    pub(crate) fn file(&self) -> &File {
        &self.file
    }
}

impl AsFd for Tun {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.file.as_fd()
    }
}
