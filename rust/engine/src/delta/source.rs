//! The streaming Delta source (`readStream.format("delta")`): the table's
//! snapshot when the query starts, then the files each later commit adds,
//! with delta-spark's offsets (`reservoirVersion`, `index`,
//! `isStartingVersion`), its read limits (`maxFilesPerTrigger`,
//! `maxBytesPerTrigger`), its start options (`startingVersion`,
//! `startingTimestamp`), its answers to commits that change or delete rows
//! (`ignoreDeletes`, `ignoreChanges`, `skipChangeCommits`, or an error) and
//! its change data feed (`readChangeFeed`).
//!
//! The commits are read and parsed by `deltalake-core`; the source keeps
//! only where it is. An offset names the last file taken: file `index` of
//! version `reservoirVersion` (of the start snapshot when
//! `isStartingVersion`), so a batch replayed after a crash reads the same
//! files again.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::Arc;

use arrow::array::{ArrayRef, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef, TimeUnit};
use datafusion::datasource::MemTable;
use datafusion::scalar::ScalarValue;
use deltalake_core::kernel::Action;
use deltalake_core::DeltaTable;

use super::delta_error;
use crate::error::{Error, Result};
use crate::runtime::block_on;
use crate::sources::{
    parse_bool_option, parse_u64_option, BatchInput, Offset, Source, SourceContext, SourceFactory,
};

/// Where a query starts when its checkpoint has no offset yet.
#[derive(Debug, Clone)]
enum StartAt {
    /// The table's snapshot, then its later commits.
    Snapshot,
    /// The changes from this version on.
    Version(u64),
    /// Only changes committed after the query starts.
    Latest,
    /// The changes from the first commit at or after this time.
    Timestamp(String),
}

/// The options of a Delta stream (keys lower-cased).
#[derive(Debug, Clone)]
struct StreamOptions {
    start: StartAt,
    max_files: Option<u64>,
    max_bytes: Option<u64>,
    ignore_deletes: bool,
    ignore_changes: bool,
    skip_change_commits: bool,
    change_feed: bool,
}

impl StreamOptions {
    fn parse(options: &HashMap<String, String>) -> Result<Self> {
        let flag = |k: &str, name: &str| -> Result<bool> {
            options
                .get(k)
                .map(|v| parse_bool_option(name, v))
                .transpose()
                .map(|v| v.unwrap_or(false))
        };
        let start = match (
            options.get("startingversion"),
            options.get("startingtimestamp"),
        ) {
            (Some(_), Some(_)) => {
                return Err(Error::analysis(
                    "DELTA_STARTING_VERSION_AND_TIMESTAMP_BOTH_SET",
                    "Please either provide 'startingVersion' or 'startingTimestamp'",
                ))
            }
            (Some(v), None) if v.trim().eq_ignore_ascii_case("latest") => StartAt::Latest,
            (Some(v), None) => StartAt::Version(v.trim().parse().map_err(|_| {
                Error::illegal_argument(format!(
                    "[DELTA_INVALID_STARTING_VERSION] Invalid value '{v}' for option 'startingVersion': expected a version number or 'latest'"
                ))
            })?),
            (None, Some(ts)) => StartAt::Timestamp(ts.clone()),
            (None, None) => StartAt::Snapshot,
        };
        let max_files = match options.get("maxfilespertrigger") {
            Some(v) => match parse_u64_option("maxFilesPerTrigger", v)? {
                0 => {
                    return Err(Error::illegal_argument(format!(
                        "[DELTA_INVALID_MAX_FILES_PER_TRIGGER] Invalid value '{v}' for option 'maxFilesPerTrigger': must be a positive integer"
                    )))
                }
                n => Some(n),
            },
            None => Some(1000),
        };
        let max_bytes = options
            .get("maxbytespertrigger")
            .map(|v| {
                byte_size(v).ok_or_else(|| {
                    Error::illegal_argument(format!(
                        "Invalid value '{v}' for option 'maxBytesPerTrigger': expected a size such as 10g"
                    ))
                })
            })
            .transpose()?;
        Ok(StreamOptions {
            start,
            max_files,
            max_bytes,
            ignore_deletes: flag("ignoredeletes", "ignoreDeletes")?,
            ignore_changes: flag("ignorechanges", "ignoreChanges")?,
            skip_change_commits: flag("skipchangecommits", "skipChangeCommits")?,
            change_feed: flag("readchangefeed", "readChangeFeed")?
                || flag("readchangedata", "readChangeData")?,
        })
    }
}

