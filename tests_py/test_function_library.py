"""PySpark's function library by family: values and Spark's column names,
the same on both engines (pytest --engine=pyspark)."""

from __future__ import annotations

import datetime as dt

import pytest

from sparklet.sql import Row, SparkSession
from sparklet.sql import functions as F


@pytest.fixture(scope="module")
def people(spark: SparkSession):  # noqa: ANN201
    return spark.createDataFrame(
        [(1, "Alice", 2.5, "a,b,c"), (2, "bob", -1.25, None)],
        "id INT, name STRING, v DOUBLE, tags STRING",
    )


def columns_and_rows(df) -> tuple[list[str], list[tuple]]:  # noqa: ANN001
    return df.columns, [tuple(r) for r in df.collect()]


def test_string_functions(people) -> None:  # noqa: ANN001
    df = people.select(
        F.lpad("name", 7, "*"),
        F.rpad("name", 4, "-"),
        F.instr("name", "b"),
        F.locate("o", "name"),
        F.translate("name", "ab", "xy"),
        F.format_string("%s-%d", "name", "id"),
        F.base64("name"),
        F.repeat("name", 2),
        F.split_part("tags", F.lit(","), F.lit(2)),
        F.substring_index("tags", ",", 2),
    )
    names, rows = columns_and_rows(df)
    assert names == [
        "lpad(name, 7, *)",
        "rpad(name, 4, -)",
        "instr(name, b)",
        "locate(o, name, 1)",
        "translate(name, ab, xy)",
        "format_string(%s-%d, name, id)",
        "base64(name)",
        "repeat(name, 2)",
        "split_part(tags, ,, 2)",
        "substring_index(tags, ,, 2)",
    ]
    assert rows == [
        ("**Alice", "Alic", 0, 0, "Alice", "Alice-1", "QWxpY2U=", "AliceAlice", "b", "a,b"),
        ("****bob", "bob-", 1, 2, "yoy", "bob-2", "Ym9i", "bobbob", None, None),
    ]


def test_math_functions(people) -> None:  # noqa: ANN001
    df = people.select(
        F.greatest("id", "v"),
        F.least("id", "v"),
        F.bround("v", 1),
        F.pmod("id", F.lit(2)),
        F.hex("id"),
        F.cbrt(F.lit(27)),
        F.signum("v"),
    )
    names, rows = columns_and_rows(df)
    assert names == [
        "greatest(id, v)",
        "least(id, v)",
        "bround(v, 1)",
        "pmod(id, 2)",
        "hex(id)",
        "CBRT(27)",
        "SIGNUM(v)",
    ]
    assert rows == [(2.5, 1.0, 2.5, 1, "1", 3.0, 1.0), (2.0, -1.25, -1.2, 0, "2", 3.0, -1.0)]


def test_hash_functions(people) -> None:  # noqa: ANN001
    df = people.where("id = 1").select(
        F.md5("name"), F.sha1("name"), F.sha2("name", 256), F.crc32("name"), F.hash("name"), F.xxhash64("name")
    )
    names, rows = columns_and_rows(df)
    assert names == ["md5(name)", "sha1(name)", "sha2(name, 256)", "crc32(name)", "hash(name)", "xxhash64(name)"]
    assert rows == [
        (
            "64489c85dc2fe0787b85cd87214b3810",
            "35318264c9a98faf79965c270ac80c5606774df1",
            "3bc51062973c458d5a6f2d8d64a023246354ad7e064b1e4e009ec8a0699a3043",
            3863974723,
            -1597477876,
            652984887684885287,
        )
    ]


def test_date_functions(spark: SparkSession) -> None:
    df = spark.createDataFrame([(dt.date(2024, 2, 28), dt.date(2024, 1, 1))], "d DATE, s DATE")
    out = df.select(
        F.date_add("d", 2),
        F.date_sub("d", 1),
        F.datediff("d", "s"),
        F.dayofweek("d"),
        F.dayofyear("d"),
        F.weekofyear("d"),
        F.quarter("d"),
        F.year("d"),
        F.month("d"),
        F.dayofmonth("d"),
    )
    names, rows = columns_and_rows(out)
    assert names == [
        "date_add(d, 2)",
        "date_sub(d, 1)",
        "datediff(d, s)",
        "dayofweek(d)",
        "dayofyear(d)",
        "weekofyear(d)",
        "quarter(d)",
        "year(d)",
        "month(d)",
        "dayofmonth(d)",
    ]
    assert rows == [(dt.date(2024, 3, 1), dt.date(2024, 2, 27), 58, 4, 59, 9, 1, 2024, 2, 28)]


def test_collection_functions(spark: SparkSession) -> None:
    df = spark.createDataFrame([([3, 1, 3, None],)], "a ARRAY<INT>")
    out = df.select(
        F.element_at("a", 1),
        F.array_distinct("a"),
        F.sort_array("a"),
        F.sort_array("a", asc=False),
        F.array_join("a", "/", "?"),
        F.array_max("a"),
        F.array_position("a", 3),
        F.flatten(F.array("a", "a")),
    )
    names, rows = columns_and_rows(out)
    assert names == [
        "element_at(a, 1)",
        "array_distinct(a)",
        "sort_array(a, true)",
        "sort_array(a, false)",
        "array_join(a, /, ?)",
        "array_max(a)",
        "array_position(a, 3)",
        "flatten(array(a, a))",
    ]
    assert rows == [
        (3, [3, 1, None], [None, 1, 3, 3], [3, 3, 1, None], "3/1/3/?", 3, 1, [3, 1, 3, None, 3, 1, 3, None])
    ]


def test_map_functions(spark: SparkSession) -> None:
    df = spark.createDataFrame([("a", 1)], "k STRING, v INT")
    out = df.select(F.create_map("k", "v").alias("m")).select(
        F.map_keys("m"), F.map_values("m"), F.element_at("m", "a")
    )
    names, rows = columns_and_rows(out)
    assert names == ["map_keys(m)", "map_values(m)", "element_at(m, a)"]
    assert rows == [(["a"], [1], 1)]


def test_aggregate_functions(spark: SparkSession) -> None:
    df = spark.createDataFrame(
        [(1, 2.0, True), (2, 4.0, False), (3, 7.0, True), (3, 7.0, True)], "x INT, y DOUBLE, b BOOLEAN"
    )
    out = df.agg(
        F.sum_distinct("x"),
        F.stddev_pop("y"),
        F.var_pop("x"),
        F.bool_and("b"),
        F.bool_or("b"),
    )
    names, rows = columns_and_rows(out)
    assert names[:5] == ["sum(DISTINCT x)", "stddev_pop(y)", "var_pop(x)", "bool_and(b)", "bool_or(b)"]
    assert rows[0][0] == 6
    assert rows[0][1] == pytest.approx(2.1213203435596424)
    assert rows[0][2] == pytest.approx(0.6875)
    assert rows[0][3:5] == (False, True)


def test_aggregates_keep_the_name_they_were_called_by(spark: SparkSession) -> None:
    """Spark's synonyms (any_value, first_value, std, every, some) compute
    the same aggregate as another but keep their own name."""
    df = spark.createDataFrame([(None, 1), ("a", 2), ("b", 3)], "a STRING, b INT")
    out = df.agg(
        F.first_value("a"),
        F.any_value("a", True),
        F.first("a", ignorenulls=True),
        F.last_value("a"),
        F.std("b"),
        F.stddev_samp("b"),
        F.var_samp("b"),
        F.every(F.col("b") > 0),
        F.some(F.col("b") > 2),
    )
    names, rows = columns_and_rows(out)
    assert names == [
        "first_value(a)",
        "any_value(a)",
        "first(a)",
        "last_value(a)",
        "std(b)",
        "stddev_samp(b)",
        "var_samp(b)",
        "every((b > 0))",
        "some((b > 2))",
    ]
    assert rows == [(None, "a", "a", "b", 1.0, 1.0, 1.0, True, True)]
    sql = spark.sql("SELECT first(a), any_value(a), std(b), bool_and(b > 0) FROM VALUES (1, 2), (3, 4) AS t(a, b)")
    assert sql.columns == ["first(a)", "any_value(a)", "std(b)", "bool_and((b > 0))"]
    assert [tuple(r) for r in sql.collect()] == [(1, 1, pytest.approx(1.4142135623730951), True)]


def test_sql_constants_and_casts(spark: SparkSession) -> None:
    out = spark.sql("SELECT pi(), e(), ceil(-0.1), floor(2.5), FLOAT('NaN'), INT('7'), positive(3)")
    names, rows = columns_and_rows(out)
    assert names == ["PI()", "E()", "CEIL(-0.1)", "FLOOR(2.5)", "NaN", "7", "(+ 3)"]
    assert rows[0][:4] == (pytest.approx(3.141592653589793), pytest.approx(2.718281828459045), 0, 2)
    assert rows[0][4] != rows[0][4] and rows[0][5:] == (7, 3)


def test_column_methods(spark: SparkSession) -> None:
    df = spark.createDataFrame([(6, "12", float("nan")), (3, "x", 1.0)], "n INT, s STRING, f DOUBLE")
    out = df.select(df.n.bitwiseAND(3), df.n.bitwiseOR(1), df.n.bitwiseXOR(5), df.s.try_cast("int"), df.f.isNaN())
    names, rows = columns_and_rows(out)
    assert names == ["(n & 3)", "(n | 1)", "(n ^ 5)", "s", "isnan(f)"]
    assert rows == [(2, 7, 3, 12, True), (3, 3, 6, None, False)]
    # isnan of null is false, not null, from the Column API and SQL
    nulls = spark.createDataFrame([(None,)], "f DOUBLE")
    assert nulls.select(nulls.f.isNaN(), F.isnan("f").alias("g")).first() == (False, False)
    nulls.createOrReplaceTempView("isnan_nulls")
    assert spark.sql("SELECT isnan(f) AS nan, isnan(CAST(NULL AS INT)) AS int_nan FROM isnan_nulls").first() == (
        False,
        False,
    )
    ordered = df.orderBy(df.f.desc_nulls_last(), df.n.asc_nulls_first()).collect()
    assert [r.n for r in ordered] == [6, 3]
    assert Row(n=6) == Row(n=ordered[0].n)


