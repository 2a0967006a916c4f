//! Tuple sketches (a theta sketch whose keys carry a double or integer
//! summary): `tuple_sketch_agg_*`, `tuple_union_agg_*`,
//! `tuple_intersection_agg_*`, `tuple_sketch_estimate_*`,
//! `tuple_sketch_summary_*`, `tuple_sketch_theta_*`, `tuple_union_*`,
//! `tuple_intersection_*`, `tuple_difference_*`. Summaries of one key
//! combine by the mode: `sum` (Spark's default), `min`, `max`, `alwaysone`.

use std::fmt::Debug;
use std::marker::PhantomData;
use std::sync::Arc;

use arrow::array::{ArrayRef, AsArray, Float64Array, Int64Array};
use arrow::datatypes::{DataType, Float64Type, Int32Type};
use datafusion::common::Result;
use datafusion::logical_expr::{AggregateUDF, ScalarUDF};
use datasketches::hash::value::{canonical_float, raw_bytes};
use datasketches::tuple::{
    CompactTupleSketch, SummaryCombinePolicy, SummaryPolicy, SummaryUpdatePolicy, TupleANotB,
    TupleIntersection, TupleSketch, TupleSketchBuilder, TupleSummaryValue, TupleUnion,
    TupleUnionBuilder,
};

use super::theta::LG_NOM_ENTRIES;
use super::{
    aggregate, combine_rows, each_item, each_sketch, error, function, map_rows, not_a_sketch, Item,
    Params, Sketch,
};

/// How the summaries of one key combine.
#[derive(Debug, Clone, Copy)]
enum Mode {
    Sum,
    Min,
    Max,
    AlwaysOne,
}

impl Mode {
    fn parse(function: &str, params: &Params, i: usize) -> Result<Mode> {
        Ok(match params.text(function, i, "sum")?.to_ascii_lowercase().as_str() {
            "sum" => Mode::Sum,
            "min" => Mode::Min,
            "max" => Mode::Max,
            "alwaysone" => Mode::AlwaysOne,
            other => {
                return Err(error(
                    "TUPLE_INVALID_SKETCH_MODE",
                    format!("{function}: the mode must be one of sum, min, max, alwaysone, not '{other}'"),
                ))
            }
        })
    }
}

/// A summary's number type.
trait Number: Copy + Debug + Send + Sync + TupleSummaryValue + 'static {
    /// The functions' names: sketch_agg, union_agg, intersection_agg,
    /// estimate, summary, theta, union, intersection, difference, and the
    /// last three with a theta sketch as the second input.
    const NAMES: [&'static str; 12];
    /// The type `tuple_sketch_summary_*` returns.
    const TOTAL: DataType;
    /// The summary before any value: what combining by `mode` leaves alone.
    fn identity(mode: Mode) -> Self;
    fn combine(mode: Mode, a: Self, b: Self) -> Self;
    fn column(array: &ArrayRef) -> Result<Vec<Option<Self>>>;
    fn totals(values: Vec<Option<Self>>) -> ArrayRef;
}

impl Number for f64 {
    const NAMES: [&'static str; 12] = [
        "tuple_sketch_agg_double",
        "tuple_union_agg_double",
        "tuple_intersection_agg_double",
        "tuple_sketch_estimate_double",
        "tuple_sketch_summary_double",
        "tuple_sketch_theta_double",
        "tuple_union_double",
        "tuple_intersection_double",
        "tuple_difference_double",
        "tuple_union_theta_double",
        "tuple_intersection_theta_double",
        "tuple_difference_theta_double",
    ];
    const TOTAL: DataType = DataType::Float64;
    fn identity(mode: Mode) -> f64 {
        match mode {
            Mode::Min => f64::INFINITY,
            Mode::Max => f64::NEG_INFINITY,
            Mode::Sum | Mode::AlwaysOne => 0.0,
        }
    }
    fn combine(mode: Mode, a: f64, b: f64) -> f64 {
        match mode {
            Mode::Sum => a + b,
            Mode::Min => a.min(b),
            Mode::Max => a.max(b),
            Mode::AlwaysOne => 1.0,
        }
    }
    fn column(array: &ArrayRef) -> Result<Vec<Option<f64>>> {
        let doubles = arrow::compute::cast(array, &DataType::Float64)?;
        Ok(doubles.as_primitive::<Float64Type>().iter().collect())
    }
    fn totals(values: Vec<Option<f64>>) -> ArrayRef {
        Arc::new(Float64Array::from(values))
    }
}

