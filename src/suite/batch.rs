//! `litmus check` over many files: expand folders, keep this shard's part,
//! check on `--jobs` workers, and print each report — in list order (human,
//! json) or as it finishes (jsonl) — then the summary. Reports are rendered
//! by the worker and only their text waits to be printed, at most a window
//! of them, so memory stays flat in the number of files.

use super::expect::Expectations;
use super::tally::{round_ms, Tally};
use super::{shard, walk};
use crate::check::{
    check_file, error_report, file_report, load, options, parse_models, CheckArgs, Status, SuiteFormat,
};
use crate::report::FileReport;
use crate::{human, Color};
use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Condvar, Mutex};
use std::time::Instant;

/// One checked file, rendered.
struct Done {
    stdout: String,
    stderr: String,
    /// The report, for the summary.
    report: FileReport,
}

/// What a run checks, from its arguments: the models, this shard's files
/// and where each stands in the whole list, the expectations.
struct Plan {
    models: Vec<litmus_checker::Model>,
    shard: Option<shard::Shard>,
    expectations: Option<Expectations>,
    entries: Vec<walk::Entry>,
    positions: Vec<usize>,
    list_len: usize,
}

fn plan(args: &CheckArgs) -> Result<Plan, String> {
    let models = parse_models(&args.model, &args.bounds)?;
    let shard = match args.shard.as_deref() {
        None => None,
        Some("auto") => Some(shard::from_env(|k| std::env::var(k).ok())?),
        Some(s) => Some(shard::parse(s)?),
    };
    let mut expectations = None;
    for f in args.expect.iter().filter(|f| *f != "auto") {
        expectations.get_or_insert_with(Expectations::default).load(f, &args.expect_model)?;
    }
    let mut entries = walk::expand(&args.files);
    if entries.is_empty() {
        return Err(format!("no `.litmus` files in {}", args.files.join(", ")));
    }
    if args.expect.iter().any(|f| f == "auto") {
        let x = expectations.get_or_insert_with(Expectations::default);
        x.load_beside(entries.iter().map(|e| e.path.as_str()), &args.expect_model)?;
    }
    if let Some(x) = &expectations {
        if let Some(first) = x.missing.first() {
            let n = x.missing.len();
            let more = if n > 1 { format!(" (and {} more)", n - 1) } else { String::new() };
            eprintln!("warning: expectations name a file that does not exist: {first}{more}");
        }
    }
    // Where each entry of this run stands in the whole list, so `merge` can
    // put shards (and a stream's finishing order) back in list order.
    let list_len = entries.len();
    let mut positions: Vec<usize> = (0..list_len).collect();
    if let Some(s) = shard {
        let costs: Vec<u64> = entries.iter().map(|e| shard::cost(&e.path)).collect();
        positions = shard::files_of(&costs, s);
        entries = positions.iter().map(|&i| entries[i].clone()).collect();
    }
    Ok(Plan { models, shard, expectations, entries, positions, list_len })
}

/// How each file is checked and rendered (shared by the workers).
struct Checking<'a> {
    args: &'a CheckArgs,
    models: &'a [litmus_checker::Model],
    bounds: crate::check::Bounds,
    expectations: Option<&'a Expectations>,
    color: bool,
    bar: &'a crate::progress::Bar,
}

impl Checking<'_> {
    fn file(&self, path: &str) -> Done {
        let args = self.args;
        let t0 = Instant::now();
        let mut opts = if args.first { options(&self.bounds).stop_at_first() } else { options(&self.bounds) };
        let _shown = self.bar.watch(&mut opts, path);
        let checked = load(path).map(|l| {
            let models = super::super::check::models_for(self.models, l.analysis.dialect, l.analysis.program.as_ref());
            check_file(l, &models, self.bounds.monitor.kind(), &opts, &args.active)
        });
        let ms = round_ms(t0.elapsed().as_secs_f64() * 1e3);
        let (mut report, rendered) = match &checked {
            Ok(c) => (
                file_report(c),
                (args.format == SuiteFormat::Human && !args.brief)
                    .then(|| human::render(c, self.color, !args.no_timing)),
            ),
            Err(e) => (error_report(path, e), None),
        };
        report.status = match &checked {
            Ok(c) => c.status().as_str(),
            Err(_) => Status::Error.as_str(),
        }
        .into();
        if args.no_timing {
            report.drop_times();
        } else {
            report.time_ms = Some(ms);
        }
        if let Some(x) = self.expectations {
            report.expect = x.judge(&report);
        }
        let (stdout, mut stderr) = match (args.format, rendered) {
            (SuiteFormat::Human, Some(r)) => (r.stdout + &expectation_lines(&report), r.stderr),
            (SuiteFormat::Human, None) => (brief_line(&report), String::new()),
            _ => (json_line(&report), String::new()),
        };
        if let Err(e) = &checked {
            stderr.insert_str(0, &format!("error: {e}\n"));
        }
        Done { stdout, stderr, report }
    }

    /// A file the walk could not read: its error report.
    fn unreadable(&self, path: &str, err: &str) -> Done {
        let mut report = error_report(path, err);
        report.status = Status::Error.as_str().into();
        let stdout = match self.args.format {
            // --brief has a line for every file it counts.
            SuiteFormat::Human if self.args.brief => brief_line(&report),
            SuiteFormat::Human => String::new(),
            _ => json_line(&report),
        };
        Done { stdout, stderr: format!("error: {err}\n"), report }
    }
}

