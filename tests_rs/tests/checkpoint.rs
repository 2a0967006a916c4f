//! Checkpoint files and recovery decisions.

use std::collections::BTreeMap;

use sparklet_engine::checkpoint::recovery::{decide, Resume};
use sparklet_engine::checkpoint::{log, Checkpoint, CheckpointPaths, OffsetSeq, OffsetSeqMetadata};
use sparklet_engine::sinks::memory::{MemorySink, SinkTable};
use sparklet_engine::sinks::{Sink, SinkBatch};
use sparklet_engine::sources::file_log::{self, LogEntry};

use crate::common::{batch, schema_id_word, TempDir};

#[test]
fn recovery_decisions() {
    assert_eq!(decide(None, None, None, "c").unwrap(), Resume::Fresh);
    assert_eq!(
        decide(Some(4), Some(3), Some(4), "c").unwrap(),
        Resume::After { last: 4 }
    );
    assert_eq!(
        decide(Some(5), Some(4), Some(4), "c").unwrap(),
        Resume::Replay {
            batch: 5,
            previous: Some(4)
        }
    );
    assert_eq!(
        decide(Some(0), None, None, "c").unwrap(),
        Resume::Replay {
            batch: 0,
            previous: None
        }
    );
    let err = decide(Some(3), Some(2), Some(7), "/ck").unwrap_err();
    assert_eq!(err.condition(), Some("CHECKPOINT_INCONSISTENT"));
    assert!(err.to_string().contains("/ck"));
    assert!(decide(None, None, Some(1), "c").is_err());
    // batch 8 planned but not committed: 5-8 cannot all be unlogged
    assert!(decide(Some(9), Some(8), Some(4), "c").is_err());
    // a planned batch with an older one uncommitted before it
    assert!(decide(Some(3), Some(1), None, "c").is_err());
}

#[test]
fn recovery_across_batches_asynchronous_progress_tracking_left_unlogged() {
    // offsets 4 and 9 logged, commits 4: batches 5-8 ran unlogged; 9 replays
    // from 4's offsets
    assert_eq!(
        decide(Some(9), Some(4), Some(4), "c").unwrap(),
        Resume::Replay {
            batch: 9,
            previous: Some(4)
        }
    );
    // the first logged batch was not batch 0 and did not commit
    assert_eq!(
        decide(Some(3), None, None, "c").unwrap(),
        Resume::Replay {
            batch: 3,
            previous: None
        }
    );
}

#[test]
fn offsets_round_trip_and_atomic_writes_leave_no_temp_files() {
    let dir = TempDir::new("ckpt");
    let cp = Checkpoint::open(CheckpointPaths::new(dir.path(), true)).unwrap();
    let seq = OffsetSeq {
        metadata: OffsetSeqMetadata {
            batch_watermark_ms: 5,
            batch_timestamp_ms: 1234,
            conf: BTreeMap::from([(
                "spark.sql.shuffle.partitions".to_string(),
                "200".to_string(),
            )]),
        },
        offsets: vec![Some(serde_json::json!({"logOffset": 3})), None],
    };
    cp.write_offsets(7, &seq).unwrap();
    assert_eq!(cp.read_offsets(7).unwrap(), seq);
    cp.write_commit(7, 5).unwrap();
    assert_eq!(cp.read_commit(7).unwrap(), 5);
    assert_eq!(cp.latest().unwrap(), (Some(7), None, Some(7)));
    let leftovers: Vec<_> = std::fs::read_dir(dir.path().join("offsets"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    assert_eq!(leftovers, vec!["7".to_string()]);
    assert_eq!(cp.query_id("first").unwrap(), "first");
    assert_eq!(cp.query_id("second").unwrap(), "first");
}

#[test]
fn unknown_version_and_torn_files_are_errors_naming_the_file() {
    let dir = TempDir::new("ckpt-bad");
    let cp = Checkpoint::open(CheckpointPaths::new(dir.path(), true)).unwrap();
    dir.write("offsets/0", "v2\n{}\n-");
    let err = cp.read_offsets(0).unwrap_err();
    assert_eq!(
        err.condition(),
        Some("INVALID_LOG_VERSION.MAX_SUPPORTED_VERSION")
    );
    assert!(err.to_string().contains("offsets/0"));
    dir.write("offsets/1", "v1\n{\"batchWatermarkMs\":");
    let err = cp.read_offsets(1).unwrap_err();
    assert_eq!(err.condition(), Some("CHECKPOINT_FILE_CORRUPT"));
    assert!(err.to_string().contains("offsets/1"));
    let err = log::read_entries(&dir.path().join("offsets/404")).unwrap_err();
    assert!(err.to_string().contains("offsets/404"));
}

#[test]
fn file_source_log_compacts_every_ten_batches() {
    let dir = TempDir::new("filelog");
    let mut all = BTreeMap::new();
    for b in 0..12 {
        let e = vec![LogEntry {
            path: format!("/data/f{b}.json").into(),
            timestamp: b,
            batch_id: b,
        }];
        all.insert(b, e.clone());
        file_log::write_batch(dir.path(), b, &e, &all, true).unwrap();
    }
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    names.sort();
    assert_eq!(names, vec!["10", "11", "9.compact"]);
    let read = file_log::read_all(dir.path()).unwrap();
    assert_eq!(read.len(), 12);
    assert_eq!(read[&4][0].path.to_str(), Some("/data/f4.json"));
}

#[test]
fn memory_sink_replaces_a_replayed_batch() {
    let s = sparklet_engine::Session::new(vec![]).unwrap();
    let table = SinkTable::new(schema_id_word()).unwrap();
    table.register("replayed", s.ctx()).unwrap();
    let mut sink = MemorySink::new(table, false, schema_id_word());
    let data = || SinkBatch {
        schema: schema_id_word(),
        batches: vec![batch(&[1, 2], &["a", "b"])],
    };
    sink.add_batch(0, data()).unwrap();
    sink.add_batch(0, data()).unwrap();
    let rows = crate::common::rows(s.sql("SELECT count(*) AS n FROM replayed").unwrap()).join("\n");
    assert!(rows.contains("| 2 |"), "{rows}");
}

#[test]
fn memory_sink_adds_a_long_running_batchs_rows_and_a_rerun_replaces_them() {
    let s = sparklet_engine::Session::new(vec![]).unwrap();
    let table = SinkTable::new(schema_id_word()).unwrap();
    table.register("epochs", s.ctx()).unwrap();
    let mut sink = MemorySink::new(table, false, schema_id_word());
    let data = |ids: &[i64], words: &[&str]| SinkBatch {
        schema: schema_id_word(),
        batches: vec![batch(ids, words)],
    };
    let count =
        || crate::common::rows(s.sql("SELECT count(*) AS n FROM epochs").unwrap()).join("\n");
    sink.add_batch(0, data(&[1], &["a"])).unwrap();
    // batch 1's epochs add up as they arrive
    sink.add_rows(1, true, data(&[2], &["b"])).unwrap();
    sink.add_rows(1, false, data(&[3, 4], &["c", "d"])).unwrap();
    assert!(count().contains("| 4 |"), "{}", count());
    // batch 1 failed and runs again: its first delivery replaces the old rows
    sink.add_rows(1, true, data(&[2], &["b"])).unwrap();
    assert!(count().contains("| 2 |"), "{}", count());
}
