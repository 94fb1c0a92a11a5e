//! Settings: `config/default.toml` (compiled in, so the binary runs from any directory), then
//! `APP__SECTION__KEY` environment variables.

use std::sync::Arc;
use std::time::Duration;

use application::RetryPolicy;
use config::{Config, Environment, File, FileFormat};
use rates_common::{BodyDecode, ClientSettings, HttpVersion};
use serde::{Deserialize, Deserializer};

/// The size of actix-http's buffer for a request head that is not complete yet: a head that
/// reaches it is answered 431 by actix-http itself (`h1::decoder::MAX_BUFFER_SIZE`), so a
/// configured limit must stay below it to be the one that applies.
pub const ACTIX_HEAD_BUFFER_BYTES: usize = 131_072;

const DEFAULTS: &str = include_str!("../../config/default.toml");

#[derive(Clone, Debug, Deserialize)]
pub struct Settings {
    pub server: ServerSettings,
    pub rates: RatesSettings,
    pub payments: PaymentSettings,
    pub log: LogSettings,
}

#[derive(Clone, Debug, Deserialize)]
pub struct ServerSettings {
    pub host: String,
    pub port: u16,
    pub workers: usize,
    pub max_body_bytes: usize,
    pub max_header_bytes: usize,
    pub keep_alive_secs: u64,
    pub max_payments_in_flight: usize,
    pub shutdown_timeout_secs: u64,
}

#[derive(Clone, Debug, Deserialize)]
pub struct RatesSettings {
    pub base_url: String,
    pub ca_file: String,
    /// Read from text: an environment variable `2` or `1.1` arrives as a number.
    #[serde(deserialize_with = "http_version_from_text")]
    pub http_version: HttpVersion,
    pub timeout_ms: u64,
    pub connect_timeout_ms: u64,
    pub max_connections: usize,
    pub max_idle_per_host: usize,
    pub idle_timeout_ms: u64,
    pub pool_wait_ms: u64,
    pub blocking_threads: usize,
    pub max_body_bytes: usize,
    pub retry_max_attempts: u32,
    pub retry_base_backoff_ms: u64,
    pub retry_max_backoff_ms: u64,
}

/// `rates.http_version` from its text, "1.1" or "2", or the number the environment's `1.1`
/// or `2` is parsed into (`try_parsing`), which `config` turns back into the same text.
fn http_version_from_text<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<HttpVersion, D::Error> {
    let text = String::deserialize(deserializer)?;
    text.parse().map_err(|error| {
        serde::de::Error::custom(format!(
            "rates.http_version (APP__RATES__HTTP_VERSION): {error}"
        ))
    })
}

#[derive(Clone, Debug, Deserialize)]
pub struct PaymentSettings {
    pub max_batch: usize,
    pub max_batch_body_bytes: usize,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    Text,
    Json,
}

#[derive(Clone, Debug, Deserialize)]
pub struct LogSettings {
    pub format: LogFormat,
}

impl Settings {
    /// The compiled-in defaults overlaid with `APP__*` variables from the environment.
    pub fn load() -> Result<Self, config::ConfigError> {
        Self::from_sources(Some(environment()))
    }

    /// The compiled-in defaults alone (for tests and embedding).
    pub fn defaults() -> Result<Self, config::ConfigError> {
        Self::from_sources(None)
    }

    fn from_sources(environment: Option<Environment>) -> Result<Self, config::ConfigError> {
        let mut builder = Config::builder().add_source(File::from_str(DEFAULTS, FileFormat::Toml));
        if let Some(environment) = environment {
            builder = builder.add_source(environment);
        }
        let settings: Settings = builder.build()?.try_deserialize()?;
        settings.check()?;
        Ok(settings)
    }

    fn check(&self) -> Result<(), config::ConfigError> {
        let invalid =
            |key: &str, why: &str| Err(config::ConfigError::Message(format!("{key}: {why}")));
        let base_url = self.rates.base_url.trim();
        if !base_url.is_empty()
            && !base_url.starts_with("http://")
            && !base_url.starts_with("https://")
        {
            return invalid(
                "rates.base_url",
                "must start with http:// or https:// (or be empty for the embedded mock)",
            );
        }
        if self.rates.http_version == HttpVersion::Http2 && !base_url.starts_with("https://") {
            return invalid(
                "rates.http_version",
                "\"2\" needs an https:// rates.base_url: HTTP/2 is negotiated by ALPN over TLS \
                 (h2c, HTTP/2 in the clear, is not offered), and the embedded mock speaks plain \
                 HTTP",
            );
        }
        if self.rates.timeout_ms == 0 || self.rates.connect_timeout_ms == 0 {
            return invalid(
                "rates.timeout_ms / rates.connect_timeout_ms",
                "must be positive",
            );
        }
        if self.rates.max_connections == 0 || self.rates.blocking_threads == 0 {
            return invalid(
                "rates.max_connections / rates.blocking_threads",
                "must be positive",
            );
        }
        if self.rates.retry_max_attempts == 0 {
            return invalid(
                "rates.retry_max_attempts",
                "must be at least 1 (1 = no retry)",
            );
        }
        if !(1..ACTIX_HEAD_BUFFER_BYTES).contains(&self.server.max_header_bytes) {
            return invalid(
                "server.max_header_bytes",
                &format!(
                    "must be from 1 to {}: actix-http answers a request head of \
                     {ACTIX_HEAD_BUFFER_BYTES} bytes (128 KiB) or more itself, with a bare 431",
                    ACTIX_HEAD_BUFFER_BYTES - 1
                ),
            );
        }
        if self.payments.max_batch == 0 || self.server.max_body_bytes == 0 {
            return invalid(
                "payments.max_batch / server.max_body_bytes",
                "must be positive",
            );
        }
        Ok(())
    }
}

