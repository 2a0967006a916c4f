"""An example pipeline: orders arriving as JSON files in ``incoming/``, a
streaming table of them, a streaming table of the paid ones, and (in
``customer_totals.sql``) a materialized view of each customer's total.

    cd examples/pipeline && sparklet-pipelines run
"""

from sparklet import pipelines as dp  # PySpark: from pyspark import pipelines as dp


@dp.table(comment="Orders as they arrive.")
def pipeline_orders():
    return spark.readStream.schema("order_id BIGINT, customer STRING, amount DOUBLE, paid BOOLEAN").json("incoming")  # noqa: F821


@dp.table(comment="Paid orders only.")
def pipeline_paid_orders():
    return spark.readStream.table("pipeline_orders").where("paid")  # noqa: F821
