//! Whether a token's `aud` names this resource: the resource URL as configured, or the same
//! `http(s)` URL spelled otherwise, as clients send RFC 8707 resource indicators differently.

/// Why a token whose `aud` names no spelling of this resource is refused.
pub(super) const NOT_FOR_THIS_RESOURCE: &str = "the access token is not for this resource (aud); ask for a token with this server's \
     resource URL as the resource indicator";

/// `url` as two spellings of one resource URL compare: parsed (scheme and host lower-cased,
/// the scheme's default port dropped), without a fragment and without one trailing `/` on the
/// path. `None` for what is no `http` or `https` URL (`urn:…`, Entra's `api://…`), which
/// compares as written.
pub(super) fn comparable(url: &str) -> Option<String> {
    let mut url = url::Url::parse(url)
        .ok()
        .filter(|url| matches!(url.scheme(), "http" | "https"))?;
    url.set_fragment(None);
    // The root path serializes as `/` however it was written: dropped below, so that
    // `https://h` and `https://h/` compare equal (and `https://h//` does not).
    let root = url.path() == "/";
    if !root && let Some(trimmed) = url.path().strip_suffix('/') {
        let trimmed = trimmed.to_owned();
        url.set_path(&trimmed);
    }
    let mut text = String::from(url);
    if root && text.ends_with('/') {
        text.pop();
    }
    Some(text)
}

/// Whether the `aud` value `audience` names this resource (`resource` as configured,
/// `comparable` its [`comparable`] form): the same string, or the same URL spelled otherwise
/// (host case, the default port, a trailing `/`), as clients send the resource indicator
/// differently (RFC 8707 §2 asks for no trailing slash; some clients add one to a bare
/// origin, some strip it).
pub(super) fn same_resource(
    audience: &str,
    resource: &str,
    comparable_resource: Option<&str>,
) -> bool {
    // Only a plainly written URL is read as one: whitespace, control characters, non-ASCII
    // and backslashes, which a URL parser would quietly fix, compare as written.
    let plain = audience
        .bytes()
        .all(|byte| byte.is_ascii_graphic() && byte != b'\\');
    audience == resource
        || (plain
            && comparable_resource
                .is_some_and(|ours| comparable(audience).as_deref() == Some(ours)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(audience: &str, resource: &str) -> bool {
        same_resource(audience, resource, comparable(resource).as_deref())
    }

    #[test]
    fn an_audience_names_the_resource_however_the_url_is_spelled() {
        for (resource, audience) in [
            ("https://mcp.example.com/mcp", "https://mcp.example.com/mcp"),
            (
                "https://mcp.example.com/mcp",
                "https://mcp.example.com/mcp/",
            ),
            ("https://mcp.example.com/mcp", "HTTPS://MCP.Example.com/mcp"),
            (
                "https://mcp.example.com/mcp",
                "https://mcp.example.com:443/mcp",
            ),
            (
                "https://mcp.example.com/mcp/",
                "https://mcp.example.com/mcp",
            ),
            // A bare origin, with and without the slash URL serializers add.
            ("https://mcp.example.com", "https://mcp.example.com/"),
            ("https://mcp.example.com/", "https://mcp.example.com"),
            ("http://127.0.0.1:8931/mcp", "http://127.0.0.1:8931/mcp#top"),
            // Not a URL: compared as a string.
            ("urn:mcp:files", "urn:mcp:files"),
            ("api://files", "api://files"),
        ] {
            assert!(names(audience, resource), "{audience} for {resource}");
        }
        for (resource, audience) in [
            ("https://mcp.example.com/mcp", "https://mcp.example.com/MCP"),
            (
                "https://mcp.example.com/mcp",
                "https://mcp.example.com/mcpx",
            ),
            (
                "https://mcp.example.com/mcp",
                "https://mcp.example.com/mcp/tools",
            ),
            ("https://mcp.example.com/mcp", "https://mcp.example.com/"),
            ("https://mcp.example.com/mcp", "http://mcp.example.com/mcp"),
            (
                "https://mcp.example.com/mcp",
                "https://mcp.example.com:8443/mcp",
            ),
            (
                "https://mcp.example.com/mcp",
                "https://mcp.example.com.evil/mcp",
            ),
            (
                "https://mcp.example.com/mcp",
                "https://mcp.example.com/mcp?tenant=2",
            ),
            (
                "https://mcp.example.com/mcp",
                "https://mcp.example.com/mcp//",
            ),
            ("https://mcp.example.com/mcp", "mcp-client"),
            ("urn:mcp:files", "urn:mcp:files/"),
            ("api://files", "API://files/"),
            (
                "https://mcp.example.com/mcp",
                "https://mcp.example.com@evil/mcp",
            ),
            (
                "https://mcp.example.com/mcp",
                "https://user@mcp.example.com/mcp",
            ),
            (
                "https://mcp.example.com/mcp",
                "https://mcp.example.com./mcp",
            ),
            (
                "https://mcp.example.com/mcp",
                "https://mcp.example.com/%6Dcp",
            ),
            ("https://mcp.example.com/mcp", "wss://mcp.example.com/mcp"),
            ("https://mcp.example.com/mcp", ""),
            (
                "https://mcp.example.com/mcp",
                " https://mcp.example.com/mcp",
            ),
            (
                "https://mcp.example.com/mcp",
                "https://mcp.exa\tmple.com/mcp",
            ),
            (
                "https://mcp.example.com/mcp",
                "https:\\\\mcp.example.com\\mcp",
            ),
            (
                "https://mcp.example.com/mcp",
                "https://ｍｃｐ.example.com/mcp",
            ),
            ("https://mcp.example.com", "https://mcp.example.com//"),
        ] {
            assert!(!names(audience, resource), "{audience} for {resource}");
        }
    }
}
