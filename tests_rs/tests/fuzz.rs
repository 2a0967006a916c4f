//! Fuzzing of everything that reads untrusted bytes: the JSON, CSV and text
//! readers (every parse mode), `from_json`, and the checkpoint's files
//! (offsets, commits, metadata, the file source's log, the file sink's
//! manifest, state deltas, snapshots and their metadata). Any input must
//! give rows, malformed rows or a clear error: never a panic (proptest
//! reports one as a failure, with the smallest input it shrinks to), a
//! crash or a hang.
//!
//! Each case takes a seed from the corpus kept in `tests_rs/fuzz/<target>/`
//! (state files are made by a real store each run) and mutates it: bytes
//! flipped, inserted, removed or repeated, tokens that parsers treat
//! specially spliced in, the input cut short. `make test` runs
//! `PROPTEST_CASES` cases per target (256 by default); a long run is
//! `make fuzz` (docs/fuzzing.md). Findings are kept by proptest in
//! `tests_rs/proptest-regressions/` and replayed first on every run.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::datatypes::{DataType, Field, Schema, SchemaRef, TimeUnit};
use datafusion::common::ScalarValue;
use proptest::prelude::*;
use sparklet_engine::checkpoint::{Checkpoint, CheckpointPaths};
use sparklet_engine::formats::{self, ReadOptions};
use sparklet_engine::state::memory::MemoryProvider;
use sparklet_engine::state::partitioned::{OperatorInfo, StateLayout};
use sparklet_engine::state::{KeyOrder, StateStoreProvider, StoreSpec};
use sparklet_engine::Session;

use crate::common::TempDir;

/// `tests_rs/`: where cargo runs the tests from (it sets the variable), or
/// where they were built (a test binary run by hand, as `tools/fuzz.py` does,
/// may have been built from another checkout sharing the target folder).
fn tests_dir() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")))
}

/// The seeds of `target`, from `tests_rs/fuzz/<target>/`.
fn corpus(target: &str) -> Vec<Vec<u8>> {
    let dir = tests_dir().join("fuzz").join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("the corpus {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files.iter().map(|p| std::fs::read(p).unwrap()).collect()
}

/// Byte strings parsers treat specially.
const TOKENS: &[&[u8]] = &[
    b"[",
    b"{",
    b"]",
    b"}",
    b"\"",
    b"\\",
    b"\n",
    b"\r\n",
    b",",
    b":",
    b"-",
    b"null",
    b"1e999",
    b"-9223372036854775809",
    b"\xff",
    b"\xc3",
    b"\x00",
    b"v1\n",
    b"v99\n",
    b"\\u0000",
    b"\\ud800",
    b"\"\"",
    b";",
    b"'",
    b"file://",
    b"../",
    b"NaN",
];

/// One change to a seed.
#[derive(Debug, Clone)]
enum Mutation {
    Flip(usize, u8),
    Insert(usize, u8),
    Remove(usize, usize),
    /// Repeat a run of bytes many times (deep nesting, long lines).
    Repeat(usize, usize, usize),
    Token(usize, usize),
    Truncate(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 0u8..8).prop_map(|(p, b)| Mutation::Flip(p, b)),
        (any::<usize>(), any::<u8>()).prop_map(|(p, b)| Mutation::Insert(p, b)),
        (any::<usize>(), 1usize..16).prop_map(|(p, n)| Mutation::Remove(p, n)),
        (any::<usize>(), 1usize..4, 1usize..3000).prop_map(|(p, n, k)| Mutation::Repeat(p, n, k)),
        (any::<usize>(), 0..TOKENS.len()).prop_map(|(p, t)| Mutation::Token(p, t)),
        any::<usize>().prop_map(Mutation::Truncate),
    ]
}

fn apply(mut bytes: Vec<u8>, mutations: &[Mutation]) -> Vec<u8> {
    for m in mutations {
        let at = |p: usize, len: usize| if len == 0 { 0 } else { p % (len + 1) };
        match *m {
            Mutation::Flip(p, bit) if !bytes.is_empty() => {
                let i = p % bytes.len();
                bytes[i] ^= 1 << bit;
            }
            Mutation::Flip(..) => {}
            Mutation::Insert(p, b) => {
                let i = at(p, bytes.len());
                bytes.insert(i, b);
            }
            Mutation::Remove(p, n) => {
                let i = at(p, bytes.len());
                let end = (i + n).min(bytes.len());
                bytes.drain(i..end);
            }
            Mutation::Repeat(p, n, k) => {
                let i = at(p, bytes.len());
                let end = (i + n).min(bytes.len());
                let run = bytes[i..end].to_vec();
                let tail = bytes.split_off(end);
                for _ in 0..k {
                    bytes.extend_from_slice(&run);
                }
                bytes.extend(tail);
            }
            Mutation::Token(p, t) => {
                let i = at(p, bytes.len());
                bytes.splice(i..i, TOKENS[t].iter().copied());
            }
            Mutation::Truncate(p) => {
                let i = at(p, bytes.len());
                bytes.truncate(i);
            }
        }
    }
    bytes
}

