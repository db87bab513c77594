//! The litmus language server: LSP 3.17 over stdio on tower-lsp-server.
//! Data flows one way: edits → documents (ropes, generations) → pipeline
//! (analysis, then the checker on a worker) → findings → `convert` → LSP.
//!
//! - [`server`]: the protocol's entry points (`LanguageServer`, `litmus/*`), thin;
//! - [`handlers`]: each request's answer, a function of its document's snapshot;
//! - [`notifications`]: each notification, a function of the server's state;
//! - [`state`]: that state ([`state::Backend`]) and a request's [`state::Snapshot`].

pub mod actions;
pub mod background;
pub mod completion;
pub mod config;
pub mod convert;
pub mod documents;
pub mod execution;
pub mod format;
pub mod handlers;
pub mod hover;
pub mod inlay;
pub mod lens;
pub mod navigation;
pub mod notifications;
pub mod pipeline;
pub mod pull;
pub mod server;
pub mod state;
pub mod tokens;
pub mod transport;
pub mod workspace;

use tower_lsp_server::LspService;

/// The service, for in-process use (tests) or any transport.
pub fn service() -> (LspService<state::Backend>, tower_lsp_server::ClientSocket) {
    LspService::build(state::Backend::new)
        .custom_method("litmus/crash", server::crash)
        .custom_method("litmus/documentText", server::document_text)
        .custom_method(execution::METHOD, server::execution_graph)
        .custom_method("litmus/workspaceState", pull::workspace_state)
        .finish()
}

/// Serve on any byte streams (stdio for `litmus lsp`) until `exit` or the
/// end of the input. A malformed message is answered with a JSON-RPC error
/// and the session goes on; only a frame header that cannot be parsed ends
/// it, and that is the error returned (see `transport`).
pub async fn serve<I, O>(input: I, output: O) -> std::io::Result<()>
where
    I: tokio::io::AsyncRead + Unpin,
    O: tokio::io::AsyncWrite,
{
    let (service, socket) = service();
    transport::serve(service, socket, input, output).await
}

/// `litmus lsp`: serve on stdin/stdout until the client says `exit`.
pub fn run_stdio() -> std::io::Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let result = rt.block_on(serve(tokio::io::stdin(), tokio::io::stdout()));
    // Do not wait for a blocking read of stdin that can never be cancelled,
    // or for a check still winding down: the session is over.
    rt.shutdown_timeout(std::time::Duration::from_millis(500));
    result
}
