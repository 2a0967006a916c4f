//! The micro-batch loop end to end, without Python.

use std::sync::{Arc, Mutex};

use datafusion::prelude::{col, lit};
use sparklet_engine::engine::execution::OutputMode;
use sparklet_engine::engine::trigger::Trigger;
use sparklet_engine::sinks::SinkBatch;
use sparklet_engine::{QueryOptions, Session, SinkSpec};

use crate::common::{batch, schema_id_word, TempDir, WAIT};

type Seen = Arc<Mutex<Vec<(i64, usize)>>>;

fn recording_sink(seen: &Seen) -> SinkSpec {
    let seen = Arc::clone(seen);
    SinkSpec::ForeachBatch(Box::new(move |id: i64, data: SinkBatch| {
        seen.lock().unwrap().push((id, data.num_rows()));
        Ok(())
    }))
}

/// Start `df` with the default trigger into a recording sink.
fn start_recorded(
    s: &Session,
    df: datafusion::dataframe::DataFrame,
    seen: &Seen,
    output_mode: OutputMode,
) -> sparklet_engine::engine::query::StreamingQuery {
    s.start_query(
        df,
        recording_sink(seen),
        QueryOptions {
            trigger: Trigger::default(),
            output_mode,
            ..Default::default()
        },
    )
    .unwrap()
}

#[test]
fn memory_stream_to_foreach_batch_filters_each_batch() {
    let s = Session::new(vec![]).unwrap();
    let (stream, df) = s.memory_stream(schema_id_word()).unwrap();
    let df = df.filter(col("id").gt(lit(1i64))).unwrap();
    let seen: Seen = Arc::default();
    let q = s
        .start_query(
            df,
            recording_sink(&seen),
            QueryOptions {
                name: Some("t1".into()),
                trigger: Trigger::default(),
                output_mode: OutputMode::Append,
                ..Default::default()
            },
        )
        .unwrap();
    stream
        .add_data(vec![batch(&[1, 2, 3], &["a", "b", "c"])])
        .unwrap();
    let target = q.idle_target();
    assert!(q.process_all_available(target, WAIT).unwrap());
    stream.add_data(vec![batch(&[4], &["d"])]).unwrap();
    let target = q.idle_target();
    assert!(q.process_all_available(target, WAIT).unwrap());
    assert_eq!(*seen.lock().unwrap(), vec![(0, 2), (1, 1)]);
    let p = q.last_progress().unwrap();
    assert_eq!(
        (p.batch_id, p.num_input_rows, p.sink.num_output_rows),
        (1, 1, 1)
    );
    assert_eq!(p.sources[0].start_offset, Some(serde_json::json!(0)));
    assert_eq!(p.sources[0].end_offset, Some(serde_json::json!(1)));
    q.stop();
    assert!(!q.is_active());
    assert!(q.await_termination(None).unwrap());
}

#[test]
fn available_now_processes_existing_files_then_stops() {
    let dir = TempDir::new("availnow");
    for i in 0..3 {
        dir.write(
            &format!("f{i}.json"),
            &format!("{{\"id\": {i}, \"word\": \"w{i}\"}}\n"),
        );
    }
    let s = Session::new(vec![]).unwrap();
    let opts = [("maxFilesPerTrigger".to_string(), "1".to_string())].into();
    let df = s
        .read_stream(
            "json",
            Some(dir.path().to_str().unwrap()),
            Some(schema_id_word()),
            &opts,
        )
        .unwrap();
    let seen: Seen = Arc::default();
    let q = s
        .start_query(
            df,
            recording_sink(&seen),
            QueryOptions {
                name: None,
                trigger: Trigger::AvailableNow,
                output_mode: OutputMode::Append,
                ..Default::default()
            },
        )
        .unwrap();
    assert!(q.await_termination(Some(WAIT)).unwrap());
    assert_eq!(*seen.lock().unwrap(), vec![(0, 1), (1, 1), (2, 1)]);
}

#[test]
fn a_failing_sink_stops_the_query_with_its_error() {
    let s = Session::new(vec![]).unwrap();
    let (stream, df) = s.memory_stream(schema_id_word()).unwrap();
    let sink = SinkSpec::ForeachBatch(Box::new(|_, _| {
        Err(sparklet_engine::Error::Internal("boom".into()))
    }));
    let q = s
        .start_query(
            df,
            sink,
            QueryOptions {
                name: None,
                trigger: Trigger::default(),
                output_mode: OutputMode::Append,
                ..Default::default()
            },
        )
        .unwrap();
    stream.add_data(vec![batch(&[1], &["a"])]).unwrap();
    let err = q.await_termination(Some(WAIT)).unwrap_err();
    assert!(err.to_string().contains("boom"));
    assert!(q.exception().is_some());
    assert!(!q.is_active());
}

