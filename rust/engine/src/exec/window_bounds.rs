//! A streaming aggregation's partial step grouped by a `window` struct key
//! runs grouped by the window's start and end instead: DataFusion hashes
//! integer keys column by column, while a struct key goes through the row
//! format row by row (a quarter of Nexmark q7's time). When every window
//! of the batch has the same width (tumbling and sliding windows), the end
//! is a function of the start and the grouping is by the start alone. The
//! struct is put back on the partial rows, which are few.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, RecordBatch, StructArray};
use arrow::buffer::NullBuffer;
use arrow::datatypes::{DataType, Field, FieldRef, Fields, Int64Type, Schema, SchemaRef};
use datafusion::physical_expr::expressions::Column;
use datafusion::physical_plan::aggregates::PhysicalGroupBy;
use datafusion::physical_plan::PhysicalExpr;

use crate::error::{Error, Result};

/// How the window key at `key` is split into its bounds.
pub(crate) struct WindowBounds {
    /// The key's position among the group keys.
    key: usize,
    /// The window struct's fields (start, end).
    fields: Fields,
    /// The key's name in the partial output.
    name: String,
    /// The width (in the bounds' unit) every window of the batch has, if
    /// one: then only the start is a group key.
    width: Option<i64>,
}

/// A batch's window key as its start and end columns (null where the
/// window is).
pub(crate) type Split = (ArrayRef, ArrayRef);

impl WindowBounds {
    /// The split of `group_by`'s key `key` over `input`, when that key is a
    /// struct of two fields and there is one grouping set.
    pub fn new(group_by: &PhysicalGroupBy, key: usize, input: &Schema) -> Option<Self> {
        if !group_by.is_single() {
            return None;
        }
        let (expr, name) = group_by.expr().get(key)?;
        match expr.data_type(input).ok()? {
            DataType::Struct(fields) if fields.len() == 2 => Some(WindowBounds {
                key,
                fields,
                name: name.clone(),
                width: None,
            }),
            _ => None,
        }
    }

    /// The key of `b` split into its bounds.
    pub fn split(&self, group_by: &PhysicalGroupBy, b: &RecordBatch) -> Result<Split> {
        let (expr, _) = &group_by.expr()[self.key];
        let key = expr.evaluate(b)?.into_array(b.num_rows())?;
        let st = key
            .as_struct_opt()
            .ok_or_else(|| Error::Internal("window key is not a struct".into()))?;
        let bound = |c: &ArrayRef| -> Result<ArrayRef> {
            let nulls = NullBuffer::union(st.nulls(), c.nulls());
            let data = c.to_data().into_builder().nulls(nulls).build()?;
            Ok(arrow::array::make_array(data))
        };
        Ok((bound(st.column(0))?, bound(st.column(1))?))
    }

    /// Group by the start alone if every window in `splits` has one width.
    pub fn settle_width(&mut self, splits: &[Split]) -> Result<()> {
        let mut width = None;
        for (start, end) in splits.iter().filter(|(s, _)| s.null_count() < s.len()) {
            if start.logical_nulls() != end.logical_nulls() {
                return Ok(());
            }
            let (s, e) = (as_i64(start)?, as_i64(end)?);
            let (s, e) = (s.as_primitive::<Int64Type>(), e.as_primitive::<Int64Type>());
            // one pass, no array of widths (null slots hold any values)
            let (s, e) = (s.values(), e.values());
            let Some(first) = start.nulls().map_or(Some(0), |n| n.valid_indices().next()) else {
                continue;
            };
            let w = e[first].wrapping_sub(s[first]);
            if width.is_some_and(|x| x != w) {
                return Ok(());
            }
            width = Some(w);
            let same = match start.nulls() {
                None => s.iter().zip(e.iter()).all(|(a, b)| b.wrapping_sub(*a) == w),
                Some(n) => n.valid_indices().all(|i| e[i].wrapping_sub(s[i]) == w),
            };
            if !same {
                return Ok(());
            }
        }
        self.width = width;
        Ok(())
    }

    /// How many bound columns are group keys.
    fn bounds(&self) -> usize {
        if self.width.is_some() {
            1
        } else {
            2
        }
    }

    /// `input` with the bound columns after its own.
    pub fn widened_schema(&self, input: &Schema) -> SchemaRef {
        let mut fields: Vec<FieldRef> = input.fields().iter().cloned().collect();
        for (i, f) in self.fields.iter().take(self.bounds()).enumerate() {
            fields.push(Arc::new(Field::new(
                format!("__window_bound_{i}"),
                f.data_type().clone(),
                true,
            )));
        }
        Arc::new(Schema::new(fields))
    }

    /// `b` with its key's bounds (`split`) appended.
    pub fn widen(&self, b: &RecordBatch, split: Split, widened: &SchemaRef) -> Result<RecordBatch> {
        let mut cols = b.columns().to_vec();
        cols.push(split.0);
        if self.width.is_none() {
            cols.push(split.1);
        }
        Ok(RecordBatch::try_new(Arc::clone(widened), cols)?)
    }

