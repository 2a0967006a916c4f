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

/// A user's function (what the bindings implement over Python) made a
/// scalar UDF and an aggregate one: called per batch and per group, its
/// values cast to the declared type; a wrong count of values is an error
/// naming the function.
#[test]
fn user_functions_run_as_scalar_and_aggregate_udfs() {
    use std::sync::Arc;

    use arrow::array::{ArrayRef, AsArray, Int64Array, RecordBatch};
    use arrow::datatypes::{DataType, Int64Type};
    use sparklet_engine::functions::user_udfs::{aggregate_udf, scalar_udf, BatchFunction};

    struct Doubled;
    impl BatchFunction for Doubled {
        fn call(&self, args: RecordBatch) -> sparklet_engine::error::Result<ArrayRef> {
            let v = arrow::compute::cast(args.column(0), &DataType::Int64)?;
            let doubled: Int64Array = v
                .as_primitive::<Int64Type>()
                .iter()
                .map(|x| x.map(|x| x * 2))
                .collect();
            Ok(Arc::new(doubled))
        }
    }
    struct Total;
    impl BatchFunction for Total {
        fn call(&self, args: RecordBatch) -> sparklet_engine::error::Result<ArrayRef> {
            let v = arrow::compute::cast(args.column(0), &DataType::Int64)?;
            let sum = arrow::compute::sum(v.as_primitive::<Int64Type>()).unwrap_or(0);
            Ok(Arc::new(Int64Array::from(vec![sum])))
        }
    }
    struct Short;
    impl BatchFunction for Short {
        fn call(&self, _args: RecordBatch) -> sparklet_engine::error::Result<ArrayRef> {
            Ok(Arc::new(Int64Array::from(vec![1])))
        }
    }
    let s = Session::new(vec![]).unwrap();
    s.ctx()
        .register_udf(scalar_udf("doubled", Arc::new(Doubled), DataType::Float64));
    s.ctx()
        .register_udaf(aggregate_udf("total", Arc::new(Total), DataType::Int64));
    s.ctx()
        .register_udf(scalar_udf("short", Arc::new(Short), DataType::Int64));
    let out = crate::common::rows(
        s.sql("SELECT k, total(v) AS t, doubled(max(v)) AS d FROM (VALUES (1, 2), (1, 3), (2, 5)) AS t(k, v) GROUP BY k ORDER BY k")
            .unwrap(),
    )
    .join("\n");
    assert!(
        out.contains("| 1 | 5 | 6.0  |") && out.contains("| 2 | 5 | 10.0 |"),
        "{out}"
    );
    let short = s
        .sql("SELECT short(v) FROM (VALUES (1), (2)) AS t(v)")
        .unwrap();
    let err = sparklet_engine::dataframe::collect(short)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("the UDF short returned 1 values where 2 were expected"),
        "{err}"
    );
}

/// A kernel's runtime error that names Spark's condition reaches the user
/// as that condition (no engine prefix), and a malformed ANSI cast is
/// Spark's `CAST_INVALID_INPUT` naming value and type.
#[test]
fn runtime_errors_carry_sparks_conditions() {
    let s = Session::new(vec![]).unwrap();
    let failing = |sql: &str| {
        let df = s.sql(sql).unwrap();
        sparklet_engine::dataframe::collect(df).unwrap_err()
    };
    let err = failing("SELECT assert_true(n > 0) FROM (VALUES (-1)) AS t(n)");
    assert_eq!(err.condition(), Some("USER_RAISED_EXCEPTION"));
    assert_eq!(
        err.to_string(),
        "[USER_RAISED_EXCEPTION] '(n > 0)' is not true!"
    );
    let err = failing("SELECT CAST('x1' AS INT)");
    assert_eq!(err.condition(), Some("CAST_INVALID_INPUT"));
    assert!(
        err.to_string().starts_with(
            "[CAST_INVALID_INPUT] The value 'x1' of the type \"STRING\" cannot be cast to \"INT\""
        ),
        "{err}"
    );
    let err = failing("SELECT a / b FROM (VALUES (1, 0)) AS t(a, b)");
    assert_eq!(err.condition(), Some("DIVIDE_BY_ZERO"));
    let half = s.sql("SELECT 1 / 2 AS q").unwrap();
    let out = crate::common::rows(half).join("\n");
    assert!(out.contains("| 0.5 |"), "{out}");
    // an error without a condition keeps DataFusion's text
    let err = failing("SELECT CAST('2024-13-45 99:00' AS TIMESTAMP)");
    assert_eq!(err.condition(), None, "{err}");
}
