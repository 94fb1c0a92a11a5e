//! The Mann-Whitney U test (the Wilcoxon rank-sum test) of two small samples, for figures
//! that are medians of a few repetitions: it asks only whether one run's values tend to lie
//! above the other's, so neither a distribution nor a spread has to be assumed.
//!
//! The p-value is exact, ties included: the values of both runs are pooled and ranked (tied
//! values share their mid-rank), and every way of splitting the pooled ranks into groups of the
//! two sizes is counted, tied values permuted like the rest. Above [`EXACT_UP_TO`] values in
//! all it is the normal approximation with the tie and continuity corrections.

/// The two-sided level the test must reach: the same 99.9% as the Error of every mean.
pub const LEVEL: f64 = 0.001;

/// Most values, both samples together, whose p-value is counted exactly; beyond, the normal
/// approximation is within 1e-3 of it and the count grows with the cube of the values.
pub const EXACT_UP_TO: usize = 60;

/// What the test found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RankTest {
    /// Pairs (one value of `a`, one of `b`) in which `a`'s is the larger, ties counting a half:
    /// 0 when every value of `a` lies below every value of `b`, `a.len() * b.len()` when above.
    pub u: f64,
    /// The two-sided p-value: how likely a U at least this far from its middle is when both
    /// samples come from one distribution.
    pub p: f64,
}

/// The test of `first` against `second`; `None` when either is empty or holds a value that is
/// not finite.
pub fn mann_whitney(first: &[f64], second: &[f64]) -> Option<RankTest> {
    let (size, other_size) = (first.len(), second.len());
    if size == 0 || other_size == 0 || first.iter().chain(second).any(|value| !value.is_finite()) {
        return None;
    }
    let groups = tie_groups(first, second);
    let doubled_rank_sum: usize = groups
        .iter()
        .map(|group| group.doubled_rank * group.of_first)
        .sum();
    let pairs_above = doubled_rank_sum as f64 / 2.0 - (size * (size + 1)) as f64 / 2.0;
    let p_value = if size + other_size <= EXACT_UP_TO {
        exact_p(&groups, size, doubled_rank_sum)
    } else {
        normal_p(&groups, size, other_size, pairs_above)
    };
    Some(RankTest {
        u: pairs_above,
        p: p_value.min(1.0),
    })
}

/// The smallest p-value the test can give samples of `n` and `m` values: both extreme splits,
/// 2 / C(n + m, n) (1 for a single value each).
pub fn smallest_p(n: usize, m: usize) -> f64 {
    (2.0 / binomial(n + m, n)).min(1.0)
}

/// The fewest values in each sample with which the test can reach `level` (C(2k, k) grows about
/// fourfold with each k, so 600 covers any level a float can hold).
pub fn values_needed(level: f64) -> usize {
    (1..=600)
        .find(|&values| smallest_p(values, values) <= level)
        .unwrap_or(usize::MAX)
}

/// Tied values of the pooled samples, in ascending order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct TieGroup {
    /// Twice the group's mid-rank (ranks from 1), a whole number even for an even tie.
    doubled_rank: usize,
    size: usize,
    /// How many of the group come from the first sample.
    of_first: usize,
}

fn tie_groups(first: &[f64], second: &[f64]) -> Vec<TieGroup> {
    let mut pooled: Vec<(f64, bool)> = first
        .iter()
        .map(|&value| (value, true))
        .chain(second.iter().map(|&value| (value, false)))
        .collect();
    pooled.sort_by(|x, y| x.0.total_cmp(&y.0));
    let mut groups = Vec::new();
    let mut start = 0;
    while start < pooled.len() {
        let end = start
            + pooled[start..]
                .iter()
                .take_while(|(value, _)| value.total_cmp(&pooled[start].0).is_eq())
                .count();
        groups.push(TieGroup {
            // Ranks start + 1 ..= end: their mid-rank is (start + 1 + end) / 2.
            doubled_rank: start + 1 + end,
            size: end - start,
            of_first: pooled[start..end]
                .iter()
                .filter(|(_, of_first)| *of_first)
                .count(),
        });
        start = end;
    }
    groups
}

