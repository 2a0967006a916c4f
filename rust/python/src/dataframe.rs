//! `DataFrame` bindings: argument conversion only; the operations live in
//! `sparklet_engine::dataframe`.

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::dataframe::DataFrame;
use datafusion::logical_expr::Expr;
use pyo3::prelude::*;
use pyo3_arrow::PySchema;
use sparklet_engine::{catalog, dataframe, runtime, Error, Session};

use crate::errors::IntoPyResult;
use crate::expr::PyExpr;

/// A DataFrame handle (an unexecuted plan).
#[pyclass(name = "DataFrame", module = "sparklet._native", frozen)]
pub struct PyDataFrame {
    pub session: Arc<Session>,
    pub df: DataFrame,
}

impl PyDataFrame {
    fn wrap(&self, df: DataFrame) -> PyDataFrame {
        PyDataFrame {
            session: Arc::clone(&self.session),
            df,
        }
    }

    /// The plan under the session's settings as they are now (Spark reads
    /// them as it analyses each call).
    fn current(&self) -> DataFrame {
        self.session.with_current_config(self.df.clone())
    }

    fn batch_only(&self, what: &str) -> PyResult<()> {
        if catalog::is_streaming(self.df.logical_plan()) {
            return Err(crate::errors::to_py(Error::analysis(
                "QUERY_MUST_USE_WRITESTREAM",
                format!("Queries with streaming sources must be executed with writeStream.start(); ({what})"),
            )));
        }
        Ok(())
    }
}

fn exprs(args: Vec<PyRef<'_, PyExpr>>) -> Vec<Expr> {
    args.iter().map(|e| e.expr.clone()).collect()
}

#[pymethods]
impl PyDataFrame {
    fn schema(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let schema = Arc::new(self.df.schema().as_arrow().clone());
        Ok(PySchema::new(schema).into_pyarrow(py)?.unbind())
    }

    fn is_streaming(&self) -> bool {
        catalog::is_streaming(self.df.logical_plan())
    }

    fn select(&self, cols: Vec<PyRef<'_, PyExpr>>) -> PyResult<PyDataFrame> {
        Ok(self.wrap(dataframe::select(self.current(), exprs(cols)).py()?))
    }

    fn filter(&self, cond: PyRef<'_, PyExpr>) -> PyResult<PyDataFrame> {
        Ok(self.wrap(dataframe::filter(self.current(), cond.expr.clone()).py()?))
    }

    /// `filter("text")`: the condition parsed as SQL against this frame.
    fn filter_sql(&self, text: &str) -> PyResult<PyDataFrame> {
        Ok(self.wrap(dataframe::filter_sql(self.current(), text).py()?))
    }

    fn parse_sql(&self, text: &str) -> PyResult<PyExpr> {
        Ok(PyExpr::new(
            dataframe::parse_sql(&self.current(), text).py()?,
        ))
    }

    fn with_column(&self, name: &str, e: PyRef<'_, PyExpr>) -> PyResult<PyDataFrame> {
        Ok(self.wrap(dataframe::with_column(self.current(), name, e.expr.clone()).py()?))
    }

    fn with_column_renamed(&self, old: &str, new: &str) -> PyResult<PyDataFrame> {
        Ok(self.wrap(dataframe::with_column_renamed(self.current(), old, new).py()?))
    }

    fn drop(&self, names: Vec<String>) -> PyResult<PyDataFrame> {
        Ok(self.wrap(dataframe::drop(self.current(), &names).py()?))
    }

    fn alias(&self, name: &str) -> PyResult<PyDataFrame> {
        Ok(self.wrap(
            self.df
                .clone()
                .alias(name)
                .map_err(Error::from_planning)
                .py()?,
        ))
    }

    /// `df["name"]`, qualified by the DataFrame's relation.
    fn column(&self, name: &str) -> PyExpr {
        PyExpr::new(dataframe::qualified_column(&self.df, name))
    }

