//! Theta sketches: `theta_sketch_agg`, `theta_union_agg`,
//! `theta_intersection_agg`, `theta_sketch_estimate`, `theta_union`,
//! `theta_intersection`, `theta_difference`.

use std::sync::Arc;

use arrow::array::{ArrayRef, Int64Array};
use arrow::datatypes::DataType;
use datafusion::common::Result;
use datafusion::logical_expr::{AggregateUDF, ScalarUDF};
use datasketches::hash::value::{canonical_float, raw_bytes};
use datasketches::theta::{
    CompactThetaSketch, ThetaANotB, ThetaIntersection, ThetaSketch, ThetaSketchBuilder, ThetaUnion,
    ThetaUnionBuilder,
};

use super::{
    aggregate, combine_rows, each_item, each_sketch, error, function, map_rows, not_a_sketch, Item,
    Sketch,
};

/// Spark's bounds of `lgNomEntries`.
pub(super) const LG_NOM_ENTRIES: (i64, i64) = (4, 26);

pub(super) fn aggregates() -> Vec<AggregateUDF> {
    vec![
        aggregate("theta_sketch_agg", |name, params, _| {
            let lg_k = params.int(name, 1, 12, LG_NOM_ENTRIES)? as u8;
            let sketch = ThetaSketchBuilder::default()
                .lg_k(lg_k)
                .build()
                .map_err(|e| error("THETA_INVALID_LG_NOM_ENTRIES", e))?;
            Ok(Box::new(Theta {
                name,
                sketch,
                merged: None,
            }))
        }),
        aggregate("theta_union_agg", |name, params, _| {
            Ok(Box::new(Union {
                name,
                union: union(params.int(name, 1, 12, LG_NOM_ENTRIES)?)?,
            }))
        }),
        aggregate("theta_intersection_agg", |name, _, _| {
            Ok(Box::new(Intersection {
                name,
                intersection: ThetaIntersection::default(),
            }))
        }),
    ]
}

pub(super) fn scalars() -> Vec<ScalarUDF> {
    vec![
        function("theta_sketch_estimate", DataType::Int64, |name, _, args| {
            let rows = map_rows(&args[0], |_, bytes| {
                Ok(Some(read(name, bytes)?.estimate().round() as i64))
            })?;
            Ok(Arc::new(Int64Array::from(rows)) as ArrayRef)
        }),
        function("theta_union", DataType::Binary, |name, params, args| {
            let lg_k = params.int(name, 2, 12, LG_NOM_ENTRIES)?;
            combine_rows(&args[0], &args[1], |a, b| {
                let mut u = union(lg_k)?;
                add(&mut u, &read(name, a)?)?;
                add(&mut u, &read(name, b)?)?;
                Ok(u.to_sketch(true).serialize())
            })
        }),
        function("theta_intersection", DataType::Binary, |name, _, args| {
            combine_rows(&args[0], &args[1], |a, b| {
                let mut i = ThetaIntersection::default();
                for bytes in [a, b] {
                    i.update(&read(name, bytes)?)
                        .map_err(|e| not_a_sketch(name, "theta", e))?;
                }
                Ok(intersection_result(&i))
            })
        }),
        function("theta_difference", DataType::Binary, |name, _, args| {
            combine_rows(&args[0], &args[1], |a, b| {
                let (a, b) = (read(name, a)?, read(name, b)?);
                let diff = ThetaANotB::default()
                    .compute(&a, &b, true)
                    .map_err(|e| not_a_sketch(name, "theta", e))?;
                Ok(diff.serialize())
            })
        }),
    ]
}

pub(super) fn read(function: &str, bytes: &[u8]) -> Result<CompactThetaSketch> {
    CompactThetaSketch::deserialize(bytes).map_err(|e| not_a_sketch(function, "theta", e))
}