/// A size as Spark writes one (`1024`, `10k`, `64mb`, `1g`): bytes.
fn byte_size(text: &str) -> Option<u64> {
    let t = text.trim().to_ascii_lowercase();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let n: u64 = t[..digits].parse().ok()?;
    let shift = match t[digits..].trim() {
        "" | "b" => 0,
        "k" | "kb" => 10,
        "m" | "mb" => 20,
        "g" | "gb" => 30,
        "t" | "tb" => 40,
        "p" | "pb" => 50,
        _ => return None,
    };
    n.checked_mul(1u64 << shift)
}

/// The change feed's columns after the table's.
fn change_feed_fields() -> Vec<Field> {
    vec![
        Field::new("_change_type", DataType::Utf8, true),
        Field::new("_commit_version", DataType::Int64, true),
        Field::new(
            "_commit_timestamp",
            DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            true,
        ),
    ]
}

/// `readStream.format("delta").load(path)`.
#[derive(Debug)]
pub struct DeltaStreamFactory {
    path: String,
    options: StreamOptions,
    /// The table's columns (without the change feed's).
    table_schema: SchemaRef,
    schema: SchemaRef,
}

impl DeltaStreamFactory {
    /// The stream over the Delta table at `path`; an error if there is none.
    pub fn new(path: &str, options: &HashMap<String, String>) -> Result<Self> {
        let opts = StreamOptions::parse(options)?;
        let table = block_on(super::open(path, &HashMap::new()))??;
        let snapshot = table.snapshot().map_err(|e| delta_error(path, e))?;
        let table_schema = spark_schema(&snapshot.snapshot().arrow_schema());
        if opts.change_feed && !change_feed_enabled(snapshot.metadata().configuration()) {
            return Err(Error::analysis(
                "DELTA_MISSING_CHANGE_DATA",
                format!(
                    "Error getting change data for range [0, {}] as change data was not recorded for the table at `{path}`. Enable the change data feed with the table property delta.enableChangeDataFeed = true.",
                    snapshot.version()
                ),
            ));
        }
        let schema = match opts.change_feed {
            true => {
                let mut fields: Vec<Field> = table_schema
                    .fields()
                    .iter()
                    .map(|f| f.as_ref().clone())
                    .collect();
                fields.extend(change_feed_fields());
                Arc::new(Schema::new(fields))
            }
            false => Arc::clone(&table_schema),
        };
        Ok(DeltaStreamFactory {
            path: path.to_string(),
            options: opts,
            table_schema,
            schema,
        })
    }
}

fn change_feed_enabled(conf: &HashMap<String, String>) -> bool {
    conf.get("delta.enableChangeDataFeed")
        .is_some_and(|v| v.eq_ignore_ascii_case("true"))
}