/// The `APP__SECTION__KEY` variables, values parsed as numbers and booleans where they are.
fn environment() -> Environment {
    Environment::with_prefix("APP")
        .prefix_separator("__")
        .separator("__")
        .try_parsing(true)
}

impl RatesSettings {
    /// The configured upstream, or `None` to start the embedded mock.
    pub fn upstream(&self) -> Option<&str> {
        Some(self.base_url.trim()).filter(|url| !url.is_empty())
    }

    /// How failed rate fetches are retried (not at all by default).
    pub fn retry_policy(&self) -> RetryPolicy {
        RetryPolicy {
            max_attempts: self.retry_max_attempts,
            base_backoff: Duration::from_millis(self.retry_base_backoff_ms),
            max_backoff: Duration::from_millis(self.retry_max_backoff_ms),
        }
    }

    /// What every adapter is built with, pointed at `base_url`, with the CAs of `ca_file`.
    ///
    /// # Errors
    /// `ca_file` cannot be read.
    pub fn client_settings(&self, base_url: &str) -> Result<ClientSettings, CaFileError> {
        let ca_file = self.ca_file.trim();
        let extra_ca_pem = if ca_file.is_empty() {
            None
        } else {
            let pem = std::fs::read(ca_file).map_err(|source| CaFileError {
                path: ca_file.to_owned(),
                source,
            })?;
            Some(Arc::from(pem))
        };
        Ok(ClientSettings {
            base_url: base_url.trim_end_matches('/').to_owned(),
            connect_timeout: Duration::from_millis(self.connect_timeout_ms),
            timeout: Duration::from_millis(self.timeout_ms),
            max_connections: self.max_connections,
            max_idle_per_host: self.max_idle_per_host,
            idle_timeout: Duration::from_millis(self.idle_timeout_ms),
            pool_wait: Duration::from_millis(self.pool_wait_ms),
            blocking_threads: self.blocking_threads,
            max_body_bytes: self.max_body_bytes,
            extra_ca_pem,
            http_version: self.http_version,
            // The service reads every answer whole; the bench measures the other way.
            decode: BodyDecode::Whole,
        })
    }
}

/// `rates.ca_file` could not be read.
#[derive(Debug, thiserror::Error)]
#[error("rates.ca_file (APP__RATES__CA_FILE) {path:?} cannot be read: {source}")]
pub struct CaFileError {
    pub path: String,
    #[source]
    pub source: std::io::Error,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The defaults overlaid with `variables`, as `APP__*` environment variables would be.
    fn with_environment(variables: &[(&str, &str)]) -> Result<Settings, config::ConfigError> {
        let variables = variables
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect();
        Settings::from_sources(Some(environment().source(Some(variables))))
    }

    #[test]
    fn http_version_is_1_1_unless_set() {
        let settings = Settings::defaults().unwrap();
        assert_eq!(settings.rates.http_version, HttpVersion::Http11);
        let client = settings
            .rates
            .client_settings("http://127.0.0.1:1")
            .unwrap();
        assert_eq!(client.http_version, HttpVersion::Http11);
    }

    #[test]
    fn http_version_is_read_from_the_environment() {
        let https = ("APP__RATES__BASE_URL", "https://localhost:8443");
        let settings = with_environment(&[https, ("APP__RATES__HTTP_VERSION", "2")]).unwrap();
        assert_eq!(settings.rates.http_version, HttpVersion::Http2);
        let client = settings
            .rates
            .client_settings("https://localhost:8443")
            .unwrap();
        assert_eq!(client.http_version, HttpVersion::Http2);
        let settings = with_environment(&[https, ("APP__RATES__HTTP_VERSION", "1.1")]).unwrap();
        assert_eq!(settings.rates.http_version, HttpVersion::Http11);
    }

    #[test]
    fn an_unknown_http_version_is_refused_clearly() {
        for wrong in ["3", "h2", "HTTP/2", ""] {
            let error = with_environment(&[("APP__RATES__HTTP_VERSION", wrong)])
                .unwrap_err()
                .to_string();
            assert!(
                error.contains("rates.http_version") && error.contains(r#"use "1.1" or "2""#),
                "{wrong:?}: {error}"
            );
        }
    }

    #[test]
    fn the_header_limit_is_16_kib_unless_set_and_stays_under_actix_http_s_own() {
        assert_eq!(
            Settings::defaults().unwrap().server.max_header_bytes,
            16_384
        );
        let set = with_environment(&[("APP__SERVER__MAX_HEADER_BYTES", "8192")]).unwrap();
        assert_eq!(set.server.max_header_bytes, 8192);
        let highest = with_environment(&[("APP__SERVER__MAX_HEADER_BYTES", "131071")]).unwrap();
        assert_eq!(highest.server.max_header_bytes, 131_071);
        for refused in ["0", "131072", "1048576"] {
            let error = with_environment(&[("APP__SERVER__MAX_HEADER_BYTES", refused)])
                .unwrap_err()
                .to_string();
            assert!(
                error.contains("server.max_header_bytes") && error.contains("131071"),
                "{refused}: {error}"
            );
        }
    }

    #[test]
    fn http2_needs_an_https_upstream() {
        for base_url in ["http://127.0.0.1:8081", ""] {
            let error = with_environment(&[
                ("APP__RATES__BASE_URL", base_url),
                ("APP__RATES__HTTP_VERSION", "2"),
            ])
            .unwrap_err()
            .to_string();
            assert!(
                error.contains("rates.http_version") && error.contains("https://"),
                "{base_url:?}: {error}"
            );
        }
    }
}
