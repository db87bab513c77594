//! The litmus language server: LSP 3.17 over stdio on tower-lsp-server.
//! Data flows one way: edits → documents (ropes, generations) → pipeline
//! (analysis, then the checker on a worker) → findings → `convert` → LSP.

pub mod actions;
pub mod completion;
pub mod config;
pub mod convert;
pub mod documents;
pub mod findings;
pub mod format;
pub mod hover;
pub mod lens;
pub mod navigation;
pub mod pipeline;
pub mod server;
pub mod tokens;

use tower_lsp_server::{LspService, Server};

/// The service, for in-process use (tests) or any transport.
pub fn service() -> (LspService<server::Backend>, tower_lsp_server::ClientSocket) {
    LspService::build(server::Backend::new)
        .custom_method("litmus/crash", server::Backend::crash)
        .custom_method("litmus/documentText", server::Backend::document_text)
        .finish()
}

/// Serve on any byte streams (stdio for `litmus lsp`).
pub async fn serve<I, O>(input: I, output: O)
where
    I: tokio::io::AsyncRead + Unpin,
    O: tokio::io::AsyncWrite,
{
    let (service, socket) = service();
    // Requests only read snapshots and checks run off the handlers, so many
    // may be in flight; a small limit would stall edits behind slow requests.
    Server::new(input, output, socket).concurrency_level(64).serve(service).await;
}

/// `litmus lsp`: serve on stdin/stdout until the client says `exit`.
pub fn run_stdio() -> std::io::Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    rt.block_on(serve(tokio::io::stdin(), tokio::io::stdout()));
    Ok(())
}
