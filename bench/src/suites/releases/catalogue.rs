//! The releases the suite knows: per library, the releases users still run, each with the
//! probe source of its major API (`bench/probes/releases/`) and the dependency lines of its
//! manifest, pinning the release exactly (`=0.12.4`) and taking its default features, as users
//! adopt it; a feature is added only where the probe cannot work without it, and says why.

use std::fmt::Write as _;

use crate::suites::adoption::probes::{Dependency, dep as only};
use bench_model::ReleasesSkipped;

/// One release of one library.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Release {
    /// As users name it: `hyper`, `reqwest`.
    pub library: &'static str,
    /// The release pinned, exactly.
    pub version: &'static str,
    /// Its probe's `src/client.rs`.
    pub source: &'static str,
    /// Its TLS as the probe builds it (the versions resolved are recorded beside it).
    pub tls: &'static str,
    /// The manifest's dependency lines besides the harness's `serde_json`.
    pub dependencies: &'static [Dependency],
    /// The tracker report it bears on, when one is.
    pub why: Option<&'static str>,
}

/// The harness every probe runs: its `src/main.rs`.
pub const HARNESS: &str = include_str!("../../../probes/releases/harness.rs");

/// The crates whose resolved versions are recorded under each release: what changes a library
/// underneath it.
pub const STACK: [&str; 15] = [
    "hyper",
    "hyper-util",
    "h2",
    "http",
    "tokio",
    "rustls",
    "aws-lc-rs",
    "ring",
    "native-tls",
    "openssl-sys",
    "curl",
    "curl-sys",
    "actix-http",
    "hyper-rustls",
    "ureq-proto",
];

const fn pinned(name: &'static str, version: &'static str) -> Dependency {
    Dependency {
        name,
        version,
        default_features: true,
        features: &[],
    }
}

const fn with(
    name: &'static str,
    version: &'static str,
    features: &'static [&'static str],
) -> Dependency {
    Dependency {
        name,
        version,
        default_features: true,
        features,
    }
}

const HYPER014: &str = include_str!("../../../probes/releases/hyper014.rs");
const HYPER1: &str = include_str!("../../../probes/releases/hyper1.rs");
const REQWEST: &str = include_str!("../../../probes/releases/reqwest.rs");
const UREQ2: &str = include_str!("../../../probes/releases/ureq2.rs");
const UREQ3: &str = include_str!("../../../probes/releases/ureq3.rs");
const ISAHC1: &str = include_str!("../../../probes/releases/isahc1.rs");
const ISAHC2: &str = include_str!("../../../probes/releases/isahc2.rs");
const AWC: &str = include_str!("../../../probes/releases/awc.rs");

/// The runtime of the async probes: a current-thread runtime that `block_on` drives.
const TOKIO: Dependency = only("tokio", "1", &["rt", "time"]);

macro_rules! hyper1 {
    ($version:literal, $why:expr) => {
        Release {
            library: "hyper",
            version: $version,
            source: HYPER1,
            tls: "hyper-rustls 0.27 (defaults), rustls (aws-lc-rs)",
            dependencies: &[
                with(
                    "hyper",
                    concat!("=", $version),
                    &["client", "http1", "http2"],
                ),
                TOKIO,
                with(
                    "hyper-util",
                    "0.1",
                    &["client-legacy", "http1", "http2", "tokio"],
                ),
                pinned("http-body-util", "0.1"),
                // Its defaults: native-tokio (the system's roots), http1, tls12, logging,
                // aws-lc-rs; and HTTP/2 by ALPN.
                with("hyper-rustls", "0.27", &["http2"]),
                only("rustls", "0.23", &["aws_lc_rs", "std", "tls12"]),
                pinned("rustls-native-certs", "0.8"),
                with("rustls-pki-types", "1.9", &["alloc"]),
            ],
            why: $why,
        }
    };
}

macro_rules! reqwest {
    ($version:literal, $tls:expr, $why:expr) => {
        Release {
            library: "reqwest",
            version: $version,
            source: REQWEST,
            tls: $tls,
            // Default features, as users adopt it; `stream` for `Body::wrap_stream`, the
            // half-close scenario's held-open body.
            dependencies: &[
                with("reqwest", concat!("=", $version), &["stream"]),
                TOKIO,
                pinned("futures-core", "0.3"),
            ],
            why: $why,
        }
    };
}

/// reqwest's default TLS up to 0.12: native-tls, OpenSSL here.
const NATIVE_TLS: &str = "default-tls: native-tls (OpenSSL)";
/// From 0.13: rustls on aws-lc-rs.
const RUSTLS_AWS_LC: &str = "default: rustls (aws-lc-rs)";

