//! How the crate hands its background work to tokio: every future boxed, as one future type
//! per output type, so tokio's task machinery (harness, cell, scheduler glue) is compiled once
//! per output type rather than once per future the crate spawns.

use std::future::Future;
use std::pin::Pin;

use tokio::task::{AbortHandle, JoinHandle, JoinSet};

/// The one future type the crate spawns.
type Boxed<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// [`tokio::spawn`], with the future boxed.
pub(crate) fn spawn<T: Send + 'static>(
    future: impl Future<Output = T> + Send + 'static,
) -> JoinHandle<T> {
    tokio::spawn(Box::pin(future) as Boxed<T>)
}

/// [`JoinSet::spawn`], with the future boxed.
pub(crate) fn spawn_in<T: Send + 'static>(
    set: &mut JoinSet<T>,
    future: impl Future<Output = T> + Send + 'static,
) -> AbortHandle {
    set.spawn(Box::pin(future) as Boxed<T>)
}