def totals_after_a_restart(spark: SparkSession, tmp_path, schema: str, aggs: list, first: list, second: list) -> list:  # noqa: ANN001
    """Streams ``groupBy("k").agg(*aggs)`` in complete mode: one batch,
    a stop, a restart from the checkpoint, a second batch; the last totals."""
    from conftest import Batches, step
    from sparklet.testing import MemoryStream

    ms = MemoryStream(spark, schema)
    out = Batches()

    def start():  # noqa: ANN202
        agg = ms.toDF().groupBy("k").agg(*aggs)
        return (
            agg.writeStream.outputMode("complete").foreachBatch(out).option("checkpointLocation", str(tmp_path)).start()
        )

    for rows in (first, second):
        q = start()
        step(q, ms, rows)
        q.stop()
    return out.batches[-1]


@pytest.mark.usefixtures("state_provider")
def test_aggregates_stream_and_survive_a_restart(spark: SparkSession, tmp_path) -> None:  # noqa: ANN001
    """Each aggregate keeps its partial state in the store: a restarted query
    goes on from it (complete mode: every key's totals each batch)."""
    ((key, sd, var, corr, all_b, bits),) = totals_after_a_restart(
        spark,
        tmp_path,
        "k STRING, x INT, y DOUBLE, b BOOLEAN",
        [
            F.stddev_pop("y").alias("sd"),
            F.var_samp("x").alias("var"),
            F.corr("x", "y").alias("corr"),
            F.bool_and("b").alias("all_b"),
            F.bit_or("x").alias("bits"),
        ],
        [("a", 1, 2.0, True), ("a", 2, 4.0, True)],
        [("a", 4, 9.0, False)],
    )
    assert key == "a"
    assert sd == pytest.approx(2.943920288775949)
    assert var == pytest.approx(2.3333333333333335)
    assert corr == pytest.approx(0.998625428903524)
    assert (all_b, bits) == (False, 7)


@pytest.mark.usefixtures("state_provider")
def test_statistics_aggregates_stream_and_survive_a_restart(spark: SparkSession, tmp_path) -> None:  # noqa: ANN001
    """skewness, kurtosis, product, count_if, max_by and min_by keep their
    state across micro-batches and a restart, as Spark's."""
    ((key, skew, kurt, prod, n_true, x_at_max, x_at_min),) = totals_after_a_restart(
        spark,
        tmp_path,
        "k STRING, x INT, y DOUBLE, b BOOLEAN",
        [
            F.skewness("x").alias("skew"),
            F.kurtosis("x").alias("kurt"),
            F.product("y").alias("prod"),
            F.count_if("b").alias("n_true"),
            F.max_by("x", "y").alias("x_at_max_y"),
            F.min_by("x", "y").alias("x_at_min_y"),
        ],
        [("a", 1, 2.0, True), ("a", 2, 4.0, False)],
        [("a", 4, 0.5, True), ("a", 10, 3.0, True)],
    )
    xs = [1, 2, 4, 10]
    mean = sum(xs) / len(xs)
    m2, m3, m4 = (sum((x - mean) ** p for x in xs) for p in (2, 3, 4))
    assert key == "a"
    assert skew == pytest.approx(len(xs) ** 0.5 * m3 / m2**1.5)
    assert kurt == pytest.approx(len(xs) * m4 / (m2 * m2) - 3.0)
    assert prod == pytest.approx(12.0)
    assert (n_true, x_at_max, x_at_min) == (3, 2, 4)


def test_spark_nulls_and_try_arithmetic(spark: SparkSession) -> None:
    """Logarithms outside their domain and `try_` arithmetic by zero are
    null in Spark, not NaN, infinity or an error."""
    df = spark.createDataFrame([(0.0, 6, 0), (8.0, 7, 3)], "x DOUBLE, a INT, b INT")
    out = df.select(
        F.ln("x"), F.log10("x"), F.log(2.0, "x"), F.try_divide("a", "b"), F.try_mod("a", "b"), F.nullifzero("b")
    )
    names, rows = columns_and_rows(out)
    assert names == ["ln(x)", "LOG10(x)", "LOG(2.0, x)", "try_divide(a, b)", "try_mod(a, b)", "nullifzero(b)"]
    assert rows[0] == (None, None, None, None, None, None)
    assert rows[1][2:] == (pytest.approx(3.0), pytest.approx(7 / 3), 1, 3)


def test_epoch_and_calendar_functions(spark: SparkSession) -> None:
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    df = spark.createDataFrame([(1230219000, 19000)], "s BIGINT, d INT")
    out = df.select(
        F.timestamp_seconds("s"),
        F.date_from_unix_date("d"),
        F.dayname(F.date_from_unix_date("d")),
        F.year(F.lit("2015-04-08")),
    )
    names, rows = columns_and_rows(out)
    assert names == [
        "timestamp_seconds(s)",
        "date_from_unix_date(d)",
        "dayname(date_from_unix_date(d))",
        "year(2015-04-08)",
    ]
    assert rows[0][0].replace(tzinfo=None) == dt.datetime(2008, 12, 25, 15, 30)
    assert rows[0][1:] == (dt.date(2022, 1, 8), "Sat", 2015)


def test_names_spark_gives_conditions_and_trims(spark: SparkSession) -> None:
    df = spark.createDataFrame([(2, "**a**")], "id INT, s STRING")
    out = df.select(
        F.when(df.id == 2, 3).otherwise(4),
        df.id.between(1, 3),
        F.trim("s", F.lit("*")),
        F.ltrim("s", F.lit("*")),
        F.substr("s", F.lit(2)),
        F.bitwise_not("id"),
        F.equal_null("id", F.lit(None)),
    )
    names, rows = columns_and_rows(out)
    assert names == [
        "CASE WHEN (id = 2) THEN 3 ELSE 4 END",
        "((id >= 1) AND (id <= 3))",
        "TRIM(BOTH * FROM s)",
        "TRIM(LEADING * FROM s)",
        "substr(s, 2, 2147483647)",
        "~id",
        "equal_null(id, NULL)",
    ]
    assert rows == [(3, True, "a", "a**", "*a**", -3, False)]


def test_names_spark_gives_pattern_matches_and_trims(spark: SparkSession) -> None:
    df = spark.createDataFrame([("xx%SQLxx",)], ["s"])
    out = df.select(
        F.btrim("s", F.lit("x")),
        F.like("s", F.lit("x%")),
        F.like("s", F.lit("x/%%"), F.lit("/")),
        F.ilike("s", F.lit("X%"), F.lit("/")),
        F.col("s").ilike("%q%"),
        ~F.col("s").like("y%"),
        F.col("s").rlike("^x+"),
        F.to_varchar(F.lit(7), F.lit("9")),
    )
    names, rows = columns_and_rows(out)
    assert names == [
        "btrim(s, x)",
        "s LIKE x%",
        "s LIKE x/%% ESCAPE '/'",
        "ilike(s, X%)",
        "ilike(s, %q%)",
        "(NOT s LIKE y%)",
        "RLIKE(s, ^x+)",
        "to_char(7, 9)",
    ]
    assert rows == [("%SQL", True, False, True, True, True, True, "7")]


def test_sql_rlike_and_regexp_operators(spark: SparkSession) -> None:
    spark.createDataFrame([("spark",), ("flink",)], ["s"]).createOrReplaceTempView("rlike_words")
    out = spark.sql(
        "SELECT s, s RLIKE '^s', s NOT REGEXP 'k$', TRIM(BOTH 'k' FROM s) FROM rlike_words WHERE s RLIKE 'ar|li' ORDER BY s"
    )
    names, rows = columns_and_rows(out)
    assert names == ["s", "RLIKE(s, ^s)", "(NOT RLIKE(s, k$))", "TRIM(BOTH k FROM s)"]
    assert rows == [("flink", False, False, "flin"), ("spark", True, False, "spar")]
    picked = spark.createDataFrame([("ab",), ("cd",)], ["s"]).filter("s RLIKE '^a'").selectExpr("s NOT RLIKE 'b'")
    assert columns_and_rows(picked) == (["(NOT RLIKE(s, b))"], [(False,)])


def test_regexp_instr_answers_where_the_whole_match_starts(spark: SparkSession) -> None:
    df = spark.createDataFrame([("1a 2b 14m",), ("none",), (None,)], "s string")
    out = df.select(
        F.regexp_instr("s", F.lit(r"\d+[a-z]")),
        F.regexp_instr("s", F.lit(r"(\d)([m-z])"), F.lit(2)),
    )
    names, rows = columns_and_rows(out)
    assert names == ["regexp_instr(s, \\d+[a-z], 0)", "regexp_instr(s, (\\d)([m-z]), 2)"]
    assert rows == [(1, 8), (0, 0), (None, None)]


def test_sql_range_table(spark: SparkSession) -> None:
    assert [r.value for r in spark.sql("SELECT id AS value FROM range(1, 7, 2)").collect()] == [1, 3, 5]
    assert spark.sql("SELECT * FROM range(3)").columns == ["id"]


def test_show_prints_values_as_spark_does(spark: SparkSession, capsys) -> None:  # noqa: ANN001
    df = spark.sql("SELECT map(1, 'a') AS m, cot(0.0) AS inf, CAST(1e10 AS DOUBLE) AS big, X'4142' AS b")
    df.show()
    shown = capsys.readouterr().out
    assert "|{1 -> a}|Infinity|1.0E10|[41 42]|" in shown


def test_higher_order_functions(spark: SparkSession) -> None:
    """Python lambdas become expressions over each element (Spark's
    three-valued exists/forall), outer columns included."""
    df = spark.createDataFrame([(1, [1, 2, 3]), (2, [0, None])], "key INT, values ARRAY<INT>")
    out = df.select(
        F.transform("values", lambda x: x * 2),
        F.filter("values", lambda x: x > 1),
        F.exists("values", lambda x: x > 2),
        F.forall("values", lambda x: x > 0),
        F.transform("values", lambda x: x + F.col("key")).alias("shifted"),
    )
    names, rows = columns_and_rows(out)
    assert names == [
        "transform(values, lambdafunction((namedlambdavariable() * 2), namedlambdavariable()))",
        "filter(values, lambdafunction((namedlambdavariable() > 1), namedlambdavariable()))",
        "exists(values, lambdafunction((namedlambdavariable() > 2), namedlambdavariable()))",
        "forall(values, lambdafunction((namedlambdavariable() > 0), namedlambdavariable()))",
        "shifted",
    ]
    assert rows == [([2, 4, 6], [2, 3], True, True, [2, 3, 4]), ([0, None], [], None, False, [2, None])]
    sql = spark.sql("SELECT transform(array(1, 2), x -> x + 1) AS a, filter(array(1, 2), x -> x > 1) AS b")
    assert [tuple(r) for r in sql.collect()] == [([2, 3], [2])]
    assert [r[0] for r in df.select(F.col("key").transform(lambda c: c * 10)).collect()] == [10, 20]


