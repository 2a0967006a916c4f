//! Spark function semantics on DataFusion.

use sparklet_engine::engine::trigger::parse_duration_ms;
use sparklet_engine::formats::datetime::{
    format_timestamp_micros, java_to_chrono, parse_timestamp_micros,
};
use sparklet_engine::Session;

#[test]
fn java_patterns_translate_to_chrono() {
    assert_eq!(java_to_chrono("yyyy-MM-dd HH:mm:ss"), "%Y-%m-%d %H:%M:%S");
    assert_eq!(java_to_chrono("dd/MM/yyyy'T'HH"), "%d/%m/%YT%H");
    let micros =
        parse_timestamp_micros("2026-11-29 10:30:05", Some("yyyy-MM-dd HH:mm:ss")).unwrap();
    assert_eq!(
        format_timestamp_micros(micros, "yyyy/MM/dd HH:mm").unwrap(),
        "2026/11/29 10:30"
    );
}

#[test]
fn intervals_parse_like_spark() {
    assert_eq!(parse_duration_ms("10 seconds").unwrap(), 10_000);
    assert_eq!(parse_duration_ms("1 minute 30 seconds").unwrap(), 90_000);
    assert_eq!(parse_duration_ms("interval 500 milliseconds").unwrap(), 500);
    assert_eq!(parse_duration_ms("2h").unwrap(), 7_200_000);
    assert!(parse_duration_ms("soon").is_err());
}

#[test]
fn spark_sql_functions_are_registered() {
    let s = Session::new(vec![]).unwrap();
    let df = s
        .sql(
            "SELECT regexp_extract('order-123', 'order-(\\d+)', 1) AS n, \
             date_format(to_timestamp('2026-11-29 10:30:00'), 'yyyy/MM/dd') AS d, \
             get_json_object('{\"a\": {\"b\": [5, 6]}}', '$.a.b[1]') AS j, \
             from_unixtime(0) AS e",
        )
        .unwrap();
    let rows = crate::common::rows(df).join("\n");
    assert!(
        rows.contains("| 123 | 2026/11/29 | 6 | 1970-01-01 00:00:00 |"),
        "{rows}"
    );
}

#[test]
fn unknown_column_is_an_analysis_error_listing_columns() {
    let s = Session::new(vec![]).unwrap();
    let df = s.sql("SELECT 1 AS one, 'x' AS two").unwrap();
    let err =
        sparklet_engine::dataframe::select(df, vec![sparklet_engine::functions::column("three")])
            .unwrap_err();
    let msg = err.to_string();
    assert_eq!(err.condition(), Some("UNRESOLVED_COLUMN.WITH_SUGGESTION"));
    assert!(
        msg.contains("`three`") && msg.contains("`one`") && msg.contains("`two`"),
        "{msg}"
    );
}