macro_rules! ureq3 {
    ($version:literal, $why:expr) => {
        Release {
            library: "ureq",
            version: $version,
            source: UREQ3,
            tls: "default: rustls (ring), webpki roots",
            dependencies: &[pinned("ureq", concat!("=", $version))],
            why: $why,
        }
    };
}

macro_rules! isahc {
    ($version:literal, $source:expr, $tls:expr, $why:expr) => {
        Release {
            library: "isahc",
            version: $version,
            source: $source,
            tls: $tls,
            dependencies: &[pinned("isahc", concat!("=", $version))],
            why: $why,
        }
    };
}

/// isahc 1's default: libcurl built static, on the system's OpenSSL.
const CURL_OPENSSL: &str = "default: libcurl (static) with the system's OpenSSL";

macro_rules! awc {
    ($version:literal, $why:expr) => {
        Release {
            library: "awc",
            version: $version,
            source: AWC,
            tls: "openssl feature (awc's default has no TLS)",
            dependencies: &[
                with("awc", concat!("=", $version), &["openssl"]),
                pinned("actix-rt", "2"),
                pinned("openssl", "0.10"),
                pinned("bytes", "1"),
                pinned("futures-util", "0.3"),
            ],
            why: $why,
        }
    };
}

/// Every release the suite knows, each library's oldest first and its newest last.
pub const RELEASES: &[Release] = &[
    Release {
        library: "hyper",
        version: "0.14.32",
        source: HYPER014,
        tls: "hyper-rustls 0.24 (defaults), rustls 0.21 (ring)",
        dependencies: &[
            with(
                "hyper",
                "=0.14.32",
                &["client", "http1", "http2", "tcp", "runtime"],
            ),
            TOKIO,
            // Its defaults: native-tokio (the system's roots), http1, tls12, logging, acceptor.
            with("hyper-rustls", "0.24", &["http2"]),
            pinned("rustls", "0.21"),
            pinned("rustls-native-certs", "0.6"),
            pinned("rustls-pemfile", "1"),
        ],
        why: Some(
            "hyper#3164: hyper 0.14 -> 1 called 1.8x slower from an example without a pool \
             (with the pooled client, 17.9k against 17.5k req/s)",
        ),
    },
    hyper1!(
        "1.8.0",
        Some("hyper#3976: 100% CPU on concurrent large downloads, reverted in 1.8.1")
    ),
    hyper1!("1.8.1", Some("hyper#3976: the revert")),
    hyper1!(
        "1.9.0",
        Some("hyper#4085: the release before the half-close busy loop")
    ),
    hyper1!(
        "1.10.0",
        Some("hyper#4085: the HTTP/1 client busy-loops on a peer's half-close, fixed in 1.10.1")
    ),
    hyper1!("1.10.1", Some("hyper#4086: the fix of hyper#4085")),
    hyper1!("1.13.0", None),
    reqwest!(
        "0.11.27",
        NATIVE_TLS,
        Some("reqwest#2277: downloads at concurrency 100 stall at the tail from 0.12.4 on")
    ),
    reqwest!(
        "0.12.4",
        NATIVE_TLS,
        Some("reqwest#2277: the release reported to stall")
    ),
    reqwest!("0.12.28", NATIVE_TLS, None),
    reqwest!(
        "0.13.5",
        RUSTLS_AWS_LC,
        Some("reqwest#3009: 0.13's default rustls with aws-lc adds about 3 MB of binary")
    ),
    Release {
        library: "ureq",
        version: "2.9.7",
        source: UREQ2,
        tls: "default: rustls 0.22 (ring), webpki roots",
        dependencies: &[
            pinned("ureq", "=2.9.7"),
            // The rustls ureq 2.9 itself takes, for the config that adds the mock's CA.
            pinned("rustls", "0.22.4"),
            pinned("webpki-roots", "0.26"),
        ],
        why: None,
    },
    Release {
        library: "ureq",
        version: "2.12.1",
        source: UREQ2,
        tls: "default: rustls (ring), webpki roots",
        dependencies: &[
            pinned("ureq", "=2.12.1"),
            // The rustls ureq 2.12 itself takes, for the config that adds the mock's CA.
            only("rustls", "0.23.19", &["ring", "logging", "std", "tls12"]),
            pinned("webpki-roots", "0.26"),
        ],
        why: None,
    },
    ureq3!("3.0.12", None),
    ureq3!(
        "3.3.0",
        Some("ureq 3.4.0 fixed pooled connections that never expired: the last release before")
    ),
    ureq3!("3.5.2", None),
    isahc!("1.7.2", ISAHC1, CURL_OPENSSL, None),
    isahc!("1.8.3", ISAHC1, CURL_OPENSSL, None),
    isahc!(
        "2.0.2",
        ISAHC2,
        "default: libcurl (static) with rustls-ffi (aws-lc-rs)",
        None
    ),
    awc!("3.0.1", None),
    awc!("3.5.1", None),
    awc!("3.11.0", None),
];

