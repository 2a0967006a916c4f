//! Spark functions DataFusion lacks or defines differently, as DataFusion
//! scalar UDFs registered under Spark's names: the DataFrame API and SQL
//! both use them, so there is one implementation.

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, Date32Array, Int64Array, ListBuilder, StringArray, StringBuilder,
    TimestampMicrosecondArray,
};
use arrow::compute::cast;
use arrow::datatypes::{DataType, Field, TimeUnit};
use datafusion::error::{DataFusionError, Result as DFResult};
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};

use chrono_tz::Tz;

use crate::formats::datetime::{
    format_timestamp_micros_in, parse_date_days, parse_timestamp_micros_in, session_zone,
};

pub(super) type Kernel = fn(&[ArrayRef]) -> DFResult<ArrayRef>;

/// A kernel that reads or writes wall-clock time in the session time zone.
pub(super) type ZonedKernel = fn(&[ArrayRef], &Tz) -> DFResult<ArrayRef>;

#[derive(Debug)]
enum Kernels {
    Plain(Kernel),
    Zoned(ZonedKernel),
}

/// A row-wise Spark function with a fixed return type.
#[derive(Debug)]
struct SparkFn {
    name: &'static str,
    signature: Signature,
    returns: DataType,
    kernel: Kernels,
}

impl PartialEq for SparkFn {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}
impl Eq for SparkFn {}
impl Hash for SparkFn {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name.hash(state)
    }
}

