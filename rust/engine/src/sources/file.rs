//! The file stream source: watches a directory (or glob) for new files and
//! reads each micro-batch's files with the format's reader.
//!
//! Offsets are Spark's `{"logOffset": N}`: the N-th group of files taken.
//! Files are taken oldest first (newest first with `latestFirst`), limited by
//! `maxFilesPerTrigger` / `maxBytesPerTrigger`, and never taken twice.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::UNIX_EPOCH;

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use datafusion::catalog::TableProvider;
use datafusion::datasource::file_format::parquet::ParquetFormat;
use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};
use datafusion::datasource::MemTable;

use super::{
    file_log, parse_bool_option, parse_u64_option, Backlog, BatchInput, Offset, Source,
    SourceContext, SourceFactory,
};
use crate::error::{Error, Result};
use crate::formats::{self, ReadOptions};

/// The formats the file source and `spark.read` understand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileFormat {
    /// JSON lines / multi-line JSON.
    Json,
    /// CSV.
    Csv,
    /// Plain text lines.
    Text,
    /// Apache Parquet.
    Parquet,
    /// Apache ORC.
    Orc,
}

impl FileFormat {
    /// Parse a `format(...)` name.
    pub fn parse(name: &str) -> Option<Self> {
        match name.to_ascii_lowercase().as_str() {
            "json" => Some(FileFormat::Json),
            "csv" => Some(FileFormat::Csv),
            "text" => Some(FileFormat::Text),
            "parquet" => Some(FileFormat::Parquet),
            "orc" => Some(FileFormat::Orc),
            _ => None,
        }
    }
}

/// How long after its last change a file listed empty is left for a later
/// trigger (a producer that opens, then writes, shows it empty in between).
const STILL_WRITING_MS: i64 = 1_000;

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// A file found by listing.
#[derive(Debug, Clone)]
pub struct FileEntry {
    /// Absolute path.
    pub path: PathBuf,
    /// Modification time, ms since the epoch.
    pub mtime_ms: i64,
    /// Size in bytes.
    pub size: u64,
}

fn is_hidden(name: &str) -> bool {
    name.starts_with('.') || name.starts_with('_')
}

fn has_glob(s: &str) -> bool {
    s.contains(['*', '?', '[', '{'])
}

/// The folder (or file) a source path lists: the path itself, or a glob's
/// leading components without a wildcard.
fn listing_root(path: &str) -> Result<PathBuf> {
    let abs = absolute(path)?;
    if !has_glob(path) {
        return Ok(abs);
    }
    Ok(abs
        .components()
        .take_while(|c| !has_glob(&c.as_os_str().to_string_lossy()))
        .collect())
}

/// Whether `file` lies under `root` (no `..` climbing out of it).
fn lies_under(file: &Path, root: &Path) -> bool {
    file.strip_prefix(root).is_ok_and(|rest| {
        rest.components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
    })
}

/// Make `path` absolute without requiring it to exist.
pub fn absolute(path: &str) -> Result<PathBuf> {
    std::path::absolute(path).map_err(|e| Error::io(path, e))
}

/// Error if `path` (or its glob) matches nothing, as Spark's `PATH_NOT_FOUND`.
pub fn check_path_exists(path: &str) -> Result<()> {
    let abs = absolute(path)?;
    let exists = if has_glob(path) {
        glob::glob(&abs.to_string_lossy())
            .map(|mut g| g.next().is_some())
            .unwrap_or(false)
    } else {
        abs.exists()
    };
    if exists {
        Ok(())
    } else {
        Err(Error::analysis(
            "PATH_NOT_FOUND",
            format!("Path does not exist: file:{}.", abs.display()),
        ))
    }
}

/// A data file's listing entry. Only regular files are data (a link to
/// one too): a folder reached through a link is skipped, as Spark does, and
/// a FIFO or device would block or never end.
fn entry(path: &Path) -> Result<FileEntry> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path.display().to_string(), e))?;
    if !meta.is_file() {
        return Err(Error::illegal_argument(format!(
            "{} is not a regular file",
            path.display()
        )));
    }
    let mtime_ms = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0);
    Ok(FileEntry {
        path: path.to_path_buf(),
        mtime_ms,
        size: meta.len(),
    })
}