    /// `df.join(other, on, how)`: `using` column names or a `condition`.
    #[pyo3(signature = (other, using, condition, how))]
    fn join(
        &self,
        other: PyRef<'_, PyDataFrame>,
        using: Option<Vec<String>>,
        condition: Option<PyRef<'_, PyExpr>>,
        how: &str,
    ) -> PyResult<PyDataFrame> {
        let on = match using {
            Some(keys) => dataframe::JoinOn::Using(keys),
            None => dataframe::JoinOn::Condition(condition.map(|c| c.expr.clone())),
        };
        Ok(self.wrap(dataframe::join(self.current(), other.df.clone(), on, how).py()?))
    }

    fn union(&self, other: PyRef<'_, PyDataFrame>) -> PyResult<PyDataFrame> {
        Ok(self.wrap(dataframe::union(self.current(), other.df.clone()).py()?))
    }

    fn union_by_name(
        &self,
        other: PyRef<'_, PyDataFrame>,
        allow_missing: bool,
    ) -> PyResult<PyDataFrame> {
        Ok(self
            .wrap(dataframe::union_by_name(self.current(), other.df.clone(), allow_missing).py()?))
    }

    /// `repartition(n, *cols)` / `coalesce(n)`: `n` output partitions, by
    /// the hash of `cols` or round robin (a batch writer writes a file
    /// each).
    /// `repartition`/`coalesce`/`repartitionByRange`/`repartitionById`
    /// (`how`: hash, even, coalesce, range, id) into `n` partitions.
    fn repartition(
        &self,
        n: usize,
        how: &str,
        cols: Vec<PyRef<'_, PyExpr>>,
    ) -> PyResult<PyDataFrame> {
        use dataframe::Partitioning;
        let how = match how {
            "hash" => Partitioning::Hash(exprs(cols)),
            "coalesce" => Partitioning::Coalesce,
            "range" => Partitioning::Range(cols.iter().map(|c| c.sort_expr()).collect()),
            "id" => match cols.first() {
                Some(c) => Partitioning::ById(c.expr.clone()),
                None => return Err(Error::illegal_argument("repartitionById needs a column")).py(),
            },
            _ => Partitioning::Even,
        };
        Ok(self.wrap(dataframe::repartition(self.df.clone(), n, how).py()?))
    }

    /// `offset(n)`: the rows after the first `n`.
    fn offset(&self, n: usize) -> PyResult<PyDataFrame> {
        Ok(self.wrap(
            self.df
                .clone()
                .limit(n, None)
                .map_err(Error::from_planning)
                .py()?,
        ))
    }

    fn limit(&self, n: usize) -> PyResult<PyDataFrame> {
        Ok(self.wrap(
            self.df
                .clone()
                .limit(0, Some(n))
                .map_err(Error::from_planning)
                .py()?,
        ))
    }

    fn distinct(&self) -> PyResult<PyDataFrame> {
        // on a stream, distinct() is dropDuplicates() (Spark's Deduplicate)
        Ok(self.wrap(dataframe::drop_duplicates(self.current(), None, false).py()?))
    }

    #[pyo3(signature = (subset, within_watermark))]
    fn drop_duplicates(
        &self,
        subset: Option<Vec<String>>,
        within_watermark: bool,
    ) -> PyResult<PyDataFrame> {
        Ok(self.wrap(dataframe::drop_duplicates(self.current(), subset, within_watermark).py()?))
    }

    fn sort(&self, cols: Vec<PyRef<'_, PyExpr>>) -> PyResult<PyDataFrame> {
        let sorts = cols.iter().map(|c| c.sort_expr()).collect();
        Ok(self.wrap(dataframe::sort(self.df.clone(), sorts).py()?))
    }

    /// `groupBy`/`cube`/`rollup`/`groupingSets` (`kind`; `sets` as key
    /// positions) then `agg`.
    #[pyo3(signature = (group, aggs, kind="groupby", sets=None))]
    fn aggregate(
        &self,
        group: Vec<PyRef<'_, PyExpr>>,
        aggs: Vec<PyRef<'_, PyExpr>>,
        kind: &str,
        sets: Option<Vec<Vec<usize>>>,
    ) -> PyResult<PyDataFrame> {
        let grouping = sparklet_engine::grouping::Grouping::parse(kind, sets).py()?;
        Ok(self
            .wrap(dataframe::group_agg(self.current(), exprs(group), exprs(aggs), &grouping).py()?))
    }

