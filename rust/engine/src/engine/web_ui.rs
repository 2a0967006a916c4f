//! The web UI, like Spark's Structured Streaming tab: off by default; with
//! `spark.ui.enabled=true` one thread serves the session's active and
//! finished queries, and per query charts of its recent progress (input
//! and processing rates, batch duration, state rows, watermark gap). It
//! binds to loopback unless `spark.driver.bindAddress` says otherwise, on
//! `spark.ui.port` (4040) or, when taken, the next free of
//! `spark.port.maxRetries` (16) ports, as Spark does.
//!
//! Pages are rendered on the server (SVG charts, no scripts) and refresh
//! themselves while a query runs. `/api/queries` gives the same as JSON.
//! The server is bounded so that no client takes what the queries need
//! (`http_server.rs`).

use std::fmt::Write as _;
use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::sync::Arc;

use super::http_server::{Request, Response, Server};
use super::manager::QueryManager;
use super::progress::QueryProgress;
use super::query::StreamingQuery;
use crate::error::{Error, Result};

/// The running web UI; dropping it stops the server and frees its port.
pub struct WebUi {
    url: String,
    _server: Server,
}

impl std::fmt::Debug for WebUi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebUi").field("url", &self.url).finish()
    }
}

impl WebUi {
    /// Serve `streams` on `host`, on `port` or one of the `retries` after it.
    pub fn start(
        streams: Arc<QueryManager>,
        conf: Arc<crate::conf::Conf>,
        app_name: String,
        host: &str,
        port: u16,
        retries: u16,
    ) -> Result<Self> {
        let mut last = String::new();
        let ip = resolve(host)?;
        let serving = Arc::new(Serving {
            streams,
            conf,
            app: app_name,
        });
        for p in port..=port.saturating_add(retries) {
            let pages = Arc::clone(&serving);
            let server = match Server::bind(SocketAddr::new(ip, p), move |r| respond(r, &pages)) {
                Ok(s) => s,
                Err(e) => {
                    last = e.to_string();
                    continue;
                }
            };
            let url = format!("http://{host}:{}", server.addr().port());
            log::info!("web UI at {url}");
            return Ok(WebUi {
                url,
                _server: server,
            });
        }
        Err(Error::illegal_argument(format!(
            "Service 'SparkUI' could not bind on {host} ports {port} to {}: {last}. \
             Set spark.ui.port to a free port (0 picks one) or spark.ui.enabled=false.",
            port.saturating_add(retries)
        )))
    }

    /// Where it serves (`spark.sparkContext.uiWebUrl`).
    pub fn url(&self) -> &str {
        &self.url
    }
}

/// The address `host` names (an IP, or a name such as `localhost`).
fn resolve(host: &str) -> Result<IpAddr> {
    if let Ok(ip) = host.parse::<IpAddr>() {
        return Ok(ip);
    }
    (host, 0)
        .to_socket_addrs()
        .ok()
        .and_then(|mut a| a.next())
        .map(|a| a.ip())
        .ok_or_else(|| {
            Error::illegal_argument(format!(
                "spark.driver.bindAddress {host:?} names no address of this machine"
            ))
        })
}

/// What the pages show: the session's queries and settings.
struct Serving {
    streams: Arc<QueryManager>,
    conf: Arc<crate::conf::Conf>,
    app: String,
}

/// Answer one request.
fn respond(request: &Request, serving: &Serving) -> Response {
    let (streams, app) = (serving.streams.as_ref(), serving.app.as_str());
    let url = request.url.as_str();
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let param = |name: &str| {
        query
            .split('&')
            .filter_map(|kv| kv.split_once('='))
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.to_string())
    };
    let html = "text/html; charset=utf-8";
    let (status, kind, body) = match path.trim_end_matches('/') {
        "" => (302, html, String::new()),
        "/StreamingQuery" => (200, html, list_page(streams, app)),
        "/StreamingQuery/statistics" => match param("id").and_then(|id| find(streams, &id)) {
            Some(q) => (200, html, query_page(&q, app)),
            None => (
                404,
                html,
                page(app, "Not found", false, "<p>No such query run.</p>"),
            ),
        },
        "/environment" => (200, html, environment_page(&serving.conf, app)),
        "/api/queries" => (200, "application/json", queries_json(streams)),
        _ => (
            404,
            html,
            page(app, "Not found", false, "<p>No such page.</p>"),
        ),
    };
    let mut headers = vec![
        ("Content-Type", kind.to_string()),
        ("Cache-Control", "no-store".to_string()),
    ];
    if status == 302 {
        headers.push(("Location", "/StreamingQuery/".to_string()));
    }
    Response {
        status,
        headers,
        body,
    }
}

