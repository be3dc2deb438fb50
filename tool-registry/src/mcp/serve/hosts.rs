//! The `Host` check against DNS rebinding: a request to the MCP endpoint whose `Host` is not one
//! of [`HttpOptions::allowed_hosts`](super::HttpOptions::allowed_hosts) is refused with `403`,
//! before the token check and the client's limits. (The MCP transport's security warning asks
//! servers to check `Origin`, which stays rmcp's; the `Host` check is rmcp's further defence,
//! as in the MCP SDKs' `allowedHosts`.)
//!
//! The rule is rmcp's (`StreamableHttpServerConfig::allowed_hosts`, rmcp 3.11): the `Host`
//! header (else the request URI's authority) is read as a URI authority, its host compared
//! case-insensitively and without IPv6 brackets, and its port only against an entry that names
//! one. rmcp reads every entry of its list again for every request; here the list is read once,
//! when the server starts, and the common `Host` values (a name or IPv4 address, with or
//! without a port) are read without allocating. rmcp still reads the header itself, with an
//! empty list (anything it can read passes), so a `Host` that is no URI authority is its
//! `400 Bad Request`, as before.

use hyper::header::HOST;
use hyper::http::uri::Authority;
use hyper::{HeaderMap, Uri};

/// The body of the refusal, rmcp's own words.
pub(super) const REFUSED: &str = "Forbidden: Host header is not allowed";

/// The accepted `Host` values, read once.
#[derive(Debug, Clone)]
pub(super) struct AllowedHosts {
    /// `None`: no list, every host is accepted (rmcp's reading of an empty list).
    entries: Option<Vec<Entry>>,
    /// The second (since the Unix epoch) of the last refusal logged: refusals are logged at
    /// most once a second, so that a flood of them does not flood the log.
    logged: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

/// One entry of the list: a host (lower case, without brackets) and the port it requires.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    host: String,
    port: Option<u16>,
}

/// What the check says of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum HostCheck {
    /// The host is on the list.
    Allowed,
    /// The host is not on the list: `403`.
    Refused,
    /// No host could be read (a `Host` that is not UTF-8 or no URI authority, or no `Host` and
    /// no authority in the request URI): left to rmcp, which answers `400`.
    Unreadable,
}

impl AllowedHosts {
    /// The list `allowed` (`name` or `name:port` entries; blank entries are skipped, as rmcp
    /// skips them), read as rmcp reads it.
    ///
    /// # Errors
    /// An entry that is no host or `host:port` (rmcp would keep it as a name no `Host` ever
    /// matches, or, with a port past 65535, as a host on any port): the message names it
    /// and the fix.
    pub(super) fn new(allowed: &[String]) -> Result<Self, String> {
        if allowed.is_empty() {
            return Ok(Self {
                entries: None,
                logged: Default::default(),
            });
        }
        let mut entries = Vec::with_capacity(allowed.len());
        for written in allowed {
            if written.trim().is_empty() {
                continue;
            }
            let (host, port) = super::entries::host(written)?;
            entries.push(Entry {
                host: normalized(&host),
                port,
            });
        }
        Ok(Self {
            entries: Some(entries),
            logged: Default::default(),
        })
    }

    /// Whether the list accepts loopback names only (`localhost`, a loopback address), so
    /// that a client reaching the server by any other name is refused.
    pub(super) fn loopback_only(&self) -> bool {
        self.entries.as_ref().is_some_and(|entries| {
            entries.iter().all(|entry| {
                entry.host == "localhost"
                    || entry
                        .host
                        .parse::<std::net::IpAddr>()
                        .is_ok_and(|ip| ip.is_loopback())
            })
        })
    }

    /// Whether the request with `uri` and `headers` may reach the MCP endpoint.
    pub(super) fn check(&self, uri: &Uri, headers: &HeaderMap) -> HostCheck {
        let Some(entries) = &self.entries else {
            return HostCheck::Allowed;
        };
        let parsed;
        let (host, port) = match headers.get(HOST) {
            Some(value) => match plain_authority(value.as_bytes()) {
                Some(read) => read,
                None => {
                    let Ok(value) = value.to_str() else {
                        return HostCheck::Unreadable;
                    };
                    match Authority::try_from(value) {
                        Ok(authority) => {
                            parsed = authority;
                            (
                                without_brackets(parsed.host()).as_bytes(),
                                parsed.port_u16(),
                            )
                        }
                        Err(_) => return HostCheck::Unreadable,
                    }
                }
            },
            // HTTP/2 carries the host in `:authority`.
            None => match uri.authority() {
                Some(authority) => (
                    without_brackets(authority.host()).as_bytes(),
                    authority.port_u16(),
                ),
                None => return HostCheck::Unreadable,
            },
        };
        let allowed = entries.iter().any(|entry| {
            entry.host.as_bytes().eq_ignore_ascii_case(host)
                && entry.port.is_none_or(|want| port == Some(want))
        });
        if allowed {
            HostCheck::Allowed
        } else {
            let second = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |since| since.as_secs());
            let last = self
                .logged
                .swap(second, std::sync::atomic::Ordering::Relaxed);
            if last != second {
                tracing::warn!(
                    host = %String::from_utf8_lossy(host),
                    port,
                    "rejected a request with a Host header that is not allowed (possible DNS \
                     rebinding; further refusals this second are not logged)"
                );
            }
            HostCheck::Refused
        }
    }
}

