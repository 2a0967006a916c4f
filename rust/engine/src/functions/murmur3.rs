//! Spark's `hash(cols...)`: Murmur3 x86 32-bit with seed 42, folded over
//! the columns (each column's hash seeds the next; a null leaves the seed).
//! Spark hashes each type through its own path (ints as one word, longs as
//! two, strings by words then one byte at a time), so the values match
//! Spark's only when every type takes Spark's path; `datafusion-spark` has
//! `xxhash64` but not this one.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Int32Array};
use arrow::datatypes::{DataType, Int16Type, Int32Type, Int64Type, Int8Type};
use datafusion::error::{DataFusionError, Result as DFResult};

const C1: u32 = 0xcc9e_2d51;
const C2: u32 = 0x1b87_3593;
/// Spark's seed for `hash()`.
pub const SEED: u32 = 42;

fn mix_k1(k1: u32) -> u32 {
    k1.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2)
}

fn mix_h1(h1: u32, k1: u32) -> u32 {
    (h1 ^ k1)
        .rotate_left(13)
        .wrapping_mul(5)
        .wrapping_add(0xe654_6b64)
}

fn fmix(mut h1: u32, length: u32) -> u32 {
    h1 ^= length;
    h1 ^= h1 >> 16;
    h1 = h1.wrapping_mul(0x85eb_ca6b);
    h1 ^= h1 >> 13;
    h1 = h1.wrapping_mul(0xc2b2_ae35);
    h1 ^ (h1 >> 16)
}

pub fn hash_int(v: i32, seed: u32) -> u32 {
    fmix(mix_h1(seed, mix_k1(v as u32)), 4)
}

pub fn hash_long(v: i64, seed: u32) -> u32 {
    let h1 = mix_h1(seed, mix_k1(v as u32));
    fmix(mix_h1(h1, mix_k1((v >> 32) as u32)), 8)
}

/// Spark's `hashUnsafeBytes`: whole little-endian words, then each trailing
/// byte (sign-extended) mixed as a word of its own.
pub fn hash_bytes(bytes: &[u8], seed: u32) -> u32 {
    let words = bytes.chunks_exact(4);
    let tail = words.remainder();
    let mut h1 = seed;
    for w in words {
        h1 = mix_h1(h1, mix_k1(u32::from_le_bytes([w[0], w[1], w[2], w[3]])));
    }
    for b in tail {
        h1 = mix_h1(h1, mix_k1(*b as i8 as i32 as u32));
    }
    fmix(h1, bytes.len() as u32)
}

/// Fold row `i` of `a` into `seeds[i]` for every row (nulls leave it).
fn fold(a: &ArrayRef, seeds: &mut [u32]) -> DFResult<()> {
    macro_rules! each {
        ($arr:expr, |$v:ident, $s:ident| $body:expr) => {{
            let arr = $arr;
            for (i, seed) in seeds.iter_mut().enumerate() {
                if arr.is_valid(i) {
                    let $v = arr.value(i);
                    let $s = *seed;
                    *seed = $body;
                }
            }
        }};
    }
    match a.data_type() {
        DataType::Null => {}
        DataType::Boolean => each!(a.as_boolean(), |v, s| hash_int(v as i32, s)),
        DataType::Int8 => each!(a.as_primitive::<Int8Type>(), |v, s| hash_int(v as i32, s)),
        DataType::Int16 => each!(a.as_primitive::<Int16Type>(), |v, s| hash_int(v as i32, s)),
        DataType::Int32 => each!(a.as_primitive::<Int32Type>(), |v, s| hash_int(v, s)),
        DataType::Date32 => each!(a.as_primitive::<arrow::datatypes::Date32Type>(), |v, s| {
            hash_int(v, s)
        }),
        DataType::Int64 => each!(a.as_primitive::<Int64Type>(), |v, s| hash_long(v, s)),
        DataType::Timestamp(arrow::datatypes::TimeUnit::Microsecond, _) => {
            each!(
                a.as_primitive::<arrow::datatypes::TimestampMicrosecondType>(),
                |v, s| hash_long(v, s)
            )
        }
        // -0.0 hashes as 0.0, every NaN as the canonical one (Java's bits)
        DataType::Float32 => each!(a.as_primitive::<arrow::datatypes::Float32Type>(), |v, s| {
            let v = if v == 0.0 { 0.0f32 } else { v };
            let bits = if v.is_nan() { 0x7fc0_0000 } else { v.to_bits() };
            hash_int(bits as i32, s)
        }),
        DataType::Float64 => each!(a.as_primitive::<arrow::datatypes::Float64Type>(), |v, s| {
            let v = if v == 0.0 { 0.0f64 } else { v };
            let bits = if v.is_nan() {
                0x7ff8_0000_0000_0000
            } else {
                v.to_bits()
            };
            hash_long(bits as i64, s)
        }),
        DataType::Decimal128(p, _) if *p <= 18 => {
            each!(
                a.as_primitive::<arrow::datatypes::Decimal128Type>(),
                |v, s| hash_long(v as i64, s)
            )
        }
        DataType::Utf8 => each!(a.as_string::<i32>(), |v, s| hash_bytes(v.as_bytes(), s)),
        DataType::LargeUtf8 => each!(a.as_string::<i64>(), |v, s| hash_bytes(v.as_bytes(), s)),
        DataType::Utf8View => each!(a.as_string_view(), |v, s| hash_bytes(v.as_bytes(), s)),
        DataType::Binary => each!(a.as_binary::<i32>(), |v, s| hash_bytes(v, s)),
        DataType::LargeBinary => each!(a.as_binary::<i64>(), |v, s| hash_bytes(v, s)),
        DataType::BinaryView => each!(a.as_binary_view(), |v, s| hash_bytes(v, s)),
        // a struct folds its fields into the row's seed, an array its elements
        DataType::Struct(_) => {
            let st = a.as_struct();
            for col in st.columns() {
                let mut inner = seeds.to_vec();
                fold(col, &mut inner)?;
                for (i, seed) in seeds.iter_mut().enumerate() {
                    if st.is_valid(i) {
                        *seed = inner[i];
                    }
                }
            }
        }
        DataType::List(_) | DataType::LargeList(_) => {
            for (i, seed) in seeds.iter_mut().enumerate() {
                if a.is_valid(i) {
                    let values = match a.data_type() {
                        DataType::List(_) => a.as_list::<i32>().value(i),
                        _ => a.as_list::<i64>().value(i),
                    };
                    let mut acc = *seed;
                    for j in 0..values.len() {
                        let mut one = [acc];
                        fold(&values.slice(j, 1), &mut one)?;
                        acc = one[0];
                    }
                    *seed = acc;
                }
            }
        }
        other => {
            return Err(DataFusionError::Plan(format!(
                "[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] hash does not support {other}"
            )))
        }
    }
    Ok(())
}

