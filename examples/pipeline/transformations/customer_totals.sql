-- Each customer's paid total: a materialized view, recomputed at each run.
CREATE MATERIALIZED VIEW pipeline_customer_totals
COMMENT 'Paid total per customer.'
AS SELECT customer, sum(amount) AS total, count(*) AS orders
FROM pipeline_paid_orders
GROUP BY customer;