pub fn run(args: &CheckArgs) -> u8 {
    let started = Instant::now();
    let Plan { models, shard, expectations, entries, positions, list_len } = match plan(args) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let color = match args.color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => std::io::stdout().is_terminal(),
    };
    let jobs = args.jobs.map_or_else(litmus_checker::options::all_cores, |j| j as usize).clamp(1, entries.len().max(1));
    // Files are the unit of parallelism when there are several: each
    // exploration gets its share of the cores (the output does not depend on it).
    let mut bounds = args.bounds.clone();
    if bounds.threads.is_none() && entries.len() > 1 {
        bounds.threads = Some((litmus_checker::options::all_cores() / jobs).max(1) as u32);
    }
    let bar = crate::progress::Bar::start(args.progress, args.format == SuiteFormat::Human, entries.len());
    let checking = Checking { args, models: &models, bounds, expectations: expectations.as_ref(), color, bar: &bar };
    let mut tally = Tally::default();
    if expectations.is_some() {
        tally.expecting();
    }
    // The list positions of the reports, in the order they were printed.
    let mut emitted: Vec<usize> = Vec::with_capacity(entries.len());
    let ordered = args.format != SuiteFormat::Jsonl;
    // How many rendered reports may wait for an earlier, slower file.
    let window = 64 * jobs;
    let next = AtomicUsize::new(0);
    // Whoever reads the output went away (`| head`): stop checking.
    let closed = std::sync::atomic::AtomicBool::new(false);
    let printed = (Mutex::new(0usize), Condvar::new());
    let (tx, rx) = mpsc::channel::<(usize, Done)>();
    std::thread::scope(|s| {
        for _ in 0..jobs {
            let tx = tx.clone();
            let (next, printed, entries, checking, closed) = (&next, &printed, &entries, &checking, &closed);
            litmus_checker::options::spawn_checking(s, move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(e) = entries.get(i).filter(|_| !closed.load(Ordering::Relaxed)) else { break };
                if ordered {
                    let mut p = printed.0.lock().unwrap_or_else(|e| e.into_inner());
                    while i >= *p + window {
                        p = printed.1.wait(p).unwrap_or_else(|e| e.into_inner());
                    }
                }
                let done = match &e.error {
                    Some(err) => checking.unreadable(&e.path, err),
                    None => checking.file(&e.path),
                };
                if tx.send((i, done)).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        let stdout = std::io::stdout();
        let mut out = stdout.lock();
        let mut waiting: BTreeMap<usize, Done> = BTreeMap::new();
        let mut emit = |i: usize, d: Done, tally: &mut Tally| {
            emitted.push(positions[i]);
            // No bar drawn again under the last file's report.
            if emitted.len() == entries.len() {
                bar.finish();
            }
            bar.suspend(|| {
                if !d.stderr.is_empty() {
                    let _ = out.flush();
                    let _ = std::io::stderr().write_all(d.stderr.as_bytes());
                }
                if out.write_all(d.stdout.as_bytes()).is_err() {
                    closed.store(true, Ordering::Relaxed);
                }
                // Out before the bar is drawn again.
                let _ = out.flush();
            });
            tally.add(&d.report);
        };
        let mut want = 0;
        for (i, d) in rx {
            if !ordered {
                emit(i, d, &mut tally);
                continue;
            }
            waiting.insert(i, d);
            while let Some(d) = waiting.remove(&want) {
                emit(want, d, &mut tally);
                want += 1;
            }
            *printed.0.lock().unwrap_or_else(|e| e.into_inner()) = want;
            printed.1.notify_all();
        }
    });
    // The bar is gone before the summary.
    bar.finish();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let wall = (!args.no_timing).then(|| started.elapsed());
    let _ = out.write_all(summary(args, &tally, shard, wall, list_len, emitted).as_bytes());
    let _ = out.flush();
    // Expectations that match nothing are a mistake (a TSV of another
    // folder, test names of another suite), not a clean "0 disagree".
    if expectations.is_some() && tally.expected() == 0 && tally.files() > 0 {
        eprintln!("warning: no file of this run has an expectation in {} (exit 3)", args.expect.join(", "));
    }
    tally.exit_code()
}

/// The summary after the reports: a human line (for a folder or several
/// files), or the JSON summary saying where the files stand in the list.
fn summary(
    args: &CheckArgs,
    tally: &Tally,
    shard: Option<shard::Shard>,
    wall: Option<std::time::Duration>,
    list_len: usize,
    emitted: Vec<usize>,
) -> String {
    match args.format {
        SuiteFormat::Human if tally.files() > 1 || args.files.iter().any(|f| std::path::Path::new(f).is_dir()) => {
            let shard = shard.map(|s| format!("shard {s}: ")).unwrap_or_default();
            format!("\n{shard}{}", tally.human(wall))
        }
        SuiteFormat::Human => String::new(),
        _ => {
            // A report that is not the whole list in list order says where its
            // files stand in the list: `merge` restores the unsharded report.
            let placed = (shard.is_some() || args.format == SuiteFormat::Jsonl).then(|| {
                let s = shard.unwrap_or(shard::Shard { index: 0, count: 1 });
                shard::ShardOf { index: s.index + 1, count: s.count, list_files: list_len, positions: emitted }
            });
            serde_json::to_string(&tally.json(placed.as_ref())).expect("summary serialises") + "\n"
        }
    }
}

/// A file's line of `--format json|jsonl`.
fn json_line(r: &FileReport) -> String {
    serde_json::to_string(r).expect("report serialises") + "\n"
}

/// `--brief`: one line per file.
fn brief_line(r: &FileReport) -> String {
    let mut s = format!("{}  {}", r.file, r.status);
    if let Some(t) = &r.test {
        s += &format!("  {t}");
    }
    if let Some(e) = &r.error {
        s += &format!("  {e}");
    }
    let errors: Vec<_> = r.diagnostics.iter().filter(|d| d.severity == "error").collect();
    // The first error with its position, so a suite run says what is wrong
    // without a second run on the file.
    if let Some(first) = errors.first() {
        let n = errors.len();
        s += &format!(
            "  {n} error{}: {}:{}: {} [{}]",
            if n == 1 { "" } else { "s" },
            first.line,
            first.column,
            first.message,
            first.code,
        );
    }
    if !r.models.is_empty() {
        let mut models: Vec<_> = r.models.0.iter().collect();
        models.sort_by_key(|(n, _)| super::tally::model_rank(n));
        let parts: Vec<String> = models
            .into_iter()
            .map(|(name, m)| {
                let mut p = name.to_uppercase();
                match &m.observation {
                    Some(o) => p += &format!(" {o}"),
                    None if r.condition.is_some() => p += " unknown",
                    None => {}
                }
                let violations = m.violations.as_ref().map_or(0, Vec::len);
                if violations > 0 {
                    p += &format!(" ({violations} violation{})", if violations == 1 { "" } else { "s" });
                } else if m.robust.is_none() && name != "sc" {
                    p += " (robust unknown)";
                }
                let failures = m.assertion_failures.len();
                if failures > 0 {
                    p += &format!(" ({failures} failing assertion{})", if failures == 1 { "" } else { "s" });
                }
                p
            })
            .collect();
        s += &format!("  {}", parts.join(" · "));
    }
    if let Some(ms) = r.time_ms {
        s += &format!("  [{ms:.1} ms]");
    }
    s.push('\n');
    s + &expectation_lines(r)
}

/// Where a file disagrees with its expected verdicts (human output).
fn expectation_lines(r: &FileReport) -> String {
    let mut s = String::new();
    let Some(e) = &r.expect else { return s };
    for (list, word) in
        [(&e.disagreements, "disagrees with the expectation"), (&e.unknown, "cannot confirm the expectation")]
    {
        for d in list {
            let model = d.model.as_deref().map(str::to_uppercase).unwrap_or_default();
            // Answers as JSON: a word in quotes, a number bare, none `null`.
            let expected = d.expected.as_ref().unwrap_or(&serde_json::Value::Null);
            let what = &d.what;
            match &d.got {
                Some(got) => s += &format!("  {word}: {model} {what} {got}, expected {expected}\n"),
                None => s += &format!("  {word}: {model} {what} (expected {expected})\n"),
            }
        }
    }
    s
}
