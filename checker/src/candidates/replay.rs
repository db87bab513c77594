//! A candidate's witness replayed: each thread of the program is run again
//! with the values its log says it read (nothing of the search is reused
//! but the thread interpreter and the candidate's construction), the log's
//! reads-from and coherence are checked against those runs (same cell,
//! same value, every write placed once) and the candidate they make is
//! judged by the model again. What it gives: whether the model allows it,
//! and its SC relations, to check a violation's cycle edge by edge.

use super::build::{self, co_of, Layout};
use super::named::Sc;
use super::thread::{self, Kind, Run};
use crate::catalog;
use crate::machine::{Event, EventKind, Model, ATOMIC_READ, NONE};
use crate::options::Options;
use crate::trace::Edge;
use litmus_cat::eval::Rel;
use litmus_ir::Program;

/// A replayed candidate.
pub struct Replayed {
    /// The model allows it.
    pub allowed: bool,
    sc: Sc,
    /// Per log event, its cat events (an atomic has two where the
    /// architecture makes it two).
    cat: Vec<Vec<usize>>,
}

impl Replayed {
    /// Does the replayed candidate have the edge `a → b` (log indices)?
    pub fn has(&self, a: u32, b: u32, edge: Edge) -> bool {
        let rel = match edge {
            Edge::Po => &self.sc.po,
            Edge::Rf => &self.sc.rf,
            Edge::Co => &self.sc.co,
            Edge::Fr => &self.sc.fr,
        };
        let of = |i: u32| self.cat.get(i as usize).map_or(&[][..], |v| &v[..]);
        of(a).iter().any(|&x| of(b).iter().any(|&y| rel.0[x] >> y & 1 == 1))
    }

    /// Is it not SC (`po | rf | co | fr` cyclic)?
    pub fn cyclic(&self) -> bool {
        self.sc.cyclic()
    }
}

/// What a log event says an event of a run is.
fn matches(e: &thread::Ev, l: &Event) -> bool {
    let kind = match e.kind {
        Kind::Read => l.kind == EventKind::Load && l.store != ATOMIC_READ && l.value == e.old,
        Kind::AtomicRead => l.kind == EventKind::Load && l.store == ATOMIC_READ && l.value == e.old,
        Kind::Write => l.kind == EventKind::Store && l.value == e.value,
        Kind::Update => l.kind == EventKind::Rmw && l.value == e.value && l.old == e.old,
        Kind::Fence(f) => return l.kind == EventKind::Fence(f) && l.stmt == e.stmt,
    };
    kind && l.stmt == e.stmt && l.cell == e.cell
}

/// Where each of a thread's log events (`mine`) is among a run's events:
/// in order, every run event matched but fences the log has not.
fn align(events: &[thread::Ev], mine: &[usize], log: &[Event]) -> Option<Vec<usize>> {
    let mut at = Vec::with_capacity(mine.len());
    let mut j = 0;
    for (k, e) in events.iter().enumerate() {
        if j < mine.len() && matches(e, &log[mine[j]]) {
            at.push(k);
            j += 1;
        } else if !matches!(e.kind, Kind::Fence(_)) {
            return None;
        }
    }
    (j == mine.len()).then_some(at)
}