/// A Delta schema's arrow form with Spark's types (strings and binaries
/// as plain arrays).
pub(crate) fn spark_schema(schema: &Schema) -> SchemaRef {
    fn plain(t: &DataType) -> DataType {
        match t {
            DataType::Utf8View | DataType::LargeUtf8 => DataType::Utf8,
            DataType::BinaryView | DataType::LargeBinary => DataType::Binary,
            DataType::Struct(fs) => DataType::Struct(
                fs.iter()
                    .map(|f| f.as_ref().clone().with_data_type(plain(f.data_type())))
                    .collect(),
            ),
            DataType::List(f) | DataType::LargeList(f) | DataType::ListView(f) => DataType::List(
                Arc::new(f.as_ref().clone().with_data_type(plain(f.data_type()))),
            ),
            DataType::Map(f, sorted) => DataType::Map(
                Arc::new(f.as_ref().clone().with_data_type(plain(f.data_type()))),
                *sorted,
            ),
            other => other.clone(),
        }
    }
    Arc::new(Schema::new(
        schema
            .fields()
            .iter()
            .map(|f| f.as_ref().clone().with_data_type(plain(f.data_type())))
            .collect::<Vec<_>>(),
    ))
}

impl SourceFactory for DeltaStreamFactory {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    fn create(&self, _ctx: &SourceContext) -> Result<Box<dyn Source>> {
        Ok(Box::new(DeltaSource::from_factory(self)?))
    }

    fn class_name(&self) -> &'static str {
        "org.apache.spark.sql.delta.sources.DeltaSource"
    }
}

/// The last file a batch took: file `index` of `version`'s files (of the
/// start snapshot when `starting`); index -1 is before the version's first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Pos {
    version: u64,
    starting: bool,
    index: i64,
}

impl Pos {
    /// The position after all of `version`.
    fn after(version: u64) -> Pos {
        Pos {
            version: version + 1,
            starting: false,
            index: -1,
        }
    }
    /// Ordered by version, the start snapshot before the commit of its
    /// version (which it already holds), then by file.
    fn key(&self) -> (u64, bool, i64) {
        (self.version, !self.starting, self.index)
    }
}

/// One file a version contributes, and how its rows enter the stream.
#[derive(Debug, Clone)]
struct FileEntry {
    /// The file, relative to the table's root (decoded), or absolute.
    path: String,
    size: u64,
    partition_values: HashMap<String, Option<String>>,
    /// The change feed's `_change_type`: fixed, or the file's own column
    /// (a change data file, `None`).
    change: Option<&'static str>,
}

/// A version's files in the stream's order, and its commit's time.
#[derive(Debug)]
struct VersionFiles {
    files: Vec<FileEntry>,
    timestamp_ms: i64,
}

/// A running query's Delta source.
pub struct DeltaSource {
    path: String,
    root: PathBuf,
    table: DeltaTable,
    table_id: String,
    partition_columns: Vec<String>,
    options: StreamOptions,
    table_schema: SchemaRef,
    schema: SchemaRef,
    /// The end of the last batch planned (or replayed, or restored).
    cursor: Option<Pos>,
    /// Where this run starts when nothing was read yet (fixed once known:
    /// `latest` is the latest when the query started).
    start: Option<Pos>,
    /// Files by (version, starting), read once.
    versions: BTreeMap<(u64, bool), Arc<VersionFiles>>,
    /// `Trigger.AvailableNow`: the last version this run takes.
    cap: Option<u64>,
}

impl DeltaSource {
    fn from_factory(f: &DeltaStreamFactory) -> Result<Self> {
        let table = block_on(super::open(&f.path, &HashMap::new()))??;
        let snapshot = table.snapshot().map_err(|e| delta_error(&f.path, e))?;
        let table_id = snapshot.metadata().id().to_string();
        let partition_columns = snapshot.metadata().partition_columns().to_vec();
        let root = crate::sources::file::absolute(&f.path)?;
        Ok(DeltaSource {
            path: f.path.clone(),
            root,
            table,
            table_id,
            partition_columns,
            options: f.options.clone(),
            table_schema: Arc::clone(&f.table_schema),
            schema: Arc::clone(&f.schema),
            cursor: None,
            start: None,
            versions: BTreeMap::new(),
            cap: None,
        })
    }

    fn latest_version(&self) -> Result<u64> {
        let log = self.table.log_store();
        // listed from the version loaded at start (older logs may be gone)
        let from = self.table.version().unwrap_or(0);
        block_on(log.get_latest_version(from))?.map_err(|e| delta_error(&self.path, e))
    }

