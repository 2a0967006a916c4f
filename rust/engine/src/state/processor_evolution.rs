//! A processor's stored values written with earlier state variables, read
//! as the processor declares them now (the checks of what may change are
//! `exec::group_state::processor_schema`'s). The stored struct holds a field per
//! variable: a value's `{value, expiresAt}`, a list of them, a map's list
//! of `{key, value, expiresAt}`, and the timers.

use std::sync::Arc;

use arrow::array::{new_null_array, Array, ArrayRef, AsArray, ListArray, StructArray};
use arrow::datatypes::{DataType, FieldRef, Fields};

use super::{StateEncoding, ValueEvolution};
use crate::error::{Error, Result};
use crate::exec::spark_type_name as spark_type;

/// How a reader of the stored state of operator folder `op_dir` (in a
/// checkpoint's `state/`) reads values of earlier variables: a processor's
/// by [`ProcessorEvolution`] with the checkpoint's encoding; None for
/// other operators.
pub fn of_operator(op_dir: &std::path::Path) -> Result<Option<Arc<dyn ValueEvolution>>> {
    let processor = super::partitioned::OperatorInfo::read(op_dir)?
        .is_some_and(|o| o.name.starts_with("transformWithState"));
    let Some(root) = op_dir.parent().and_then(std::path::Path::parent) else {
        return Ok(None);
    };
    if !processor {
        return Ok(None);
    }
    let encoding = crate::checkpoint::Checkpoint::recorded_conf(
        root,
        crate::conf::keys::STATE_STORE_ENCODING,
    )?;
    Ok(Some(Arc::new(ProcessorEvolution {
        encoding: encoding.map_or_else(StateEncoding::default, |e| StateEncoding::parse(&e)),
    })))
}

/// Reads a processor's stored values written with earlier variables:
/// variables by name (a new one null, a dropped one gone), their user
/// value fields by position (unsaferow) or name (avro), map keys by
/// position.
#[derive(Debug)]
pub struct ProcessorEvolution {
    /// The checkpoint's encoding.
    pub encoding: StateEncoding,
}

impl ValueEvolution for ProcessorEvolution {
    fn adapt(
        &self,
        written: &[FieldRef],
        columns: &[ArrayRef],
        to: &[FieldRef],
    ) -> Result<Vec<ArrayRef>> {
        let rows = columns.first().map_or(0, |c| c.len());
        to.iter()
            .enumerate()
            .map(|(i, field)| {
                let Some((j, _)) = written
                    .iter()
                    .enumerate()
                    .find(|(_, w)| w.name() == field.name())
                else {
                    return Ok(new_null_array(field.data_type(), rows));
                };
                let column = &columns[j];
                let field = field.as_ref();
                match (i, column.data_type(), field.data_type()) {
                    (_, from, to) if from == to => Ok(Arc::clone(column)),
                    // the stored struct of the variables
                    (0, DataType::Struct(written), DataType::Struct(vars)) => {
                        self.variables(as_struct(column, field.data_type())?, written, vars)
                    }
                    (_, _, to) => Ok(arrow::compute::cast(column, to)?),
                }
            })
            .collect()
    }
}

impl ProcessorEvolution {
    /// The stored struct of the variables, as `vars` (by name).
    fn variables(&self, stored: &StructArray, written: &Fields, vars: &Fields) -> Result<ArrayRef> {
        rebuilt(stored, vars, |_, var| {
            let (j, _) = written.find(var.name())?;
            Some(self.variable(stored.column(j), var.data_type()))
        })
    }

