//! `litmus check`'s progress bar on stderr: a ticker thread polls each
//! file's [`Progress`] (the checker only writes atomics) and draws, with
//! indicatif, the elapsed time and what the checker says it is doing —
//! the same words the language server sends as `$/progress`. Drawn only
//! when stderr is a terminal (or `--progress always`), never in JSON mode
//! under `auto`, and only once a check has run for [`QUIET`]: quick checks
//! print no bar at all. It is cleared before any result is printed.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use litmus_checker::{Options, Progress};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicUsize, Ordering};
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
}

struct Files {
    /// The files being checked, oldest first (a finished file leaves).
    running: Mutex<Vec<Arc<File>>>,
    done: AtomicUsize,
    total: usize,
    /// The bar, once the ticker drew it: printing suspends it.
    bar: Mutex<Option<ProgressBar>>,
}

/// The bar of one `litmus check` run (inert when not shown).
pub struct Bar {
    shown: Option<Shown>,
}

struct Shown {
    files: Arc<Files>,
    stop: mpsc::Sender<()>,
    /// Taken by the first `finish`.
    ticker: Mutex<Option<JoinHandle<()>>>,
}

/// Marks its file done when dropped.
pub struct Watch {
    file: Option<(Arc<File>, Arc<Files>)>,
}

impl Drop for Watch {
    fn drop(&mut self) {
        if let Some((f, files)) = &self.file {
            if let Ok(mut running) = files.running.lock() {
                running.retain(|r| !Arc::ptr_eq(r, f));
            }
            files.done.fetch_add(1, Ordering::Relaxed);
        }
    }
}

impl Bar {
    /// A bar for checking `files` files, if `arg` and the output say so.
    pub fn start(arg: ProgressArg, human: bool, files: usize) -> Bar {
        let target = match arg {
            ProgressArg::Never => return Bar { shown: None },
            ProgressArg::Auto if !human || !std::io::stderr().is_terminal() => return Bar { shown: None },
            // `stderr` itself hides the bar on a dumb terminal.
            ProgressArg::Auto => ProgressDrawTarget::stderr_with_hz(10),
            ProgressArg::Always => ProgressDrawTarget::term_like_with_hz(Box::new(console::Term::stderr()), 10),
        };
        let files = Arc::new(Files {
            running: Mutex::new(Vec::new()),
            done: AtomicUsize::new(0),
            total: files,
            bar: Mutex::new(None),
        });
        let (stop, stopped) = mpsc::channel();
        let shared = files.clone();
        let ticker = std::thread::Builder::new()
            .name("litmus-progress".into())
            .spawn(move || tick(&shared, target, &stopped))
            .ok();
        match ticker {
            Some(ticker) => Bar { shown: Some(Shown { files, stop, ticker: Mutex::new(Some(ticker)) }) },
            None => Bar { shown: None },
        }
    }

    /// Show `path`'s check: its options report to the bar until the
    /// returned guard is dropped.
    pub fn watch(&self, opts: &mut Options, path: &str) -> Watch {
        let Some(shown) = &self.shown else { return Watch { file: None } };
        let progress = Progress::new();
        opts.budget.progress = Some(progress.clone());
        let name = path.rsplit('/').next().unwrap_or(path).to_string();
        let file = Arc::new(File { name, progress });
        if let Ok(mut running) = shown.files.running.lock() {
            running.push(file.clone());
        }
        Watch { file: Some((file, shown.files.clone())) }
    }

    /// Run `print` with the bar out of the way (cleared, then redrawn).
    pub fn suspend<R>(&self, print: impl FnOnce() -> R) -> R {
        let bar = self.shown.as_ref().and_then(|s| s.files.bar.lock().ok().and_then(|b| b.clone()));
        match bar {
            Some(b) => b.suspend(print),
            None => print(),
        }
    }

    /// Clear the bar for good (before the last results are printed); later
    /// calls do nothing.
    pub fn finish(&self) {
        let Some(s) = &self.shown else { return };
        let ticker = s.ticker.lock().ok().and_then(|mut t| t.take());
        if let Some(t) = ticker {
            let _ = s.stop.send(());
            let _ = t.join();
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
    if let Ok(mut b) = files.bar.lock() {
        *b = Some(bar.clone());
    }
    loop {
        // Setting the message redraws (and turns the spinner).
        bar.set_message(line(files));
        match stop.recv_timeout(TICK) {
            Err(RecvTimeoutError::Timeout) => continue,
            _ => break,
        }
    }
    if let Ok(mut b) = files.bar.lock() {
        *b = None;
    }
    bar.finish_and_clear();
}

/// "sb.litmus · TSO: outcomes · 12,345 executions", with "2/5 files · "
/// before it when there are several.
fn line(files: &Files) -> String {
    // The oldest file still running: its phase is what the user waits on.
    let now = match files.running.lock() {
        Ok(running) => running.first().cloned(),
        Err(_) => return String::new(),
    };
    let done = files.done.load(Ordering::Relaxed);
    let what = now.map_or_else(String::new, |f| format!("{} · {}", f.name, f.progress.snapshot().message()));
    if files.total > 1 {
        format!("{done}/{} files · {what}", files.total)
    } else {
        what
    }
}