def test_array_functions_keep_sparks_nulls_and_order(spark: SparkSession) -> None:
    df = spark.createDataFrame([([3, None, 1],), (None,)], "a ARRAY<INT>")
    out = df.select(
        F.array_append("a", 4),
        F.array_prepend("a", 0),
        F.array_position("a", 9),
        F.array_remove("a", 3),
        F.array_sort("a"),
        F.array_contains("a", 2),
        F.sequence(F.lit(3), F.lit(1)),
        F.lit([1, 2]),
    )
    names, rows = columns_and_rows(out)
    # array_sort's name spells out Spark's default comparator lambda: not compared
    del names[4]
    assert names == [
        "array_append(a, 4)",
        "array_prepend(a, 0)",
        "array_position(a, 9)",
        "array_remove(a, 3)",
        "array_contains(a, 2)",
        "sequence(3, 1)",
        "array(1, 2)",
    ]
    assert rows == [
        ([3, None, 1, 4], [0, 3, None, 1], 0, [None, 1], [1, 3, None], None, [3, 2, 1], [1, 2]),
        (None, None, None, None, None, None, [3, 2, 1], [1, 2]),
    ]
    (nan,) = spark.range(1).select(F.sqrt(F.lit(-1))).collect()[0]
    assert nan != nan


def test_generators_explode_outer_and_posexplode(spark: SparkSession) -> None:
    """explode drops null and empty arrays; the _outer kinds keep a row of
    nulls for them; posexplode adds each element's position."""
    df = spark.createDataFrame([(1, [1, 2]), (2, []), (3, None)], "id INT, a ARRAY<INT>")
    assert [tuple(r) for r in df.select("id", F.explode_outer("a")).orderBy("id").collect()] == [
        (1, 1),
        (1, 2),
        (2, None),
        (3, None),
    ]
    pos = df.select("id", F.posexplode("a"))
    assert pos.columns == ["id", "pos", "col"]
    assert [tuple(r) for r in pos.collect()] == [(1, 0, 1), (1, 1, 2)]
    outer = df.select("id", F.posexplode_outer("a")).orderBy("id")
    assert [tuple(r) for r in outer.collect()] == [(1, 0, 1), (1, 1, 2), (2, None, None), (3, None, None)]


def test_struct_with_field_and_drop_fields(spark: SparkSession) -> None:
    df = spark.createDataFrame([Row(a=Row(b=Row(x=1, y=2), c=3))])
    replaced = df.withColumn("a", df["a"].withField("c", F.lit(30)))
    assert [tuple(r) for r in replaced.collect()] == [(Row(b=Row(x=1, y=2), c=30),)]
    nested = df.select(df.a.withField("b.z", F.lit(9)).alias("a"), df.a.dropFields("b.x", "c").alias("d"))
    assert nested.collect() == [Row(a=Row(b=Row(x=1, y=2, z=9), c=3), d=Row(b=Row(y=2)))]


def test_concat_is_null_when_an_input_is(spark: SparkSession) -> None:
    df = spark.createDataFrame([("a", "b"), ("a", None)], "s STRING, d STRING")
    out = df.select(F.concat("s", "d"))
    assert out.columns == ["concat(s, d)"]
    assert [r[0] for r in out.collect()] == ["ab", None]


def test_binary_conversions(spark: SparkSession) -> None:
    df = spark.createDataFrame([("abc", "616263", "YWJj")], "s STRING, h STRING, b STRING")
    out = df.select(
        F.to_binary("s", F.lit("utf-8")).alias("u"),
        F.to_binary("h").alias("hex"),
        F.to_binary("b", F.lit("base64")).alias("b64"),
        F.decode(F.encode("s", "UTF-8"), "UTF-8"),
    )
    assert out.columns[3] == "decode(encode(s, UTF-8), UTF-8)"
    assert [tuple(r) for r in out.collect()] == [(b"abc", b"abc", b"abc", "abc")]


def test_date_functions_read_text_as_dates(spark: SparkSession) -> None:
    df = spark.createDataFrame([("2015-04-08",)], "dt STRING")
    out = df.select(
        F.add_months("dt", 1), F.last_day("dt"), F.next_day("dt", "Sun"), F.monthname("dt"), F.trunc("dt", "mon")
    )
    names, rows = columns_and_rows(out)
    assert names == ["add_months(dt, 1)", "last_day(dt)", "next_day(dt, Sun)", "monthname(dt)", "trunc(dt, mon)"]
    assert rows == [(dt.date(2015, 5, 8), dt.date(2015, 4, 30), dt.date(2015, 4, 12), "Apr", dt.date(2015, 4, 1))]


def test_try_parsers_and_string_aggregates(spark: SparkSession) -> None:
    df = spark.createDataFrame([("2024-01-02", "a"), ("nope", None), ("2024-01-03", "c")], "t STRING, s STRING")
    parsed = df.select(F.try_to_date("t"), F.try_element_at(F.array(F.lit(1), F.lit(2)), F.lit(3)))
    assert parsed.columns == ["try_to_date(t)", "try_element_at(array(1, 2), 3)"]
    assert [tuple(r) for r in parsed.collect()] == [
        (dt.date(2024, 1, 2), None),
        (None, None),
        (dt.date(2024, 1, 3), None),
    ]
    agg = df.agg(F.listagg("s"), F.string_agg("s", ","))
    assert agg.columns == ["listagg(s, NULL)", "string_agg(s, ,)"]
    assert sorted(agg.collect()[0][1].split(",")) == ["a", "c"]
    assert len(agg.collect()[0][0]) == 2


def test_percentile_is_exact_and_named_as_spark(spark: SparkSession) -> None:
    values = [7, 1, 3, 10, 4, 2, 9, 8, 5, 6]
    df = spark.createDataFrame([(k % 2, float(v)) for k, v in enumerate(values)], "k INT, v DOUBLE")
    by_key = df.groupBy("k").agg(F.percentile("v", 0.5), F.percentile("v", 0.25)).orderBy("k")
    assert by_key.columns == ["k", "percentile(v, 0.5, 1)", "percentile(v, 0.25, 1)"]
    assert [tuple(r) for r in by_key.collect()] == [(0, 5.0, 4.0), (1, 6.0, 2.0)]
    assert df.agg(F.percentile("v", 0.9)).collect()[0][0] == pytest.approx(9.1, abs=1e-12)


@pytest.mark.usefixtures("state_provider")
def test_percentile_streams_and_survives_a_restart(spark: SparkSession, tmp_path) -> None:  # noqa: ANN001
    totals = totals_after_a_restart(
        spark,
        tmp_path,
        "k STRING, v DOUBLE",
        [F.percentile("v", 0.5).alias("median")],
        [("a", 1.0), ("a", 10.0)],
        [("a", 3.0), ("a", 4.0)],
    )
    assert totals == [("a", 3.5)]


def test_percentile_approx_gives_sparks_elements(spark: SparkSession) -> None:
    df = spark.createDataFrame([(float(v), v) for v in [7, 1, 3, 10, 4, 2, 9, 8, 5, 6]], "v DOUBLE, i INT")
    out = df.agg(
        F.percentile_approx("v", 0.5),
        F.percentile_approx("v", 0.25),
        F.percentile_approx("i", 0.9),
        F.percentile_approx("v", 0.55),
        F.percentile_approx("v", [0.1, 0.5]),
        F.approx_percentile("i", 0.5),
    )
    names, rows = columns_and_rows(out)
    assert names == [
        "percentile_approx(v, 0.5, 10000)",
        "percentile_approx(v, 0.25, 10000)",
        "percentile_approx(i, 0.9, 10000)",
        "percentile_approx(v, 0.55, 10000)",
        "percentile_approx(v, array(0.1, 0.5), 10000)",
        "approx_percentile(i, 0.5, 10000)",
    ]
    assert rows == [(5.0, 3.0, 9, 6.0, [1.0, 5.0], 5)]


def test_text_functions_conv_mask_format_number(spark: SparkSession) -> None:
    df = spark.createDataFrame([("010101", "AbC-12", 1234567.891)], "n STRING, s STRING, x DOUBLE")
    out = df.select(
        F.conv("n", 2, 16),
        F.conv(F.lit("-1"), 10, 16),
        F.mask("s"),
        F.mask("s", F.lit("U"), F.lit("l"), F.lit("#"), F.lit("*")),
        F.format_number("x", 2),
        F.format_number(F.lit(-0.125), 2),
    )
    assert out.columns[:3] == ["conv(n, 2, 16)", "conv(-1, 10, 16)", "mask(s, X, x, n, NULL)"]
    assert tuple(out.first()) == ("15", "FFFFFFFFFFFFFFFF", "XxX-nn", "UlU*##", "1,234,567.89", "-0.12")


def test_regexp_extract_all_and_json_shapes(spark: SparkSession) -> None:
    df = spark.createDataFrame(
        [("100-200, 300-400", '{"b": 1, "a": [1, 2]}', "[1, [2, 3], {}]")], "s STRING, obj STRING, arr STRING"
    )
    out = df.select(
        F.regexp_extract_all("s", F.lit(r"(\d+)-(\d+)")),
        F.regexp_extract_all("s", F.lit(r"(\d+)-(\d+)"), 2),
        F.json_object_keys("obj"),
        F.json_array_length("arr"),
        F.json_array_length("obj"),
        F.json_object_keys("arr"),
    )
    assert out.columns[0] == "regexp_extract_all(s, (\\d+)-(\\d+), 1)"
    assert tuple(out.first()) == (["100", "300"], ["200", "400"], ["b", "a"], 3, None, None)


