//! The probe programs: per client and TLS backend, its source (in `bench/probes/`) and the
//! dependencies of its generated manifest, with the features its adapter asks for, so that
//! the probe is built as the adapter is.

use std::fmt::Write as _;

use bench_model::ClientName;

/// One dependency line of a probe's manifest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dependency {
    pub name: &'static str,
    pub version: &'static str,
    /// `default-features = false` when false.
    pub default_features: bool,
    pub features: &'static [&'static str],
}

/// A dependency line without the crate's default features, with `features`.
pub const fn dep(
    name: &'static str,
    version: &'static str,
    features: &'static [&'static str],
) -> Dependency {
    Dependency {
        name,
        version,
        default_features: false,
        features,
    }
}

/// One probe: the client it adopts (`None` for the base, with no HTTP client).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    pub client: Option<ClientName>,
    /// The crate its calls go through (the row's library), when it has one.
    pub library: Option<&'static str>,
    /// Its `src/main.rs`.
    pub main: &'static str,
    /// Whether it uses the system's roots through `roots.rs` (it has rustls-native-certs).
    pub roots: bool,
    /// The probe's own features, all on: they pick the TLS backend in its source.
    pub features: &'static [&'static str],
    pub dependencies: &'static [Dependency],
    /// Whether its call blocks the calling thread (else it is `async`, on a runtime).
    pub blocking: bool,
}

/// The pair every probe asks for and prints (as `common.rs` has it).
pub const PAIR: &str = "EURUSD";

/// Every probe's decode.
pub const COMMON: &str = include_str!("../../../probes/common.rs");
/// The system's roots, for the probes that take a list of them.
pub const ROOTS: &str = include_str!("../../../probes/roots.rs");

/// What every probe decodes with.
const DECODE: [Dependency; 2] = [
    dep("serde", "1", &["std", "derive"]),
    dep("serde_json", "1", &["std"]),
];

const TOKIO: Dependency = dep("tokio", "1.50", &["rt"]);
const RUSTLS_AWS_LC: Dependency = dep("rustls", "0.23", &["aws_lc_rs", "std", "tls12"]);
const NATIVE_ROOTS: [Dependency; 2] = [
    dep("rustls-native-certs", "0.8", &[]),
    dep("rustls-pki-types", "1.16", &["alloc"]),
];

/// The probe with no HTTP client: the same decode of a body read from stdin.
pub const BASE: Probe = Probe {
    client: None,
    library: None,
    main: include_str!("../../../probes/none.rs"),
    roots: false,
    features: &[],
    dependencies: &[],
    blocking: true,
};

/// `client`'s probe.
pub fn probe(client: ClientName) -> Probe {
    let probe = |library: &'static str,
                 main: &'static str,
                 features: &'static [&'static str],
                 dependencies: &'static [Dependency],
                 blocking: bool| Probe {
        client: Some(client),
        library: Some(library),
        main,
        roots: dependencies
            .iter()
            .any(|dependency| dependency.name == "rustls-native-certs"),
        features,
        dependencies,
        blocking,
    };
    match client {
        ClientName::Hyper => probe(
            "hyper-util",
            HYPER,
            &["rustls-store"],
            HYPER_DEPENDENCIES,
            false,
        ),
        ClientName::Awc => probe("awc", AWC, &["rustls-store"], AWC_DEPENDENCIES, false),
        ClientName::AwcOpenssl => probe(
            "awc",
            AWC,
            &["backend-openssl"],
            AWC_OPENSSL_DEPENDENCIES,
            false,
        ),
        // Its hickory-dns and retry rows are measured for resolution and the idle race only;
        // their probe is reqwest's.
        ClientName::Reqwest | ClientName::ReqwestHickoryDns | ClientName::ReqwestRetry => probe(
            "reqwest",
            REQWEST,
            &["rustls-store"],
            REQWEST_DEPENDENCIES,
            false,
        ),
        ClientName::ReqwestNativeTls => probe(
            "reqwest",
            REQWEST,
            &["backend-native-tls"],
            REQWEST_NATIVE_TLS_DEPENDENCIES,
            false,
        ),
        // An adapter setting builds the same crates as its pair.
        ClientName::Ureq | ClientName::UreqInlineIp => {
            probe("ureq", UREQ, &[], UREQ_DEPENDENCIES, true)
        }
        ClientName::UreqNativeTls | ClientName::UreqNativeTlsFirstAlone => probe(
            "ureq",
            UREQ,
            &["backend-native-tls"],
            UREQ_NATIVE_TLS_DEPENDENCIES,
            true,
        ),
        // reqwest's source, its blocking client on the calling thread (with rustls on the
        // system's roots, as reqwest's).
        ClientName::ReqwestBlocking => probe(
            "reqwest",
            REQWEST,
            &["blocking", "rustls-store"],
            REQWEST_BLOCKING_DEPENDENCIES,
            true,
        ),
        ClientName::Isahc => probe("isahc", ISAHC, &[], ISAHC_DEPENDENCIES, true),
    }
}

