//! A served call's progress reports as MCP `notifications/progress`.

use std::sync::Arc;

use rmcp::service::{RequestContext, RoleServer};
use tokio_util::sync::CancellationToken;
use tool_sdk::context::ProgressSink;

use super::content;

/// A sink turning the call's progress reports into `notifications/progress`, when the request
/// carried a `progressToken` (MCP 2025-11-25, basic/utilities/progress); `None` otherwise.
/// Reports are sent in order from one task, never blocking the tool, until
/// [`ProgressForwarder::finish`].
pub(crate) fn progress_sink(
    context: &RequestContext<RoleServer>,
) -> Option<(ProgressSink, ProgressForwarder)> {
    let token = context.meta.get_progress_token()?;
    let peer = context.peer.clone();
    let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel();
    let done = CancellationToken::new();
    let finished = done.clone();
    let task = tokio::spawn(async move {
        let mut count = 0u64;
        loop {
            let report = tokio::select! {
                biased;
                report = receiver.recv() => report,
                () = finished.cancelled() => {
                    // The call has answered: refuse further reports, send the ones made
                    // before.
                    receiver.close();
                    receiver.recv().await
                }
            };
            let Some(report) = report else { break };
            count += 1;
            let params = content::progress_params(token.clone(), &report, count);
            if peer.notify_progress(params).await.is_err() {
                break;
            }
        }
    });
    let sink: ProgressSink = Arc::new(move |report| {
        let _ = sender.send(report);
    });
    Some((sink, ProgressForwarder { done, task }))
}

/// The task sending one call's progress notifications.
pub(crate) struct ProgressForwarder {
    done: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

impl ProgressForwarder {
    /// Closes the call's progress channel, sends the reports already made, and returns when
    /// they are out (giving up after [`PROGRESS_DRAIN`] on a stuck connection, so that nothing
    /// is sent after the result).
    pub(crate) async fn finish(self) {
        self.done.cancel();
        let abort = self.task.abort_handle();
        if tokio::time::timeout(PROGRESS_DRAIN, self.task)
            .await
            .is_err()
        {
            abort.abort();
        }
    }
}

/// How long a finished call waits for its progress reports to go out.
const PROGRESS_DRAIN: std::time::Duration = std::time::Duration::from_secs(1);