def test_get_try_arithmetic_and_try_sum(spark: SparkSession) -> None:
    big = 9223372036854775807
    df = spark.createDataFrame([(["a", "b"], big, dt.date(2015, 9, 30))], "xs ARRAY<STRING>, n BIGINT, d DATE")
    out = df.select(
        F.get("xs", 1),
        F.get("xs", 2),
        F.get("xs", -1),
        F.try_add("n", F.lit(1)),
        F.try_subtract(F.lit(-2), "n"),
        F.try_multiply("n", F.lit(2)),
        F.try_add("d", F.lit(1)),
        F.try_add(F.lit(2), F.lit(3)),
    )
    assert out.columns[:4] == ["get(xs, 1)", "get(xs, 2)", "get(xs, -1)", "try_add(n, 1)"]
    assert tuple(out.first()) == ("b", None, None, None, None, None, dt.date(2015, 10, 1), 5)
    sums = spark.createDataFrame([(big,), (1,)], "n BIGINT").select(F.try_sum("n"))
    assert sums.columns == ["try_sum(n)"] and sums.first()[0] is None


def test_assert_true_raise_error_and_call_udf(spark: SparkSession) -> None:
    from sparklet.sql.types import IntegerType

    df = spark.createDataFrame([(0, 1)], "a INT, b INT")
    ok = df.select(F.assert_true(df.a < df.b))
    assert ok.columns == ["assert_true((a < b), '(a < b)' is not true!)"]
    assert ok.first()[0] is None
    with pytest.raises(Exception, match="a must be below b"):
        df.select(F.assert_true(df.a > df.b, "a must be below b")).collect()
    with pytest.raises(Exception, match="stop here"):
        df.select(F.raise_error("stop here")).collect()
    spark.udf.register("twiceIt", lambda i: i * 2, IntegerType())
    called = df.select(F.call_udf("twiceIt", "b"))
    assert called.columns == ["twiceIt(b)"] and called.first()[0] == 2


def test_assert_true_fails_with_sparks_message_and_condition(spark: SparkSession) -> None:
    """The default message names the condition as SQL text, the same from
    the Column API, selectExpr and SQL; the error carries Spark's condition
    and its message starts with it (no engine prefix)."""
    df = spark.createDataFrame([(2, 1)], "a INT, b INT")
    df.createOrReplaceTempView("assert_rows")
    failing = [
        lambda: df.select(F.assert_true(df.a < df.b)).collect(),
        lambda: df.selectExpr("assert_true(a < b)").collect(),
        lambda: spark.sql("SELECT assert_true(a < b) FROM assert_rows").collect(),
    ]
    for run in failing:
        with pytest.raises(Exception) as raised:
            run()
        assert raised.value.getCondition() == "USER_RAISED_EXCEPTION"
        assert str(raised.value).startswith("[USER_RAISED_EXCEPTION] '(a < b)' is not true!")
    with pytest.raises(Exception) as raised:
        df.select(F.raise_error(F.lit("boom"))).collect()
    assert str(raised.value).startswith("[USER_RAISED_EXCEPTION] boom")


@pytest.mark.parametrize(
    ("target", "spark_type"),
    [("int", "INT"), ("bigint", "BIGINT"), ("smallint", "SMALLINT"), ("double", "DOUBLE"), ("boolean", "BOOLEAN")],
)
def test_a_malformed_cast_fails_with_cast_invalid_input(spark: SparkSession, target: str, spark_type: str) -> None:
    """Casts are ANSI (Spark 4's default): text that is not a value of the
    type fails with Spark's condition and message, naming value and type."""
    df = spark.createDataFrame([("x1",)], "s STRING")
    with pytest.raises(Exception) as raised:
        df.select(df.s.cast(target)).collect()
    assert raised.value.getCondition() == "CAST_INVALID_INPUT"
    assert str(raised.value).startswith(
        f"""[CAST_INVALID_INPUT] The value 'x1' of the type "STRING" cannot be cast to "{spark_type}" because it is malformed."""
    )


def test_division_is_sparks_in_sql_text_and_the_dataframe_api(spark: SparkSession) -> None:
    """`/` of integers is a double (SQL text too), named `(a / b)`; a zero
    divisor is DIVIDE_BY_ZERO under ANSI (ArithmeticException), null
    without; a null dividend is null either way."""
    from sparklet.errors import ArithmeticException

    assert spark.sql("SELECT 1/2 AS x, 7/2.0 AS y").first() == (0.5, 3.5)
    df = spark.createDataFrame([(6, 4, None), (1, 0, None)], "a INT, b INT, c INT")
    df.createOrReplaceTempView("division_rows")
    quotients = df.select(df.a / df.b, df.a / 2, F.col("a").cast("double") / df.b)
    assert quotients.columns == ["(a / b)", "(a / 2)", "(CAST(a AS DOUBLE) / b)"]
    assert quotients.dtypes[0][1] == "double"
    assert quotients.first() == (1.5, 3.0, 1.5)
    assert df.selectExpr("a / b AS q").first().q == 1.5
    assert df.select((df.c / df.b).alias("q")).collect() == [Row(q=None), Row(q=None)]
    failing = [
        lambda: df.select(df.a / df.b).collect(),
        lambda: df.selectExpr("a / b").collect(),
        lambda: spark.sql("SELECT a / b FROM division_rows").collect(),
    ]
    for run in failing:
        with pytest.raises(ArithmeticException) as raised:
            run()
        assert raised.value.getCondition() == "DIVIDE_BY_ZERO"
    spark.conf.set("spark.sql.ansi.enabled", "false")
    try:
        assert [r[0] for r in df.select(df.a / df.b).collect()] == [1.5, None]
        assert [r[0] for r in spark.sql("SELECT a / b FROM division_rows").collect()] == [1.5, None]
    finally:
        spark.conf.unset("spark.sql.ansi.enabled")


def test_div_divides_integers_toward_zero_as_a_bigint(spark: SparkSession) -> None:
    """SQL's `a DIV b` (binding as tightly as `*`) truncates toward zero, is
    a bigint named `(a div b)`; a zero divisor is DIVIDE_BY_ZERO under ANSI."""
    from sparklet.errors import ArithmeticException

    df = spark.createDataFrame([(7, 2), (-7, 2), (None, 3), (7, 0)], "a INT, b INT")
    df.createOrReplaceTempView("div_rows")
    some = df.where("b != 0")
    got = some.selectExpr("a div b", "a DIV b * 3", "1 + a div b", "7 div 2", "a div b AS q")
    assert got.columns == ["(a div b)", "((a div b) * 3)", "(1 + (a div b))", "(7 div 2)", "q"]
    assert {t for _, t in got.dtypes} == {"bigint"}
    assert [tuple(r) for r in got.collect()] == [(3, 9, 4, 3, 3), (-3, -9, -2, 3, -3), (None, None, None, 3, None)]
    assert [r[0] for r in spark.sql("SELECT div(a, b) FROM div_rows WHERE b <> 0").collect()] == [3, -3, None]
    assert some.select(F.expr("a div b")).columns == ["(a div b)"]
    assert [tuple(r) for r in some.where("a div b > 0").collect()] == [(7, 2)]
    with pytest.raises(ArithmeticException) as raised:
        df.selectExpr("a div b").collect()
    assert raised.value.getCondition() == "DIVIDE_BY_ZERO"


def test_remainders_are_sparks_in_sql_text_and_the_dataframe_api(spark: SparkSession) -> None:
    """`%`, `mod` and `pmod` take the dividend's sign (pmod: the divisor's),
    keep the operands' type and are named as Spark names them; a zero divisor
    is REMAINDER_BY_ZERO under ANSI (ArithmeticException), null without; a
    null dividend is null either way."""
    from sparklet.errors import ArithmeticException

    df = spark.createDataFrame([(7, 3, None), (-7, 3, None), (7, 0, None)], "a INT, b INT, c INT")
    df.createOrReplaceTempView("remainder_rows")
    some = df.where("b != 0")
    got = some.select(df.a % df.b, F.pmod("a", "b"), F.expr("mod(a, b)"), (df.a % 2.5).alias("f"))
    assert got.columns == ["(a % b)", "pmod(a, b)", "mod(a, b)", "f"]
    assert [t for _, t in got.dtypes] == ["int", "int", "int", "double"]
    assert [tuple(r) for r in got.collect()] == [(1, 1, 1, 2.0), (-1, 2, -1, -2.0)]
    assert [r[0] for r in some.selectExpr("a % b").collect()] == [1, -1]
    assert [tuple(r) for r in df.select(df.c % df.b, F.pmod("c", "b")).collect()] == [(None, None)] * 3
    failing = [
        lambda: df.select(df.a % df.b).collect(),
        lambda: df.select(F.pmod("a", "b")).collect(),
        lambda: df.selectExpr("mod(a, b)").collect(),
        lambda: spark.sql("SELECT a % b FROM remainder_rows").collect(),
    ]
    for run in failing:
        with pytest.raises(ArithmeticException) as raised:
            run()
        assert raised.value.getCondition() == "REMAINDER_BY_ZERO"
    spark.conf.set("spark.sql.ansi.enabled", "false")
    try:
        assert [r[0] for r in df.select(df.a % df.b).collect()] == [1, -1, None]
        assert [r[0] for r in spark.sql("SELECT pmod(a, b) FROM remainder_rows").collect()] == [1, 2, None]
    finally:
        spark.conf.unset("spark.sql.ansi.enabled")


