//! KLL quantile sketches of bigint, float and double values:
//! `kll_sketch_agg_*`, `kll_merge_agg_*`, `kll_sketch_get_n_*`,
//! `kll_sketch_get_quantile_*`, `kll_sketch_get_rank_*`,
//! `kll_sketch_merge_*`, `kll_sketch_to_string_*`.

use std::fmt::{Debug, Display};
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Float32Array, Float64Array, Int64Array, StringArray};
use arrow::datatypes::{DataType, Float32Type, Float64Type, Int64Type};
use datafusion::common::Result;
use datafusion::logical_expr::{AggregateUDF, ScalarUDF};
use datasketches::common::SearchCriteria;
use datasketches::kll::{KllFloat, KllSketch, KllValue};

use super::{
    aggregate, combine_rows, each_sketch, error, function, map_rows, not_a_sketch,
    unsupported_input, Sketch,
};

/// Spark's default and bounds of `k`.
const K: (i64, i64) = (8, 65535);
const DEFAULT_K: i64 = 200;

/// One of the value types a KLL sketch holds.
trait Kind: Debug + Send + Sync + 'static {
    type Item: KllValue + Ord + Clone + Debug + Display + Send + Sync;
    /// The functions' names: agg, merge_agg, get_n, get_quantile, get_rank,
    /// merge, to_string.
    const NAMES: [&'static str; 7];
    /// DataSketches' Java class, as `kll_sketch_to_string` names it.
    const CLASS: &'static str;
    const TYPE: DataType;
    fn items(function: &str, array: &ArrayRef) -> Result<Vec<Self::Item>>;
    fn array(values: Vec<Option<Self::Item>>) -> ArrayRef;
    fn from_f64(v: f64) -> Option<Self::Item>;
}

#[derive(Debug)]
struct Longs;
#[derive(Debug)]
struct Floats;
#[derive(Debug)]
struct Doubles;

impl Kind for Longs {
    type Item = i64;
    const NAMES: [&'static str; 7] = [
        "kll_sketch_agg_bigint",
        "kll_merge_agg_bigint",
        "kll_sketch_get_n_bigint",
        "kll_sketch_get_quantile_bigint",
        "kll_sketch_get_rank_bigint",
        "kll_sketch_merge_bigint",
        "kll_sketch_to_string_bigint",
    ];
    const CLASS: &'static str = "KllLongsSketch";
    const TYPE: DataType = DataType::Int64;
    fn items(function: &str, array: &ArrayRef) -> Result<Vec<i64>> {
        if !array.data_type().is_integer() && !array.data_type().is_null() {
            return Err(unsupported_input(function, array.data_type(), "integers"));
        }
        let longs = arrow::compute::cast(array, &DataType::Int64)?;
        Ok(longs.as_primitive::<Int64Type>().iter().flatten().collect())
    }
    fn array(values: Vec<Option<i64>>) -> ArrayRef {
        Arc::new(Int64Array::from(values))
    }
    fn from_f64(v: f64) -> Option<i64> {
        Some(v as i64)
    }
}

impl Kind for Floats {
    type Item = KllFloat<f32>;
    const NAMES: [&'static str; 7] = [
        "kll_sketch_agg_float",
        "kll_merge_agg_float",
        "kll_sketch_get_n_float",
        "kll_sketch_get_quantile_float",
        "kll_sketch_get_rank_float",
        "kll_sketch_merge_float",
        "kll_sketch_to_string_float",
    ];
    const CLASS: &'static str = "KllFloatsSketch";
    const TYPE: DataType = DataType::Float32;
    fn items(function: &str, array: &ArrayRef) -> Result<Vec<KllFloat<f32>>> {
        numeric(function, array)?;
        let floats = arrow::compute::cast(array, &DataType::Float32)?;
        Ok(floats
            .as_primitive::<Float32Type>()
            .iter()
            .flatten()
            .filter_map(|v| KllFloat::<f32>::new(v).ok())
            .collect())
    }
    fn array(values: Vec<Option<KllFloat<f32>>>) -> ArrayRef {
        Arc::new(Float32Array::from_iter(
            values.into_iter().map(|v| v.map(KllFloat::into_inner)),
        ))
    }
    fn from_f64(v: f64) -> Option<KllFloat<f32>> {
        KllFloat::<f32>::new(v as f32).ok()
    }
}

