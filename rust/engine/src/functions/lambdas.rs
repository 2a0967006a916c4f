//! Spark's higher-order functions on DataFusion's lambda machinery, where
//! DataFusion has none or a narrower one: `transform` / `filter` whose
//! lambda may take the element's index, `aggregate` / `reduce`,
//! `zip_with`, `transform_keys`, `transform_values`, `map_filter`,
//! `map_zip_with`, and `array_sort` with a comparator. A lambda body runs
//! on whole arrays of elements at once (gathered from every row), never
//! row by row; the columns it captures are spread to the elements' rows.

use std::sync::Arc;

use arrow::array::{
    new_null_array, Array, ArrayRef, AsArray, BooleanArray, Int32Array, ListArray, MapArray,
    StructArray, UInt32Array,
};
use arrow::buffer::{NullBuffer, OffsetBuffer};
use arrow::compute::{cast, filter, interleave, nullif, take, take_arrays};
use arrow::datatypes::{DataType, Field, FieldRef, Fields};
use arrow::row::{RowConverter, SortField};
use datafusion::common::{exec_err, plan_err, Result};
use datafusion::logical_expr::{
    ColumnarValue, HigherOrderFunctionArgs, HigherOrderReturnFieldArgs, HigherOrderSignature,
    HigherOrderUDF, HigherOrderUDFImpl, LambdaArgument, LambdaParametersProgress, ValueOrLambda,
    Volatility,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    Transform,
    Filter,
    Aggregate,
    ZipWith,
    TransformKeys,
    TransformValues,
    MapFilter,
    MapZipWith,
    ArraySort,
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct SparkLambdaFunction {
    name: &'static str,
    kind: Kind,
    signature: HigherOrderSignature,
}

/// The functions, under Spark's names.
pub fn all() -> Vec<HigherOrderUDF> {
    [
        ("transform", Kind::Transform),
        ("filter", Kind::Filter),
        ("aggregate", Kind::Aggregate),
        ("reduce", Kind::Aggregate),
        ("zip_with", Kind::ZipWith),
        ("transform_keys", Kind::TransformKeys),
        ("transform_values", Kind::TransformValues),
        ("map_filter", Kind::MapFilter),
        ("map_zip_with", Kind::MapZipWith),
        ("array_sort", Kind::ArraySort),
    ]
    .into_iter()
    .map(|(name, kind)| {
        HigherOrderUDF::new_from_impl(SparkLambdaFunction {
            name,
            kind,
            signature: HigherOrderSignature::variadic_any(Volatility::Immutable),
        })
    })
    .collect()
}

/// Whether Spark's higher-order function `name` is one of these.
pub fn is_own(name: &str) -> bool {
    matches!(
        name,
        "transform"
            | "filter"
            | "aggregate"
            | "reduce"
            | "zip_with"
            | "transform_keys"
            | "transform_values"
            | "map_filter"
            | "map_zip_with"
            | "array_sort"
    )
}

fn field(t: DataType) -> FieldRef {
    Arc::new(Field::new("", t, true))
}

fn element(name: &str, t: &DataType) -> Result<FieldRef> {
    match t {
        DataType::List(f) | DataType::LargeList(f) => Ok(Arc::clone(f)),
        DataType::Null => Ok(field(DataType::Null)),
        other => plan_err!(
            "[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] {name} takes an array, not {other}"
        ),
    }
}

/// A map's key and value fields.
fn entries(name: &str, t: &DataType) -> Result<(FieldRef, FieldRef)> {
    match t {
        DataType::Map(entries, _) => match entries.data_type() {
            DataType::Struct(fields) if fields.len() == 2 => {
                Ok((Arc::clone(&fields[0]), Arc::clone(&fields[1])))
            }
            other => plan_err!("{name}: a map of {other}"),
        },
        other => {
            plan_err!("[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] {name} takes a map, not {other}")
        }
    }
}

fn values_of<T: Clone>(name: &str, args: &[ValueOrLambda<T, impl Sized>]) -> Result<Vec<T>> {
    let values: Vec<T> = args
        .iter()
        .filter_map(|a| match a {
            ValueOrLambda::Value(v) => Some(v.clone()),
            ValueOrLambda::Lambda(_) => None,
        })
        .collect();
    if values.is_empty() {
        return plan_err!("{name} takes an array or a map and a lambda");
    }
    Ok(values)
}

fn map_type(keys: FieldRef, values: FieldRef) -> DataType {
    let entries = Field::new(
        "entries",
        DataType::Struct(Fields::from(vec![keys, values])),
        false,
    );
    DataType::Map(Arc::new(entries), false)
}

impl HigherOrderUDFImpl for SparkLambdaFunction {
    fn name(&self) -> &str {
        self.name
    }
    fn signature(&self) -> &HigherOrderSignature {
        &self.signature
    }
    fn lambda_parameters(
        &self,
        _step: usize,
        fields: &[ValueOrLambda<FieldRef, Option<FieldRef>>],
    ) -> Result<LambdaParametersProgress> {
        let values = values_of(self.name, fields)?;
        let t = values[0].data_type();
        let index = field(DataType::Int32);
        let params = match self.kind {
            Kind::Transform | Kind::Filter => vec![vec![element(self.name, t)?, index]],
            Kind::ArraySort => {
                let e = element(self.name, t)?;
                vec![vec![Arc::clone(&e), e]]
            }
            Kind::Aggregate => {
                let Some(init) = values.get(1) else {
                    return plan_err!(
                        "{} takes (array, initial value, merge[, finish])",
                        self.name
                    );
                };
                let merge = vec![Arc::clone(init), element(self.name, t)?];
                let lambdas = fields.len() - values.len();
                let mut all = vec![merge];
                if lambdas > 1 {
                    all.push(vec![Arc::clone(init)]);
                }
                all
            }
            Kind::ZipWith => {
                let Some(other) = values.get(1) else {
                    return plan_err!("zip_with takes two arrays and a lambda");
                };
                vec![vec![
                    element(self.name, t)?,
                    element(self.name, other.data_type())?,
                ]]
            }
            Kind::TransformKeys | Kind::TransformValues | Kind::MapFilter => {
                let (k, v) = entries(self.name, t)?;
                vec![vec![k, v]]
            }
            Kind::MapZipWith => {
                let Some(other) = values.get(1) else {
                    return plan_err!("map_zip_with takes two maps and a lambda");
                };
                let (k, v1) = entries(self.name, t)?;
                let (_, v2) = entries(self.name, other.data_type())?;
                vec![vec![k, v1, v2]]
            }
        };
        // a parameter may be null whatever its source's nullability (a
        // padded element, a missing map value)
        let nullable = params
            .into_iter()
            .map(|ps| {
                ps.into_iter()
                    .map(|p| Arc::new(p.as_ref().clone().with_nullable(true)))
                    .collect()
            })
            .collect();
        Ok(LambdaParametersProgress::Complete(nullable))
    }
    fn return_field_from_args(&self, args: HigherOrderReturnFieldArgs) -> Result<FieldRef> {
        let values = values_of(self.name, args.arg_fields)?;
        let lambdas: Vec<&FieldRef> = args
            .arg_fields
            .iter()
            .filter_map(|a| match a {
                ValueOrLambda::Lambda(f) => Some(f),
                ValueOrLambda::Value(_) => None,
            })
            .collect();
        let Some(body) = lambdas.last() else {
            return plan_err!("{} takes a lambda", self.name);
        };
        let t = values[0].data_type();
        if self.kind == Kind::ArraySort && body.data_type() != &DataType::Int32 {
            return plan_err!(
                "[DATATYPE_MISMATCH.UNEXPECTED_RETURN_TYPE] The comparator of array_sort must return the \"INT\" type, not {}",
                body.data_type()
            );
        }
        let returns = match self.kind {
            Kind::Transform | Kind::ZipWith => DataType::new_list(body.data_type().clone(), true),
            Kind::Filter | Kind::ArraySort => t.clone(),
            Kind::Aggregate => {
                if lambdas.len() > 1 {
                    body.data_type().clone()
                } else {
                    values[1].data_type().clone()
                }
            }
            Kind::TransformKeys => {
                let (k, v) = entries(self.name, t)?;
                map_type(
                    Arc::new(k.as_ref().clone().with_data_type(body.data_type().clone())),
                    v,
                )
            }
            Kind::TransformValues | Kind::MapZipWith => {
                let (k, v) = entries(self.name, t)?;
                let v = v.as_ref().clone().with_data_type(body.data_type().clone());
                map_type(k, Arc::new(v.with_nullable(true)))
            }
            Kind::MapFilter => t.clone(),
        };
        Ok(field(returns))
    }
    fn invoke_with_args(&self, args: HigherOrderFunctionArgs) -> Result<ColumnarValue> {
        let n = args.number_rows;
        let mut values = Vec::new();
        let mut lambdas = Vec::new();
        for a in &args.args {
            match a {
                ValueOrLambda::Value(v) => values.push(v.to_array(n)?),
                ValueOrLambda::Lambda(l) => lambdas.push(l),
            }
        }
        let returns = args.return_type().clone();
        let out = match self.kind {
            Kind::Transform => transform(&values[0], lambdas[0], &returns, false)?,
            Kind::Filter => transform(&values[0], lambdas[0], &returns, true)?,
            Kind::Aggregate => aggregate(&values[0], &values[1], &lambdas, &returns)?,
            Kind::ZipWith => zip_with(&values[0], &values[1], lambdas[0], &returns)?,
            Kind::TransformKeys | Kind::TransformValues | Kind::MapFilter => {
                map_entries(self.kind, &values[0], lambdas[0], &returns)?
            }
            Kind::MapZipWith => map_zip_with(&values[0], &values[1], lambdas[0], &returns)?,
            Kind::ArraySort => sort_by(&values[0], lambdas[0])?,
        };
        Ok(ColumnarValue::Array(out))
    }
}

/// The lambda's body over `params` (one value per element), the captured
/// columns spread to each element's row (`rows`).
fn evaluate(lambda: &LambdaArgument, params: &[ArrayRef], rows: &UInt32Array) -> Result<ArrayRef> {
    let closures: Vec<Box<dyn Fn() -> Result<ArrayRef>>> = params
        .iter()
        .map(|p| {
            let p = Arc::clone(p);
            Box::new(move || Ok(Arc::clone(&p))) as Box<dyn Fn() -> Result<ArrayRef>>
        })
        .collect();
    let refs: Vec<&dyn Fn() -> Result<ArrayRef>> = closures.iter().map(|c| c.as_ref()).collect();
    lambda
        .evaluate(&refs, |captures| Ok(take_arrays(captures, rows, None)?))?
        .into_array(rows.len())
}

fn as_list(name: &str, array: &ArrayRef) -> Result<ListArray> {
    match array.data_type() {
        DataType::List(_) => Ok(array.as_list::<i32>().clone()),
        DataType::LargeList(f) => Ok(cast(array, &DataType::List(Arc::clone(f)))?
            .as_list::<i32>()
            .clone()),
        DataType::Null => Ok(new_null_array(
            &DataType::new_list(DataType::Null, true),
            array.len(),
        )
        .as_list::<i32>()
        .clone()),
        other => exec_err!("{name}: expected an array, got {other}"),
    }
}

/// Each element of a list: its row, its index in the row, and its position
/// in the list's values.
struct Elements {
    rows: UInt32Array,
    index: Int32Array,
    positions: UInt32Array,
}

fn elements(offsets: &[i32], nulls: Option<&NullBuffer>) -> Elements {
    let (mut rows, mut index, mut positions) = (Vec::new(), Vec::new(), Vec::new());
    for r in 0..offsets.len() - 1 {
        if nulls.is_some_and(|n| n.is_null(r)) {
            continue;
        }
        for (i, p) in (offsets[r]..offsets[r + 1]).enumerate() {
            rows.push(r as u32);
            index.push(i as i32);
            positions.push(p as u32);
        }
    }
    Elements {
        rows: rows.into(),
        index: index.into(),
        positions: positions.into(),
    }
}

/// A list of `values`, `lengths` elements per row, null where `nulls` says.
fn list_of(
    returns: &DataType,
    lengths: &[usize],
    values: ArrayRef,
    nulls: Option<NullBuffer>,
) -> Result<ArrayRef> {
    let DataType::List(f) = returns else {
        return exec_err!("expected a list result, got {returns}");
    };
    let f = Arc::new(
        f.as_ref()
            .clone()
            .with_data_type(values.data_type().clone()),
    );
    Ok(Arc::new(ListArray::try_new(
        f,
        OffsetBuffer::from_lengths(lengths.iter().copied()),
        values,
        nulls,
    )?))
}

fn row_lengths(offsets: &[i32], nulls: Option<&NullBuffer>) -> Vec<usize> {
    (0..offsets.len() - 1)
        .map(|r| {
            if nulls.is_some_and(|n| n.is_null(r)) {
                0
            } else {
                (offsets[r + 1] - offsets[r]) as usize
            }
        })
        .collect()
}

/// `transform(array, (x[, i]) -> f)`, or `filter(array, (x[, i]) -> p)`.
fn transform(
    array: &ArrayRef,
    lambda: &LambdaArgument,
    returns: &DataType,
    keep: bool,
) -> Result<ArrayRef> {
    let list = as_list("transform", array)?;
    let offsets = list.value_offsets();
    let e = elements(offsets, list.nulls());
    let items = take(list.values(), &e.positions, None)?;
    let index: ArrayRef = Arc::new(e.index);
    let out = evaluate(lambda, &[Arc::clone(&items), index], &e.rows)?;
    let mut lengths = row_lengths(offsets, list.nulls());
    if !keep {
        return list_of(returns, &lengths, out, list.nulls().cloned());
    }
    let Some(predicate) = out.as_boolean_opt() else {
        return exec_err!(
            "filter: the lambda must give a boolean, not {}",
            out.data_type()
        );
    };
    // a null predicate drops the element, as false does
    let predicate = BooleanArray::from_iter(predicate.iter().map(|p| Some(p == Some(true))));
    let mut removed = vec![0usize; lengths.len()];
    for (i, keep) in predicate.values().iter().enumerate() {
        if !keep {
            removed[e.rows.value(i) as usize] += 1;
        }
    }
    for (l, r) in lengths.iter_mut().zip(removed) {
        *l -= r;
    }
    let kept = filter(&items, &predicate)?;
    let f = match returns {
        DataType::List(f) => DataType::List(Arc::new(
            f.as_ref().clone().with_data_type(kept.data_type().clone()),
        )),
        other => other.clone(),
    };
    list_of(&f, &lengths, kept, list.nulls().cloned())
}

/// `aggregate(array, init, (acc, x) -> merge[, acc -> finish])`: the merge
/// runs once per element position, over every row long enough at once.
fn aggregate(
    array: &ArrayRef,
    init: &ArrayRef,
    lambdas: &[&LambdaArgument],
    returns: &DataType,
) -> Result<ArrayRef> {
    let list = as_list("aggregate", array)?;
    let offsets = list.value_offsets();
    let lengths = row_lengths(offsets, list.nulls());
    let acc_type = init.data_type().clone();
    let mut acc = Arc::clone(init);
    let longest = lengths.iter().copied().max().unwrap_or(0);
    for k in 0..longest {
        let rows: Vec<u32> = (0..lengths.len())
            .filter(|&r| lengths[r] > k)
            .map(|r| r as u32)
            .collect();
        let positions: UInt32Array = rows
            .iter()
            .map(|&r| offsets[r as usize] as u32 + k as u32)
            .collect();
        let rows = UInt32Array::from(rows);
        let items = take(list.values(), &positions, None)?;
        let current = take(&acc, &rows, None)?;
        let merged = cast(&evaluate(lambdas[0], &[current, items], &rows)?, &acc_type)?;
        let mut at: Vec<(usize, usize)> = (0..lengths.len()).map(|r| (0, r)).collect();
        for (i, r) in rows.values().iter().enumerate() {
            at[*r as usize] = (1, i);
        }
        acc = interleave(&[acc.as_ref(), merged.as_ref()], &at)?;
    }
    let all: UInt32Array = (0..lengths.len() as u32).collect();
    let out = match lambdas.get(1) {
        Some(finish) => evaluate(finish, &[acc], &all)?,
        None => acc,
    };
    let out = cast(&out, returns)?;
    match list.nulls() {
        Some(nulls) => {
            let is_null = BooleanArray::from_iter((0..list.len()).map(|r| Some(nulls.is_null(r))));
            Ok(nullif(&out, &is_null)?)
        }
        None => Ok(out),
    }
}

/// `zip_with(a, b, (x, y) -> f)`: the shorter array padded with nulls;
/// null where either array is.
fn zip_with(
    a: &ArrayRef,
    b: &ArrayRef,
    lambda: &LambdaArgument,
    returns: &DataType,
) -> Result<ArrayRef> {
    let (a, b) = (as_list("zip_with", a)?, as_list("zip_with", b)?);
    let nulls = NullBuffer::union(a.nulls(), b.nulls());
    let (la, lb) = (
        row_lengths(a.value_offsets(), nulls.as_ref()),
        row_lengths(b.value_offsets(), nulls.as_ref()),
    );
    let lengths: Vec<usize> = la.iter().zip(&lb).map(|(x, y)| *x.max(y)).collect();
    let (mut rows, mut xs, mut ys) = (Vec::new(), Vec::new(), Vec::new());
    for (r, len) in lengths.iter().enumerate() {
        for k in 0..*len {
            rows.push(r as u32);
            xs.push((k < la[r]).then(|| (a.value_offsets()[r] as usize + k) as u32));
            ys.push((k < lb[r]).then(|| (b.value_offsets()[r] as usize + k) as u32));
        }
    }
    let x = take(a.values(), &UInt32Array::from(xs), None)?;
    let y = take(b.values(), &UInt32Array::from(ys), None)?;
    let out = evaluate(lambda, &[x, y], &UInt32Array::from(rows))?;
    list_of(returns, &lengths, out, nulls)
}

fn as_map(name: &str, array: &ArrayRef) -> Result<MapArray> {
    match array.data_type() {
        DataType::Map(..) => Ok(array.as_map().clone()),
        other => exec_err!("{name}: expected a map, got {other}"),
    }
}

/// A map of `keys` and `values`, `lengths` entries per row.
fn map_of(
    returns: &DataType,
    lengths: &[usize],
    keys: ArrayRef,
    values: ArrayRef,
    nulls: Option<NullBuffer>,
) -> Result<ArrayRef> {
    let DataType::Map(entries, sorted) = returns else {
        return exec_err!("expected a map result, got {returns}");
    };
    let DataType::Struct(fields) = entries.data_type() else {
        return exec_err!("a map of {}", entries.data_type());
    };
    let fields = Fields::from(vec![
        Arc::new(
            fields[0]
                .as_ref()
                .clone()
                .with_data_type(keys.data_type().clone()),
        ),
        Arc::new(
            fields[1]
                .as_ref()
                .clone()
                .with_data_type(values.data_type().clone()),
        ),
    ]);
    let entries_field = Arc::new(
        entries
            .as_ref()
            .clone()
            .with_data_type(DataType::Struct(fields.clone())),
    );
    let entries = StructArray::try_new(fields, vec![keys, values], None)?;
    Ok(Arc::new(MapArray::try_new(
        entries_field,
        OffsetBuffer::from_lengths(lengths.iter().copied()),
        entries,
        nulls,
        *sorted,
    )?))
}

/// `transform_keys` / `transform_values` / `map_filter` with `(k, v) -> f`.
fn map_entries(
    kind: Kind,
    map: &ArrayRef,
    lambda: &LambdaArgument,
    returns: &DataType,
) -> Result<ArrayRef> {
    let map = as_map("map", map)?;
    let offsets = map.value_offsets();
    let e = elements(offsets, map.nulls());
    let keys = take(map.keys(), &e.positions, None)?;
    let values = take(map.values(), &e.positions, None)?;
    let out = evaluate(lambda, &[Arc::clone(&keys), Arc::clone(&values)], &e.rows)?;
    let mut lengths = row_lengths(offsets, map.nulls());
    let nulls = map.nulls().cloned();
    match kind {
        Kind::TransformKeys => {
            if out.null_count() > 0 {
                return exec_err!("[NULL_MAP_KEY] transform_keys: a map key cannot be null");
            }
            map_of(returns, &lengths, out, values, nulls)
        }
        Kind::TransformValues => map_of(returns, &lengths, keys, out, nulls),
        _ => {
            let Some(predicate) = out.as_boolean_opt() else {
                return exec_err!(
                    "map_filter: the lambda must give a boolean, not {}",
                    out.data_type()
                );
            };
            let predicate =
                BooleanArray::from_iter(predicate.iter().map(|p| Some(p == Some(true))));
            for (i, keep) in predicate.values().iter().enumerate() {
                if !keep {
                    lengths[e.rows.value(i) as usize] -= 1;
                }
            }
            map_of(
                returns,
                &lengths,
                filter(&keys, &predicate)?,
                filter(&values, &predicate)?,
                nulls,
            )
        }
    }
}

/// `map_zip_with(m1, m2, (k, v1, v2) -> f)`: the keys of `m1`, then those
/// only in `m2`; a value missing from one map is null. Null where either
/// map is.
fn map_zip_with(
    m1: &ArrayRef,
    m2: &ArrayRef,
    lambda: &LambdaArgument,
    returns: &DataType,
) -> Result<ArrayRef> {
    let (m1, m2) = (as_map("map_zip_with", m1)?, as_map("map_zip_with", m2)?);
    let nulls = NullBuffer::union(m1.nulls(), m2.nulls());
    let converter = RowConverter::new(vec![SortField::new(m1.keys().data_type().clone())])?;
    let k1 = converter.convert_columns(&[Arc::clone(m1.keys())])?;
    let k2 = converter.convert_columns(&[cast(m2.keys(), m1.keys().data_type())?])?;
    let (o1, o2) = (m1.value_offsets(), m2.value_offsets());
    let (mut rows, mut key_at, mut v1, mut v2, mut lengths) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for r in 0..m1.len() {
        if nulls.as_ref().is_some_and(|n| n.is_null(r)) {
            lengths.push(0);
            continue;
        }
        let second: Vec<usize> = (o2[r] as usize..o2[r + 1] as usize).collect();
        let mut matched = vec![false; second.len()];
        let before = rows.len();
        for i in o1[r] as usize..o1[r + 1] as usize {
            let j = second.iter().position(|&j| k2.row(j) == k1.row(i));
            if let Some(j) = j {
                matched[j] = true;
            }
            rows.push(r as u32);
            key_at.push((0, i));
            v1.push(Some(i as u32));
            v2.push(j.map(|j| second[j] as u32));
        }
        for (j, &idx) in second.iter().enumerate() {
            if !matched[j] {
                rows.push(r as u32);
                key_at.push((1, idx));
                v1.push(None);
                v2.push(Some(idx as u32));
            }
        }
        lengths.push(rows.len() - before);
    }
    let keys2 = cast(m2.keys(), m1.keys().data_type())?;
    let keys = interleave(&[m1.keys().as_ref(), keys2.as_ref()], &key_at)?;
    let values1 = take(m1.values(), &UInt32Array::from(v1), None)?;
    let values2 = take(m2.values(), &UInt32Array::from(v2), None)?;
    let out = evaluate(
        lambda,
        &[Arc::clone(&keys), values1, values2],
        &UInt32Array::from(rows),
    )?;
    map_of(returns, &lengths, keys, out, nulls)
}

/// Arrays longer than this are refused by `array_sort` with a comparator:
/// it compares every pair of elements at once.
const MAX_COMPARATOR_SORT: usize = 4096;

/// `array_sort(array, (x, y) -> cmp)`: each row's elements ordered by the
/// comparator (negative: x first, positive: y first).
fn sort_by(array: &ArrayRef, lambda: &LambdaArgument) -> Result<ArrayRef> {
    let list = as_list("array_sort", array)?;
    let offsets = list.value_offsets();
    let lengths = row_lengths(offsets, list.nulls());
    if let Some(long) = lengths.iter().find(|&&l| l > MAX_COMPARATOR_SORT) {
        return exec_err!(
            "array_sort with a comparator sorts arrays of up to {MAX_COMPARATOR_SORT} elements in sparklet; one has {long}"
        );
    }
    let (mut rows, mut xs, mut ys) = (Vec::new(), Vec::new(), Vec::new());
    for (r, &len) in lengths.iter().enumerate() {
        let start = offsets[r] as u32;
        for i in 0..len as u32 {
            for j in 0..len as u32 {
                rows.push(r as u32);
                xs.push(start + i);
                ys.push(start + j);
            }
        }
    }
    let x = take(list.values(), &UInt32Array::from(xs), None)?;
    let y = take(list.values(), &UInt32Array::from(ys), None)?;
    let cmp = cast(
        &evaluate(lambda, &[x, y], &UInt32Array::from(rows))?,
        &DataType::Int64,
    )?;
    let cmp = cmp.as_primitive::<arrow::datatypes::Int64Type>();
    if cmp.null_count() > 0 {
        return exec_err!("[COMPARATOR_RETURNS_NULL] The comparator has returned a NULL for a comparison between elements");
    }
    let mut order = Vec::new();
    let mut base = 0usize;
    for (r, &len) in lengths.iter().enumerate() {
        let mut idx: Vec<usize> = (0..len).collect();
        idx.sort_by(|&i, &j| cmp.value(base + i * len + j).cmp(&0));
        order.extend(idx.into_iter().map(|i| offsets[r] as u32 + i as u32));
        base += len * len;
    }
    let sorted = take(list.values(), &UInt32Array::from(order), None)?;
    list_of(list.data_type(), &lengths, sorted, list.nulls().cloned())
}
