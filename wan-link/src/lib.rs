//! A WAN link emulated in user space, as mahimahi does it (Netravali et al., USENIX ATC
//! 2015): every packet from one side is offered to the link, which drops it or says when it is
//! due on the other side. This crate is the link's model, pure and deterministic for a seed:
//! per direction a delay with jitter that never reorders, loss (independent, or in bursts by a
//! Gilbert-Elliott chain), a rate with a drop-tail queue of a stated size; for the link as a
//! whole a partition (every packet dropped for a while, no RST, no FIN) and a middlebox that
//! forgets a TCP flow left idle longer than its timeout and drops its later packets silently,
//! as a NAT or a load balancer that lost its state does. Each setting is a field of a
//! [`Profile`]; the named profiles are the WAN suite's.

pub mod calibrate;
pub mod link;
pub mod loss;
pub mod middlebox;
pub mod namespace;
pub mod packet;
pub mod profile;
pub mod relay;
pub mod shaper;
pub mod tun;

pub use link::{Link, Side};
pub use loss::Loss;
pub use profile::{Direction, Profile, Rate};
pub use relay::{Carried, Relay};
pub use shaper::{Counts, Dropped, Fate};
pub use tun::Tun;
