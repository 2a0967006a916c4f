//! Rescaling, beyond Spark: a stateful query restarted with another
//! `spark.sql.shuffle.partitions` has its state repartitioned from the
//! checkpoint instead of refused.
//!
//! Each operator's state (`state/<op>`) at the version the query resumes
//! from is read from every old partition, each key routed to its new
//! partition as the operators route it, and written as one snapshot per new
//! partition into `state/<op>.rescaled`, with the operator's metadata and a
//! `_complete` marker last. Then the folders are swapped by two renames. A
//! crash before the marker leaves the old state in place (the staging folder
//! is redone); after it, the next start finishes the swap. Versions older
//! than the one resumed from are not carried over.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::codec::{binary, Codec, Gathered};
use super::files::{load, write_snapshot};
use super::partitioned::{partition_for, OperatorInfo, StateLayout};
use super::{StateRow, StoreSpec};
use crate::checkpoint::log;
use crate::error::{Error, Result};
use datafusion::common::ScalarValue;

const COMPLETE: &str = "_complete";

/// Repartition every operator under `state_root` at `version` to
/// `partitions`; returns each rescaled operator's id and old count.
pub fn rescale(
    state_root: &Path,
    version: i64,
    partitions: usize,
    fsync: bool,
) -> Result<Vec<(i64, usize)>> {
    let mut done = Vec::new();
    for (id, dir) in operators(state_root, fsync)? {
        // (`operators` has finished any swap a crash interrupted)
        let info = match OperatorInfo::read(&dir)? {
            Some(info) => info,
            // no batch committed state yet (a first batch killed before or
            // while its operator recorded itself): nothing to repartition,
            // and the operator records itself when it opens
            None if version == 0 => continue,
            None => {
                return Err(log::corrupt(
                    &dir.join("_metadata").join("metadata"),
                    "it is missing",
                ))
            }
        };
        let old = info.partitions;
        // a global limit keeps one partition whatever the setting
        if old == partitions || info.name == "globalLimit" {
            continue;
        }
        let staging = sibling(&dir, "rescaled");
        let _ = std::fs::remove_dir_all(&staging);
        let stores = info.stores.clone();
        for store in &stores {
            let layout = StateLayout::read(&dir, store)?;
            let evolution = super::processor_evolution::of_operator(&dir)?;
            let mut parts: Vec<BTreeMap<Vec<u8>, StateRow>> = vec![BTreeMap::new(); partitions];
            // a join side's generations are split by their rows' keys
            let mut next_generation = 0;
            for p in 0..old {
                let spec = layout
                    .store_spec(&dir, p, store)
                    .with_evolution(evolution.clone());
                if layout.rows.is_some() {
                    let entries = load(&spec, version)?
                        .into_iter()
                        .map(|(k, v)| match v.into_iter().next() {
                            Some(ScalarValue::Binary(Some(b))) => Ok((k, b)),
                            _ => Err(log::corrupt(&spec.dir, "a join side's value is not bytes")),
                        })
                        .collect::<Result<Vec<_>>>()?;
                    let split =
                        crate::exec::join::regroup(entries, partitions, &mut next_generation)?;
                    for (part, entries) in parts.iter_mut().zip(split) {
                        part.extend(
                            entries
                                .into_iter()
                                .map(|(k, v)| (k, vec![ScalarValue::Binary(Some(v))])),
                        );
                    }
                    continue;
                }
                for (k, v) in load(&spec, version)? {
                    // a session's key routes by what precedes its start
                    // a sliding window's pane (an aggregation's leading
                    // named time) by what follows its start
                    let route = match &layout.time {
                        Some((_, false)) => &k[..k.len().saturating_sub(8)],
                        Some((name, true)) if !name.is_empty() && info.name == "stateStoreSave" => {
                            &k[k.len().min(8)..]
                        }
                        _ => &k[..],
                    };
                    parts[partition_for(route, partitions)].insert(k, v);
                }
            }
            let codec = Codec::new(&layout.value)?;
            for (p, entries) in parts.into_iter().enumerate() {
                let spec = StoreSpec {
                    fsync,
                    ..layout.store_spec(&staging, p, store)
                };
                std::fs::create_dir_all(&spec.dir)
                    .map_err(|e| Error::io(spec.dir.display().to_string(), e))?;
                let keys = binary(entries.keys().map(|k| Some(&k[..])));
                let rows: Vec<StateRow> = entries.into_values().collect();
                write_snapshot(&spec, &codec, version, vec![(keys, Gathered::Rows(rows))])?;
            }
        }
        copy_metadata(
            &dir,
            &staging,
            OperatorInfo { partitions, ..info },
            id,
            fsync,
        )?;
        log::write_atomic(&staging.join(COMPLETE), b"", fsync)?;
        finish_interrupted(&dir, fsync)?;
        done.push((id, old));
    }
    Ok(done)
}