    /// `groupBy(group).pivot(pivot, values).agg(aggs)`, the outputs named
    /// `names` (value-major).
    fn pivot(
        &self,
        group: Vec<PyRef<'_, PyExpr>>,
        pivot: PyRef<'_, PyExpr>,
        values: Vec<PyRef<'_, PyExpr>>,
        aggs: Vec<PyRef<'_, PyExpr>>,
        names: Vec<String>,
    ) -> PyResult<PyDataFrame> {
        Ok(self.wrap(
            sparklet_engine::grouping::pivot(
                self.current(),
                exprs(group),
                pivot.expr.clone(),
                exprs(values),
                exprs(aggs),
                names,
            )
            .py()?,
        ))
    }

    /// `groupBy(keys).applyInPandasWithState` (`processor`:
    /// `transformWithStateInPandas`, or `transformWithState` with `rows`;
    /// `ttl` when a state variable has one; `properties` Spark's
    /// `operatorProperties` JSON; `event_time_column` its
    /// `eventTimeColumnName`):
    /// `runner` calls the user's code for a batch's groups (see
    /// `sparklet.sql.streaming.state` and `.stateful_processor`).
    #[pyo3(signature = (keys, runner, output, state, timeout, processor=false, ttl=false, rows=false, properties=None, event_time_column=None))]
    #[allow(clippy::too_many_arguments)]
    fn group_state(
        &self,
        keys: Vec<String>,
        runner: Py<PyAny>,
        output: PySchema,
        state: PySchema,
        timeout: &str,
        processor: bool,
        ttl: bool,
        rows: bool,
        properties: Option<String>,
        event_time_column: Option<String>,
    ) -> PyResult<PyDataFrame> {
        use sparklet_engine::exec::group_state::{Flavor, ProcessorSettings};
        let func = Arc::new(crate::group_state::PyGroupFunction { runner });
        let state = state.into_inner().fields().iter().cloned().collect();
        let flavor = if processor {
            Flavor::Processor { ttl, rows }
        } else {
            Flavor::PandasWithState
        };
        Ok(self.wrap(
            dataframe::group_state(
                self.current(),
                keys,
                func,
                output.into_inner(),
                state,
                timeout,
                flavor,
                properties.map(|properties| ProcessorSettings {
                    properties,
                    event_time_column,
                }),
            )
            .py()?,
        ))
    }

    /// `mapInPandas` / `mapInArrow`: `runner(table)` returns the output
    /// table of a partition's input (see `sparklet.sql.dataframe`).
    fn map_batches(
        &self,
        runner: Py<PyAny>,
        output: PySchema,
        arrow: bool,
    ) -> PyResult<PyDataFrame> {
        let mapper = Arc::new(crate::udf::PyBatchMapper { runner });
        let kind = if arrow { "MapInArrow" } else { "MapInPandas" };
        Ok(self
            .wrap(dataframe::map_batches(self.current(), mapper, output.into_inner(), kind).py()?))
    }

    /// `observe(name, *exprs)` on a stream.
    fn observe(&self, name: String, exprs_: Vec<PyRef<'_, PyExpr>>) -> PyResult<PyDataFrame> {
        Ok(self.wrap(dataframe::observe(self.current(), name, exprs(exprs_)).py()?))
    }

    /// `intersect`, `intersectAll`, `subtract`, `exceptAll` (by method name).
    fn set_op(&self, other: PyRef<'_, PyDataFrame>, op: &str) -> PyResult<PyDataFrame> {
        use sparklet_engine::set_ops;
        let op = set_ops::SetOp::parse(op).py()?;
        Ok(self.wrap(set_ops::set_op(self.current(), other.df.clone(), op).py()?))
    }

    /// `persist()`: this plan read through a table computed at the first
    /// action and kept.
    fn cache(&self) -> PyResult<PyDataFrame> {
        self.batch_only("cache")?;
        Ok(self.wrap(sparklet_engine::cached_table::cache(self.current()).py()?))
    }

