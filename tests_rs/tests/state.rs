//! The state stores (in-memory and RocksDB, each test on both): versions,
//! deltas, snapshots, restart.

use std::sync::Arc;

use arrow::datatypes::{DataType, Field};
use datafusion::common::ScalarValue;
use sparklet_engine::exec::operator::time_prefix;
use sparklet_engine::state::memory::MemoryProvider;
use sparklet_engine::state::rocks::{RocksDbProvider, RocksDbSettings};
use sparklet_engine::state::{KeyOrder, StateStore, StateStoreProvider, StoreSpec};

use crate::common::TempDir;

fn spec(dir: &std::path::Path) -> StoreSpec {
    StoreSpec {
        dir: dir.to_path_buf(),
        value_fields: vec![Arc::new(Field::new("count", DataType::Int64, true))],
        min_deltas_for_snapshot: 3,
        min_versions_to_retain: 2,
        key_order: KeyOrder::Sorted,
        evolution: None,
        durable: true,
        fsync: true,
    }
}

fn v(n: i64) -> Vec<ScalarValue> {
    vec![ScalarValue::Int64(Some(n))]
}

fn versions_reload_from_snapshot_plus_deltas(kind: Kind) {
    let dir = TempDir::new("state");
    let provider = kind.provider(dir.path());
    let s = spec(dir.path());
    let mut store = provider.open(&s, 0).unwrap();
    for version in 1..=5i64 {
        store
            .put(format!("k{version}").into_bytes(), v(version))
            .unwrap();
        if version == 4 {
            store.remove(b"k1");
        }
        assert_eq!(store.commit().unwrap(), version);
    }
    assert_eq!(store.metrics().cache_hits, 5);
    drop(store); // waits for the snapshot written off the batch's path
    assert!(kind.snapshot(dir.path(), 3).exists());
    let reopened = provider.open(&s, 5).unwrap();
    let keys: Vec<String> = reopened
        .keys()
        .map(|k| String::from_utf8(k.unwrap().to_vec()).unwrap())
        .collect();
    assert_eq!(keys, vec!["k2", "k3", "k4", "k5"]);
    assert_eq!(reopened.get(b"k5").unwrap(), Some(v(5)));
    // an older version is still readable (replay of an uncommitted batch)
    let at2 = provider.open(&s, 2).unwrap();
    assert_eq!(at2.entries().unwrap().len(), 2);
    assert_eq!(at2.metrics().num_keys, 2);
}

#[test]
fn a_store_of_a_temporary_checkpoint_writes_no_files() -> sparklet_engine::error::Result<()> {
    // a query without checkpointLocation: nothing can resume from its
    // folder, so its state is kept by the store alone, version after version
    for kind in [Kind::Memory, Kind::RocksDb] {
        let dir = TempDir::new("state-volatile");
        let provider = kind.provider(dir.path());
        let s = StoreSpec {
            durable: false,
            fsync: false,
            ..spec(&dir.path().join("state").join("0").join("0"))
        };
        let mut store = provider.open(&s, 0)?;
        for version in 1..=4i64 {
            store.put(b"count".to_vec(), v(version))?;
            store.put(format!("k{version}").into_bytes(), v(version))?;
            if version == 3 {
                store.remove(b"k1");
            }
            assert_eq!(store.commit()?, version);
        }
        assert_eq!(store.get(b"count")?, Some(v(4)));
        assert!(store.get(b"k1")?.is_none());
        assert_eq!(store.metrics().num_keys, 4);
        drop(store); // a snapshot would be written by now (every 3 versions)
        let files: Vec<_> = walk(dir.path());
        assert!(files.is_empty(), "{kind:?} wrote {files:?}");
    }
    Ok(())
}

/// Every file under `dir`.
fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return vec![];
    };
    entries
        .flatten()
        .flat_map(|e| {
            let p = e.path();
            if p.is_dir() {
                walk(&p)
            } else {
                vec![p]
            }
        })
        .collect()
}

fn a_missing_delta_is_an_error_naming_the_folder(kind: Kind) {
    let dir = TempDir::new("state-missing");
    let provider = kind.provider(dir.path());
    let s = spec(dir.path());
    let mut store = provider.open(&s, 0).unwrap();
    store.put(b"a".to_vec(), v(1)).unwrap();
    store.commit().unwrap();
    std::fs::remove_file(dir.path().join("1.delta")).unwrap();
    let err = provider.open(&s, 1).err().expect("missing delta must fail");
    assert!(err.to_string().contains("1.delta"), "{err}");
}