/// A query run by run id (Spark's statistics pages are per run).
fn find(streams: &QueryManager, run_id: &str) -> Option<StreamingQuery> {
    streams
        .active()
        .into_iter()
        .chain(streams.finished())
        .find(|q| q.run_id() == run_id)
}

fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}\
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left}\
th{background:#f3f3f3}.charts{display:flex;flex-wrap:wrap;gap:1em}.chart{border:1px solid #ddd;padding:.5em}\
.chart h3{margin:0 0 .3em;font-size:1em}svg text{font-size:11px;fill:#555}.failed{color:#b00}\
.error{color:#b00;max-width:60em}.error pre{white-space:pre-wrap;overflow-wrap:anywhere;max-height:30em;overflow:auto;\
background:#fff5f5;border:1px solid #ecc;padding:.5em;color:#222}td.failed{max-width:40em;overflow-wrap:anywhere}";

fn page(app: &str, title: &str, refresh: bool, body: &str) -> String {
    let meta = if refresh {
        "<meta http-equiv=\"refresh\" content=\"2\">"
    } else {
        ""
    };
    format!(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\">{meta}<title>{} - {}</title>\
         <style>{STYLE}</style></head><body><h1>{}</h1><p class=\"nav\"><a href=\"/StreamingQuery/\">Structured Streaming</a> · <a href=\"/environment/\">Environment</a> · {}</p>{body}</body></html>",
        esc(title),
        esc(app),
        esc(title),
        esc(app)
    )
}

fn fmt_ms(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| t.format("%Y/%m/%d %H:%M:%S").to_string())
        .unwrap_or_default()
}

fn duration(ms: i64) -> String {
    let s = ms.max(0) / 1000;
    match s {
        0..60 => format!("{:.1} s", ms.max(0) as f64 / 1000.0),
        60..3600 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {} min", s / 3600, s % 3600 / 60),
    }
}

fn status_of(q: &StreamingQuery) -> &'static str {
    match (q.is_active(), q.exception().is_some()) {
        (true, _) => "RUNNING",
        (false, true) => "FAILED",
        (false, false) => "FINISHED",
    }
}

/// Averages of the rates over the recent batches that had input.
fn average(progress: &[QueryProgress], f: fn(&QueryProgress) -> f64) -> f64 {
    let rated: Vec<f64> = progress
        .iter()
        .filter(|p| p.num_input_rows > 0)
        .map(f)
        .collect();
    if rated.is_empty() {
        0.0
    } else {
        rated.iter().sum::<f64>() / rated.len() as f64
    }
}

/// An error as a page shows it: its first line and, for a traceback, its
/// last (the exception raised), with the whole text (escaped, wrapped,
/// scrolling) folded under them.
fn error_html(text: &str) -> String {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("SQLSTATE"))
        .collect();
    let summary = match (lines.first(), lines.last()) {
        (Some(first), Some(last)) if lines.len() > 1 => format!("{} … {}", esc(first), esc(last)),
        (Some(first), _) => esc(first),
        _ => String::new(),
    };
    format!(
        "<div class=\"error\"><span class=\"message\">{summary}</span><details><summary>full error</summary><pre>{}</pre></details></div>",
        esc(text)
    )
}

