"""An example pipeline: orders arriving as JSON files in ``incoming/``, a
streaming table of them, a streaming table of the paid ones, and a
materialized view of each customer's total.

    cd examples/pipeline && sparklet-pipelines run
"""

from sparklet import pipelines as dp  # PySpark: from pyspark import pipelines as dp
from sparklet.sql import functions as F


@dp.table(comment="Orders as they arrive.")
def pipeline_orders():
    return spark.readStream.schema("order_id BIGINT, customer STRING, amount DOUBLE, paid BOOLEAN").json("incoming")  # noqa: F821


@dp.table(comment="Paid orders only.")
def pipeline_paid_orders():
    return spark.readStream.table("pipeline_orders").where("paid")  # noqa: F821


@dp.materialized_view(comment="Each customer's paid total.")
def pipeline_customer_totals():
    return (
        spark.read.table("pipeline_paid_orders")  # noqa: F821
        .groupBy("customer")
        .agg(F.sum("amount").alias("total"), F.count("*").alias("orders"))
    )
