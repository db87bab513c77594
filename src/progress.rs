//! `litmus check`'s progress bar on stderr: a ticker thread polls each
//! file's [`Progress`] (the checker only writes atomics) and draws, with
//! indicatif, the elapsed time and what the checker says it is doing —
//! the same words the language server sends as `$/progress`. Drawn only
//! when stderr is a terminal (or `--progress always`), never in JSON mode
//! under `auto`, and only once a check has run for [`QUIET`]: quick checks
//! print no bar at all. It is cleared before any result is printed.

use crate::Format;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use litmus_checker::{Options, Progress};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// Checks shorter than this show no bar (no flicker on the common case).
const QUIET: Duration = Duration::from_millis(200);
/// How often the bar is redrawn.
const TICK: Duration = Duration::from_millis(100);

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ProgressArg {
    /// A bar when stderr is a terminal and the output is human.
    Auto,
    /// A bar on stderr whatever it is.
    Always,
    /// No bar.
    Never,
}

/// One file under check.
struct File {
    name: String,
    progress: Arc<Progress>,
    done: AtomicBool,
}

struct Files {
    all: Mutex<Vec<Arc<File>>>,
    total: usize,
}

/// The bar of one `litmus check` run (inert when not shown).
pub struct Bar {
    shown: Option<Shown>,
}

struct Shown {
    files: Arc<Files>,
    stop: mpsc::Sender<()>,
    ticker: JoinHandle<()>,
}

/// Marks its file done when dropped.
pub struct Watch {
    file: Option<Arc<File>>,
}

impl Drop for Watch {
    fn drop(&mut self) {
        if let Some(f) = &self.file {
            f.done.store(true, Ordering::Relaxed);
        }
    }
}

impl Bar {
    /// A bar for checking `files` files, if `arg` and the output say so.
    pub fn start(arg: ProgressArg, format: Format, files: usize) -> Bar {
        let target = match arg {
            ProgressArg::Never => return Bar { shown: None },
            ProgressArg::Auto if format == Format::Json || !std::io::stderr().is_terminal() => {
                return Bar { shown: None }
            }
            // `stderr` itself hides the bar on a dumb terminal.
            ProgressArg::Auto => ProgressDrawTarget::stderr_with_hz(10),
            ProgressArg::Always => ProgressDrawTarget::term_like_with_hz(Box::new(console::Term::stderr()), 10),
        };
        let files = Arc::new(Files { all: Mutex::new(Vec::new()), total: files });
        let (stop, stopped) = mpsc::channel();
        let shared = files.clone();
        let ticker = std::thread::Builder::new()
            .name("litmus-progress".into())
            .spawn(move || tick(&shared, target, &stopped))
            .ok();
        match ticker {
            Some(ticker) => Bar { shown: Some(Shown { files, stop, ticker }) },
            None => Bar { shown: None },
        }
    }

    /// Show `path`'s check: its options report to the bar until the
    /// returned guard is dropped.
    pub fn watch(&self, opts: &mut Options, path: &str) -> Watch {
        let Some(shown) = &self.shown else { return Watch { file: None } };
        let progress = Progress::new();
        opts.progress = Some(progress.clone());
        let name = path.rsplit('/').next().unwrap_or(path).to_string();
        let file = Arc::new(File { name, progress, done: AtomicBool::new(false) });
        if let Ok(mut all) = shown.files.all.lock() {
            all.push(file.clone());
        }
        Watch { file: Some(file) }
    }

    /// Clear the bar (before the results are printed).
    pub fn finish(self) {
        if let Some(s) = self.shown {
            let _ = s.stop.send(());
            let _ = s.ticker.join();
        }
    }
}

/// The ticker: wait [`QUIET`], then redraw every [`TICK`] until told to stop.
fn tick(files: &Files, target: ProgressDrawTarget, stop: &mpsc::Receiver<()>) {
    if !matches!(stop.recv_timeout(QUIET), Err(RecvTimeoutError::Timeout)) {
        return;
    }
    let style = ProgressStyle::with_template("{spinner} {elapsed_precise} {wide_msg}")
        .unwrap_or_else(|_| ProgressStyle::default_spinner());
    let bar = ProgressBar::with_draw_target(None, target).with_style(style);
    loop {
        // Setting the message redraws (and turns the spinner).
        bar.set_message(line(files));
        match stop.recv_timeout(TICK) {
            Err(RecvTimeoutError::Timeout) => continue,
            _ => break,
        }
    }
    bar.finish_and_clear();
}

/// "sb.litmus · TSO: outcomes · 12,345 executions", with "2/5 files · "
/// before it when there are several.
fn line(files: &Files) -> String {
    let all = match files.all.lock() {
        Ok(all) => all.clone(),
        Err(_) => return String::new(),
    };
    let done = all.iter().filter(|f| f.done.load(Ordering::Relaxed)).count();
    // The oldest file still running: its phase is what the user waits on.
    let now = all.iter().find(|f| !f.done.load(Ordering::Relaxed));
    let what = now.map_or_else(String::new, |f| format!("{} · {}", f.name, f.progress.snapshot().message()));
    if files.total > 1 {
        format!("{done}/{} files · {what}", files.total)
    } else {
        what
    }
}