def test_a_number_cast_to_a_too_narrow_integer_is_cast_overflow(spark: SparkSession) -> None:
    """Under ANSI a value past the target integer type fails with
    CAST_OVERFLOW (ArithmeticException), naming the value as Spark writes it
    and both types; values that fit are cast, and try_cast gives null.
    Without ANSI the value wraps as Java's casts do."""
    from sparklet.errors import ArithmeticException

    df = spark.createDataFrame(
        [(300, 300, 3000000000, 1e20, float("nan"))], "i INT, s SMALLINT, b BIGINT, d DOUBLE, n DOUBLE"
    )
    cases = [
        (df.i.cast("tinyint"), 'The value 300 of the type "INT" cannot be cast to "TINYINT"'),
        (df.s.cast("tinyint"), 'The value 300S of the type "SMALLINT" cannot be cast to "TINYINT"'),
        (df.b.cast("int"), 'The value 3000000000L of the type "BIGINT" cannot be cast to "INT"'),
        (df.d.cast("bigint"), 'The value 1.0E20D of the type "DOUBLE" cannot be cast to "BIGINT"'),
        (df.n.cast("int"), 'The value NaN of the type "DOUBLE" cannot be cast to "INT"'),
    ]
    for column, message in cases:
        with pytest.raises(ArithmeticException) as raised:
            df.select(column).collect()
        assert raised.value.getCondition() == "CAST_OVERFLOW"
        assert message + " due to an overflow." in str(raised.value)
    with pytest.raises(ArithmeticException, match="CAST_OVERFLOW"):
        df.selectExpr("CAST(b AS INT)").collect()
    fits = df.select(df.i.cast("smallint"), (df.i - 200).cast("tinyint"), F.lit(127.9).cast("tinyint"))
    assert fits.columns == ["i", "CAST((i - 200) AS TINYINT)", "CAST(127.9 AS TINYINT)"]
    assert tuple(fits.first()) == (300, 100, 127)
    assert df.select(df.i.try_cast("tinyint")).first()[0] is None
    # without ANSI, Java's casts: integers wrap, floats saturate (NaN is 0)
    spark.conf.set("spark.sql.ansi.enabled", "false")
    try:
        wrapped = df.select(
            df.i.cast("tinyint"), df.b.cast("int"), df.d.cast("int"), df.d.cast("tinyint"), df.n.cast("bigint")
        )
        assert tuple(wrapped.first()) == (44, -1294967296, 2147483647, -1, 0)
    finally:
        spark.conf.unset("spark.sql.ansi.enabled")


def test_runtime_errors_are_pysparks_exception_classes(spark: SparkSession) -> None:
    """PySpark raises a class per kind of runtime error; so does sparklet."""
    from sparklet.errors import DateTimeException, IllegalArgumentException, NumberFormatException

    df = spark.createDataFrame([("x1",)], "s STRING")
    with pytest.raises(NumberFormatException) as raised:
        df.select(df.s.cast("int")).collect()
    assert isinstance(raised.value, IllegalArgumentException)
    with pytest.raises(DateTimeException):
        df.select(df.s.cast("date")).collect()


def test_session_time_zone_reaches_text_and_epoch_functions(spark: SparkSession) -> None:
    """Text without a zone is wall-clock time in spark.sql.session.timeZone;
    Java's short zone ids (PST, JST) name zones as in Spark."""
    df = spark.createDataFrame([("2015-07-22 10:00:00", 1437584400)], "ts STRING, secs BIGINT")
    spark.conf.set("spark.sql.session.timeZone", "America/Los_Angeles")
    try:
        out = df.select(
            F.unix_timestamp("ts"),
            F.to_unix_timestamp("ts"),
            F.from_unixtime("secs"),
            F.date_format(F.to_timestamp("ts"), "yyyy-MM-dd HH:mm"),
            F.unix_micros(F.to_timestamp("ts")),
        )
        assert out.columns[:3] == [
            "unix_timestamp(ts, yyyy-MM-dd HH:mm:ss)",
            "to_unix_timestamp(ts, yyyy-MM-dd HH:mm:ss)",
            "from_unixtime(secs, yyyy-MM-dd HH:mm:ss)",
        ]
        assert tuple(out.first()) == (
            1437584400,
            1437584400,
            "2015-07-22 10:00:00",
            "2015-07-22 10:00",
            1437584400000000,
        )
    finally:
        spark.conf.unset("spark.sql.session.timeZone")
    assert df.select(F.unix_timestamp("ts")).first()[0] == 1437559200
    shifted = df.select(
        F.from_utc_timestamp("ts", "PST").cast("string"), F.to_utc_timestamp("ts", "JST").cast("string")
    )
    assert tuple(shifted.first()) == ("2015-07-22 03:00:00", "2015-07-22 01:00:00")


def test_unknown_session_time_zone_is_refused(spark: SparkSession) -> None:
    with pytest.raises(Exception, match="TIME_ZONE|timezone|time zone"):
        spark.conf.set("spark.sql.session.timeZone", "Mars/Olympus_Mons")


def test_vector_functions_and_aggregates(spark: SparkSession) -> None:
    df = spark.createDataFrame([([3.0, 4.0], [1.0, 0.0]), ([1.0, 2.0], [0.0, 1.0])], "a ARRAY<FLOAT>, b ARRAY<FLOAT>")
    out = df.select(
        F.vector_inner_product("a", "b"),
        F.vector_l2_distance("a", "b"),
        F.vector_norm("a"),
        F.vector_norm("a", F.lit(1.0).cast("float")),
        F.vector_normalize("a"),
        F.vector_cosine_similarity("a", "b"),
    )
    assert out.columns[2:5] == ["vector_norm(a, 2.0)", "vector_norm(a, CAST(1.0 AS FLOAT))", "vector_normalize(a, 2.0)"]
    first = out.first()
    assert tuple(first)[:4] == (3.0, pytest.approx(4.472136), 5.0, 7.0)
    assert first[4] == [pytest.approx(0.6), pytest.approx(0.8)] and first[5] == pytest.approx(0.6)
    sums = df.agg(F.vector_sum("a"), F.vector_avg("a")).first()
    assert tuple(sums) == ([4.0, 6.0], [2.0, 3.0])
    with pytest.raises(Exception, match="FLOAT"):
        df.select(F.vector_norm("a", F.lit(1.0))).collect()
    with pytest.raises(Exception, match="VECTOR_DIMENSION_MISMATCH|dimension"):
        spark.createDataFrame([([1.0],)], "a ARRAY<FLOAT>").select(
            F.vector_inner_product("a", F.array(F.lit(1.0), F.lit(2.0)).cast("array<float>"))
        ).collect()


def test_array_forms_of_concat_reverse_flatten_and_overlap(spark: SparkSession) -> None:
    df = spark.createDataFrame(
        [([1, 2], [3], [[1, 2], None], [1, None], [2, None], "SPARK_SQL", "one1two2three", 2)],
        "a ARRAY<BIGINT>, b ARRAY<BIGINT>, nested ARRAY<ARRAY<BIGINT>>, x ARRAY<BIGINT>, y ARRAY<BIGINT>, s STRING, t STRING, n INT",
    )
    out = df.select(
        F.concat("a", "b"),
        F.concat("a", F.lit(None).cast("array<bigint>")),
        F.reverse("a"),
        F.flatten("nested"),
        F.arrays_overlap("x", "y"),
        F.arrays_overlap("a", "b"),
        F.overlay("s", F.lit("CORE"), 7),
        F.split("t", r"\d", "n"),
    )
    assert out.columns[6] == "overlay(s, CORE, 7, -1)"
    assert tuple(out.first()) == ([1, 2, 3], None, [2, 1], None, None, False, "SPARK_CORE", ["one", "two2three"])


def test_create_dataframe_merges_inferred_types_as_pyspark(spark: SparkSession) -> None:
    """An array of numbers and strings is an array of strings."""
    df = spark.createDataFrame([([["a", "b"], [1, 2]],), ([[True]],)], ["data"])
    assert df.schema.simpleString() == "struct<data:array<array<string>>>"
    assert [r.data for r in df.collect()] == [[["a", "b"], ["1", "2"]], [["true"]]]


def test_higher_order_functions_with_indexes_folds_and_pairs(spark: SparkSession) -> None:
    df = spark.createDataFrame(
        [([1, 2, 3], [10, 20], 100), (None, [1], 5), ([], [], 0)], "xs ARRAY<BIGINT>, ys ARRAY<BIGINT>, k BIGINT"
    )
    out = df.select(
        F.transform("xs", lambda x, i: x * 10 + i).alias("indexed"),
        F.filter("xs", lambda x, i: i > 0).alias("tail"),
        F.aggregate("xs", F.lit(0).cast("bigint"), lambda acc, x: acc + x).alias("total"),
        F.aggregate("xs", F.col("k"), lambda acc, x: acc + x, lambda acc: acc * 2).alias("finished"),
        F.zip_with("xs", "ys", lambda x, y: F.coalesce(x, F.lit(0)) + F.coalesce(y, F.lit(0))).alias("zipped"),
        F.transform("xs", lambda x: x + F.col("k")).alias("captured"),
        F.array_sort("xs", lambda a, b: (b - a).cast("int")).alias("descending"),
    )
    assert [tuple(r) for r in out.collect()] == [
        ([10, 21, 32], [2, 3], 6, 212, [11, 22, 3], [101, 102, 103], [3, 2, 1]),
        (None, None, None, None, None, None, None),
        ([], [], 0, 0, [], [], []),
    ]
    with pytest.raises(Exception, match="UNEXPECTED_RETURN_TYPE|INT"):
        df.select(F.array_sort("xs", lambda a, b: b - a)).collect()


def test_higher_order_functions_over_maps(spark: SparkSession) -> None:
    df = spark.createDataFrame([({"a": 1, "b": 2}, {"b": 20, "c": 30})], "m MAP<STRING, INT>, n MAP<STRING, INT>")
    out = df.select(
        F.transform_keys("m", lambda k, v: F.upper(k)).alias("keys"),
        F.transform_values("m", lambda k, v: v * 10).alias("values"),
        F.map_filter("m", lambda k, v: v > 1).alias("filtered"),
        F.map_zip_with("m", "n", lambda k, v1, v2: F.coalesce(v1, F.lit(0)) + F.coalesce(v2, F.lit(0))).alias("zipped"),
    )
    assert tuple(out.first()) == ({"A": 1, "B": 2}, {"a": 10, "b": 20}, {"b": 2}, {"a": 1, "b": 22, "c": 30})


def test_higher_order_functions_in_sql_text(spark: SparkSession) -> None:
    out = spark.sql(
        "SELECT aggregate(array(1, 2, 3), 0, (acc, x) -> acc + x) AS total, "
        "transform(array(1, 2), (x, i) -> x + i) AS indexed, zip_with(array(1), array(2, 3), (x, y) -> y) AS z"
    )
    assert tuple(out.first()) == (6, [1, 3], [2, 3])


