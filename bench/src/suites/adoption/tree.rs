//! A probe's resolved dependency tree, from `cargo metadata --filter-platform`: how many
//! crates, which build C or look for system libraries, the MSRVs, and what its library offers
//! (TLS by default, HTTP/2, compression) by its own feature table.

use std::collections::{BTreeSet, HashMap};

use cargo_metadata::semver::Version;
use cargo_metadata::{DependencyKind, Metadata, MetadataCommand, Package, PackageId};

/// What the tree says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tree {
    /// Packages resolved for this platform, the probe not counted.
    pub crates: u32,
    pub builds_c: Vec<String>,
    pub cmake: Vec<String>,
    pub pkg_config: Vec<String>,
    /// The highest `rust-version` in the tree, and its package.
    pub highest_msrv: Option<(String, String)>,
    /// Names of every package in the tree.
    pub names: BTreeSet<String>,
}

/// The library's own facts, from its manifest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Library {
    pub version: String,
    pub msrv: Option<String>,
    pub default_tls: String,
    pub http2: Vec<String>,
    pub compression: Vec<String>,
}

/// Reads `cargo metadata --format-version 1` output.
pub fn parse(metadata: &str) -> Result<(Tree, Metadata), String> {
    let metadata =
        MetadataCommand::parse(metadata).map_err(|error| format!("cargo metadata: {error}"))?;
    let by_id: HashMap<&PackageId, &Package> = metadata
        .packages
        .iter()
        .map(|package| (&package.id, package))
        .collect();
    let resolve = metadata
        .resolve
        .as_ref()
        .ok_or("cargo metadata: no resolve graph")?;
    let mut tree = Tree {
        crates: 0,
        builds_c: Vec::new(),
        cmake: Vec::new(),
        pkg_config: Vec::new(),
        highest_msrv: None,
        names: BTreeSet::new(),
    };
    let mut highest: Option<&Version> = None;
    for node in &resolve.nodes {
        if resolve.root.as_ref() == Some(&node.id) {
            continue;
        }
        let Some(package) = by_id.get(&node.id) else {
            continue;
        };
        let name: &str = &package.name;
        tree.crates += 1;
        tree.names.insert(name.to_owned());
        let build_deps = node.deps.iter().filter(|dep| {
            dep.dep_kinds
                .iter()
                .any(|kind| kind.kind == DependencyKind::Build)
        });
        for dep in build_deps {
            let list = match by_id.get(&dep.pkg).map(|built| built.name.as_str()) {
                Some("cc") => &mut tree.builds_c,
                Some("cmake") => &mut tree.cmake,
                Some("pkg-config") => &mut tree.pkg_config,
                _ => continue,
            };
            if !list.iter().any(|known| known == name) {
                list.push(name.to_owned());
            }
        }
        if let Some(msrv) = &package.rust_version
            && highest.is_none_or(|highest| msrv > highest)
        {
            highest = Some(msrv);
            tree.highest_msrv = Some((rust_version(msrv), name.to_owned()));
        }
    }
    for list in [&mut tree.builds_c, &mut tree.cmake, &mut tree.pkg_config] {
        list.sort();
    }
    Ok((tree, metadata))
}

/// A `rust-version` as manifests write it: `1.70` for 1.70.0 (cargo_metadata reads `1.70` as
/// 1.70.0), `1.71.1` as it is.
fn rust_version(version: &Version) -> String {
    if version.patch == 0 {
        format!("{}.{}", version.major, version.minor)
    } else {
        version.to_string()
    }
}

/// Crates that decompress bodies, for a library whose tree has one without a feature naming
/// it (libcurl decodes gzip with the zlib of libz-sys).
const CODECS: [&str; 6] = [
    "flate2",
    "libz-sys",
    "brotli",
    "brotli-decompressor",
    "zstd",
    "async-compression",
];

