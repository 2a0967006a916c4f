//! A sparklet session: DataFusion context with Spark's functions, the
//! configuration, the catalog of temp views, and the streaming query manager.

use std::collections::HashMap;
use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::datatypes::{Schema, SchemaRef};
use datafusion::catalog::TableProvider;
use datafusion::dataframe::DataFrame;
use datafusion::datasource::{provider_as_source, MemTable};
use datafusion::execution::context::SessionState;
use datafusion::logical_expr::{LogicalPlan, LogicalPlanBuilder};
use datafusion::prelude::{SessionConfig, SessionContext};

use crate::conf::{keys, Conf};
use crate::engine::execution::{self, CheckpointSpec, OutputMode, StartOptions};
use crate::engine::manager::QueryManager;
use crate::engine::query::StreamingQuery;
use crate::engine::trigger::Trigger;
use crate::error::{Error, Result};
use crate::formats::{self, ReadOptions};
use crate::runtime::block_on;
use crate::sinks::memory::SinkTable;
use crate::sinks::unknown_format;
use crate::sinks::Sink;
pub use crate::sinks::SinkSpec;
use crate::sources::file::{self, FileFormat, FileStreamFactory};
use crate::sources::memory::{MemoryStream, MemoryStreamFactory};
use crate::sources::rate::{RateFactory, RateMicroBatchFactory};
use crate::sources::{SourceFactory, StreamTable};

/// What `writeStream` was told besides the sink.
#[derive(Debug, Clone, Default)]
pub struct QueryOptions {
    /// `queryName`.
    pub name: Option<String>,
    /// The trigger.
    pub trigger: Trigger,
    /// The output mode.
    pub output_mode: OutputMode,
    /// The writer's `checkpointLocation`.
    pub checkpoint_location: Option<String>,
    /// `lateRowsTable`: keep rows dropped behind the watermark in this table.
    pub late_rows_table: Option<String>,
    /// The trigger clock (a manual one in tests).
    pub clock: crate::engine::clock::Clock,
    /// Asynchronous progress tracking (writer options).
    pub async_progress: crate::engine::async_progress::AsyncProgressOptions,
}

/// The database of global temporary views (`global_temp.name`).
pub const GLOBAL_TEMP_DATABASE: &str = "global_temp";

/// The global temporary views: one database for the process, registered in
/// every session's catalog, as Spark shares them between the sessions of an
/// application.
fn global_temp_views() -> Arc<crate::table_names::CaseInsensitiveSchema> {
    static VIEWS: std::sync::OnceLock<Arc<crate::table_names::CaseInsensitiveSchema>> =
        std::sync::OnceLock::new();
    Arc::clone(VIEWS.get_or_init(crate::table_names::CaseInsensitiveSchema::new))
}

/// One user session (`SparkSession`).
pub struct Session {
    ctx: SessionContext,
    /// `spark.conf`.
    /// Shared with the web UI (its environment page).
    pub conf: Arc<Conf>,
    /// `spark.streams`.
    pub streams: Arc<QueryManager>,
    next_stream_id: std::sync::atomic::AtomicUsize,
    /// Numbers batch relations (`df_N`) so that joined DataFrames never share a qualifier.
    next_table_id: std::sync::atomic::AtomicUsize,
    /// The web UI, when `spark.ui.enabled` (stopped with the session).
    ui: parking_lot::Mutex<Option<crate::engine::web_ui::WebUi>>,
}

fn lower_keys(options: &HashMap<String, String>) -> HashMap<String, String> {
    options
        .iter()
        .map(|(k, v)| (k.to_ascii_lowercase(), v.clone()))
        .collect()
}

/// Spark's session catalog (the only one).
pub const SPARK_CATALOG: &str = "spark_catalog";
/// The database tables go to unless named otherwise.
pub const DEFAULT_DATABASE: &str = "default";

/// Rows per record batch in plans (DataFusion's default is 8192).
pub const BATCH_ROWS: usize = 65_536;