    /// Where the query starts when nothing was read yet.
    fn initial(&self) -> Result<Pos> {
        let latest = self.latest_version()?;
        Ok(match &self.options.start {
            StartAt::Snapshot => Pos {
                version: latest,
                starting: true,
                index: -1,
            },
            StartAt::Version(v) if *v > latest => {
                return Err(Error::analysis(
                    "DELTA_VERSION_NOT_FOUND",
                    format!(
                        "Cannot time travel Delta table to version {v}. Available versions: [0, {latest}]. (table `{}`)",
                        self.path
                    ),
                ))
            }
            StartAt::Version(v) => Pos {
                version: *v,
                starting: false,
                index: -1,
            },
            StartAt::Latest => Pos::after(latest),
            StartAt::Timestamp(ts) => Pos {
                version: self.version_at_or_after(ts, latest)?,
                starting: false,
                index: -1,
            },
        })
    }

    /// `startingTimestamp`: the first version committed at or after `ts`.
    fn version_at_or_after(&self, ts: &str, latest: u64) -> Result<u64> {
        let at = super::parse_time(ts)?.timestamp_millis();
        for v in 0..=latest {
            match self.commit_actions(v) {
                Ok((_, ms)) if ms >= at => return Ok(v),
                _ => {}
            }
        }
        Err(Error::analysis(
            "DELTA_TIMESTAMP_GREATER_THAN_COMMIT",
            format!(
                "The provided timestamp ({ts}) is after the latest version available to this table (version {latest} of `{}`).",
                self.path
            ),
        ))
    }

    /// A commit's actions and its time (ms); an error naming the table if
    /// the commit's log file is gone (a log cleaned up after `vacuum` and
    /// log retention).
    fn commit_actions(&self, version: u64) -> Result<(Vec<Action>, i64)> {
        let log = self.table.log_store();
        let bytes = block_on(log.read_commit_entry(version))?
            .map_err(|e| delta_error(&self.path, e))?
            .ok_or_else(|| {
                Error::analysis(
                    "DELTA_LOG_FILE_NOT_FOUND_FOR_STREAMING_SOURCE",
                    format!(
                        "The log file of version {version} of the Delta table at `{}` was not found: it was deleted (log retention or a manual delete), and the stream cannot read that version. Start the query with a new checkpoint, or a startingVersion the log still holds.",
                        self.path
                    ),
                )
            })?;
        let actions = deltalake_core::logstore::get_actions(version as _, &bytes)
            .map_err(|e| delta_error(&self.path, e))?;
        let ts = actions
            .iter()
            .find_map(|a| match a {
                Action::CommitInfo(c) => c.in_commit_timestamp.or(c.timestamp),
                _ => None,
            })
            .unwrap_or(0);
        Ok((actions, ts))
    }

    /// The files `version` contributes (the start snapshot's when
    /// `starting`), read once.
    fn files_of(&mut self, version: u64, starting: bool) -> Result<Arc<VersionFiles>> {
        if let Some(v) = self.versions.get(&(version, starting)) {
            return Ok(Arc::clone(v));
        }
        let files = match starting {
            true => self.snapshot_files(version)?,
            false => self.commit_files(version)?,
        };
        let files = Arc::new(files);
        // the stream moves forward: versions before this one are not read again
        self.versions.retain(|k, _| k.0 + 1 >= version);
        self.versions
            .insert((version, starting), Arc::clone(&files));
        Ok(files)
    }