impl Release {
    /// `hyper@1.8.0`: how `--releases` names it.
    pub fn key(&self) -> String {
        format!("{}@{}", self.library, self.version)
    }

    /// The scratch project's directory name.
    pub fn dir_name(&self) -> String {
        format!("{}-{}", self.library, self.version)
    }

    /// Its `Cargo.toml`: one binary, `probe`, built stripped in release, outside any
    /// workspace, with no lock file of anyone else's.
    pub fn manifest(&self) -> String {
        let mut manifest = String::from(
            "[package]\nname = \"release-probe\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\
             publish = false\n\n[[bin]]\nname = \"probe\"\npath = \"src/main.rs\"\n\n\
             [workspace]\n\n[profile.release]\nstrip = true\n\n[dependencies]\n\
             serde_json = \"1\"\n",
        );
        for dependency in self.dependencies {
            let features = dependency
                .features
                .iter()
                .map(|feature| format!("\"{feature}\""))
                .collect::<Vec<_>>()
                .join(", ");
            let _ = writeln!(
                manifest,
                "{} = {{ version = \"{}\", default-features = {}, features = [{features}] }}",
                dependency.name, dependency.version, dependency.default_features,
            );
        }
        manifest
    }
}

/// The releases of `libraries` (in the catalogue's order), or those `named` (`ureq@2.12.1`)
/// when any are; a name the catalogue does not have is an error that lists what it has.
pub fn select(libraries: &[&str], named: &[String]) -> Result<Vec<Release>, ReleasesSkipped> {
    if named.is_empty() {
        return Ok(RELEASES
            .iter()
            .filter(|release| libraries.contains(&release.library))
            .copied()
            .collect());
    }
    let mut chosen = Vec::new();
    for name in named {
        let release = RELEASES
            .iter()
            .find(|release| release.key() == name.trim())
            .ok_or_else(|| ReleasesSkipped::UnknownRelease {
                name: name.clone(),
                known: RELEASES.iter().map(Release::key).collect(),
            })?;
        if !chosen.contains(release) {
            chosen.push(*release);
        }
    }
    // The catalogue's order: each library's oldest first.
    chosen.sort_by_key(|chosen| RELEASES.iter().position(|release| release == chosen));
    Ok(chosen)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_release_pins_its_library_exactly_and_is_listed_oldest_first() {
        for release in RELEASES {
            let line = release
                .dependencies
                .iter()
                .find(|dependency| dependency.name == release.library)
                .unwrap_or_else(|| panic!("{}: its library is not a dependency", release.key()));
            assert_eq!(
                line.version,
                format!("={}", release.version),
                "{}",
                release.key()
            );
            let manifest = release.manifest();
            assert!(manifest.contains("serde_json = \"1\""));
            assert!(manifest.contains(&format!("version = \"={}\"", release.version)));
            assert!(
                release.source.contains("pub const API: &str"),
                "{}",
                release.key()
            );
        }
        for pair in RELEASES.windows(2) {
            if pair[0].library == pair[1].library {
                assert_eq!(
                    bench_model::compare_versions(pair[0].version, pair[1].version),
                    std::cmp::Ordering::Less,
                    "{} before {}",
                    pair[0].key(),
                    pair[1].key()
                );
            }
        }
    }

    #[test]
    fn every_library_has_at_least_two_releases() {
        for library in ["hyper", "reqwest", "ureq", "isahc", "awc"] {
            let releases = select(&[library], &[]).unwrap();
            assert!(releases.len() >= 2, "{library}: {releases:?}");
        }
    }

    #[test]
    fn named_releases_are_chosen_in_the_catalogue_s_order_and_unknown_ones_refused() {
        let named = vec!["ureq@3.5.2".to_owned(), "ureq@2.12.1".to_owned()];
        let chosen = select(&["hyper"], &named).unwrap();
        assert_eq!(
            chosen.iter().map(Release::key).collect::<Vec<_>>(),
            ["ureq@2.12.1", "ureq@3.5.2"]
        );
        let ReleasesSkipped::UnknownRelease { name, known } =
            select(&[], &["ureq@9.9.9".to_owned()]).unwrap_err()
        else {
            panic!("not an unknown release")
        };
        assert_eq!(name, "ureq@9.9.9");
        assert!(known.contains(&"ureq@2.12.1".to_owned()), "{known:?}");
    }

    #[test]
    fn reqwest_s_default_tls_follows_its_release() {
        let tls = |version: &str| {
            RELEASES
                .iter()
                .find(|release| release.library == "reqwest" && release.version == version)
                .unwrap()
                .tls
        };
        assert!(tls("0.12.28").contains("native-tls"));
        assert!(tls("0.13.5").contains("rustls"));
    }
}
