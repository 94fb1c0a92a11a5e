//! ISO 4217 currency codes and their minor units.

use std::fmt;

/// An active ISO 4217 currency: a known three-letter code and its minor-unit digits.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Currency {
    code: [u8; 3],
    minor_units: u8,
}

/// Why a string is not a currency.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CurrencyError {
    #[error("a currency code is three upper-case letters (ISO 4217), got {0:?}")]
    Malformed(String),
    #[error("{0} is not an ISO 4217 currency code")]
    Unknown(String),
}

impl Currency {
    pub const USD: Currency = Currency {
        code: *b"USD",
        minor_units: 2,
    };
    pub const EUR: Currency = Currency {
        code: *b"EUR",
        minor_units: 2,
    };

    /// Parses an ISO 4217 code: exactly three upper-case ASCII letters, and a known currency.
    pub fn parse(code: &str) -> Result<Self, CurrencyError> {
        let bytes = code.as_bytes();
        let Ok(code_bytes) = <[u8; 3]>::try_from(bytes) else {
            return Err(CurrencyError::Malformed(truncate_for_message(code)));
        };
        if !code_bytes.iter().all(u8::is_ascii_uppercase) {
            return Err(CurrencyError::Malformed(truncate_for_message(code)));
        }
        ISO_4217
            .binary_search_by(|(known, _)| known.as_bytes().cmp(&code_bytes[..]))
            .map(|index| Currency {
                code: code_bytes,
                minor_units: ISO_4217[index].1,
            })
            .map_err(|_| CurrencyError::Unknown(code.to_owned()))
    }

    /// The three-letter code.
    pub fn code(&self) -> &str {
        // The bytes were checked to be ASCII upper-case letters in `parse`.
        std::str::from_utf8(&self.code).unwrap_or("???")
    }

    /// Digits after the decimal point in this currency's smallest unit (2 for EUR, 0 for JPY, 3 for KWD).
    pub fn minor_units(&self) -> u32 {
        u32::from(self.minor_units)
    }

    /// Every currency this crate knows, in code order.
    pub fn all() -> impl Iterator<Item = Currency> {
        ISO_4217.iter().map(|(code, minor_units)| Currency {
            code: code.as_bytes().try_into().unwrap_or(*b"XXX"),
            minor_units: *minor_units,
        })
    }
}

impl std::str::FromStr for Currency {
    type Err = CurrencyError;
    fn from_str(code: &str) -> Result<Self, Self::Err> {
        Currency::parse(code)
    }
}

/// Keeps error messages bounded when a caller sends a huge string as a currency.
fn truncate_for_message(input: &str) -> String {
    input.chars().take(16).collect()
}

impl fmt::Display for Currency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

impl fmt::Debug for Currency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Currency({})", self.code())
    }
}