fn changes_within_a_version_keep_the_last_one(kind: Kind) {
    // a sorted map, and the hashed arena (removed keys leave its table at once)
    for key_order in [KeyOrder::Sorted, KeyOrder::Unordered] {
        changes_within_a_version_keep_the_last_one_in(kind, key_order);
    }
}

fn changes_within_a_version_keep_the_last_one_in(kind: Kind, key_order: KeyOrder) {
    let dir = TempDir::new("state-last");
    let provider = kind.provider(dir.path());
    let s = StoreSpec {
        key_order,
        ..spec(dir.path())
    };
    let mut store = provider.open(&s, 0).unwrap();
    store.put(b"a".to_vec(), v(1)).unwrap();
    store.put(b"b".to_vec(), v(1)).unwrap();
    store.commit().unwrap();
    // removed then put again, put then removed, updated twice
    store.remove(b"a");
    store.put(b"a".to_vec(), v(2)).unwrap();
    store.put(b"c".to_vec(), v(3)).unwrap();
    store.remove(b"c");
    store.put(b"b".to_vec(), v(4)).unwrap();
    store.put(b"b".to_vec(), v(5)).unwrap();
    store.commit().unwrap();
    let reopened = provider.open(&s, 2).unwrap();
    let mut entries = reopened.entries().unwrap();
    entries.sort_by(|x, y| x.0.cmp(&y.0)); // the arena keeps no order
    assert_eq!(entries, vec![(b"a".to_vec(), v(2)), (b"b".to_vec(), v(5))]);
    assert!(reopened.contains(b"a").unwrap() && !reopened.contains(b"c").unwrap());
    assert_eq!(reopened.metrics().cache_misses, 1);
}

fn binary_values_are_kept_as_their_bytes_through_deltas_and_snapshots(kind: Kind) {
    let dir = TempDir::new("state-raw");
    let provider = kind.provider(dir.path());
    let s = StoreSpec {
        value_fields: vec![Arc::new(Field::new("row", DataType::Binary, true))],
        ..spec(dir.path())
    };
    let bytes = |n: u8| vec![ScalarValue::Binary(Some(vec![n; n as usize]))];
    let mut store = provider.open(&s, 0).unwrap();
    for version in 1..=4u8 {
        store.put(vec![version], bytes(version)).unwrap();
        store.commit().unwrap();
    }
    let size = store.metrics().memory_bytes;
    drop(store); // the snapshot of version 3 lands
    let reopened = provider.open(&s, 4).unwrap();
    assert_eq!(reopened.get(&[4]).unwrap(), Some(bytes(4)));
    assert_eq!(reopened.get(&[1]).unwrap(), Some(bytes(1)));
    if matches!(kind, Kind::Memory) {
        assert_eq!(reopened.metrics().memory_bytes, size);
    }
}

/// Entries a store keeps as they were handed over (a join's segments of
/// rows) come back from a snapshot alone, beside entries put as bytes and
/// one replaced.
fn entries_kept_whole_reload_from_a_snapshot(kind: Kind) {
    let dir = TempDir::new("state-whole");
    let provider = kind.provider(dir.path());
    let s = raw_spec(dir.path(), KeyOrder::Unordered);
    let mut store = provider.open(&s, 0).unwrap();
    let value = |fill: u8, len: usize| vec![fill; len];
    let put_whole = |store: &mut dyn StateStore, key: &[u8], value: Vec<u8>| {
        let entry = [key, &value[..]].concat();
        // a store that cannot keep the buffer hands it back
        if let Some(back) = store.put_entry(entry, key.len()).unwrap() {
            store.put_bytes(key, &back[key.len()..]).unwrap();
        }
    };
    for version in 1..=3u8 {
        let len = 100_000 * usize::from(version);
        put_whole(store.as_mut(), &[b'g', version], value(version, len));
        store.put_bytes(&[b'k', version], &[version]).unwrap();
        if version == 2 {
            put_whole(store.as_mut(), &[b'g', 1], value(9, 10));
        }
        store.commit().unwrap();
    }
    drop(store); // version 3's snapshot lands
    for version in 1..=3 {
        std::fs::remove_file(dir.path().join(format!("{version}.delta"))).unwrap();
    }
    let reopened = provider.open(&s, 3).unwrap();
    let got = |key: &[u8]| reopened.get_bytes(key).unwrap().map(|v| v.to_vec());
    assert_eq!(got(b"g\x01"), Some(value(9, 10)));
    assert_eq!(got(b"g\x02"), Some(value(2, 200_000)));
    assert_eq!(got(b"g\x03"), Some(value(3, 300_000)));
    for version in 1..=3u8 {
        assert_eq!(got(&[b'k', version]), Some(vec![version]));
    }
    assert_eq!(reopened.metrics().num_keys, 6);
}