impl Session {
    /// A new session with `conf` over Spark's defaults.
    ///
    /// Plans run in record batches of [`BATCH_ROWS`] rows: a micro-batch of
    /// 100K rows is then one or two batches through each operator instead
    /// of a dozen (a stream join and a dedup ran 10-15% faster).
    pub fn new(conf: Vec<(String, String)>) -> Result<Arc<Self>> {
        let conf = Arc::new(Conf::new(conf));
        let tz = conf
            .get(keys::SESSION_TIME_ZONE)
            .unwrap_or_else(|| "UTC".into());
        // Spark's names: `tbl`, `default.tbl` and `spark_catalog.default.tbl` are one table
        let mut config = SessionConfig::new()
            .with_default_catalog_and_schema(SPARK_CATALOG, DEFAULT_DATABASE)
            .with_information_schema(true)
            .with_batch_size(BATCH_ROWS);
        {
            let opts = config.options_mut();
            // Spark resolves identifiers as written; keep case in SQL
            opts.sql_parser.enable_ident_normalization = false;
            // Spark's SQL: "text" is a string, `name` an identifier
            opts.sql_parser.dialect = datafusion::common::config::Dialect::Databricks;
            opts.execution.time_zone = Some(tz);
            opts.extensions
                .insert(crate::spark_options::SparkOptions::default());
        }
        let state = datafusion::execution::session_state::SessionStateBuilder::new()
            .with_default_features()
            .with_config(config)
            .with_optimizer_rules(logical_optimizer_rules())
            .with_query_planner(Arc::new(crate::plan::planner::SparkletQueryPlanner))
            .with_type_planner(Arc::new(crate::plan::spark_types::SparkTypes))
            .with_physical_optimizer_rules(physical_optimizer_rules())
            .build();
        // after DataFusion's analyzers (type coercion): casts as Spark writes them
        let mut state = state;
        state.add_analyzer_rule(Arc::new(crate::plan::spark_casts::SparkCasts));
        state.add_analyzer_rule(Arc::new(crate::plan::window_nulls::WindowNulls));
        let ctx = SessionContext::new_with_state(state);
        if let Some(catalog) = ctx.catalog(SPARK_CATALOG) {
            catalog.register_schema(
                DEFAULT_DATABASE,
                crate::table_names::CaseInsensitiveSchema::new(),
            )?;
            catalog.register_schema(GLOBAL_TEMP_DATABASE, global_temp_views())?;
        }
        for f in crate::functions::udfs::all()
            .into_iter()
            .chain(crate::functions::window::all())
            .chain(crate::functions::spark_sql::all())
            .chain(crate::functions::sketches::scalars())
        {
            ctx.register_udf(f);
        }
        crate::functions::register_spark_functions(&ctx);
        crate::functions::higher_order::register_spark_names(&ctx);
        // table function names are not normalized: both spellings Spark's docs use
        for name in ["range", "RANGE"] {
            ctx.register_udtf(name, Arc::new(crate::functions::range_table::SparkRange));
        }
        crate::functions::register_spark_names(&ctx);
        // after the renames: its Spark name is upper case, its call lower
        ctx.register_udf(crate::plan::partitions::spark_partition_id_udf());
        // SQL's `a[i]` is rewritten into a call of it (plan::sql_operators)
        ctx.register_udf(crate::functions::column::get_item_udf());
        for f in crate::functions::spark_aggregates() {
            ctx.register_udaf(f);
        }
        let streams = Arc::new(QueryManager::default());
        let ui = if conf.get_bool(keys::UI_ENABLED, false) {
            let port = conf.get_i64(keys::UI_PORT, 4040);
            let port = u16::try_from(port).map_err(|_| {
                Error::illegal_argument(format!(
                    "{} must be a port number, not {port}",
                    keys::UI_PORT
                ))
            })?;
            let retries = conf.get_i64(keys::PORT_MAX_RETRIES, 16).clamp(0, 1000) as u16;
            let host = conf
                .get(keys::DRIVER_BIND_ADDRESS)
                .unwrap_or_else(|| "127.0.0.1".into());
            let app = conf
                .get("spark.app.name")
                .unwrap_or_else(|| "sparklet".into());
            Some(crate::engine::web_ui::WebUi::start(
                Arc::clone(&streams),
                Arc::clone(&conf),
                app,
                &host,
                port,
                retries,
            )?)
        } else {
            None
        };
        let session = Arc::new(Session {
            ctx,
            conf,
            streams,
            next_stream_id: std::sync::atomic::AtomicUsize::new(0),
            next_table_id: std::sync::atomic::AtomicUsize::new(0),
            ui: parking_lot::Mutex::new(ui),
        });
        // the settings the plans read, given to the builder
        for key in [
            crate::spark_options::MAP_KEY_DEDUP_POLICY,
            crate::spark_options::CASE_SENSITIVE,
            crate::spark_options::ANSI_ENABLED,
        ] {
            if let Some(value) = session.conf.get(key) {
                session.set_conf(key, &value)?;
            }
        }
        Ok(session)
    }

    /// The web UI's address (`spark.sparkContext.uiWebUrl`), when it runs.
    pub fn ui_web_url(&self) -> Option<String> {
        self.ui.lock().as_ref().map(|u| u.url().to_string())
    }

    /// The DataFusion context (catalog, functions).
    pub fn ctx(&self) -> &SessionContext {
        &self.ctx
    }

    /// A snapshot of the session state for planning.
    pub fn state(&self) -> SessionState {
        self.ctx.state()
    }

    /// Set `key` to `value`; the session time zone also reaches the
    /// functions that read or write wall-clock time (`to_timestamp`,
    /// `date_format`, `unix_timestamp`, `from_unixtime`).
    pub fn set_conf(&self, key: &str, value: &str) -> Result<()> {
        if key == crate::spark_options::MAP_KEY_DEDUP_POLICY {
            let last_win = match value.to_ascii_uppercase().as_str() {
                "LAST_WIN" => true,
                "EXCEPTION" => false,
                other => {
                    return Err(Error::illegal_argument(format!(
                        "[INVALID_CONF_VALUE] The value '{other}' in the config \"{key}\" is invalid: it takes EXCEPTION or LAST_WIN."
                    )))
                }
            };
            self.set_spark_option(|o| o.map_key_last_win = last_win);
        }
        if key == crate::spark_options::CASE_SENSITIVE {
            let on = value.eq_ignore_ascii_case("true");
            self.set_spark_option(|o| o.case_sensitive = on);
        }
        if key == crate::spark_options::ANSI_ENABLED {
            let off = value.eq_ignore_ascii_case("false");
            self.set_spark_option(|o| o.ansi_disabled = off);
        }
        if key == keys::SESSION_TIME_ZONE {
            crate::formats::datetime::session_zone(value).ok_or_else(|| {
                Error::illegal_argument(format!(
                    "[INVALID_CONF_VALUE.TIME_ZONE] The value '{value}' in the config \"{key}\" is invalid. Cannot resolve the given timezone."
                ))
            })?;
            self.set_time_zone(value);
        }
        self.conf.set(key, value);
        Ok(())
    }