#[test]
fn complete_mode_without_aggregation_is_rejected_at_start() {
    let s = Session::new(vec![]).unwrap();
    let (_stream, df) = s.memory_stream(schema_id_word()).unwrap();
    let err = s
        .start_query(
            df,
            SinkSpec::Noop,
            QueryOptions {
                name: None,
                trigger: Trigger::default(),
                output_mode: OutputMode::Complete,
                ..Default::default()
            },
        )
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("Invalid streaming output mode: complete."),
        "{err}"
    );
}

#[test]
fn memory_sink_table_is_queryable_and_names_are_unique() {
    let s = Session::new(vec![]).unwrap();
    let (stream, df) = s.memory_stream(schema_id_word()).unwrap();
    let q = s
        .start_query(
            df.clone(),
            SinkSpec::Memory,
            QueryOptions {
                name: Some("words".into()),
                trigger: Trigger::default(),
                output_mode: OutputMode::Append,
                ..Default::default()
            },
        )
        .unwrap();
    let dup = s.start_query(
        df,
        SinkSpec::Memory,
        QueryOptions {
            name: Some("words".into()),
            trigger: Trigger::default(),
            output_mode: OutputMode::Append,
            ..Default::default()
        },
    );
    assert!(dup.unwrap_err().to_string().contains("already active"));
    stream.add_data(vec![batch(&[7, 8], &["x", "y"])]).unwrap();
    let target = q.idle_target();
    assert!(q.process_all_available(target, WAIT).unwrap());
    let rows = crate::common::rows(s.sql("SELECT count(*) AS n FROM words").unwrap()).join("\n");
    assert!(rows.contains("| 2 |"), "{rows}");
    q.stop();
}