const HYPER: &str = include_str!("../../../probes/hyper.rs");
const AWC: &str = include_str!("../../../probes/awc.rs");
const REQWEST: &str = include_str!("../../../probes/reqwest.rs");
const UREQ: &str = include_str!("../../../probes/ureq.rs");
const ISAHC: &str = include_str!("../../../probes/isahc.rs");

const HYPER_DEPENDENCIES: &[Dependency] = &[
    TOKIO,
    dep("hyper", "1.6", &["client", "http1", "http2"]),
    dep(
        "hyper-util",
        "0.1.16",
        &["client-legacy", "http1", "http2", "tokio"],
    ),
    dep("http-body-util", "0.1", &[]),
    dep(
        "hyper-rustls",
        "0.27",
        &["http1", "http2", "tls12", "aws-lc-rs"],
    ),
    RUSTLS_AWS_LC,
    NATIVE_ROOTS[0],
    NATIVE_ROOTS[1],
];

const AWC_DEPENDENCIES: &[Dependency] = &[
    dep("awc", "3.7", &["rustls-0_23"]),
    dep("actix-rt", "2.10", &[]),
    RUSTLS_AWS_LC,
    NATIVE_ROOTS[0],
    NATIVE_ROOTS[1],
];

const AWC_OPENSSL_DEPENDENCIES: &[Dependency] = &[
    dep("awc", "3.7", &["openssl"]),
    dep("actix-rt", "2.10", &[]),
    dep("openssl", "0.10", &[]),
];

const REQWEST_DEPENDENCIES: &[Dependency] = &[
    dep("reqwest", "0.13", &["rustls-no-provider", "http2"]),
    TOKIO,
    RUSTLS_AWS_LC,
    NATIVE_ROOTS[0],
    NATIVE_ROOTS[1],
];

/// As reqwest's, with its `blocking` feature as the adapter asks for it; no tokio of its own.
const REQWEST_BLOCKING_DEPENDENCIES: &[Dependency] = &[
    dep(
        "reqwest",
        "0.13",
        &["rustls-no-provider", "http2", "blocking"],
    ),
    RUSTLS_AWS_LC,
    NATIVE_ROOTS[0],
    NATIVE_ROOTS[1],
];

const REQWEST_NATIVE_TLS_DEPENDENCIES: &[Dependency] =
    &[dep("reqwest", "0.13", &["native-tls", "http2"]), TOKIO];

const UREQ_DEPENDENCIES: &[Dependency] = &[
    dep("ureq", "3.1", &["rustls-no-provider"]),
    dep("rustls", "0.23", &["ring", "std", "tls12"]),
    NATIVE_ROOTS[0],
    NATIVE_ROOTS[1],
];

const UREQ_NATIVE_TLS_DEPENDENCIES: &[Dependency] = &[
    dep("ureq", "3.1", &["native-tls-no-default"]),
    NATIVE_ROOTS[0],
    NATIVE_ROOTS[1],
];

