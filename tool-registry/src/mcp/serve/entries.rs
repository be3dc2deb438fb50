//! The host and origin lists of [`HttpOptions`](super::HttpOptions) as written: each entry
//! read once when the server starts, or refused with a message naming the field, the entry
//! and what to write. rmcp keeps an entry it cannot read (a host as a name no `Host` ever
//! matches, or with a port past 65535 as a host on any port; an origin it cannot parse as
//! nothing at all) and lets an origin without a port match any port (a rule it deprecates);
//! here an unreadable entry is a configuration error, an `http(s)` origin without a port
//! means its scheme's default port, as a browser writes it, and an address in an origin is
//! read in the form a browser writes it.

use hyper::Uri;
use hyper::http::uri::Authority;

const HOSTS: &str = "HttpOptions::allowed_hosts (tool-host serve: --allowed-host)";

/// The host (as written, brackets and case kept) and port (none: any) of the allowed-host
/// entry `written` (not blank).
///
/// # Errors
/// An entry that is no host name or address with an optional port from 1 to 65535: a URL,
/// a path, user info, `*`, a name that is not ASCII.
pub(super) fn host(written: &str) -> Result<(String, Option<u16>), String> {
    let allowed = written.trim();
    read_host(allowed).ok_or_else(|| {
        let fix = if allowed == "*" {
            ": an empty list admits every host".to_owned()
        } else if allowed.contains('*') {
            ": a name matches as written, with no wildcards; list each name".to_owned()
        } else if !allowed.is_ascii() {
            ": write the name's ASCII (punycode, `xn--`) form".to_owned()
        } else {
            url_hint(allowed)
        };
        format!(
            "{HOSTS}: `{written}` is no host: an entry is a host name or address, with or \
             without a port (`mcp.example.com`, `10.0.0.5:8931`, `[::1]:8931`, `::1`), not a \
             URL or a path, with no user info and a port from 1 to 65535{fix}"
        )
    })
}

fn read_host(allowed: &str) -> Option<(String, Option<u16>)> {
    if allowed.parse::<std::net::Ipv6Addr>().is_ok() {
        // A bare IPv6 address, as rmcp's default list writes `::1` (compared as written).
        return Some((allowed.to_owned(), None));
    }
    let authority = Authority::try_from(allowed).ok()?;
    let written = authority.as_str();
    let host = authority.host();
    if written.contains('@') || host.is_empty() || host.contains('*') {
        return None;
    }
    Some((host.to_owned(), port_after(written, host)?))
}

/// The port written after `host` in `authority` (`Authority::port` reads a port past 65535
/// as none at all): `Some(None)` for none, `None` for one that is no port from 1 to 65535.
fn port_after(authority: &str, host: &str) -> Option<Option<u16>> {
    match authority.strip_prefix(host)? {
        "" => Some(None),
        after => {
            let port = after.strip_prefix(':')?.parse::<u16>().ok()?;
            (port != 0).then_some(Some(port))
        }
    }
}

