//! State values as bytes: Arrow's row format for a state row (a few bytes
//! per value instead of a `ScalarValue` each), or the bytes themselves for
//! a state that is one binary column (an operator's own encoding).

use std::sync::Arc;

use arrow::array::{ArrayRef, BinaryArray, BinaryBuilder};
use arrow::datatypes::{DataType, FieldRef};
use arrow::row::{RowConverter, SortField};
use datafusion::common::ScalarValue;

use super::entries::{Value, ValueRef};
use super::{StateRow, StoreSpec};
use crate::error::{Error, Result};

/// Encodes state rows as Arrow row-format bytes (a few bytes per value
/// instead of a `ScalarValue` each). A single binary value (an operator's
/// own encoding) is kept as its bytes.
pub struct Codec {
    pub conv: Option<RowConverter>,
    /// The state is one binary column, held as its bytes.
    pub raw: bool,
}

/// Values gathered for a file: bytes in one column, or scalar rows.
pub enum Gathered {
    Bytes(BinaryArray),
    Rows(Vec<StateRow>),
}

impl Gathered {
    /// The values of `entries` (key, value pairs).
    pub(super) fn from(entries: &[(&[u8], ValueRef<'_>)]) -> Self {
        let values = entries.iter().map(|(_, v)| v);
        if values.clone().all(|v| matches!(v, ValueRef::Bytes(_))) {
            return Gathered::Bytes(binary(values.map(|v| match v {
                ValueRef::Bytes(b) => Some(*b),
                ValueRef::Scalars(_) => None,
            })));
        }
        Gathered::Rows(
            values
                .map(|v| match v {
                    ValueRef::Scalars(r) => (*r).clone(),
                    ValueRef::Bytes(b) => vec![ScalarValue::Binary(Some(b.to_vec()))],
                })
                .collect(),
        )
    }
}

impl Codec {
    pub fn new(fields: &[FieldRef]) -> Result<Self> {
        let raw = fields.len() == 1 && *fields[0].data_type() == DataType::Binary;
        let sort: Vec<SortField> = fields
            .iter()
            .map(|f| SortField::new(f.data_type().clone()))
            .collect();
        if raw || fields.is_empty() || !RowConverter::supports_fields(&sort) {
            return Ok(Codec { conv: None, raw });
        }
        Ok(Codec {
            conv: Some(RowConverter::new(sort)?),
            raw: false,
        })
    }

    /// Whether every value is held as bytes.
    pub fn bytes_only(&self) -> bool {
        self.raw || self.conv.is_some()
    }

    pub(super) fn encode(&self, mut row: StateRow) -> Result<Value> {
        if self.raw {
            if let Some(ScalarValue::Binary(Some(bytes))) = row.pop() {
                return Ok(Value::Bytes(bytes.into()));
            }
            return Err(Error::Internal("a binary state value expected".into()));
        }
        let Some(conv) = &self.conv else {
            return Ok(Value::Scalars(row));
        };
        let arrays = row
            .iter()
            .map(|v| v.to_array())
            .collect::<std::result::Result<Vec<_>, _>>()?;
        let rows = conv.convert_columns(&arrays)?;
        Ok(Value::Bytes(rows.row(0).as_ref().into()))
    }

    pub(super) fn decode(&self, value: ValueRef<'_>) -> Result<StateRow> {
        match (value, &self.conv) {
            (ValueRef::Scalars(row), _) => Ok(row.clone()),
            (ValueRef::Bytes(bytes), _) if self.raw => {
                Ok(vec![ScalarValue::Binary(Some(bytes.to_vec()))])
            }
            (ValueRef::Bytes(bytes), Some(conv)) => {
                let arrays = conv.convert_rows([conv.parser().parse(bytes)])?;
                Ok(arrays
                    .iter()
                    .map(|a| ScalarValue::try_from_array(a, 0))
                    .collect::<std::result::Result<Vec<_>, _>>()?)
            }
            (ValueRef::Bytes(_), None) => {
                Err(Error::Internal("encoded state without a codec".into()))
            }
        }
    }

    /// Columns of the state schema as stored values, encoded in one pass.
    pub fn encode_columns(&self, cols: &[ArrayRef]) -> Result<Vec<Vec<u8>>> {
        use arrow::array::AsArray;
        if self.raw {
            let bytes = cols
                .first()
                .ok_or_else(|| Error::Internal("a binary state column expected".into()))?
                .as_binary::<i32>();
            return Ok(bytes
                .iter()
                .map(|b| b.unwrap_or_default().to_vec())
                .collect());
        }
        let conv = self
            .conv
            .as_ref()
            .ok_or_else(|| Error::Internal("state without a byte encoding".into()))?;
        let rows = conv.convert_columns(cols)?;
        Ok(rows.iter().map(|r| r.as_ref().to_vec()).collect())
    }

    /// Values as columns of the state schema, decoded in one pass.
    pub(super) fn columns(&self, spec: &StoreSpec, values: Gathered) -> Result<Vec<ArrayRef>> {
        match (values, &self.conv) {
            (Gathered::Bytes(bytes), _) if self.raw => Ok(vec![Arc::new(bytes)]),
            (Gathered::Bytes(bytes), Some(conv)) => decode_rows(conv, &bytes),
            (Gathered::Bytes(_), None) => {
                Err(Error::Internal("encoded state without a codec".into()))
            }
            (Gathered::Rows(rows), _) => value_columns(spec, &rows.iter().collect::<Vec<_>>()),
        }
    }
}

/// Row-format values (one per element of `bytes`) as columns, decoded in
/// one pass.
pub(crate) fn decode_rows(conv: &RowConverter, bytes: &BinaryArray) -> Result<Vec<ArrayRef>> {
    let parser = conv.parser();
    Ok(conv.convert_rows(bytes.iter().map(|b| parser.parse(b.unwrap_or_default())))?)
}

/// A binary column sized up front: growing it by doubling costs a copy and
/// fresh zeroed pages per step, which showed in every commit's profile.
pub fn binary<'a>(values: impl Iterator<Item = Option<&'a [u8]>> + Clone) -> BinaryArray {
    let (n, bytes) = values
        .clone()
        .fold((0, 0), |(n, b), v| (n + 1, b + v.map_or(0, <[u8]>::len)));
    let mut builder = BinaryBuilder::with_capacity(n, bytes);
    for v in values {
        builder.append_option(v);
    }
    builder.finish()
}

fn value_columns(spec: &StoreSpec, rows: &[&StateRow]) -> Result<Vec<ArrayRef>> {
    (0..spec.value_fields.len())
        .map(|c| {
            if rows.is_empty() {
                return Ok(arrow::array::new_empty_array(
                    spec.value_fields[c].data_type(),
                ));
            }
            let values = rows.iter().map(|r| r[c].clone());
            Ok(ScalarValue::iter_to_array(values)?)
        })
        .collect()
}