fn walk(dir: &Path, recursive: bool, out: &mut Vec<FileEntry>) -> Result<()> {
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io(dir.display().to_string(), e)),
    };
    for item in rd {
        let item = item.map_err(|e| Error::io(dir.display().to_string(), e))?;
        let name = item.file_name().to_string_lossy().to_string();
        if is_hidden(&name) {
            continue;
        }
        let path = item.path();
        let ft = item
            .file_type()
            .map_err(|e| Error::io(path.display().to_string(), e))?;
        if ft.is_dir() {
            // partition folders (`key=value`) hold data, as Spark's
            // partition discovery reads them
            if recursive || name.contains('=') {
                walk(&path, recursive, out)?;
            }
        } else {
            // a file may vanish between listing and stat (cleanup by a writer)
            if let Ok(e) = entry(&path) {
                out.push(e);
            }
        }
    }
    Ok(())
}

/// List the data files under `path` (a file, a directory or a glob).
pub fn list_files(
    path: &str,
    recursive: bool,
    name_filter: Option<&glob::Pattern>,
) -> Result<Vec<FileEntry>> {
    let abs = absolute(path)?;
    let mut out = Vec::new();
    if has_glob(path) {
        let pattern = abs.to_string_lossy().to_string();
        let paths = glob::glob(&pattern)
            .map_err(|e| Error::illegal_argument(format!("invalid path glob '{path}': {e}")))?;
        for p in paths.flatten() {
            if p.is_dir() {
                walk(&p, recursive, &mut out)?;
            } else if let Ok(e) = entry(&p) {
                out.push(e);
            }
        }
    } else if abs.is_file() {
        out.push(entry(&abs)?);
    } else {
        walk(&abs, recursive, &mut out)?;
    }
    if let Some(f) = name_filter {
        out.retain(|e| {
            e.path
                .file_name()
                .map(|n| f.matches(&n.to_string_lossy()))
                .unwrap_or(false)
        });
    }
    Ok(out)
}

/// Parse one JSON, CSV or text file into rows of `schema`.
pub(crate) fn parse_file(
    format: FileFormat,
    f: &FileEntry,
    schema: &SchemaRef,
    opts: &ReadOptions,
) -> Result<RecordBatch> {
    let display = f.path.display().to_string();
    let bytes = std::fs::read(&f.path).map_err(|e| Error::io(&display, e))?;
    let text = String::from_utf8_lossy(&bytes);
    match format {
        FileFormat::Json => formats::json::parse(&text, schema, opts, &display),
        FileFormat::Csv => formats::csv::parse(&text, schema, opts, &display),
        FileFormat::Text => formats::text::parse(&text, schema, opts),
        FileFormat::Parquet | FileFormat::Orc => Err(Error::Internal(
            "parquet and orc files are not parsed as text".into(),
        )),
    }
}

/// Read files below `root` whose folders carry partition values (`k=v`):
/// each file's rows get `parts` as constant columns, giving rows of `schema`.
pub fn read_partitioned(
    format: FileFormat,
    root: &Path,
    files: &[FileEntry],
    schema: &SchemaRef,
    parts: &[arrow::datatypes::Field],
    opts: &ReadOptions,
) -> Result<BatchInput> {
    let data_schema = formats::partitions::split_schema(schema, parts);
    let mut batches = Vec::new();
    for f in files {
        let data = match format {
            FileFormat::Parquet => formats::partitions::read_parquet_file(&f.path, &data_schema)?,
            FileFormat::Orc => formats::orc::read_file(&f.path, &data_schema)?,
            _ => vec![parse_file(format, f, &data_schema, opts)?],
        };
        batches.extend(formats::partitions::append(
            root, &f.path, data, parts, schema,
        )?);
    }
    let num_rows = batches.iter().map(|b| b.num_rows() as u64).sum();
    Ok(BatchInput {
        provider: Arc::new(MemTable::try_new(Arc::clone(schema), vec![batches])?),
        num_rows,
    })
}