/// The host and port of a `Host` value made of a name or IPv4 address (ASCII letters, digits,
/// `.` and `-`) and an optional `:port`, read without allocating; `None` for anything else
/// (read as a URI authority instead, as is a port beyond `u16`). An empty port is `None`, as
/// [`Authority::port_u16`] has it.
fn plain_authority(value: &[u8]) -> Option<(&[u8], Option<u16>)> {
    let (host, port) = match value.iter().position(|&byte| byte == b':') {
        Some(colon) => (&value[..colon], Some(&value[colon + 1..])),
        None => (value, None),
    };
    let plain = !host.is_empty()
        && host
            .iter()
            .all(|&byte| byte.is_ascii_alphanumeric() || byte == b'.' || byte == b'-');
    if !plain {
        return None;
    }
    let port = match port {
        None => None,
        Some(digits) if digits.iter().all(u8::is_ascii_digit) => {
            digits.iter().try_fold(None::<u16>, |port, &digit| {
                let port = port.unwrap_or(0).checked_mul(10)?;
                port.checked_add(u16::from(digit - b'0')).map(Some)
            })?
        }
        Some(_) => return None,
    };
    Some((host, port))
}

/// `host` without the brackets of an IPv6 literal.
fn without_brackets(host: &str) -> &str {
    host.trim_matches('[').trim_matches(']')
}

