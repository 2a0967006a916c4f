//! `array_insert(array, pos, value)`: Spark's insertion by a 1-based
//! position, negative from the end (-1 appends), padding with nulls past
//! either end.

use std::sync::Arc;

use arrow::array::{new_null_array, Array, ArrayRef, AsArray, ListArray};
use arrow::buffer::OffsetBuffer;
use arrow::compute::{cast, interleave};
use arrow::datatypes::{DataType, Int64Type};
use datafusion::error::{DataFusionError, Result as DFResult};
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};

#[derive(Debug, PartialEq, Eq, Hash)]
struct ArrayInsert {
    signature: Signature,
}

pub(super) fn all() -> Vec<ScalarUDF> {
    vec![ScalarUDF::new_from_impl(ArrayInsert {
        signature: Signature::any(3, Volatility::Immutable),
    })]
}

/// Where a row's values come from: the array's (source 0), the inserted
/// value (1) or a null (2).
fn layout(len: usize, pos: i64) -> Vec<(usize, usize)> {
    let (at, total) = if pos > 0 {
        let at = (pos - 1) as usize;
        (at, (len + 1).max(at + 1))
    } else {
        // -1 is after the last element; further back than the start pads
        let from_end = len as i64 + pos + 1;
        if from_end >= 0 {
            (from_end as usize, len + 1)
        } else {
            (0, (-pos) as usize)
        }
    };
    let mut out = Vec::with_capacity(total);
    for i in 0..total {
        if i == at {
            out.push((1, 0));
        } else {
            // existing elements in order, then (or before them) nulls
            let existing = if pos < 0 && len as i64 + pos + 1 < 0 {
                i.checked_sub(total - len)
            } else if i < at {
                Some(i)
            } else {
                Some(i - 1)
            };
            match existing {
                Some(e) if e < len => out.push((0, e)),
                _ => out.push((2, 0)),
            }
        }
    }
    out
}

impl ScalarUDFImpl for ArrayInsert {
    fn name(&self) -> &str {
        "array_insert"
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, t: &[DataType]) -> DFResult<DataType> {
        match &t[0] {
            DataType::List(_) => Ok(t[0].clone()),
            DataType::Null => Ok(DataType::new_list(t[2].clone(), true)),
            other => Err(DataFusionError::Plan(format!(
                "[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] array_insert takes an array, not {other}"
            ))),
        }
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> DFResult<ColumnarValue> {
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let returns = args.return_field.data_type().clone();
        let DataType::List(field) = &returns else {
            return Err(DataFusionError::Internal(
                "array_insert returns a list".into(),
            ));
        };
        let list = cast(&arrays[0], &returns)?;
        let list = list.as_list::<i32>();
        let positions = cast(&arrays[1], &DataType::Int64)?;
        let positions = positions.as_primitive::<Int64Type>();
        let values = cast(&arrays[2], field.data_type())?;
        let nulls = new_null_array(field.data_type(), 1);
        let offsets = list.value_offsets();
        let mut picks = Vec::new();
        let mut lengths = Vec::with_capacity(list.len());
        let mut valid = Vec::with_capacity(list.len());
        for row in 0..list.len() {
            if list.is_null(row) || positions.is_null(row) {
                lengths.push(0);
                valid.push(false);
                continue;
            }
            let pos = positions.value(row);
            if pos == 0 {
                return Err(DataFusionError::Execution(
                    "[INVALID_INDEX_OF_ZERO] array_insert's position is 1-based (negative from the end), not 0".into(),
                ));
            }
            let start = offsets[row] as usize;
            let len = offsets[row + 1] as usize - start;
            let row_layout = layout(len, pos);
            lengths.push(row_layout.len());
            valid.push(true);
            picks.extend(row_layout.into_iter().map(|(source, i)| match source {
                0 => (0, start + i),
                1 => (1, row),
                _ => (2, 0),
            }));
        }
        let items = interleave(
            &[list.values().as_ref(), values.as_ref(), nulls.as_ref()],
            &picks,
        )?;
        let out = ListArray::try_new(
            Arc::clone(field),
            OffsetBuffer::from_lengths(lengths),
            items,
            Some(valid.into()),
        )?;
        Ok(ColumnarValue::Array(Arc::new(out) as ArrayRef))
    }
}

#[cfg(test)]
mod tests {
    use super::layout;