    /// `checkpoint()`: computed now, the plan replaced by its result.
    fn checkpoint(&self, py: Python<'_>) -> PyResult<PyDataFrame> {
        self.batch_only("checkpoint")?;
        let df = self.session.at_current_conf(self.current());
        let done = crate::run::engine(py, || {
            runtime::block_on(sparklet_engine::cached_table::checkpoint(df))?
        })?;
        Ok(self.wrap(done))
    }

    /// The optimized plan with output names removed: two DataFrames with
    /// the same text compute the same rows (`sameSemantics`).
    fn semantic_plan(&self) -> PyResult<String> {
        use datafusion::common::tree_node::{Transformed, TreeNode};
        let plan = self
            .df
            .clone()
            .into_optimized_plan()
            .map_err(Error::from_planning)
            .py()?;
        let unnamed = plan
            .transform_up(|p| p.map_expressions(|e| Ok(Transformed::yes(e.unalias_nested().data))))
            .map_err(Error::from_planning)
            .py()?;
        Ok(format!("{}", unnamed.data.display_indent()))
    }

    fn with_watermark(&self, column: &str, delay: &str) -> PyResult<PyDataFrame> {
        Ok(self.wrap(dataframe::with_watermark(self.current(), column, delay).py()?))
    }

    fn create_or_replace_temp_view(&self, name: &str) -> PyResult<()> {
        self.session
            .create_or_replace_temp_view(name, self.current())
            .py()
    }

    /// Execute a batch DataFrame into a pyarrow Table (the GIL is released
    /// while DataFusion runs).
    fn collect(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.batch_only("collect")?;
        let df = self.session.at_current_conf(self.current());
        let (schema, batches) = crate::run::engine(py, || dataframe::collect(df))?;
        Ok(crate::arrow_table::to_pyarrow(py, batches, schema)?.unbind())
    }

    /// The name `df.alias(name)` gave, if the plan ends in it (a merge's
    /// source alias).
    fn plan_alias(&self) -> Option<String> {
        match self.df.logical_plan() {
            datafusion::logical_expr::LogicalPlan::SubqueryAlias(a) => {
                Some(a.alias.table().to_string())
            }
            _ => None,
        }
    }

    /// The plan under its outer projections (`zip` needs both sides' equal).
    fn projection_base(&self) -> String {
        use datafusion::logical_expr::LogicalPlan;
        let mut plan = self.df.logical_plan();
        loop {
            match plan {
                LogicalPlan::Projection(p) => plan = p.input.as_ref(),
                LogicalPlan::SubqueryAlias(a) => plan = a.input.as_ref(),
                _ => break,
            }
        }
        format!("{}", plan.display_indent())
    }

    /// The result partition by partition, each a pyarrow Table (`df.rdd`).
    fn collect_partitions(&self, py: Python<'_>) -> PyResult<Vec<Py<PyAny>>> {
        self.batch_only("rdd")?;
        let df = self.session.at_current_conf(self.current());
        let (schema, parts) = crate::run::engine(py, || dataframe::collect_partitioned(df))?;
        parts
            .into_iter()
            .map(|b| Ok(crate::arrow_table::to_pyarrow(py, b, Arc::clone(&schema))?.unbind()))
            .collect()
    }

    /// How many partitions the plan has (planned, not run).
    fn num_partitions(&self, py: Python<'_>) -> PyResult<usize> {
        let df = self.session.at_current_conf(self.current());
        crate::run::engine(py, || {
            runtime::block_on(df.create_physical_plan())
                .and_then(|p| p.map_err(Error::from_planning))
                .map(|p| p.properties().partitioning.partition_count())
        })
    }

    /// `df.write.format("kafka").save()`: every row a record (options'
    /// keys lower-cased); returns when all are acknowledged.
    fn write_kafka(&self, py: Python<'_>, options: HashMap<String, String>) -> PyResult<()> {
        self.batch_only("write")?;
        let df = self.session.at_current_conf(self.current());
        crate::run::engine(py, || {
            let writer = sparklet_engine::sinks::kafka::KafkaWriter::new(&options)?;
            let (_, batches) = dataframe::collect(df)?;
            writer.write(&batches)
        })
    }

