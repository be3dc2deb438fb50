//! [`LoopbackLogin`]: the authorization-code login of a host with a person at it (RFC 8252
//! "OAuth 2.0 for Native Apps" §7.3, loopback interface redirection): the authorization URL is
//! shown, and the browser's redirect is received on `http://127.0.0.1:PORT/callback`.

use std::convert::Infallible;
use std::time::Duration;

use futures::future::BoxFuture;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use tokio::sync::{Mutex, mpsc};

use super::OAuthLogin;

/// How long a login waits for the browser's redirect by default: 5 minutes.
const DEFAULT_WAIT: Duration = Duration::from_secs(300);

/// Shows the authorization URL of a server: `(server, url)`.
type Show = Box<dyn Fn(&str, &str) + Send + Sync>;

/// A login through the user's browser, the redirect received on a loopback port bound when
/// the login is made (so the redirect URI is known before the authorization starts).
pub struct LoopbackLogin {
    listener: Mutex<Option<std::net::TcpListener>>,
    port: u16,
    show: Show,
    wait: Duration,
}

impl std::fmt::Debug for LoopbackLogin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoopbackLogin")
            .field("port", &self.port)
            .field("wait", &self.wait)
            .finish_non_exhaustive()
    }
}

impl LoopbackLogin {
    /// Binds a free port of `127.0.0.1`; the URL is shown on stderr.
    ///
    /// # Errors
    /// When no loopback port can be bound.
    pub fn bind() -> std::io::Result<Self> {
        let listener = std::net::TcpListener::bind(("127.0.0.1", 0))?;
        listener.set_nonblocking(true)?;
        let port = listener.local_addr()?.port();
        Ok(Self {
            listener: Mutex::new(Some(listener)),
            port,
            show: Box::new(|server, url| {
                eprintln!(
                    "MCP server `{server}` needs you to log in. Open this URL in a browser:\n{url}"
                );
            }),
            wait: DEFAULT_WAIT,
        })
    }

    /// The same login, showing the URL through `show(server, url)` instead.
    #[must_use]
    pub fn with_show(mut self, show: impl Fn(&str, &str) + Send + Sync + 'static) -> Self {
        self.show = Box::new(show);
        self
    }

    /// The same login, waiting `wait` for the redirect.
    #[must_use]
    pub fn with_wait(mut self, wait: Duration) -> Self {
        self.wait = wait;
        self
    }

    /// The redirect that carries `state` (the authorization URL's): a request to `/callback`
    /// with any other state (a stale browser tab, another program) is answered 400 and the
    /// wait goes on.
    async fn receive(&self, state: Option<String>) -> Result<String, String> {
        let guard = self.listener.lock().await;
        // The port goes back for another login (a step-up) however this ends, a dropped
        // wait included.
        let mut restore = Restore { guard, taken: None };
        restore.taken = restore.guard.take();
        let std_listener = restore
            .taken
            .as_ref()
            .ok_or("another login is waiting on this port")?;
        let listener = tokio::net::TcpListener::from_std(
            std_listener
                .try_clone()
                .map_err(|error| format!("the loopback port: {error}"))?,
        )
        .map_err(|error| format!("the loopback port: {error}"))?;
        let state = std::sync::Arc::new(state);
        let (sender, mut receiver) = mpsc::channel::<String>(1);
        let received = async {
            loop {
                let stream = tokio::select! {
                    url = receiver.recv() => {
                        return url.ok_or_else(|| "the loopback listener ended".to_owned());
                    }
                    accepted = listener.accept() => match accepted {
                        Ok((stream, _)) => stream,
                        Err(error) => return Err(format!("the loopback port: {error}")),
                    },
                };
                let sender = sender.clone();
                let port = self.port;
                let state = std::sync::Arc::clone(&state);
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |request: Request<Incoming>| {
                        let sender = sender.clone();
                        let state = std::sync::Arc::clone(&state);
                        async move {
                            Ok::<_, Infallible>(
                                answer(&request, port, state.as_deref(), &sender).await,
                            )
                        }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                        .await;
                });
            }
        };
        let outcome = tokio::time::timeout(self.wait, received).await;
        drop(restore);
        match outcome {
            Ok(result) => result,
            Err(_) => Err(format!(
                "no login within {:?} (nothing came back to 127.0.0.1:{})",
                self.wait, self.port
            )),
        }
    }
}