/// The entry of an existing file.
pub fn file_entry(path: &Path) -> Result<FileEntry> {
    entry(path)
}

/// Read `files` in `format` into a table provider for one batch (or a batch read).
pub fn read_files(
    format: FileFormat,
    files: &[FileEntry],
    schema: &SchemaRef,
    opts: &ReadOptions,
) -> Result<BatchInput> {
    if format == FileFormat::Parquet {
        return read_parquet(files, schema);
    }
    let read_one = |f: &FileEntry| match format {
        FileFormat::Orc => Ok(arrow::compute::concat_batches(
            schema,
            &formats::orc::read_file(&f.path, schema)?,
        )?),
        _ => parse_file(format, f, schema, opts),
    };
    let read_one = &read_one;
    // parse files in parallel: each file is independent
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let batches: Vec<RecordBatch> = if files.len() > 1 && threads > 1 {
        let chunk = files.len().div_ceil(threads);
        std::thread::scope(|s| {
            let handles: Vec<_> = files
                .chunks(chunk)
                .map(|c| s.spawn(move || c.iter().map(read_one).collect::<Result<Vec<_>>>()))
                .collect();
            let mut all = Vec::new();
            for h in handles {
                let part = h
                    .join()
                    .map_err(|_| Error::Internal("a file reader thread panicked".into()))??;
                all.extend(part);
            }
            Ok::<_, Error>(all)
        })?
    } else {
        files.iter().map(read_one).collect::<Result<Vec<_>>>()?
    };
    let num_rows = batches.iter().map(|b| b.num_rows() as u64).sum();
    let parts = threads.max(1);
    let mut partitions: Vec<Vec<RecordBatch>> = vec![Vec::new(); parts.min(batches.len().max(1))];
    let n = partitions.len();
    for (i, b) in batches.into_iter().enumerate() {
        partitions[i % n].push(b);
    }
    Ok(BatchInput {
        provider: Arc::new(MemTable::try_new(Arc::clone(schema), partitions)?),
        num_rows,
    })
}

fn read_parquet(files: &[FileEntry], schema: &SchemaRef) -> Result<BatchInput> {
    let mut num_rows = 0u64;
    let mut urls = Vec::with_capacity(files.len());
    for f in files {
        let display = f.path.display().to_string();
        let file = std::fs::File::open(&f.path).map_err(|e| Error::io(&display, e))?;
        let meta =
            parquet::file::reader::SerializedFileReader::new(file).map_err(|e| Error::Input {
                condition: "FAILED_READ_FILE.CANNOT_READ_FILE_FOOTER".into(),
                message: format!("Could not read footer for file: {display}: {e}"),
            })?;
        let footer = parquet::file::reader::FileReader::metadata(&meta).file_metadata();
        num_rows += footer.num_rows() as u64;
        let columns = parquet::arrow::parquet_to_arrow_schema(
            footer.schema_descr(),
            footer.key_value_metadata(),
        )
        .map_err(|e| Error::Input {
            condition: "FAILED_READ_FILE.CANNOT_READ_FILE_FOOTER".into(),
            message: format!("Could not read footer for file: {display}: {e}"),
        })?;
        formats::parquet_types::check(&display, &columns, schema)?;
        urls.push(ListingTableUrl::parse(&display)?);
    }
    if urls.is_empty() {
        return Ok(BatchInput {
            provider: Arc::new(MemTable::try_new(Arc::clone(schema), vec![vec![]])?),
            num_rows: 0,
        });
    }
    // one listing scan: DataFusion groups the files by path and can push
    // struct leaves into the Parquet reader (a scan per file cannot)
    let options = ListingOptions::new(Arc::new(ParquetFormat::default())).with_file_extension("");
    let config = ListingTableConfig::new_with_multi_paths(urls)
        .with_listing_options(options)
        .with_schema(Arc::clone(schema));
    let table: Arc<dyn TableProvider> = Arc::new(ListingTable::try_new(config)?);
    Ok(BatchInput {
        provider: table,
        num_rows,
    })
}