/// Active ISO 4217 currencies (list of 2024) with their minor units, sorted by code.
/// Funds, precious metals and testing codes (XAU, XTS, ...) are left out: nobody pays in them.
#[rustfmt::skip]
const ISO_4217: &[(&str, u8)] = &[
    ("AED", 2), ("AFN", 2), ("ALL", 2), ("AMD", 2), ("ANG", 2), ("AOA", 2), ("ARS", 2),
    ("AUD", 2), ("AWG", 2), ("AZN", 2), ("BAM", 2), ("BBD", 2), ("BDT", 2), ("BGN", 2),
    ("BHD", 3), ("BIF", 0), ("BMD", 2), ("BND", 2), ("BOB", 2), ("BRL", 2), ("BSD", 2),
    ("BTN", 2), ("BWP", 2), ("BYN", 2), ("BZD", 2), ("CAD", 2), ("CDF", 2), ("CHF", 2),
    ("CLP", 0), ("CNY", 2), ("COP", 2), ("CRC", 2), ("CUP", 2), ("CVE", 2), ("CZK", 2),
    ("DJF", 0), ("DKK", 2), ("DOP", 2), ("DZD", 2), ("EGP", 2), ("ERN", 2), ("ETB", 2),
    ("EUR", 2), ("FJD", 2), ("FKP", 2), ("GBP", 2), ("GEL", 2), ("GHS", 2), ("GIP", 2),
    ("GMD", 2), ("GNF", 0), ("GTQ", 2), ("GYD", 2), ("HKD", 2), ("HNL", 2), ("HTG", 2),
    ("HUF", 2), ("IDR", 2), ("ILS", 2), ("INR", 2), ("IQD", 3), ("IRR", 2), ("ISK", 0),
    ("JMD", 2), ("JOD", 3), ("JPY", 0), ("KES", 2), ("KGS", 2), ("KHR", 2), ("KMF", 0),
    ("KPW", 2), ("KRW", 0), ("KWD", 3), ("KYD", 2), ("KZT", 2), ("LAK", 2), ("LBP", 2),
    ("LKR", 2), ("LRD", 2), ("LSL", 2), ("LYD", 3), ("MAD", 2), ("MDL", 2), ("MGA", 2),
    ("MKD", 2), ("MMK", 2), ("MNT", 2), ("MOP", 2), ("MRU", 2), ("MUR", 2), ("MVR", 2),
    ("MWK", 2), ("MXN", 2), ("MYR", 2), ("MZN", 2), ("NAD", 2), ("NGN", 2), ("NIO", 2),
    ("NOK", 2), ("NPR", 2), ("NZD", 2), ("OMR", 3), ("PAB", 2), ("PEN", 2), ("PGK", 2),
    ("PHP", 2), ("PKR", 2), ("PLN", 2), ("PYG", 0), ("QAR", 2), ("RON", 2), ("RSD", 2),
    ("RUB", 2), ("RWF", 0), ("SAR", 2), ("SBD", 2), ("SCR", 2), ("SDG", 2), ("SEK", 2),
    ("SGD", 2), ("SHP", 2), ("SLE", 2), ("SOS", 2), ("SRD", 2), ("SSP", 2), ("STN", 2),
    ("SVC", 2), ("SYP", 2), ("SZL", 2), ("THB", 2), ("TJS", 2), ("TMT", 2), ("TND", 3),
    ("TOP", 2), ("TRY", 2), ("TTD", 2), ("TWD", 2), ("TZS", 2), ("UAH", 2), ("UGX", 0),
    ("USD", 2), ("UYU", 2), ("UZS", 2), ("VES", 2), ("VND", 0), ("VUV", 0), ("WST", 2),
    ("XAF", 0), ("XCD", 2), ("XOF", 0), ("XPF", 0), ("YER", 2), ("ZAR", 2), ("ZMW", 2),
    ("ZWG", 2),
];

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn table_is_sorted_and_unique_so_binary_search_works() {
        assert!(ISO_4217.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn knows_minor_units() {
        assert_eq!(Currency::parse("EUR").map(|c| c.minor_units()), Ok(2));
        assert_eq!(Currency::parse("JPY").map(|c| c.minor_units()), Ok(0));
        assert_eq!(Currency::parse("KWD").map(|c| c.minor_units()), Ok(3));
        assert_eq!(Currency::parse("USD"), Ok(Currency::USD));
    }

    #[test]
    fn rejects_malformed_and_unknown_codes() {
        assert!(matches!(
            Currency::parse("eur"),
            Err(CurrencyError::Malformed(_))
        ));
        assert!(matches!(
            Currency::parse("EURO"),
            Err(CurrencyError::Malformed(_))
        ));
        assert!(matches!(
            Currency::parse(""),
            Err(CurrencyError::Malformed(_))
        ));
        assert!(matches!(
            Currency::parse("ÉUR"),
            Err(CurrencyError::Malformed(_))
        ));
        assert_eq!(
            Currency::parse("ABC"),
            Err(CurrencyError::Unknown("ABC".to_owned()))
        );
    }

    proptest! {
        #[test]
        fn parse_never_panics_and_round_trips(input in "\\PC{0,8}") {
            if let Ok(currency) = Currency::parse(&input) {
                prop_assert_eq!(currency.code(), input.as_str());
            }
        }

        #[test]
        fn every_known_code_parses_to_itself(index in 0..ISO_4217.len()) {
            let (code, digits) = ISO_4217[index];
            let currency = Currency::parse(code).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(currency.code(), code);
            prop_assert_eq!(currency.minor_units(), u32::from(digits));
        }
    }
}