/// Finish or undo a rescale a crash interrupted: a complete staging folder
/// replaces the operator's, an incomplete one goes, and so does the old one
/// once replaced.
fn finish_interrupted(dir: &Path, fsync: bool) -> Result<()> {
    let (staging, old) = (sibling(dir, "rescaled"), sibling(dir, "old"));
    let io = |p: &Path, e: std::io::Error| Error::io(p.display().to_string(), e);
    if staging.exists() {
        if !staging.join(COMPLETE).exists() {
            std::fs::remove_dir_all(&staging).map_err(|e| io(&staging, e))?;
        } else {
            if dir.exists() {
                std::fs::rename(dir, &old).map_err(|e| io(dir, e))?;
            }
            std::fs::rename(&staging, dir).map_err(|e| io(&staging, e))?;
            std::fs::remove_file(dir.join(COMPLETE)).map_err(|e| io(dir, e))?;
            log::sync_dir(dir.parent().unwrap_or(Path::new(".")), fsync)?;
        }
    }
    if old.exists() && dir.exists() {
        std::fs::remove_dir_all(&old).map_err(|e| io(&old, e))?;
    }
    Ok(())
}

/// `state/<op>.<what>` beside `state/<op>`.
fn sibling(dir: &Path, what: &str) -> PathBuf {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    dir.with_file_name(format!("{name}.{what}"))
}

/// The operators' folders (numeric names) under `state_root`, with their ids.
fn operators(state_root: &Path, fsync: bool) -> Result<Vec<(i64, PathBuf)>> {
    let mut ops = Vec::new();
    let Ok(rd) = std::fs::read_dir(state_root) else {
        return Ok(ops);
    };
    for item in rd.flatten() {
        let name = item.file_name().to_string_lossy().to_string();
        // `<id>.rescaled` alone means the swap stopped between its renames
        let id = name.split('.').next().and_then(|n| n.parse::<i64>().ok());
        if let Some(id) = id {
            let dir = state_root.join(id.to_string());
            if !ops.iter().any(|(i, _)| *i == id) {
                ops.push((id, dir));
            }
        }
    }
    ops.sort();
    for (_, dir) in &ops {
        finish_interrupted(dir, fsync)?;
    }
    Ok(ops.into_iter().filter(|(_, d)| d.exists()).collect())
}

/// The operator's metadata with the new partition count, and its layouts.
fn copy_metadata(
    dir: &Path,
    staging: &Path,
    info: OperatorInfo,
    id: i64,
    fsync: bool,
) -> Result<()> {
    info.write(staging, id as usize, fsync)?;
    let to = staging.join("_metadata");
    let from = dir.join("_metadata");
    let rd = std::fs::read_dir(&from).map_err(|e| Error::io(from.display().to_string(), e))?;
    for item in rd.flatten() {
        let name = item.file_name();
        if name.to_string_lossy().starts_with("layout-") {
            let body = std::fs::read(item.path())
                .map_err(|e| Error::io(item.path().display().to_string(), e))?;
            log::write_atomic(&to.join(name), &body, fsync)?;
        }
    }
    Ok(())
}
