//! `format("socket")`: text lines read from a TCP server, as Spark's socket
//! source (for tests and demos). A thread reads lines as they arrive; the
//! offset is the number of the last line received; a committed batch's
//! lines are dropped. As in Spark it is not fault tolerant: lines received
//! but not processed when the query stops are gone, and a restarted query
//! reads what the server sends on its new connection.

use std::collections::{HashMap, VecDeque};
use std::io::{BufRead, BufReader};
use std::net::{Shutdown, TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

use arrow::array::{RecordBatch, StringArray, TimestampMicrosecondArray};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef, TimeUnit};
use datafusion::datasource::MemTable;
use parking_lot::Mutex;

use super::{parse_bool_option, BatchInput, Offset, Source, SourceContext, SourceFactory};
use crate::error::{Error, Result};

/// How long connecting may take before the query fails to start.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Options of `format("socket")`.
#[derive(Debug)]
pub struct SocketFactory {
    host: String,
    port: u16,
    include_timestamp: bool,
}

impl SocketFactory {
    /// `host` and `port` are required, as in Spark.
    pub fn new(options: &HashMap<String, String>) -> Result<Self> {
        let host = options.get("host").cloned().ok_or_else(|| {
            Error::analysis(
                "INVALID_OPTION",
                "Set a host to read from with option(\"host\", ...).",
            )
        })?;
        let port = options.get("port").ok_or_else(|| {
            Error::analysis(
                "INVALID_OPTION",
                "Set a port to read from with option(\"port\", ...).",
            )
        })?;
        // Spark's words (a NumberFormatException), then what it takes
        let port = port.trim().parse::<u16>().map_err(|_| {
            Error::illegal_argument(format!(
                "For input string: \"{port}\" (option port: a number from 0 to 65535)"
            ))
        })?;
        let include_timestamp = match options.get("includetimestamp") {
            Some(v) => parse_bool_option("includeTimestamp", v)?,
            None => false,
        };
        Ok(SocketFactory {
            host,
            port,
            include_timestamp,
        })
    }

    fn connect(&self) -> Result<TcpStream> {
        let fail = |e: std::io::Error| {
            Error::illegal_argument(format!(
                "Cannot connect to the socket source at {}:{}: {e}",
                self.host, self.port
            ))
        };
        let mut last = None;
        for addr in (self.host.as_str(), self.port)
            .to_socket_addrs()
            .map_err(fail)?
        {
            match TcpStream::connect_timeout(&addr, CONNECT_TIMEOUT) {
                Ok(s) => return Ok(s),
                Err(e) => last = Some(e),
            }
        }
        Err(fail(last.unwrap_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::NotFound, "no address")
        })))
    }
}

fn schema(include_timestamp: bool) -> SchemaRef {
    let mut fields = vec![Field::new("value", DataType::Utf8, true)];
    if include_timestamp {
        fields.push(Field::new(
            "timestamp",
            DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            true,
        ));
    }
    Arc::new(Schema::new(fields))
}

/// Lines received and not yet committed.
#[derive(Default)]
struct Received {
    /// (line, arrival µs), the first being line number `first`.
    lines: VecDeque<(String, i64)>,
    first: i64,
    /// Why reading stopped, if it failed.
    error: Option<String>,
}

impl SourceFactory for SocketFactory {
    fn wakes_on_arrival(&self) -> bool {
        true
    }

    fn supports_real_time(&self) -> bool {
        true
    }

    fn schema(&self) -> SchemaRef {
        schema(self.include_timestamp)
    }

