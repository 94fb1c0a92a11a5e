//! The use case: convert a payment into its target currency at the current rate.

use domain::{
    Amount, Conversion, ConversionError, Currency, RatePlan, RateTimestamp, ResolveError,
};

use crate::{Quotes, RatesError, RatesProvider, RetryPolicy, Sleeper};

/// A payment to process, already validated at the edge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentRequest {
    pub reference: Option<String>,
    pub amount: Amount,
    pub target_currency: Currency,
}

/// A processed payment: the conversion and the time of the rate it used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessedPayment {
    pub reference: Option<String>,
    pub conversion: Conversion,
    /// When the upstream quoted the rate (the older quote for a cross rate); `None` when the
    /// currencies are the same and no rate was fetched.
    pub rate_timestamp: Option<RateTimestamp>,
    /// Upstream calls made: 0 for the same currency, 1 without retries.
    pub attempts: u32,
}

/// Why a payment could not be processed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PaymentError {
    #[error(transparent)]
    Rates(#[from] RatesError),
    #[error(transparent)]
    Conversion(#[from] ConversionError),
}

/// Converts the payment with a rate from `rates`: the direct pair, its inverse, or a cross
/// through USD, all fetched in one upstream call. The same currency needs no call at all.
///
/// # Errors
/// `PaymentError::Rates` when the rates cannot be fetched, or the upstream's answer cannot
/// give a rate (`Malformed`: it lacks a pair that was asked for, or the two legs of a cross
/// rate multiply to a figure outside the rates' range); `PaymentError::Conversion` when the
/// result cannot be represented or rounds to nothing in the target currency.
pub async fn process_payment(
    rates: &dyn RatesProvider,
    request: PaymentRequest,
) -> Result<ProcessedPayment, PaymentError> {
    process_payment_with_retry(rates, request, &RetryPolicy::OFF, &NoWait).await
}

/// [`process_payment`], retrying a failed rate fetch as `retry` says, waiting with `sleeper`.
///
/// # Errors
/// As [`process_payment`]; a fetch that failed on every attempt gives its last error.
pub async fn process_payment_with_retry(
    rates: &dyn RatesProvider,
    request: PaymentRequest,
    retry: &RetryPolicy,
    sleeper: &dyn Sleeper,
) -> Result<ProcessedPayment, PaymentError> {
    let plan = RatePlan::for_conversion(request.amount.currency(), request.target_currency);
    let mut attempts = 0;
    let quotes = if plan == RatePlan::Identity {
        Quotes::default()
    } else {
        fetch_with_retry(rates, &plan, retry, sleeper, &mut attempts).await?
    };
    let resolved = plan
        .resolve(|pair| quotes.get(pair))
        .map_err(|error| PaymentError::Rates(unusable_quotes(&error, &plan, &quotes)))?;
    let conversion = domain::convert(request.amount, resolved.rate, request.target_currency)?;
    Ok(ProcessedPayment {
        reference: request.reference,
        conversion,
        rate_timestamp: resolved.timestamp,
        attempts,
    })
}

/// The upstream's answer could not give a rate: it lacks a pair that was asked for, or its two
/// legs of a cross rate are each a rate but their product is not (a rate of 10^7 for each leg
/// makes 10^14). Either is the upstream's bad data, not the caller's request: `Malformed`,
/// with the quotes in the message for the log.
fn unusable_quotes(error: &ResolveError, plan: &RatePlan, quotes: &Quotes) -> RatesError {
    match error {
        ResolveError::MissingQuote(pair) => {
            RatesError::Malformed(format!("the answer has no rate for {pair}"))
        }
        ResolveError::OutOfRange => {
            let legs: Vec<String> = plan
                .pairs()
                .iter()
                .filter_map(|pair| {
                    quotes
                        .get(pair)
                        .map(|quote| format!("{pair} {}", quote.rate))
                })
                .collect();
            RatesError::Malformed(format!(
                "the cross rate of the quotes {} is outside the rates' range (10^-12 to 10^12)",
                legs.join(" and ")
            ))
        }
    }
}

async fn fetch_with_retry(
    rates: &dyn RatesProvider,
    plan: &RatePlan,
    retry: &RetryPolicy,
    sleeper: &dyn Sleeper,
    attempts: &mut u32,
) -> Result<Quotes, RatesError> {
    let pairs = plan.pairs();
    loop {
        *attempts += 1;
        match rates.fetch_quotes(&pairs).await {
            Err(error) if *attempts < retry.max_attempts && RetryPolicy::should_retry(&error) => {
                sleeper.sleep(retry.backoff(*attempts)).await;
            }
            result => return result,
        }
    }
}

/// The sleeper of a policy that never waits.
struct NoWait;

#[async_trait::async_trait(?Send)]
impl Sleeper for NoWait {
    async fn sleep(&self, _: std::time::Duration) {}
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use async_trait::async_trait;
    use domain::{CurrencyPair, Quote, Rate};
    use rust_decimal_macros::dec;

    use super::*;
    use crate::Quotes;

    /// A hand-written double of the port: fixed quotes, and a log of the pairs asked for.
    struct FixedRates {
        quotes: Vec<(&'static str, Rate)>,
        calls: RefCell<Vec<Vec<String>>>,
        fail_with: Option<RatesError>,
        /// Calls that fail with `fail_with` before the rest succeed.
        failing_calls: usize,
    }

    impl FixedRates {
        fn new(quotes: Vec<(&'static str, Rate)>) -> Self {
            Self {
                quotes,
                calls: RefCell::new(Vec::new()),
                fail_with: None,
                failing_calls: usize::MAX,
            }
        }
    }

    #[async_trait(?Send)]
    impl RatesProvider for FixedRates {
        async fn fetch_quotes(&self, pairs: &[CurrencyPair]) -> Result<Quotes, RatesError> {
            self.calls
                .borrow_mut()
                .push(pairs.iter().map(ToString::to_string).collect());
            if let Some(error) = &self.fail_with
                && self.calls.borrow().len() <= self.failing_calls
            {
                return Err(error.clone());
            }
            let mut quotes = Quotes::with_capacity(pairs.len());
            for pair in pairs {
                if let Some((_, rate)) = self.quotes.iter().find(|(s, _)| *s == pair.to_string()) {
                    let timestamp = domain::RateTimestamp::from_unix(1_700_000_000).unwrap();
                    quotes.insert(
                        *pair,
                        Quote {
                            rate: *rate,
                            timestamp,
                        },
                    );
                }
            }
            Ok(quotes)
        }
    }

    fn request(amount: &str, from: &str, to: &str) -> PaymentRequest {
        let from = Currency::parse(from).unwrap();
        PaymentRequest {
            reference: Some("inv-1".to_owned()),
            amount: Amount::parse(amount, from).unwrap(),
            target_currency: Currency::parse(to).unwrap(),
        }
    }

    fn rate(text: &str) -> Rate {
        Rate::parse(text).unwrap()
    }

    #[actix_rt::test]
    async fn same_currency_makes_no_upstream_call() {
        let rates = FixedRates::new(vec![]);
        let paid = process_payment(&rates, request("12.50", "EUR", "EUR"))
            .await
            .unwrap();
        assert_eq!(paid.conversion.converted_amount, dec!(12.50));
        assert_eq!(paid.conversion.rate, Rate::ONE);
        assert_eq!(paid.rate_timestamp, None);
        assert!(rates.calls.borrow().is_empty());
    }

    #[actix_rt::test]
    async fn cross_rate_is_fetched_in_one_call() {
        let rates = FixedRates::new(vec![
            ("EURUSD", rate("1.16025")),
            ("USDJPY", rate("156.4295")),
        ]);
        let paid = process_payment(&rates, request("100", "EUR", "JPY"))
            .await
            .unwrap();
        // 100 x 1.16025 x 156.4295 = 18149.7327375 -> 18150 JPY
        assert_eq!(paid.conversion.converted_amount, dec!(18150));
        assert_eq!(*rates.calls.borrow(), vec![vec!["EURUSD", "USDJPY"]]);
        assert_eq!(paid.reference.as_deref(), Some("inv-1"));
    }

    #[actix_rt::test]
    async fn inverse_rate_is_used_when_only_the_inverse_is_quoted() {
        let rates = FixedRates::new(vec![("EURGBP", rate("0.8"))]);
        let paid = process_payment(&rates, request("10", "GBP", "EUR"))
            .await
            .unwrap();
        assert_eq!(paid.conversion.converted_amount, dec!(12.50));
    }

    #[actix_rt::test]
    async fn missing_pair_in_answer_is_malformed() {
        let rates = FixedRates::new(vec![("EURUSD", rate("1.1"))]);
        let error = process_payment(&rates, request("100", "EUR", "JPY"))
            .await
            .unwrap_err();
        assert!(
            matches!(error, PaymentError::Rates(RatesError::Malformed(_))),
            "{error:?}"
        );
    }

    /// Each leg is a rate (10^-12 to 10^12), their product is not: the upstream's bad data,
    /// not the caller's request, so `Malformed` (a 502), naming the quotes for the log.
    #[actix_rt::test]
    async fn a_cross_rate_out_of_range_is_the_upstreams_bad_data() {
        let too_large = FixedRates::new(vec![("EURUSD", rate("1e6")), ("USDJPY", rate("1e7"))]);
        let error = process_payment(&too_large, request("1", "EUR", "JPY"))
            .await
            .unwrap_err();
        assert_eq!(
            error,
            PaymentError::Rates(RatesError::Malformed(
                "the cross rate of the quotes EURUSD 1000000 and USDJPY 10000000 is outside \
                 the rates' range (10^-12 to 10^12)"
                    .to_owned()
            ))
        );
        // JPY->USD (USDJPY inverted) then USD->CHF: 10^-7 x 10^-6 is below 10^-12.
        let too_small =
            FixedRates::new(vec![("USDJPY", rate("1e7")), ("USDCHF", rate("0.000001"))]);
        let error = process_payment(&too_small, request("1", "JPY", "CHF"))
            .await
            .unwrap_err();
        assert!(
            matches!(&error, PaymentError::Rates(RatesError::Malformed(cause)) if cause.contains("USDJPY 10000000 and USDCHF 0.000001")),
            "{error:?}"
        );
        // At the edge the product is a rate, and the payment goes through.
        let at_the_edge = FixedRates::new(vec![("EURUSD", rate("1e6")), ("USDJPY", rate("1e6"))]);
        let paid = process_payment(&at_the_edge, request("1", "EUR", "JPY"))
            .await
            .unwrap();
        assert_eq!(paid.conversion.converted_amount, dec!(1000000000000));
    }

    #[actix_rt::test]
    async fn upstream_errors_pass_through_unchanged() {
        let mut rates = FixedRates::new(vec![]);
        rates.fail_with = Some(RatesError::Timeout("2s".to_owned()));
        let error = process_payment(&rates, request("1", "EUR", "USD"))
            .await
            .unwrap_err();
        assert_eq!(
            error,
            PaymentError::Rates(RatesError::Timeout("2s".to_owned()))
        );
    }

    /// Records the waits instead of waiting.
    #[derive(Default)]
    struct RecordedWaits(RefCell<Vec<std::time::Duration>>);

    #[async_trait(?Send)]
    impl Sleeper for RecordedWaits {
        async fn sleep(&self, duration: std::time::Duration) {
            self.0.borrow_mut().push(duration);
        }
    }

    const RETRY_3: RetryPolicy = RetryPolicy {
        max_attempts: 3,
        base_backoff: std::time::Duration::from_millis(10),
        max_backoff: std::time::Duration::from_millis(100),
    };

    #[actix_rt::test]
    async fn retries_curable_failures_and_counts_the_attempts() {
        let mut rates = FixedRates::new(vec![("EURUSD", rate("1.1"))]);
        rates.fail_with = Some(RatesError::UpstreamStatus(503));
        rates.failing_calls = 2;
        let waits = RecordedWaits::default();
        let paid =
            process_payment_with_retry(&rates, request("10", "EUR", "USD"), &RETRY_3, &waits)
                .await
                .unwrap();
        assert_eq!(paid.attempts, 3);
        assert_eq!(paid.conversion.converted_amount, dec!(11.00));
        let waits = waits.0.borrow();
        assert_eq!(waits.len(), 2);
        assert!(
            waits[0] >= std::time::Duration::from_millis(5)
                && waits[0] <= std::time::Duration::from_millis(10)
        );
        assert!(
            waits[1] >= std::time::Duration::from_millis(10)
                && waits[1] <= std::time::Duration::from_millis(20)
        );
    }

    #[actix_rt::test]
    async fn gives_up_after_max_attempts_and_never_retries_a_bad_body() {
        let mut rates = FixedRates::new(vec![]);
        rates.fail_with = Some(RatesError::Connect("refused".to_owned()));
        let error = process_payment_with_retry(
            &rates,
            request("1", "EUR", "USD"),
            &RETRY_3,
            &RecordedWaits::default(),
        )
        .await
        .unwrap_err();
        assert_eq!(
            error,
            PaymentError::Rates(RatesError::Connect("refused".to_owned()))
        );
        assert_eq!(rates.calls.borrow().len(), 3);

        let mut rates = FixedRates::new(vec![]);
        rates.fail_with = Some(RatesError::Malformed("junk".to_owned()));
        let waits = RecordedWaits::default();
        let error =
            process_payment_with_retry(&rates, request("1", "EUR", "USD"), &RETRY_3, &waits)
                .await
                .unwrap_err();
        assert!(matches!(
            error,
            PaymentError::Rates(RatesError::Malformed(_))
        ));
        assert_eq!(rates.calls.borrow().len(), 1);
        assert!(waits.0.borrow().is_empty());
    }

    #[actix_rt::test]
    async fn without_retry_one_failure_is_final() {
        let mut rates = FixedRates::new(vec![("EURUSD", rate("1.1"))]);
        rates.fail_with = Some(RatesError::Timeout("2s".to_owned()));
        rates.failing_calls = 1;
        assert!(
            process_payment(&rates, request("1", "EUR", "USD"))
                .await
                .is_err()
        );
        assert_eq!(rates.calls.borrow().len(), 1);
        let paid = process_payment(&rates, request("1", "EUR", "USD"))
            .await
            .unwrap();
        assert_eq!(paid.attempts, 1);
    }
}
