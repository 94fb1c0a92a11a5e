//! The fanout section's tests.

use super::test_rows::results;
use super::*;
use crate::report::table::Table;
use bench_model::{FanoutMode, FanoutRow};

#[test]
fn a_table_per_mode_like_the_reference() {
    let tables = tables(&results("360"));
    assert_eq!(tables.len(), 2);
    let sequential = tables[0].render();
    assert!(tables[0].title.starts_with("fanout, sequential"));
    assert!(
        sequential.contains("| 70 requests | 25200 ms |"),
        "{sequential}"
    );
    assert!(sequential.contains("25270 ms (1.00)"), "{sequential}");
    assert!(sequential.contains("[3 failed]"), "{sequential}");
    assert!(
        sequential.contains("14940 ms"),
        "the reference's figure: {sequential}"
    );
    let concurrent = tables[1].render();
    // ureq's 70 is over its cap of 64: marked.
    assert!(concurrent.contains("730 ms (0.49)*"), "{concurrent}");
    assert!(concurrent.contains("372 ms (0.97) "), "{concurrent}");
    assert!(concurrent.contains("1669 ms"), "{concurrent}");
    // Away from 360 ms the reference is not shown.
    let other = tables_text(&results("50"));
    assert!(!other.contains("ref:"), "{other}");
}

#[test]
fn https_rows_get_tables_of_their_own_and_labels_in_the_notes() {
    let mut results = results("50");
    let https: Vec<FanoutRow> = results
        .fanout
        .iter()
        .filter(|row| row.mode == FanoutMode::Concurrent)
        .map(|row| FanoutRow {
            protocol: Protocol::Https,
            wall_ms_median: row.wall_ms_median.map(|wall| wall + 1.0),
            ..row.clone()
        })
        .collect();
    results.fanout.extend(https);
    let tables = tables(&results);
    let titles: Vec<&str> = tables.iter().map(|table| table.title.as_str()).collect();
    assert_eq!(tables.len(), 3, "{titles:?}");
    assert!(titles[0].starts_with("fanout, sequential, upstream over http:"));
    assert!(titles[1].starts_with("fanout, concurrent, upstream over http:"));
    assert!(titles[2].starts_with("fanout, concurrent, upstream over https:"));
    let notes = notes(&results).join("\n");
    assert!(notes.contains("hyper over https "), "{notes}");
    let detail = detail_table(&results.fanout).render();
    assert!(detail.contains("| https "), "{detail}");
}

fn tables_text(results: &Results) -> String {
    tables(results).iter().map(Table::render).collect()
}

#[test]
fn notes_give_the_verdict_the_caps_and_the_failures() {
    let notes = notes(&results("360"));
    let all = notes.join("\n");
    assert!(
        all.contains("Largest group (70), concurrent: wall time in upstream latencies (360 ms): hyper 1.03x, ureq 2.03x*."),
        "{all}"
    );
    assert!(all.contains("hyper 67.9x"), "{all}");
    assert!(
        all.contains("ureq max_connections 100, blocking_threads 64 (at most 64 calls overlap)"),
        "{all}"
    );
    assert!(all.contains("ceil(N / cap)"), "{all}");
    assert!(all.contains("hyper +1.0 ms"), "{all}");
    assert!(
        all.contains("ureq sequential 70: 3 of 70 payments failed; first: payment 2: status 503"),
        "{all}"
    );
    assert!(!all.contains("Warning"), "{all}");
}

#[test]
fn the_section_links_its_charts_and_explains_the_reference() {
    let charts = [
        "fanout_wall_time.svg".to_owned(),
        "fanout_concurrent.svg".to_owned(),
        "latency_mean.svg".to_owned(),
    ];
    let markdown = section(&results("360"), &charts)
        .expect("fanout rows make a section")
        .markdown();
    assert!(markdown.contains("![fanout_concurrent.svg](fanout_concurrent.svg)"));
    assert!(!markdown.contains("latency_mean.svg"));
    assert!(markdown.contains("### fanout: every row"));
    assert!(markdown.contains("implies 472 ms per request at 5 and 213 ms at 70"));
    let terminal = section(&results("50"), &charts)
        .expect("fanout rows make a section")
        .terminal();
    assert!(!terminal.contains("every row"), "{terminal}");
    assert!(!terminal.contains("ref:"), "{terminal}");
}
