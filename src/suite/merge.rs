//! `litmus merge`: shard reports into one report, as the unsharded run
//! would have printed it (file objects in list order, the summary
//! recounted) — and only when the shards are all there.

use super::reports::{self, FileLine, Report};
use super::tally::Tally;
use std::io::Write;

#[derive(clap::Args)]
pub struct MergeArgs {
    /// Reports of `litmus check --format json|jsonl` (e.g. one per shard).
    #[arg(required = true)]
    pub reports: Vec<String>,
    /// Write the merged report here instead of standard output.
    #[arg(long, short)]
    pub output: Option<String>,
    /// Merge what there is when a shard is missing or did not finish (a
    /// warning names it, and a run that would exit 0 exits 3: not all was checked).
    #[arg(long)]
    pub partial: bool,
}

pub fn run(args: &MergeArgs) -> u8 {
    let fail = |e: String| {
        eprintln!("error: {e}");
        2
    };
    let mut read = Vec::new();
    for p in &args.reports {
        match reports::read(p) {
            Ok(r) => read.push((p.as_str(), r)),
            Err(e) => return fail(e),
        }
    }
    let (files, incomplete) = match combine(read) {
        Ok(x) => x,
        Err(e) => return fail(e),
    };
    if !incomplete.is_empty() && !args.partial {
        for e in &incomplete {
            eprintln!("error: {e}");
        }
        eprintln!("note: `litmus merge --partial` merges what there is");
        return 2;
    }
    for e in &incomplete {
        eprintln!("warning: {e}");
    }
    let mut tally = Tally::default();
    if files.expecting {
        tally.expecting();
    }
    let mut out = String::new();
    for f in &files.files {
        tally.add(&f.report);
        out += &f.line;
        out.push('\n');
    }
    out += &serde_json::to_string(&tally.json(None)).expect("summary serialises");
    out.push('\n');
    let written = match &args.output {
        Some(p) => std::fs::write(p, out).map_err(|e| format!("cannot write `{p}`: {e}")),
        None => match std::io::stdout().lock().write_all(out.as_bytes()) {
            // Whoever reads it went away (`| head`): nothing to say.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
            r => r.map_err(|e| e.to_string()),
        },
    };
    if let Err(e) = written {
        return fail(e);
    }
    match tally.exit_code() {
        0 if !incomplete.is_empty() => 3,
        code => code,
    }
}

/// The reports' files in list order, and what makes the merge incomplete
/// (a shard missing or cut short). An `Err` is a merge that makes no sense
/// at all (one shard twice, shards of different runs).
fn combine(mut read: Vec<(&str, Report)>) -> Result<(Report, Vec<String>), String> {
    let mut incomplete = Vec::new();
    for (p, r) in &read {
        if r.cut_off {
            incomplete.push(format!("`{p}` ends mid-line and has no summary: its run was stopped while writing"));
        } else if r.summaries == 0 {
            incomplete.push(format!("`{p}` has no summary: its run did not finish (or the file was cut short)"));
        }
    }
    let mut all = Report { expecting: read.iter().any(|(_, r)| r.expecting), ..Report::default() };
    // Whole runs (of different folders, say), json or jsonl — a stream of a
    // whole run is shard 1 of 1 — merge by path, as a walk sorts. One
    // report alone with positions goes by them, as shards do.
    let whole = |r: &Report| r.shard.as_ref().is_none_or(|s| s.count == 1);
    if read.iter().all(|(_, r)| r.shard.is_none()) || (read.len() > 1 && read.iter().all(|(_, r)| whole(r))) {
        all.files = read.into_iter().flat_map(|(_, r)| r.files).collect();
        reports::sort(&mut all.files);
        // Shards partition a list: a file in two reports is a mistake.
        if let Some(w) = all.files.windows(2).find(|w| w[0].report.file == w[1].report.file) {
            return Err(format!("`{}` is in more than one report", w[0].report.file));
        }
        return Ok((all, incomplete));
    }
    // A shard cut short has no summary, so nothing places its files: they
    // are left out (the merge is incomplete already).
    for (p, r) in &read {
        if r.shard.is_none() && r.summaries > 0 {
            return Err(format!(
                "`{p}` does not say where its files stand in the list (no `shard` in its summary), the other reports do"
            ));
        }
        if r.shard.is_none() && !r.files.is_empty() {
            let n = r.files.len();
            let s = if n == 1 { "" } else { "s" };
            incomplete.push(format!("`{p}`: its {n} file report{s} cannot be placed without a summary"));
        }
    }
    read.retain(|(_, r)| r.shard.is_some());
    fn of(r: &Report) -> &super::shard::ShardOf {
        r.shard.as_ref().expect("kept only reports with a shard")
    }
    let (first_path, (count, list_files)) = (read[0].0, (of(&read[0].1).count, of(&read[0].1).list_files));
    let mut given: std::collections::BTreeMap<usize, &str> = Default::default();
    for (p, r) in &read {
        let s = of(r);
        if (s.count, s.list_files) != (count, list_files) {
            return Err(format!(
                "`{first_path}` is a shard of {count} of a {list_files}-file list, `{p}` of {} of a {}-file list: not one run",
                s.count, s.list_files
            ));
        }
        if let Some(q) = given.insert(s.index, p) {
            return Err(format!("shard {}/{} is given twice: `{q}` and `{p}`", s.index, s.count));
        }
    }
    let missing = count - given.len();
    if missing > 0 {
        // Name the first few (the count may be far larger than the reports).
        let shown: Vec<String> =
            (1..=count).filter(|k| !given.contains_key(k)).take(8).map(|k| format!("{k}/{count}")).collect();
        let more = if missing > shown.len() { format!(" and {} more", missing - shown.len()) } else { String::new() };
        incomplete.push(format!("shard{} {}{more} missing", if missing == 1 { "" } else { "s" }, shown.join(", ")));
    }
    let mut placed: Vec<(usize, FileLine)> = Vec::new();
    for (_, r) in read {
        let positions = r.shard.expect("kept only reports with a shard").positions;
        placed.extend(positions.into_iter().zip(r.files));
    }
    placed.sort_by_key(|(pos, _)| *pos);
    if let Some(w) = placed.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(format!(
            "`{}` and `{}` stand at one place of the list: not one run",
            w[0].1.report.file, w[1].1.report.file
        ));
    }
    // Shards partition the list: a file reported twice (an edited or mixed
    // up report) means another is missing, whatever the positions say.
    let mut seen = std::collections::HashSet::new();
    if let Some((_, f)) = placed.iter().find(|(_, f)| !seen.insert(f.report.file.as_str())) {
        return Err(format!("`{}` is reported by more than one shard: not one run", f.report.file));
    }
    if missing == 0 && incomplete.is_empty() && placed.len() != list_files {
        incomplete.push(format!("the shards hold {} of the list's {list_files} files", placed.len()));
    }
    all.files = placed.into_iter().map(|(_, f)| f).collect();
    Ok((all, incomplete))
}