/// What happens to a file once its batch is committed (`cleanSource`).
#[derive(Debug, Clone, PartialEq)]
pub enum CleanSource {
    /// Leave it.
    Off,
    /// Delete it.
    Delete,
    /// Move it under this folder, keeping its absolute path below it.
    Archive(PathBuf),
}

/// Options of a file stream (keys lower-cased).
#[derive(Debug, Clone)]
pub struct FileStreamOptions {
    max_files: Option<u64>,
    max_bytes: Option<u64>,
    latest_first: bool,
    recursive: bool,
    name_filter: Option<glob::Pattern>,
    max_file_age_ms: i64,
    clean: CleanSource,
}

impl FileStreamOptions {
    /// Validate the options.
    pub fn from_options(options: &HashMap<String, String>) -> Result<Self> {
        let u = |k: &str, name: &str| -> Result<Option<u64>> {
            options
                .get(k)
                .map(|v| parse_u64_option(name, v))
                .transpose()
        };
        // Spark's FileStreamOptions: one message for text and for 0
        let max_files = match options.get("maxfilespertrigger") {
            None => None,
            Some(v) => match v.trim().parse::<u64>() {
                Ok(n) if n > 0 => Some(n),
                _ => {
                    return Err(Error::illegal_argument(format!(
                        "Invalid value '{v}' for option 'maxFilesPerTrigger', must be a positive integer"
                    )))
                }
            },
        };
        let name_filter = options
            .get("pathglobfilter")
            .map(|p| {
                glob::Pattern::new(p).map_err(|e| {
                    Error::illegal_argument(format!(
                        "Invalid value '{p}' for option 'pathGlobFilter': {e}"
                    ))
                })
            })
            .transpose()?;
        let b = |k: &str, name: &str| -> Result<bool> {
            options
                .get(k)
                .map(|v| parse_bool_option(name, v))
                .transpose()
                .map(|v| v.unwrap_or(false))
        };
        let max_file_age_ms = match options.get("maxfileage") {
            Some(v) => crate::engine::trigger::parse_duration_ms(v).map_err(|_| {
                Error::illegal_argument(format!("Invalid value '{v}' for option 'maxFileAge': expected a duration like '7d' or '1 hour'"))
            })?,
            None => 7 * 86_400_000,
        };
        let clean = match options.get("cleansource").map(|v| v.to_ascii_lowercase()) {
            None => CleanSource::Off,
            Some(v) => match v.as_str() {
                "off" => CleanSource::Off,
                "delete" => CleanSource::Delete,
                "archive" => {
                    let dir = options.get("sourcearchivedir").ok_or_else(|| {
                        Error::illegal_argument("Archive mode must be used with 'sourceArchiveDir' option. (Set the folder completed files move to.)")
                    })?;
                    CleanSource::Archive(absolute(dir)?)
                }
                other => {
                    return Err(Error::illegal_argument(format!(
                        "Invalid value '{other}' for option 'cleanSource': expected 'archive', 'delete' or 'off'"
                    )))
                }
            },
        };
        Ok(FileStreamOptions {
            max_files,
            max_bytes: u("maxbytespertrigger", "maxBytesPerTrigger")?,
            latest_first: b("latestfirst", "latestFirst")?,
            recursive: b("recursivefilelookup", "recursiveFileLookup")?,
            name_filter,
            max_file_age_ms,
            clean,
        })
    }
}

/// Factory for `readStream.format(json|csv|text|parquet).load(path)`.
#[derive(Debug)]
pub struct FileStreamFactory {
    format: FileFormat,
    path: String,
    schema: SchemaRef,
    read_opts: ReadOptions,
    stream_opts: FileStreamOptions,
    /// Partition columns (`key=value` folders found when the stream is
    /// defined, as Spark's partition discovery finds them), last in `schema`.
    parts: Vec<arrow::datatypes::Field>,
}