impl Number for i32 {
    const NAMES: [&'static str; 12] = [
        "tuple_sketch_agg_integer",
        "tuple_union_agg_integer",
        "tuple_intersection_agg_integer",
        "tuple_sketch_estimate_integer",
        "tuple_sketch_summary_integer",
        "tuple_sketch_theta_integer",
        "tuple_union_integer",
        "tuple_intersection_integer",
        "tuple_difference_integer",
        "tuple_union_theta_integer",
        "tuple_intersection_theta_integer",
        "tuple_difference_theta_integer",
    ];
    const TOTAL: DataType = DataType::Int64;
    fn identity(mode: Mode) -> i32 {
        match mode {
            Mode::Min => i32::MAX,
            Mode::Max => i32::MIN,
            Mode::Sum | Mode::AlwaysOne => 0,
        }
    }
    fn combine(mode: Mode, a: i32, b: i32) -> i32 {
        match mode {
            Mode::Sum => a.wrapping_add(b),
            Mode::Min => a.min(b),
            Mode::Max => a.max(b),
            Mode::AlwaysOne => 1,
        }
    }
    fn column(array: &ArrayRef) -> Result<Vec<Option<i32>>> {
        let ints = arrow::compute::cast(array, &DataType::Int32)?;
        Ok(ints.as_primitive::<Int32Type>().iter().collect())
    }
    fn totals(values: Vec<Option<i32>>) -> ArrayRef {
        Arc::new(Int64Array::from_iter(
            values.into_iter().map(|v| v.map(i64::from)),
        ))
    }
}

/// DataSketches' summary policy for a mode: a key's summary starts as the
/// mode's identity and takes each value by the mode.
#[derive(Debug, Clone, Copy)]
struct Policy<N> {
    mode: Mode,
    number: PhantomData<N>,
}

impl<N: Number> Policy<N> {
    fn new(mode: Mode) -> Self {
        Policy {
            mode,
            number: PhantomData,
        }
    }
}

impl<N: Number> SummaryPolicy for Policy<N> {
    type Summary = N;
    fn create(&self) -> N {
        N::identity(self.mode)
    }
}

impl<N: Number> SummaryUpdatePolicy<N> for Policy<N> {
    fn update(&self, summary: &mut N, value: N) {
        *summary = N::combine(self.mode, *summary, value);
    }
}

impl<N: Number> SummaryCombinePolicy for Policy<N> {
    fn combine(&self, summary: &mut N, other: &N) {
        *summary = N::combine(self.mode, *summary, *other);
    }
}

type Compact<N> = CompactTupleSketch<N>;

fn read<N: Number>(function: &str, bytes: &[u8]) -> Result<Compact<N>> {
    CompactTupleSketch::deserialize(bytes).map_err(|e| not_a_sketch(function, "tuple", e))
}

pub(super) fn aggregates() -> Vec<AggregateUDF> {
    [of_number_aggregates::<f64>(), of_number_aggregates::<i32>()].concat()
}

pub(super) fn scalars() -> Vec<ScalarUDF> {
    [of_number_scalars::<f64>(), of_number_scalars::<i32>()].concat()
}

fn union<N: Number>(lg_k: i64, mode: Mode) -> Result<TupleUnion<Policy<N>>> {
    TupleUnionBuilder::new(Policy::new(mode))
        .lg_k(lg_k as u8)
        .build()
        .map_err(|e| error("TUPLE_INVALID_LG_NOM_ENTRIES", e))
}