    /// The session time zone's IANA name (`spark.sql.session.timeZone`,
    /// Java's short ids resolved), as Arrow names a timestamp's zone.
    pub fn time_zone(&self) -> Option<Arc<str>> {
        let name = self.conf.get(keys::SESSION_TIME_ZONE)?;
        crate::formats::datetime::session_zone(&name).map(|tz| Arc::from(tz.name()))
    }

    /// Unset `key` (back to its default), as [`Session::set_conf`] would set it.
    pub fn unset_conf(&self, key: &str) {
        self.conf.unset(key);
        if key == crate::spark_options::MAP_KEY_DEDUP_POLICY {
            self.set_spark_option(|o| o.map_key_last_win = false);
        }
        if key == crate::spark_options::CASE_SENSITIVE {
            self.set_spark_option(|o| o.case_sensitive = false);
        }
        if key == crate::spark_options::ANSI_ENABLED {
            self.set_spark_option(|o| o.ansi_disabled = false);
        }
        if key == keys::SESSION_TIME_ZONE {
            let tz = self.conf.get(key).unwrap_or_else(|| "UTC".into());
            self.set_time_zone(&tz);
        }
    }

    /// `df` to run with the session's settings as they are now (a DataFrame
    /// keeps those of its creation; Spark reads them when it runs).
    pub fn at_current_conf(&self, df: DataFrame) -> DataFrame {
        let (mut state, plan) = df.into_parts();
        let now = self.ctx.state();
        *state.config_mut() = now.config().clone();
        // the functions read the settings the execution was started with
        state.mark_start_execution();
        DataFrame::new(state, plan)
    }

    /// `df` under the session's settings as they are now, for analysis (a
    /// DataFrame keeps those of its creation; Spark reads them as it
    /// analyses each call: `spark.sql.caseSensitive`, the time zone).
    pub fn with_current_config(&self, df: DataFrame) -> DataFrame {
        let (mut state, plan) = df.into_parts();
        *state.config_mut() = self.ctx.state().config().clone();
        DataFrame::new(state, plan)
    }

    /// Change the Spark settings the plans' functions and resolution read.
    fn set_spark_option(&self, set: impl FnOnce(&mut crate::spark_options::SparkOptions)) {
        let state = self.ctx.state_ref();
        let mut state = state.write();
        if let Some(o) = state
            .config_mut()
            .options_mut()
            .extensions
            .get_mut::<crate::spark_options::SparkOptions>()
        {
            set(o);
        }
    }

    /// The time zone the plans' functions read wall-clock time in.
    fn set_time_zone(&self, tz: &str) {
        let state = self.ctx.state_ref();
        let mut state = state.write();
        state.config_mut().options_mut().execution.time_zone = Some(tz.to_string());
    }

    /// `spark.sql(query)`.
    pub fn sql(&self, query: &str) -> Result<DataFrame> {
        let mut query = crate::plan::sql_tvf::rewrite(query)?;
        query = crate::plan::sql_operators::rewrite_query(&query);
        if !crate::spark_options::case_sensitive(self.ctx.state().config()) {
            query = crate::plan::ident_case::respell(&query, &self.column_names()?);
        }
        let mut df = block_on(self.ctx.sql(&query))?.map_err(Error::from_planning)?;
        if query.contains(crate::plan::sql_tvf::SESSION_COLUMN) {
            df = crate::plan::sql_tvf::merge_sessions(df)?;
        }
        if query.to_ascii_lowercase().contains("window(") {
            let (state, plan) = df.into_parts();
            let plan = crate::plan::sql_windows::rewrite(&state, plan)?;
            df = DataFrame::new(state, plan);
        }
        match df.logical_plan() {
            // EXPLAIN of a streaming query: the plan it would run, as Spark's
            // one `plan` column (DataFusion's would try to run the stream)
            LogicalPlan::Explain(e) if crate::catalog::is_streaming(&e.plan) => {
                let text = crate::engine::execution::explain(
                    self.state(),
                    e.plan.as_ref().clone(),
                    crate::engine::execution::OutputMode::Append,
                )?;
                let batch = arrow::array::RecordBatch::try_from_iter([(
                    "plan",
                    Arc::new(arrow::array::StringArray::from(vec![text])) as arrow::array::ArrayRef,
                )])?;
                self.ctx.read_batch(batch).map_err(Error::from_planning)
            }
            _ => {
                let (state, plan) = df.into_parts();
                let plan = crate::plan::sql_names::rename(plan)?;
                let plan = crate::plan::spark_names::assert_messages_in(plan)
                    .and_then(crate::plan::spark_division::in_plan)
                    .map_err(Error::from_planning)?;
                Ok(DataFrame::new(state, plan))
            }
        }
    }

