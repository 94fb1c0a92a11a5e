//! A tiny blocking HTTP/1.1 client, so the tests depend on no client library (rustls aside,
//! which carries it over TLS).

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};

use mock_rates::{Faults, MockServer, Settings, TlsSettings};

use crate::tls_client::{self, Stream, plain};

pub fn server() -> MockServer {
    MockServer::start(Settings::default()).expect("the server starts")
}

pub fn server_with(settings: Settings) -> MockServer {
    MockServer::start(settings).expect("the server starts")
}

pub fn server_with_faults(faults: Faults) -> MockServer {
    server_with(Settings {
        faults,
        ..Settings::default()
    })
}

/// Plain HTTP, then HTTPS: a check given to this must hold over both.
pub fn each_protocol(check: impl Fn(Option<TlsSettings>)) {
    for tls in [None, Some(TlsSettings::default())] {
        // Shown with the failure, so it says which protocol broke.
        println!("over {}", if tls.is_some() { "https" } else { "http" });
        check(tls);
    }
}

#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// How many chunks carried the body, when it was chunked.
    pub chunks: usize,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    pub fn text(&self) -> &str {
        std::str::from_utf8(&self.body).expect("a UTF-8 body")
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).expect("a JSON body")
    }
}

/// One connection, plain or TLS, used for as many requests as a test likes.
pub struct Client {
    pub reader: BufReader<Stream>,
}

impl Client {
    /// Connects the way `server` listens: over TLS, trusting its CA, when it has one.
    pub fn connect(server: &MockServer) -> Self {
        match server.ca_pem() {
            None => Self::connect_to(server.addr()),
            Some(ca_pem) => Self::over(
                tls_client::connect(server.addr(), "localhost", &tls_client::trusting(ca_pem))
                    .expect("the TLS handshake succeeds"),
            ),
        }
    }

    pub fn connect_to(addr: SocketAddr) -> Self {
        Self::over(Stream::Plain(plain(addr)))
    }

    pub fn over(stream: Stream) -> Self {
        Self {
            reader: BufReader::new(stream),
        }
    }

    /// The TCP socket, whatever runs over it.
    pub fn socket(&self) -> &TcpStream {
        self.reader.get_ref().socket()
    }

    pub fn send_raw(&mut self, raw: &[u8]) {
        let stream = self.reader.get_mut();
        stream.write_all(raw).expect("write the request");
        stream.flush().expect("flush the request");
    }

    pub fn send(&mut self, method: &str, path: &str, headers: &[(&str, &str)], body: &str) {
        let mut raw = Vec::new();
        write!(raw, "{method} {path} HTTP/1.1\r\nHost: localhost\r\n").unwrap();
        for (name, value) in headers {
            write!(raw, "{name}: {value}\r\n").unwrap();
        }
        if !body.is_empty() || method == "PUT" || method == "POST" {
            write!(raw, "Content-Length: {}\r\n", body.len()).unwrap();
        }
        write!(raw, "\r\n{body}").unwrap();
        self.send_raw(&raw);
    }

    pub fn request(&mut self, method: &str, path: &str, body: &str) -> Response {
        self.send(method, path, &[], body);
        self.read_response().expect("a response")
    }

    pub fn get(&mut self, path: &str) -> Response {
        self.request("GET", path, "")
    }

    /// Reads the status line and headers only.
    pub fn read_head(&mut self) -> io::Result<(u16, Vec<(String, String)>)> {
        let mut line = String::new();
        if self.reader.read_line(&mut line)? == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        let status = line
            .split(' ')
            .nth(1)
            .and_then(|status| status.parse().ok())
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, line.clone()))?;
        let mut headers = Vec::new();
        loop {
            line.clear();
            if self.reader.read_line(&mut line)? == 0 {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
            let line = line.trim_end();
            if line.is_empty() {
                return Ok((status, headers));
            }
            let (name, value) = line
                .split_once(':')
                .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, line.to_owned()))?;
            headers.push((name.trim().to_owned(), value.trim().to_owned()));
        }
    }

    /// Reads one whole response, decoding either framing.
    pub fn read_response(&mut self) -> io::Result<Response> {
        let (status, headers) = self.read_head()?;
        let mut response = Response {
            status,
            headers,
            body: Vec::new(),
            chunks: 0,
        };
        if response
            .header("transfer-encoding")
            .is_some_and(|value| value.eq_ignore_ascii_case("chunked"))
        {
            loop {
                let mut size = String::new();
                self.reader.read_line(&mut size)?;
                let size = usize::from_str_radix(size.trim_end(), 16)
                    .map_err(|error| io::Error::new(io::ErrorKind::InvalidData, error))?;
                let mut chunk = vec![0; size + 2];
                self.reader.read_exact(&mut chunk)?;
                if size == 0 {
                    break;
                }
                response.chunks += 1;
                response.body.extend_from_slice(&chunk[..size]);
            }
        } else {
            let length: usize = response
                .header("content-length")
                .and_then(|length| length.parse().ok())
                .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "no Content-Length"))?;
            response.body = vec![0; length];
            self.reader.read_exact(&mut response.body)?;
        }
        Ok(response)
    }

    /// Reads whatever is left until the server closes.
    pub fn read_to_end(&mut self) -> io::Result<Vec<u8>> {
        let mut rest = Vec::new();
        self.reader.read_to_end(&mut rest)?;
        Ok(rest)
    }

    /// True when the server has closed the connection (nothing more to read).
    pub fn is_closed(&mut self) -> bool {
        matches!(self.read_to_end(), Ok(rest) if rest.is_empty())
    }
}

/// One request on a fresh connection.
pub fn get(server: &MockServer, path: &str) -> Response {
    Client::connect(server).get(path)
}

pub fn set_faults(server: &MockServer, faults: &Faults) -> Response {
    let body = serde_json::to_string(faults).expect("faults serialize");
    Client::connect(server).request("PUT", "/__admin/faults", &body)
}