fn partitioned_state_reports_every_store_in_progress(kind: Kind) {
    use sparklet_engine::state::partitioned::{
        progress, OperatorMetrics, OperatorStateSpec, PartitionedState,
    };
    let dir = TempDir::new("state-partitioned");
    let provider = kind.provider(dir.path());
    let spec = OperatorStateSpec {
        id: 0,
        dir: dir.path().to_path_buf(),
        partitions: 3,
        version: 0,
        min_deltas_for_snapshot: 10,
        min_versions_to_retain: 2,
        evolution: None,
        encoding: Default::default(),
        durable: true,
        fsync: true,
    };
    let fields = vec![Arc::new(Field::new("count", DataType::Int64, true))];
    let mut left = PartitionedState::open_named(
        provider.as_ref(),
        &spec,
        Some("left"),
        &fields,
        KeyOrder::Sorted,
    )
    .unwrap();
    let right = PartitionedState::open_named(
        provider.as_ref(),
        &spec,
        Some("right"),
        &fields,
        KeyOrder::Sorted,
    )
    .unwrap();
    let key = b"k".to_vec();
    let p = left.partition_of(&key);
    left.store_mut(p).put(key, v(1)).unwrap();
    left.commit().unwrap();
    assert!(dir
        .path()
        .join(p.to_string())
        .join("left")
        .join("1.delta")
        .exists());
    let m = OperatorMetrics {
        rows_updated: 1,
        ..Default::default()
    };
    let json = progress(
        "symmetricHashJoin",
        &[("left", &left), ("right", &right)],
        &m,
    );
    assert_eq!(json["numRowsTotal"], 1);
    assert_eq!(json["numStateStoreInstances"], 6);
    assert_eq!(json["numShufflePartitions"], 3);
    let custom = &json["customMetrics"];
    assert_eq!(custom["SnapshotLastUploaded.partition_2_right"], -1);
    assert_eq!(custom["loadedMapCacheHitCount"], 3); // left's three stores committed once
}

/// A binary-valued store with `order`, for the operators' own encodings.
fn raw_spec(dir: &std::path::Path, order: KeyOrder) -> StoreSpec {
    StoreSpec {
        value_fields: vec![Arc::new(Field::new("row", DataType::Binary, true))],
        key_order: order,
        ..spec(dir)
    }
}

fn timed(t: i64, rest: &[u8]) -> Vec<u8> {
    let mut k = time_prefix(t).to_vec();
    k.extend_from_slice(rest);
    k
}

fn put_if_absent_for_many_keys_answers_in_order(kind: Kind) {
    let dir = TempDir::new("state-absent");
    let provider = kind.provider(dir.path());
    let s = raw_spec(dir.path(), KeyOrder::Unordered);
    let mut store = provider.open(&s, 0).unwrap();
    for k in [&b"old"[..], b"gone"] {
        store.put_bytes(k, b"1").unwrap();
    }
    store.commit().unwrap();
    store.remove(b"gone"); // removed this batch: absent again
    let keys: Vec<&[u8]> = vec![b"new", b"old", b"new", b"gone", b"other"];
    let values: Vec<&[u8]> = vec![b"a", b"b", b"c", b"d", b"e"];
    let set = store.put_bytes_if_absent_all(&keys, &values).unwrap();
    assert_eq!(set, vec![true, false, false, true, true]);
    assert_eq!(store.metrics().num_keys, 4);
    store.commit().unwrap();
    let reopened = provider.open(&s, 2).unwrap();
    let value = |k: &[u8]| reopened.get_bytes(k).unwrap().map(|v| v.into_owned());
    assert_eq!(value(b"new"), Some(b"a".to_vec())); // the first of the repeats
    assert_eq!(value(b"old"), Some(b"1".to_vec()));
    assert_eq!(value(b"gone"), Some(b"d".to_vec()));
    assert_eq!(reopened.metrics().num_keys, 4);
}