    /// `spark.table(name)`.
    pub fn table(&self, name: &str) -> Result<DataFrame> {
        block_on(self.ctx.table(name))?.map_err(|e| match e {
            datafusion::error::DataFusionError::Plan(_) => Error::table_not_found(name),
            other => Error::from_planning(other),
        })
    }

    /// `df.createOrReplaceTempView(name)`.
    pub fn create_or_replace_temp_view(&self, name: &str, df: DataFrame) -> Result<()> {
        self.ctx.deregister_table(name)?;
        self.ctx.register_table(name, df.into_view())?;
        Ok(())
    }

    /// The column names of every table and view (what SQL identifiers may name).
    fn column_names(&self) -> Result<Vec<String>> {
        let catalog = self.spark_catalog()?;
        let mut names = Vec::new();
        for schema in catalog.schema_names() {
            let Some(schema) = catalog.schema(&schema) else {
                continue;
            };
            for table in schema.table_names() {
                if let Some(t) = block_on(schema.table(&table))?.map_err(Error::from_planning)? {
                    names.extend(t.schema().fields().iter().map(|f| f.name().clone()));
                }
            }
        }
        Ok(names)
    }

    /// `CREATE DATABASE name`: a schema of Spark's catalog (no-op if it exists).
    pub fn create_database(&self, name: &str) -> Result<()> {
        let catalog = self.spark_catalog()?;
        if catalog.schema(name).is_none() {
            catalog.register_schema(name, crate::table_names::CaseInsensitiveSchema::new())?;
        }
        Ok(())
    }

    /// `DROP DATABASE name`: whether it existed.
    pub fn drop_database(&self, name: &str) -> Result<bool> {
        Ok(self
            .spark_catalog()?
            .deregister_schema(name, true)?
            .is_some())
    }

    /// The tables and views of database `name`, sorted.
    pub fn database_tables(&self, name: &str) -> Result<Vec<String>> {
        let mut names = self
            .spark_catalog()?
            .schema(name)
            .map(|s| s.table_names())
            .unwrap_or_default();
        names.sort();
        Ok(names)
    }

    /// `USE name`: the database unqualified table names resolve in.
    pub fn set_current_database(&self, name: &str) -> Result<()> {
        if self.spark_catalog()?.schema(name).is_none() {
            return Err(Error::analysis(
                "SCHEMA_NOT_FOUND",
                format!("[SCHEMA_NOT_FOUND] The schema `{SPARK_CATALOG}`.`{name}` cannot be found. Verify the spelling and correctness of the schema and catalog."),
            ));
        }
        let state = self.ctx.state_ref();
        state
            .write()
            .config_mut()
            .options_mut()
            .catalog
            .default_schema = name.to_string();
        Ok(())
    }

    /// The database unqualified names resolve in.
    pub fn current_database(&self) -> String {
        self.ctx
            .state()
            .config()
            .options()
            .catalog
            .default_schema
            .clone()
    }

    fn spark_catalog(&self) -> Result<Arc<dyn datafusion::catalog::CatalogProvider>> {
        self.ctx
            .catalog(SPARK_CATALOG)
            .ok_or_else(|| Error::Internal("no spark_catalog".into()))
    }

    /// `spark.catalog.dropTempView(name)`: whether it existed.
    pub fn drop_temp_view(&self, name: &str) -> Result<bool> {
        Ok(self.ctx.deregister_table(name)?.is_some())
    }

    /// `spark.createDataFrame(...)` from Arrow data.
    pub fn create_dataframe(
        &self,
        schema: SchemaRef,
        batches: Vec<RecordBatch>,
    ) -> Result<DataFrame> {
        let table = MemTable::try_new(schema, vec![batches])?;
        self.batch_df(Arc::new(table))
    }

    /// A batch DataFrame scanning `provider` under a relation name of its own.
    fn batch_df(&self, provider: Arc<dyn TableProvider>) -> Result<DataFrame> {
        let id = self
            .next_table_id
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let plan = LogicalPlanBuilder::scan(format!("df_{id}"), provider_as_source(provider), None)
            .and_then(|b| b.build())
            .map_err(Error::from_planning)?;
        Ok(DataFrame::new(self.state(), plan))
    }

    /// A batch DataFrame whose scans `planner` (user code: a Python data
    /// source) plans and reads.
    pub fn callback_df(
        &self,
        schema: SchemaRef,
        planner: Arc<dyn crate::sources::callback::ScanPlanner>,
    ) -> Result<DataFrame> {
        let table = crate::sources::callback::CallbackTable::new(schema, planner);
        self.batch_df(Arc::new(table))
    }

    /// A streaming DataFrame over sources `factory` makes (the bindings'
    /// own sources: a Python data source's stream).
    pub fn stream_of(&self, factory: Arc<dyn SourceFactory>) -> Result<DataFrame> {
        self.stream_df(factory)
    }