fn union(lg_k: i64) -> Result<ThetaUnion> {
    ThetaUnionBuilder::default()
        .lg_k(lg_k as u8)
        .build()
        .map_err(|e| error("THETA_INVALID_LG_NOM_ENTRIES", e))
}

fn add(union: &mut ThetaUnion, sketch: &CompactThetaSketch) -> Result<()> {
    union
        .update(sketch)
        .map_err(|e| not_a_sketch("theta_union", "theta", e))
}

/// An intersection's result; an intersection of nothing is empty.
fn intersection_result(i: &ThetaIntersection) -> Vec<u8> {
    match i.to_sketch(true) {
        Some(s) => s.serialize(),
        None => ThetaSketchBuilder::default()
            .build()
            .map(|s| s.compact(true).serialize())
            .unwrap_or_default(),
    }
}

/// Values sketched here, and the partial sketches merged in (a compact
/// sketch cannot take updates, so those go through a union).
#[derive(Debug)]
struct Theta {
    name: &'static str,
    sketch: ThetaSketch,
    merged: Option<ThetaUnion>,
}

impl Sketch for Theta {
    fn update(&mut self, columns: &[ArrayRef]) -> Result<()> {
        let sketch = &mut self.sketch;
        each_item(self.name, &columns[0], true, |_, item| match item {
            Item::Long(v) => sketch.update(v),
            Item::Double(v) => sketch.update(canonical_float::from_f64(v)),
            Item::Bytes(b) => sketch.update(raw_bytes::from_slice(b)),
        })
    }
    fn merge(&mut self, state: &[u8]) -> Result<()> {
        let other = read(self.name, state)?;
        let merged = match &mut self.merged {
            Some(u) => u,
            None => self.merged.insert(union(i64::from(self.sketch.lg_k()))?),
        };
        add(merged, &other)
    }
    fn state(&self) -> Option<Vec<u8>> {
        let own = self.sketch.compact(true);
        match &self.merged {
            None => Some(own.serialize()),
            Some(merged) => {
                let mut u = union(i64::from(self.sketch.lg_k())).ok()?;
                u.update(&merged.to_sketch(true)).ok()?;
                u.update(&own).ok()?;
                Some(u.to_sketch(true).serialize())
            }
        }
    }
    fn size(&self) -> usize {
        self.sketch.estimated_size() + self.merged.as_ref().map_or(0, ThetaUnion::estimated_size)
    }
}

#[derive(Debug)]
struct Union {
    name: &'static str,
    union: ThetaUnion,
}

impl Sketch for Union {
    fn update(&mut self, columns: &[ArrayRef]) -> Result<()> {
        each_sketch(&columns[0], |bytes| self.merge(bytes))
    }
    fn merge(&mut self, state: &[u8]) -> Result<()> {
        let sketch = read(self.name, state)?;
        add(&mut self.union, &sketch)
    }
    fn state(&self) -> Option<Vec<u8>> {
        Some(self.union.to_sketch(true).serialize())
    }
    fn size(&self) -> usize {
        self.union.estimated_size()
    }
}

#[derive(Debug)]
struct Intersection {
    name: &'static str,
    intersection: ThetaIntersection,
}

impl Sketch for Intersection {
    fn update(&mut self, columns: &[ArrayRef]) -> Result<()> {
        each_sketch(&columns[0], |bytes| self.merge(bytes))
    }
    fn merge(&mut self, state: &[u8]) -> Result<()> {
        let sketch = read(self.name, state)?;
        self.intersection
            .update(&sketch)
            .map_err(|e| not_a_sketch(self.name, "theta", e))
    }
    fn state(&self) -> Option<Vec<u8>> {
        // None until a sketch came: the identity of intersecting
        self.intersection.to_sketch(true).map(|s| s.serialize())
    }
    fn result(&self) -> Option<Vec<u8>> {
        Some(intersection_result(&self.intersection))
    }
    fn size(&self) -> usize {
        self.intersection.estimated_size()
    }
}
