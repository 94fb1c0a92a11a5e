//! Money, currencies, exchange rates and conversion: pure values, no I/O, no async.

mod conversion;
mod currency;
mod money;
mod pair;
mod rate;
mod resolution;

pub use conversion::{Conversion, ConversionError, convert};
pub use currency::{Currency, CurrencyError};
pub use money::{Amount, AmountError, MAX_AMOUNT};
pub use pair::CurrencyPair;
pub use rate::{Quote, Rate, RateError, RateTimestamp};
pub use resolution::{Leg, RatePlan, ResolveError, ResolvedRate};
