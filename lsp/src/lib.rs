//! The litmus language server: LSP 3.17 over stdio on tower-lsp-server.
//! Data flows one way: edits → documents (ropes, generations) → pipeline
//! (analysis, then the checker on a worker) → findings → `convert` → LSP.
//!
//! - [`server`]: the protocol's entry points (`LanguageServer`, `litmus/*`), thin;
//! - [`handlers`]: each request's answer, a function of its document's snapshot;
//! - [`notifications`]: each notification, a function of the server's state;
//! - [`state`]: that state ([`state::Backend`]) and a request's [`state::Snapshot`];
//! - each feature's logic, protocol-free, in a module of its own (`hover`,
//!   `highlight`, `folding`, `format_range`, `symbols_ws`, …; [`syntax`]: the
//!   parse's spans they share), made LSP types by [`convert`].

pub mod actions;
pub mod background;
pub mod commands;
pub mod completion;
pub mod config;
pub mod convert;
pub mod documents;
pub mod execution;
pub mod folding;
pub mod format;
pub mod format_range;
pub mod handlers;
pub mod highlight;
pub mod hover;
pub mod inlay;
pub mod lens;
pub mod navigation;
pub mod notifications;
pub mod pipeline;
pub mod pull;
pub mod server;
pub mod signature;
pub mod state;
pub mod symbols_ws;
pub mod syntax;
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
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        // Checks run on its blocking threads: room for a long thread's search.
        .thread_stack_size(litmus_checker::options::CHECK_STACK)
        .build()?;
    let result = rt.block_on(serve(tokio::io::stdin(), tokio::io::stdout()));
    // Do not wait for a blocking read of stdin that can never be cancelled,
    // or for a check still winding down: the session is over.
    rt.shutdown_timeout(std::time::Duration::from_millis(500));
    result
}

/// What the modules' tests load: a repository file, lowered, and checked.
#[cfg(test)]
mod test_support {
    use litmus_checker::{check_all, Model, MonitorKind, Options, Report};
    use litmus_ir::Program;

    /// The text of `path` (from the repository's root) and its program.
    pub fn load(path: &str) -> (String, Program) {
        let src = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path))
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        let prog = litmus_dsl::analyze(&src).program.unwrap_or_else(|| panic!("{path} lowers"));
        (src, prog)
    }

    /// [`load`], and the whole check under `models` (default options).
    pub fn checked(path: &str, models: &[Model]) -> (String, Program, Report) {
        let (src, prog) = load(path);
        let r = check_all(&prog, models, MonitorKind::Bss, &Options::default());
        (src, prog, r)
    }
}