    fn create(&self, _ctx: &SourceContext) -> Result<Box<dyn Source>> {
        let stream = self.connect()?;
        let reader = stream
            .try_clone()
            .map_err(|e| Error::io(format!("{}:{}", self.host, self.port), e))?;
        let received = Arc::new(Mutex::new(Received::default()));
        let sink = Arc::clone(&received);
        let wake = crate::engine::global_wake();
        std::thread::Builder::new()
            .name("sparklet-socket-source".into())
            .spawn(move || {
                let mut reader = BufReader::new(reader);
                let mut buf = Vec::new();
                loop {
                    buf.clear();
                    match reader.read_until(b'\n', &mut buf) {
                        Ok(0) => return,
                        Ok(_) => {
                            // bytes that are not UTF-8 become U+FFFD, as
                            // Java's decoder makes them in Spark's source
                            let line = buf.strip_suffix(b"\n").unwrap_or(&buf);
                            let line = line.strip_suffix(b"\r").unwrap_or(line);
                            let l = String::from_utf8_lossy(line).into_owned();
                            let at = chrono::Utc::now().timestamp_micros();
                            sink.lock().lines.push_back((l, at));
                            // a query waiting for data looks at once
                            wake.notify();
                        }
                        Err(e) => {
                            sink.lock().error = Some(e.to_string());
                            return;
                        }
                    }
                }
            })
            .map_err(|e| Error::io("the socket source thread", e))?;
        Ok(Box::new(SocketSource {
            address: format!("{}:{}", self.host, self.port),
            host_port: format!("host: {}, port: {}", self.host, self.port),
            include_timestamp: self.include_timestamp,
            stream,
            received,
        }))
    }
}

struct SocketSource {
    address: String,
    /// As Spark's description shows them.
    host_port: String,
    include_timestamp: bool,
    /// Shut down when the source goes, which ends the reading thread.
    stream: TcpStream,
    received: Arc<Mutex<Received>>,
}

impl Drop for SocketSource {
    fn drop(&mut self) {
        let _ = self.stream.shutdown(Shutdown::Both);
    }
}

fn line_number(offset: Option<&Offset>) -> i64 {
    offset.and_then(|o| o.as_i64()).unwrap_or(-1)
}

impl Source for SocketSource {
    fn description(&self) -> String {
        format!("TextSocketV2[{}]", self.host_port)
    }

    fn schema(&self) -> SchemaRef {
        schema(self.include_timestamp)
    }

    fn latest_offset(&mut self) -> Result<Option<Offset>> {
        let r = self.received.lock();
        if let Some(e) = &r.error {
            return Err(Error::illegal_argument(format!(
                "Reading the socket source at {} failed: {e}",
                self.address
            )));
        }
        let last = r.first + r.lines.len() as i64 - 1;
        Ok((last >= 0).then(|| Offset::from(last)))
    }

    fn get_batch(&mut self, start: Option<&Offset>, end: &Offset) -> Result<BatchInput> {
        let (from, to) = (line_number(start) + 1, line_number(Some(end)));
        let r = self.received.lock();
        let lines: Vec<&(String, i64)> = r
            .lines
            .iter()
            .skip((from - r.first).max(0) as usize)
            .take((to - from.max(r.first) + 1).max(0) as usize)
            .collect();
        let mut columns: Vec<arrow::array::ArrayRef> = vec![Arc::new(
            StringArray::from_iter_values(lines.iter().map(|(l, _)| l.as_str())),
        )];
        if self.include_timestamp {
            let ts: TimestampMicrosecondArray = lines.iter().map(|(_, t)| Some(*t)).collect();
            columns.push(Arc::new(ts.with_timezone("UTC")));
        }
        let batch = RecordBatch::try_new(self.schema(), columns)?;
        let num_rows = batch.num_rows() as u64;
        Ok(BatchInput {
            provider: Arc::new(MemTable::try_new(self.schema(), vec![vec![batch]])?),
            num_rows,
        })
    }

    fn commit(&mut self, end: &Offset) -> Result<()> {
        let done = line_number(Some(end));
        let mut r = self.received.lock();
        while r.first <= done && r.lines.pop_front().is_some() {
            r.first += 1;
        }
        Ok(())
    }

    fn restore(&mut self, committed: Option<&Offset>) -> Result<()> {
        // a new connection's lines number on from the last committed one
        let mut r = self.received.lock();
        r.first = r.first.max(line_number(committed) + 1);
        Ok(())
    }
}