impl ScalarUDFImpl for SparkFn {
    fn name(&self) -> &str {
        self.name
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, _arg_types: &[DataType]) -> DFResult<DataType> {
        Ok(self.returns.clone())
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> DFResult<ColumnarValue> {
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        Ok(ColumnarValue::Array(match self.kernel {
            Kernels::Plain(kernel) => kernel(&arrays)?,
            Kernels::Zoned(kernel) => {
                let tz = session_zone_of(&args.config_options.execution.time_zone)?;
                kernel(&arrays, &tz)?
            }
        }))
    }
}

/// The session time zone DataFusion's config carries (UTC when unset).
pub(super) fn session_zone_of(name: &Option<String>) -> DFResult<Tz> {
    match name.as_deref() {
        None => Ok(Tz::UTC),
        Some(n) => session_zone(n).ok_or_else(|| {
            DataFusionError::Configuration(format!(
                "[INVALID_CONF_VALUE.TIME_ZONE] The value '{n}' in spark.sql.session.timeZone is not a time zone"
            ))
        }),
    }
}

pub(super) fn ts_type() -> DataType {
    DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
}

fn arg_err(name: &str, expected: &str) -> DataFusionError {
    DataFusionError::Plan(format!("{name}: expected {expected}"))
}

pub(super) fn strings(a: &ArrayRef) -> DFResult<StringArray> {
    Ok(cast(a, &DataType::Utf8)?.as_string::<i32>().clone())
}

/// The timestamp (µs, UTC) of any timestamp, date or string column (text
/// being wall-clock time in `tz`).
pub(super) fn micros(a: &ArrayRef, tz: &Tz) -> DFResult<Vec<Option<i64>>> {
    if matches!(
        a.data_type(),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
    ) {
        return Ok(strings(a)?
            .iter()
            .map(|v| v.and_then(|s| parse_timestamp_micros_in(s, None, tz)))
            .collect());
    }
    let c = cast(a, &ts_type())?;
    let t = c
        .as_any()
        .downcast_ref::<TimestampMicrosecondArray>()
        .ok_or_else(|| arg_err("timestamp", "a timestamp"))?;
    Ok(t.iter().collect())
}

fn pattern_at(args: &[ArrayRef], i: usize, row: usize) -> DFResult<Option<String>> {
    match args.get(i) {
        None => Ok(None),
        Some(a) => {
            let s = strings(a)?;
            Ok(s.is_valid(row).then(|| s.value(row).to_string()))
        }
    }
}

fn to_timestamp_kernel(args: &[ArrayRef], tz: &Tz) -> DFResult<ArrayRef> {
    let a = args
        .first()
        .ok_or_else(|| arg_err("to_timestamp", "a column"))?;
    if args.len() == 1
        && !matches!(
            a.data_type(),
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
        )
    {
        if a.data_type().is_numeric() {
            // numbers are seconds since the epoch, as in Spark
            let secs = cast(a, &DataType::Float64)?;
            let out: TimestampMicrosecondArray = secs
                .as_primitive::<arrow::datatypes::Float64Type>()
                .iter()
                .map(|v| v.map(|s| (s * 1e6) as i64))
                .collect();
            return Ok(Arc::new(out.with_timezone("UTC")));
        }
        return Ok(cast(a, &ts_type())?);
    }
    let s = strings(a)?;
    let mut out = Vec::with_capacity(s.len());
    for row in 0..s.len() {
        let fmt = pattern_at(args, 1, row)?;
        out.push(if s.is_valid(row) {
            parse_timestamp_micros_in(s.value(row), fmt.as_deref(), tz)
        } else {
            None
        });
    }
    Ok(Arc::new(
        TimestampMicrosecondArray::from(out).with_timezone("UTC"),
    ))
}

fn to_date_kernel(args: &[ArrayRef]) -> DFResult<ArrayRef> {
    let a = args.first().ok_or_else(|| arg_err("to_date", "a column"))?;
    if !matches!(
        a.data_type(),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
    ) {
        return Ok(cast(a, &DataType::Date32)?);
    }
    let s = strings(a)?;
    let mut out = Vec::with_capacity(s.len());
    for row in 0..s.len() {
        let fmt = pattern_at(args, 1, row)?;
        out.push(if s.is_valid(row) {
            parse_date_days(s.value(row), fmt.as_deref())
        } else {
            None
        });
    }
    Ok(Arc::new(Date32Array::from(out)))
}

fn date_format_kernel(args: &[ArrayRef], tz: &Tz) -> DFResult<ArrayRef> {
    let ts = micros(
        args.first()
            .ok_or_else(|| arg_err("date_format", "a column"))?,
        tz,
    )?;
    let mut out = StringBuilder::new();
    for (row, v) in ts.iter().enumerate() {
        match (v, pattern_at(args, 1, row)?) {
            (Some(m), Some(f)) => out.append_option(format_timestamp_micros_in(*m, &f, tz)),
            _ => out.append_null(),
        }
    }
    Ok(Arc::new(out.finish()))
}

fn unix_timestamp_kernel(args: &[ArrayRef], tz: &Tz) -> DFResult<ArrayRef> {
    let Some(a) = args.first() else {
        let now = chrono::Utc::now().timestamp();
        return Ok(Arc::new(Int64Array::from(vec![now])));
    };
    let out: Int64Array = if matches!(
        a.data_type(),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
    ) {
        let s = strings(a)?;
        let mut v = Vec::with_capacity(s.len());
        for row in 0..s.len() {
            let fmt = pattern_at(args, 1, row)?.unwrap_or_else(|| "yyyy-MM-dd HH:mm:ss".into());
            v.push(if s.is_valid(row) {
                parse_timestamp_micros_in(s.value(row), Some(&fmt), tz)
                    .map(|m| m.div_euclid(1_000_000))
            } else {
                None
            });
        }
        v.into()
    } else {
        micros(a, tz)?
            .into_iter()
            .map(|m| m.map(|m| m.div_euclid(1_000_000)))
            .collect()
    };
    Ok(Arc::new(out))
}

fn from_unixtime_kernel(args: &[ArrayRef], tz: &Tz) -> DFResult<ArrayRef> {
    let secs = cast(
        args.first()
            .ok_or_else(|| arg_err("from_unixtime", "a column"))?,
        &DataType::Int64,
    )?;
    let secs = secs.as_primitive::<arrow::datatypes::Int64Type>();
    let mut out = StringBuilder::new();
    for row in 0..secs.len() {
        let fmt = pattern_at(args, 1, row)?.unwrap_or_else(|| "yyyy-MM-dd HH:mm:ss".into());
        if secs.is_valid(row) {
            out.append_option(format_timestamp_micros_in(
                secs.value(row) * 1_000_000,
                &fmt,
                tz,
            ));
        } else {
            out.append_null();
        }
    }
    Ok(Arc::new(out.finish()))
}

pub(super) fn regex_cache() -> impl FnMut(&str) -> DFResult<Arc<regex::Regex>> {
    let mut last: Option<(String, Arc<regex::Regex>)> = None;
    move |p: &str| {
        if let Some((lp, re)) = &last {
            if lp == p {
                return Ok(Arc::clone(re));
            }
        }
        let re = Arc::new(regex::Regex::new(p).map_err(|e| {
            DataFusionError::Execution(format!("invalid regular expression '{p}': {e}"))
        })?);
        last = Some((p.to_string(), Arc::clone(&re)));
        Ok(re)
    }
}

fn regexp_extract_kernel(args: &[ArrayRef]) -> DFResult<ArrayRef> {
    if args.len() < 2 {
        return Err(arg_err("regexp_extract", "(str, pattern[, idx])"));
    }
    let s = strings(&args[0])?;
    let pats = strings(&args[1])?;
    let idx = match args.get(2) {
        Some(a) => cast(a, &DataType::Int64)?
            .as_primitive::<arrow::datatypes::Int64Type>()
            .clone(),
        None => Int64Array::from(vec![1; s.len()]),
    };
    let mut get = regex_cache();
    let mut out = StringBuilder::new();
    for row in 0..s.len() {
        if s.is_null(row) || pats.is_null(row) || idx.is_null(row) {
            out.append_null();
            continue;
        }
        let re = get(pats.value(row))?;
        let group = idx.value(row) as usize;
        if group > re.captures_len() - 1 {
            return Err(DataFusionError::Execution(format!(
                "regexp_extract: the regex group index {group} exceeds the group count {} of '{}'",
                re.captures_len() - 1,
                pats.value(row)
            )));
        }
        // Spark returns "" when the pattern or the group does not match
        let v = re
            .captures(s.value(row))
            .and_then(|c| c.get(group).map(|m| m.as_str().to_string()))
            .unwrap_or_default();
        out.append_value(v);
    }
    Ok(Arc::new(out.finish()))
}

fn split_kernel(args: &[ArrayRef]) -> DFResult<ArrayRef> {
    if args.len() < 2 {
        return Err(arg_err("split", "(str, pattern[, limit])"));
    }
    let s = strings(&args[0])?;
    let pats = strings(&args[1])?;
    let limit = match args.get(2) {
        Some(a) => cast(a, &DataType::Int64)?
            .as_primitive::<arrow::datatypes::Int64Type>()
            .clone(),
        None => Int64Array::from(vec![-1; s.len()]),
    };
    let mut get = regex_cache();
    let mut out = ListBuilder::new(StringBuilder::new());
    for row in 0..s.len() {
        if s.is_null(row) || pats.is_null(row) {
            out.append_null();
            continue;
        }
        let re = get(pats.value(row))?;
        let lim = if limit.is_valid(row) {
            limit.value(row)
        } else {
            -1
        };
        let parts: Vec<&str> = if lim > 0 {
            re.splitn(s.value(row), lim as usize).collect()
        } else {
            re.split(s.value(row)).collect()
        };
        for p in parts {
            out.values().append_value(p);
        }
        out.append(true);
    }
    Ok(Arc::new(out.finish()))
}

/// `$.a.b[0]` path steps.
enum Step {
    Key(String),
    Index(usize),
    /// `[*]`: every element of an array
    Every,
}

fn parse_json_path(path: &str) -> Option<Vec<Step>> {
    let rest = path.strip_prefix('$')?;
    let mut steps = Vec::new();
    let chars: Vec<char> = rest.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '.' => {
                let start = i + 1;
                i = start;
                while i < chars.len() && chars[i] != '.' && chars[i] != '[' {
                    i += 1;
                }
                steps.push(Step::Key(chars[start..i].iter().collect()));
            }
            '[' => {
                let end = chars[i..].iter().position(|c| *c == ']')? + i;
                let inner: String = chars[i + 1..end].iter().collect();
                let inner = inner.trim();
                if inner == "*" {
                    steps.push(Step::Every);
                } else if let Ok(n) = inner.parse::<usize>() {
                    steps.push(Step::Index(n));
                } else {
                    steps.push(Step::Key(
                        inner.trim_matches('\'').trim_matches('"').to_string(),
                    ));
                }
                i = end + 1;
            }
            _ => return None,
        }
    }
    Some(steps)
}

