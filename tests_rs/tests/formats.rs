//! JSON/CSV readers with Spark's parse modes.

use std::collections::HashMap;
use std::sync::Arc;

use arrow::array::{Array, AsArray};
use arrow::datatypes::{DataType, Field, Int32Type, Schema, TimeUnit};
use sparklet_engine::formats::{csv, json, ParseMode, ReadOptions};

fn opts(pairs: &[(&str, &str)]) -> ReadOptions {
    let m: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    ReadOptions::from_options(&m).unwrap()
}

fn schema_with_corrupt() -> Arc<Schema> {
    Arc::new(Schema::new(vec![
        Field::new("a", DataType::Int32, true),
        Field::new("b", DataType::Utf8, true),
        Field::new("_corrupt_record", DataType::Utf8, true),
    ]))
}

const JSON: &str =
    "{\"a\": 1, \"b\": \"x\"}\nnot json\n{\"a\": \"oops\", \"b\": \"y\"}\n{\"a\": 3}\n";

#[test]
fn json_permissive_keeps_malformed_rows_in_corrupt_column() {
    let b = json::parse(JSON, &schema_with_corrupt(), &opts(&[]), "f.json").unwrap();
    assert_eq!(b.num_rows(), 4);
    let a = b.column(0).as_primitive::<Int32Type>();
    assert_eq!(a.value(0), 1);
    assert!(a.is_null(1) && a.is_null(2));
    assert_eq!(a.value(3), 3);
    let corrupt = b.column(2).as_string::<i32>();
    assert!(corrupt.is_null(0));
    assert_eq!(corrupt.value(1), "not json");
    assert_eq!(corrupt.value(2), "{\"a\": \"oops\", \"b\": \"y\"}");
    assert!(corrupt.is_null(3));
}

#[test]
fn json_dropmalformed_drops_and_failfast_fails_naming_the_file() {
    let b = json::parse(
        JSON,
        &schema_with_corrupt(),
        &opts(&[("mode", "DROPMALFORMED")]),
        "f.json",
    )
    .unwrap();
    assert_eq!(b.num_rows(), 2);
    let err = json::parse(
        JSON,
        &schema_with_corrupt(),
        &opts(&[("mode", "FAILFAST")]),
        "dir/f.json",
    )
    .unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("FAILFAST") && msg.contains("dir/f.json") && msg.contains("not json"),
        "{msg}"
    );
    assert_eq!(
        err.condition(),
        Some("MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION")
    );
}

#[test]
fn json_timestamps_follow_timestamp_format() {
    let schema = Arc::new(Schema::new(vec![Field::new(
        "ts",
        DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
        true,
    )]));
    let text = "{\"ts\": \"29/11/2026 10:30\"}\n";
    let b = json::parse(
        text,
        &schema,
        &opts(&[("timestampformat", "dd/MM/yyyy HH:mm")]),
        "t",
    )
    .unwrap();
    let ts = b
        .column(0)
        .as_primitive::<arrow::datatypes::TimestampMicrosecondType>();
    // 2026-11-29T10:30:00Z
    assert_eq!(ts.value(0), 1_795_948_200_000_000);
}

#[test]
fn csv_header_sep_and_bad_field() {
    let schema = schema_with_corrupt();
    let text = "a;b\n1;x\nzz;y\n3;z\n";
    let b = csv::parse(
        text,
        &schema,
        &opts(&[("header", "true"), ("sep", ";")]),
        "f.csv",
    )
    .unwrap();
    assert_eq!(b.num_rows(), 3);
    let a = b.column(0).as_primitive::<Int32Type>();
    assert_eq!((a.value(0), a.is_null(1), a.value(2)), (1, true, 3));
    assert_eq!(b.column(2).as_string::<i32>().value(1), "zz;y");
}

#[test]
fn csv_infers_header_names_and_types() {
    let s = csv::infer_schema(
        "n,name,score\n1,ann,2.5\n2,bob,3\n",
        &opts(&[("header", "true"), ("inferschema", "true")]),
    );
    let types: Vec<(String, DataType)> = s
        .fields()
        .iter()
        .map(|f| (f.name().clone(), f.data_type().clone()))
        .collect();
    assert_eq!(
        types,
        vec![
            ("n".to_string(), DataType::Int32),
            ("name".to_string(), DataType::Utf8),
            ("score".to_string(), DataType::Float64)
        ]
    );
}

#[test]
fn an_unknown_mode_reads_as_permissive() {
    // Spark's ParseMode.fromString: a warning, then PERMISSIVE
    let m: HashMap<String, String> = [("mode".to_string(), "LENIENT".to_string())].into();
    let opts = ReadOptions::from_options(&m).unwrap();
    assert_eq!(opts.mode, ParseMode::Permissive);
}