/// Puts the loopback listener back when a wait ends, however it ends.
struct Restore<'a> {
    guard: tokio::sync::MutexGuard<'a, Option<std::net::TcpListener>>,
    taken: Option<std::net::TcpListener>,
}

impl Drop for Restore<'_> {
    fn drop(&mut self) {
        if let Some(listener) = self.taken.take() {
            *self.guard = Some(listener);
        }
    }
}

/// The `state` parameter of a URL's query, if any.
fn state_of(url: &str) -> Option<String> {
    let url = url::Url::parse(url).ok()?;
    url.query_pairs()
        .find(|(key, _)| key == "state")
        .map(|(_, value)| value.into_owned())
}

/// The browser's page: a redirect to `/callback` carrying the login's `state` is handed to
/// the waiting login; one with another state is refused.
async fn answer(
    request: &Request<Incoming>,
    port: u16,
    state: Option<&str>,
    sender: &mpsc::Sender<String>,
) -> Response<Full<&'static [u8]>> {
    if request.uri().path() != "/callback" {
        return page(StatusCode::NOT_FOUND, b"Not found.");
    }
    if let Some(expected) = state {
        let url = format!("http://127.0.0.1{}", request.uri());
        if state_of(&url).as_deref() != Some(expected) {
            return page(
                StatusCode::BAD_REQUEST,
                b"This is not the login this program is waiting for.",
            );
        }
    }
    let target = request
        .uri()
        .path_and_query()
        .map(|path| path.as_str().to_owned())
        .unwrap_or_default();
    let _ = sender
        .send(format!("http://127.0.0.1:{port}{target}"))
        .await;
    page(
        StatusCode::OK,
        b"Login received; you can close this window.",
    )
}

fn page(status: StatusCode, text: &'static [u8]) -> Response<Full<&'static [u8]>> {
    let mut response = Response::new(Full::new(text));
    *response.status_mut() = status;
    response.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

impl OAuthLogin for LoopbackLogin {
    fn redirect_uri(&self) -> String {
        format!("http://127.0.0.1:{}/callback", self.port)
    }

    fn authorize<'a>(
        &'a self,
        server: &'a str,
        authorization_url: &'a str,
    ) -> BoxFuture<'a, Result<String, String>> {
        Box::pin(async move {
            (self.show)(server, authorization_url);
            let redirect = self.receive(state_of(authorization_url)).await?;
            // An authorization server that refuses says so in the redirect (RFC 6749 §4.1.2.1).
            let url = url::Url::parse(&redirect).map_err(|error| error.to_string())?;
            if let Some((_, error)) = url.query_pairs().find(|(key, _)| key == "error") {
                let description = url
                    .query_pairs()
                    .find(|(key, _)| key == "error_description")
                    .map(|(_, text)| format!(": {text}"))
                    .unwrap_or_default();
                return Err(format!(
                    "the authorization server refused the login ({error}{description})"
                ));
            }
            Ok(redirect)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A login whose "browser" goes to the shown URL at once.
    fn following() -> LoopbackLogin {
        LoopbackLogin::bind()
            .unwrap()
            .with_wait(Duration::from_secs(10))
            .with_show(|_server, url| {
                let target = url.to_owned();
                tokio::spawn(async move {
                    let _ = reqwest::get(target).await;
                });
            })
    }

    #[tokio::test]
    async fn the_redirect_comes_back_and_a_refusal_says_why() {
        let login = following();
        let redirect_uri = login.redirect_uri();
        // The "authorization URL" here is the redirect itself, as an authorization server
        // that approves at once would send the browser.
        let url = format!("{redirect_uri}?code=c&state=s");
        let got = login.authorize("srv", &url).await.unwrap();
        assert_eq!(got, url);
        let url = format!("{redirect_uri}?error=access_denied&error_description=no+thanks");
        let error = login.authorize("srv", &url).await.unwrap_err();
        assert!(error.contains("access_denied: no thanks"), "{error}");
    }

    #[tokio::test]
    async fn nobody_answering_ends_at_the_wait() {
        let login = LoopbackLogin::bind()
            .unwrap()
            .with_show(|_, _| {})
            .with_wait(Duration::from_millis(200));
        let error = login.authorize("srv", "http://unused").await.unwrap_err();
        assert!(error.contains("no login within"), "{error}");
    }
}