/// `library`'s facts in `metadata`, whose tree has the packages `tree`.
pub fn library(
    metadata: &Metadata,
    library: &str,
    tree: &BTreeSet<String>,
) -> Result<Library, String> {
    let package = metadata
        .packages
        .iter()
        .find(|package| *package.name == *library)
        .ok_or_else(|| format!("{library} is not in the probe's tree"))?;
    let features: HashMap<&str, Vec<&str>> = package
        .features
        .iter()
        .map(|(name, entries)| (name.as_str(), entries.iter().map(String::as_str).collect()))
        .collect();
    let defaults = expand(&features, "default");
    let marked = |names: Vec<&str>| {
        let mut names: Vec<String> = names
            .into_iter()
            .map(|name| {
                if defaults.contains(name) {
                    format!("{name} (default)")
                } else {
                    name.to_owned()
                }
            })
            .collect();
        names.sort();
        names
    };
    let named = |test: fn(&str) -> bool| {
        features
            .keys()
            .copied()
            .filter(|name| !name.starts_with('_') && test(name))
            .collect::<Vec<_>>()
    };
    let mut http2 = marked(named(|name| name == "http2" || name == "h2"));
    // A library that always speaks HTTP/2 (awc, through actix-http) has no feature for it.
    let built_in_h2 = package
        .dependencies
        .iter()
        .any(|dependency| dependency.name == "h2" && !dependency.optional);
    if http2.is_empty() && (built_in_h2 || tree.contains("h2")) {
        http2.push("built in (h2)".to_owned());
    }
    let mut compression = marked(named(|name| {
        ["gzip", "brotli", "zstd", "deflate", "compress"]
            .iter()
            .any(|codec| name.contains(codec))
    }));
    if compression.is_empty() {
        compression.extend(
            CODECS
                .iter()
                .filter(|codec| tree.contains(**codec))
                .map(|codec| format!("built in ({codec})")),
        );
    }
    Ok(Library {
        version: package.version.to_string(),
        msrv: package.rust_version.as_ref().map(rust_version),
        default_tls: default_tls(&defaults).to_owned(),
        http2,
        compression,
    })
}

/// Every feature and dependency entry `feature` turns on, itself included.
fn expand<'a>(features: &HashMap<&'a str, Vec<&'a str>>, feature: &'a str) -> BTreeSet<&'a str> {
    let mut seen = BTreeSet::new();
    let mut next = vec![feature];
    while let Some(name) = next.pop() {
        if !seen.insert(name) {
            continue;
        }
        if let Some(entries) = features.get(name) {
            next.extend(entries.iter().copied());
        }
    }
    seen
}

