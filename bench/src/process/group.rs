//! The process groups of the bench's children: each registered from its start until its
//! leader is reaped, so that on SIGINT or SIGTERM a signal thread kills every group still
//! alive (and reaps its leader) before the bench exits as the signal would have.

use std::io;
use std::process::{Child, ExitStatus};
use std::sync::{Mutex, MutexGuard, Once, PoisonError, mpsc};
use std::time::Duration;

use nix::errno::Errno;
use nix::sys::signal::{Signal, killpg};
use nix::sys::wait::{Id, WaitPidFlag, waitid, waitpid};
use nix::unistd::Pid;

/// The groups alive (each its leader's pid), leaders not yet reaped: while a leader is not
/// reaped its pid cannot be reused, so killing its group never reaches another process.
static LIVE: Mutex<Vec<Pid>> = Mutex::new(Vec::new());

fn live() -> MutexGuard<'static, Vec<Pid>> {
    LIVE.lock().unwrap_or_else(PoisonError::into_inner)
}

fn group_of(child: &Child) -> Pid {
    Pid::from_raw(child.id().cast_signed())
}

/// Spawns `command` (set to lead a group of its own) and registers its group, under the lock
/// the signal thread takes: an interrupt in between cannot miss it.
pub(super) fn spawn(command: &mut std::process::Command) -> io::Result<Child> {
    install_signal_handler();
    let mut live = live();
    let child = command.spawn()?;
    live.push(group_of(&child));
    Ok(child)
}

/// Whether `child` exited within `limit` (without one: waits until it exits), without
/// reaping it.
pub(super) fn exited_within(child: &Child, limit: Option<Duration>) -> io::Result<bool> {
    let pid = group_of(child);
    let Some(limit) = limit else {
        return wait_exit(pid).map(|()| true);
    };
    let (sender, receiver) = mpsc::channel();
    // A thread that outlives a timeout ends when the kill that follows ends the child.
    std::thread::Builder::new()
        .name("child-wait".to_owned())
        .spawn(move || {
            let _ = sender.send(wait_exit(pid));
        })?;
    match receiver.recv_timeout(limit) {
        Ok(exited) => exited.map(|()| true),
        Err(mpsc::RecvTimeoutError::Timeout) => Ok(false),
        Err(mpsc::RecvTimeoutError::Disconnected) => Err(io::Error::from(Errno::ECHILD)),
    }
}

/// Waits until `pid` exits, leaving it to be reaped.
fn wait_exit(pid: Pid) -> io::Result<()> {
    loop {
        match waitid(Id::Pid(pid), WaitPidFlag::WEXITED | WaitPidFlag::WNOWAIT) {
            Err(Errno::EINTR) => {}
            exited => return exited.map(drop).map_err(io::Error::from),
        }
    }
}

/// Kills `child`'s group with SIGKILL (the leader is not reaped yet, so the group is still
/// its own), forgets it, and reaps the leader.
pub(super) fn kill_and_reap(child: &mut Child) -> io::Result<ExitStatus> {
    {
        let group = group_of(child);
        let mut live = live();
        // An error means the group is already empty but for the leader's zombie.
        let _ = killpg(group, Signal::SIGKILL);
        live.retain(|&alive| alive != group);
    }
    child.wait()
}

/// On SIGINT or SIGTERM: kill every group and reap its leader, then exit as the signal would
/// have. Returns once the handlers are registered, so no signal after it is lost to the
/// default.
fn install_signal_handler() {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        let (registered, ready) = mpsc::channel::<()>();
        let spawned = std::thread::Builder::new()
            .name("bench-signals".to_owned())
            .spawn(move || {
                let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
                    .enable_io()
                    .build()
                else {
                    return;
                };
                runtime.block_on(async move {
                    use tokio::signal::unix::{SignalKind, signal};
                    let (Ok(mut interrupt), Ok(mut terminate)) = (
                        signal(SignalKind::interrupt()),
                        signal(SignalKind::terminate()),
                    ) else {
                        return;
                    };
                    let _ = registered.send(());
                    let code = tokio::select! {
                        _ = interrupt.recv() => 130,
                        _ = terminate.recv() => 143,
                    };
                    // Held until the exit: nothing is started after this.
                    let mut live = live();
                    for group in live.drain(..) {
                        let _ = killpg(group, Signal::SIGKILL);
                        let _ = waitpid(group, None);
                    }
                    // The exit below drops nothing: the children's CPU groups go here.
                    crate::measure::process::remove_own_groups();
                    eprintln!("\nbench: interrupted; child servers stopped");
                    std::process::exit(code);
                });
            });
        // Without the thread the default signal action still ends the bench, and a server
        // child follows through its parent-death signal and closed stdin.
        if spawned.is_ok() {
            let _ = ready.recv_timeout(Duration::from_secs(5));
        }
    });
}
