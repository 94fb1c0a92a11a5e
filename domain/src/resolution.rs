//! Which upstream pairs a conversion needs, and how their rates combine.

use crate::{Currency, CurrencyPair, Quote, Rate, RateTimestamp};

/// One upstream pair used in a conversion, read directly or inverted (1 / rate).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Leg {
    pub pair: CurrencyPair,
    pub inverted: bool,
}

/// How to obtain the rate from one currency to another with the pairs the upstream quotes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RatePlan {
    /// Same currency: the rate is 1 and no upstream call is needed.
    Identity,
    /// The pair itself (EURUSD for EUR->USD) or its inverse (EURUSD for USD->EUR).
    Single(Leg),
    /// Through USD: FROM->USD then USD->TO, each direct or inverted, fetched in one call.
    Cross(Leg, Leg),
}

/// A rate plan's outcome: the rate and the time of its oldest quote (none for `Identity`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ResolvedRate {
    pub rate: Rate,
    pub timestamp: Option<RateTimestamp>,
}

/// Why a plan could not produce a rate from the quotes it was given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResolveError {
    #[error("the quotes have no rate for {0}")]
    MissingQuote(CurrencyPair),
    /// Each leg's quote is a rate, but their product is outside the rates' range
    /// (10^-12 to 10^12): data no real market quotes, so the quotes, not the request, are wrong.
    #[error("the cross rate through USD is out of range")]
    OutOfRange,
}

impl Leg {
    /// The leg for `from -> to`, if the upstream quotes that pair or its inverse.
    fn between(from: Currency, to: Currency) -> Option<Leg> {
        let direct = CurrencyPair::new(from, to);
        if direct.is_quoted_upstream() {
            return Some(Leg {
                pair: direct,
                inverted: false,
            });
        }
        let inverse = direct.inverse();
        inverse.is_quoted_upstream().then_some(Leg {
            pair: inverse,
            inverted: true,
        })
    }

    fn rate(&self, quote: Quote) -> Rate {
        if self.inverted {
            quote.rate.inverse()
        } else {
            quote.rate
        }
    }
}

impl RatePlan {
    /// The plan for converting `from` into `to`: direct, else inverse, else a cross through USD.
    /// Every pair of known currencies has a plan, because the upstream quotes USDxxx for all.
    pub fn for_conversion(from: Currency, to: Currency) -> RatePlan {
        if from == to {
            return RatePlan::Identity;
        }
        if let Some(leg) = Leg::between(from, to) {
            return RatePlan::Single(leg);
        }
        match (
            Leg::between(from, Currency::USD),
            Leg::between(Currency::USD, to),
        ) {
            (Some(first), Some(second)) => RatePlan::Cross(first, second),
            // Unreachable for distinct currencies (USDxxx is always quoted), and harmless:
            // asking for the direct pair lets the upstream answer "unsupported".
            _ => RatePlan::Single(Leg {
                pair: CurrencyPair::new(from, to),
                inverted: false,
            }),
        }
    }

    /// The upstream pairs to fetch, in one call: none, one or two.
    pub fn pairs(&self) -> Vec<CurrencyPair> {
        match self {
            RatePlan::Identity => Vec::new(),
            RatePlan::Single(leg) => vec![leg.pair],
            RatePlan::Cross(first, second) => vec![first.pair, second.pair],
        }
    }