def test_like_escapes_levenshtein_threshold_position_and_byte_tests(spark: SparkSession) -> None:
    df = spark.createDataFrame(
        [("%SystemDrive%/Users/John", "/%SystemDrive/%//Users%", "kitten", "sitting", "foobarbar", 5)],
        "a STRING, p STRING, l STRING, r STRING, s STRING, start INT",
    )
    out = df.select(
        F.like("a", "p", F.lit("/")),
        F.ilike(F.lower("a"), "p", F.lit("/")),
        F.levenshtein("l", "r"),
        F.levenshtein("l", "r", 2),
        F.position(F.lit("bar"), "s", "start"),
        F.position(F.lit("bar"), "s"),
    )
    assert out.columns[2:] == [
        "levenshtein(l, r)",
        "levenshtein(l, r, 2)",
        "position(bar, s, start)",
        "position(bar, s, 1)",
    ]
    assert tuple(out.first()) == (True, True, 3, -1, 7, 4)
    bytes_df = spark.createDataFrame([(b"ABC", b"AB", b"BC")], "e BINARY, f BINARY, g BINARY")
    tests = bytes_df.select(F.startswith("e", "f"), F.endswith("e", "g"), F.contains("e", "g"), F.startswith("f", "e"))
    assert tuple(tests.first()) == (True, True, True, False)


def test_map_concat_create_map_coercion_and_date_arithmetic_by_column(spark: SparkSession) -> None:
    df = spark.createDataFrame(
        [({"a": 1}, {"b": 2}, 3, 2.5, dt.date(2015, 4, 8), 2)],
        "m MAP<STRING,INT>, n MAP<STRING,INT>, i INT, d DOUBLE, day DATE, k INT",
    )
    out = df.select(
        F.map_concat("m", "n"),
        F.create_map(F.lit("i"), "i", F.lit("d"), "d"),
        F.date_add("day", "k"),
        F.date_sub("day", "k"),
        F.add_months("day", "k"),
    )
    assert tuple(out.first()) == (
        {"a": 1, "b": 2},
        {"i": 3.0, "d": 2.5},
        dt.date(2015, 4, 10),
        dt.date(2015, 4, 6),
        dt.date(2015, 6, 8),
    )
    with pytest.raises(Exception, match="(?i)duplicate"):
        df.select(F.map_concat("m", "m")).collect()


def test_generators_of_maps_structs_and_stacks(spark: SparkSession) -> None:
    df = spark.sql("SELECT * FROM VALUES (1, MAP(1, 2, 3, 4)), (2, MAP()), (3, NULL) AS t(i, m)")
    exploded = df.select("i", F.explode("m"))
    assert exploded.columns == ["i", "key", "value"]
    assert [tuple(r) for r in exploded.collect()] == [(1, 1, 2), (1, 3, 4)]
    positioned = df.select("i", F.posexplode_outer("m"))
    assert positioned.columns == ["i", "pos", "key", "value"]
    assert [tuple(r) for r in positioned.collect()] == [
        (1, 0, 1, 2),
        (1, 1, 3, 4),
        (2, None, None, None),
        (3, None, None, None),
    ]
    structs = spark.sql("SELECT ARRAY(NAMED_STRUCT('a', 1, 'b', 2), NAMED_STRUCT('a', 3, 'b', 4)) AS s")
    assert [tuple(r) for r in structs.select(F.inline("s")).collect()] == [(1, 2), (3, 4)]
    named = structs.select(F.inline("s").alias("x", "y"))
    assert named.columns == ["x", "y"]
    stacked = spark.createDataFrame([(1, 2, 3)], "a INT, b INT, c INT").select(F.stack(F.lit(2), "a", "b", "c"))
    assert stacked.columns == ["col0", "col1"]
    assert [tuple(r) for r in stacked.collect()] == [(1, 2), (3, None)]
    js = spark.createDataFrame([("1", '{"f1": "v1", "f2": "v2"}')], "key STRING, j STRING")
    tupled = js.select("key", F.json_tuple("j", "f1", "f2"))
    assert tupled.columns == ["key", "c0", "c1"] and tuple(tupled.first()) == ("1", "v1", "v2")


def test_xpath_functions(spark: SparkSession) -> None:
    df = spark.createDataFrame([("<a><b id='x'>1</b><b>2</b><c>hi</c></a>",), (None,)], "x STRING")
    out = df.select(
        F.xpath("x", F.lit("a/b/text()")),
        F.xpath("x", F.lit("a/b")),
        F.xpath("x", F.lit("a/b/@id")),
        F.xpath_string("x", F.lit("a/c")),
        F.xpath_boolean("x", F.lit("a/d")),
        F.xpath_double("x", F.lit("sum(a/b)")),
        F.xpath_int("x", F.lit("a/c")),
        F.xpath_long("x", F.lit("count(a/b)")),
    )
    assert out.columns[0] == "xpath(x, a/b/text())"
    rows = [tuple(r) for r in out.collect()]
    assert rows[0] == (["1", "2"], [None, None], ["x"], "hi", False, 3.0, 0, 2)
    assert rows[1] == (None,) * 8
    with pytest.raises(Exception, match="(?i)xml"):
        spark.createDataFrame([("<a>",)], "x STRING").select(F.xpath_string("x", F.lit("a"))).collect()


def test_show_prints_timestamps_in_the_session_time_zone(spark: SparkSession, capsys) -> None:  # noqa: ANN001
    df = spark.createDataFrame([("2015-07-22 17:00:00+00:00",)], "s STRING").select(F.to_timestamp("s").alias("ts"))
    spark.conf.set("spark.sql.session.timeZone", "America/Los_Angeles")
    try:
        df.show()
    finally:
        spark.conf.unset("spark.sql.session.timeZone")
    df.show()
    out = capsys.readouterr().out
    assert "|2015-07-22 10:00:00|" in out and "|2015-07-22 17:00:00|" in out


def test_make_timestamp_and_calendar_arithmetic_by_unit(spark: SparkSession) -> None:
    df = spark.createDataFrame(
        [(2014, 12, 28, 6, 30, 45.887, "CET", dt.datetime(2016, 3, 11, 9, 0, 7), dt.datetime(2024, 4, 2, 9, 0, 7))],
        "year INT, month INT, day INT, hour INT, min INT, sec DOUBLE, tz STRING, t1 TIMESTAMP, t2 TIMESTAMP",
    )
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    out = df.select(
        F.make_timestamp("year", "month", "day", "hour", "min", "sec", "tz").cast("string"),
        F.make_timestamp_ntz("year", "month", "day", "hour", "min", "sec").cast("string"),
        F.try_make_timestamp("year", F.lit(13), "day", "hour", "min", "sec"),
        F.timestamp_add("year", F.lit(2), "t1").cast("string"),
        F.timestamp_add("WEEK", F.lit(5), "t1").cast("string"),
        F.timestamp_diff("year", "t1", "t2"),
        F.timestamp_diff("WEEK", "t1", "t2"),
        F.timestamp_diff("day", "t2", "t1"),
        F.months_between(F.lit("1997-02-28 10:30:00"), F.lit("1996-10-30")),
    )
    assert out.columns[5] == "timestampdiff(year, t1, t2)"
    assert tuple(out.first()) == (
        "2014-12-28 05:30:45.887",
        "2014-12-28 06:30:45.887",
        None,
        "2018-03-11 09:00:07",
        "2016-04-15 09:00:07",
        8,
        420,
        -2944,
        3.94959677,
    )
    with pytest.raises(Exception, match="DATETIME_FIELD_OUT_OF_BOUNDS|valid"):
        df.select(F.make_timestamp("year", F.lit(13), "day", "hour", "min", "sec")).collect()


def test_star_arguments_regexp_position_instr_occurrence_and_scaled_rounding(spark: SparkSession) -> None:
    df = spark.createDataFrame([("aabcd", "a1b22c333", 2.1267)], "s STRING, t STRING, x DOUBLE")
    counted = df.select(F.count(F.expr("*")))
    assert counted.columns == ["count(1)"] and counted.first()[0] == 1
    out = df.select(
        F.hash("*") == F.hash("s", "t", "x"),
        F.regexp_replace("t", r"(\d+)", "#", 4),
        F.instr("s", "a", 1, 2),
        F.instr("s", "b", 4),
        F.floor("x", 2),
        F.ceil("x", 1),
    )
    assert out.columns[2:] == ["instr(s, a, 1, 2)", "instr(s, b, 4, 1)", "floor(x, 2)", "ceil(x, 1)"]
    first = out.first()
    assert tuple(first)[:4] == (True, "a1b#c#", 2, 0)
    assert (float(first[4]), float(first[5])) == (2.12, 2.2)


def test_base32_hmac_jaro_winkler_sentences_and_lenient_binary(spark: SparkSession) -> None:
    df = spark.createDataFrame(
        [(b"foobar", "key", "message", "MARTHA", "MARHTA", "Hi there! It's late.")],
        "b BINARY, k STRING, m STRING, l STRING, r STRING, s STRING",
    )
    out = df.select(
        F.to_base32("b"),
        F.from_base32(F.to_base32("b")),
        F.hex(F.hmac("k", "m")),
        F.hex(F.hmac("k", "m", F.lit("SHA-1"))),
        F.jaro_winkler_similarity("l", "r"),
        F.sentences("s"),
        F.try_to_binary(F.lit("xyz"), F.lit("hex")),
    )
    assert out.columns[2] == "hex(hmac(k, m, SHA-256))" and out.columns[5] == "sentences(s, , )"
    assert tuple(out.first()) == (
        "MZXW6YTBOI======",
        bytearray(b"foobar"),
        "6E9EF29B75FFFC5B7ABAE527D58FDADB2FE42E7219011976917343065F58ED4A",
        "2088DF74D5F2146B48146CAF4965377E9D0BE3A4",
        pytest.approx(0.9611111111111111),
        [["Hi", "there"], ["It's", "late"]],
        None,
    )


