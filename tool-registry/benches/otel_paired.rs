//! What exporting costs per call: `Orchestrator::run_tool_use` (pool of 100, the no-op tool
//! of `dispatch`) with no subscriber against the same call with `tool-host`'s export on, a
//! `tracing_subscriber` registry with `Telemetry`'s OpenTelemetry layer, spans batched to an
//! OTLP/HTTP endpoint (a local server answering every POST `200`) and the
//! `gen_ai.execute_tool.duration` histogram exported the same way. The sides take turns in
//! rounds (order rotated each round); reported: the median time per call of each side and the
//! median added time, with its middle half.
//!
//! Run: `cargo bench -p tool-registry --features otel,mcp-server --bench otel_paired`
//! (about 10 s). Under `cargo test --benches` it runs three short rounds as a smoke test.

use std::hint::black_box;

#[path = "dispatch_support/mod.rs"]
#[allow(dead_code, reason = "this bench uses the run_tool_use fixture only")]
mod dispatch_support;
use dispatch_support::{RunToolUse, quantile, time_per_call};

/// An OTLP/HTTP endpoint that reads every request and answers `200` with an empty body, on
/// a thread of its own; returns its base URL.
fn sink() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            listener.set_nonblocking(true).unwrap();
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(
                        |request: hyper::Request<hyper::body::Incoming>| async move {
                            use http_body_util::BodyExt as _;
                            let _ = request.into_body().collect().await;
                            Ok::<_, std::convert::Infallible>(hyper::Response::new(
                                http_body_util::Empty::<hyper::body::Bytes>::new(),
                            ))
                        },
                    );
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                        .await;
                });
            }
        });
    });
    url
}

fn main() {
    let measuring = std::env::args().any(|arg| arg == "--bench");
    let (rounds, calls): (u32, u32) = if measuring { (101, 2_000) } else { (3, 10) };
    // `Telemetry::from_env` reads the standard variables: the bench runs itself again with
    // them pointing at the local sink.
    if std::env::var_os("OTEL_EXPORTER_OTLP_ENDPOINT").is_none() {
        let status = std::process::Command::new(std::env::current_exe().unwrap())
            .args(std::env::args().skip(1))
            .env("OTEL_EXPORTER_OTLP_ENDPOINT", sink())
            .env("OTEL_SERVICE_NAME", "otel-bench")
            .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
            .env_remove("OTEL_METRICS_EXPORTER")
            .status()
            .expect("the bench runs");
        std::process::exit(status.code().unwrap_or(1));
    }
    let telemetry = tool_registry::telemetry::Telemetry::from_env()
        .expect("the exporters build")
        .expect("an endpoint is set");
    let spans = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let subscriber = {
        use tracing_subscriber::layer::SubscriberExt as _;
        tracing_subscriber::registry()
            .with(telemetry.layer())
            .with(Counted(std::sync::Arc::clone(&spans)))
    };
    let dispatch = tracing::Dispatch::new(subscriber);
    let fixture = RunToolUse::new();
    let mut off = || {
        black_box(fixture.sdk());
    };
    let mut on = || {
        tracing::dispatcher::with_default(&dispatch, || {
            black_box(fixture.sdk());
        });
    };
    // The "on" side first: `tracing` caches a callsite's interest when it is first reached
    // with no scoped subscriber ever set, and would then never ask the subscriber again.
    time_per_call(calls * 5, &mut on);
    time_per_call(calls * 5, &mut off);
    let (mut off_ns, mut on_ns, mut added) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds {
        let (o, n) = if round % 2 == 0 {
            let o = time_per_call(calls, &mut off);
            (o, time_per_call(calls, &mut on))
        } else {
            let n = time_per_call(calls, &mut on);
            (time_per_call(calls, &mut off), n)
        };
        off_ns.push(o);
        on_ns.push(n);
        added.push(n - o);
    }
    println!(
        "run_tool_use/otel  off {:>5.0} ns  on {:>5.0} ns  added per call {:.0} ns \
         (middle half {:.0} to {:.0} ns)",
        quantile(&mut off_ns, 0.5),
        quantile(&mut on_ns, 0.5),
        quantile(&mut added, 0.5),
        quantile(&mut added, 0.25),
        quantile(&mut added, 0.75),
    );
    let recorded = spans.load(std::sync::atomic::Ordering::Relaxed);
    let expected = u64::from(calls) * (5 + u64::from(rounds));
    assert_eq!(
        recorded as u64, expected,
        "every call of the \"on\" side made an execute_tool span"
    );
    println!("run_tool_use/otel  execute_tool spans recorded with the export on: {recorded}");
    telemetry
        .shutdown()
        .expect("the last spans and metrics are sent");
}

/// Counts the `execute_tool` spans the subscriber sees (a check that the "on" side records).
struct Counted(std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Counted {
    fn on_new_span(
        &self,
        attributes: &tracing::span::Attributes<'_>,
        _: &tracing::span::Id,
        _: tracing_subscriber::layer::Context<'_, S>,
    ) {
        if attributes.metadata().name() == "execute_tool" {
            self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    }
}