#[test]
fn dedup_and_stream_join_run_as_plan_nodes() {
    use sparklet_engine::dataframe::{drop_duplicates, join, JoinOn};
    let s = Session::new(vec![]).unwrap();
    let (left, ldf) = s.memory_stream(schema_id_word()).unwrap();
    let (right, rdf) = s.memory_stream(schema_id_word()).unwrap();
    let rdf = rdf
        .select(vec![col("id").alias("rid"), col("word").alias("rword")])
        .unwrap();
    let ldf = drop_duplicates(ldf, Some(vec!["id".into()]), false).unwrap();
    let joined = join(
        ldf,
        rdf,
        JoinOn::Condition(Some(col("id").eq(col("rid")))),
        "inner",
    )
    .unwrap();
    let seen: Seen = Arc::default();
    let q = start_recorded(&s, joined, &seen, OutputMode::Append);
    left.add_data(vec![batch(&[1, 1, 2], &["a", "a2", "b"])])
        .unwrap();
    let target = q.idle_target();
    assert!(q.process_all_available(target, WAIT).unwrap());
    right
        .add_data(vec![batch(&[1, 2, 2], &["x", "y", "z"])])
        .unwrap();
    let target = q.idle_target();
    assert!(q.process_all_available(target, WAIT).unwrap());
    // the second id 1 is a duplicate; id 2 meets both right rows
    let rows: usize = seen.lock().unwrap().iter().map(|(_, n)| n).sum();
    assert_eq!(rows, 3);
    let p = q.last_progress().unwrap();
    let names: Vec<String> = p
        .state_operators
        .iter()
        .map(|o| o["operatorName"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(names, vec!["symmetricHashJoin", "dedupe"]);
    q.stop();
}

/// A per-key running count as the Python side of `applyInPandasWithState`
/// would keep it, written against the engine's `GroupFunction`; a key's
/// state goes once it counted three rows. Records the groups of each call.
struct CountPerKey {
    calls: Calls,
}

/// Each call's groups: key, rows, stored count.
type Calls = Arc<Mutex<Vec<Vec<(String, usize, Option<i64>)>>>>;

impl sparklet_engine::exec::group_state::GroupFunction for CountPerKey {
    fn call(
        &self,
        g: sparklet_engine::exec::group_state::Groups,
    ) -> sparklet_engine::Result<sparklet_engine::exec::group_state::GroupsDone> {
        use arrow::array::{Array, AsArray, BooleanArray, Int64Array, StringArray, StructArray};
        use arrow::datatypes::{DataType, Field, Int64Type};
        let words = g.keys.column(0).as_string::<i32>();
        let stored = g.states.column_by_name("state").unwrap().as_struct();
        let before = stored.column(0).as_primitive::<Int64Type>();
        let mut seen = Vec::new();
        let (mut counts, mut kept) = (Vec::new(), Vec::new());
        for i in 0..g.keys.num_rows() {
            let rows = g.offsets[i + 1] - g.offsets[i];
            let old = (!stored.is_null(i)).then(|| before.value(i));
            let n = old.unwrap_or(0) + rows as i64;
            seen.push((words.value(i).to_string(), rows, old));
            counts.push(n);
            kept.push((n < 3).then_some(n));
        }
        self.calls.lock().unwrap().push(seen);
        let n_field = Arc::new(Field::new("n", DataType::Int64, true));
        let kept_values: Int64Array = kept.iter().copied().collect();
        let nulls: arrow::buffer::NullBuffer = kept.iter().map(Option::is_some).collect();
        let state = StructArray::try_new(
            vec![n_field].into(),
            vec![Arc::new(kept_values)],
            Some(nulls),
        )?;
        let states = arrow::array::RecordBatch::try_from_iter(vec![
            ("state", Arc::new(state) as Arc<dyn Array>),
            (
                "timeoutTimestamp",
                Arc::new(Int64Array::new_null(counts.len())) as _,
            ),
            (
                "changed",
                Arc::new(BooleanArray::from(vec![true; counts.len()])) as _,
            ),
        ])?;
        let output = arrow::array::RecordBatch::try_from_iter(vec![
            (
                "word",
                Arc::new(StringArray::from_iter_values(seen_words(&g.keys))) as Arc<dyn Array>,
            ),
            ("n", Arc::new(Int64Array::from(counts)) as _),
        ])?;
        Ok(sparklet_engine::exec::group_state::GroupsDone {
            output: vec![output],
            states,
            new_keys: None,
        })
    }
}

fn seen_words(keys: &arrow::array::RecordBatch) -> Vec<String> {
    use arrow::array::AsArray;
    let words = keys.column(0).as_string::<i32>();
    (0..keys.num_rows())
        .map(|i| words.value(i).to_string())
        .collect()
}

#[test]
fn group_state_calls_the_function_once_per_batch_with_each_key_once() {
    use arrow::datatypes::{DataType, Field, Schema};
    use sparklet_engine::dataframe::group_state;
    use sparklet_engine::exec::group_state::Flavor;
    let s = Session::new(vec![]).unwrap();
    let (stream, df) = s.memory_stream(schema_id_word()).unwrap();
    let calls: Calls = Arc::default();
    let func = Arc::new(CountPerKey {
        calls: Arc::clone(&calls),
    });
    let output = Arc::new(Schema::new(vec![
        Field::new("word", DataType::Utf8, true),
        Field::new("n", DataType::Int64, true),
    ]));
    let state = vec![Arc::new(Field::new("n", DataType::Int64, true))];
    let df = group_state(
        df,
        vec!["word".into()],
        func,
        output,
        state,
        "NoTimeout",
        Flavor::PandasWithState,
        None,
    )
    .unwrap();
    let seen: Seen = Arc::default();
    let q = start_recorded(&s, df, &seen, OutputMode::Update);
    for b in [
        batch(&[1, 2, 3], &["b", "a", "b"]),
        batch(&[4, 5], &["b", "a"]),
    ] {
        stream.add_data(vec![b]).unwrap();
        let target = q.idle_target();
        let done = q.process_all_available(target, WAIT);
        assert!(done.as_ref().is_ok_and(|d| *d), "{done:?}");
    }
    // one call per batch; each key once, in key order, with its rows and
    // the state the previous batch left (b's went once it counted three)
    assert_eq!(
        *calls.lock().unwrap(),
        vec![
            vec![("a".into(), 1, None), ("b".into(), 2, None)],
            vec![("a".into(), 1, Some(1)), ("b".into(), 1, Some(2))],
        ]
    );
    let p = q.last_progress().unwrap();
    let op = &p.state_operators[0];
    assert_eq!(op["operatorName"], "applyInPandasWithState");
    assert_eq!(
        (op["numRowsTotal"].as_i64(), op["numRowsRemoved"].as_i64()),
        (Some(1), Some(1))
    );
    q.stop();
}

/// The scan a plan reads from, with the columns it projects.
fn scanned_columns(df: datafusion::dataframe::DataFrame) -> Vec<String> {
    use datafusion::common::tree_node::{TreeNode, TreeNodeRecursion};
    let plan = df.into_optimized_plan().unwrap();
    let mut cols = Vec::new();
    plan.apply(|node| {
        if let datafusion::logical_expr::LogicalPlan::TableScan(scan) = node {
            cols = scan
                .projected_schema
                .fields()
                .iter()
                .map(|f| f.name().clone())
                .collect();
            return Ok(TreeNodeRecursion::Stop);
        }
        Ok(TreeNodeRecursion::Continue)
    })
    .unwrap();
    cols
}

#[test]
fn a_watermark_lets_the_scan_skip_columns_nobody_reads() {
    use arrow::array::{StringArray, TimestampMicrosecondArray};
    use arrow::datatypes::{DataType, Field, Schema, TimeUnit};
    let s = Session::new(vec![]).unwrap();
    let schema = Arc::new(Schema::new(vec![
        Field::new("ts", DataType::Timestamp(TimeUnit::Microsecond, None), true),
        Field::new("page", DataType::Utf8, true),
        Field::new("payload", DataType::Utf8, true),
    ]));
    let rows = arrow::array::RecordBatch::try_new(
        Arc::clone(&schema),
        vec![
            Arc::new(TimestampMicrosecondArray::from(vec![1_000_000])),
            Arc::new(StringArray::from(vec!["home"])),
            Arc::new(StringArray::from(vec!["x".repeat(100)])),
        ],
    )
    .unwrap();
    let (_stream, stream) = s.memory_stream(Arc::clone(&schema)).unwrap();
    let watermarked =
        sparklet_engine::dataframe::with_watermark(stream, "ts", "10 seconds").unwrap();
    // the event time stays (the watermark reads it), the payload goes
    let pages = watermarked.clone().select_columns(&["page"]).unwrap();
    assert_eq!(scanned_columns(pages), vec!["ts", "page"]);
    // a column read above the watermark is kept as well
    let times = watermarked.select_columns(&["payload", "ts"]).unwrap();
    assert_eq!(scanned_columns(times), vec!["ts", "payload"]);
    // on a batch DataFrame Spark drops the watermark: nothing keeps `ts`
    let batch = s.create_dataframe(schema, vec![rows]).unwrap();
    let pages = sparklet_engine::dataframe::with_watermark(batch, "ts", "10 seconds")
        .unwrap()
        .select_columns(&["page"])
        .unwrap();
    assert_eq!(scanned_columns(pages.clone()), vec!["page"]);
    assert_eq!(
        crate::common::rows(pages),
        vec!["+------+", "| page |", "+------+", "| home |", "+------+"]
    );
}

/// The engine names triggers and sinks (the bindings pass names through):
/// an unknown one is an error, never a silent default.
#[test]
fn triggers_and_sinks_are_chosen_by_name_and_unknown_names_are_errors() {
    use std::collections::HashMap;
    assert_eq!(
        Trigger::named("processingTime", 500).unwrap(),
        Trigger::ProcessingTime { interval_ms: 500 }
    );
    assert_eq!(
        Trigger::named("availableNow", 0).unwrap(),
        Trigger::AvailableNow
    );
    let err = Trigger::named("procesingTime", 500)
        .unwrap_err()
        .to_string();
    assert!(err.contains("Unknown trigger 'procesingTime'"), "{err}");
    let none = HashMap::new();
    assert!(matches!(
        SinkSpec::named("Memory", &none, vec![], None).unwrap(),
        SinkSpec::Memory
    ));
    let Err(err) = SinkSpec::named("delta-ish", &none, vec![], None) else {
        panic!("an unknown format must not choose a sink")
    };
    assert_eq!(err.condition(), Some("DATA_SOURCE_NOT_FOUND"));
    let rows = HashMap::from([("numrows".to_string(), "many".to_string())]);
    let Err(err) = SinkSpec::named("console", &rows, vec![], Some(Box::new(|_: &str| Ok(()))))
    else {
        panic!("numRows must be a number")
    };
    assert!(err.to_string().contains("'numRows'"), "{err}");
}
