//! The engine's one error type. Variants are grouped by what the user does
//! next (fix the query, fix the input, fix their callback), and each carries
//! Spark's error condition where Spark has one, so the Python layer can raise
//! the same exception class with the same `getCondition()`.

use datafusion::common::SchemaError;
use datafusion::error::DataFusionError;

/// Result alias used across the engine.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in the engine.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The query is invalid: unknown column, bad expression, unsupported
    /// operation. Raised when a DataFrame is built or a query starts.
    #[error("[{condition}] {message}")]
    Analysis {
        /// Spark's error condition, e.g. `UNRESOLVED_COLUMN.WITH_SUGGESTION`.
        condition: String,
        /// Human-readable message.
        message: String,
    },
    /// A bad option or argument value (Spark's `IllegalArgumentException`).
    #[error("{message}")]
    IllegalArgument {
        /// Spark's error condition where it has one (the message then starts
        /// with it in brackets, as Spark's does).
        condition: Option<String>,
        /// Human-readable message naming the argument.
        message: String,
    },
    /// Malformed input data under `mode=FAILFAST`, a reader failure, or a
    /// value an expression rejects at run time with Spark's condition
    /// (`USER_RAISED_EXCEPTION`, `DATETIME_FIELD_OUT_OF_BOUNDS`, ...).
    #[error("[{condition}] {message}")]
    Input {
        /// Spark's error condition, e.g. `MALFORMED_RECORD_IN_PARSING`.
        condition: String,
        /// Message naming the file and record.
        message: String,
    },
    /// A checkpoint that cannot be used: corrupt, from a newer version, or
    /// written by a differently shaped query. Never repaired silently.
    #[error("[{condition}] {message}")]
    Checkpoint {
        /// What kind of problem, e.g. `CHECKPOINT_FILE_CORRUPT`.
        condition: String,
        /// Message naming the file and what is wrong.
        message: String,
    },
    /// Filesystem trouble, with the path it happened on.
    #[error("{path}: {source}")]
    Io {
        /// The path being read or written.
        path: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// A failure inside user code (a foreachBatch function, a UDF). The
    /// boxed error is the user's exception as the bindings captured it, with
    /// Spark's condition for that kind of callback where it has one
    /// (`FOREACH_BATCH_USER_FUNCTION_ERROR`).
    #[error("{0}")]
    UserCode(
        Box<dyn std::error::Error + Send + Sync>,
        Option<&'static str>,
    ),
    /// A query execution failure from DataFusion.
    #[error("{0}")]
    Execution(#[from] DataFusionError),
    /// A broken invariant inside sparklet (including a caught panic).
    #[error("internal error: {0}")]
    Internal(String),
}

/// A kernel's error with Spark's condition: DataFusion carries it as
/// `[CONDITION] message` text, which [`Error::from_execution`] raises as
/// Spark does (the condition's exception class, no "Execution error: ").
pub fn kernel_error(condition: &str, message: impl std::fmt::Display) -> DataFusionError {
    DataFusionError::Execution(format!("[{condition}] {message}"))
}

/// Spark's proposal for a name that is not there: the five closest of
/// `candidates` by edit distance, each once, quoted.
pub fn closest_names<'a>(missing: &str, candidates: impl Iterator<Item = &'a str>) -> String {
    use datafusion::common::utils::datafusion_strsim::levenshtein;
    let mut names: Vec<&str> = Vec::new();
    for name in candidates {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names.sort_by_key(|name| levenshtein(name, missing));
    let quoted: Vec<String> = names.iter().take(5).map(|n| format!("`{n}`")).collect();
    quoted.join(", ")
}

/// Spark's wording of a SQL syntax error (`Syntax error at or near 'x'.`)
/// from the SQL parser's, which follows for where and what was expected.
fn syntax_error(parser: &str) -> String {
    let detail = parser.strip_prefix("sql parser error: ").unwrap_or(parser);
    match detail
        .split_once("found: ")
        .map(|(_, rest)| rest.split(" at Line").next().unwrap_or(rest))
    {
        Some(found) => format!("Syntax error at or near '{found}'. ({detail})"),
        None => format!("Syntax error: {detail}"),
    }
}

impl Error {
    /// Spark's error for a zero divisor under ANSI.
    pub fn divide_by_zero() -> Self {
        Error::Input {
            condition: "DIVIDE_BY_ZERO".into(),
            message: "Division by zero. Use `try_divide` to tolerate divisor being 0 and return NULL instead. If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error.".into(),
        }
    }

    /// Spark's error for a zero divisor of a remainder under ANSI.
    pub fn remainder_by_zero() -> Self {
        Error::Input {
            condition: "REMAINDER_BY_ZERO".into(),
            message: "Remainder by zero. Use `try_mod` to tolerate divisor being 0 and return NULL instead. If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error.".into(),
        }
    }

    /// An analysis error with Spark's condition.
    pub fn analysis(condition: &str, message: impl Into<String>) -> Self {
        Error::Analysis {
            condition: condition.to_string(),
            message: message.into(),
        }
    }

    /// Spark's error for a function no catalog has.
    pub fn unresolved_routine(name: &str) -> Self {
        Error::analysis(
            "UNRESOLVED_ROUTINE",
            format!(
                "Cannot resolve routine `{name}` on search path [`system`.`builtin`, `system`.`session`, `spark_catalog`.`default`]."
            ),
        )
    }

    /// Spark's error for a table or view no catalog has (`name` as written).
    pub fn table_not_found(name: &str) -> Self {
        Error::analysis(
            "TABLE_OR_VIEW_NOT_FOUND",
            format!("The table or view `{name}` cannot be found. Verify the spelling and correctness of the schema and catalog."),
        )
    }

    /// A bad argument or option value.
    pub fn illegal_argument(message: impl Into<String>) -> Self {
        Error::IllegalArgument {
            condition: None,
            message: message.into(),
        }
    }

    /// A bad argument or option value, with Spark's condition.
    pub fn illegal_argument_in(condition: &str, message: impl std::fmt::Display) -> Self {
        Error::IllegalArgument {
            condition: Some(condition.to_string()),
            message: format!("[{condition}] {message}"),
        }
    }

    /// An I/O error on `path`.
    pub fn io(path: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// This error, naming the file `path` when it names none: a writer's
    /// failure (a full disk, say) that arrow or parquet reports without one.
    pub fn naming(self, path: &std::path::Path) -> Self {
        match self {
            e @ (Error::Io { .. } | Error::Checkpoint { .. } | Error::UserCode(..)) => e,
            other => Error::io(
                path.display().to_string(),
                std::io::Error::other(other.to_string()),
            ),
        }
    }

    /// Spark's error condition for this error, if it has one.
    pub fn condition(&self) -> Option<&str> {
        match self {
            Error::Analysis { condition, .. }
            | Error::Input { condition, .. }
            | Error::Checkpoint { condition, .. } => Some(condition.as_str()),
            Error::UserCode(_, condition) => *condition,
            Error::IllegalArgument { condition, .. } => condition.as_deref(),
            _ => None,
        }
    }

    /// Classify an error DataFusion raised while *planning* (building a
    /// DataFrame, resolving an expression): those are the user's analysis
    /// errors in Spark's terms.
    pub fn from_planning(err: DataFusionError) -> Self {
        match err {
            DataFusionError::SchemaError(schema_err, _) => match *schema_err {
                SchemaError::FieldNotFound {
                    field,
                    valid_fields,
                } => {
                    let names = valid_fields.iter().map(|c| c.name.as_str());
                    Error::analysis(
                        "UNRESOLVED_COLUMN.WITH_SUGGESTION",
                        format!(
                            "A column, variable, or function parameter with name `{}` cannot be resolved. Did you mean one of the following? [{}].",
                            field.name,
                            closest_names(&field.name, names)
                        ),
                    )
                }
                other => Error::analysis("AMBIGUOUS_OR_INVALID_REFERENCE", other.to_string()),
            },
            DataFusionError::Plan(msg) => {
                if let Some(name) = msg
                    .strip_prefix("Invalid function '")
                    .and_then(|rest| rest.split_once('\''))
                    .map(|(name, _)| name)
                {
                    Error::unresolved_routine(name)
                } else if let Some(table) = msg
                    .strip_prefix("table '")
                    .and_then(|rest| rest.strip_suffix("' not found"))
                {
                    // DataFusion names the table fully; Spark as written
                    let written = table.strip_prefix("spark_catalog.").unwrap_or(table);
                    let written = written.strip_prefix("default.").unwrap_or(written);
                    Error::table_not_found(&written.replace('.', "`.`"))
                } else if msg.contains("Invalid function") || msg.contains("not found") {
                    Error::analysis("UNRESOLVED_ROUTINE", msg)
                } else {
                    Error::analysis("DATATYPE_MISMATCH", msg)
                }
            }
            DataFusionError::SQL(e, _) => {
                Error::analysis("PARSE_SYNTAX_ERROR", syntax_error(&e.to_string()))
            }
            DataFusionError::Context(ctx, inner) => match Error::from_planning(*inner) {
                Error::Analysis { condition, message } => Error::Analysis {
                    condition,
                    message: format!("{message} ({ctx})"),
                },
                other => other,
            },
            DataFusionError::Diagnostic(_, inner) => Error::from_planning(*inner),
            DataFusionError::NotImplemented(msg) => Error::analysis("UNSUPPORTED_FEATURE", msg),
            // our own errors travelling through DataFusion, and everything else
            other => Error::from_execution(other),
        }
    }

    /// Unwrap an engine error that travelled through DataFusion as
    /// `External` (for example a malformed-record error from a reader).
    pub fn from_execution(err: DataFusionError) -> Self {
        match err {
            DataFusionError::External(e) => match e.downcast::<Error>() {
                Ok(ours) => *ours,
                Err(e) => Error::Execution(DataFusionError::External(e)),
            },
            DataFusionError::Context(ctx, inner) => match Error::from_execution(*inner) {
                Error::Execution(e) => Error::Execution(DataFusionError::Context(ctx, Box::new(e))),
                other => other,
            },
            DataFusionError::Shared(shared) => match std::sync::Arc::try_unwrap(shared) {
                Ok(inner) => Error::from_execution(inner),
                Err(shared) => Error::Execution(DataFusionError::Shared(shared)),
            },
            // a kernel's error that names Spark's condition: raised as
            // Spark raises it, without DataFusion's "Execution error: "
            DataFusionError::Execution(text) => match spark_condition(&text) {
                Some((condition, message)) => Error::Input {
                    condition: condition.to_string(),
                    message: message.to_string(),
                },
                None => Error::Execution(DataFusionError::Execution(text)),
            },
            DataFusionError::ArrowError(e, _)
                if matches!(*e, arrow::error::ArrowError::DivideByZero) =>
            {
                Error::divide_by_zero()
            }
            DataFusionError::ArrowError(e, context) => match cast_invalid_input(&e) {
                Some(spark) => spark,
                None => Error::Execution(DataFusionError::ArrowError(e, context)),
            },
            other => Error::Execution(other),
        }
    }
}

/// Spark's `CAST_INVALID_INPUT` for arrow's error casting text that is not
/// a number (or a boolean) under ANSI casts.
fn cast_invalid_input(e: &arrow::error::ArrowError) -> Option<Error> {
    let arrow::error::ArrowError::CastError(text) = e else {
        return None;
    };
    let rest = text
        .strip_prefix("Cannot cast string '")
        .or_else(|| text.strip_prefix("Cannot cast value '"))?;
    let (value, target) = rest.rsplit_once("' to value of ")?;
    let spark_type = match target.strip_suffix(" type")? {
        "Int8" => "TINYINT",
        "Int16" => "SMALLINT",
        "Int32" => "INT",
        "Int64" => "BIGINT",
        "Float32" => "FLOAT",
        "Float64" => "DOUBLE",
        "Boolean" => "BOOLEAN",
        // arrow names the decimal it parses into, not the target's precision
        t if t.starts_with("Decimal") => "DECIMAL",
        _ => return None,
    };
    Some(Error::Input {
        condition: "CAST_INVALID_INPUT".into(),
        message: format!(
            "The value '{value}' of the type \"STRING\" cannot be cast to \"{spark_type}\" because it is malformed. Correct the value as per the syntax, or change its target type. Use `try_cast` to tolerate malformed input and return NULL instead."
        ),
    })
}

/// `("COND.SUB", "message")` of a message `"[COND.SUB] message"`.
fn spark_condition(text: &str) -> Option<(&str, &str)> {
    let (condition, message) = text.strip_prefix('[')?.split_once("] ")?;
    let spark_like = !condition.is_empty()
        && condition
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_' || c == '.');
    spark_like.then_some((condition, message))
}

impl From<arrow::error::ArrowError> for Error {
    fn from(e: arrow::error::ArrowError) -> Self {
        Error::Execution(DataFusionError::ArrowError(Box::new(e), None))
    }
}