fn time_prefixed_store_removes_keys_before_a_time_and_keeps_the_rest(kind: Kind) {
    let dir = TempDir::new("state-timed");
    let provider = kind.provider(dir.path());
    let s = raw_spec(dir.path(), KeyOrder::TimePrefixed);
    let mut store = provider.open(&s, 0).unwrap();
    // the same second, and seconds before and after the bound's
    let times = [(-5, b"a"), (3, b"b"), (3, b"c"), (7, b"d"), (10, b"e")];
    let far = [(-3_000_000, b"f"), (9_000_000, b"g")];
    for (t, rest) in times.into_iter().chain(far) {
        store.put_bytes(&timed(t, rest), rest).unwrap();
    }
    // removed then put again: still removed once, by time
    store.remove(&timed(3, b"b"));
    store.put_bytes(&timed(3, b"b"), b"b2").unwrap();
    let bound = time_prefix(8);
    assert_eq!(store.remove_below(&bound).unwrap(), 5);
    assert_eq!(store.metrics().num_keys, 2);
    assert!(store.contains(&timed(10, b"e")).unwrap());
    store.commit().unwrap();
    // the delta records the removals: a restart sees the same state
    let reopened = provider.open(&s, 1).unwrap();
    let mut keys: Vec<Vec<u8>> = reopened.keys().map(|k| k.unwrap().into_owned()).collect();
    keys.sort();
    assert_eq!(keys, vec![timed(10, b"e"), timed(9_000_000, b"g")]);
    assert_eq!(
        reopened.get_bytes(&timed(10, b"e")).unwrap().as_deref(),
        Some(&b"e"[..])
    );
}

fn delta_rows(dir: &std::path::Path, version: i64) -> usize {
    let file = std::fs::File::open(dir.join(format!("{version}.delta"))).unwrap();
    arrow::ipc::reader::FileReader::try_new(file, None)
        .unwrap()
        .map(|b| b.unwrap().num_rows())
        .sum()
}

fn an_eviction_is_one_range_in_the_delta_and_replays_before_later_puts(kind: Kind) {
    let dir = TempDir::new("state-range");
    let provider = kind.provider(dir.path());
    let s = StoreSpec {
        min_deltas_for_snapshot: 100, // versions come from deltas only
        ..raw_spec(dir.path(), KeyOrder::TimePrefixed)
    };
    let mut store = provider.open(&s, 0).unwrap();
    for t in 0..1000 {
        store.put_bytes(&timed(t, b"x"), b"v").unwrap();
    }
    store.commit().unwrap();
    // evict times before 500; then a late key below the bound arrives, and
    // one key after it is removed on its own
    assert_eq!(store.remove_below(&time_prefix(500)).unwrap(), 500);
    store.put_bytes(&timed(10, b"late"), b"l").unwrap();
    store.remove(&timed(900, b"x"));
    store.commit().unwrap();
    // the 500 evicted keys are one footer entry: the rows are the late
    // key and the single removal
    assert_eq!(delta_rows(dir.path(), 2), 2);
    drop(store);
    let at2 = provider.open(&s, 2).unwrap();
    assert_eq!(at2.metrics().num_keys, 500);
    assert!(at2.contains(&timed(10, b"late")).unwrap());
    assert!(!at2.contains(&timed(100, b"x")).unwrap());
    assert!(!at2.contains(&timed(900, b"x")).unwrap());
    assert!(at2.contains(&timed(500, b"x")).unwrap());
    drop(at2);
    // the version before the eviction still has every key
    assert_eq!(provider.open(&s, 1).unwrap().metrics().num_keys, 1000);
}

fn unordered_store_answers_scans_by_filtering_and_survives_restarts(kind: Kind) {
    let dir = TempDir::new("state-unordered");
    let provider = kind.provider(dir.path());
    let s = raw_spec(dir.path(), KeyOrder::Unordered);
    let mut store = provider.open(&s, 0).unwrap();
    for k in [b"b2", b"a1", b"b1", b"c1"] {
        store.put_bytes(k, k).unwrap();
    }
    let scanned: Vec<Vec<u8>> = store
        .scan_prefix(b"b")
        .unwrap()
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    assert_eq!(scanned, vec![b"b1".to_vec(), b"b2".to_vec()]);
    assert_eq!(store.remove_below(b"b").unwrap(), 1);
    store.commit().unwrap();
    let reopened = provider.open(&s, 1).unwrap();
    let mut keys: Vec<Vec<u8>> = reopened.keys().map(|k| k.unwrap().into_owned()).collect();
    keys.sort();
    assert_eq!(keys, vec![b"b1".to_vec(), b"b2".to_vec(), b"c1".to_vec()]);
}