fn get_json_object_kernel(args: &[ArrayRef]) -> DFResult<ArrayRef> {
    if args.len() != 2 {
        return Err(arg_err("get_json_object", "(json, path)"));
    }
    let s = strings(&args[0])?;
    let paths = strings(&args[1])?;
    let mut out = StringBuilder::new();
    for row in 0..s.len() {
        if s.is_null(row) || paths.is_null(row) {
            out.append_null();
            continue;
        }
        let value = serde_json::from_str::<serde_json::Value>(s.value(row)).ok();
        let found = value.and_then(|v| {
            let steps = parse_json_path(paths.value(row))?;
            let mut current = vec![&v];
            for st in &steps {
                current = current
                    .into_iter()
                    .flat_map(|cur| -> Vec<&serde_json::Value> {
                        match st {
                            Step::Key(k) => cur.get(k).into_iter().collect(),
                            Step::Index(n) => cur.get(*n).into_iter().collect(),
                            Step::Every => cur
                                .as_array()
                                .map(|a| a.iter().collect())
                                .unwrap_or_default(),
                        }
                    })
                    .collect();
            }
            // with `[*]`, the matches as JSON (one unwrapped), as Spark's
            if steps.iter().any(|s| matches!(s, Step::Every)) {
                return match current.as_slice() {
                    [] => None,
                    [one] => Some(one.to_string()),
                    many => Some(
                        serde_json::Value::Array(many.iter().map(|v| (*v).clone()).collect())
                            .to_string(),
                    ),
                };
            }
            match current.first()? {
                serde_json::Value::Null => None,
                serde_json::Value::String(s) => Some(s.clone()),
                other => Some(other.to_string()),
            }
        });
        out.append_option(found);
    }
    Ok(Arc::new(out.finish()))
}