const ISAHC_DEPENDENCIES: &[Dependency] =
    &[dep("isahc", "2.0", &["rustls-tls", "http2", "static-curl"])];

impl Probe {
    /// The directory name of its scratch project.
    pub fn name(&self) -> &'static str {
        self.client.map_or("none", ClientName::as_str)
    }

    /// Its `Cargo.toml`: one binary, `probe`, built stripped in release, outside any
    /// workspace.
    pub fn manifest(&self) -> String {
        let mut manifest = format!(
            "[package]\nname = \"adoption-probe-{}\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\
             publish = false\n\n[[bin]]\nname = \"probe\"\npath = \"src/main.rs\"\n\n\
             [workspace]\n\n[profile.release]\nstrip = true\n\n[features]\n",
            self.name()
        );
        let quoted = |names: &[&str]| {
            names
                .iter()
                .map(|name| format!("\"{name}\""))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = writeln!(manifest, "default = [{}]", quoted(self.features));
        for feature in self.features {
            let _ = writeln!(manifest, "{feature} = []");
        }
        manifest.push_str("\n[dependencies]\n");
        for dependency in DECODE.iter().chain(self.dependencies) {
            let _ = writeln!(
                manifest,
                "{} = {{ version = \"{}\", default-features = {}, features = [{}] }}",
                dependency.name,
                dependency.version,
                dependency.default_features,
                quoted(dependency.features)
            );
        }
        manifest
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_client_has_a_probe_through_its_library() {
        for client in ClientName::ALL {
            let probe = probe(client);
            let library = probe.library.unwrap();
            assert!(
                probe.dependencies.iter().any(|dep| dep.name == library),
                "{client}: {library} is not a dependency"
            );
            let manifest = probe.manifest();
            assert!(manifest.contains(&format!("adoption-probe-{client}")));
            assert!(manifest.contains("serde_json = "));
            // roots.rs is written beside a source that includes it, with its crates.
            assert!(
                !probe.roots || probe.main.contains("mod roots;"),
                "{client}"
            );
            assert_eq!(
                manifest.contains("rustls-native-certs"),
                probe.roots,
                "{client}"
            );
        }
        assert!(BASE.manifest().contains("default = []"));
        assert!(!BASE.manifest().contains("rustls"));
    }

    #[test]
    fn the_pair_is_the_one_the_probes_print() {
        assert!(COMMON.contains(&format!("pub const PAIR: &str = \"{PAIR}\";")));
    }

    #[test]
    fn a_library_s_other_backend_is_a_feature_of_the_same_source() {
        let awc = probe(ClientName::Awc);
        let openssl = probe(ClientName::AwcOpenssl);
        assert_eq!(awc.main, openssl.main);
        assert!(openssl.manifest().contains("backend-openssl = []"));
        assert!(openssl.main.contains("feature = \"backend-openssl\""));
        assert!(probe(ClientName::Ureq).blocking);
        assert!(!probe(ClientName::Reqwest).blocking);
        let blocking = probe(ClientName::ReqwestBlocking);
        assert!(blocking.blocking && blocking.roots);
        assert_eq!(blocking.main, probe(ClientName::Reqwest).main);
        assert!(blocking.manifest().contains("blocking = []"));
        assert!(blocking.main.contains("feature = \"blocking\""));
    }

    /// `roots.rs` defines its rustls store only with the probe's `rustls-store` feature: a
    /// probe that calls it over rustls must turn it on, or it does not build (reqwest-blocking's
    /// probe did not, and the adoption suite's run failed on it).
    #[test]
    fn a_probe_that_takes_the_rustls_store_has_the_feature_that_defines_it() {
        assert!(ROOTS.contains("#[cfg(feature = \"rustls-store\")]\npub fn store()"));
        for client in ClientName::ALL {
            let probe = probe(client);
            let over_rustls = !probe
                .features
                .iter()
                .any(|feature| feature.starts_with("backend-"));
            if probe.main.contains("roots::store()") && over_rustls {
                assert!(probe.features.contains(&"rustls-store"), "{client}");
            }
        }
    }
}