/// The share of the C(N, n) ways to draw `n` of the pooled values whose doubled rank sum lies at
/// least as far from its mean, n (N + 1), as `observed`.
fn exact_p(groups: &[TieGroup], n: usize, observed: usize) -> f64 {
    let total: usize = groups.iter().map(|group| group.size).sum();
    // ways[k * width + s]: the ways to draw k values from the groups so far with doubled rank
    // sum s; a group of size t gives j of its values in C(t, j) ways.
    let width = total * (total + 1) + 1;
    let mut ways = vec![0.0; (n + 1) * width];
    ways[0] = 1.0;
    for group in groups {
        let mut next = vec![0.0; ways.len()];
        for drawn in 0..=n {
            for sum in 0..width {
                let count = ways[drawn * width + sum];
                if count == 0.0 {
                    continue;
                }
                for taken in 0..=group.size.min(n - drawn) {
                    next[(drawn + taken) * width + sum + taken * group.doubled_rank] +=
                        count * binomial(group.size, taken);
                }
            }
        }
        ways = next;
    }
    let middle = n * (total + 1);
    let distance = observed.abs_diff(middle);
    let drawn_n = &ways[n * width..];
    let all: f64 = drawn_n.iter().sum();
    let as_far: f64 = drawn_n
        .iter()
        .enumerate()
        .filter(|(sum, _)| sum.abs_diff(middle) >= distance)
        .map(|(_, count)| count)
        .sum();
    as_far / all
}

/// The normal approximation: U's mean n m / 2 and variance n m / 12 (N + 1 - sum(t^3 - t) /
/// (N (N - 1))) over the tie groups' sizes t, half a unit of continuity correction.
fn normal_p(groups: &[TieGroup], n: usize, m: usize, u: f64) -> f64 {
    let total = (n + m) as f64;
    let ties: f64 = groups
        .iter()
        .map(|group| (group.size as f64).powi(3) - group.size as f64)
        .sum();
    let product = (n * m) as f64;
    let variance = product / 12.0 * ((total + 1.0) - ties / (total * (total - 1.0)));
    if variance <= 0.0 {
        return 1.0;
    }
    let z = ((u - product / 2.0).abs() - 0.5).max(0.0) / variance.sqrt();
    statrs::function::erf::erfc(z / std::f64::consts::SQRT_2)
}

