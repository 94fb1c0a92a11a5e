//! The cost suite in the one suite shape: each client's calls under callgrind, then the
//! payment service's payments.

use crate::error::BenchError;
use crate::suites::shape::{Outcome, Suite, SuiteContext};
use bench_model::{CostRow, NotRunWhy, Results, ServiceCostRow, SuiteName, SuitePart};

/// The cost suite: each client's calls under callgrind, then the payment service's.
#[derive(Debug)]
pub struct Cost;

/// What the cost suite measured: the calls, and the service's payments or why not.
#[derive(Debug)]
pub struct Measured {
    pub calls: Vec<CostRow>,
    pub service: Result<Vec<ServiceCostRow>, NotRunWhy>,
}

impl Suite for Cost {
    const NAME: SuiteName = SuiteName::Cost;
    type Rows = Measured;

    fn run(context: &SuiteContext<'_>) -> Result<Outcome<Measured>, BenchError> {
        let mock = context.mock(Self::NAME)?;
        let calls = super::run(context.settings, mock)?;
        let service =
            super::service::run(context.settings, mock).map_err(|error| NotRunWhy::Failed {
                error: error.to_string(),
            });
        Ok(Outcome::Ran(Measured { calls, service }))
    }

    fn store(rows: Measured, results: &mut Results) -> Vec<(SuitePart, NotRunWhy)> {
        results.cost = rows.calls;
        match rows.service {
            Ok(service) => {
                results.service_cost = service;
                Vec::new()
            }
            Err(why) => vec![(SuitePart::ServiceCost, why)],
        }
    }
}