impl Kind for Doubles {
    type Item = KllFloat<f64>;
    const NAMES: [&'static str; 7] = [
        "kll_sketch_agg_double",
        "kll_merge_agg_double",
        "kll_sketch_get_n_double",
        "kll_sketch_get_quantile_double",
        "kll_sketch_get_rank_double",
        "kll_sketch_merge_double",
        "kll_sketch_to_string_double",
    ];
    const CLASS: &'static str = "KllDoublesSketch";
    const TYPE: DataType = DataType::Float64;
    fn items(function: &str, array: &ArrayRef) -> Result<Vec<KllFloat<f64>>> {
        numeric(function, array)?;
        let doubles = arrow::compute::cast(array, &DataType::Float64)?;
        Ok(doubles
            .as_primitive::<Float64Type>()
            .iter()
            .flatten()
            .filter_map(|v| KllFloat::<f64>::new(v).ok())
            .collect())
    }
    fn array(values: Vec<Option<KllFloat<f64>>>) -> ArrayRef {
        Arc::new(Float64Array::from_iter(
            values.into_iter().map(|v| v.map(KllFloat::into_inner)),
        ))
    }
    fn from_f64(v: f64) -> Option<KllFloat<f64>> {
        KllFloat::<f64>::new(v).ok()
    }
}

fn numeric(function: &str, array: &ArrayRef) -> Result<()> {
    let t = array.data_type();
    if t.is_numeric() || t.is_null() {
        Ok(())
    } else {
        Err(unsupported_input(function, t, "numbers"))
    }
}

pub(super) fn aggregates() -> Vec<AggregateUDF> {
    [
        of_kind_aggregates::<Longs>(),
        of_kind_aggregates::<Floats>(),
        of_kind_aggregates::<Doubles>(),
    ]
    .concat()
}

pub(super) fn scalars() -> Vec<ScalarUDF> {
    [
        of_kind_scalars::<Longs>(),
        of_kind_scalars::<Floats>(),
        of_kind_scalars::<Doubles>(),
    ]
    .concat()
}

fn of_kind_aggregates<K: Kind>() -> Vec<AggregateUDF> {
    vec![
        aggregate(K::NAMES[0], |name, params, _| {
            let k = params.int(name, 1, DEFAULT_K, K)? as u16;
            let sketch = KllSketch::new(k).map_err(|e| error("KLL_SKETCH_INVALID_K", e))?;
            Ok(Box::new(Kll::<K> {
                name,
                sketch: Some(sketch),
                takes_sketches: false,
            }))
        }),
        aggregate(K::NAMES[1], |name, params, _| {
            // without k, the first sketch's
            let sketch = match params.0.get(1) {
                None => None,
                Some(_) => {
                    let k = params.int(name, 1, DEFAULT_K, K)? as u16;
                    Some(KllSketch::new(k).map_err(|e| error("KLL_SKETCH_INVALID_K", e))?)
                }
            };
            Ok(Box::new(Kll::<K> {
                name,
                sketch,
                takes_sketches: true,
            }))
        }),
    ]
}