fn of_number_aggregates<N: Number>() -> Vec<AggregateUDF> {
    vec![
        aggregate(N::NAMES[0], |name, params, _| {
            let lg_k = params.int(name, 2, 12, LG_NOM_ENTRIES)?;
            let mode = Mode::parse(name, params, 3)?;
            let sketch = TupleSketchBuilder::new(Policy::<N>::new(mode))
                .lg_k(lg_k as u8)
                .build()
                .map_err(|e| error("TUPLE_INVALID_LG_NOM_ENTRIES", e))?;
            Ok(Box::new(Tuple::<N> {
                name,
                mode,
                sketch,
                merged: union(lg_k, mode)?,
            }))
        }),
        aggregate(N::NAMES[1], |name, params, _| {
            let lg_k = params.int(name, 1, 12, LG_NOM_ENTRIES)?;
            let mode = Mode::parse(name, params, 2)?;
            Ok(Box::new(Union::<N> {
                name,
                union: union(lg_k, mode)?,
            }))
        }),
        aggregate(N::NAMES[2], |name, params, _| {
            let mode = Mode::parse(name, params, 1)?;
            Ok(Box::new(Intersection::<N> {
                name,
                intersection: TupleIntersection::new(Policy::new(mode)),
            }))
        }),
    ]
}

fn of_number_scalars<N: Number>() -> Vec<ScalarUDF> {
    vec![
        function(N::NAMES[3], DataType::Float64, |name, _, args| {
            let rows = map_rows(&args[0], |_, bytes| {
                Ok(Some(read::<N>(name, bytes)?.estimate()))
            })?;
            Ok(Arc::new(Float64Array::from(rows)) as ArrayRef)
        }),
        function(N::NAMES[4], N::TOTAL, |name, params, args| {
            let mode = Mode::parse(name, params, 1)?;
            let rows = map_rows(&args[0], |_, bytes| {
                let sketch = read::<N>(name, bytes)?;
                Ok(sketch
                    .iter()
                    .map(|e| *e.summary())
                    .reduce(|a, b| N::combine(mode, a, b)))
            })?;
            Ok(N::totals(rows))
        }),
        function(N::NAMES[5], DataType::Float64, |name, _, args| {
            let rows = map_rows(&args[0], |_, bytes| {
                Ok(Some(read::<N>(name, bytes)?.theta()))
            })?;
            Ok(Arc::new(Float64Array::from(rows)) as ArrayRef)
        }),
        function(N::NAMES[6], DataType::Binary, |name, params, args| {
            union_rows::<N>(name, params, args, read::<N>)
        }),
        function(N::NAMES[7], DataType::Binary, |name, params, args| {
            intersection_rows::<N>(name, params, args, read::<N>)
        }),
        function(N::NAMES[8], DataType::Binary, |name, params, args| {
            difference_rows::<N>(name, params, args, read::<N>)
        }),
        function(N::NAMES[9], DataType::Binary, |name, params, args| {
            let mode = Mode::parse(name, params, 3)?;
            union_rows::<N>(name, params, args, move |f, b| of_theta::<N>(f, b, mode))
        }),
        function(N::NAMES[10], DataType::Binary, |name, params, args| {
            let mode = Mode::parse(name, params, 2)?;
            intersection_rows::<N>(name, params, args, move |f, b| of_theta::<N>(f, b, mode))
        }),
        function(N::NAMES[11], DataType::Binary, |name, params, args| {
            difference_rows::<N>(name, params, args, |f, b| of_theta::<N>(f, b, Mode::Sum))
        }),
    ]
}

fn union_rows<N: Number>(
    name: &str,
    params: &Params,
    args: &[ArrayRef],
    second: impl Fn(&str, &[u8]) -> Result<Compact<N>>,
) -> Result<ArrayRef> {
    let lg_k = params.int(name, 2, 12, LG_NOM_ENTRIES)?;
    let mode = Mode::parse(name, params, 3)?;
    combine_rows(&args[0], &args[1], |a, b| {
        let mut u = union::<N>(lg_k, mode)?;
        for sketch in [read::<N>(name, a)?, second(name, b)?] {
            u.update(&sketch)
                .map_err(|e| not_a_sketch(name, "tuple", e))?;
        }
        Ok(u.to_sketch(true).serialize())
    })
}

