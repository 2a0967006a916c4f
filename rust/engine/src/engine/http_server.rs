//! The web UI's HTTP server: small, synchronous, and bounded, so that no
//! client can take what the queries beside it need. At most
//! [`MAX_CONNECTIONS`] connections are open at once (the ones beyond are
//! closed as they arrive), [`WORKERS`] threads answer them, a client has
//! [`IDLE_TIMEOUT`] from its connecting to send its request (and as long
//! again to read the answer), each connection carries one request
//! (`Connection: close`), only `GET` and `HEAD` are answered, and on a
//! loopback address only a loopback `Host` is (a page of another site that
//! resolves its own name to 127.0.0.1 cannot read the UI: DNS rebinding). The accept loop outlives any error
//! (out of file descriptors included): it waits and accepts again.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{IpAddr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Connections open at once; more are closed as they arrive.
pub const MAX_CONNECTIONS: usize = 32;
/// Threads answering requests.
pub const WORKERS: usize = 2;
/// How long a client may take to send its request, or to read the answer.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(5);
/// The longest request head read (request line and headers).
const MAX_HEAD: u64 = 16 * 1024;

/// A request: what the pages need of it.
#[derive(Debug)]
pub struct Request {
    /// The path and query (`/StreamingQuery/statistics?id=..`).
    pub url: String,
}

/// An answer.
#[derive(Debug)]
pub struct Response {
    /// The status code.
    pub status: u16,
    /// Headers beyond the ones every answer has.
    pub headers: Vec<(&'static str, String)>,
    /// The body.
    pub body: String,
}

/// A running server; dropping it stops its threads and frees its port.
pub struct Server {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server").field("addr", &self.addr).finish()
    }
}

/// A connection waiting for a worker: its deadline runs from its accept.
type Accepted = (TcpStream, Instant, Open);

/// Counts a connection as open until dropped.
struct Open(Arc<AtomicUsize>);

impl Drop for Open {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Server {
    /// Bind `addr` and answer each request with `handle`.
    pub fn bind(
        addr: SocketAddr,
        handle: impl Fn(&Request) -> Response + Send + Sync + 'static,
    ) -> std::io::Result<Self> {
        let listener = TcpListener::bind(addr)?;
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let open = Arc::new(AtomicUsize::new(0));
        let (tx, rx) = sync_channel::<Accepted>(MAX_CONNECTIONS);
        let rx = Arc::new(parking_lot::Mutex::new(rx));
        let handle = Arc::new(handle);
        let mut threads = Vec::with_capacity(WORKERS + 1);
        for i in 0..WORKERS {
            let (rx, handle) = (Arc::clone(&rx), Arc::clone(&handle));
            let loopback = addr.ip().is_loopback();
            threads.push(
                std::thread::Builder::new()
                    .name(format!("sparklet-web-ui-{i}"))
                    .spawn(move || serve(&rx, loopback, handle.as_ref()))?,
            );
        }
        let accepting = Arc::clone(&stop);
        threads.push(
            std::thread::Builder::new()
                .name("sparklet-web-ui".into())
                .spawn(move || accept(&listener, &accepting, &open, tx))?,
        );
        Ok(Server {
            addr,
            stop,
            threads,
        })
    }

