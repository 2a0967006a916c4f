//! The query's event-time watermark (Spark's `WatermarkTracker`): each
//! `withWatermark` node's statistics per batch, folded into the watermark
//! of the next batch by the multiple-watermark policy.

use std::sync::Arc;

use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::logical_expr::LogicalPlan;

use crate::error::{Error, Result};
use crate::exec::watermark::{EventTimeStats, StatsHandle, WatermarkNode};

/// The watermark nodes of a running query: fresh statistics per run.
pub(crate) struct Watermarks {
    /// (statistics, delay ms, column) per `withWatermark`.
    nodes: Vec<(Arc<StatsHandle>, i64, String)>,
    /// Each node's own watermark, ms.
    per_node: Vec<i64>,
    max_policy: bool,
}

impl Watermarks {
    /// Give every watermark node of `plan` its own statistics for this run.
    pub(crate) fn attach(plan: LogicalPlan, max_policy: bool) -> Result<(LogicalPlan, Self)> {
        let mut nodes = Vec::new();
        let plan = plan
            .transform_up(|node| {
                if let LogicalPlan::Extension(ext) = &node {
                    if let Some(wm) = ext.node.as_any().downcast_ref::<WatermarkNode>() {
                        let fresh = wm.with_fresh_stats();
                        nodes.push((
                            Arc::clone(&fresh.stats.0),
                            fresh.delay_ms,
                            fresh.column.clone(),
                        ));
                        return Ok(Transformed::yes(LogicalPlan::Extension(
                            datafusion::logical_expr::Extension {
                                node: Arc::new(fresh),
                            },
                        )));
                    }
                }
                Ok(Transformed::no(node))
            })
            .map_err(Error::from_planning)?
            .data;
        let per_node = vec![0; nodes.len()];
        Ok((
            plan,
            Watermarks {
                nodes,
                per_node,
                max_policy,
            },
        ))
    }

    pub(crate) fn defined(&self) -> bool {
        !self.nodes.is_empty()
    }

    /// Fold this batch's statistics in; returns (combined stats, watermark for the next batch).
    pub(crate) fn advance(&mut self, current: i64) -> (EventTimeStats, i64) {
        let mut all = EventTimeStats::default();
        for (i, (stats, delay, _)) in self.nodes.iter().enumerate() {
            let s = stats.take();
            if s.count > 0 {
                self.per_node[i] =
                    self.per_node[i].max(s.max.div_euclid(1000).saturating_sub(*delay));
                if all.count == 0 {
                    all = s;
                } else {
                    all.min = all.min.min(s.min);
                    all.max = all.max.max(s.max);
                    all.sum += s.sum;
                    all.count += s.count;
                }
            }
        }
        let combined = if self.max_policy {
            self.per_node.iter().copied().max()
        } else {
            self.per_node.iter().copied().min()
        }
        .unwrap_or(0);
        (all, combined.max(current))
    }
}