/// C(n, k) as a float (exact while it stays below 2^53).
fn binomial(n: usize, k: usize) -> f64 {
    if k > n {
        return 0.0;
    }
    let k = k.min(n - k);
    (0..k).fold(1.0, |product, i| product * (n - i) as f64 / (i + 1) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(actual: f64, expected: f64) -> bool {
        (actual - expected).abs() < 1e-12
    }

    /// U by its definition: the pairs in which `first`'s value is the larger, ties a half.
    fn pairs_above(first: &[f64], second: &[f64]) -> f64 {
        let mut count = 0.0;
        for x in first {
            for y in second {
                count += match x.total_cmp(y) {
                    std::cmp::Ordering::Greater => 1.0,
                    std::cmp::Ordering::Equal => 0.5,
                    std::cmp::Ordering::Less => 0.0,
                };
            }
        }
        count
    }

    /// The permutation test by brute force: every way of choosing which pooled values are
    /// `first`'s, U counted pair by pair.
    fn brute_force_p(first: &[f64], second: &[f64]) -> f64 {
        let pooled: Vec<f64> = first.iter().chain(second).copied().collect();
        let middle = (first.len() * second.len()) as f64 / 2.0;
        let observed = (pairs_above(first, second) - middle).abs();
        let (mut as_far, mut all) = (0_u32, 0_u32);
        for mask in 0_u32..1 << pooled.len() {
            if mask.count_ones() as usize != first.len() {
                continue;
            }
            let (mut chosen, mut rest) = (Vec::new(), Vec::new());
            for (index, value) in pooled.iter().enumerate() {
                if mask & (1 << index) == 0 {
                    rest.push(*value);
                } else {
                    chosen.push(*value);
                }
            }
            all += 1;
            if (pairs_above(&chosen, &rest) - middle).abs() >= observed - 1e-9 {
                as_far += 1;
            }
        }
        f64::from(as_far) / f64::from(all)
    }

    #[test]
    fn separated_samples_give_the_smallest_p() {
        let test = mann_whitney(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]).unwrap();
        assert!(close(test.u, 0.0) && close(test.p, 0.1), "{test:?}");
        let seven_then = [50.1, 50.3, 50.2, 50.6, 50.4, 50.5, 50.0];
        let seven_now = [100.4, 101.0, 100.2, 100.9, 100.1, 100.5, 100.3];
        let test = mann_whitney(&seven_now, &seven_then).unwrap();
        assert!(
            close(test.u, 49.0) && close(test.p, 2.0 / 3432.0),
            "{test:?}"
        );
        assert!(test.p <= LEVEL);
    }

    #[test]
    fn exact_p_matches_brute_force_with_and_without_ties() {
        let cases: [(&[f64], &[f64]); 5] = [
            (&[1.0, 3.0, 5.0, 7.0, 9.0], &[2.0, 4.0, 6.0, 8.0, 10.0]),
            (&[1.0, 1.0, 2.0], &[1.0, 2.0, 2.0]),
            (&[51.0, 52.0, 52.0, 55.0], &[52.0, 56.0, 58.0, 58.0, 60.0]),
            (&[3.0], &[1.0, 2.0, 4.0, 5.0]),
            (&[7.0, 7.0, 7.0], &[7.0, 7.0]),
        ];
        for (first, second) in cases {
            let test = mann_whitney(first, second).unwrap();
            let expected = brute_force_p(first, second);
            assert!(
                close(test.p, expected),
                "{first:?} {second:?}: {test:?} vs {expected}"
            );
            assert!(close(test.u, pairs_above(first, second)), "{test:?}");
            let swapped = mann_whitney(second, first).unwrap();
            assert!(close(swapped.p, test.p));
            assert!(close(
                swapped.u + test.u,
                (first.len() * second.len()) as f64
            ));
        }
        // Interleaved values: U = 10 of 25, far from conclusive.
        let test = mann_whitney(&[1.0, 3.0, 5.0, 7.0, 9.0], &[2.0, 4.0, 6.0, 8.0, 10.0]).unwrap();
        assert!(close(test.u, 10.0) && test.p > 0.5, "{test:?}");
        // All tied: nothing to tell.
        assert!(close(
            mann_whitney(&[7.0, 7.0, 7.0], &[7.0, 7.0]).unwrap().p,
            1.0
        ));
    }

    #[test]
    fn the_normal_approximation_is_close_to_the_exact_count() {
        let first: Vec<f64> = (0..30).map(f64::from).collect();
        let second: Vec<f64> = (0..30).map(|i| f64::from(i) + 8.5).collect();
        let groups = tie_groups(&first, &second);
        let doubled: usize = groups
            .iter()
            .map(|group| group.doubled_rank * group.of_first)
            .sum();
        let u = pairs_above(&first, &second);
        assert!(close(u, doubled as f64 / 2.0 - f64::from(30 * 31) / 2.0));
        let exact = exact_p(&groups, 30, doubled);
        let normal = normal_p(&groups, 30, 30, u);
        assert!(exact > 1e-4 && exact < 0.05, "{exact}");
        assert!(
            (exact - normal).abs() < 1e-3,
            "exact {exact}, normal {normal}"
        );
        // Past EXACT_UP_TO values the approximation is what answers.
        let long_first: Vec<f64> = (0..40).map(f64::from).collect();
        let long_second: Vec<f64> = (0..40).map(|i| f64::from(i) + 100.0).collect();
        assert!(mann_whitney(&long_first, &long_second).unwrap().p < 1e-12);
    }

    #[test]
    fn small_samples_cannot_reach_the_level() {
        assert!(close(smallest_p(1, 1), 1.0));
        assert!(close(smallest_p(3, 3), 0.1));
        assert!(close(smallest_p(7, 7), 2.0 / 3432.0));
        assert_eq!(values_needed(LEVEL), 7);
        assert_eq!(values_needed(0.05), 4);
        assert!(close(binomial(14, 7), 3432.0));
        assert!(close(binomial(3, 5), 0.0));
    }

    #[test]
    fn empty_or_non_finite_samples_have_no_test() {
        assert_eq!(mann_whitney(&[], &[1.0]), None);
        assert_eq!(mann_whitney(&[1.0], &[f64::NAN]), None);
        assert_eq!(mann_whitney(&[f64::INFINITY], &[1.0]), None);
    }
}
