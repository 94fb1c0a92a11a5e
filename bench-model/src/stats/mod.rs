//! Every statistic of the bench, as small pure functions with their own tests: the runner makes
//! the figures of results.json with them, and the reports and verdicts judge with them. A
//! reader checking how a figure is computed or how a margin is judged starts here.
//!
//! - [`summary`]: mean, sample standard deviation, standard error, Error (the half-width of the 99.9%
//!   confidence interval, Student's t), the ratio to a baseline, the means of rounds.
//! - [`quantile`]: medians (the mean of the two middle values, or the lower one), percentiles by
//!   nearest rank (of sorted values, or of values counted in histogram buckets), quartiles;
//!   which figure uses which definition, and why they are kept apart, is said there.
//! - [`spread`]: how far a figure moved between its rounds and between runs, and the margin
//!   between two figures, as fractions.
//! - [`difference`]: whether two runs' figures differ beyond their noise: Errors in quadrature,
//!   standard errors against the normal 99.9%, counts as Poisson rates.
//! - [`rank`]: the Mann-Whitney U test, exact for small samples, for medians of a few
//!   repetitions.
//! - [`shape`]: the shape of one row's samples in the order taken: drift, Tukey's outliers,
//!   the mvalue for several modes (the noise checks of `crate::noise`).

pub mod difference;
pub mod quantile;
pub mod rank;
pub mod shape;
pub mod spread;
pub mod summary;