fn intersection_rows<N: Number>(
    name: &str,
    params: &Params,
    args: &[ArrayRef],
    second: impl Fn(&str, &[u8]) -> Result<Compact<N>>,
) -> Result<ArrayRef> {
    let mode = Mode::parse(name, params, 2)?;
    combine_rows(&args[0], &args[1], |a, b| {
        let mut i = TupleIntersection::new(Policy::<N>::new(mode));
        for sketch in [read::<N>(name, a)?, second(name, b)?] {
            i.update(&sketch)
                .map_err(|e| not_a_sketch(name, "tuple", e))?;
        }
        Ok(i.to_sketch(true).map(|s| s.serialize()).unwrap_or_default())
    })
}

fn difference_rows<N: Number>(
    name: &str,
    _: &Params,
    args: &[ArrayRef],
    second: impl Fn(&str, &[u8]) -> Result<Compact<N>>,
) -> Result<ArrayRef> {
    combine_rows(&args[0], &args[1], |a, b| {
        let (a, b) = (read::<N>(name, a)?, second(name, b)?);
        let diff = TupleANotB::default()
            .compute(&a, &b, true)
            .map_err(|e| not_a_sketch(name, "tuple", e))?;
        Ok(diff.serialize())
    })
}

/// A theta sketch as a tuple sketch whose keys all carry the mode's new
/// summary (as Spark's `*_theta_*` functions treat it): written in the
/// compact tuple format DataSketches reads (the crate builds tuple sketches
/// only from keys, and a theta sketch keeps only their hashes).
fn of_theta<N: Number>(function: &str, bytes: &[u8], mode: Mode) -> Result<Compact<N>> {
    use datasketches::codec::SketchBytes;
    const SERIAL_VERSION: u8 = 3;
    const FAMILY_TUPLE: u8 = 9;
    const SKETCH_TYPE: u8 = 1;
    const READ_ONLY: u8 = 1 << 1;
    const EMPTY: u8 = 1 << 2;
    const COMPACT: u8 = 1 << 3;
    const ORDERED: u8 = 1 << 4;
    let theta = super::theta::read(function, bytes)?;
    // Spark's factory's new summary: the identity, but 1 for alwaysone
    let summary = N::combine(mode, N::identity(mode), N::identity(mode));
    let mut hashes: Vec<u64> = theta.iter().map(|e| e.hash()).collect();
    hashes.sort_unstable();
    let estimating = theta.is_estimation_mode();
    let pre_longs: u8 = if estimating {
        3
    } else if hashes.len() == 1 {
        1
    } else {
        2
    };
    let mut out = SketchBytes::with_capacity(24 + hashes.len() * 16);
    out.write_u8(if theta.is_empty() { 1 } else { pre_longs });
    out.write_u8(SERIAL_VERSION);
    out.write_u8(FAMILY_TUPLE);
    out.write_u8(SKETCH_TYPE);
    out.write_u8(0);
    let empty = if theta.is_empty() { EMPTY } else { 0 };
    out.write_u8(READ_ONLY | COMPACT | ORDERED | empty);
    out.write_u16_le(theta.seed_hash());
    if !theta.is_empty() {
        if pre_longs > 1 {
            out.write_u32_le(hashes.len() as u32);
            out.write_u32_le(0);
        }
        if estimating {
            out.write_u64_le(theta.theta64());
        }
        for hash in hashes {
            out.write_u64_le(hash);
            summary.serialize_value(&mut out);
        }
    }
    CompactTupleSketch::deserialize(&out.into_bytes())
        .map_err(|e| not_a_sketch(function, "theta", e))
}

/// Keys with their summaries, and the partial sketches merged in.
#[derive(Debug)]
struct Tuple<N: Number> {
    name: &'static str,
    mode: Mode,
    sketch: TupleSketch<Policy<N>>,
    merged: TupleUnion<Policy<N>>,
}