    fn stream_df(&self, factory: Arc<dyn SourceFactory>) -> Result<DataFrame> {
        let id = self
            .next_stream_id
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let table = provider_as_source(Arc::new(StreamTable::new(factory)));
        let plan = LogicalPlanBuilder::scan(format!("stream_{id}"), table, None)
            .and_then(|b| b.build())
            .map_err(Error::from_planning)?;
        Ok(DataFrame::new(self.state(), plan))
    }

    /// `sparklet.testing.MemoryStream(spark, schema)`.
    pub fn memory_stream(&self, schema: SchemaRef) -> Result<(Arc<MemoryStream>, DataFrame)> {
        let id = self
            .next_stream_id
            .load(std::sync::atomic::Ordering::SeqCst);
        let stream = Arc::new(MemoryStream::new(id, schema));
        let df = self.stream_df(Arc::new(MemoryStreamFactory(Arc::clone(&stream))))?;
        Ok((stream, df))
    }

    /// `spark.readStream.format(f).schema(s).options(o).load(path)`.
    pub fn read_stream(
        &self,
        format: &str,
        path: Option<&str>,
        schema: Option<SchemaRef>,
        options: &HashMap<String, String>,
    ) -> Result<DataFrame> {
        let options = lower_keys(options);
        let factory: Arc<dyn SourceFactory> = match format.to_ascii_lowercase().as_str() {
            "rate" => Arc::new(RateFactory::new(&options)?),
            "rate-micro-batch" => Arc::new(RateMicroBatchFactory::new(&options)?),
            "nexmark" => Arc::new(crate::sources::nexmark::NexmarkFactory::new(&options)?),
            "socket" => Arc::new(crate::sources::socket::SocketFactory::new(&options)?),
            "kafka" => Arc::new(crate::sources::kafka::KafkaFactory::new(&options)?),
            "delta" => {
                let path = path
                    .or(options.get("path").map(String::as_str))
                    .ok_or_else(|| {
                        Error::illegal_argument(
                            "'path' is not specified for the delta stream source",
                        )
                    })?;
                Arc::new(crate::delta::source::DeltaStreamFactory::new(
                    path, &options,
                )?)
            }
            f => {
                let fmt = FileFormat::parse(f).ok_or_else(|| unknown_format(format))?;
                let path = path
                    .or(options.get("path").map(String::as_str))
                    .ok_or_else(|| {
                        Error::illegal_argument(format!(
                            "'path' is not specified for the {format} stream source"
                        ))
                    })?;
                file::check_path_exists(path)?;
                let schema = match (fmt, schema) {
                    (FileFormat::Text, s) => formats::text::schema_of(s)?,
                    (_, Some(s)) => s,
                    (_, None) if self.conf.get_bool(keys::SCHEMA_INFERENCE, false) => {
                        let opts = ReadOptions::from_options(&options)?;
                        infer_schema(fmt, &file::list_files(path, true, None)?, &opts)?
                    }
                    (_, None) => {
                        return Err(Error::illegal_argument(
                            "Schema must be specified when creating a streaming source DataFrame. If some files already exist in the directory, then depending on the file format you may be able to create a static DataFrame on that directory with 'spark.read.load(directory)' and infer schema from it.",
                        ))
                    }
                };
                Arc::new(FileStreamFactory::new(fmt, path, schema, &options)?)
            }
        };
        self.stream_df(factory)
    }

    /// The state data sources (`statestore`, `state-metadata`) over the
    /// checkpoint at the path, or None for another format.
    fn read_state(
        &self,
        format: &str,
        paths: &[String],
        options: &HashMap<String, String>,
    ) -> Result<Option<arrow::array::RecordBatch>> {
        let format = format.to_ascii_lowercase();
        if format != "statestore" && format != "state-metadata" {
            return Ok(None);
        }
        let path = paths
            .first()
            .cloned()
            .or_else(|| options.get("path").cloned())
            .ok_or_else(|| {
                Error::illegal_argument(format!(
                    "format(\"{format}\") needs the checkpoint folder: load(path)"
                ))
            })?;
        let root = std::path::Path::new(&path);
        let commits = crate::checkpoint::CheckpointPaths::new(root, true).commits();
        if format == "statestore" && !commits.is_dir() {
            return Err(crate::state::reader::no_committed_batch(root));
        }
        if !commits.is_dir() {
            return Err(Error::illegal_argument(format!(
                "{path} is not a streaming query's checkpoint (no commits folder)"
            )));
        }
        Ok(Some(if format == "statestore" {
            crate::state::reader::read_state(root, options)?
        } else {
            crate::state::reader::read_state_metadata(root)?
        }))
    }

