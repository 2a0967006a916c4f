//! Per-key state in the plan: the logical node, opened by the engine with
//! its state layout checked (a processor's may evolve).

use super::*;

/// The logical `groupBy(keys).applyInPandasWithState(...)` of a stream.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GroupStateNode {
    /// The input plan.
    pub input: LogicalPlan,
    /// Grouping columns of the input.
    pub keys: Vec<String>,
    /// The user's function.
    pub func: UserFunction,
    /// The output schema (`outputStructType`).
    pub output: DFSchemaRef,
    /// The state's fields (`stateStructType`; the state variables).
    pub state: Vec<FieldRef>,
    /// The API it serves.
    pub flavor: Flavor,
    /// `timeoutConf`.
    pub timeout: GroupTimeout,
    /// A processor's settings.
    pub processor: Option<ProcessorSettings>,
    /// The running query's operator.
    pub slot: OperatorSlot<GroupStateOp>,
}

impl PartialOrd for GroupStateNode {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        // nodes are told apart by identity; no order among them
        (self == other).then_some(std::cmp::Ordering::Equal)
    }
}

pub(super) fn converter(fields: &[FieldRef]) -> Result<RowConverter> {
    Ok(RowConverter::new(
        fields
            .iter()
            .map(|f| SortField::new(f.data_type().clone()))
            .collect(),
    )?)
}

impl GroupStateNode {
    /// The node with its operator opened for a running query.
    pub fn open(&self, ctx: &OpenContext) -> Result<(Self, Arc<dyn OperatorControl>)> {
        let time_column = ctx.watermarks.first().map(|(c, _)| c.clone());
        if self.timeout == GroupTimeout::EventTime && time_column.is_none() {
            return Err(Error::analysis(
                "UNSUPPORTED_STREAMING_OPERATION",
                format!("Watermark must be specified in the query using '[Dataset/DataFrame].withWatermark()' for using event-time timeout in a {}. Event-time timeout not supported without watermark.", self.flavor.name()),
            ));
        }
        let schema = self.input.schema().as_arrow();
        let key_fields = self
            .keys
            .iter()
            .map(|k| Ok(Arc::new(schema.field_with_name(k)?.clone())))
            .collect::<Result<Vec<FieldRef>>>()?;
        let values = self.flavor.value_fields(&self.state);
        let mut spec = ctx.spec.clone();
        let processor = matches!(self.flavor, Flavor::Processor { .. });
        if processor {
            // values written with earlier variables are read as declared now
            spec.evolution = Some(Arc::new(
                crate::state::processor_evolution::ProcessorEvolution {
                    encoding: spec.encoding,
                },
            ));
        }
        let check = |stored: &StateLayout| {
            super::processor_schema::check_restart(&stored.value, &values, spec.encoding)
        };
        let table = StateTable {
            name: "default",
            layout: StateLayout {
                key: key_fields.clone(),
                time: None,
                value: values.clone(),
                rows: None,
            },
            order: KeyOrder::Unordered,
            restart_check: processor.then_some(&check as &LayoutCheck),
        };
        let state = spec
            .open_tables(ctx.provider.as_ref(), self.flavor.name(), &[table])?
            .remove(0);
        if let Some(settings) = &self.processor {
            // rewritten at each start: the processor's variables may change
            crate::checkpoint::log::write_atomic(
                &ctx.spec.dir.join("_metadata").join(PROPERTIES_FILE),
                settings.properties.as_bytes(),
                spec.fsync,
            )?;
        }
        let mut op = GroupStateOp {
            state,
            key_conv: converter(&key_fields)?,
            value_conv: converter(&values)?,
            key_schema: Arc::new(Schema::new(key_fields)),
            state_type: values[0].data_type().clone(),
            value_columns: values.len(),
            func: self.func.clone(),
            flavor: self.flavor,
            output: Arc::new(self.output.as_arrow().clone()),
            timeout: self.timeout,
            time_column,
            late_us: None,
            evict_us: None,
            batch_id: 0,
            now_ms: 0,
            next_timeout_ms: None,
            metrics: OperatorMetrics::default(),
            processor_rows: 0,
            processor_metrics: serde_json::Map::new(),
            unsupported_provider: None,
            event_time_column: self
                .processor
                .as_ref()
                .and_then(|p| p.event_time_column.clone()),
        };
        if matches!(self.flavor, Flavor::Processor { .. }) {
            op.processor_rows = op.stored_processor_rows()?;
            // Spark keeps a processor's variables in column families, which
            // only its RocksDB provider has
            let class = ctx.provider.spark_class();
            op.unsupported_provider =
                (!class.ends_with("RocksDBStateStoreProvider")).then_some(class);
        }
        let node = GroupStateNode {
            slot: OperatorSlot::empty(),
            ..self.clone()
        };
        let control = node.slot.open(op);
        Ok((node, control))
    }
}

impl UserDefinedLogicalNodeCore for GroupStateNode {
    fn name(&self) -> &str {
        "FlatMapGroupsInPandasWithState"
    }

    fn inputs(&self) -> Vec<&LogicalPlan> {
        vec![&self.input]
    }

    fn schema(&self) -> &DFSchemaRef {
        &self.output
    }

    fn expressions(&self) -> Vec<Expr> {
        vec![]
    }

    fn fmt_for_explain(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "FlatMapGroupsInPandasWithState: [{}], timeout={:?}",
            self.keys.join(", "),
            self.timeout
        )
    }

    fn with_exprs_and_inputs(
        &self,
        _exprs: Vec<Expr>,
        mut inputs: Vec<LogicalPlan>,
    ) -> DFResult<Self> {
        Ok(GroupStateNode {
            input: inputs.swap_remove(0),
            ..self.clone()
        })
    }
}