fn a_state_file_with_other_column_names_is_an_incompatible_checkpoint(kind: Kind) {
    let dir = TempDir::new("state-renamed");
    let provider = kind.provider(dir.path());
    let mut store = provider
        .open(&raw_spec(dir.path(), KeyOrder::Unordered), 0)
        .unwrap();
    store.put_bytes(b"k", b"v").unwrap();
    store.commit().unwrap();
    let renamed = StoreSpec {
        value_fields: vec![Arc::new(Field::new("rows", DataType::Binary, true))],
        ..raw_spec(dir.path(), KeyOrder::Unordered)
    };
    let Err(err) = provider.open(&renamed, 1) else {
        panic!("a renamed state column must not load")
    };
    let err = err.to_string();
    assert!(err.contains("CHECKPOINT_INCOMPATIBLE"), "{err}");
    assert!(err.contains("v0_row") && err.contains("v0_rows"), "{err}");
}

/// Widens each value column to the store's type (a stand-in for an
/// operator's schema evolution).
#[derive(Debug)]
struct Widen;

impl sparklet_engine::state::ValueEvolution for Widen {
    fn adapt(
        &self,
        _written: &[arrow::datatypes::FieldRef],
        columns: &[arrow::array::ArrayRef],
        to: &[arrow::datatypes::FieldRef],
    ) -> sparklet_engine::error::Result<Vec<arrow::array::ArrayRef>> {
        Ok(columns
            .iter()
            .zip(to)
            .map(|(c, f)| arrow::compute::cast(c, f.data_type()).unwrap())
            .collect())
    }
}

/// A store reopened with other value fields reads the versions written
/// before, snapshots (each provider's own) and deltas alike, through the
/// evolution it is given, and goes on writing the new fields.
fn values_of_earlier_fields_are_read_through_the_evolution(kind: Kind) {
    let dir = TempDir::new("state-evolved");
    let provider = kind.provider(dir.path());
    let narrow = StoreSpec {
        value_fields: vec![Arc::new(Field::new("count", DataType::Int32, true))],
        min_deltas_for_snapshot: 2,
        ..spec(dir.path())
    };
    let mut store = provider.open(&narrow, 0).unwrap();
    for version in 1..=3i32 {
        store
            .put(
                format!("k{version}").into_bytes(),
                vec![ScalarValue::Int32(Some(version))],
            )
            .unwrap();
        store.commit().unwrap();
    }
    drop(store); // waits for version 2's snapshot
    assert!(kind.snapshot(dir.path(), 2).exists());
    let wide = StoreSpec {
        evolution: Some(Arc::new(Widen)),
        ..spec(dir.path())
    };
    let mut store = provider.open(&wide, 3).unwrap();
    assert_eq!(store.get(b"k1").unwrap(), Some(v(1)));
    assert_eq!(store.get(b"k3").unwrap(), Some(v(3)));
    store.put(b"k4".to_vec(), v(4)).unwrap();
    store.commit().unwrap();
    drop(store);
    // the other provider reads the same mix of files
    let other = match kind {
        Kind::Memory => Kind::RocksDb,
        Kind::RocksDb => Kind::Memory,
    };
    let reread = other.provider(dir.path()).open(&wide, 4).unwrap();
    let mut entries = reread.entries().unwrap();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    let expected: Vec<(Vec<u8>, Vec<ScalarValue>)> = (1..=4)
        .map(|n| (format!("k{n}").into_bytes(), v(n)))
        .collect();
    assert_eq!(entries, expected);
}