    /// `spark.read.format(f).schema(s).options(o).load(paths)`.
    pub fn read(
        &self,
        format: &str,
        paths: &[String],
        schema: Option<SchemaRef>,
        options: &HashMap<String, String>,
    ) -> Result<DataFrame> {
        let options = lower_keys(options);
        if let Some(batch) = self.read_state(format, paths, &options)? {
            let table = MemTable::try_new(batch.schema(), vec![vec![batch]])?;
            return self.batch_df(Arc::new(table));
        }
        if format.eq_ignore_ascii_case("kafka") {
            let (schema, batches) = crate::sources::kafka::read_batch(&options)?;
            return self.batch_df(Arc::new(MemTable::try_new(schema, vec![batches])?));
        }
        if format.eq_ignore_ascii_case("nexmark") {
            let (schema, batches) =
                crate::sources::nexmark::NexmarkFactory::new(&options)?.read_all()?;
            return self.batch_df(Arc::new(MemTable::try_new(schema, vec![batches])?));
        }
        if format.eq_ignore_ascii_case("delta") {
            let [path] = paths else {
                return Err(Error::illegal_argument(
                    "a Delta read takes one path".to_string(),
                ));
            };
            let feed = ["readchangefeed", "readchangedata"].iter().any(|k| {
                options
                    .get(*k)
                    .is_some_and(|v| v.eq_ignore_ascii_case("true"))
            });
            if feed {
                let (schema, batches) =
                    crate::delta::source::read_change_feed(path, &lower_keys(&options))?;
                return self.batch_df(Arc::new(MemTable::try_new(schema, vec![batches])?));
            }
            let state = self.state();
            let provider =
                crate::runtime::block_on(crate::delta::provider(&state, path, &options))??;
            return self.batch_df(provider);
        }
        let (schema, input) = load_files(format, paths, schema, &options)?;
        let refresh = crate::sources::refresh::RefreshPolicy::from_options(&options)?;
        if !refresh.enabled() {
            return self.batch_df(input.provider);
        }
        // beyond Spark: a static side that follows its files (see docs/stateful-operators.md)
        let (format, paths) = (format.to_string(), paths.to_vec());
        let reload_schema = Arc::clone(&schema);
        let (list_format, list_paths, list_options) =
            (format.clone(), paths.clone(), options.clone());
        let reload = move || {
            load_files(&format, &paths, Some(Arc::clone(&reload_schema)), &options)
                .map(|(_, input)| input.provider)
        };
        // a file that cannot be listed right now counts as a change
        let list = move || {
            discover_files(&list_format, &list_paths, &list_options)
                .map(|fs| {
                    fs.into_iter()
                        .map(|f| (f.path, f.size, f.mtime_ms))
                        .collect()
                })
                .unwrap_or_default()
        };
        let table = crate::sources::refresh::RefreshingTable::new(
            schema,
            input.provider,
            refresh,
            reload,
            list,
        );
        self.batch_df(Arc::new(table))
    }

    /// Where a query's checkpoint goes: the writer's `checkpointLocation`,
    /// else `spark.sql.streaming.checkpointLocation/<queryName or uuid>`, else
    /// a temporary folder for sinks that allow one (removed at stop).
    fn checkpoint_for(
        &self,
        location: Option<&str>,
        name: Option<&str>,
        temp_allowed: bool,
    ) -> Result<CheckpointSpec> {
        if let Some(dir) = location {
            return Ok(CheckpointSpec {
                dir: file::absolute(dir)?,
                temporary: false,
            });
        }
        if let Some(root) = self.conf.get(keys::CHECKPOINT_LOCATION) {
            let sub = name
                .map(str::to_string)
                .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
            return Ok(CheckpointSpec {
                dir: file::absolute(&root)?.join(sub),
                temporary: false,
            });
        }
        if temp_allowed {
            return Ok(CheckpointSpec {
                dir: std::env::temp_dir()
                    .join(format!("sparklet-temporary-{}", uuid::Uuid::new_v4())),
                temporary: true,
            });
        }
        Err(Error::analysis(
            "CHECKPOINT_LOCATION_NOT_SPECIFIED",
            "checkpointLocation must be specified either through option(\"checkpointLocation\", ...) or SparkSession.conf.set(\"spark.sql.streaming.checkpointLocation\", ...)",
        ))
    }