/// The TLS that default features turn on, by the names they reach (`rustls`, `dep:rustls`,
/// `curl/rustls`, `native-tls`, `hyper-tls`, `openssl`).
fn default_tls(defaults: &BTreeSet<&str>) -> &'static str {
    let reaches = |needle: &str| defaults.iter().any(|entry| entry.contains(needle));
    if reaches("rustls") {
        "rustls"
    } else if reaches("native-tls") || reaches("hyper-tls") {
        "native-tls"
    } else if reaches("openssl") {
        "openssl"
    } else {
        "none"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `cargo metadata --format-version 1` gives, cut to the fields read and those it
    /// always has.
    const METADATA: &str = r#"{
      "packages": [
        {"id": "probe", "name": "adoption-probe-x", "version": "0.1.0", "features": {},
         "dependencies": [], "targets": [], "manifest_path": "/p/Cargo.toml"},
        {"id": "lib", "name": "lib", "version": "2.0.1", "rust_version": "1.70",
         "features": {"default": ["tls", "gzip"], "tls": ["dep:rustls"], "http2": ["dep:h2"],
                      "gzip": [], "brotli": [], "_private": []},
         "dependencies": [H2], "targets": [], "manifest_path": "/l/Cargo.toml"},
        {"id": "ring", "name": "ring", "version": "0.17.0", "rust_version": "1.66",
         "features": {}, "dependencies": [], "targets": [], "manifest_path": "/r/Cargo.toml"},
        {"id": "cc", "name": "cc", "version": "1.2.0", "rust_version": "1.63", "features": {},
         "dependencies": [], "targets": [], "manifest_path": "/c/Cargo.toml"},
        {"id": "sys", "name": "openssl-sys", "version": "0.9.0", "rust_version": "1.9.1",
         "features": {}, "dependencies": [], "targets": [], "manifest_path": "/s/Cargo.toml"},
        {"id": "pkgc", "name": "pkg-config", "version": "0.3.0", "features": {},
         "dependencies": [], "targets": [], "manifest_path": "/k/Cargo.toml"}
      ],
      "workspace_members": ["probe"],
      "workspace_root": "/p",
      "target_directory": "/p/target",
      "version": 1,
      "resolve": {
        "root": "probe",
        "nodes": [
          {"id": "probe", "dependencies": ["lib"],
           "deps": [{"name": "lib", "pkg": "lib", "dep_kinds": [{"kind": null, "target": null}]}]},
          {"id": "lib", "dependencies": ["ring"],
           "deps": [{"name": "ring", "pkg": "ring", "dep_kinds": [{"kind": null, "target": null}]}]},
          {"id": "ring", "dependencies": ["cc"],
           "deps": [{"name": "cc", "pkg": "cc", "dep_kinds": [{"kind": "build", "target": null}]}]},
          {"id": "cc", "dependencies": [], "deps": []},
          {"id": "sys", "dependencies": ["cc", "pkgc"],
           "deps": [{"name": "cc", "pkg": "cc", "dep_kinds": [{"kind": "build", "target": null}]},
                    {"name": "pkg_config", "pkg": "pkgc",
                     "dep_kinds": [{"kind": "build", "target": null}]}]},
          {"id": "pkgc", "dependencies": [], "deps": []}
        ]
      }
    }"#;

    /// lib's dependency on h2, optional (`optional` true) or not.
    fn metadata(h2_optional: bool) -> String {
        let h2 = format!(
            r#"{{"name": "h2", "source": null, "req": "^0.4", "kind": null,
                "optional": {h2_optional}, "uses_default_features": true, "features": [],
                "target": null, "rename": null, "registry": null}}"#
        );
        METADATA.replace("H2", &h2)
    }

    #[test]
    fn the_tree_is_counted_and_its_native_builds_named() {
        let (tree, value) = parse(&metadata(true)).unwrap();
        assert_eq!(tree.crates, 5);
        assert_eq!(tree.builds_c, ["openssl-sys", "ring"]);
        assert_eq!(tree.pkg_config, ["openssl-sys"]);
        assert!(tree.cmake.is_empty());
        // 1.70 beats 1.9.1: compared as numbers, not text.
        assert_eq!(
            tree.highest_msrv,
            Some(("1.70".to_owned(), "lib".to_owned()))
        );
        let library = library(&value, "lib", &tree.names).unwrap();
        assert_eq!(library.version, "2.0.1");
        assert_eq!(library.msrv.as_deref(), Some("1.70"));
        assert_eq!(library.default_tls, "rustls");
        assert_eq!(library.http2, ["http2"]);
        assert_eq!(library.compression, ["brotli", "gzip (default)"]);
        assert!(super::library(&value, "absent", &tree.names).is_err());
        // No feature for either, but the crates in the tree: built in.
        let names: BTreeSet<String> = ["h2", "libz-sys"].map(str::to_owned).into();
        let without_features = metadata(true).replace(
            r#""http2": ["dep:h2"],
                      "gzip": [], "brotli": [], "#,
            "",
        );
        let (_, bare) = parse(&without_features).unwrap();
        let bare = super::library(&bare, "lib", &names).unwrap();
        assert_eq!(bare.http2, ["built in (h2)"]);
        assert_eq!(bare.compression, ["built in (libz-sys)"]);
        // h2 a dependency that is not optional: built in, whatever the tree holds.
        let (_, always) = parse(&metadata(false).replace(r#""http2": ["dep:h2"],"#, "")).unwrap();
        let always = super::library(&always, "lib", &BTreeSet::new()).unwrap();
        assert_eq!(always.http2, ["built in (h2)"]);
    }

    #[test]
    fn default_tls_follows_what_the_defaults_reach() {
        let features: HashMap<&str, Vec<&str>> = [
            ("default", vec!["default-tls", "http2"]),
            ("default-tls", vec!["rustls-tls"]),
            ("rustls-tls", vec!["curl/rustls"]),
            ("native", vec!["dep:native-tls"]),
        ]
        .into_iter()
        .collect();
        assert_eq!(default_tls(&expand(&features, "default")), "rustls");
        assert_eq!(default_tls(&expand(&features, "native")), "native-tls");
        assert_eq!(default_tls(&expand(&features, "http2")), "none");
    }
}