/// The providers each test runs on.
/// State larger than a record batch of the state files (several per
/// snapshot), written by one provider and reopened by another or the same:
/// a snapshot with deltas after it, its keys in the writer's order (the
/// in-memory store's is a hash order, RocksDB's is sorted).
fn large_state_reloads(writer: Kind, reader: Kind) {
    let dir = TempDir::new("state-large");
    let s = raw_spec(dir.path(), KeyOrder::Unordered);
    let key = |i: u32| format!("key-{i:07}").into_bytes();
    let mut store = writer.provider(dir.path()).open(&s, 0).unwrap();
    for range in [0..100_000, 100_000..150_000] {
        for i in range {
            store.put_bytes(&key(i), &i.to_le_bytes()).unwrap();
        }
        store.commit().unwrap();
    }
    for i in (0..1000).step_by(2) {
        store.remove(&key(i));
    }
    store.put_bytes(&key(1), b"updated").unwrap();
    store.commit().unwrap(); // version 3: a snapshot
    store.put_bytes(&key(150_000), b"new").unwrap();
    store.remove(&key(3));
    store.commit().unwrap();
    drop(store); // the snapshot lands; RocksDB's working copy is deleted
    assert!(writer.snapshot(dir.path(), 3).exists());
    let reopened = reader.provider(dir.path()).open(&s, 4).unwrap();
    let expected = 150_000 - 500 + 1 - 1;
    assert_eq!(reopened.metrics().num_keys, expected);
    assert_eq!(reopened.keys().count() as u64, expected);
    assert_eq!(
        reopened.get_bytes(&key(1)).unwrap().as_deref(),
        Some(&b"updated"[..])
    );
    assert_eq!(
        reopened.get_bytes(&key(150_000)).unwrap().as_deref(),
        Some(&b"new"[..])
    );
    assert_eq!(
        reopened.get_bytes(&key(149_999)).unwrap().as_deref(),
        Some(&149_999u32.to_le_bytes()[..])
    );
    for gone in [0, 3, 998] {
        assert!(
            !reopened.contains(&key(gone)).unwrap(),
            "key {gone} was removed"
        );
    }
}

/// An update reads its key once (Spark's RocksDB store reads it twice to
/// count keys), and a key never written is not read at all (the store's
/// filter of written keys rules it out); reads after a commit see the
/// committed version.
#[test]
fn rocksdb_reads_a_key_once_to_update_it() {
    let dir = TempDir::new("state-reads");
    let s = spec(dir.path());
    let mut store = Kind::RocksDb.provider(dir.path()).open(&s, 0).unwrap();
    let gets = |store: &dyn sparklet_engine::state::StateStore| {
        let m = store.metrics();
        m.custom
            .iter()
            .find(|(n, _)| *n == "rocksdbGetCount")
            .unwrap()
            .1
    };
    store.put(b"a".to_vec(), v(1)).unwrap(); // new: no read
    store.commit().unwrap();
    assert_eq!(gets(store.as_ref()), 0);
    for key in [&b"a"[..], b"b"] {
        let n = store.get(key).unwrap().map_or(0, |row| match row[0] {
            ScalarValue::Int64(Some(n)) => n,
            _ => unreachable!(),
        });
        store.put(key.to_vec(), v(n + 1)).unwrap();
    }
    store.commit().unwrap();
    // "a" read once; "b" never written: not read
    assert_eq!(gets(store.as_ref()), 1);
    assert_eq!(store.metrics().num_keys, 2);
    // "b" was read as absent before the commit that wrote it
    assert!(store.contains(b"b").unwrap());
    store.put(b"b".to_vec(), v(7)).unwrap();
    assert_eq!(store.metrics().num_keys, 2);
}

/// RocksDB snapshots are RocksDB's own files: a later snapshot links the
/// files an earlier one has (the state is not written again), and a
/// restore links them back.
#[test]
fn rocksdb_snapshots_share_their_files_across_versions() {
    use std::os::unix::fs::MetadataExt;
    let dir = TempDir::new("state-shared");
    let s = raw_spec(dir.path(), KeyOrder::Sorted);
    let provider = Kind::RocksDb.provider(dir.path());
    let mut store = provider.open(&s, 0).unwrap();
    for version in 1..=6u32 {
        // large enough to be ingested as an SST file of its own
        for i in 0..5000u32 {
            store
                .put_bytes(format!("{version}-{i:05}").as_bytes(), &i.to_le_bytes())
                .unwrap();
        }
        store.commit().unwrap();
        if version == 3 {
            drop(store); // waits for the snapshot of version 3
            store = provider.open(&s, 3).unwrap();
        }
    }
    drop(store);
    let inodes = |v: i64| -> std::collections::BTreeSet<u64> {
        std::fs::read_dir(Kind::RocksDb.snapshot(dir.path(), v))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "sst"))
            .map(|p| std::fs::metadata(p).unwrap().ino())
            .collect()
    };
    let (at3, at6) = (inodes(3), inodes(6));
    assert!(at3.len() >= 3, "{at3:?}");
    assert!(at3.is_subset(&at6), "{at3:?} not all in {at6:?}");
    assert!(at6.len() > at3.len());
    // a restore from the snapshot (the working copy is gone) plus no delta
    let reopened = provider.open(&s, 6).unwrap();
    assert_eq!(reopened.metrics().num_keys, 30_000);
    assert_eq!(
        reopened.get_bytes(b"6-04999").unwrap().as_deref(),
        Some(&4999u32.to_le_bytes()[..])
    );
}