    /// `df.writeStream....start()`.
    pub fn start_query(
        &self,
        df: DataFrame,
        sink: SinkSpec,
        opts: QueryOptions,
    ) -> Result<StreamingQuery> {
        let QueryOptions {
            name,
            trigger,
            output_mode,
            checkpoint_location,
            late_rows_table,
            clock,
            async_progress,
        } = opts;
        let (_, plan) = df.into_parts();
        let plan = crate::catalog::inline_stream_views(plan)?;
        let schema: SchemaRef = Arc::new(plan.schema().as_arrow().clone());
        let temp_allowed = !matches!(
            sink,
            SinkSpec::File { .. } | SinkSpec::Kafka(_) | SinkSpec::Delta { .. }
        );
        let checkpoint = self.checkpoint_for(
            checkpoint_location.as_deref(),
            name.as_deref(),
            temp_allowed,
        )?;
        // memory sinks' tables, registered once the query started (as
        // Spark's): a query refused at start leaves an active one's alone
        let mut tables = Vec::new();
        let sink: Box<dyn Sink> = match sink {
            SinkSpec::Console {
                num_rows,
                truncate,
                out,
            } => Box::new(crate::sinks::console::ConsoleSink::new(
                num_rows,
                truncate,
                self.conf.get(keys::SESSION_TIME_ZONE),
                out,
            )),
            SinkSpec::Noop => Box::new(crate::sinks::NoopSink),
            SinkSpec::Kafka(options) => Box::new(crate::sinks::kafka::KafkaSink::new(&options)?),
            SinkSpec::ForeachBatch(cb) => {
                Box::new(crate::sinks::foreach_batch::ForeachBatchSink::new(cb))
            }
            SinkSpec::Foreach(rows, end) => {
                Box::new(crate::sinks::foreach_batch::ForeachSink::new(rows, end))
            }
            SinkSpec::Memory => {
                let table_name = name.as_deref().ok_or_else(|| {
                    Error::analysis(
                        "MEMORY_SINK_QUERY_NAME_REQUIRED",
                        "queryName must be specified for memory sink",
                    )
                })?;
                let table = SinkTable::new(Arc::clone(&schema))?;
                tables.push((table_name.to_string(), Arc::clone(&table)));
                Box::new(crate::sinks::memory::MemorySink::new(
                    table,
                    output_mode == OutputMode::Complete,
                    Arc::clone(&schema),
                ))
            }
            SinkSpec::Delta {
                path,
                partition_by,
                options,
            } => {
                let path =
                    path.ok_or_else(|| Error::illegal_argument("'path' is not specified"))?;
                if output_mode == OutputMode::Update {
                    return Err(Error::analysis(
                        "DELTA_UNSUPPORTED_OUTPUT_MODE",
                        "Data source org.apache.spark.sql.delta.sources.DeltaDataSource does not support Update output mode",
                    ));
                }
                Box::new(crate::delta::sink::DeltaSink::new(
                    path,
                    partition_by,
                    lower_keys(&options),
                    output_mode == OutputMode::Complete,
                ))
            }
            SinkSpec::File {
                format,
                path,
                partition_by,
                options,
            } => {
                let fmt = FileFormat::parse(&format).ok_or_else(|| unknown_format(&format))?;
                let path =
                    path.ok_or_else(|| Error::illegal_argument("'path' is not specified"))?;
                if output_mode != OutputMode::Append {
                    return Err(Error::analysis(
                        "STREAMING_OUTPUT_MODE.UNSUPPORTED_DATASOURCE",
                        format!(
                            "Data source {format} does not support {output_mode:?} output mode"
                        ),
                    ));
                }
                Box::new(crate::sinks::file::FileSink::new(
                    fmt,
                    &path,
                    partition_by,
                    &lower_keys(&options),
                    self.conf.get_i64(keys::FILE_SINK_COMPACT_INTERVAL, 10),
                    &schema,
                    self.time_zone(),
                )?)
            }
        };
        // beyond Spark: rows dropped as late can be kept in a queryable table
        let late_rows: Option<Box<dyn Sink>> = match late_rows_table {
            Some(table_name) => {
                let empty = Arc::new(Schema::empty());
                let table = SinkTable::new(Arc::clone(&empty))?;
                tables.push((table_name, Arc::clone(&table)));
                Some(Box::new(crate::sinks::memory::MemorySink::new(
                    table, false, empty,
                )))
            }
            None => None,
        };
        let query = execution::start(
            self.state(),
            plan,
            sink,
            StartOptions {
                name,
                trigger,
                output_mode,
                checkpoint,
                late_rows,
                clock,
                async_progress,
            },
            &self.conf,
            &self.streams,
        )?;
        for (name, table) in tables {
            table.register(&name, &self.ctx)?;
        }
        Ok(query)
    }

    /// `spark.stop()`: stop every query and the web UI.
    pub fn stop(&self) {
        self.stop_within(None);
    }

    /// [`Self::stop`], waiting up to `timeout` for each query; the ids of
    /// those still busy then (they stop at their next step).
    pub fn stop_within(&self, timeout: Option<std::time::Duration>) -> Vec<String> {
        let busy = self.streams.stop_all_within(timeout);
        self.ui.lock().take();
        busy
    }
}

/// Infer a schema from existing files (batch reads; streaming reads with
/// `spark.sql.streaming.schemaInference`).
fn infer_schema(
    fmt: FileFormat,
    files: &[file::FileEntry],
    opts: &ReadOptions,
) -> Result<SchemaRef> {
    let first = files.first().ok_or_else(|| {
        Error::analysis(
            "UNABLE_TO_INFER_SCHEMA",
            format!("Unable to infer schema for {fmt:?}. It must be specified manually."),
        )
    })?;
    let read = |f: &file::FileEntry| -> Result<String> {
        let bytes =
            std::fs::read(&f.path).map_err(|e| Error::io(f.path.display().to_string(), e))?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    };
    let schema = match fmt {
        FileFormat::Text => return Ok(formats::text::text_schema()),
        FileFormat::Json => {
            let mut text = String::new();
            for f in files {
                text.push_str(&read(f)?);
                text.push('\n');
            }
            if opts.multi_line {
                // each file is its own document
                let mut merged: Vec<Schema> = Vec::new();
                for f in files {
                    merged.push(formats::json::infer_schema(&read(f)?, opts)?);
                }
                Schema::try_merge(merged)?
            } else {
                formats::json::infer_schema(&text, opts)?
            }
        }
        FileFormat::Csv => formats::csv::infer_schema(&read(first)?, opts),
        FileFormat::Parquet | FileFormat::Orc => {
            let of = |f: &file::FileEntry| match fmt {
                FileFormat::Orc => formats::orc::schema_of(&f.path),
                _ => parquet_schema(f),
            };
            if !opts.merge_schema {
                of(first)?
            } else {
                let schemas = files.iter().map(of).collect::<Result<Vec<_>>>()?;
                Schema::try_merge(schemas).map_err(|e| {
                    Error::analysis(
                        "CANNOT_MERGE_SCHEMAS",
                        format!("Failed merging schemas: {e}"),
                    )
                })?
            }
        }
    };
    Ok(Arc::new(schema))
}

