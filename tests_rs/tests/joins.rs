//! A batch hash join whose build side is chosen at run time
//! (`plan::adaptive_join`) returns what DataFusion's planned join returns,
//! whichever side turns out smaller and however the build side is held.

use std::sync::Arc;

use arrow::array::{Int64Array, RecordBatch};
use arrow::datatypes::{DataType, Field, Schema};
use arrow::util::pretty::pretty_format_batches;
use datafusion::datasource::MemTable;
use datafusion::execution::session_state::SessionStateBuilder;
use datafusion::physical_optimizer::optimizer::PhysicalOptimizer;
use datafusion::physical_plan::displayable;
use datafusion::prelude::{SessionConfig, SessionContext};
use sparklet_engine::plan::adaptive_join::{with_adaptive_joins, AdaptiveJoins};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// `rows` rows of (key, value): keys repeat every `keys` rows, values are
/// the row numbers plus `offset`; in batches of 64 rows over 2 partitions.
fn table(name: &str, rows: i64, keys: i64, offset: i64) -> Result<MemTable> {
    let schema = Arc::new(Schema::new(vec![
        Field::new(format!("{name}_key"), DataType::Int64, false),
        Field::new(format!("{name}_value"), DataType::Int64, false),
    ]));
    let mut parts = vec![Vec::new(), Vec::new()];
    for (i, start) in (0..rows).step_by(64).enumerate() {
        let ids: Vec<i64> = (start..(start + 64).min(rows)).collect();
        let batch = RecordBatch::try_new(
            Arc::clone(&schema),
            vec![
                Arc::new(Int64Array::from_iter_values(ids.iter().map(|r| r % keys))),
                Arc::new(Int64Array::from_iter_values(ids.iter().map(|r| r + offset))),
            ],
        )?;
        parts[i % 2].push(batch);
    }
    Ok(MemTable::try_new(schema, parts)?)
}

/// A session joining `l` (`left_rows` rows) and `r` (`right_rows`), with
/// the adaptive rule when `rule` is given; hash joins are planned
/// partitioned (DataFusion would collect such small tables itself).
fn session(rule: Option<AdaptiveJoins>, left_rows: i64, right_rows: i64) -> Result<SessionContext> {
    let mut config = SessionConfig::new().with_target_partitions(2);
    let opts = config.options_mut();
    opts.optimizer.hash_join_single_partition_threshold = 0;
    opts.optimizer.hash_join_single_partition_threshold_rows = 0;
    let rules = match rule {
        Some(rule) => with_adaptive_joins(PhysicalOptimizer::new().rules, rule),
        None => PhysicalOptimizer::new().rules,
    };
    let state = SessionStateBuilder::new()
        .with_default_features()
        .with_config(config)
        .with_physical_optimizer_rules(rules)
        .build();
    let ctx = SessionContext::new_with_state(state);
    ctx.register_table("l", Arc::new(table("l", left_rows, 97, 0)?))?;
    ctx.register_table("r", Arc::new(table("r", right_rows, 89, 1_000_000)?))?;
    Ok(ctx)
}

/// The query's rows, sorted, and whether its plan chose at run time.
async fn run(ctx: &SessionContext, sql: &str) -> Result<(Vec<String>, bool)> {
    let df = ctx.sql(sql).await?;
    let plan = df.clone().create_physical_plan().await?;
    let adaptive = displayable(plan.as_ref())
        .indent(true)
        .to_string()
        .contains("AdaptiveJoinExec");
    let batches = df.collect().await?;
    let mut rows: Vec<String> = pretty_format_batches(&batches)?
        .to_string()
        .lines()
        .map(str::to_owned)
        .collect();
    rows.sort();
    Ok((rows, adaptive))
}

const QUERIES: [&str; 3] = [
    "SELECT l_key, l_value, r_value FROM l JOIN r ON l_key = r_key",
    // output columns out of the inputs' order, and a condition beyond the keys
    "SELECT r_value, l_key FROM l JOIN r ON l_key = r_key AND l_value * 100 < r_value - 999000",
    // the right input first in the text
    "SELECT * FROM r JOIN l ON r_key = l_key WHERE l_value % 3 = 0",
];

fn check(rule: AdaptiveJoins, left_rows: i64, right_rows: i64) -> Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()?;
    rt.block_on(async {
        for sql in QUERIES {
            let (expected, planned) = run(&session(None, left_rows, right_rows)?, sql).await?;
            assert!(!planned);
            let (got, adaptive) = run(&session(Some(rule), left_rows, right_rows)?, sql).await?;
            assert!(adaptive, "the rule did not apply to {sql}");
            assert!(expected.len() > 10, "{sql} joined nothing");
            assert_eq!(
                got, expected,
                "{sql} ({left_rows} x {right_rows} rows, {rule:?})"
            );
        }
        Ok(())
    })
}

/// The rule with a race of `race_rows` and a shared table up to `shared_build_max_rows`.
fn limits(race_rows: usize, shared_build_max_rows: usize) -> AdaptiveJoins {
    AdaptiveJoins {
        race_rows,
        shared_build_max_rows,
    }
}

#[test]
fn a_smaller_left_input_builds_the_table_every_probe_partition_shares() -> Result<()> {
    let rule = limits(1_000, 100_000);
    check(rule, 300, 5_000)
}

#[test]
fn a_smaller_right_input_is_built_and_the_columns_keep_their_order() -> Result<()> {
    let rule = limits(1_000, 100_000);
    check(rule, 5_000, 300)
}

#[test]
fn inputs_that_end_before_the_race_is_decided_build_on_the_first_to_end() -> Result<()> {
    let rule = limits(1_000_000, 100_000);
    check(rule, 2_000, 2_500)?;
    check(rule, 2_500, 2_000)
}

#[test]
fn a_large_build_side_is_partitioned_by_key_again() -> Result<()> {
    let rule = limits(500, 100);
    check(rule, 3_000, 700)?;
    check(rule, 700, 3_000)
}