impl<N: Number> Sketch for Tuple<N> {
    fn update(&mut self, columns: &[ArrayRef]) -> Result<()> {
        let summaries = N::column(&columns[1])?;
        let sketch = &mut self.sketch;
        each_item(self.name, &columns[0], true, |row, item| {
            let Some(value) = summaries[row] else { return };
            match item {
                Item::Long(v) => sketch.update(v, value),
                Item::Double(v) => sketch.update(canonical_float::from_f64(v), value),
                Item::Bytes(b) => sketch.update(raw_bytes::from_slice(b), value),
            }
        })
    }
    fn merge(&mut self, state: &[u8]) -> Result<()> {
        let other = read::<N>(self.name, state)?;
        self.merged
            .update(&other)
            .map_err(|e| not_a_sketch(self.name, "tuple", e))
    }
    fn state(&self) -> Option<Vec<u8>> {
        let own = self.sketch.compact(true);
        let mut all = self.merged.to_sketch(true);
        if !own.is_empty() {
            let lg_k = i64::from(self.sketch.lg_k());
            let mut u = union::<N>(lg_k, self.mode).ok()?;
            u.update(&all).ok()?;
            u.update(&own).ok()?;
            all = u.to_sketch(true);
        }
        Some(all.serialize())
    }
    fn size(&self) -> usize {
        self.sketch.estimated_size() + self.merged.estimated_size()
    }
}

#[derive(Debug)]
struct Union<N: Number> {
    name: &'static str,
    union: TupleUnion<Policy<N>>,
}

impl<N: Number> Sketch for Union<N> {
    fn update(&mut self, columns: &[ArrayRef]) -> Result<()> {
        each_sketch(&columns[0], |bytes| self.merge(bytes))
    }
    fn merge(&mut self, state: &[u8]) -> Result<()> {
        let sketch = read::<N>(self.name, state)?;
        self.union
            .update(&sketch)
            .map_err(|e| not_a_sketch(self.name, "tuple", e))
    }
    fn state(&self) -> Option<Vec<u8>> {
        Some(self.union.to_sketch(true).serialize())
    }
    fn size(&self) -> usize {
        self.union.estimated_size()
    }
}

#[derive(Debug)]
struct Intersection<N: Number> {
    name: &'static str,
    intersection: TupleIntersection<Policy<N>>,
}

impl<N: Number> Sketch for Intersection<N> {
    fn update(&mut self, columns: &[ArrayRef]) -> Result<()> {
        each_sketch(&columns[0], |bytes| self.merge(bytes))
    }
    fn merge(&mut self, state: &[u8]) -> Result<()> {
        let sketch = read::<N>(self.name, state)?;
        self.intersection
            .update(&sketch)
            .map_err(|e| not_a_sketch(self.name, "tuple", e))
    }
    fn state(&self) -> Option<Vec<u8>> {
        self.intersection.to_sketch(true).map(|s| s.serialize())
    }
    fn size(&self) -> usize {
        self.intersection.estimated_size()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datasketches::theta::ThetaSketchBuilder;

    /// A theta sketch read as a tuple sketch is the tuple sketch of the same
    /// keys, byte for byte, when the summaries agree.
    #[test]
    fn theta_sketch_reads_as_the_tuple_sketch_of_its_keys() {
        for keys in [vec![], vec![7_i64], (0..100).collect::<Vec<i64>>()] {
            let mut theta = ThetaSketchBuilder::default().build().unwrap();
            let mut tuple = TupleSketchBuilder::new(Policy::<f64>::new(Mode::Sum))
                .build()
                .unwrap();
            for &k in &keys {
                theta.update(k);
                tuple.update(k, 0.0);
            }
            let bytes = theta.compact(true).serialize();
            let read = of_theta::<f64>("test", &bytes, Mode::Sum).unwrap();
            assert_eq!(read.serialize(), tuple.compact(true).serialize());
            assert_eq!(read.estimate(), keys.len() as f64);
        }
    }
}
