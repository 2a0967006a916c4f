//! A streaming aggregation's partial step grouped by a `window` struct key
//! runs grouped by the window's start and end instead: DataFusion hashes
//! integer keys column by column, while a struct key goes through the row
//! format row by row (a quarter of Nexmark q7's time). The struct is put
//! back on the partial rows, which are few.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, RecordBatch, StructArray};
use arrow::buffer::NullBuffer;
use arrow::datatypes::{DataType, Field, FieldRef, Fields, Schema, SchemaRef};
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
}

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
            }),
            _ => None,
        }
    }

    /// `input` with the two bound columns after its own.
    pub fn widened_schema(&self, input: &Schema) -> SchemaRef {
        let mut fields: Vec<FieldRef> = input.fields().iter().cloned().collect();
        for (i, f) in self.fields.iter().enumerate() {
            fields.push(Arc::new(Field::new(
                format!("__window_bound_{i}"),
                f.data_type().clone(),
                true,
            )));
        }
        Arc::new(Schema::new(fields))
    }

    /// `b` with the key's start and end appended (null where the window is).
    pub fn widen(
        &self,
        group_by: &PhysicalGroupBy,
        b: &RecordBatch,
        widened: &SchemaRef,
    ) -> Result<RecordBatch> {
        let (expr, _) = &group_by.expr()[self.key];
        let key = expr.evaluate(b)?.into_array(b.num_rows())?;
        let st = key
            .as_struct_opt()
            .ok_or_else(|| Error::Internal("window key is not a struct".into()))?;
        let mut cols = b.columns().to_vec();
        for c in st.columns() {
            let nulls = NullBuffer::union(st.nulls(), c.nulls());
            let data = c.to_data().into_builder().nulls(nulls).build()?;
            cols.push(arrow::array::make_array(data));
        }
        Ok(RecordBatch::try_new(Arc::clone(widened), cols)?)
    }

    /// `group_by` over the widened input of `input_width` columns: the key
    /// replaced by the two bound columns.
    pub fn group_by(&self, group_by: &PhysicalGroupBy, input_width: usize) -> PhysicalGroupBy {
        let mut exprs: Vec<(Arc<dyn PhysicalExpr>, String)> = Vec::new();
        for (i, (e, name)) in group_by.expr().iter().enumerate() {
            if i == self.key {
                for (j, f) in self.fields.iter().enumerate() {
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

    /// A partial output batch with the two bound columns back as the
    /// window struct (null where its start is).
    pub fn narrow(&self, b: &RecordBatch) -> Result<RecordBatch> {
        let (start, end) = (b.column(self.key), b.column(self.key + 1));
        let window = StructArray::try_new(
            self.fields.clone(),
            vec![Arc::clone(start), Arc::clone(end)],
            start.nulls().cloned(),
        )?;
        let mut cols: Vec<ArrayRef> = b.columns()[..self.key].to_vec();
        cols.push(Arc::new(window));
        cols.extend(b.columns()[self.key + 2..].iter().cloned());
        let schema = b.schema();
        let mut fields: Vec<FieldRef> = schema.fields()[..self.key].to_vec();
        fields.push(Arc::new(Field::new(
            &self.name,
            DataType::Struct(self.fields.clone()),
            true,
        )));
        fields.extend(schema.fields()[self.key + 2..].iter().cloned());
        Ok(RecordBatch::try_new(Arc::new(Schema::new(fields)), cols)?)
    }
}