impl FileStreamFactory {
    /// Check the path and options, as Spark does when `load()` is called.
    pub fn new(
        format: FileFormat,
        path: &str,
        schema: SchemaRef,
        options: &HashMap<String, String>,
    ) -> Result<Self> {
        check_path_exists(path)?;
        let stream_opts = FileStreamOptions::from_options(options)?;
        if let CleanSource::Archive(dir) = &stream_opts.clean {
            let src = absolute(path)?;
            if dir.starts_with(&src) {
                return Err(Error::illegal_argument(format!(
                    "'sourceArchiveDir' {} must not be inside the source path {}: archived files would be read again",
                    dir.display(),
                    src.display()
                )));
            }
        }
        let existing = list_files(
            path,
            stream_opts.recursive,
            stream_opts.name_filter.as_ref(),
        )?;
        let parts = formats::partitions::columns(&listing_root(path)?, &existing, Some(&schema));
        // the user's schema, with the partition columns it does not name last
        let schema = if parts.is_empty() {
            schema
        } else {
            formats::partitions::with_user_partitions(&schema, &parts)
        };
        Ok(FileStreamFactory {
            format,
            path: path.to_string(),
            schema,
            read_opts: ReadOptions::from_options(options)?,
            stream_opts,
            parts,
        })
    }
}

impl SourceFactory for FileStreamFactory {
    fn class_name(&self) -> &'static str {
        "FileStreamSource"
    }

    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    fn create(&self, ctx: &SourceContext) -> Result<Box<dyn Source>> {
        let mut src = FileStreamSource {
            format: self.format,
            path: self.path.clone(),
            schema: Arc::clone(&self.schema),
            read_opts: self.read_opts.clone(),
            stream_opts: self.stream_opts.clone(),
            parts: self.parts.clone(),
            seen: HashMap::new(),
            batches: BTreeMap::new(),
            log_dir: ctx.metadata_dir.clone(),
            fsync: ctx.fsync,
            available_now: None,
            backlog: (0, 0),
            all_available: false,
            clean_pending: None,
        };
        if let Some(dir) = &src.log_dir {
            for (batch, entries) in file_log::read_all(dir)? {
                for e in &entries {
                    src.seen.insert(e.path.clone(), e.timestamp);
                }
                src.batches.insert(batch, entries);
            }
        }
        Ok(Box::new(src))
    }
}

struct FileStreamSource {
    format: FileFormat,
    path: String,
    schema: SchemaRef,
    read_opts: ReadOptions,
    stream_opts: FileStreamOptions,
    /// Partition columns, filled from each file's folders.
    parts: Vec<arrow::datatypes::Field>,
    /// Files already assigned to a batch, with their modification time.
    seen: HashMap<PathBuf, i64>,
    /// logOffset -> files of that batch (uncommitted ones are needed to
    /// read the batch; committed ones are kept for the compacted log).
    batches: BTreeMap<i64, Vec<file_log::LogEntry>>,
    /// `sources/<n>` in the checkpoint.
    log_dir: Option<PathBuf>,
    /// Whether the log's writes are fsynced.
    fsync: bool,
    /// With `Trigger.AvailableNow`: the only files this run may take.
    available_now: Option<HashSet<PathBuf>>,
    /// With `Trigger.AvailableNow`: files taken of those not yet taken at its start.
    backlog: (u64, u64),
    /// With `Trigger.Once`: `maxFilesPerTrigger` and `maxBytesPerTrigger` ignored.
    all_available: bool,
    /// The last committed batch, whose files `cleanSource` leaves until
    /// another batch runs: Spark cleans a batch's files when the next one
    /// starts, so the files of a run's last batch stay where they are.
    clean_pending: Option<i64>,
}

impl FileStreamSource {
    /// The source's log has no entry for `batch`, which the offsets log names.
    fn log_lacks(&self, batch: i64) -> Error {
        let dir = self.log_dir.clone().unwrap_or_default();
        crate::checkpoint::log::missing(&dir.join(batch.to_string()))
    }

    fn log_corrupt(&self, what: String) -> Error {
        let dir = self.log_dir.clone().unwrap_or_default();
        crate::checkpoint::log::corrupt(&dir, what)
    }
}