/// Each value of `a` as JSON text.
pub(super) fn to_json(a: &ArrayRef) -> DFResult<ArrayRef> {
    to_json_kernel(std::slice::from_ref(a))
}

fn to_json_kernel(args: &[ArrayRef]) -> DFResult<ArrayRef> {
    let a = args
        .first()
        .ok_or_else(|| arg_err("to_json", "a struct, map or array column"))?;
    // a variant is its JSON text already
    if matches!(
        a.data_type(),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
    ) {
        return Ok(cast(a, &DataType::Utf8)?);
    }
    let mut out = StringBuilder::new();
    // Serialize each row through arrow-json's writer (as a one-field record).
    let field = Field::new("v", a.data_type().clone(), true);
    let schema = Arc::new(arrow::datatypes::Schema::new(vec![field]));
    let batch = arrow::array::RecordBatch::try_new(schema, vec![Arc::clone(a)])?;
    let mut buf = Vec::new();
    {
        // Spark's default formats: milliseconds, and `Z` for the UTC
        // instants sparklet's timestamps are
        let mut w = arrow::json::WriterBuilder::new()
            .with_timestamp_format("%Y-%m-%dT%H:%M:%S%.3f".into())
            .with_timestamp_tz_format("%Y-%m-%dT%H:%M:%S%.3fZ".into())
            .build::<_, arrow::json::writer::LineDelimited>(&mut buf);
        w.write(&batch)?;
        w.finish()?;
    }
    let text = String::from_utf8_lossy(&buf);
    let mut lines = text.lines();
    for row in 0..a.len() {
        let line = lines.next().unwrap_or("{}");
        if a.is_null(row) {
            out.append_null();
            continue;
        }
        // the writer emits {"v":<value>}; keep <value> as written (field order kept)
        let value = line
            .strip_prefix("{\"v\":")
            .and_then(|rest| rest.strip_suffix('}'))
            .unwrap_or("null");
        out.append_value(value);
    }
    Ok(Arc::new(out.finish()))
}