    fn snapshot_files(&self, version: u64) -> Result<VersionFiles> {
        let mut table = self.table.clone();
        block_on(table.load_version(version as _))?.map_err(|e| delta_error(&self.path, e))?;
        let state = table.snapshot().map_err(|e| delta_error(&self.path, e))?;
        let mut files: Vec<(i64, FileEntry)> = state
            .log_data()
            .into_iter()
            .map(|f| {
                (
                    f.modification_time(),
                    FileEntry {
                        path: f.path().into_owned(),
                        size: f.size().max(0) as u64,
                        partition_values: f.partition_values_map(),
                        change: Some("insert"),
                    },
                )
            })
            .collect();
        // delta-spark's order: oldest first, then by path
        files.sort_by(|a, b| (a.0, &a.1.path).cmp(&(b.0, &b.1.path)));
        let (_, timestamp_ms) = self.commit_actions(version).unwrap_or((Vec::new(), 0));
        Ok(VersionFiles {
            files: files.into_iter().map(|(_, f)| f).collect(),
            timestamp_ms,
        })
    }

    fn commit_files(&self, version: u64) -> Result<VersionFiles> {
        let (actions, timestamp_ms) = self.commit_actions(version)?;
        let decode = |p: &str| {
            percent_encoding::percent_decode_str(p)
                .decode_utf8_lossy()
                .into_owned()
        };
        let (mut adds, mut removes, mut cdc) = (Vec::new(), Vec::new(), Vec::new());
        for action in actions {
            match action {
                Action::Add(a) if a.data_change => adds.push(FileEntry {
                    path: decode(&a.path),
                    size: a.size.max(0) as u64,
                    partition_values: a.partition_values,
                    change: Some("insert"),
                }),
                Action::Remove(r) if r.data_change => removes.push(FileEntry {
                    path: decode(&r.path),
                    size: r.size.unwrap_or(0).max(0) as u64,
                    partition_values: r.partition_values.unwrap_or_default(),
                    change: Some("delete"),
                }),
                Action::Cdc(c) => cdc.push(FileEntry {
                    path: decode(&c.path),
                    size: c.size.max(0) as u64,
                    partition_values: c.partition_values,
                    change: None,
                }),
                Action::Metadata(m) => self.check_schema(version, &m)?,
                _ => {}
            }
        }
        let files = if self.options.change_feed {
            // a commit with change data files is described by them alone
            match cdc.is_empty() {
                true => adds.into_iter().chain(removes).collect(),
                false => cdc,
            }
        } else if removes.is_empty() {
            adds
        } else if self.options.skip_change_commits
            || (adds.is_empty() && (self.options.ignore_deletes || self.options.ignore_changes))
        {
            Vec::new()
        } else if self.options.ignore_changes {
            adds
        } else if adds.is_empty() {
            return Err(Error::analysis(
                "DELTA_SOURCE_IGNORE_DELETE",
                format!(
                    "Detected deleted data (for example a DELETE) from streaming source at version {version}. This is currently not supported. If you'd like to ignore deletes, set the option 'ignoreDeletes' to 'true'. The source table can be found at path {}.",
                    self.path
                ),
            ));
        } else {
            return Err(Error::analysis(
                "DELTA_SOURCE_TABLE_IGNORE_CHANGES",
                format!(
                    "Detected a data update (for example an UPDATE or MERGE) in the source table at version {version}. This is currently not supported. If this is going to happen regularly and you are okay to skip changes, set the option 'skipChangeCommits' to 'true'. If you would like the data update to be reflected, please restart this query with a fresh checkpoint directory. The source table can be found at path {}.",
                    self.path
                ),
            ));
        };
        Ok(VersionFiles {
            files,
            timestamp_ms,
        })
    }

