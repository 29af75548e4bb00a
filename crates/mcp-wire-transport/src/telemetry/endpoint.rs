//! The Prometheus scrape endpoint (feature `metrics`).

use std::net::SocketAddr;
use std::sync::OnceLock;
use std::time::Duration;

use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

use super::{DURATION_BUCKETS, METRICS, MetricKind, REQUEST_DURATION};

/// The process's Prometheus recorder, installed by the first [`MetricsEndpoint::bind`].
static RECORDER: OnceLock<Result<PrometheusHandle, String>> = OnceLock::new();

fn recorder() -> std::io::Result<PrometheusHandle> {
    RECORDER
        .get_or_init(|| {
            let handle = PrometheusBuilder::new()
                .set_buckets_for_metric(
                    Matcher::Full(REQUEST_DURATION.to_owned()),
                    &DURATION_BUCKETS,
                )
                .map_err(|e| e.to_string())?
                .install_recorder()
                .map_err(|e| e.to_string())?;
            for m in METRICS {
                match m.kind {
                    MetricKind::Counter => metrics::describe_counter!(m.name, m.help),
                    MetricKind::Gauge => metrics::describe_gauge!(m.name, m.help),
                    MetricKind::Histogram => metrics::describe_histogram!(m.name, m.help),
                }
            }
            Ok(handle)
        })
        .clone()
        .map_err(std::io::Error::other)
}

/// `GET /metrics` in Prometheus text format on a listener of its own, for as long as this
/// value lives. The first endpoint of a process installs the `metrics` recorder (the
/// process's one; later endpoints share it); a process that installed another recorder
/// cannot have one.
pub struct MetricsEndpoint {
    addr: SocketAddr,
    serving: tokio::task::AbortHandle,
    upkeep: tokio::task::AbortHandle,
}

impl MetricsEndpoint {
    /// Listens on `addr` (a loopback address such as `127.0.0.1:9464`; port 0 picks a free
    /// one) and serves the metrics there. Must be called within a tokio runtime.
    pub async fn bind(addr: impl tokio::net::ToSocketAddrs) -> std::io::Result<Self> {
        let handle = recorder()?;
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let addr = listener.local_addr()?;
        let render = handle.clone();
        let app = axum::Router::new().route(
            "/metrics",
            axum::routing::get(move || {
                let render = render.clone();
                async move {
                    (
                        [(
                            http::header::CONTENT_TYPE,
                            "text/plain; version=0.0.4; charset=utf-8",
                        )],
                        render.render(),
                    )
                }
            }),
        );
        let serving = crate::spawn::spawn(async move {
            // A listener that fails ends the endpoint; the server it reports on goes on.
            let _ = axum::serve(listener, app).await;
        })
        .abort_handle();
        // The histograms' samples are folded in periodically (the exporter's upkeep).
        let upkeep = crate::spawn::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(5));
            loop {
                tick.tick().await;
                handle.run_upkeep();
            }
        })
        .abort_handle();
        tracing::info!(%addr, "serving metrics at /metrics");
        Ok(MetricsEndpoint {
            addr,
            serving,
            upkeep,
        })
    }

    /// Where it listens.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for MetricsEndpoint {
    fn drop(&mut self) {
        self.serving.abort();
        self.upkeep.abort();
    }
}