/// What to write instead of `allowed`, when it looks like a URL.
fn url_hint(allowed: &str) -> String {
    let Some((_, rest)) = allowed.split_once("://") else {
        return String::new();
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    let authority = authority.rsplit('@').next().unwrap_or(authority);
    if authority.is_empty() {
        return String::new();
    }
    format!(": write `{authority}`")
}

/// The origin entries of `field` (blank ones skipped) as rmcp reads them: `scheme://host`
/// in lower case, then `:port`, `:*` (any port), or for `http` and `https` without a port
/// their default port (a browser leaves it out of the origin it sends).
///
/// # Errors
/// An entry that is no origin (a path or query after it, user info, no scheme, a port that
/// is no number from 1 to 65535), or `null` (the origin of sandboxed frames and local files,
/// which any page can send).
pub(super) fn origins(field: &str, written: &[String]) -> Result<Vec<String>, String> {
    written
        .iter()
        .filter(|entry| !entry.trim().is_empty())
        .map(|entry| {
            read_origin(entry.trim()).ok_or_else(|| {
                let trimmed = entry.trim();
                let fix = if trimmed.eq_ignore_ascii_case("null") {
                    ": `null` is the origin of sandboxed frames and local files, which any page \
                     can send"
                } else if trimmed.trim_end_matches(":*").contains('*') {
                    ": a host matches as written, with no wildcards; list each origin"
                } else if !trimmed.is_ascii() {
                    ": write the host's ASCII (punycode, `xn--`) form"
                } else if host_unsendable(trimmed) {
                    ": its host is no name or address a browser can send"
                } else {
                    ""
                };
                format!(
                    "{field}: `{entry}` is no origin: an entry is `scheme://host`, \
                     `scheme://host:port` or `scheme://host:*` (any port), as a browser sends it \
                     in `Origin` (`https://agent.example`, `http://localhost:6274`), with no \
                     path, query or user info{fix}"
                )
            })
        })
        .collect()
}

/// Whether `entry` is an `http(s)` origin whose host no browser can send (`1.2.3.256`).
fn host_unsendable(entry: &str) -> bool {
    let base = entry.trim_end_matches(":*").trim_end_matches('/');
    Uri::try_from(base).is_ok_and(|uri| {
        matches!(uri.scheme_str(), Some("http" | "https"))
            && uri
                .host()
                .is_some_and(|host| url::Host::parse(host).is_err())
    })
}

fn read_origin(entry: &str) -> Option<String> {
    let (base, any_port) = match entry.strip_suffix(":*") {
        Some(base) => (base, true),
        None => (entry, false),
    };
    let base = base.strip_suffix('/').unwrap_or(base);
    let uri = Uri::try_from(base).ok()?;
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    let authority = uri.authority()?;
    let host = authority.host();
    let plain_path = uri
        .path_and_query()
        .is_none_or(|path| path.as_str().is_empty() || path.as_str() == "/");
    if !plain_path
        || base.contains('#')
        || authority.as_str().contains('@')
        || host.is_empty()
        || host.contains('*')
    {
        return None;
    }
    let port = port_after(authority.as_str(), host)?;
    // An address as a browser serializes it in `Origin` (WHATWG URL: `[0:0::1]` is
    // `[::1]`, `127.1` is `127.0.0.1`), so that the entry matches what browsers send.
    // A host no browser can send (`1.2.3.256`, `foo.1`) is refused.
    let host = match (scheme.as_str(), url::Host::parse(host)) {
        ("http" | "https", Ok(host)) => host.to_string(),
        ("http" | "https", Err(_)) => return None,
        _ => host.to_ascii_lowercase(),
    };
    Some(match (port, any_port) {
        (Some(_), true) => return None,
        (None, true) => format!("{scheme}://{host}:*"),
        (Some(port), false) => format!("{scheme}://{host}:{port}"),
        (None, false) => match scheme.as_str() {
            "http" => format!("{scheme}://{host}:80"),
            "https" => format!("{scheme}://{host}:443"),
            _ => format!("{scheme}://{host}"),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_that_is_no_host_is_refused_naming_it_and_the_fix() {
        for allowed in [
            "mcp.example.com",
            "MCP.example.com:443",
            "mcp.example.com.",
            "10.0.0.5:8931",
            "x:08931",
            "[::1]:8931",
            "[::1]",
            "::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            "xn--bcher-kva.example",
            "a:65535",
        ] {
            assert!(host(allowed).is_ok(), "{allowed}");
        }
        assert_eq!(host(" A:1 ").unwrap(), ("A".to_owned(), Some(1)));
        for (bad, fix) in [
            ("https://mcp.example.com", "write `mcp.example.com`"),
            (
                "http://user@mcp.example.com:8080/mcp",
                "write `mcp.example.com:8080`",
            ),
            ("*", "an empty list admits every host"),
            ("*.example.com", "list each name"),
            ("bücher.example", "(punycode, `xn--`) form"),
            ("mcp.example.com/mcp", "65535"),
            ("mcp.example.com:", "65535"),
            ("mcp.example.com:99999", "65535"),
            ("mcp.example.com:0", "65535"),
            ("mcp.example.com:http", "65535"),
            ("user@mcp.example.com", "65535"),
            ("%", "65535"),
            ("a b", "65535"),
            ("::1:8080:zz", "65535"),
        ] {
            let said = host(bad).unwrap_err();
            assert!(said.contains(&format!("`{bad}` is no host")), "{said}");
            assert!(said.contains("--allowed-host"), "{said}");
            assert!(said.ends_with(fix), "{said}");
        }
    }

    #[test]
    fn origins_are_read_as_a_browser_writes_them_and_others_refused() {
        let read = |entry: &str| origins("F", &[entry.to_owned()]).map(|mut all| all.remove(0));
        for (entry, read_as) in [
            ("https://agent.example", "https://agent.example:443"),
            ("HTTPS://Agent.Example/", "https://agent.example:443"),
            ("http://localhost", "http://localhost:80"),
            ("http://localhost:6274", "http://localhost:6274"),
            ("http://localhost:*", "http://localhost:*"),
            ("http://[::1]:*", "http://[::1]:*"),
            ("http://[0:0::1]:3000", "http://[::1]:3000"),
            ("http://[0:0:0:0:0:0:0:1]:*", "http://[::1]:*"),
            ("http://[FE80::A]", "http://[fe80::a]:80"),
            ("http://[::ffff:127.0.0.1]:1", "http://[::ffff:7f00:1]:1"),
            ("http://127.1:8080", "http://127.0.0.1:8080"),
            ("https://0x7f.0.0.1", "https://127.0.0.1:443"),
            (
                "http://under_score.example",
                "http://under_score.example:80",
            ),
            ("chrome-extension://abcdef", "chrome-extension://abcdef"),
        ] {
            assert_eq!(read(entry).unwrap(), read_as, "{entry}");
        }
        for bad in [
            "agent.example",
            "https://agent.example/app",
            "https://agent.example?x=1",
            "https://user@agent.example",
            "https://agent.example:99999",
            "https://agent.example:0",
            "https://agent.example:443:*",
            "https://agent.example#app",
            "https://*.example.com",
            "http://*:*",
            "https://bücher.example",
            "null",
            "*",
        ] {
            let said = read(bad).unwrap_err();
            assert!(
                said.starts_with(&format!("F: `{bad}` is no origin")),
                "{said}"
            );
        }
        assert!(
            read("NULL")
                .unwrap_err()
                .ends_with("which any page can send")
        );
        let said = read("https://*.example.com").unwrap_err();
        assert!(said.ends_with("list each origin"), "{said}");
        for bad in [
            "http://1.2.3.256",
            "http://1.2.3.4.5",
            "http://foo.1",
            "http://0x100000000",
            "http://[::1%25eth0]:1",
            "https://[v1.x]",
        ] {
            let said = read(bad).unwrap_err();
            assert!(
                said.ends_with(": its host is no name or address a browser can send"),
                "{said}"
            );
        }
        for other in [
            "https://agent.example:99999",
            "https://agent.example:443:*",
            "https://user@agent.example:*",
        ] {
            let said = read(other).unwrap_err();
            assert!(!said.contains("browser can send"), "{said}");
        }
        let said = read("https://bücher.example").unwrap_err();
        assert!(said.ends_with("(punycode, `xn--`) form"), "{said}");
        assert_eq!(
            origins("F", &[" ".to_owned()]).unwrap(),
            Vec::<String>::new()
        );
    }
}