/// `host` as an entry keeps it: without brackets, in lower case.
fn normalized(host: &str) -> String {
    without_brackets(host).to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn check(allowed: &[&str], host: Option<&[u8]>) -> HostCheck {
        let allowed: Vec<String> = allowed.iter().map(|entry| (*entry).to_owned()).collect();
        let mut headers = HeaderMap::new();
        if let Some(host) = host {
            headers.insert(HOST, hyper::header::HeaderValue::from_bytes(host).unwrap());
        }
        AllowedHosts::new(&allowed)
            .unwrap()
            .check(&Uri::from_static("/mcp"), &headers)
    }

    const DEFAULT: &[&str] = &["localhost", "127.0.0.1", "::1"];

    #[test]
    fn the_default_list_takes_loopback_names_on_any_port_and_nothing_else() {
        for host in [
            "localhost",
            "localhost:8080",
            "LocalHost:1",
            "127.0.0.1",
            "127.0.0.1:65535",
            "[::1]",
            "[::1]:3000",
        ] {
            assert_eq!(
                check(DEFAULT, Some(host.as_bytes())),
                HostCheck::Allowed,
                "{host}"
            );
        }
        for host in [
            "evil.example",
            "evil.example:8080",
            "localhost.evil.example",
            "127.0.0.2",
            "[::2]:80",
            "user@evil.example",
        ] {
            assert_eq!(
                check(DEFAULT, Some(host.as_bytes())),
                HostCheck::Refused,
                "{host}"
            );
        }
    }

    #[test]
    fn an_entry_with_a_port_takes_only_that_port() {
        let allowed = &["example.com:8080", " api.example.com "];
        assert_eq!(
            check(allowed, Some(b"example.com:8080")),
            HostCheck::Allowed
        );
        assert_eq!(check(allowed, Some(b"example.com:80")), HostCheck::Refused);
        assert_eq!(check(allowed, Some(b"example.com")), HostCheck::Refused);
        assert_eq!(
            check(allowed, Some(b"API.example.com:443")),
            HostCheck::Allowed
        );
    }

    #[test]
    fn no_list_takes_every_host_and_a_list_of_blanks_none() {
        assert_eq!(check(&[], Some(b"evil.example")), HostCheck::Allowed);
        assert_eq!(check(&[" "], Some(b"localhost")), HostCheck::Refused);
    }

    #[test]
    fn a_host_that_cannot_be_read_is_left_to_rmcp() {
        assert_eq!(check(DEFAULT, None), HostCheck::Unreadable);
        assert_eq!(check(DEFAULT, Some(b"")), HostCheck::Unreadable);
        assert_eq!(check(DEFAULT, Some(b"a b")), HostCheck::Unreadable);
        assert_eq!(check(DEFAULT, Some(b"[::1")), HostCheck::Unreadable);
        assert_eq!(check(DEFAULT, Some(b"\xff")), HostCheck::Unreadable);
    }

    #[test]
    fn an_http2_request_is_checked_by_its_authority() {
        let hosts = AllowedHosts::new(&["localhost".to_owned()]).unwrap();
        let headers = HeaderMap::new();
        let uri = Uri::from_static("http://localhost:9/mcp");
        assert_eq!(hosts.check(&uri, &headers), HostCheck::Allowed);
        let uri = Uri::from_static("http://evil.example/mcp");
        assert_eq!(hosts.check(&uri, &headers), HostCheck::Refused);
    }

    /// rmcp's reading of a `Host` value (`parse_host_header`, `normalize_authority`).
    fn rmcp_reading(value: &str) -> Option<(String, Option<u16>)> {
        let authority = Authority::try_from(value).ok()?;
        Some((normalized(authority.host()), authority.port_u16()))
    }

    proptest! {
        /// Where the allocation-free reading applies, it reads what rmcp reads.
        #[test]
        fn the_plain_reading_is_rmcps(value in "[a-zA-Z0-9.:@\\[\\]%_~ -]{0,12}") {
            if let Some((host, port)) = plain_authority(value.as_bytes()) {
                let host = String::from_utf8(host.to_ascii_lowercase()).unwrap();
                prop_assert_eq!(Some((host, port)), rmcp_reading(&value));
            }
        }

        /// The check agrees with rmcp's rule (`host_is_allowed`) for every readable `Host`.
        #[test]
        fn the_check_is_rmcps_rule(
            value in "(localhost|127\\.0\\.0\\.1|\\[::1\\]|example\\.com|EXAMPLE\\.com)(:[0-9]{0,6})?",
            allowed in proptest::collection::vec(
                // Entries the list takes (a port from 1 to 65535; others are refused).
                "(localhost|127\\.0\\.0\\.1|::1|\\[::1\\]|example\\.com)(:[1-9][0-9]{0,3})?",
                1..4,
            ),
        ) {
            let listed: Vec<&str> = allowed.iter().map(String::as_str).collect();
            let expected = match rmcp_reading(&value) {
                None => HostCheck::Unreadable,
                Some((host, port)) => {
                    let admitted = allowed.iter().any(|entry| {
                        let (want_host, want_port) = match Authority::try_from(entry.trim()) {
                            Ok(authority) => (normalized(authority.host()), authority.port_u16()),
                            Err(_) => (normalized(entry.trim()), None),
                        };
                        want_host == host && want_port.is_none_or(|want| port == Some(want))
                    });
                    if admitted { HostCheck::Allowed } else { HostCheck::Refused }
                }
            };
            prop_assert_eq!(check(&listed, Some(value.as_bytes())), expected);
        }
    }

    /// A handler with nothing: a request that passes the `Host` check is a `PUT`, which
    /// rmcp answers `405` after its own checks.
    #[derive(Clone)]
    struct Nothing;

    impl rmcp::ServerHandler for Nothing {}

    type Endpoint = rmcp::transport::streamable_http_server::StreamableHttpService<
        Nothing,
        rmcp::transport::streamable_http_server::session::local::LocalSessionManager,
    >;

    fn endpoint(
        config: rmcp::transport::streamable_http_server::StreamableHttpServerConfig,
    ) -> Endpoint {
        Endpoint::new(|| Ok(Nothing), Default::default(), config)
    }

    fn put(
        uri: &str,
        hosts: &[Vec<u8>],
    ) -> hyper::Request<http_body_util::Full<hyper::body::Bytes>> {
        let mut request = hyper::Request::builder().method("PUT").uri(uri);
        for host in hosts {
            request = request.header(HOST, hyper::header::HeaderValue::from_bytes(host).unwrap());
        }
        request.body(http_body_util::Full::default()).unwrap()
    }

    async fn answer(
        endpoint: &Endpoint,
        request: hyper::Request<http_body_util::Full<hyper::body::Bytes>>,
    ) -> (u16, Vec<u8>) {
        use http_body_util::BodyExt as _;
        let response = endpoint.handle(request).await;
        let status = response.status().as_u16();
        let body = response
            .into_body()
            .collect()
            .await
            .unwrap()
            .to_bytes()
            .to_vec();
        (status, body)
    }

    /// The answer with rmcp checking `Host` against `allowed` itself, and with this check in
    /// front of rmcp given no list, as the route has it.
    async fn both(allowed: &[String], uri: &str, hosts: &[Vec<u8>]) -> [(u16, Vec<u8>); 2] {
        use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
        let theirs =
            endpoint(StreamableHttpServerConfig::default().with_allowed_hosts(allowed.to_vec()));
        let ours = endpoint(StreamableHttpServerConfig::default().disable_allowed_hosts());
        let request = put(uri, hosts);
        let checked = AllowedHosts::new(allowed)
            .unwrap()
            .check(request.uri(), request.headers());
        let ours = if checked == HostCheck::Refused {
            (403, REFUSED.as_bytes().to_vec())
        } else {
            answer(&ours, request).await
        };
        [answer(&theirs, put(uri, hosts)).await, ours]
    }

    fn lists() -> Vec<Vec<String>> {
        [
            DEFAULT,
            &["tools.example:443", " Localhost ", "[::1]:80"],
            &["a", "::1", "[::2]:81", "tools.example:65535", "0:0::1"],
            &[],
            &[" "],
        ]
        .iter()
        .map(|list| list.iter().map(|entry| (*entry).to_owned()).collect())
        .collect()
    }

    #[tokio::test]
    async fn requests_without_a_readable_host_are_answered_as_rmcp_answers_them() {
        for allowed in lists() {
            for (uri, hosts) in [
                ("/mcp", vec![]),
                ("http://localhost:9/mcp", vec![]),
                ("http://evil.example/mcp", vec![]),
                ("http://evil.example/mcp", vec![b"localhost".to_vec()]),
                (
                    "/mcp",
                    vec![b"localhost".to_vec(), b"evil.example".to_vec()],
                ),
                (
                    "/mcp",
                    vec![b"evil.example".to_vec(), b"localhost".to_vec()],
                ),
            ] {
                let [theirs, ours] = both(&allowed, uri, &hosts).await;
                assert_eq!(ours, theirs, "{allowed:?} {uri} {hosts:?}");
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        /// For every list and `Host` value, the route's check in front of rmcp answers as rmcp
        /// checking the list itself does (status and body).
        #[test]
        fn the_route_answers_as_rmcp_with_the_list_would(
            list in 0..5usize,
            host in proptest::collection::vec(
                proptest::sample::select(b"aAlZ019.-:@[]%_ \t/?#\xff\xc3\xa9".to_vec()),
                0..14,
            ),
            prefix in proptest::sample::select(vec![
                "", "localhost", "LocalHost", "127.0.0.1", "[::1]", "tools.example", "TOOLS.Example",
            ]),
        ) {
            let mut value = prefix.as_bytes().to_vec();
            value.extend(host);
            prop_assume!(hyper::header::HeaderValue::from_bytes(&value).is_ok());
            let allowed = &lists()[list];
            let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
            let [theirs, ours] = runtime.block_on(both(allowed, "/mcp", &[value.clone()]));
            prop_assert_eq!(ours, theirs, "{:?} {:?}", allowed, String::from_utf8_lossy(&value));
        }
    }

    #[test]
    fn a_flood_of_refusals_is_logged_at_most_once_a_second() {
        #[derive(Clone, Default)]
        struct Lines(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
        impl std::io::Write for Lines {
            fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(bytes);
                Ok(bytes.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let lines = Lines::default();
        let writer = lines.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .finish();
        let hosts = AllowedHosts::new(&["localhost".to_owned()]).unwrap();
        let mut headers = HeaderMap::new();
        headers.insert(
            HOST,
            hyper::header::HeaderValue::from_static("evil.example"),
        );
        let started = std::time::Instant::now();
        tracing::subscriber::with_default(subscriber, || {
            for _ in 0..1_000 {
                hosts.check(&Uri::from_static("/mcp"), &headers);
            }
        });
        let written = String::from_utf8(lines.0.lock().unwrap().clone()).unwrap();
        let logged = written.matches("not allowed").count();
        let seconds = started.elapsed().as_secs() as usize + 2; // begun while refusing
        assert!((1..=seconds).contains(&logged), "{logged} lines: {written}");
    }

    #[test]
    fn a_list_of_loopback_names_is_told_from_one_naming_others() {
        let only = |list: &[&str]| {
            AllowedHosts::new(&list.iter().map(|h| (*h).to_owned()).collect::<Vec<_>>())
                .unwrap()
                .loopback_only()
        };
        assert!(crate::mcp::serve::HttpOptions::default().allows_loopback_hosts_only());
        assert!(only(&["LocalHost:8080", "[::1]", "127.0.0.2"]));
        assert!(!only(&["localhost", "mcp.internal"]));
        assert!(!only(&["10.0.0.5:8931"]));
        // An empty list accepts every host.
        assert!(!only(&[]));
    }
}