/// A damaged RocksDB snapshot is an error naming it, and stays as it is;
/// one of another state schema is an incompatible checkpoint, as a file is.
#[test]
fn rocksdb_snapshot_damage_and_schema_changes_are_errors() {
    let dir = TempDir::new("state-damaged");
    let s = raw_spec(dir.path(), KeyOrder::Sorted);
    let provider = Kind::RocksDb.provider(dir.path());
    let mut store = provider.open(&s, 0).unwrap();
    for version in 1..=4u32 {
        for i in 0..5000u32 {
            store
                .put_bytes(format!("{version}-{i:05}").as_bytes(), b"v")
                .unwrap();
        }
        store.commit().unwrap();
    }
    drop(store);
    let snapshot = Kind::RocksDb.snapshot(dir.path(), 3);
    let renamed = StoreSpec {
        value_fields: vec![Arc::new(Field::new("rows", DataType::Binary, true))],
        ..s.clone()
    };
    let Err(err) = provider.open(&renamed, 4) else {
        panic!("a renamed state column must not load")
    };
    assert!(err.to_string().contains("CHECKPOINT_INCOMPATIBLE"), "{err}");
    // the in-memory provider reads it too, and finds the same
    let Err(err) = MemoryProvider.open(&renamed, 4) else {
        panic!("a renamed state column must not load")
    };
    assert!(err.to_string().contains("CHECKPOINT_INCOMPATIBLE"), "{err}");

    let ssts: Vec<_> = std::fs::read_dir(&snapshot)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "sst"))
        .collect();
    std::fs::remove_file(&ssts[0]).unwrap();
    let Err(err) = provider.open(&s, 4) else {
        panic!("a damaged snapshot must not load")
    };
    let text = err.to_string();
    assert!(text.contains("CHECKPOINT_FILE_CORRUPT"), "{text}");
    assert!(text.contains("3.rocksdb"), "{text}");
    assert!(snapshot.join("CURRENT").exists(), "nothing deleted");
    assert!(dir.path().join("4.delta").exists(), "nothing deleted");
}

mod large_state {
    //! Each provider reloads what either wrote (they share the file format).
    use super::{large_state_reloads, Kind};

    #[test]
    fn rocksdb_to_rocksdb() {
        large_state_reloads(Kind::RocksDb, Kind::RocksDb)
    }

    #[test]
    fn memory_to_rocksdb() {
        large_state_reloads(Kind::Memory, Kind::RocksDb)
    }

    #[test]
    fn rocksdb_to_memory() {
        large_state_reloads(Kind::RocksDb, Kind::Memory)
    }

    #[test]
    fn memory_to_memory() {
        large_state_reloads(Kind::Memory, Kind::Memory)
    }
}

#[derive(Clone, Copy, Debug)]
enum Kind {
    Memory,
    RocksDb,
}

impl Kind {
    /// Where this provider writes `version`'s snapshot in `dir`.
    fn snapshot(self, dir: &std::path::Path, version: i64) -> std::path::PathBuf {
        match self {
            Kind::Memory => dir.join(format!("{version}.snapshot")),
            Kind::RocksDb => dir.join(format!("{version}.rocksdb")),
        }
    }

    /// A provider whose working copies (RocksDB) live under `dir`.
    fn provider(self, dir: &std::path::Path) -> Box<dyn StateStoreProvider> {
        match self {
            Kind::Memory => Box::new(MemoryProvider),
            Kind::RocksDb => Box::new(RocksDbProvider::new(RocksDbSettings {
                local_dir: Some(dir.join("local")),
                ..RocksDbSettings::default()
            })),
        }
    }
}

macro_rules! on_both_providers {
    ($($name:ident),* $(,)?) => {
        mod memory {
            $(#[test]
            fn $name() {
                super::$name(super::Kind::Memory)
            })*
        }
        mod rocksdb {
            $(#[test]
            fn $name() {
                super::$name(super::Kind::RocksDb)
            })*
        }
    };
}

