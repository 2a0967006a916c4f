//! A streaming aggregation's output rows, from the groups a batch changed
//! or the watermark closed.

use super::*;

/// A global aggregation's partial rows come from DataFusion's accumulators
/// without groups, whose `avg` over no values states count 0 with a null sum;
/// the groups accumulators they merge into take a non-null count as a value
/// seen (0 / 0: NaN where Spark gives null). There an avg's count is null
/// where its sum is, as the groups accumulators state it.
pub(super) fn unseen_avg_counts_null(
    batch: &RecordBatch,
    aggr: &[Arc<AggregateFunctionExpr>],
) -> Result<RecordBatch> {
    let mut columns = batch.columns().to_vec();
    let mut at = 0;
    for a in aggr {
        let fields = a.state_fields()?;
        let width = fields.len();
        let is = |i: usize, part: &str| fields[i].name().ends_with(&format!("[{part}]"));
        if a.fun().name() == "avg" && width == 2 && is(0, "count") && is(1, "sum") {
            let (count, sum) = (&columns[at], &columns[at + 1]);
            if sum.null_count() > count.null_count() {
                let nulls = arrow::buffer::NullBuffer::union(
                    count.logical_nulls().as_ref(),
                    sum.logical_nulls().as_ref(),
                );
                columns[at] = Arc::new(arrow::array::make_array(
                    count.to_data().into_builder().nulls(nulls).build()?,
                ));
            }
        }
        at += width;
    }
    Ok(RecordBatch::try_new(batch.schema(), columns)?)
}

impl StatefulAggregate {
    /// The aggregate's output rows: key columns plus one column per aggregate,
    /// cast to the aggregate's schema.
    pub(super) fn output_batch(
        &self,
        keys: Vec<ArrayRef>,
        values: Vec<ArrayRef>,
    ) -> Result<Vec<RecordBatch>> {
        let cols = keys
            .into_iter()
            .chain(values)
            .enumerate()
            .map(|(i, c)| {
                let want = self.out_schema.field(i).data_type();
                Ok(if c.data_type() == want {
                    c
                } else {
                    cast(&c, want)?
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(vec![RecordBatch::try_new(
            Arc::clone(&self.out_schema),
            cols,
        )?])
    }

    /// The rows of `parts` (keys with their aggregate values), in key order.
    pub(super) fn rows(&self, parts: &[Updated]) -> Result<Vec<RecordBatch>> {
        // a part with keys has a column per aggregate
        let parts: Vec<&Updated> = parts.iter().filter(|u| !u.keys.is_empty()).collect();
        let skip = self.key_skip();
        let key = |(p, i): &(usize, usize)| &parts[*p].keys.get(*i)[skip..];
        let order: Vec<(usize, usize)> = if self.time_keyed {
            // in event-time order, a time's keys as they came: sorting
            // whole keys was a fifth of a sliding-window query's time
            let mut timed: Vec<(u64, u32, u32)> = parts
                .iter()
                .enumerate()
                .flat_map(|(p, u)| {
                    u.keys
                        .iter()
                        .enumerate()
                        .map(move |(i, k)| (time_of(k), p as u32, i as u32))
                })
                .collect();
            timed.sort_by_key(|t| t.0);
            timed
                .into_iter()
                .map(|(_, p, i)| (p as usize, i as usize))
                .collect()
        } else {
            let mut order: Vec<(usize, usize)> = parts
                .iter()
                .enumerate()
                .flat_map(|(p, u)| (0..u.keys.len()).map(move |i| (p, i)))
                .collect();
            order.sort_unstable_by(|a, b| key(a).cmp(key(b)));
            order
        };
        if order.is_empty() {
            return Ok(vec![]);
        }
        let decoded: Option<Vec<&[ArrayRef]>> =
            parts.iter().map(|u| u.key_columns.as_deref()).collect();
        let keys = match decoded {
            // decoded by the partitions' tasks: gathered in order
            Some(decoded) => (0..decoded.first().map_or(0, |d| d.len()))
                .map(|c| {
                    let sources: Vec<&dyn Array> = decoded.iter().map(|d| d[c].as_ref()).collect();
                    Ok(arrow::compute::interleave(&sources, &order)?)
                })
                .collect::<Result<Vec<_>>>()?,
            None => parse_keys(
                &self.converter,
                order.iter().map(|&(p, i)| parts[p].keys.get(i)),
                skip,
            )?,
        };
        let values = (0..self.aggr.len())
            .map(|a| {
                let sources = parts
                    .iter()
                    .map(|u| u.values.get(a).map(|c| c.as_ref() as &dyn Array))
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| Error::Internal("updated keys without values".into()))?;
                Ok(arrow::compute::interleave(&sources, &order)?)
            })
            .collect::<Result<Vec<_>>>()?;
        self.output_batch(keys, values)
    }
}