/// The session's settings (Spark's Environment tab, its properties).
fn environment_page(conf: &crate::conf::Conf, app: &str) -> String {
    let mut body = String::from(
        "<h2>Spark Properties</h2><table class=\"environment\"><tr><th>Name</th><th>Value</th></tr>",
    );
    let mut all = conf.all();
    all.sort();
    for (k, v) in all {
        let _ = write!(body, "<tr><td>{}</td><td>{}</td></tr>", esc(&k), esc(&v));
    }
    let _ = write!(
        body,
        "</table><h2>Runtime Information</h2><table><tr><th>sparklet</th><td>{}</td></tr>\
         <tr><th>Processors</th><td>{}</td></tr></table>",
        env!("CARGO_PKG_VERSION"),
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    page(app, "Environment", false, &body)
}

fn list_page(streams: &QueryManager, app: &str) -> String {
    let active = streams.active();
    let finished = streams.finished();
    let mut body = String::new();
    for (title, queries) in [("Active", &active), ("Completed", &finished)] {
        let _ = write!(
            body,
            "<h2>{title} Streaming Queries ({})</h2>",
            queries.len()
        );
        if queries.is_empty() {
            continue;
        }
        body.push_str(
            "<table><tr><th>Name</th><th>Status</th><th>ID</th><th>Run ID</th><th>Start Time</th>\
             <th>Duration</th><th>Avg Input /sec</th><th>Avg Process /sec</th><th>Latest Batch</th><th>Error</th></tr>",
        );
        let now = chrono::Utc::now().timestamp_millis();
        for q in queries.iter() {
            let recent = q.recent_progress();
            let until = q.ended_ms().unwrap_or(now);
            let error = q
                .exception()
                .map(|e| error_html(&e.to_string()))
                .unwrap_or_default();
            let _ = write!(
                body,
                "<tr class=\"query\"><td><a href=\"/StreamingQuery/statistics/?id={}\">{}</a></td><td class=\"{}\">{}</td>\
                 <td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.2}</td><td>{:.2}</td><td>{}</td><td class=\"failed\">{}</td></tr>",
                esc(q.run_id()),
                esc(q.name().unwrap_or("<no name>")),
                status_of(q).to_lowercase(),
                status_of(q),
                esc(q.id()),
                esc(q.run_id()),
                fmt_ms(q.started_ms()),
                duration(until - q.started_ms()),
                average(&recent, |p| p.input_rows_per_second),
                average(&recent, |p| p.processed_rows_per_second),
                recent.last().map_or(-1, |p| p.batch_id),
                error,
            );
        }
        body.push_str("</table>");
    }
    page(app, "Structured Streaming", !active.is_empty(), &body)
}

/// Milliseconds since the epoch of a progress timestamp.
fn epoch_ms(ts: &str) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(ts)
        .ok()
        .map(|t| t.timestamp_millis())
}

