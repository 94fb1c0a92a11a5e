//! Reading the environment of a run: machine, OS, compiler, crate versions.

use std::fs;

use bench_model::{CrateVersion, Environment};

/// Reads the machine's description; anything unreadable becomes "unknown".
pub fn collect(started_utc: String) -> Environment {
    let cpuinfo = fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu = parse_cpuinfo(&cpuinfo);
    let logical_cores =
        std::thread::available_parallelism().map_or(cpu.logical.max(1), std::num::NonZero::get);
    Environment {
        bench_version: env!("CARGO_PKG_VERSION").to_owned(),
        started_utc,
        os: fs::read_to_string("/etc/os-release")
            .ok()
            .and_then(|text| parse_os_release(&text))
            .unwrap_or_else(|| std::env::consts::OS.to_owned()),
        kernel: kernel(),
        cpu_model: cpu.model.unwrap_or_else(|| "unknown CPU".to_owned()),
        logical_cores,
        physical_cores: cpu.physical,
        load_average: crate::measure::machine::load_average(),
        rustc: env!("BENCH_RUSTC_VERSION").to_owned(),
        build_profile: env!("BENCH_BUILD_PROFILE").to_owned(),
        target: env!("BENCH_TARGET").to_owned(),
        crates: parse_crate_versions(env!("BENCH_CRATE_VERSIONS")),
        tls_libraries: vec![
            format!("{} (system)", openssl::version::version()),
            rates_isahc::libcurl_version(),
        ],
    }
}

fn kernel() -> String {
    let read = |path: &str| {
        fs::read_to_string(path)
            .map(|text| text.trim().to_owned())
            .ok()
    };
    let name = read("/proc/sys/kernel/ostype").unwrap_or_else(|| std::env::consts::OS.to_owned());
    let release = read("/proc/sys/kernel/osrelease").unwrap_or_else(|| "?".to_owned());
    format!("{name} {release} {}", std::env::consts::ARCH)
}

/// PRETTY_NAME, else NAME VERSION, from the text of /etc/os-release.
pub fn parse_os_release(text: &str) -> Option<String> {
    let value = |key: &str| {
        text.lines().find_map(|line| {
            let rest = line.trim().strip_prefix(key)?.strip_prefix('=')?;
            let unquoted = rest.trim().trim_matches('"').trim_matches('\'');
            (!unquoted.is_empty()).then(|| unquoted.to_owned())
        })
    };
    value("PRETTY_NAME").or_else(|| {
        let name = value("NAME")?;
        Some(match value("VERSION") {
            Some(version) => format!("{name} {version}"),
            None => name,
        })
    })
}

/// What /proc/cpuinfo says about the processor.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct CpuInfo {
    pub model: Option<String>,
    pub logical: usize,
    pub physical: Option<usize>,
}

pub fn parse_cpuinfo(text: &str) -> CpuInfo {
    let mut info = CpuInfo::default();
    let mut cores = Vec::new();
    let mut physical_id = None;
    for line in text.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let (key, value) = (key.trim(), value.trim());
        match key {
            "processor" => info.logical += 1,
            "model name" | "Model" if info.model.is_none() => info.model = Some(value.to_owned()),
            "physical id" => physical_id = Some(value.to_owned()),
            "core id" => {
                let core = (physical_id.clone().unwrap_or_default(), value.to_owned());
                if !cores.contains(&core) {
                    cores.push(core);
                }
            }
            _ => {}
        }
    }
    info.physical = (!cores.is_empty()).then_some(cores.len());
    info
}

/// Reads build.rs's `name=v1,v2;name=v` list.
fn parse_crate_versions(encoded: &str) -> Vec<CrateVersion> {
    encoded
        .split(';')
        .filter_map(|entry| {
            let (name, version) = entry.split_once('=')?;
            Some(CrateVersion {
                name: name.to_owned(),
                version: version.replace(',', " + "),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_os_release() {
        let text = "NAME=\"Debian GNU/Linux\"\nVERSION=\"12 (bookworm)\"\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n";
        assert_eq!(
            parse_os_release(text).as_deref(),
            Some("Debian GNU/Linux 12 (bookworm)")
        );
        assert_eq!(
            parse_os_release("NAME=Alpine\nVERSION=3.20\n").as_deref(),
            Some("Alpine 3.20")
        );
        assert_eq!(parse_os_release(""), None);
    }

    #[test]
    fn reads_cpuinfo() {
        let text = "processor\t: 0\nmodel name\t: Some CPU @ 2.00GHz\nphysical id\t: 0\ncore id\t\t: 0\n\n\
                    processor\t: 1\nmodel name\t: Some CPU @ 2.00GHz\nphysical id\t: 0\ncore id\t\t: 0\n";
        let info = parse_cpuinfo(text);
        assert_eq!(info.model.as_deref(), Some("Some CPU @ 2.00GHz"));
        assert_eq!((info.logical, info.physical), (2, Some(1)));
        assert_eq!(parse_cpuinfo("").physical, None);
    }

    #[test]
    fn the_build_script_found_the_clients() {
        let env = collect("now".to_owned());
        let names: Vec<&str> = env.crates.iter().map(|c| c.name.as_str()).collect();
        for client in [
            "awc",
            "reqwest",
            "ureq",
            "isahc",
            "hyper",
            "hyper-util",
            "actix-web",
        ] {
            assert!(names.contains(&client), "{client} missing from {names:?}");
        }
        assert!(env.rustc.starts_with("rustc "));
        assert!(env.tls_libraries[0].starts_with("OpenSSL "), "{env:?}");
        assert!(env.tls_libraries[1].starts_with("libcurl "), "{env:?}");
    }
}
