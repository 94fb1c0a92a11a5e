//! reqwest's async client as an adapter of the port ([`ReqwestRates`]), on the builder both
//! clients share (`builder`).

use application::{Quotes, RatesError, RatesProvider};
use async_trait::async_trait;
use domain::CurrencyPair;
use rates_common::{
    BodyDecode, BodyPieces, BoundedBody, BuildError, ClientSettings, HttpVersion, Received,
    UpstreamCall,
};

use crate::builder::{self, ReqwestOptions, ReqwestTls, build_failed, configured, rates_error};

/// Fetches rates with one reqwest client, built once.
#[derive(Debug)]
pub struct ReqwestRates {
    client: reqwest::Client,
    http_version: HttpVersion,
    decode: BodyDecode,
    call: UpstreamCall,
}

impl ReqwestRates {
    pub const NAME: &'static str = builder::NAME;
    /// The HTTP versions it speaks, with either backend: HTTP/1.1, and HTTP/2 over TLS.
    pub const HTTP_VERSIONS: &'static [HttpVersion] = &HttpVersion::ALL;
    /// Both ways of decoding: streamed, from the chunks as reqwest received them.
    pub const DECODES: &'static [BodyDecode] = &BodyDecode::ALL;

    /// The client as this adapter configured it (TLS, pool, timeouts), for calls that skip
    /// the port and the adapter's frame: the bench's bare calls, which measure what both cost.
    pub fn client(&self) -> &reqwest::Client {
        &self.client
    }

    /// Builds the client and its pool from `settings`, with reqwest's default TLS backend.
    ///
    /// # Errors
    /// As [`Self::with_tls`].
    pub fn new(settings: &ClientSettings) -> Result<Self, BuildError> {
        Self::with_tls(settings, ReqwestTls::Rustls)
    }

    /// Builds the client and its pool from `settings`, with the TLS backend `backend`.
    ///
    /// # Errors
    /// A `BuildError` when the settings are unusable (see [`ClientSettings::check_with_tls`]),
    /// the extra CAs are unusable or no root is trusted, or reqwest cannot build its client.
    pub fn with_tls(settings: &ClientSettings, backend: ReqwestTls) -> Result<Self, BuildError> {
        Self::with_options(settings, backend, ReqwestOptions::DEFAULT)
    }

    /// Builds the client and its pool from `settings`, with the TLS backend `backend` and the
    /// settings of a finding's row `options` (the resolver, the retry policy).
    ///
    /// # Errors
    /// As [`Self::with_tls`]; and [`ReqwestResolver::HickoryDns`](crate::ReqwestResolver) in a
    /// build without this crate's `hickory-dns` feature.
    pub fn with_options(
        settings: &ClientSettings,
        backend: ReqwestTls,
        options: ReqwestOptions,
    ) -> Result<Self, BuildError> {
        let name = options.client_name(backend);
        let client = configured(settings, backend, options, name)?
            .build()
            .map_err(|error| build_failed(name, &error))?;
        Ok(Self {
            client,
            http_version: settings.http_version,
            decode: settings.decode,
            call: UpstreamCall::new(name, settings),
        })
    }

    /// One GET, its status and its body: whole, or as the chunks reqwest received.
    async fn exchange(&self, pairs: &[CurrencyPair]) -> Result<(u16, Received), RatesError> {
        let mut response = self
            .client
            .get(self.call.url(pairs))
            .send()
            .await
            .map_err(|error| self.error(&error))?;
        self.http_version
            .check_answer(&response.version(), &reqwest::Version::HTTP_2)?;
        let status = response.status().as_u16();
        let declared = response.content_length();
        if self.decode == BodyDecode::Streamed {
            let mut pieces = BodyPieces::new(declared, self.call.max_body_bytes)?;
            while let Some(chunk) = response.chunk().await.map_err(|error| self.error(&error))? {
                pieces.push(chunk)?;
            }
            return Ok((status, pieces.into()));
        }
        let mut body = BoundedBody::new(declared, self.call.max_body_bytes)?;
        while let Some(chunk) = response.chunk().await.map_err(|error| self.error(&error))? {
            body.extend(&chunk)?;
        }
        Ok((status, body.into_vec().into()))
    }

    fn error(&self, error: &reqwest::Error) -> RatesError {
        rates_error(
            error,
            self.http_version,
            self.call.connect_timeout,
            self.call.timeout,
        )
    }
}

#[async_trait(?Send)]
impl RatesProvider for ReqwestRates {
    async fn fetch_quotes(&self, pairs: &[CurrencyPair]) -> Result<Quotes, RatesError> {
        self.call.run(pairs, self.exchange(pairs)).await
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[test]
    fn every_backend_refuses_an_extra_ca_that_is_no_certificate() {
        let settings = ClientSettings {
            extra_ca_pem: Some(Arc::from(&b"not a certificate"[..])),
            ..ClientSettings::for_base_url("https://localhost:8443")
        };
        let plain = ClientSettings {
            base_url: "http://localhost:8081".to_owned(),
            ..settings.clone()
        };
        for backend in ReqwestTls::ALL {
            let error = ReqwestRates::with_tls(&settings, backend).unwrap_err();
            assert_eq!(error.client, backend.client_name());
            assert!(error.reason.contains("no certificate"), "{error}");
            // Plain HTTP loads no roots and so cannot fail on them.
            assert!(ReqwestRates::with_tls(&plain, backend).is_ok());
            // HTTP/2 is negotiated by ALPN, over TLS only.
            let h2c = ClientSettings {
                http_version: HttpVersion::Http2,
                ..plain.clone()
            };
            let error = ReqwestRates::with_tls(&h2c, backend).unwrap_err();
            assert!(error.reason.contains("https://"), "{error}");
        }
    }
}