/// A seed of `seeds`, mutated.
fn input(seeds: Vec<Vec<u8>>) -> impl Strategy<Value = Vec<u8>> {
    let n = seeds.len();
    (0..n, prop::collection::vec(mutation(), 0..8))
        .prop_map(move |(i, ms)| apply(seeds[i].clone(), &ms))
}

/// `tests_rs/proptest-regressions/fuzz.txt` (proptest wants a `'static` path).
fn regressions_file() -> &'static str {
    static PATH: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PATH.get_or_init(|| {
        tests_dir()
            .join("proptest-regressions")
            .join("fuzz.txt")
            .to_string_lossy()
            .into_owned()
    })
}

fn config() -> ProptestConfig {
    // PROPTEST_CASES overrides the count (the long run sets it high)
    ProptestConfig {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(256),
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::Direct(regressions_file()),
        )),
        ..ProptestConfig::default()
    }
}

/// A schema with every kind of field the readers convert.
fn reader_schema(corrupt: bool) -> SchemaRef {
    let mut fields = vec![
        Field::new("id", DataType::Int64, true),
        Field::new("name", DataType::Utf8, true),
        Field::new(
            "ts",
            DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            true,
        ),
        Field::new(
            "tags",
            DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))),
            true,
        ),
        Field::new(
            "nested",
            DataType::Struct(vec![Field::new("k", DataType::Float64, true)].into()),
            true,
        ),
    ];
    if corrupt {
        fields.push(Field::new("_corrupt_record", DataType::Utf8, true));
    }
    Arc::new(Schema::new(fields))
}

fn options(mode: &str, extra: &[(&str, &str)]) -> ReadOptions {
    let mut map: HashMap<String, String> = [("mode".to_string(), mode.to_string())].into();
    map.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    ReadOptions::from_options(&map).unwrap()
}

const MODES: [&str; 3] = ["PERMISSIVE", "DROPMALFORMED", "FAILFAST"];