/// The Arrow schema of a Parquet file's footer.
fn parquet_schema(f: &file::FileEntry) -> Result<Schema> {
    let file =
        std::fs::File::open(&f.path).map_err(|e| Error::io(f.path.display().to_string(), e))?;
    let builder = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
        .map_err(|e| Error::Input {
            condition: "FAILED_READ_FILE.CANNOT_READ_FILE_FOOTER".into(),
            message: format!("Could not read footer for file: {}: {e}", f.path.display()),
        })?;
    Ok(builder.schema().as_ref().clone())
}

/// Discover and read the files of a batch read: the schema (with partition
/// columns) and the data.
fn load_files(
    format: &str,
    paths: &[String],
    schema: Option<SchemaRef>,
    options: &HashMap<String, String>,
) -> Result<(SchemaRef, crate::sources::BatchInput)> {
    let fmt = FileFormat::parse(format).ok_or_else(|| unknown_format(format))?;
    let opts = ReadOptions::from_options(options)?;
    let files = discover_files(format, paths, options)?;
    // partition folders (k=v) of a single root become columns
    let root = match paths {
        [one] if fmt != FileFormat::Text => Some(file::absolute(one)?),
        _ => None,
    };
    let parts = root
        .as_ref()
        .map(|r| formats::partitions::columns(r, &files, schema.as_ref()))
        .unwrap_or_default();
    let schema = match (fmt, schema) {
        (FileFormat::Text, s) => formats::text::schema_of(s)?,
        (_, Some(s)) => formats::partitions::with_user_partitions(&s, &parts),
        (_, None) => {
            formats::partitions::with_partitions(&*infer_schema(fmt, &files, &opts)?, &parts)
        }
    };
    let input = match (&root, parts.is_empty()) {
        (Some(root), false) => file::read_partitioned(fmt, root, &files, &schema, &parts, &opts)?,
        _ => file::read_files(fmt, &files, &schema, &opts)?,
    };
    Ok((schema, input))
}

/// The files a batch read of `paths` covers, the largest first (Spark packs
/// a scan's files into partitions so, and its rows come in that order).
fn discover_files(
    format: &str,
    paths: &[String],
    options: &HashMap<String, String>,
) -> Result<Vec<file::FileEntry>> {
    let recursive = options
        .get("recursivefilelookup")
        .is_some_and(|v| v.eq_ignore_ascii_case("true"));
    let filter = options
        .get("pathglobfilter")
        .map(|p| {
            glob::Pattern::new(p)
                .map_err(|e| Error::illegal_argument(format!("Invalid pathGlobFilter '{p}': {e}")))
        })
        .transpose()?;
    if paths.is_empty() {
        return Err(Error::illegal_argument(format!(
            "'path' is not specified for the {format} reader"
        )));
    }
    let mut files = Vec::new();
    for p in paths {
        file::check_path_exists(p)?;
        let root = file::absolute(p)?;
        // a streaming file sink's output: only files its manifest commits
        match crate::sinks::file::committed_files(&root)? {
            Some(committed) => {
                for f in committed.iter().filter(|f| f.exists()) {
                    files.push(file::file_entry(f)?);
                }
            }
            None => files.extend(file::list_files(p, recursive, filter.as_ref())?),
        }
    }
    files.sort_by(|a, b| b.size.cmp(&a.size).then_with(|| a.path.cmp(&b.path)));
    Ok(files)
}

/// DataFusion's logical optimizer rules, the pair that pushes struct field
/// access towards the scan guarded (`plan/struct_leaves.rs`).
/// DataFusion's physical rules with the adaptive joins and Spark's
/// short-circuit `AND`/`OR` among them.
fn physical_optimizer_rules(
) -> Vec<Arc<dyn datafusion::physical_optimizer::PhysicalOptimizerRule + Send + Sync>> {
    crate::plan::short_circuit::with_short_circuits(
        crate::plan::adaptive_join::with_adaptive_joins(
            datafusion::physical_optimizer::optimizer::PhysicalOptimizer::new().rules,
            Default::default(),
        ),
    )
}

fn logical_optimizer_rules() -> Vec<Arc<dyn datafusion::optimizer::OptimizerRule + Send + Sync>> {
    use crate::plan::struct_leaves::{UnlessStructShadowed, RULES};
    let rules = datafusion::optimizer::Optimizer::new()
        .rules
        .into_iter()
        .map(
            |r| -> Arc<dyn datafusion::optimizer::OptimizerRule + Send + Sync> {
                if RULES.contains(&r.name()) {
                    Arc::new(UnlessStructShadowed(r))
                } else {
                    r
                }
            },
        );
    // `spark_partition_id()` becomes a column first, so later rules see it
    let ids: Arc<dyn datafusion::optimizer::OptimizerRule + Send + Sync> =
        Arc::new(crate::plan::partitions::PartitionIdRule);
    std::iter::once(ids).chain(rules).collect()
}
