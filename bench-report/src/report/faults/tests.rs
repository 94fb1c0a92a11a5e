//! The faults section's tests.

use super::*;
use bench_model::StaleConnections;

fn cell(
    client: ClientName,
    fault: FaultCase,
    kind: PaymentOutcome,
    expected: PaymentOutcome,
) -> FaultRow {
    FaultRow {
        client,
        fault,
        expected_kind: expected,
        kind,
        expected_status: 502,
        status: Some(502),
        elapsed_ms: 3.25,
        timeout_ms: 500,
        next_ok: true,
        hung: false,
    }
}

#[test]
fn marks_the_cell_that_differs() {
    let mut hung = cell(
        ClientName::Awc,
        FaultCase::Hang,
        PaymentOutcome::Hung,
        PaymentOutcome::Failed(RatesErrorKind::Timeout),
    );
    hung.hung = true;
    hung.status = None;
    hung.elapsed_ms = 5_500.0;
    let rows = vec![
        cell(
            ClientName::Hyper,
            FaultCase::Reset,
            PaymentOutcome::Failed(RatesErrorKind::Connect),
            PaymentOutcome::Failed(RatesErrorKind::Connect),
        ),
        cell(
            ClientName::Isahc,
            FaultCase::Reset,
            PaymentOutcome::Failed(RatesErrorKind::Timeout),
            PaymentOutcome::Failed(RatesErrorKind::Connect),
        ),
        cell(
            ClientName::Hyper,
            FaultCase::Hang,
            PaymentOutcome::Failed(RatesErrorKind::Timeout),
            PaymentOutcome::Failed(RatesErrorKind::Timeout),
        ),
        hung,
    ];
    let table = matrix_table(&rows);
    assert_eq!(
        table
            .columns
            .iter()
            .map(|(name, _)| *name)
            .collect::<Vec<_>>(),
        ["Fault", "Expected", "hyper", "isahc", "awc"]
    );
    assert_eq!(table.rows[0][0], "reset (RST)");
    assert_eq!(table.rows[0][2], "502 connect 3.25 ms");
    assert_eq!(table.rows[0][3], "502 timeout 3.25 ms !");
    assert_eq!(table.rows[1][4], "HUNG > 5500 ms");
    let notes = notes(&rows, None);
    assert!(
        notes
            .iter()
            .any(|note| note.starts_with("isahc under `reset`: 502 timeout")),
        "{notes:?}"
    );
    assert!(
        notes
            .iter()
            .any(|note| note.contains("awc under `hang`: no answer"))
    );
}

#[test]
fn colours_cells_by_whether_they_came_back_as_expected() {
    let expected = || {
        cell(
            ClientName::Hyper,
            FaultCase::Status500,
            PaymentOutcome::Failed(RatesErrorKind::UpstreamStatus),
            PaymentOutcome::Failed(RatesErrorKind::UpstreamStatus),
        )
    };
    let mut wrong_kind = expected();
    wrong_kind.client = ClientName::Isahc;
    wrong_kind.kind = PaymentOutcome::Failed(RatesErrorKind::Timeout);
    let mut wrong_status = expected();
    wrong_status.client = ClientName::Ureq;
    wrong_status.status = Some(500);
    let mut next_failed = expected();
    next_failed.client = ClientName::Awc;
    next_failed.next_ok = false;
    let mut hung = cell(
        ClientName::Hyper,
        FaultCase::Hang,
        PaymentOutcome::Hung,
        PaymentOutcome::Failed(RatesErrorKind::Timeout),
    );
    hung.hung = true;
    hung.status = None;
    let rows = vec![expected(), wrong_kind, wrong_status, next_failed, hung];
    let marks = matrix_marks(&rows);
    // Rows are faults, then the Fault and Expected labels, then the clients in row order.
    assert_eq!(
        marks,
        [
            vec![
                Mark::Plain,
                Mark::Plain,
                Mark::Expected,
                Mark::Unexpected,
                Mark::Unexpected,
                Mark::Doubtful,
            ],
            // Only hyper ran under hang: the other clients' cells are empty.
            vec![
                Mark::Plain,
                Mark::Plain,
                Mark::Doubtful,
                Mark::Plain,
                Mark::Plain,
                Mark::Plain,
            ],
        ]
    );
    assert_eq!(marks[0].len(), matrix_table(&rows).columns.len());
}

#[test]
fn says_whether_descriptors_came_back() {
    let mut check = FdCheck {
        pid: Some(1),
        before: Some(40),
        after_storm: Some(140),
        after_idle: Some(40),
        difference: Some(0),
        storm_requests: 400,
        storm_unexpected: 0,
        storm_hung: 0,
        idle_ms: 4_250,
        close_wait_after_idle: Some(0),
        after_reuse: Some(42),
        close_wait_after_reuse: Some(0),
        reuse_failures: 0,
        stale_by_client: vec![StaleConnections {
            client: ClientName::Hyper,
            dropped: 0,
        }],
    };
    assert!(fd_verdict(&check).contains("no descriptor or connection leaked"));

    check.after_idle = Some(52);
    check.close_wait_after_idle = Some(12);
    check.stale_by_client.push(StaleConnections {
        client: ClientName::Awc,
        dropped: 12,
    });
    let verdict = fd_verdict(&check);
    assert!(verdict.contains("52 descriptors, +12"), "{verdict}");
    assert!(verdict.contains("(cleared by: awc 12)"), "{verdict}");
    assert!(verdict.contains("no leak"), "{verdict}");

    check.after_reuse = Some(60);
    assert!(fd_verdict(&check).contains("may be leaking"));
    check.pid = None;
    check.before = None;
    assert!(fd_verdict(&check).contains("not counted"));
}
