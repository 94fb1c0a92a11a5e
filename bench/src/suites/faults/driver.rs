//! Payments through the service, one fresh connection each, and what their answers stand for.

use std::time::Duration;

use api::problem::ProblemType;

use crate::clients::ApiClient;
use crate::clients::api::{Answer, Failure};
use bench_model::{ClientName, FaultCase, PaymentOutcome};

/// The payment every cell makes: a cross rate, so one upstream call for two pairs.
const PAYMENT: &[u8] =
    br#"{"reference":"faults","amount":"100.00","currency":"EUR","target_currency":"JPY"}"#;

/// The service's answer to one payment, as the matrix reads it.
#[derive(Debug)]
pub struct Payment {
    pub outcome: PaymentOutcome,
    pub status: Option<u16>,
    pub elapsed: Duration,
    pub hung: bool,
}

/// Makes payments through the service, each bounded in time, on fresh connections (so that
/// the service's descriptor count holds no connection of the bench's).
#[derive(Debug)]
pub struct Driver {
    api: ApiClient,
    bound: Duration,
}

impl Driver {
    pub fn new(base_url: &str, bound: Duration) -> Self {
        Self {
            api: ApiClient::fresh(base_url, bound),
            bound,
        }
    }

    pub fn pay(&self, client: ClientName) -> Payment {
        match self.api.pay(client, PAYMENT) {
            Ok(answer) => Payment {
                outcome: classify(&answer),
                status: Some(answer.status),
                elapsed: answer.elapsed,
                hung: false,
            },
            Err(Failure::TimedOut { after }) => Payment {
                outcome: PaymentOutcome::Hung,
                status: None,
                elapsed: after.max(self.bound),
                hung: true,
            },
            Err(Failure::Broken { after, .. }) => Payment {
                outcome: PaymentOutcome::NoAnswer,
                status: None,
                elapsed: after,
                hung: false,
            },
        }
    }
}

/// The outcome `case` must come back with, and the status the service gives it.
pub fn expected(case: FaultCase) -> (PaymentOutcome, u16) {
    let outcome = case.expected();
    let status = match &outcome {
        PaymentOutcome::Failed(kind) => ProblemType::for_rates_error(*kind).status().as_u16(),
        _ => 200,
    };
    (outcome, status)
}

/// What an answer stands for: a converted payment, or the error kind of its problem `type`.
pub fn classify(answer: &Answer) -> PaymentOutcome {
    if answer.status == 200 {
        return match answer.payment() {
            Some(_) => PaymentOutcome::Ok,
            None => PaymentOutcome::BadPayment,
        };
    }
    let problem = answer.problem();
    problem
        .as_ref()
        .and_then(|problem| problem.problem_type.rates_error_kind())
        .map_or_else(
            || {
                PaymentOutcome::Unknown(format!(
                    "status {}, type {:?}",
                    answer.status,
                    problem.map_or_else(String::new, |problem| problem.problem_type.to_string())
                ))
            },
            PaymentOutcome::Failed,
        )
}

#[cfg(test)]
mod tests {
    use application::RatesErrorKind;

    use super::*;

    fn answer(status: u16, body: &str) -> Answer {
        Answer {
            status,
            body: body.as_bytes().to_vec(),
            elapsed: Duration::from_millis(1),
        }
    }

    #[test]
    fn reads_the_problem_type_of_each_kind() {
        let timeout = answer(
            504,
            r#"{"type":"/problems/upstream-timeout","title":"t","status":504,"detail":"d"}"#,
        );
        assert_eq!(
            classify(&timeout),
            PaymentOutcome::Failed(RatesErrorKind::Timeout)
        );
        let validation = answer(
            422,
            r#"{"type":"/problems/validation","title":"t","status":422,"detail":"d"}"#,
        );
        assert!(matches!(classify(&validation), PaymentOutcome::Unknown(_)));
        assert_eq!(classify(&answer(200, "{}")), PaymentOutcome::BadPayment);
        assert_eq!(
            expected(FaultCase::Hang),
            (PaymentOutcome::Failed(RatesErrorKind::Timeout), 504)
        );
        assert_eq!(
            expected(FaultCase::Reset),
            (PaymentOutcome::Failed(RatesErrorKind::Connect), 502)
        );
        assert_eq!(expected(FaultCase::None), (PaymentOutcome::Ok, 200));
    }
}