/// `hash(cols...)` over whole columns.
pub fn kernel(args: &[ArrayRef]) -> DFResult<ArrayRef> {
    let rows = args.first().map_or(1, |a| a.len());
    let mut seeds = vec![SEED; rows];
    for a in args {
        fold(a, &mut seeds)?;
    }
    Ok(Arc::new(Int32Array::from_iter_values(
        seeds.into_iter().map(|h| h as i32),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_sparks_murmur3() {
        // Spark 4.3: SELECT hash(1), hash(CAST(1 AS BIGINT)), hash('ABC'), hash('')
        assert_eq!(hash_int(1, SEED) as i32, -559580957);
        assert_eq!(hash_long(1, SEED) as i32, -1712319331);
        assert_eq!(hash_bytes(b"ABC", SEED) as i32, -757602832);
        assert_eq!(hash_bytes(b"", SEED) as i32, 142593372);
        assert_eq!(hash_bytes(b"abcde", SEED) as i32, 814637928);
    }

    fn one(a: ArrayRef) -> i32 {
        kernel(&[a]).unwrap().as_primitive::<Int32Type>().value(0)
    }

    #[test]
    fn hashes_each_type_as_spark_does() {
        use arrow::array::*;
        // Spark 4.3: hash(1.5D), hash(-0.0D), hash(true), hash(NULL),
        // hash(array(1, 2)), hash(DATE'2020-01-01'), hash(1.5BD(10,2)), hash(1, 'a')
        assert_eq!(one(Arc::new(Float64Array::from(vec![1.5]))), 1290763749);
        assert_eq!(one(Arc::new(Float64Array::from(vec![-0.0]))), -1670924195);
        assert_eq!(one(Arc::new(BooleanArray::from(vec![true]))), -559580957);
        assert_eq!(one(Arc::new(NullArray::new(1))), 42);
        let list =
            ListArray::from_iter_primitive::<Int32Type, _, _>(vec![Some(vec![Some(1), Some(2)])]);
        assert_eq!(one(Arc::new(list)), -222940379);
        assert_eq!(one(Arc::new(Date32Array::from(vec![18262]))), -725858435);
        let dec = Decimal128Array::from(vec![150])
            .with_precision_and_scale(10, 2)
            .unwrap();
        assert_eq!(one(Arc::new(dec)), -2056712946);
        let two = kernel(&[
            Arc::new(Int32Array::from(vec![1])),
            Arc::new(StringArray::from(vec!["a"])),
        ])
        .unwrap();
        assert_eq!(two.as_primitive::<Int32Type>().value(0), -936062819);
    }
}