on_both_providers!(
    versions_reload_from_snapshot_plus_deltas,
    a_missing_delta_is_an_error_naming_the_folder,
    changes_within_a_version_keep_the_last_one,
    binary_values_are_kept_as_their_bytes_through_deltas_and_snapshots,
    entries_kept_whole_reload_from_a_snapshot,
    partitioned_state_reports_every_store_in_progress,
    time_prefixed_store_removes_keys_before_a_time_and_keeps_the_rest,
    an_eviction_is_one_range_in_the_delta_and_replays_before_later_puts,
    put_if_absent_for_many_keys_answers_in_order,
    unordered_store_answers_scans_by_filtering_and_survives_restarts,
    a_state_file_with_other_column_names_is_an_incompatible_checkpoint,
    values_of_earlier_fields_are_read_through_the_evolution,
);

mod rescaling {
    //! Repartitioning an operator's state, and finishing one a crash cut short.

    use super::*;
    use sparklet_engine::state::partitioned::{OperatorStateSpec, PartitionedState, StateLayout};
    use sparklet_engine::state::rescale::rescale;

    fn op_spec(root: &std::path::Path, partitions: usize, version: i64) -> OperatorStateSpec {
        OperatorStateSpec {
            id: 0,
            dir: root.join("0"),
            partitions,
            version,
            min_deltas_for_snapshot: 10,
            min_versions_to_retain: 2,
            evolution: None,
            encoding: Default::default(),
            durable: true,
            fsync: true,
        }
    }

    fn open(root: &std::path::Path, partitions: usize, version: i64) -> PartitionedState {
        let spec = op_spec(root, partitions, version);
        let layout = StateLayout {
            key: vec![Arc::new(Field::new("k", DataType::Binary, true))],
            time: None,
            value: vec![Arc::new(Field::new("count", DataType::Int64, true))],
            rows: None,
        };
        spec.open_table(&MemoryProvider, "stateStoreSave", layout, KeyOrder::Sorted)
            .unwrap()
    }

    fn keys() -> Vec<Vec<u8>> {
        (0..50u8).map(|i| vec![b'k', i]).collect()
    }

    fn all_found(root: &std::path::Path, partitions: usize) {
        let state = open(root, partitions, 1);
        for (i, k) in keys().into_iter().enumerate() {
            assert_eq!(state.get(&k).unwrap(), Some(v(i as i64)), "key {i}");
        }
        let siblings: Vec<String> = std::fs::read_dir(root)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
            .collect();
        assert_eq!(siblings, vec!["0"]);
    }

    #[test]
    fn keys_move_to_their_new_partitions_and_a_half_done_rescale_is_redone_or_finished() {
        let dir = TempDir::new("state-rescale");
        let root = dir.path();
        let mut state = open(root, 2, 0);
        for (i, k) in keys().into_iter().enumerate() {
            let p = state.partition_of(&k);
            state.store_mut(p).put(k, v(i as i64)).unwrap();
        }
        state.commit().unwrap();
        drop(state);
        // a crash while staging: the partial copy is thrown away and redone
        std::fs::create_dir_all(root.join("0.rescaled").join("1")).unwrap();
        assert_eq!(rescale(root, 1, 3, true).unwrap(), vec![(0, 2)]);
        all_found(root, 3);
        // a crash between the swap's renames: the next start finishes it
        std::fs::rename(root.join("0"), root.join("0.rescaled")).unwrap();
        std::fs::write(root.join("0.rescaled").join("_complete"), b"").unwrap();
        std::fs::create_dir_all(root.join("0.old")).unwrap();
        assert!(rescale(root, 1, 3, true).unwrap().is_empty());
        all_found(root, 3);
        // and back down
        assert_eq!(rescale(root, 1, 1, true).unwrap(), vec![(0, 3)]);
        all_found(root, 1);
    }

    #[test]
    fn an_operator_killed_before_recording_itself_needs_no_rescale_until_it_committed() {
        let dir = TempDir::new("state-rescale-unrecorded");
        let root = dir.path();
        // a first batch killed while its operator recorded itself
        std::fs::create_dir_all(root.join("0").join("_metadata")).unwrap();
        assert!(rescale(root, 0, 3, true).unwrap().is_empty());
        // after committed batches the record must be there
        let err = rescale(root, 2, 3, true).unwrap_err().to_string();
        assert!(
            err.contains("CHECKPOINT_FILE_CORRUPT") && err.contains("it is missing"),
            "{err}"
        );
    }
}