def test_top_k_by_distinct_combinations_and_seeded_random(spark: SparkSession) -> None:
    df = spark.createDataFrame(
        [("a", 10, 1), ("b", 50, 1), ("c", 20, None), ("d", 40, 2), ("b", 50, 1)], "x STRING, y INT, z INT"
    )
    out = df.select(F.max_by("x", "y", 2), F.min_by("x", "y", 2), F.count_distinct("x", "z"))
    assert out.columns == ["max_by(x, y, 2)", "min_by(x, y, 2)", "count(DISTINCT x, z)"]
    assert tuple(out.first()) == (["b", "b"], ["a", "c"], 3)
    seeded = spark.range(5).select(F.rand(42).alias("r"), F.randn(7).alias("n"))
    first, again = seeded.collect(), spark.range(5).select(F.rand(42).alias("r"), F.randn(7).alias("n")).collect()
    assert first == again
    assert all(0.0 <= r.r < 1.0 for r in first)


def test_from_json_into_maps_and_arrays(spark: SparkSession) -> None:
    from sparklet.sql.types import ArrayType, IntegerType, StructField, StructType

    df = spark.createDataFrame(
        [('{"a": 1, "b": 2}', '[{"a": 1}, {"a": 2}]', "[1, 2, 3]"), ("oops", "[", None)], "m STRING, s STRING, a STRING"
    )
    out = df.select(
        F.from_json("m", "MAP<STRING,INT>").alias("m"),
        F.from_json("s", ArrayType(StructType([StructField("a", IntegerType())]))).alias("s"),
        F.from_json("a", ArrayType(IntegerType())).alias("a"),
    )
    rows = out.collect()
    assert rows[0].m == {"a": 1, "b": 2} and [r.a for r in rows[0].s] == [1, 2] and rows[0].a == [1, 2, 3]
    assert tuple(rows[1]) == (None, None, None)


def test_variant_from_json_read_and_edited(spark: SparkSession) -> None:
    df = spark.createDataFrame([('{"b": [1, 2], "a": 1, "n": null}', "$.a")], "json STRING, path STRING")
    v = F.parse_json("json")
    out = df.select(
        F.to_json(v).alias("canonical"),
        F.variant_get(v, "$.a", "int").alias("a"),
        F.variant_get(v, "path", "string").alias("by_column")
        if False
        else F.variant_get(v, F.col("path"), "string").alias("by_column"),
        F.variant_get(v, "$.b[1]", "bigint").alias("b1"),
        F.variant_get(v, "$.missing", "int").alias("missing"),
        F.schema_of_variant(v).alias("schema"),
        F.is_variant_null(F.parse_json(F.lit("null"))).alias("is_null"),
        F.to_json(F.variant_set(v, "$.b[3]", F.lit(9))).alias("set"),
        F.to_json(F.variant_insert(v, "$.c.d", F.lit("x"))).alias("inserted"),
        F.to_json(F.variant_delete(v, "$.a", "$.n")).alias("deleted"),
        F.to_json(F.variant_array_append(v, "$.b", F.lit(3))).alias("appended"),
        F.to_json(F.variant_strip_nulls(v)).alias("stripped"),
    )
    assert out.first().asDict() == {
        "canonical": '{"a":1,"b":[1,2],"n":null}',
        "a": 1,
        "by_column": "1",
        "b1": 2,
        "missing": None,
        "schema": "OBJECT<a: BIGINT, b: ARRAY<BIGINT>, n: VOID>",
        "is_null": True,
        "set": '{"a":1,"b":[1,2,null,9],"n":null}',
        "inserted": '{"a":1,"b":[1,2],"c":{"d":"x"},"n":null}',
        "deleted": '{"b":[1,2]}',
        "appended": '{"a":1,"b":[1,2,3],"n":null}',
        "stripped": '{"a":1,"b":[1,2]}',
    }
    assert df.select(F.try_parse_json(F.lit("{oops"))).first()[0] is None
    with pytest.raises(Exception, match="MALFORMED|JSON"):
        df.select(F.parse_json(F.lit("{oops"))).collect()
    with pytest.raises(Exception, match="VARIANT_DUPLICATE_KEY"):
        df.select(F.variant_insert(v, "$.a", F.lit(2))).collect()


def test_date_parts_with_fractional_seconds_and_truncation_of_text(spark: SparkSession) -> None:
    df = spark.createDataFrame(
        [(dt.datetime(2015, 4, 8, 13, 8, 15, 250000), "1997-02-28 05:02:11")], "ts TIMESTAMP, s STRING"
    )
    out = df.select(
        F.date_part(F.lit("YEAR"), "ts"),
        F.extract(F.lit("S"), "ts"),
        F.datepart(F.lit("M"), "ts"),
        F.date_trunc("mon", "s").cast("string"),
    )
    first = out.first()
    assert (first[0], float(first[1]), first[2], first[3]) == (2015, 15.25, 8, "1997-02-01 00:00:00")


def test_array_insert_and_bitmap_aggregates(spark: SparkSession) -> None:
    df = spark.createDataFrame([(["a", "b", "c"], 1), (None, 2)], "data ARRAY<STRING>, n INT")
    out = df.select(
        F.array_insert("data", 2, "d"),
        F.array_insert("data", -1, "e"),
        F.array_insert("data", 5, "f"),
        F.array_insert("data", -5, "g"),
    )
    assert out.columns[0] == "array_insert(data, 2, d)"
    assert [tuple(r) for r in out.collect()] == [
        (["a", "d", "b", "c"], ["a", "b", "c", "e"], ["a", "b", "c", None, "f"], ["g", None, "a", "b", "c"]),
        (None, None, None, None),
    ]
    bits = spark.createDataFrame([(1,), (2,), (3,), (9,)], "a INT").select(
        F.hex(F.bitmap_construct_agg(F.bitmap_bit_position("a"))).alias("b")
    )
    assert bits.first()[0].startswith("0701") and len(bits.first()[0]) == 8192
    ored = spark.createDataFrame([("10",), ("20",)], "a STRING").select(
        F.substring(F.hex(F.bitmap_or_agg(F.to_binary("a", F.lit("hex")))), 1, 4)
    )
    anded = spark.createDataFrame([("F0",), ("70",)], "a STRING").select(
        F.substring(F.hex(F.bitmap_and_agg(F.to_binary("a", F.lit("hex")))), 1, 4)
    )
    assert (ored.first()[0], anded.first()[0]) == ("3000", "7000")


def test_number_formats(spark: SparkSession) -> None:
    df = spark.createDataFrame(
        [("$78.12", "12,454.8-", 78.12, -12454.8, dt.date(2016, 4, 8))],
        "a STRING, b STRING, x DOUBLE, y DOUBLE, d DATE",
    )
    out = df.select(
        F.to_number("a", F.lit("$99.99")),
        F.to_number("b", F.lit("99,999.9S")),
        F.try_to_number(F.lit("abc"), F.lit("999")),
        F.to_char("x", F.lit("$99.99")),
        F.to_varchar("y", F.lit("99,999.9S")),
        F.to_char("d", F.lit("yyyy/MM/dd")),
    )
    first = out.first()
    assert (str(first[0]), str(first[1]), first[2]) == ("78.12", "-12454.8", None)
    assert tuple(first)[3:] == ("$78.12", "12,454.8-", "2016/04/08")
    with pytest.raises(Exception, match="INVALID_FORMAT"):
        df.select(F.to_number(F.lit("abc"), F.lit("999"))).collect()


def test_java_math_digits_and_tuples_inferred_as_structs(spark: SparkSession) -> None:
    out = spark.range(1).select(F.exp(F.lit(1)), F.cosh(F.lit(1)), F.log2(F.lit(9)), F.log2(F.lit(0)))
    assert tuple(out.first()) == (2.7182818284590455, 1.543080634815244, 3.1699250014423126, None)
    df = spark.createDataFrame([([(1, "a"), (2, "b")],)], ["data"])
    assert df.schema.simpleString() == "struct<data:array<struct<_1:bigint,_2:string>>>"
    assert df.select(F.map_from_entries("data")).first()[0] == {1: "a", 2: "b"}


def test_averages_of_untyped_null_columns(spark: SparkSession) -> None:
    df = spark.sql("SELECT * FROM VALUES (null, 1), (null, 3) AS tab(y, x)")
    out = df.select(F.regr_avgx("y", "x"), F.avg("x"), F.avg("y"))
    assert out.columns == ["regr_avgx(y, x)", "avg(x)", "avg(y)"]
    assert tuple(out.first()) == (None, 2.0, None)


def test_aes_encrypt_and_decrypt(spark: SparkSession) -> None:
    df = spark.createDataFrame(
        [
            (
                "Spark",
                "abcdefghijklmnop12345678ABCDEFGH",
                "000000000000000000000000",
                "This is an AAD mixed into the input",
            )
        ],
        "input STRING, key STRING, iv STRING, aad STRING",
    )
    sealed = df.select(
        F.base64(F.aes_encrypt("input", "key", F.lit("GCM"), F.lit("DEFAULT"), F.to_binary("iv", F.lit("hex")), "aad"))
    )
    assert sealed.first()[0] == "AAAAAAAAAAAAAAAAQiYi+sTLm7KD9UcZ2nlRdYDe/PX4"
    for mode in ("GCM", "CBC", "ECB"):
        back = df.select(F.aes_decrypt(F.aes_encrypt("input", "key", F.lit(mode)), "key", F.lit(mode)).cast("string"))
        assert back.first()[0] == "Spark"
    assert df.select(F.try_aes_decrypt(F.lit(b"not sealed"), "key")).first()[0] is None
    with pytest.raises(Exception, match="AES|decrypt"):
        df.select(F.aes_decrypt(F.lit(b"not sealed"), "key")).collect()


def test_json_wildcards_and_inferred_schemas(spark: SparkSession) -> None:
    df = spark.createDataFrame([('[{"f1": "a", "f2": 1}, {"f1": "b"}]',)], "j STRING")
    out = df.select(
        F.get_json_object("j", "$[*].f1").alias("all"),
        F.get_json_object("j", "$[*].f2").alias("one"),
        F.get_json_object("j", "$[*].f3").alias("none"),
        F.schema_of_json(F.lit('{"b": [1.5], "a": 0}')).alias("schema"),
        F.schema_of_json("{a: 'x'}".replace("'", '"'), {"allowUnquotedFieldNames": "true"}).alias("unquoted"),
    )
    assert tuple(out.first()) == ('["a","b"]', "1", None, "STRUCT<a: BIGINT, b: ARRAY<DOUBLE>>", "STRUCT<a: STRING>")