fn log_offset(offset: Option<&Offset>) -> i64 {
    offset
        .and_then(|o| o.get("logOffset"))
        .and_then(|v| v.as_i64())
        .unwrap_or(-1)
}

impl FileStreamSource {
    /// Files too old to consider: older than the newest seen minus
    /// `maxFileAge` (ignored with `latestFirst` + `maxFilesPerTrigger`, as in Spark).
    fn age_threshold(&self) -> i64 {
        if self.stream_opts.latest_first && self.stream_opts.max_files.is_some() {
            return i64::MIN;
        }
        self.seen
            .values()
            .max()
            .map_or(i64::MIN, |m| m - self.stream_opts.max_file_age_ms)
    }

    fn new_files(&self) -> Result<Vec<FileEntry>> {
        let mut files = list_files(
            &self.path,
            self.stream_opts.recursive,
            self.stream_opts.name_filter.as_ref(),
        )?;
        let threshold = self.age_threshold();
        files.retain(|f| !self.seen.contains_key(&f.path) && f.mtime_ms >= threshold);
        // a file listed empty just after it was created is most likely being
        // written (created, then written): a later trigger takes it, whole
        let now = now_ms();
        files.retain(|f| f.size > 0 || now.saturating_sub(f.mtime_ms) >= STILL_WRITING_MS);
        if let Some(allowed) = &self.available_now {
            files.retain(|f| allowed.contains(&f.path));
        }
        files.sort_by(|a, b| {
            a.mtime_ms
                .cmp(&b.mtime_ms)
                .then_with(|| a.path.cmp(&b.path))
        });
        if self.stream_opts.latest_first {
            files.reverse();
        }
        if self.all_available {
            return Ok(files);
        }
        if let Some(max) = self.stream_opts.max_files {
            files.truncate(max as usize);
        }
        if let Some(max_bytes) = self.stream_opts.max_bytes {
            // take files until the limit is reached; always at least one
            let mut total = 0u64;
            let mut keep = 0;
            for f in &files {
                if keep > 0 && total + f.size > max_bytes {
                    break;
                }
                total += f.size;
                keep += 1;
            }
            files.truncate(keep);
        }
        Ok(files)
    }

    /// Apply `cleanSource` to a committed file.
    fn clean(&self, path: &Path) -> Result<()> {
        let display = path.display().to_string();
        match &self.stream_opts.clean {
            CleanSource::Off => Ok(()),
            CleanSource::Delete => match std::fs::remove_file(path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::io(display, e)),
                _ => Ok(()),
            },
            CleanSource::Archive(dir) => {
                let rel = path.strip_prefix("/").unwrap_or(path);
                let target = dir.join(rel);
                if let Some(parent) = target.parent() {
                    std::fs::create_dir_all(parent)
                        .map_err(|e| Error::io(parent.display().to_string(), e))?;
                }
                match std::fs::rename(path, &target) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                        Err(Error::io(display, e))
                    }
                    _ => Ok(()),
                }
            }
        }
    }
}

