"""``sparklet.testing.TwsTester``: the same class as
:class:`sparklet.sql.streaming.TwsTester` (PySpark's
``pyspark.sql.streaming.TwsTester``), kept importable from here."""

from sparklet.sql.streaming.tws_tester import TwsTester

__all__ = ["TwsTester"]