    /// A commit that changes the table's schema stops the stream, as
    /// delta-spark's does: the query restarts to read the new schema.
    fn check_schema(
        &self,
        version: u64,
        metadata: &deltalake_core::kernel::Metadata,
    ) -> Result<()> {
        let new = metadata.parse_schema().map_err(|e| {
            Error::analysis("DELTA_ERROR", format!("Delta table `{}`: {e}", self.path))
        })?;
        use deltalake_core::kernel::engine::arrow_conversion::TryIntoArrow;
        let arrow: Schema = (&new).try_into_arrow().map_err(|e| {
            Error::analysis("DELTA_ERROR", format!("Delta table `{}`: {e}", self.path))
        })?;
        let new = spark_schema(&arrow);
        let same = new.fields().len() == self.table_schema.fields().len()
            && new
                .fields()
                .iter()
                .zip(self.table_schema.fields())
                .all(|(a, b)| a.name() == b.name() && a.data_type() == b.data_type());
        if same {
            return Ok(());
        }
        let show = |s: &Schema| {
            s.fields()
                .iter()
                .map(|f| {
                    let t = crate::plan::spark_names::type_name(f.data_type());
                    format!("{}: {}", f.name(), t.to_ascii_lowercase())
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        Err(Error::analysis(
            "DELTA_SCHEMA_CHANGED_WITH_VERSION",
            format!(
                "Detected schema change in version {version} of the Delta table at `{}`:\nstreaming source schema: [{}]\n\ndata file schema: [{}]\nPlease try restarting the query. If this issue repeats across query restarts without making progress, you have made an incompatible schema change and need to start your query from scratch using a new checkpoint directory.",
                self.path,
                show(&self.table_schema),
                show(&new)
            ),
        ))
    }

    /// The end of the next batch after `from`: as many files as the read
    /// limits let in, or `None` when no commit adds any.
    fn next_end(&mut self, from: Pos) -> Result<Option<Pos>> {
        let latest = self.latest_version()?;
        let last = self.cap.map_or(latest, |c| c.min(latest));
        let (max_files, max_bytes) = (self.options.max_files, self.options.max_bytes);
        let (mut files, mut bytes) = (0u64, 0u64);
        let mut pos = from;
        let mut end = None;
        while pos.version <= last || (pos.starting && pos.version <= latest) {
            let vf = self.files_of(pos.version, pos.starting)?;
            for i in (pos.index + 1) as usize..vf.files.len() {
                let full = max_files.is_some_and(|m| files >= m)
                    || max_bytes.is_some_and(|m| files > 0 && bytes >= m);
                if full {
                    return Ok(end);
                }
                files += 1;
                bytes += vf.files[i].size;
                end = Some(Pos {
                    index: i as i64,
                    ..pos
                });
            }
            // the whole version is in: the end moves past it
            pos = Pos::after(pos.version);
            if files > 0 {
                end = Some(pos);
            }
        }
        Ok(end)
    }

    fn offset_of(&self, pos: Pos) -> Offset {
        serde_json::json!({
            "sourceVersion": 1,
            "reservoirId": self.table_id,
            "reservoirVersion": pos.version,
            "index": pos.index,
            "isStartingVersion": pos.starting,
        })
    }

    fn pos_of(&self, offset: &Offset) -> Result<Pos> {
        let bad = || {
            Error::illegal_argument(format!(
                "The offset {offset} in the checkpoint is not a Delta source offset (table `{}`)",
                self.path
            ))
        };
        let id = offset
            .get("reservoirId")
            .and_then(|v| v.as_str())
            .ok_or_else(bad)?;
        if id != self.table_id {
            return Err(Error::analysis(
                "DIFFERENT_DELTA_TABLE_READ_BY_STREAMING_SOURCE",
                format!(
                    "The streaming query was reading from an unexpected Delta table (id = '{}'). It used to read from another Delta table (id = '{id}') according to checkpoint. This may happen when you changed the code to read from a new table or you deleted and re-created a table. Please revert your change or delete your streaming query checkpoint to restart from scratch.",
                    self.table_id
                ),
            ));
        }
        Ok(Pos {
            version: offset
                .get("reservoirVersion")
                .and_then(|v| v.as_u64())
                .ok_or_else(bad)?,
            index: offset
                .get("index")
                .and_then(|v| v.as_i64())
                .ok_or_else(bad)?,
            starting: offset
                .get("isStartingVersion")
                .and_then(|v| v.as_bool())
                .unwrap_or(false),
        })
    }

    /// The files in `(start, end]`, with their commit's version and time.
    fn files_between(&mut self, start: Pos, end: Pos) -> Result<Vec<(FileEntry, u64, i64)>> {
        let mut out = Vec::new();
        let mut pos = start;
        while pos.key() < end.key() {
            let last_version = pos.version == end.version && pos.starting == end.starting;
            if pos.version > end.version {
                break;
            }
            let vf = self.files_of(pos.version, pos.starting)?;
            let upto = match last_version {
                true => end.index,
                false => vf.files.len() as i64 - 1,
            };
            for i in (pos.index + 1)..=upto {
                let f = vf.files.get(i as usize).ok_or_else(|| {
                    Error::Internal(format!(
                        "version {} of the Delta table at `{}` has no file {i}",
                        pos.version, self.path
                    ))
                })?;
                out.push((f.clone(), pos.version, vf.timestamp_ms));
            }
            if last_version {
                break;
            }
            pos = Pos::after(pos.version);
        }
        Ok(out)
    }

    /// One file's rows in the stream's schema.
    fn read(&self, file: &FileEntry, version: u64, timestamp_ms: i64) -> Result<Vec<RecordBatch>> {
        let path = match file.path.strip_prefix("file://") {
            Some(abs) => PathBuf::from(abs),
            None => self.root.join(&file.path),
        };
        if !path.exists() {
            return Err(Error::analysis(
                "DELTA_FILE_NOT_FOUND_DETAILED",
                format!(
                    "File {} referenced in the transaction log of version {version} of the Delta table at `{}` cannot be found. This occurs when data has been manually deleted from the file system (or removed by VACUUM) rather than using the table `DELETE` statement.",
                    path.display(),
                    self.path
                ),
            ));
        }
        let data_fields: Vec<Field> = self
            .table_schema
            .fields()
            .iter()
            .filter(|f| !self.partition_columns.contains(f.name()))
            .map(|f| f.as_ref().clone())
            .chain(match file.change {
                None => vec![Field::new("_change_type", DataType::Utf8, true)],
                Some(_) => vec![],
            })
            .collect();
        let data_schema = Arc::new(Schema::new(data_fields));
        let batches = crate::formats::partitions::read_parquet_file(&path, &data_schema)?;
        batches
            .into_iter()
            .map(|b| self.complete(b, file, version, timestamp_ms))
            .collect()
    }

    /// A file's `batch` with its partition values and change feed columns.
    fn complete(
        &self,
        batch: RecordBatch,
        file: &FileEntry,
        version: u64,
        timestamp_ms: i64,
    ) -> Result<RecordBatch> {
        let n = batch.num_rows();
        let cols = self
            .schema
            .fields()
            .iter()
            .map(|f| -> Result<ArrayRef> {
                if let Some(c) = batch.column_by_name(f.name()) {
                    return Ok(Arc::clone(c));
                }
                let value = match f.name().as_str() {
                    "_change_type" if self.options.change_feed => {
                        let t = file.change.unwrap_or("insert");
                        return Ok(Arc::new(StringArray::from(vec![t; n])));
                    }
                    "_commit_version" if self.options.change_feed => {
                        ScalarValue::Int64(Some(version as i64))
                    }
                    "_commit_timestamp" if self.options.change_feed => {
                        ScalarValue::TimestampMicrosecond(
                            Some(timestamp_ms * 1000),
                            Some("UTC".into()),
                        )
                    }
                    name => match file.partition_values.get(name).cloned().flatten() {
                        Some(v) => ScalarValue::try_from_string(v, f.data_type())?,
                        None => ScalarValue::try_from(f.data_type())?,
                    },
                };
                Ok(value.to_array_of_size(n)?)
            })
            .collect::<Result<Vec<_>>>()?;
        let opts = arrow::array::RecordBatchOptions::new().with_row_count(Some(n));
        Ok(RecordBatch::try_new_with_options(
            Arc::clone(&self.schema),
            cols,
            &opts,
        )?)
    }
}

impl Source for DeltaSource {
    fn description(&self) -> String {
        format!("DeltaSource[file:{}]", self.root.display())
    }

    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    fn latest_offset(&mut self) -> Result<Option<Offset>> {
        let from = match (self.cursor, self.start) {
            (Some(c), _) | (None, Some(c)) => c,
            (None, None) => {
                let start = self.initial()?;
                self.start = Some(start);
                start
            }
        };
        match self.next_end(from)? {
            Some(end) => {
                self.cursor = Some(end);
                Ok(Some(self.offset_of(end)))
            }
            None => Ok(self.cursor.map(|c| self.offset_of(c))),
        }
    }

    fn get_batch(&mut self, start: Option<&Offset>, end: &Offset) -> Result<BatchInput> {
        let end = self.pos_of(end)?;
        let start = match start {
            Some(s) => self.pos_of(s)?,
            // the first batch: from the start snapshot, or where the options say
            None if end.starting => Pos { index: -1, ..end },
            None => match self.start.map_or_else(|| self.initial(), Ok)? {
                p if p.key() <= end.key() => p,
                _ => Pos {
                    version: end.version,
                    starting: false,
                    index: -1,
                },
            },
        };
        let files = self.files_between(start, end)?;
        let mut batches = Vec::new();
        for (file, version, ts) in &files {
            batches.extend(self.read(file, *version, *ts)?);
        }
        let num_rows = batches.iter().map(|b| b.num_rows() as u64).sum();
        if self.cursor.is_none_or(|c| c.key() < end.key()) {
            self.cursor = Some(end);
        }
        let table = MemTable::try_new(Arc::clone(&self.schema), vec![batches])?;
        Ok(BatchInput {
            provider: Arc::new(table),
            num_rows,
        })
    }

    fn commit(&mut self, end: &Offset) -> Result<()> {
        let end = self.pos_of(end)?;
        if self.cursor.is_none_or(|c| c.key() < end.key()) {
            self.cursor = Some(end);
        }
        Ok(())
    }

    fn restore(&mut self, committed: Option<&Offset>) -> Result<()> {
        self.cursor = committed.map(|c| self.pos_of(c)).transpose()?;
        Ok(())
    }

    fn prepare_for_available_now(&mut self) -> Result<()> {
        self.cap = Some(self.latest_version()?);
        Ok(())
    }

    fn ignore_read_limits(&mut self) {
        self.options.max_files = None;
        self.options.max_bytes = None;
    }
}

/// `spark.read.format("delta").option("readChangeFeed", "true")`: the
/// changes of versions `startingVersion` (or `startingTimestamp`) through
/// `endingVersion` (or the latest), as the stream would read them.
pub fn read_change_feed(
    path: &str,
    options: &HashMap<String, String>,
) -> Result<(SchemaRef, Vec<RecordBatch>)> {
    let factory = DeltaStreamFactory::new(path, options)?;
    if matches!(factory.options.start, StartAt::Snapshot | StartAt::Latest) {
        return Err(Error::analysis(
            "DELTA_NO_START_FOR_CDC_READ",
            "No startingVersion or startingTimestamp provided for CDC read.",
        ));
    }
    let mut source = DeltaSource::from_factory(&factory)?;
    let start = source.initial()?;
    let latest = source.latest_version()?;
    let end = match options.get("endingversion") {
        Some(v) => v.trim().parse::<u64>().map_err(|_| {
            Error::illegal_argument(format!("Invalid value '{v}' for option 'endingVersion'"))
        })?,
        None => latest,
    }
    .min(latest);
    let mut batches = Vec::new();
    for (file, version, ts) in source.files_between(start, Pos::after(end))? {
        batches.extend(source.read(&file, version, ts)?);
    }
    Ok((Arc::clone(&factory.schema), batches))
}