impl Source for FileStreamSource {
    fn description(&self) -> String {
        let abs = absolute(&self.path)
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| self.path.clone());
        format!("FileStreamSource[file:{abs}]")
    }

    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    fn latest_offset(&mut self) -> Result<Option<Offset>> {
        let files = self.new_files()?;
        let last = self.batches.keys().next_back().copied();
        if files.is_empty() {
            return Ok(last.map(|n| serde_json::json!({ "logOffset": n })));
        }
        let next = last.map_or(0, |n| n + 1);
        let entries: Vec<file_log::LogEntry> = files
            .iter()
            .map(|f| file_log::LogEntry {
                path: f.path.clone(),
                timestamp: f.mtime_ms,
                batch_id: next,
            })
            .collect();
        for e in &entries {
            self.seen.insert(e.path.clone(), e.timestamp);
        }
        if self.available_now.is_some() {
            self.backlog.0 += entries.len() as u64;
        }
        self.batches.insert(next, entries.clone());
        // the log entry is written before the engine writes offsets/<N>: a
        // restart finds the batch's files and reports the same logOffset
        if let Some(dir) = &self.log_dir {
            file_log::write_batch(dir, next, &entries, &self.batches, self.fsync)?;
        }
        Ok(Some(serde_json::json!({ "logOffset": next })))
    }

    fn get_batch(&mut self, start: Option<&Offset>, end: &Offset) -> Result<BatchInput> {
        let (from, to) = (log_offset(start) + 1, log_offset(Some(end)));
        if from > to + 1 || (from <= to && !self.batches.contains_key(&to)) {
            return Err(self.log_lacks(to));
        }
        let root = listing_root(&self.path)?;
        let files: Vec<FileEntry> = self
            .batches
            .range(from..=to)
            .flat_map(|(_, f)| f.iter())
            .map(|e| FileEntry {
                path: e.path.clone(),
                mtime_ms: e.timestamp,
                // sizes only matter when choosing files (maxBytesPerTrigger)
                size: 0,
            })
            .collect();
        // the log names what a batch reads: never a file outside the source's path
        if let Some(f) = files.iter().find(|f| !lies_under(&f.path, &root)) {
            return Err(self.log_corrupt(format!(
                "it names {}, which is not under the source path {}",
                f.path.display(),
                root.display()
            )));
        }
        if !self.parts.is_empty() {
            return read_partitioned(
                self.format,
                &root,
                &files,
                &self.schema,
                &self.parts,
                &self.read_opts,
            );
        }
        read_files(self.format, &files, &self.schema, &self.read_opts)
    }

    fn restore(&mut self, committed: Option<&Offset>) -> Result<()> {
        // the offsets log says batches up to `committed` ran: the source's
        // own log must know their files, or a restart would take them again
        let c = log_offset(committed);
        if c >= 0 && self.batches.keys().next_back().is_none_or(|last| *last < c) {
            return Err(self.log_lacks(c));
        }
        self.clean_pending = (c >= 0).then_some(c);
        Ok(())
    }

    fn commit(&mut self, end: &Offset) -> Result<()> {
        let to = log_offset(Some(end));
        if let Some(before) = self.clean_pending.replace(to) {
            if self.stream_opts.clean != CleanSource::Off {
                let done: Vec<PathBuf> = self
                    .batches
                    .range(..=before)
                    .flat_map(|(_, f)| f.iter().map(|e| e.path.clone()))
                    .collect();
                for p in done {
                    self.clean(&p)?;
                }
            }
        }
        // forget files older than maxFileAge: they can no longer be taken
        let threshold = self.age_threshold();
        self.seen.retain(|_, ts| *ts >= threshold);
        self.batches.retain(|k, entries| {
            *k >= to || {
                entries.retain(|e| e.timestamp >= threshold);
                !entries.is_empty()
            }
        });
        Ok(())
    }

    fn ignore_read_limits(&mut self) {
        let o = &self.stream_opts;
        if o.max_files.is_some() || o.max_bytes.is_some() {
            log::warn!(
                "The read limit of {} (maxFilesPerTrigger / maxBytesPerTrigger) is ignored when Trigger.Once is used.",
                self.description()
            );
        }
        self.all_available = true;
    }

    fn prepare_for_available_now(&mut self) -> Result<()> {
        let files = list_files(
            &self.path,
            self.stream_opts.recursive,
            self.stream_opts.name_filter.as_ref(),
        )?;
        // the backlog: files a batch could still take (as `new_files` picks)
        let threshold = self.age_threshold();
        let pending = files
            .iter()
            .filter(|f| !self.seen.contains_key(&f.path) && f.mtime_ms >= threshold)
            .count();
        self.backlog = (0, pending as u64);
        self.available_now = Some(files.into_iter().map(|f| f.path).collect());
        Ok(())
    }

    fn backlog(&self) -> Option<Backlog> {
        self.available_now.as_ref()?;
        Some(Backlog {
            done: self.backlog.0,
            total: self.backlog.1.max(self.backlog.0),
            unit: "files",
        })
    }
}