    /// The address it serves.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // wake the accept loop; its exit closes the workers' channel
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

fn accept(
    listener: &TcpListener,
    stop: &AtomicBool,
    open: &Arc<AtomicUsize>,
    tx: SyncSender<Accepted>,
) {
    while !stop.load(Ordering::SeqCst) {
        let stream = match listener.accept() {
            Ok((s, _)) => s,
            Err(e) => {
                // out of descriptors, or the client went: wait, go on
                log::debug!("web UI accept: {e}");
                std::thread::sleep(Duration::from_millis(50));
                continue;
            }
        };
        if stop.load(Ordering::SeqCst) {
            break;
        }
        if open.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
            open.fetch_sub(1, Ordering::SeqCst);
            drop(stream); // over the limit: closed at once
            continue;
        }
        // every worker busy and the queue full: closed at once as well
        let _ = tx.try_send((stream, Instant::now(), Open(Arc::clone(open))));
    }
}

fn serve(
    rx: &parking_lot::Mutex<Receiver<Accepted>>,
    loopback: bool,
    handle: &(dyn Fn(&Request) -> Response + Send + Sync),
) {
    loop {
        let next = rx.lock().recv();
        let Ok((stream, accepted, _open)) = next else {
            return; // the accept loop ended
        };
        let _ = answer(stream, accepted + IDLE_TIMEOUT, loopback, handle);
    }
}

/// Read one request from `stream` and answer it; errors are the client's
/// (gone, slow, malformed) and end only this connection.
fn answer(
    stream: TcpStream,
    until: Instant,
    loopback: bool,
    handle: &(dyn Fn(&Request) -> Response + Send + Sync),
) -> std::io::Result<()> {
    stream.set_write_timeout(Some(IDLE_TIMEOUT))?;
    let mut reader = BufReader::new(
        Deadline {
            stream: &stream,
            until,
        }
        .take(MAX_HEAD),
    );
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let (method, url) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let mut host = None;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            if name.trim().eq_ignore_ascii_case("host") {
                host = Some(value.trim().to_string());
            }
        }
    }
    let head = method == "HEAD";
    let response = if method.is_empty() || !url.starts_with('/') {
        plain(400, "Bad request.")
    } else if method != "GET" && !head {
        let mut r = plain(405, "Only GET and HEAD are answered.");
        r.headers.push(("Allow", "GET, HEAD".into()));
        r
    } else if loopback && !host.as_deref().is_none_or(is_loopback_host) {
        plain(403, "This UI answers only to localhost.")
    } else {
        handle(&Request {
            url: url.to_string(),
        })
    };
    write_response(&stream, &response, head)?;
    let _ = stream.shutdown(Shutdown::Both);
    Ok(())
}

/// Reads from a stream until a deadline for the whole request (a client
/// sending a byte at a time gets no longer than one sending it at once).
struct Deadline<'a> {
    stream: &'a TcpStream,
    until: Instant,
}

impl Read for Deadline<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = self.until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(std::io::ErrorKind::TimedOut.into());
        }
        self.stream.set_read_timeout(Some(left))?;
        let mut s = self.stream;
        s.read(buf)
    }
}

fn plain(status: u16, text: &str) -> Response {
    Response {
        status,
        headers: vec![("Content-Type", "text/plain; charset=utf-8".into())],
        body: format!("{text}\n"),
    }
}

/// Whether a `Host` header names this machine's loopback (`localhost`,
/// `127.x.x.x`, `[::1]`, with or without a port).
fn is_loopback_host(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or(""),
        None => host.rsplit_once(':').map_or(host, |(n, _)| n),
    };
    name.eq_ignore_ascii_case("localhost")
        || name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        302 => "Found",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        _ => "",
    }
}

fn write_response(mut stream: &TcpStream, r: &Response, head: bool) -> std::io::Result<()> {
    let mut out = format!("HTTP/1.1 {} {}\r\n", r.status, reason(r.status));
    for (name, value) in &r.headers {
        out.push_str(&format!("{name}: {value}\r\n"));
    }
    out.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        r.body.len()
    ));
    stream.write_all(out.as_bytes())?;
    if !head {
        stream.write_all(r.body.as_bytes())?;
    }
    stream.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts() {
        for h in [
            "localhost",
            "localhost:4040",
            "127.0.0.1:4040",
            "[::1]:4040",
            "LOCALHOST",
        ] {
            assert!(is_loopback_host(h), "{h}");
        }
        for h in ["evil.example:4040", "10.0.0.1", "[2001:db8::1]:80", ""] {
            assert!(!is_loopback_host(h), "{h}");
        }
    }
}