fn query_page(q: &StreamingQuery, app: &str) -> String {
    let recent = q.recent_progress();
    let series = |f: &dyn Fn(&QueryProgress) -> Option<f64>| -> Vec<(i64, f64)> {
        recent
            .iter()
            .filter_map(|p| f(p).map(|v| (p.batch_id, v)))
            .collect()
    };
    let state_rows = |p: &QueryProgress| -> Option<f64> {
        if p.state_operators.is_empty() {
            return None;
        }
        Some(
            p.state_operators
                .iter()
                .filter_map(|o| o["numRowsTotal"].as_f64())
                .sum(),
        )
    };
    // Spark charts the watermark as its gap behind the batch's time
    let gap = |p: &QueryProgress| -> Option<f64> {
        let wm = epoch_ms(p.event_time.get("watermark")?)?;
        let at = epoch_ms(&p.timestamp)?;
        (wm > 0).then(|| (at - wm) as f64 / 1000.0)
    };
    let state_sum = |field: &'static str| {
        move |p: &QueryProgress| -> Option<f64> {
            (!p.state_operators.is_empty()).then(|| {
                p.state_operators
                    .iter()
                    .filter_map(|o| o[field].as_f64())
                    .sum()
            })
        }
    };
    let charts = [
        (
            "input-rows",
            "Input Rows",
            series(&|p| Some(p.num_input_rows as f64)),
        ),
        (
            "input-rate",
            "Input Rate (rows/sec)",
            series(&|p| Some(p.input_rows_per_second)),
        ),
        (
            "process-rate",
            "Process Rate (rows/sec)",
            series(&|p| Some(p.processed_rows_per_second)),
        ),
        (
            "batch-duration",
            "Batch Duration (ms)",
            series(&|p| Some(p.batch_duration as f64)),
        ),
        ("state-rows", "State Rows (total)", series(&state_rows)),
        (
            "state-rows-updated",
            "State Rows Updated",
            series(&state_sum("numRowsUpdated")),
        ),
        (
            "state-memory",
            "State Memory (bytes)",
            series(&state_sum("memoryUsedBytes")),
        ),
        (
            "rows-dropped",
            "Rows Dropped by Watermark",
            series(&state_sum("numRowsDroppedByWatermark")),
        ),
        ("watermark-gap", "Global Watermark Gap (sec)", series(&gap)),
    ];
    // the time axis: each end's batch time (UTC, as progress timestamps)
    let time_of = |batch: i64| -> String {
        recent
            .iter()
            .find(|p| p.batch_id == batch)
            .and_then(|p| p.timestamp.get(11..19).map(str::to_string))
            .unwrap_or_default()
    };
    let name = q.name().unwrap_or("<no name>");
    let mut body = String::new();
    let watermark = recent
        .last()
        .and_then(|p| p.event_time.get("watermark").cloned())
        .unwrap_or_else(|| "none".into());
    let _ = write!(
        body,
        "<table class=\"summary\"><tr><th>Name</th><td class=\"name\">{}</td></tr><tr><th>Status</th><td>{}</td></tr>\
         <tr><th>ID</th><td>{}</td></tr><tr><th>Run ID</th><td>{}</td></tr><tr><th>Started</th><td>{}</td></tr>\
         <tr><th>Duration</th><td>{}</td></tr>\
         <tr><th>Latest Batch</th><td>{}</td></tr><tr><th>Watermark</th><td>{}</td></tr></table>",
        esc(name),
        status_of(q),
        esc(q.id()),
        esc(q.run_id()),
        fmt_ms(q.started_ms()),
        duration(q.ended_ms().unwrap_or_else(|| chrono::Utc::now().timestamp_millis()) - q.started_ms()),
        recent.last().map_or(-1, |p| p.batch_id),
        esc(&watermark),
    );
    if let Some(e) = q.exception() {
        let _ = write!(body, "<h2>Error</h2>{}", error_html(&e.to_string()));
    }
    body.push_str(&operation_durations(&recent));
    body.push_str("<div class=\"charts\">");
    for (id, title, points) in &charts {
        let _ = write!(
            body,
            "<div class=\"chart\" id=\"{id}\"><h3>{title}</h3>{}</div>",
            line_chart(title, points, &time_of)
        );
    }
    body.push_str("</div><h2>Recent batches</h2><table><tr><th>Batch</th><th>Time</th><th>Input rows</th><th>Input /sec</th><th>Process /sec</th><th>Duration (ms)</th></tr>");
    for p in recent.iter().rev().take(20) {
        let _ = write!(
            body,
            "<tr class=\"batch\"><td>{}</td><td>{}</td><td>{}</td><td>{:.1}</td><td>{:.1}</td><td>{}</td></tr>",
            p.batch_id,
            esc(&p.timestamp),
            p.num_input_rows,
            p.input_rows_per_second,
            p.processed_rows_per_second,
            p.batch_duration
        );
    }
    body.push_str("</table>");
    page(
        app,
        &format!("Streaming Query Statistics: {name}"),
        q.is_active(),
        &body,
    )
}

/// The time each phase of a batch took (Spark's operation duration
/// breakdown): the latest batch and the average over the recent ones.
fn operation_durations(recent: &[QueryProgress]) -> String {
    let Some(last) = recent.last() else {
        return String::new();
    };
    let mut out = String::from(
        "<h2>Operation Duration (ms)</h2><table class=\"durations\"><tr><th>Operation</th><th>Latest batch</th><th>Average</th></tr>",
    );
    for (op, ms) in &last.duration_ms {
        let seen: Vec<i64> = recent
            .iter()
            .filter_map(|p| p.duration_ms.get(op).copied())
            .collect();
        let avg = seen.iter().sum::<i64>() as f64 / seen.len().max(1) as f64;
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{ms}</td><td>{avg:.1}</td></tr>",
            esc(op)
        );
    }
    out.push_str("</table>");
    out
}