def test_convert_timezone_and_call_function(spark: SparkSession) -> None:
    from sparklet.sql.types import IntegerType

    df = spark.createDataFrame([("2015-04-08 15:00:00", 3)], "ts STRING, n INT")
    out = df.select(F.convert_timezone(F.lit("Asia/Hong_Kong"), F.lit("America/Los_Angeles"), "ts").cast("string"))
    assert out.first()[0] == "2015-04-08 00:00:00"
    spark.udf.register("tripled", lambda i: i * 3, IntegerType())
    called = df.select(F.call_function("tripled", "n"), F.call_function("upper", F.col("ts")))
    assert tuple(called.first()) == (9, "2015-04-08 15:00:00")


def test_maps_of_array_keys_refuse_repeated_keys_and_collect_union(spark: SparkSession) -> None:
    df = spark.sql("SELECT map(array(1, 2), 'a', array(3, 4), 'b') AS data")
    assert df.select(F.map_keys("data")).first()[0] == [[1, 2], [3, 4]]
    with pytest.raises(Exception, match="DUPLICATED_MAP_KEY"):
        spark.sql("SELECT map(1, 'a', 1, 'b') AS data").collect()
    arrays = spark.createDataFrame([("a", [1, 2]), ("a", [2, 3]), ("b", [4])], "k STRING, v ARRAY<INT>")
    out = arrays.groupBy("k").agg(F.sort_array(F.collect_union("v")).alias("u")).orderBy("k")
    assert [tuple(r) for r in out.collect()] == [("a", [1, 2, 3]), ("b", [4])]


def test_map_key_dedup_policy_last_win(spark: SparkSession) -> None:
    spark.conf.set("spark.sql.mapKeyDedupPolicy", "LAST_WIN")
    try:
        dup = spark.sql("SELECT map(1, 'a', 1, 'b') AS m, map(1, 'x', 2, 'y') AS n")
        out = dup.select(F.map_keys("m"), F.map_values("m"), F.map_concat("m", "n"))
        assert tuple(out.first()) == ([1], ["b"], {1: "x", 2: "y"})
    finally:
        spark.conf.unset("spark.sql.mapKeyDedupPolicy")
    with pytest.raises(Exception, match="DUPLICATED_MAP_KEY"):
        spark.sql("SELECT map(1, 'a', 1, 'b') AS m").collect()


def test_unknown_functions_are_sparks_unresolved_routine(spark: SparkSession) -> None:
    expected = "Cannot resolve routine `nosuchfn` on search path [`system`.`builtin`, `system`.`session`, `spark_catalog`.`default`]"
    with pytest.raises(Exception, match="UNRESOLVED_ROUTINE") as raised:
        spark.sql("SELECT nosuchfn(1)").collect()
    assert expected in str(raised.value)
    with pytest.raises(Exception, match="UNRESOLVED_ROUTINE") as raised:
        spark.range(1).select(F.call_function("nosuchfn", F.col("id"))).collect()
    assert expected in str(raised.value)


def test_corr_digits_mode_and_reverse_of_binary(spark: SparkSession) -> None:
    df = spark.createDataFrame(
        [(1.0, 2.0, "a"), (2.0, 4.0, "a"), (2.0, 4.0, "a"), (1.0, 2.0, "b"), (1.0, 3.0, "b"), (None, 1.0, "c")],
        "x DOUBLE, y DOUBLE, k STRING",
    )
    got = df.groupBy("k").agg(F.corr("x", "y"), F.mode("x"), F.mode("y", True)).orderBy("k")
    assert got.columns == ["k", "corr(x, y)", "mode(x)", "mode() WITHIN GROUP (ORDER BY y DESC)"]
    # Spark's update formulas give exactly 1.0 on a line; no spread in x:
    # null; the deterministic mode of a tie is the lowest value
    assert [tuple(r) for r in got.collect()] == [("a", 1.0, 2.0, 4.0), ("b", None, 1.0, 2.0), ("c", None, None, 1.0)]
    rev = spark.createDataFrame([("abc",)], "s STRING").select(F.reverse(F.col("s").cast("binary")))
    assert rev.columns == ["reverse(CAST(s AS BINARY))"]
    assert [bytes(r[0]) for r in rev.collect()] == [b"cba"]


@pytest.mark.usefixtures("state_provider")
def test_corr_and_mode_stream_and_survive_a_restart(spark: SparkSession, tmp_path) -> None:  # noqa: ANN001
    ((key, corr, mode),) = totals_after_a_restart(
        spark,
        tmp_path,
        "k STRING, x INT, y DOUBLE",
        [F.corr("x", "y").alias("corr"), F.mode("x").alias("mode")],
        [("a", 1, 2.0), ("a", 2, 4.0), ("a", 2, 4.5)],
        [("a", 4, 9.0), ("a", 4, 8.0), ("a", 4, 1.0)],
    )
    assert (key, mode) == ("a", 4)
    assert corr == pytest.approx(0.4835143242041853)


def test_factorial_is_null_where_a_bigint_cannot_hold_it(spark: SparkSession) -> None:
    df = spark.createDataFrame([(0,), (20,), (21,), (-1,), (None,)], "n int")
    assert [r[0] for r in df.select(F.factorial("n")).collect()] == [1, 2432902008176640000, None, None, None]


def test_times_of_day_made_and_read_as_spark(spark: SparkSession) -> None:
    spark.conf.set("spark.sql.timeType.enabled", "true")  # PySpark refuses TIME without it
    try:
        df = spark.createDataFrame(
            [(13, 45, 30.5, "1:02:03", "01.02 PM"), (0, 0, 0.000001, "x", None)],
            "h int, m int, s double, t string, p string",
        )
        out = df.select(
            F.make_time("h", "m", "s").alias("made"),
            F.try_to_time("t").alias("read"),
            F.to_time("p", F.lit("hh.mm a")).alias("by_pattern"),
        )
        assert [tuple(r) for r in out.collect()] == [
            (dt.time(13, 45, 30, 500000), dt.time(1, 2, 3), dt.time(13, 2)),
            (dt.time(0, 0, 0, 1), None, None),
        ]
        assert out.dtypes == [("made", "time(6)"), ("read", "time(6)"), ("by_pattern", "time(6)")]
        assert out._show_string().splitlines()[3] == "|     13:45:30.5|01:02:03|  13:02:00|"
        assert spark.range(1).select(F.try_to_time(F.lit("9:05"))).columns == ["try_to_time(to_time(9:05))"]
        with pytest.raises(Exception, match="DATETIME_FIELD_OUT_OF_BOUNDS"):
            spark.range(1).select(F.make_time(F.lit(24), F.lit(0), F.lit(0))).collect()
        with pytest.raises(Exception, match="CANNOT_PARSE_TIME"):
            spark.range(1).select(F.to_time(F.lit("noon"))).collect()
    finally:
        spark.conf.unset("spark.sql.timeType.enabled")


def test_local_timestamp_and_date_part_names(spark: SparkSession) -> None:
    df = spark.sql("SELECT TIMESTAMP '2024-02-29 13:45:30.5' AS ts")
    out = df.select(
        F.localtimestamp(),
        F.current_timestamp(),
        F.curdate(),
        F.extract(F.lit("HOUR"), "ts"),
        F.datepart(F.lit("MONTH"), "ts"),
    )
    assert out.columns == [
        "localtimestamp()",
        "current_timestamp()",
        "current_date()",
        "extract(HOUR FROM ts)",
        "datepart(MONTH FROM ts)",
    ]
    assert [t for _, t in out.dtypes[:3]] == ["timestamp_ntz", "timestamp", "date"]
    local, now, _, hour, month = out.collect()[0]
    assert abs((local - now.replace(tzinfo=None)).total_seconds()) < 60 and (hour, month) == (13, 2)
    # fractions of a second shown without trailing zeros
    assert df._show_string(truncate=False).splitlines()[3] == "|2024-02-29 13:45:30.5|"


def test_sequence_steps_and_aggregate_names(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1, 7, [1, 2, 3])], ["a", "b", "xs"])
    out = df.select(
        F.sequence("a", "b", F.lit(3)).alias("seq"),
        F.aggregate("xs", F.lit(0).cast("bigint"), lambda acc, x: acc + x),
    )
    assert out.columns[1] == (
        "aggregate(xs, CAST(0 AS BIGINT), lambdafunction((namedlambdavariable() + namedlambdavariable()), "
        "namedlambdavariable(), namedlambdavariable()), lambdafunction(namedlambdavariable(), namedlambdavariable()))"
    )
    assert tuple(out.collect()[0]) == ([1, 4, 7], 6)


def test_float_with_an_integer_computes_in_double_as_spark_4(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1,)], ["v"])
    f = F.col("v").cast("float")
    out = df.select(f + 10, f * F.col("v"), F.col("v").cast("int") - f, f % 2, f + f)
    assert out.dtypes == [
        ("(CAST(v AS FLOAT) + 10)", "double"),
        ("(CAST(v AS FLOAT) * v)", "double"),
        ("(CAST(v AS INT) - CAST(v AS FLOAT))", "double"),
        ("(CAST(v AS FLOAT) % 2)", "double"),
        ("(CAST(v AS FLOAT) + CAST(v AS FLOAT))", "float"),
    ]
    assert tuple(out.collect()[0]) == (11.0, 1.0, 0.0, 1.0, 2.0)
    assert df.selectExpr("cast(v as float) + 1").dtypes == [("(CAST(v AS FLOAT) + 1)", "double")]


def test_sql_numeric_literal_suffixes(spark: SparkSession) -> None:
    df = spark.sql("SELECT 0L AS a, 1Y AS b, 2S AS c, 1.5D AS d, 2.5F AS e, 1.25BD AS f, 7BD AS g")
    assert df.dtypes == [
        ("a", "bigint"),
        ("b", "tinyint"),
        ("c", "smallint"),
        ("d", "double"),
        ("e", "float"),
        ("f", "decimal(3,2)"),
        ("g", "decimal(1,0)"),
    ]
    xs = spark.createDataFrame([([1, 2, 3],)], ["xs"])
    assert [tuple(r) for r in xs.selectExpr("aggregate(xs, 0L, (acc, x) -> acc + x)", "10L * 2").collect()] == [(6, 20)]