proptest! {
    #![proptest_config(config())]

    #[test]
    fn json_reader(bytes in input(corpus("json"))) {
        let text = String::from_utf8_lossy(&bytes);
        for mode in MODES {
            for multi_line in ["false", "true"] {
                let opts = options(mode, &[("multiline", multi_line)]);
                let _ = formats::json::parse(&text, &reader_schema(mode == "PERMISSIVE"), &opts, "fuzz.json");
            }
        }
        let _ = formats::json::infer_schema(&text, &options("PERMISSIVE", &[]));
    }

    #[test]
    fn csv_reader(bytes in input(corpus("csv"))) {
        let text = String::from_utf8_lossy(&bytes);
        let flat = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int64, true),
            Field::new("name", DataType::Utf8, true),
            Field::new("ts", DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())), true),
        ]));
        for mode in MODES {
            for header in ["true", "false"] {
                let opts = options(mode, &[("header", header), ("inferschema", "true")]);
                let _ = formats::csv::parse(&text, &flat, &opts, "fuzz.csv");
            }
        }
    }

    #[test]
    fn text_reader(bytes in input(corpus("text"))) {
        let text = String::from_utf8_lossy(&bytes);
        let schema = Arc::new(Schema::new(vec![Field::new("value", DataType::Utf8, true)]));
        for whole in ["false", "true"] {
            let _ = formats::text::parse(&text, &schema, &options("PERMISSIVE", &[("wholetext", whole)]));
        }
    }

    #[test]
    fn from_json(bytes in input(corpus("json"))) {
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let session = Session::new(vec![]).unwrap();
        let schema = Arc::new(Schema::new(vec![Field::new("s", DataType::Utf8, true)]));
        let rows = arrow::array::StringArray::from(vec![Some(text.as_str()), None]);
        let batch = arrow::array::RecordBatch::try_new(Arc::clone(&schema), vec![Arc::new(rows)]).unwrap();
        let df = session.create_dataframe(schema, vec![batch]).unwrap();
        session.create_or_replace_temp_view("fuzz_json", df).unwrap();
        for schema in ["id BIGINT, name STRING, nested STRUCT<k: DOUBLE>", "tags ARRAY<STRING>"] {
            let sql = format!("SELECT from_json(s, '{schema}') AS j FROM fuzz_json");
            if let Ok(df) = session.sql(&sql) {
                let _ = sparklet_engine::dataframe::collect(df);
            }
        }
    }

    #[test]
    fn offsets_and_commit_logs(bytes in input(corpus("offsets")), commit in input(corpus("commits"))) {
        let dir = TempDir::new("fuzz-offsets");
        let cp = Checkpoint::open(CheckpointPaths::new(dir.path(), true)).unwrap();
        std::fs::write(dir.path().join("offsets").join("0"), &bytes).unwrap();
        std::fs::write(dir.path().join("commits").join("0"), &commit).unwrap();
        let _ = cp.read_offsets(0);
        let _ = cp.read_commit(0);
        let _ = cp.latest();
    }

    #[test]
    fn metadata_file(bytes in input(corpus("metadata"))) {
        let dir = TempDir::new("fuzz-metadata");
        let cp = Checkpoint::open(CheckpointPaths::new(dir.path(), true)).unwrap();
        std::fs::write(dir.path().join("metadata"), &bytes).unwrap();
        let _ = cp.stored_query_id();
    }

    #[test]
    fn source_log(bytes in input(corpus("source_log")), compact in any::<bool>()) {
        let dir = TempDir::new("fuzz-source-log");
        let name = if compact { "9.compact" } else { "0" };
        std::fs::write(dir.path().join(name), &bytes).unwrap();
        let _ = sparklet_engine::sources::file_log::read_all(dir.path());
    }

    #[test]
    fn file_sink_manifest(bytes in input(corpus("manifest")), compact in any::<bool>()) {
        let dir = TempDir::new("fuzz-manifest");
        let meta = dir.path().join("_spark_metadata");
        std::fs::create_dir_all(&meta).unwrap();
        let name = if compact { "9.compact" } else { "0" };
        std::fs::write(meta.join(name), &bytes).unwrap();
        let _ = sparklet_engine::sinks::file::committed_files(dir.path());
    }

    #[test]
    fn state_files(pick in 0usize..64, mutations in prop::collection::vec(mutation(), 1..8)) {
        let dir = TempDir::new("fuzz-state");
        let spec = state_store(dir.path());
        let files = state_files_of(dir.path());
        let target = &files[pick % files.len()];
        let bytes = apply(std::fs::read(target).unwrap(), &mutations);
        std::fs::write(target, &bytes).unwrap();
        let provider = MemoryProvider;
        for version in [3, 5] {
            if let Ok(store) = provider.open(&spec, version) {
                let _ = store.entries();
            }
        }
        let _ = OperatorInfo::read(dir.path());
        let _ = StateLayout::read(dir.path(), "default");
    }
}

fn store_spec(dir: &Path) -> StoreSpec {
    StoreSpec {
        dir: dir.join("0"),
        value_fields: vec![Arc::new(Field::new("count", DataType::Int64, true))],
        min_deltas_for_snapshot: 2,
        min_versions_to_retain: 10,
        key_order: KeyOrder::Sorted,
        evolution: None,
        durable: true,
        fsync: true,
    }
}

/// A real store's checkpoint under `dir`: five versions (deltas, a
/// snapshot), with the operator metadata and layout beside them.
fn state_store(dir: &Path) -> StoreSpec {
    let spec = store_spec(dir);
    let mut store = MemoryProvider.open(&spec, 0).unwrap();
    for version in 1..=5i64 {
        store
            .put(
                format!("key-{version}").into_bytes(),
                vec![ScalarValue::Int64(Some(version))],
            )
            .unwrap();
        if version == 4 {
            store.remove(b"key-1");
        }
        store.commit().unwrap();
    }
    drop(store); // its snapshot written
                 // the operator's metadata and layout, as an operator declares them
    let layout = StateLayout {
        key: vec![Arc::new(Field::new("k", DataType::Utf8, true))],
        time: None,
        value: spec.value_fields.clone(),
        rows: None,
    };
    sparklet_engine::state::partitioned::OperatorStateSpec {
        id: 0,
        dir: dir.to_path_buf(),
        partitions: 1,
        version: 5,
        min_deltas_for_snapshot: 2,
        min_versions_to_retain: 10,
        evolution: None,
        encoding: Default::default(),
        durable: true,
        fsync: true,
    }
    .open_table(&MemoryProvider, "stateStoreSave", layout, KeyOrder::Sorted)
    .unwrap();
    spec
}

/// The files a fuzz case damages: a delta, a snapshot, the metadata.
fn state_files_of(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir.join("0"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    out.sort();
    out.push(dir.join("_metadata").join("metadata"));
    out.push(dir.join("_metadata").join("layout-default.arrow"));
    out
}