/// A line chart of `points` (batch id, value) as inline SVG.
fn line_chart(title: &str, points: &[(i64, f64)], time_of: &dyn Fn(i64) -> String) -> String {
    const W: f64 = 420.0;
    const H: f64 = 150.0;
    const LEFT: f64 = 60.0;
    const BOTTOM: f64 = 20.0;
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{H}\" role=\"img\">\
         <title>{}</title><line x1=\"{LEFT}\" y1=\"5\" x2=\"{LEFT}\" y2=\"{}\" stroke=\"#999\"/>\
         <line x1=\"{LEFT}\" y1=\"{}\" x2=\"{W}\" y2=\"{}\" stroke=\"#999\"/>",
        esc(title),
        H - BOTTOM,
        H - BOTTOM,
        H - BOTTOM
    );
    if points.is_empty() {
        svg.push_str("<text x=\"80\" y=\"70\">no batches yet</text></svg>");
        return svg;
    }
    let (x0, x1) = (points[0].0, points[points.len() - 1].0);
    let max = points.iter().map(|p| p.1).fold(0.0_f64, f64::max);
    let min = points.iter().map(|p| p.1).fold(0.0_f64, f64::min);
    let span_y = if max > min { max - min } else { 1.0 };
    let span_x = (x1 - x0).max(1) as f64;
    let x = |b: i64| LEFT + 5.0 + (b - x0) as f64 / span_x * (W - LEFT - 15.0);
    let y = |v: f64| 5.0 + (max - v) / span_y * (H - BOTTOM - 10.0);
    let line: Vec<String> = points
        .iter()
        .map(|(b, v)| format!("{:.1},{:.1}", x(*b), y(*v)))
        .collect();
    let _ = write!(
        svg,
        "<polyline fill=\"none\" stroke=\"#2a6fdb\" stroke-width=\"1.5\" points=\"{}\"/>",
        line.join(" ")
    );
    // a dot per batch, its value on hover
    for (b, v) in points {
        let _ = write!(
            svg,
            "<circle class=\"point\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"2.5\" fill=\"#2a6fdb\"><title>batch {b}: {}</title></circle>",
            x(*b),
            y(*v),
            compact(*v)
        );
    }
    let _ = write!(
        svg,
        "<text x=\"{}\" y=\"12\" text-anchor=\"end\">{}</text><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\
         <text x=\"{}\" y=\"{}\">batch {x0} · {}</text><text x=\"{W}\" y=\"{}\" text-anchor=\"end\">batch {x1} · {}</text></svg>",
        LEFT - 4.0,
        compact(max),
        LEFT - 4.0,
        H - BOTTOM,
        compact(min),
        LEFT + 5.0,
        H - 4.0,
        time_of(x0),
        H - 4.0,
        time_of(x1)
    );
    svg
}

/// A number for an axis label: 1.2K, 3.4M, or as is.
fn compact(v: f64) -> String {
    let a = v.abs();
    if a >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if a >= 1e3 {
        format!("{:.1}K", v / 1e3)
    } else if a == a.trunc() {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

fn queries_json(streams: &QueryManager) -> String {
    let describe = |q: &StreamingQuery| {
        serde_json::json!({
            "id": q.id(),
            "runId": q.run_id(),
            "name": q.name(),
            "status": status_of(q),
            "startTimestamp": q.started_ms(),
            "exception": q.exception().map(|e| e.to_string()),
            "lastProgress": q.last_progress(),
        })
    };
    serde_json::json!({
        "active": streams.active().iter().map(describe).collect::<Vec<_>>(),
        "completed": streams.finished().iter().map(describe).collect::<Vec<_>>(),
    })
    .to_string()
}