    /// `df.write` to files: `format` (parquet, json, csv, text) under
    /// `path` with Spark's save `mode`, `partition_by` folders and options
    /// (lower-case keys).
    fn write_files(
        &self,
        py: Python<'_>,
        format: &str,
        path: &str,
        mode: &str,
        partition_by: Vec<String>,
        options: HashMap<String, String>,
    ) -> PyResult<()> {
        use sparklet_engine::sinks::{batch_files, file_writer::FileWriter};
        self.batch_only("write")?;
        if format.eq_ignore_ascii_case("delta") {
            let df = self.session.at_current_conf(self.current());
            return crate::run::engine(py, || {
                let (schema, batches) = dataframe::collect(df)?;
                runtime::block_on(sparklet_engine::delta::write(
                    path,
                    mode,
                    partition_by,
                    &options,
                    &schema,
                    batches,
                ))?
            });
        }
        let fmt = sparklet_engine::sources::file::FileFormat::parse(format).ok_or_else(|| {
            Error::analysis(
                "DATA_SOURCE_NOT_FOUND",
                format!("[DATA_SOURCE_NOT_FOUND] Failed to find the data source: {format}."),
            )
        });
        let fmt = fmt.map_err(crate::errors::to_py)?;
        let mode = batch_files::SaveMode::parse(mode).map_err(crate::errors::to_py)?;
        let df = self.session.at_current_conf(self.current());
        let tz = self.session.time_zone();
        crate::run::engine(py, || {
            let (schema, partitions) = dataframe::collect_partitioned(df)?;
            let writer = FileWriter::new(fmt, partition_by, &options, &schema, tz)?;
            batch_files::write(&writer, path, mode, &schema, &partitions).map(|_| ())
        })
    }

    /// Execute and discard the rows; the row count (the batch side of benchmarks).
    fn run_discard(&self, py: Python<'_>) -> PyResult<usize> {
        self.batch_only("run_discard")?;
        let df = self.session.at_current_conf(self.current());
        crate::run::engine(py, || {
            dataframe::collect(df).map(|(_, b)| b.iter().map(|b| b.num_rows()).sum())
        })
    }

    fn count(&self, py: Python<'_>) -> PyResult<usize> {
        self.batch_only("count")?;
        let df = self.current();
        crate::run::engine(py, || {
            runtime::block_on(df.count()).and_then(|r| r.map_err(Error::from_execution))
        })
    }

    fn explain_string(&self, py: Python<'_>, extended: bool) -> PyResult<String> {
        let plan = self.df.logical_plan();
        let logical = format!("{}", plan.display_indent());
        if sparklet_engine::catalog::is_streaming(plan) {
            // the plan a query would run: stateful operators included
            let (state, plan) = self.current().into_parts();
            let running = crate::run::engine(py, || {
                sparklet_engine::engine::execution::explain(
                    state,
                    plan,
                    sparklet_engine::engine::execution::OutputMode::Append,
                )
            })?;
            return Ok(if extended {
                format!("== Parsed Logical Plan ==\n{logical}\n\n{running}")
            } else {
                running
            });
        }
        // the plan that would run (PySpark's `explain()` prints only it)
        let df = self.current();
        let physical = crate::run::engine(py, || {
            runtime::block_on(df.create_physical_plan())
                .and_then(|p| p.map_err(Error::from_planning))
        })?;
        let physical = format!(
            "== Physical Plan ==\n{}",
            datafusion::physical_plan::displayable(physical.as_ref()).indent(false)
        );
        if !extended {
            return Ok(physical);
        }
        let optimized = self
            .df
            .clone()
            .into_optimized_plan()
            .map_err(Error::from_planning)
            .py()?;
        Ok(format!(
            "== Parsed Logical Plan ==\n{logical}\n\n== Optimized Logical Plan ==\n{}\n\n{physical}",
            optimized.display_indent()
        ))
    }
}
