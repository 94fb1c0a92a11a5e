//! The values of flags that clap cannot read by itself: answer sizes and call counts.

/// The larger answers the latency suite calls each client for by default: 16 KiB and 1 MiB.
pub const DEFAULT_BODIES: [u64; 2] = [16 * 1024, 1024 * 1024];

/// The larger answer of the load suite's second set of payments by default: 1 MiB.
pub const DEFAULT_LOAD_BODY: u64 = 1024 * 1024;

/// The largest answer mock-rates builds (`/size/N`): 8 MiB.
const MAX_BODY: u64 = 8 * 1024 * 1024;

/// One `--bodies` value: a size in bytes, or `None` for `none`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BodySize(pub(super) Option<u64>);

/// `16384`, `16k`, `1m` or `none`.
pub(super) fn parse_body_size(text: &str) -> Result<BodySize, String> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("none") {
        return Ok(BodySize(None));
    }
    let lower = text.to_ascii_lowercase();
    let (digits, unit) = match lower.as_bytes().last() {
        Some(b'k') => (&lower[..lower.len() - 1], 1024),
        Some(b'm') => (&lower[..lower.len() - 1], 1024 * 1024),
        _ => (&lower[..], 1),
    };
    let bytes = digits
        .parse::<u64>()
        .ok()
        .and_then(|count| count.checked_mul(unit))
        .ok_or_else(|| format!("{text:?} is not a size: bytes, or a number with k or m"))?;
    if (1..=MAX_BODY).contains(&bytes) {
        Ok(BodySize(Some(bytes)))
    } else {
        Err(format!("{text} is out of range: 1 byte to 8m"))
    }
}

/// `LOW,HIGH`: two different call counts of at least 1, in either order.
pub(super) fn call_counts(text: &str) -> Result<(u32, u32), String> {
    let (low, high) = text
        .split_once(',')
        .ok_or_else(|| format!("{text:?} is not two counts LOW,HIGH"))?;
    let count = |value: &str| match value.trim().parse::<u32>() {
        Ok(count) if count > 0 => Ok(count),
        _ => Err(format!("{value:?} is not a call count of at least 1")),
    };
    let (low, high) = (count(low)?, count(high)?);
    if low == high {
        return Err(format!(
            "the two counts must differ (their difference is divided by), got {low} twice"
        ));
    }
    Ok((low.min(high), low.max(high)))
}