/// Replay the candidate `log` (as [`super::build::witness`] writes it) of `prog`
/// under `model`.
pub fn replay(prog: &Program, model: Model, opts: &Options, log: &[Event]) -> Result<Replayed, String> {
    let id = catalog::definition(model).ok_or("the model has no definition as data")?;
    let catdep = catalog::get(id).catdep;
    // Each thread's events, in order, and where each log event is.
    let mut mine: Vec<Vec<usize>> = vec![Vec::new(); prog.threads.len()];
    for (i, e) in log.iter().enumerate().filter(|(_, e)| e.kind != EventKind::Commit) {
        mine.get_mut(e.thread as usize).ok_or("an event of no thread")?.push(i);
    }
    let mut runs: Vec<Run> = Vec::new();
    // Per thread, per log event of it: its run event.
    let mut pos: Vec<Vec<usize>> = Vec::new();
    let mut steps = 0u64;
    for (t, th) in prog.threads.iter().enumerate() {
        // The values this thread read, per cell: its only guesses.
        let mut domain: Vec<Vec<i64>> = prog.init.iter().map(|&v| vec![v]).collect();
        for &i in &mine[t] {
            let e = &log[i];
            let read = match e.kind {
                EventKind::Load => e.value,
                EventKind::Rmw => e.old,
                _ => continue,
            };
            let d = domain.get_mut(e.cell as usize).ok_or("an access of no cell")?;
            if !d.contains(&read) {
                d.push(read);
            }
        }
        let all = thread::runs(prog, t, &th.init_regs, &domain, opts.loop_bound, catdep, &mut steps, u64::MAX)
            .map_err(|_| format!("thread {t} cannot be run again"))?;
        // The run making the log's events, in order; a fence the log has
        // not (one a repair inserted) is the run's own, judged with it.
        let (run, at) = all
            .into_iter()
            .filter(|r| r.end != thread::End::Pruned)
            .find_map(|r| {
                let at = align(&r.events, &mine[t], log)?;
                Some((r, at))
            })
            .ok_or_else(|| format!("no run of thread {t} makes its events"))?;
        runs.push(run);
        pos.push(at);
    }
    let mut prepared = catalog::prepared(id).map_err(|e| e.to_string())?;
    let micro = match catdep {
        true => runs.iter().enumerate().map(|(t, r)| std::rc::Rc::new(super::regs::micro(prog, t, r))).collect(),
        false => Vec::new(),
    };
    let refs: Vec<&Run> = runs.iter().collect();
    let made = build::layout(prog, &refs, micro).map_err(|n| format!("{n} events, too many")).and_then(|lay| {
        let mut x = build::skeleton(prog, catdep, &refs, &lay);
        let (rf, co) = communication(prog, log, &mine, &pos, &refs, &lay)?;
        x.rels.insert("rf".into(), rf);
        x.rels.insert("co".into(), co);
        let allowed = match prepared.allowed(&x) {
            Ok(a) => a,
            Err(litmus_cat::CatError::NotACandidate(_)) => false,
            Err(e) => return Err(e.to_string()),
        };
        let mut cat = vec![Vec::new(); log.len()];
        for (t, ids) in mine.iter().enumerate() {
            for (k, &i) in ids.iter().enumerate() {
                let (a, b) = lay.of[t][pos[t][k]];
                cat[i] = (a..=b).collect();
            }
        }
        Ok(Replayed { allowed, sc: Sc::of(lay.n, &x), cat })
    });
    catalog::give_back_prepared(id, prepared);
    made
}

/// The log's rf and co as relations over the replayed runs' cat events,
/// checked: a read reads a write of its cell with its value (or the initial
/// one), and each cell's commits place each of its writes once.
fn communication(
    prog: &Program,
    log: &[Event],
    mine: &[Vec<usize>],
    pos: &[Vec<usize>],
    runs: &[&Run],
    lay: &Layout,
) -> Result<(Rel, Rel), &'static str> {
    // Per log event of a thread, its run event.
    let mut at = vec![None; log.len()];
    for (t, ids) in mine.iter().enumerate() {
        for (k, &i) in ids.iter().enumerate() {
            at[i] = Some((t, pos[t][k]));
        }
    }
    let write = |i: usize| -> Result<(usize, &thread::Ev), &'static str> {
        let (t, k) = at.get(i).copied().flatten().ok_or("an rf or commit to no write")?;
        let e = &runs[t].events[k];
        if !e.writes() {
            return Err("an rf or commit to an event that does not write");
        }
        Ok((lay.of[t][k].1, e))
    };
    let mut rf = Rel::empty(lay.n);
    for (t, ids) in mine.iter().enumerate() {
        for (k, &i) in ids.iter().enumerate() {
            let k = pos[t][k];
            let e = &runs[t].events[k];
            if !e.reads() {
                continue;
            }
            let l = &log[i];
            let from = if l.rf == NONE {
                if prog.init[e.cell as usize] != e.old {
                    return Err("a read of the initial value that is not it");
                }
                lay.iw[e.cell as usize].ok_or("a read of an untouched cell")?
            } else {
                let src = log.get(l.rf as usize).ok_or("an rf past the log")?;
                let w = if src.kind == EventKind::Commit { src.store as usize } else { l.rf as usize };
                let (ew, ev) = write(w)?;
                if ev.cell != e.cell || ev.value != e.old {
                    return Err("a read of another cell's or another value's write");
                }
                ew
            };
            rf.0[from] |= 1 << lay.of[t][k].0;
        }
    }
    let cells: Vec<usize> = (0..prog.init.len()).filter(|&c| lay.iw[c].is_some()).collect();
    let mut perms: Vec<Vec<usize>> = vec![Vec::new(); cells.len()];
    for l in log.iter().filter(|l| l.kind == EventKind::Commit) {
        let (ew, ev) = write(l.store as usize)?;
        let k = cells.iter().position(|&c| c == ev.cell as usize).ok_or("a commit to an untouched cell")?;
        if perms[k].contains(&ew) {
            return Err("a write committed twice");
        }
        perms[k].push(ew);
    }
    let writes = runs.iter().flat_map(|r| &r.events).filter(|e| e.writes()).count();
    if perms.iter().map(Vec::len).sum::<usize>() != writes {
        return Err("a write with no place in coherence");
    }
    Ok((rf, co_of(lay, &cells, &perms)))
}