/// `from_json(col, schema)`: a UDF instance per target type.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct FromJson {
    returns: DataType,
    signature: Signature,
}

impl FromJson {
    /// A `from_json` producing `returns` (a struct type).
    pub fn new(returns: DataType) -> Self {
        FromJson {
            returns,
            signature: Signature::any(1, Volatility::Immutable),
        }
    }
}

impl ScalarUDFImpl for FromJson {
    fn name(&self) -> &str {
        "from_json"
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, _arg_types: &[DataType]) -> DFResult<DataType> {
        Ok(self.returns.clone())
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> DFResult<ColumnarValue> {
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let s = strings(&arrays[0])?;
        let DataType::Struct(fields) = &self.returns else {
            return Ok(ColumnarValue::Array(from_json_value(&s, &self.returns)?));
        };
        let schema = Arc::new(arrow::datatypes::Schema::new(fields.clone()));
        let opts = crate::formats::ReadOptions::from_options(&Default::default())
            .map_err(|e| DataFusionError::External(Box::new(e)))?;
        // one JSON record per row (a line each: an empty one would be
        // skipped); as in Spark, a null or blank string is a null struct,
        // and any other text that is not a record a struct of nulls
        let present: Vec<bool> = (0..s.len())
            .map(|i| s.is_valid(i) && !s.value(i).trim_matches(|c| c <= ' ').is_empty())
            .collect();
        let text: Vec<String> = (0..s.len())
            .map(
                |i| match present[i] && crate::formats::json::is_record(s.value(i), &opts) {
                    true => s.value(i).replace(['\n', '\r'], " "),
                    false => "null".into(),
                },
            )
            .collect();
        let parsed = crate::formats::json::parse(&text.join("\n"), &schema, &opts, "from_json")
            .map_err(|e| DataFusionError::External(Box::new(e)))?;
        let st = arrow::array::StructArray::try_new(
            fields.clone(),
            parsed.columns().to_vec(),
            Some(present.into()),
        )?;
        Ok(ColumnarValue::Array(Arc::new(st)))
    }
}

/// `from_json` to a map, an array or a value: each row's JSON read as the
/// field of a one-field record (null where it is not JSON).
fn from_json_value(s: &StringArray, returns: &DataType) -> DFResult<ArrayRef> {
    let field = arrow::datatypes::Field::new("value", returns.clone(), true);
    let schema = Arc::new(arrow::datatypes::Schema::new(vec![field]));
    let opts = crate::formats::ReadOptions::from_options(&Default::default())
        .map_err(|e| DataFusionError::External(Box::new(e)))?;
    let records: Vec<String> = s
        .iter()
        .map(|v| match v {
            Some(text) if serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok() => {
                format!("{{\"value\": {}}}", text.replace(['\n', '\r'], " "))
            }
            _ => "{}".to_string(),
        })
        .collect();
    let parsed = crate::formats::json::parse(&records.join("\n"), &schema, &opts, "from_json")
        .map_err(|e| DataFusionError::External(Box::new(e)))?;
    Ok(Arc::clone(parsed.column(0)))
}

/// A row-wise function `name` computed by `kernel` over its arguments.
pub(super) fn kernel_udf(name: &'static str, returns: DataType, kernel: Kernel) -> ScalarUDF {
    ScalarUDF::new_from_impl(SparkFn {
        name,
        signature: Signature::variadic_any(Volatility::Immutable),
        returns,
        kernel: Kernels::Plain(kernel),
    })
}

/// Spark's `to_timestamp` reading text as UTC wall-clock time (for
/// timestamps without time zone).
pub(super) fn to_timestamp_utc_udf() -> ScalarUDF {
    kernel_udf("to_timestamp", ts_type(), |args| {
        to_timestamp_kernel(args, &Tz::UTC)
    })
}

/// Spark's `date_format` (wall-clock time in the session time zone).
pub(super) fn date_format_udf() -> ScalarUDF {
    zoned(
        "date_format",
        DataType::Utf8,
        date_format_kernel,
        Volatility::Immutable,
    )
}

/// Spark's `unix_timestamp` (text read in the session time zone).
pub(super) fn unix_timestamp_udf() -> ScalarUDF {
    zoned(
        "unix_timestamp",
        DataType::Int64,
        unix_timestamp_kernel,
        Volatility::Volatile,
    )
}

/// `assert_true(cond[, message])`: null, or the error `message` (Spark's
/// default names the condition) where `cond` is not true.
fn assert_true_kernel(args: &[ArrayRef]) -> DFResult<ArrayRef> {
    let Some(cond) = args.first() else {
        return Err(arg_err("assert_true", "(condition[, message])"));
    };
    let cond = cast(cond, &DataType::Boolean)?;
    let cond = cond.as_boolean();
    for row in 0..cond.len() {
        if cond.is_null(row) || !cond.value(row) {
            let message = pattern_at(args, 1, row)?.unwrap_or_else(|| "assertion failed".into());
            return Err(DataFusionError::Execution(format!(
                "[USER_RAISED_EXCEPTION] {message}"
            )));
        }
    }
    Ok(arrow::array::new_null_array(&DataType::Null, cond.len()))
}

/// `raise_error(message)`: the error `message` for any row.
fn raise_error_kernel(args: &[ArrayRef]) -> DFResult<ArrayRef> {
    let Some(message) = args.first() else {
        return Err(arg_err("raise_error", "(message)"));
    };
    if message.is_empty() {
        return Ok(arrow::array::new_null_array(&DataType::Null, 0));
    }
    let message = pattern_at(args, 0, 0)?.unwrap_or_else(|| "null".into());
    Err(DataFusionError::Execution(format!(
        "[USER_RAISED_EXCEPTION] {message}"
    )))
}

pub(super) fn zoned(
    name: &'static str,
    returns: DataType,
    kernel: ZonedKernel,
    vol: Volatility,
) -> ScalarUDF {
    ScalarUDF::new_from_impl(SparkFn {
        name,
        signature: Signature::variadic_any(vol),
        returns,
        kernel: Kernels::Zoned(kernel),
    })
}

/// Every Spark-named UDF, for registration in a session.
pub fn all() -> Vec<ScalarUDF> {
    let f = |name: &'static str, returns: DataType, kernel: Kernel, vol: Volatility| {
        ScalarUDF::new_from_impl(SparkFn {
            name,
            signature: Signature::variadic_any(vol),
            returns,
            kernel: Kernels::Plain(kernel),
        })
    };
    let imm = Volatility::Immutable;
    vec![
        zoned("to_timestamp", ts_type(), to_timestamp_kernel, imm),
        f("to_date", DataType::Date32, to_date_kernel, imm),
        date_format_udf(),
        unix_timestamp_udf(),
        zoned("from_unixtime", DataType::Utf8, from_unixtime_kernel, imm),
        f("regexp_extract", DataType::Utf8, regexp_extract_kernel, imm),
        f(
            "split",
            DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))),
            split_kernel,
            imm,
        ),
        f(
            "get_json_object",
            DataType::Utf8,
            get_json_object_kernel,
            imm,
        ),
        f("to_json", DataType::Utf8, to_json_kernel, imm),
        f("hash", DataType::Int32, super::murmur3::kernel, imm),
        ScalarUDF::new_from_impl(super::rounding::BRound::new()),
        f(
            "assert_true",
            DataType::Null,
            assert_true_kernel,
            Volatility::Volatile,
        ),
        f(
            "raise_error",
            DataType::Null,
            raise_error_kernel,
            Volatility::Volatile,
        ),
    ]
    .into_iter()
    .chain(super::text::all())
    .chain(super::vectors::scalars())
    .chain(super::xpath::all())
    .chain(super::timestamps::all())
    .chain(super::random::all())
    .chain(super::variant::all())
    .chain(super::arrays::all())
    .chain(super::number_format::all())
    .chain(super::java_math::all())
    .chain(super::aes::all())
    .collect()
}