    /// `group_by` over the widened input of `input_width` columns: the key
    /// replaced by the bound columns.
    pub fn group_by(&self, group_by: &PhysicalGroupBy, input_width: usize) -> PhysicalGroupBy {
        let mut exprs: Vec<(Arc<dyn PhysicalExpr>, String)> = Vec::new();
        for (i, (e, name)) in group_by.expr().iter().enumerate() {
            if i == self.key {
                for (j, f) in self.fields.iter().take(self.bounds()).enumerate() {
                    let col = format!("__window_bound_{j}");
                    exprs.push((
                        Arc::new(Column::new(&col, input_width + j)),
                        format!("{name}.{}", f.name()),
                    ));
                }
            } else {
                exprs.push((Arc::clone(e), name.clone()));
            }
        }
        PhysicalGroupBy::new_single(exprs)
    }

    /// A partial output batch with the bound columns back as the window
    /// struct (null where its start is).
    pub fn narrow(&self, b: &RecordBatch) -> Result<RecordBatch> {
        let start = b.column(self.key);
        let end = match self.width {
            Some(w) => {
                let ends = as_i64(start)?
                    .as_primitive::<Int64Type>()
                    .unary::<_, Int64Type>(|s| s.wrapping_add(w));
                arrow::compute::cast(&ends, self.fields[1].data_type())?
            }
            None => Arc::clone(b.column(self.key + 1)),
        };
        let window = StructArray::try_new(
            self.fields.clone(),
            vec![Arc::clone(start), end],
            start.nulls().cloned(),
        )?;
        let after = self.key + self.bounds();
        let mut cols: Vec<ArrayRef> = b.columns()[..self.key].to_vec();
        cols.push(Arc::new(window));
        cols.extend(b.columns()[after..].iter().cloned());
        let schema = b.schema();
        let mut fields: Vec<FieldRef> = schema.fields()[..self.key].to_vec();
        fields.push(Arc::new(Field::new(
            &self.name,
            DataType::Struct(self.fields.clone()),
            true,
        )));
        fields.extend(schema.fields()[after..].iter().cloned());
        Ok(RecordBatch::try_new(Arc::new(Schema::new(fields)), cols)?)
    }
}

/// A bound column's values as `Int64` (timestamps are numbers underneath).
fn as_i64(c: &ArrayRef) -> Result<ArrayRef> {
    Ok(arrow::compute::cast(c, &DataType::Int64)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::functions::window::window_struct;
    use arrow::array::TimestampMicrosecondArray;
    use datafusion::physical_plan::expressions::col;

    /// Windows as `(start, end)`, `None` for a null window.
    type Windows = Vec<Option<(i64, i64)>>;

    /// Bounds over a batch of one window column `w` holding `(start, end)`s.
    fn bounds_of(
        windows: &[Option<(i64, i64)>],
    ) -> Result<(WindowBounds, PhysicalGroupBy, RecordBatch)> {
        let starts: TimestampMicrosecondArray = windows.iter().map(|w| w.map(|w| w.0)).collect();
        let ends: TimestampMicrosecondArray = windows.iter().map(|w| w.map(|w| w.1)).collect();
        let nulls = NullBuffer::from(windows.iter().map(Option::is_some).collect::<Vec<_>>());
        let st = window_struct(starts, ends, Some(nulls)).map_err(Error::from_execution)?;
        let schema = Arc::new(Schema::new(vec![Field::new(
            "w",
            st.data_type().clone(),
            true,
        )]));
        let batch = RecordBatch::try_new(Arc::clone(&schema), vec![Arc::new(st)])?;
        let w = col("w", &schema).map_err(Error::from_planning)?;
        let group_by = PhysicalGroupBy::new_single(vec![(w, "w".into())]);
        let bounds = WindowBounds::new(&group_by, 0, &schema)
            .ok_or_else(|| Error::Internal("no window key".into()))?;
        Ok((bounds, group_by, batch))
    }

    /// The width the bounds settle on, and the windows back from a
    /// partial batch keyed by the bounds.
    fn round_trip(windows: &[Option<(i64, i64)>]) -> Result<(Option<i64>, Windows)> {
        let (mut w, group_by, batch) = bounds_of(windows)?;
        let split = w.split(&group_by, &batch)?;
        w.settle_width(std::slice::from_ref(&split))?;
        let schema = w.widened_schema(&batch.schema());
        let widened = w.widen(&batch, split, &schema)?;
        // the partial output: group keys (the bounds) first
        let keys = RecordBatch::try_new(
            Arc::new(Schema::new(schema.fields()[1..].to_vec())),
            widened.columns()[1..].to_vec(),
        )?;
        let back = w.narrow(&keys)?;
        let st = back.column(0).as_struct();
        let bound = |i: usize| {
            st.column(i)
                .as_primitive::<arrow::datatypes::TimestampMicrosecondType>()
                .clone()
        };
        let (s, e) = (bound(0), bound(1));
        let out = (0..st.len())
            .map(|r| st.is_valid(r).then(|| (s.value(r), e.value(r))))
            .collect();
        Ok((w.width, out))
    }

    #[test]
    fn windows_of_one_width_group_by_their_start_and_come_back_whole() -> Result<()> {
        let windows = [Some((0, 10)), None, Some((10, 20)), Some((0, 10))];
        let (width, back) = round_trip(&windows)?;
        assert_eq!(width, Some(10));
        assert_eq!(back, windows.to_vec());
        Ok(())
    }

    #[test]
    fn windows_of_several_widths_group_by_start_and_end() -> Result<()> {
        // cumulating windows: one start, growing ends
        let windows = [Some((0, 5)), Some((0, 10)), None];
        let (width, back) = round_trip(&windows)?;
        assert_eq!(width, None);
        assert_eq!(back, windows.to_vec());
        Ok(())
    }
}