fn of_kind_scalars<K: Kind>() -> Vec<ScalarUDF> {
    vec![
        function(K::NAMES[2], DataType::Int64, |name, _, args| {
            let rows = map_rows(&args[0], |_, bytes| {
                Ok(Some(read::<K>(name, bytes)?.n() as i64))
            })?;
            Ok(Arc::new(Int64Array::from(rows)) as ArrayRef)
        }),
        function(K::NAMES[3], K::TYPE, |name, _, args| {
            let ranks = arrow::compute::cast(&args[1], &DataType::Float64)?;
            let ranks = ranks.as_primitive::<Float64Type>();
            let rows = map_rows(&args[0], |i, bytes| {
                if ranks.is_null(i) {
                    return Ok(None);
                }
                let rank = ranks.value(i);
                if !(0.0..=1.0).contains(&rank) {
                    return Err(error(
                        "KLL_SKETCH_INVALID_QUANTILE_RANGE",
                        format!("{name}: the rank must be between 0.0 and 1.0, not {rank}"),
                    ));
                }
                read::<K>(name, bytes)?
                    .quantile(rank, SearchCriteria::Inclusive)
                    .map_err(|e| error("KLL_SKETCH_INVALID_QUANTILE_RANGE", e))
            })?;
            Ok(K::array(rows))
        }),
        function(K::NAMES[4], DataType::Float64, |name, _, args| {
            let quantiles = arrow::compute::cast(&args[1], &DataType::Float64)?;
            let quantiles = quantiles.as_primitive::<Float64Type>();
            let rows = map_rows(&args[0], |i, bytes| {
                let item = (!quantiles.is_null(i))
                    .then(|| K::from_f64(quantiles.value(i)))
                    .flatten();
                Ok(item.and_then(|q| {
                    read::<K>(name, bytes)
                        .ok()?
                        .rank(&q, SearchCriteria::Inclusive)
                }))
            })?;
            Ok(Arc::new(Float64Array::from(rows)) as ArrayRef)
        }),
        function(K::NAMES[5], DataType::Binary, |name, _, args| {
            combine_rows(&args[0], &args[1], |a, b| {
                let mut left = read::<K>(name, a)?;
                left.merge(&read::<K>(name, b)?)
                    .map_err(|e| not_a_sketch(name, "KLL", e))?;
                Ok(left.serialize())
            })
        }),
        function(K::NAMES[6], DataType::Utf8, |name, _, args| {
            let rows = map_rows(&args[0], |_, bytes| {
                Ok(Some(summary::<K>(&read::<K>(name, bytes)?)))
            })?;
            Ok(Arc::new(StringArray::from(rows)) as ArrayRef)
        }),
    ]
}

fn read<K: Kind>(function: &str, bytes: &[u8]) -> Result<KllSketch<K::Item>> {
    KllSketch::deserialize(bytes).map_err(|e| not_a_sketch(function, "KLL", e))
}

/// A sketch's summary, laid out as DataSketches' `toString`.
fn summary<K: Kind>(s: &KllSketch<K::Item>) -> String {
    let item = |v: Option<&K::Item>| v.map_or("NaN".to_string(), ToString::to_string);
    format!(
        "### {} Summary:\n   K                      : {}\n   min K                  : {}\n   N                      : {}\n   Retained items         : {}\n   Estimation mode        : {}\n   Normalized rank error  : {:.3}%\n   Min item               : {}\n   Max item               : {}\n### End sketch summary\n",
        K::CLASS,
        s.k(),
        s.min_k(),
        s.n(),
        s.num_retained(),
        s.is_estimation_mode(),
        s.normalized_rank_error() * 100.0,
        item(s.min_item()),
        item(s.max_item()),
    )
}

/// A KLL sketch of values, or of sketches merged (`kll_merge_agg_*`: its
/// sketch is the first one's until then).
#[derive(Debug)]
struct Kll<K: Kind> {
    name: &'static str,
    sketch: Option<KllSketch<K::Item>>,
    takes_sketches: bool,
}

impl<K: Kind> Sketch for Kll<K> {
    fn update(&mut self, columns: &[ArrayRef]) -> Result<()> {
        if self.takes_sketches {
            return each_sketch(&columns[0], |bytes| self.merge(bytes));
        }
        if let Some(sketch) = &mut self.sketch {
            for item in K::items(self.name, &columns[0])? {
                sketch.update(item);
            }
        }
        Ok(())
    }
    fn merge(&mut self, state: &[u8]) -> Result<()> {
        let other = read::<K>(self.name, state)?;
        match &mut self.sketch {
            Some(sketch) => sketch
                .merge(&other)
                .map_err(|e| not_a_sketch(self.name, "KLL", e)),
            None => {
                self.sketch = Some(other);
                Ok(())
            }
        }
    }
    fn state(&self) -> Option<Vec<u8>> {
        self.sketch.as_ref().map(KllSketch::serialize)
    }
    fn size(&self) -> usize {
        self.sketch
            .as_ref()
            .map_or(0, |s| s.num_retained() * std::mem::size_of::<K::Item>())
    }
}
