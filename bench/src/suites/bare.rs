//! The bare call: each library's own request for the same URL and the same decode, without
//! the port (`RatesProvider`, whose async-trait boxes every call's future) and without the
//! adapter's frame (the URL built per call, the in-flight limit, the deadline, the bounded
//! body, the error mapping, the log line) and, for ureq and reqwest-blocking, without the hop
//! to the blocking pool:
//! the blocking call runs on the calling thread, as blocking code would make it. It uses the
//! client the adapter built, so TLS, pool and timeouts are the same. The latency suite sets it
//! beside the call through the port, to show what the hexagon costs per call.

use bytes::Bytes;
use domain::CurrencyPair;
use http::{Request, Uri};
use http_body_util::{BodyExt as _, Empty};
use isahc::AsyncReadResponseExt as _;
use rates_common::{ClientSettings, describe};

use application::Quotes;

use rates_catalogue::Adapter;

/// A client's bare call for one set of pairs, its URL built once.
#[derive(Debug)]
pub struct BareCall {
    adapter: Adapter,
    url: String,
    /// The same URL, parsed once, for hyper.
    uri: Uri,
}

impl BareCall {
    /// The bare call of `adapter` for `pairs` on `settings`' upstream.
    pub fn new(
        adapter: Adapter,
        settings: &ClientSettings,
        pairs: &[CurrencyPair],
    ) -> Result<Self, String> {
        let url = rates_common::live_url(&settings.base_url, pairs);
        let uri = url
            .parse()
            .map_err(|error| format!("invalid URL {url:?}: {error}"))?;
        Ok(Self { adapter, url, uri })
    }

    /// One GET, its whole body, status 200 required, and the body decoded for `pairs`.
    pub async fn call(&self, pairs: &[CurrencyPair]) -> Result<Quotes, String> {
        let (status, body) = self.exchange().await?;
        if status != 200 {
            return Err(format!("status {status}"));
        }
        rates_common::decode_quotes(&body, pairs).map_err(|error| error.to_string())
    }

    async fn exchange(&self) -> Result<(u16, Bytes), String> {
        match &self.adapter {
            Adapter::Hyper(adapter) => {
                let request = Request::get(self.uri.clone())
                    .body(Empty::new())
                    .map_err(|error| describe(&error))?;
                let response = adapter
                    .client()
                    .request(request)
                    .await
                    .map_err(|error| describe(&error))?;
                let status = response.status().as_u16();
                let body = response
                    .into_body()
                    .collect()
                    .await
                    .map_err(|error| describe(&error))?;
                Ok((status, body.to_bytes()))
            }
            Adapter::Awc(adapter) => {
                let mut response = adapter
                    .client()
                    .get(self.url.as_str())
                    .send()
                    .await
                    .map_err(|error| error.to_string())?;
                let status = response.status().as_u16();
                let body = response.body().await.map_err(|error| error.to_string())?;
                Ok((status, body))
            }
            Adapter::Reqwest(adapter) => {
                let response = adapter
                    .client()
                    .get(self.url.as_str())
                    .send()
                    .await
                    .map_err(|error| describe(&error))?;
                let status = response.status().as_u16();
                let body = response.bytes().await.map_err(|error| describe(&error))?;
                Ok((status, body))
            }
            Adapter::Ureq(adapter) => {
                let mut response = adapter
                    .agent()
                    .get(self.url.as_str())
                    .call()
                    .map_err(|error| describe(&error))?;
                let status = response.status().as_u16();
                let body = response
                    .body_mut()
                    .read_to_vec()
                    .map_err(|error| describe(&error))?;
                Ok((status, Bytes::from(body)))
            }
            Adapter::ReqwestBlocking(adapter) => {
                let (client, url) = (adapter.client(), self.url.as_str());
                let call = move || {
                    let response = client.get(url).send().map_err(|error| describe(&error))?;
                    let status = response.status().as_u16();
                    let body = response.bytes().map_err(|error| describe(&error))?;
                    Ok((status, body))
                };
                // On the calling thread, as ureq's. A debug build of reqwest panics when its
                // blocking client waits on a thread that runs an async runtime, as this one
                // does: the bench's debug build (its own tests, whose figures are no figures)
                // makes the call on a thread of its own instead.
                if cfg!(debug_assertions) {
                    std::thread::scope(|scope| scope.spawn(call).join())
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                } else {
                    // reqwest waits for its answer by polling a tokio oneshot, and on this
                    // thread that poll draws on the budget of the task being polled (tokio's
                    // cooperative scheduling). After 128 such calls without the task yielding
                    // the budget is spent: the poll returns Pending with its wake deferred until
                    // the task yields, which it cannot while this call blocks, so every call
                    // after waited out its 2 s timeout (a default run's 200 warm-up calls hung
                    // the latency suite; a quick run's 20 never met it). Unconstrained, the
                    // calls draw on no budget.
                    tokio::task::coop::unconstrained(async move { call() }).await
                }
            }
            Adapter::Isahc(adapter) => {
                let mut response = adapter
                    .client()
                    .get_async(self.url.as_str())
                    .await
                    .map_err(|error| describe(&error))?;
                let status = response.status().as_u16();
                let body = response.bytes().await.map_err(|error| describe(&error))?;
                Ok((status, Bytes::from(body)))
            }
        }
    }
}
