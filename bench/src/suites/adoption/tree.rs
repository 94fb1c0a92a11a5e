//! A probe's resolved dependency tree, from `cargo metadata --filter-platform`: how many
//! crates, which build C or look for system libraries, the MSRVs, and what its library offers
//! (TLS by default, HTTP/2, compression) by its own feature table.

use std::collections::{BTreeSet, HashMap};

use serde_json::Value;

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
pub fn parse(metadata: &str) -> Result<(Tree, Value), String> {
    let value: Value =
        serde_json::from_str(metadata).map_err(|error| format!("cargo metadata: {error}"))?;
    let packages = value["packages"]
        .as_array()
        .ok_or("cargo metadata: no packages")?;
    let by_id: HashMap<&str, &Value> = packages
        .iter()
        .filter_map(|package| Some((package["id"].as_str()?, package)))
        .collect();
    let name_of = |id: &str| by_id.get(id).and_then(|package| package["name"].as_str());
    let root = value["resolve"]["root"].as_str().unwrap_or_default();
    let nodes = value["resolve"]["nodes"]
        .as_array()
        .ok_or("cargo metadata: no resolve graph")?;
    let mut tree = Tree {
        crates: 0,
        builds_c: Vec::new(),
        cmake: Vec::new(),
        pkg_config: Vec::new(),
        highest_msrv: None,
        names: BTreeSet::new(),
    };
    for node in nodes {
        let id = node["id"].as_str().unwrap_or_default();
        if id == root {
            continue;
        }
        let Some(name) = name_of(id) else { continue };
        tree.crates += 1;
        tree.names.insert(name.to_owned());
        let build_deps = node["deps"].as_array().into_iter().flatten().filter(|dep| {
            dep["dep_kinds"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|kind| kind["kind"].as_str() == Some("build"))
        });
        for dep in build_deps {
            let list = match dep["pkg"].as_str().and_then(name_of) {
                Some("cc") => &mut tree.builds_c,
                Some("cmake") => &mut tree.cmake,
                Some("pkg-config") => &mut tree.pkg_config,
                _ => continue,
            };
            if !list.iter().any(|known| known == name) {
                list.push(name.to_owned());
            }
        }
        if let Some(msrv) = by_id[id]["rust_version"].as_str()
            && tree
                .highest_msrv
                .as_ref()
                .is_none_or(|(highest, _)| version_key(msrv) > version_key(highest))
        {
            tree.highest_msrv = Some((msrv.to_owned(), name.to_owned()));
        }
    }
    for list in [&mut tree.builds_c, &mut tree.cmake, &mut tree.pkg_config] {
        list.sort();
    }
    Ok((tree, value))
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

/// `library`'s facts in the metadata `value`, whose tree has the packages `tree`.
pub fn library(value: &Value, library: &str, tree: &BTreeSet<String>) -> Result<Library, String> {
    let package = value["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|package| package["name"].as_str() == Some(library))
        .ok_or_else(|| format!("{library} is not in the probe's tree"))?;
    let features: HashMap<&str, Vec<&str>> = package["features"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(name, entries)| {
            let entries = entries
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            (name.as_str(), entries)
        })
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
    let built_in_h2 = package["dependencies"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|dependency| {
            dependency["name"].as_str() == Some("h2")
                && dependency["optional"].as_bool() == Some(false)
        });
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
        version: package["version"].as_str().unwrap_or_default().to_owned(),
        msrv: package["rust_version"].as_str().map(str::to_owned),
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

/// `1.71.1` as numbers, for comparing.
fn version_key(version: &str) -> Vec<u64> {
    version
        .split('.')
        .map(|part| part.parse().unwrap_or(0))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const METADATA: &str = r#"{
      "packages": [
        {"id": "probe", "name": "adoption-probe-x", "version": "0.1.0", "features": {}},
        {"id": "lib", "name": "lib", "version": "2.0.1", "rust_version": "1.70",
         "features": {"default": ["tls", "gzip"], "tls": ["dep:rustls"], "http2": ["dep:h2"],
                      "gzip": [], "brotli": [], "_private": []}},
        {"id": "ring", "name": "ring", "version": "0.17.0", "rust_version": "1.66",
         "features": {}},
        {"id": "cc", "name": "cc", "version": "1.2.0", "rust_version": "1.63", "features": {}},
        {"id": "sys", "name": "openssl-sys", "version": "0.9.0", "rust_version": "1.9.1",
         "features": {}},
        {"id": "pkgc", "name": "pkg-config", "version": "0.3.0", "features": {}}
      ],
      "resolve": {
        "root": "probe",
        "nodes": [
          {"id": "probe", "deps": [{"pkg": "lib", "dep_kinds": [{"kind": null}]}]},
          {"id": "lib", "deps": [{"pkg": "ring", "dep_kinds": [{"kind": null}]}]},
          {"id": "ring", "deps": [{"pkg": "cc", "dep_kinds": [{"kind": "build"}]}]},
          {"id": "cc", "deps": []},
          {"id": "sys", "deps": [{"pkg": "cc", "dep_kinds": [{"kind": "build"}]},
                                 {"pkg": "pkgc", "dep_kinds": [{"kind": "build"}]}]},
          {"id": "pkgc", "deps": []}
        ]
      }
    }"#;

    #[test]
    fn the_tree_is_counted_and_its_native_builds_named() {
        let (tree, value) = parse(METADATA).unwrap();
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
        let (_, bare) = parse(&METADATA.replace(
            r#""http2": ["dep:h2"],
                      "gzip": [], "brotli": [], "#,
            "",
        ))
        .unwrap();
        let bare = super::library(&bare, "lib", &names).unwrap();
        assert_eq!(bare.http2, ["built in (h2)"]);
        assert_eq!(bare.compression, ["built in (libz-sys)"]);
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