    /// Combines the fetched quotes into the rate for the conversion.
    pub fn resolve(
        &self,
        quote_for: impl Fn(&CurrencyPair) -> Option<Quote>,
    ) -> Result<ResolvedRate, ResolveError> {
        let fetch = |leg: &Leg| quote_for(&leg.pair).ok_or(ResolveError::MissingQuote(leg.pair));
        match self {
            RatePlan::Identity => Ok(ResolvedRate {
                rate: Rate::ONE,
                timestamp: None,
            }),
            RatePlan::Single(leg) => {
                let quote = fetch(leg)?;
                Ok(ResolvedRate {
                    rate: leg.rate(quote),
                    timestamp: Some(quote.timestamp),
                })
            }
            RatePlan::Cross(first, second) => {
                let (first_quote, second_quote) = (fetch(first)?, fetch(second)?);
                let rate = first
                    .rate(first_quote)
                    .then(second.rate(second_quote))
                    .ok_or(ResolveError::OutOfRange)?;
                Ok(ResolvedRate {
                    rate,
                    timestamp: Some(first_quote.timestamp.min(second_quote.timestamp)),
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    fn c(code: &str) -> Currency {
        Currency::parse(code).unwrap()
    }

    fn pair(symbol: &str) -> CurrencyPair {
        CurrencyPair::new(c(&symbol[..3]), c(&symbol[3..]))
    }

    fn symbols(plan: RatePlan) -> Vec<String> {
        plan.pairs().iter().map(ToString::to_string).collect()
    }

    #[test]
    fn picks_direct_inverse_or_cross() {
        assert_eq!(
            RatePlan::for_conversion(c("EUR"), c("EUR")),
            RatePlan::Identity
        );
        assert_eq!(
            symbols(RatePlan::for_conversion(c("EUR"), c("USD"))),
            ["EURUSD"]
        );
        assert_eq!(
            symbols(RatePlan::for_conversion(c("USD"), c("JPY"))),
            ["USDJPY"]
        );
        assert_eq!(
            symbols(RatePlan::for_conversion(c("USD"), c("EUR"))),
            ["USDEUR"]
        );
        assert_eq!(
            symbols(RatePlan::for_conversion(c("JPY"), c("USD"))),
            ["USDJPY"]
        );
        assert_eq!(
            symbols(RatePlan::for_conversion(c("GBP"), c("EUR"))),
            ["EURGBP"]
        );
        assert_eq!(
            symbols(RatePlan::for_conversion(c("EUR"), c("JPY"))),
            ["EURUSD", "USDJPY"]
        );
        assert_eq!(
            symbols(RatePlan::for_conversion(c("JPY"), c("CHF"))),
            ["USDJPY", "USDCHF"]
        );
        assert_eq!(
            symbols(RatePlan::for_conversion(c("CHF"), c("AUD"))),
            ["USDCHF", "USDAUD"]
        );
    }

    #[test]
    fn every_pair_of_currencies_has_a_plan_of_quoted_pairs() {
        for from in Currency::all() {
            for to in Currency::all() {
                let plan = RatePlan::for_conversion(from, to);
                assert!(
                    plan.pairs().iter().all(CurrencyPair::is_quoted_upstream),
                    "{plan:?}"
                );
            }
        }
    }

    fn quote(rate: rust_decimal::Decimal, at: i64) -> Quote {
        Quote {
            rate: Rate::new(rate).unwrap(),
            timestamp: RateTimestamp::from_unix(at).unwrap(),
        }
    }

    #[test]
    fn combines_rates() {
        let lookup = |p: &CurrencyPair| match p.to_string().as_str() {
            "EURUSD" => Some(quote(dec!(1.25), 200)),
            "USDJPY" => Some(quote(dec!(150), 100)),
            _ => None,
        };
        let inverse = RatePlan::for_conversion(c("JPY"), c("USD"))
            .resolve(|p: &CurrencyPair| (p.to_string() == "USDJPY").then(|| quote(dec!(125), 1)))
            .unwrap();
        assert_eq!(inverse.rate.value(), dec!(0.008));
        let cross = RatePlan::for_conversion(c("EUR"), c("JPY"))
            .resolve(lookup)
            .unwrap();
        assert_eq!(cross.rate.value(), dec!(187.5));
        assert_eq!(cross.timestamp, RateTimestamp::from_unix(100).ok());
        assert_eq!(
            RatePlan::for_conversion(c("GBP"), c("USD")).resolve(lookup),
            Err(ResolveError::MissingQuote(pair("GBPUSD")))
        );
        let identity = RatePlan::Identity.resolve(lookup).unwrap();
        assert_eq!((identity.rate, identity.timestamp), (Rate::ONE, None));
    }

    /// Each leg is a rate; the product is not: 10^6 x 10^7 = 10^13 (EUR->USD->JPY), and
    /// 10^-7 x 10^-6 = 10^-13 (JPY->USD, USDJPY inverted, then USD->CHF).
    #[test]
    fn a_cross_of_two_rates_outside_the_range_is_out_of_range() {
        let lookup = |p: &CurrencyPair| match p.to_string().as_str() {
            "EURUSD" => Some(quote(dec!(1_000_000), 200)),
            "USDJPY" => Some(quote(dec!(10_000_000), 100)),
            "USDCHF" => Some(quote(dec!(0.000001), 100)),
            _ => None,
        };
        for (from, to) in [("EUR", "JPY"), ("JPY", "CHF")] {
            let plan = RatePlan::for_conversion(c(from), c(to));
            assert!(matches!(plan, RatePlan::Cross(..)), "{plan:?}");
            assert_eq!(
                plan.resolve(lookup),
                Err(ResolveError::OutOfRange),
                "{from}{to}"
            );
        }
        let at_the_edge = |p: &CurrencyPair| match p.to_string().as_str() {
            "EURUSD" | "USDJPY" => Some(quote(dec!(1_000_000), 100)),
            _ => None,
        };
        let cross = RatePlan::for_conversion(c("EUR"), c("JPY"))
            .resolve(at_the_edge)
            .unwrap();
        assert_eq!(cross.rate.value(), dec!(1_000_000_000_000));
    }
}