    #[test]
    fn positions_count_from_either_end_and_pad() {
        let show = |l: Vec<(usize, usize)>| -> String {
            l.into_iter()
                .map(|(s, i)| match s {
                    0 => (b'a' + i as u8) as char,
                    1 => 'X',
                    _ => '_',
                })
                .collect()
        };
        assert_eq!(show(layout(3, 2)), "aXbc");
        assert_eq!(show(layout(3, -2)), "abXc");
        assert_eq!(show(layout(3, -1)), "abcX");
        assert_eq!(show(layout(3, 5)), "abc_X");
        assert_eq!(show(layout(3, -5)), "X_abc");
    }
}

/// `map(k1, v1, k2, v2, ...)` of keys and values already of one type each
/// (or, with `lists`, a list of keys and a list of values per row): one
/// map per row, a repeated key an error (Spark's default
/// `mapKeyDedupPolicy`) or, under `LAST_WIN`, its last value; a null key
/// an error.
#[derive(Debug, PartialEq, Eq, Hash)]
pub(super) struct MapOf {
    lists: bool,
    signature: Signature,
}

/// A call of [`MapOf`] over `args` (alternating keys and values).
pub(super) fn map_of_pairs(
    args: Vec<datafusion::logical_expr::Expr>,
) -> datafusion::logical_expr::Expr {
    map_of(false, args)
}

/// A call of [`MapOf`] over a list of keys and a list of values.
pub(super) fn map_of_lists(
    keys: datafusion::logical_expr::Expr,
    values: datafusion::logical_expr::Expr,
) -> datafusion::logical_expr::Expr {
    map_of(true, vec![keys, values])
}

fn map_of(
    lists: bool,
    args: Vec<datafusion::logical_expr::Expr>,
) -> datafusion::logical_expr::Expr {
    ScalarUDF::new_from_impl(MapOf {
        lists,
        signature: Signature::variadic_any(Volatility::Immutable),
    })
    .call(args)
}

/// Every candidate entry of the maps: keys, values, each row's range of
/// them, and which rows are maps (None: all).
type Candidates = (ArrayRef, ArrayRef, Vec<(usize, usize)>, Option<Vec<bool>>);

fn map_type(k: DataType, v: DataType) -> DataType {
    DataType::Map(
        Arc::new(arrow::datatypes::Field::new(
            "entries",
            DataType::Struct(
                vec![
                    arrow::datatypes::Field::new("key", k, false),
                    arrow::datatypes::Field::new("value", v, true),
                ]
                .into(),
            ),
            false,
        )),
        false,
    )
}

fn element(t: &DataType) -> DataType {
    match t {
        DataType::List(f) | DataType::LargeList(f) => f.data_type().clone(),
        other => other.clone(),
    }
}

impl ScalarUDFImpl for MapOf {
    fn name(&self) -> &str {
        "map"
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, t: &[DataType]) -> DFResult<DataType> {
        Ok(if self.lists {
            map_type(element(&t[0]), element(&t[1]))
        } else {
            map_type(t[0].clone(), t[1].clone())
        })
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> DFResult<ColumnarValue> {
        use arrow::row::{RowConverter, SortField};
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let returns = args.return_field.data_type().clone();
        let DataType::Map(entries_field, _) = &returns else {
            return Err(DataFusionError::Internal("map returns a map".into()));
        };
        let DataType::Struct(fields) = entries_field.data_type() else {
            return Err(DataFusionError::Internal(
                "a map's entries are a struct".into(),
            ));
        };
        let last_win = args
            .config_options
            .extensions
            .get::<crate::spark_options::SparkOptions>()
            .is_some_and(|o| o.map_key_last_win);
        let rows = arrays.first().map_or(0, |a| a.len());
        // every candidate entry in one key and one value array, by row
        let (keys, values, ranges, nulls): Candidates = if self.lists {
            let (k, v) = (
                cast(
                    &arrays[0],
                    &DataType::new_list(fields[0].data_type().clone(), true),
                )?,
                cast(
                    &arrays[1],
                    &DataType::new_list(fields[1].data_type().clone(), true),
                )?,
            );
            let (k, v) = (k.as_list::<i32>(), v.as_list::<i32>());
            let offsets = k.value_offsets();
            let ranges = (0..rows)
                .map(|r| (offsets[r] as usize, offsets[r + 1] as usize))
                .collect();
            let valid = (0..rows).map(|r| k.is_valid(r) && v.is_valid(r)).collect();
            (
                Arc::clone(k.values()),
                Arc::clone(v.values()),
                ranges,
                Some(valid),
            )
        } else {
            let per_row = arrays.len() / 2;
            let picks: Vec<(usize, usize)> = (0..rows)
                .flat_map(|r| (0..per_row).map(move |i| (i, r)))
                .collect();
            let key_refs: Vec<&dyn Array> = arrays.iter().step_by(2).map(|a| a.as_ref()).collect();
            let value_refs: Vec<&dyn Array> = arrays
                .iter()
                .skip(1)
                .step_by(2)
                .map(|a| a.as_ref())
                .collect();
            let ranges = (0..rows)
                .map(|r| (r * per_row, (r + 1) * per_row))
                .collect();
            (
                interleave(&key_refs, &picks)?,
                interleave(&value_refs, &picks)?,
                ranges,
                None,
            )
        };
        let converted = RowConverter::new(vec![SortField::new(fields[0].data_type().clone())])?
            .convert_columns(&[Arc::clone(&keys)])?;
        let mut picks: Vec<u32> = Vec::new();
        let mut lengths = Vec::with_capacity(rows);
        for (row, (from, to)) in ranges.iter().enumerate() {
            let start = picks.len();
            if nulls.as_ref().is_none_or(|n| n[row]) {
                for i in *from..*to {
                    if keys.is_null(i) {
                        return Err(DataFusionError::Execution(
                            "[NULL_MAP_KEY] Cannot use null as map key.".into(),
                        ));
                    }
                    let earlier = picks[start..]
                        .iter()
                        .position(|j| converted.row(*j as usize) == converted.row(i));
                    match earlier {
                        // LAST_WIN: the key keeps its first place, the last value
                        Some(at) if last_win => picks[start + at] = i as u32,
                        Some(_) => {
                            return Err(DataFusionError::Execution(format!(
                                "[DUPLICATED_MAP_KEY] Duplicate map key {} was found, please check the input data.",
                                arrow::util::display::array_value_to_string(&keys, i)?
                            )))
                        }
                        None => picks.push(i as u32),
                    }
                }
            }
            lengths.push(picks.len() - start);
        }
        let picks = arrow::array::UInt32Array::from(picks);
        let entries = arrow::array::StructArray::try_new(
            fields.clone(),
            vec![
                arrow::compute::take(&keys, &picks, None)?,
                arrow::compute::take(&values, &picks, None)?,
            ],
            None,
        )?;
        let map = arrow::array::MapArray::try_new(
            Arc::clone(entries_field),
            OffsetBuffer::from_lengths(lengths),
            entries,
            nulls.map(Into::into),
            false,
        )?;
        Ok(ColumnarValue::Array(Arc::new(map)))
    }
}
