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
            .contains("Complete output mode not supported"),
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
    let q = s
        .start_query(
            joined,
            recording_sink(&seen),
            QueryOptions {
                trigger: Trigger::default(),
                output_mode: OutputMode::Append,
                ..Default::default()
            },
        )
        .unwrap();
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
