//! Spark's bitmap aggregates over 4 KiB bitmaps (32768 bits):
//! `bitmap_construct_agg` sets the bits of its positions
//! (`bitmap_bit_position`'s), `bitmap_or_agg` / `bitmap_and_agg` combine
//! bitmaps (a shorter input counts as zeros past its end).

use arrow::array::{ArrayRef, AsArray};
use arrow::datatypes::{DataType, Int64Type};
use datafusion::common::Result;
use datafusion::logical_expr::AggregateUDF;

use super::{aggregate, each_sketch, error, Sketch};

/// Spark's bitmap size in bytes.
const BYTES: usize = 4096;

pub(super) fn aggregates() -> Vec<AggregateUDF> {
    vec![
        aggregate("bitmap_construct_agg", |name, _, _| {
            Ok(Box::new(Bitmap {
                name,
                and: false,
                bits: vec![0; BYTES],
                positions: true,
            }))
        }),
        aggregate("bitmap_or_agg", |name, _, _| {
            Ok(Box::new(Bitmap {
                name,
                and: false,
                bits: vec![0; BYTES],
                positions: false,
            }))
        }),
        aggregate("bitmap_and_agg", |name, _, _| {
            Ok(Box::new(Bitmap {
                name,
                and: true,
                bits: vec![0xFF; BYTES],
                positions: false,
            }))
        }),
    ]
}

#[derive(Debug)]
struct Bitmap {
    name: &'static str,
    /// combined by AND (else OR)
    and: bool,
    bits: Vec<u8>,
    /// the input is bit positions (else bitmaps)
    positions: bool,
}

impl Sketch for Bitmap {
    fn update(&mut self, columns: &[ArrayRef]) -> Result<()> {
        if !self.positions {
            return each_sketch(&columns[0], |b| self.merge(b));
        }
        let positions = arrow::compute::cast(&columns[0], &DataType::Int64)?;
        for p in positions.as_primitive::<Int64Type>().iter().flatten() {
            let p = usize::try_from(p)
                .ok()
                .filter(|p| *p < BYTES * 8)
                .ok_or_else(|| {
                    error(
                        "INVALID_BITMAP_POSITION",
                        format!(
                            "{}: the bit position {p} is not between 0 and {}",
                            self.name,
                            BYTES * 8 - 1
                        ),
                    )
                })?;
            self.bits[p / 8] |= 1 << (p % 8);
        }
        Ok(())
    }
    fn merge(&mut self, state: &[u8]) -> Result<()> {
        for (i, b) in self.bits.iter_mut().enumerate() {
            let other = state.get(i).copied().unwrap_or(0);
            if self.and {
                *b &= other;
            } else {
                *b |= other;
            }
        }
        Ok(())
    }
    fn state(&self) -> Option<Vec<u8>> {
        Some(self.bits.clone())
    }
    fn size(&self) -> usize {
        self.bits.len()
    }
}
