//! HyperLogLog sketches: `hll_sketch_agg`, `hll_union_agg`,
//! `hll_sketch_estimate`, `hll_union` (DataSketches' HLL_8, as Spark's).

use std::sync::Arc;

use arrow::array::{ArrayRef, Int64Array};
use arrow::datatypes::DataType;
use datafusion::common::Result;
use datafusion::logical_expr::{AggregateUDF, ScalarUDF};
use datasketches::hash::value::{canonical_float, raw_bytes};
use datasketches::hll::{HllSketch, HllType, HllUnion};

use super::{
    aggregate, combine_rows, each_item, each_sketch, error, function, map_rows, not_a_sketch, Item,
    Sketch,
};

const LG_K: (i64, i64) = (4, 21);

pub(super) fn aggregates() -> Vec<AggregateUDF> {
    vec![
        aggregate("hll_sketch_agg", |name, params, _| {
            let lg_k = params.int(name, 1, 12, LG_K)? as u8;
            let sketch =
                HllSketch::new(lg_k, HllType::Hll8).map_err(|e| error("HLL_INVALID_LG_K", e))?;
            Ok(Box::new(Hll { name, sketch }))
        }),
        aggregate("hll_union_agg", |name, params, _| {
            Ok(Box::new(Union {
                name,
                allow_different_lg_k: params.flag(name, 1)?,
                union: None,
            }))
        }),
    ]
}

pub(super) fn scalars() -> Vec<ScalarUDF> {
    vec![
        function("hll_sketch_estimate", DataType::Int64, |name, _, args| {
            let rows = map_rows(&args[0], |_, bytes| {
                Ok(Some(read(name, bytes)?.estimate().round() as i64))
            })?;
            Ok(Arc::new(Int64Array::from(rows)) as ArrayRef)
        }),
        function("hll_union", DataType::Binary, |name, params, args| {
            let allow = params.flag(name, 2)?;
            combine_rows(&args[0], &args[1], |a, b| {
                let mut union = Union {
                    name,
                    allow_different_lg_k: allow,
                    union: None,
                };
                union.merge(a)?;
                union.merge(b)?;
                Ok(union.result().unwrap_or_default())
            })
        }),
    ]
}

fn read(function: &str, bytes: &[u8]) -> Result<HllSketch> {
    HllSketch::deserialize(bytes).map_err(|e| not_a_sketch(function, "HLL", e))
}

#[derive(Debug)]
struct Hll {
    name: &'static str,
    sketch: HllSketch,
}

impl Sketch for Hll {
    fn update(&mut self, columns: &[ArrayRef]) -> Result<()> {
        let sketch = &mut self.sketch;
        each_item(self.name, &columns[0], false, |_, item| match item {
            Item::Long(v) => sketch.update(v),
            Item::Double(v) => sketch.update(canonical_float::from_f64(v)),
            Item::Bytes(b) => sketch.update(raw_bytes::from_slice(b)),
        })
    }
    fn merge(&mut self, state: &[u8]) -> Result<()> {
        let other = read(self.name, state)?;
        let mut union =
            HllUnion::new(self.sketch.lg_config_k()).map_err(|e| error("HLL_INVALID_LG_K", e))?;
        union.update(&self.sketch);
        union.update(&other);
        self.sketch = union.to_sketch(HllType::Hll8);
        Ok(())
    }
    fn state(&self) -> Option<Vec<u8>> {
        Some(self.sketch.serialize())
    }
    fn size(&self) -> usize {
        self.sketch.estimated_size()
    }
}

/// A union of sketches, sized by the first one (Spark's `hll_union_agg`
/// refuses sketches of another `lgConfigK` unless allowed).
#[derive(Debug)]
struct Union {
    name: &'static str,
    allow_different_lg_k: bool,
    union: Option<HllUnion>,
}

impl Sketch for Union {
    fn update(&mut self, columns: &[ArrayRef]) -> Result<()> {
        each_sketch(&columns[0], |bytes| self.merge(bytes))
    }
    fn merge(&mut self, state: &[u8]) -> Result<()> {
        let sketch = read(self.name, state)?;
        let lg_k = sketch.lg_config_k();
        let union = match &mut self.union {
            Some(u) => u,
            None => self
                .union
                .insert(HllUnion::new(lg_k).map_err(|e| error("HLL_INVALID_LG_K", e))?),
        };
        if !self.allow_different_lg_k && union.lg_config_k() != lg_k {
            return Err(error(
                "HLL_UNION_DIFFERENT_LG_K",
                format!(
                    "Sketches have different lgConfigK values: {} and {lg_k}. Set allowDifferentLgConfigK to true to enable unions of different lgConfigK values.",
                    union.lg_config_k()
                ),
            ));
        }
        union.update(&sketch);
        Ok(())
    }
    fn state(&self) -> Option<Vec<u8>> {
        self.union
            .as_ref()
            .map(|u| u.to_sketch(HllType::Hll8).serialize())
    }
    fn size(&self) -> usize {
        self.union.as_ref().map_or(0, HllUnion::estimated_size)
    }
}