    /// One variable: a value's `{value, expiresAt}`, a list of them, a
    /// map's list of `{key, value, expiresAt}` (the timers: a list of
    /// longs, as written).
    fn variable(&self, column: &ArrayRef, to: &DataType) -> Result<ArrayRef> {
        if column.data_type() == to {
            return Ok(Arc::clone(column));
        }
        match to {
            DataType::Struct(fields) => self.entry(as_struct(column, to)?, fields),
            DataType::List(item) => {
                let list = as_list(column, to)?;
                let DataType::Struct(fields) = item.data_type() else {
                    return Ok(arrow::compute::cast(column, to)?);
                };
                let values = self.entry(as_struct(list.values(), to)?, fields)?;
                relisted(list, item, values)
            }
            _ => Ok(arrow::compute::cast(column, to)?),
        }
    }

    /// A variable's entry: its user value (and map key) adapted, its
    /// expiry as written.
    fn entry(&self, entry: &StructArray, to: &Fields) -> Result<ArrayRef> {
        rebuilt(entry, to, |_, f| {
            let (j, _) = entry.fields().find(f.name())?;
            let by_name = f.name() == "value" && self.encoding == StateEncoding::Avro;
            Some(conform(entry.column(j), f.data_type(), by_name))
        })
    }
}

/// `array` as type `to`: structs field by field (by name, or by
/// position), lists element by element, other values cast (a widening).
fn conform(array: &ArrayRef, to: &DataType, by_name: bool) -> Result<ArrayRef> {
    if array.data_type() == to {
        return Ok(Arc::clone(array));
    }
    match (array.data_type(), to) {
        (DataType::Struct(from), DataType::Struct(fields)) => {
            let parts = as_struct(array, to)?;
            rebuilt(parts, fields, |i, f| {
                let j = if by_name {
                    from.find(f.name()).map(|(j, _)| j)?
                } else {
                    (i < from.len()).then_some(i)?
                };
                Some(conform(parts.column(j), f.data_type(), by_name))
            })
        }
        (DataType::List(_), DataType::List(item)) => {
            let list = as_list(array, to)?;
            let values = conform(list.values(), item.data_type(), by_name)?;
            relisted(list, item, values)
        }
        _ => Ok(arrow::compute::cast(array, to)?),
    }
}

/// A struct of `fields` in place of `like` (its rows and nulls): field `i`
/// from `column(i, field)`, all null where that gives none.
fn rebuilt(
    like: &StructArray,
    fields: &Fields,
    column: impl Fn(usize, &FieldRef) -> Option<Result<ArrayRef>>,
) -> Result<ArrayRef> {
    let columns = fields
        .iter()
        .enumerate()
        .map(|(i, f)| column(i, f).unwrap_or_else(|| Ok(new_null_array(f.data_type(), like.len()))))
        .collect::<Result<Vec<_>>>()?;
    Ok(Arc::new(StructArray::try_new(
        fields.clone(),
        columns,
        like.nulls().cloned(),
    )?))
}

/// `list`'s lists over new `values` of element `item`.
fn relisted(list: &ListArray, item: &FieldRef, values: ArrayRef) -> Result<ArrayRef> {
    Ok(Arc::new(ListArray::try_new(
        Arc::clone(item),
        list.offsets().clone(),
        values,
        list.nulls().cloned(),
    )?))
}

/// A stored column whose type is not the variable's kind (a variable
/// dropped, then declared again as another kind).
fn mismatch(column: &ArrayRef, to: &DataType) -> Error {
    Error::Checkpoint {
        condition: "STATE_STORE_INVALID_VARIABLE_TYPE_CHANGE".into(),
        message: format!(
            "State written as {} cannot be read as {}: a state variable changed its kind between restarts. Restart with a new checkpointLocation.",
            spark_type(column.data_type()),
            spark_type(to)
        ),
    }
}

fn as_struct<'a>(column: &'a ArrayRef, to: &DataType) -> Result<&'a StructArray> {
    column.as_struct_opt().ok_or_else(|| mismatch(column, to))
}

fn as_list<'a>(column: &'a ArrayRef, to: &DataType) -> Result<&'a ListArray> {
    column
        .as_list_opt::<i32>()
        .ok_or_else(|| mismatch(column, to))
}
