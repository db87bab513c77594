//! The monitors ride along the SC exploration: every signal is grouped by
//! its (delayed store, overtaking access) statement pair, proved by a
//! witness replayed on the relaxed machine (a group with no replayable
//! witness is never shown, and keeps robustness unknown unless the model's
//! graphs settle it), and explained as the shortest hb cycle over source
//! statements ([`crate::signalled`]). PSLO has no monitor: its robustness
//! comes from exploring its own executions ([`crate::explicit`]).

use crate::certainty::Coverage;
use crate::clocks::Clocks;
use crate::hb::Hb;
use crate::machine::{Event, Machine, Model, NONE};
use crate::monitor::MonitorKind;
use crate::monitor::{self, Forcing, RawViolation};
use crate::options::Options;
use crate::violation::{Robustness, Violation};
use litmus_ir::{Program, StmtId};

struct Group {
    v: Option<Violation>,
    attempts: u32,
    occurrences: u64,
    /// Measuring: the minimal sets of positions whose fence would have
    /// removed one of its signals ([`crate::measure::Premeasured`]).
    killers: Vec<Box<[StmtId]>>,
}

/// Collects violations from SC executions as they are explored. The
/// monitors are incremental: an execution shares its prefix with the one
/// before (depth-first order), and only the new suffix is monitored.
pub struct Collector<'p> {
    prog: &'p Program,
    /// The relaxed models the monitors decide (TSO, PSO).
    models: Vec<Model>,
    /// Every relaxed model asked for, in order (PSLO too).
    asked: Vec<Model>,
    /// PSLO's robustness, by explicit exploration (no monitor), once run.
    explicit: Vec<Robustness>,
    /// The violating graphs of the models given as data among them.
    kept: Vec<std::sync::Arc<crate::graph::fenced::Kept>>,
    /// The model's own executions explored where the monitor is not
    /// complete for it ([`MonitorKind::complete_for`]), once run.
    cross: Vec<Robustness>,
    /// Models decided on their execution graphs (`--monitor graph`), and
    /// BSS's models whose signals it could not all witness, settled there
    ///  ([`crate::graph::robust`]), once run.
    graphs: Vec<Robustness>,
    monitor: MonitorKind,
    /// Witnesses are not built once the check is stopped (the exploration
    /// stops too; the answer is then unknown anyway).
    stop: Options,
    /// Per model, its statement pairs (hashed: a non-robust program signals
    /// on a good share of its accesses; sorted once, in `finish`).
    groups: Vec<hashbrown::HashMap<(StmtId, StmtId), Group>>,
    /// Event-level happens-before for witnesses and display cycles, brought
    /// up to date only when a signal needs one (the monitors read the
    /// explorer's clocks): its first `hb_valid` events match the log.
    hb: Hb,
    hb_valid: usize,
    /// Per model, the machine its witnesses replay on, once one is built.
    machines: Vec<Option<Machine<'p>>>,
    /// BSS for some models (TSO, PSO) in one pass, and the index in
    /// `models` of each of them.
    bss: Option<(monitor::Bss, Vec<usize>)>,
    /// Sober for TSO, and its index in `models`.
    sober: Option<(monitor::Sober, usize)>,
    /// Events the incremental monitors have seen (a prefix of the log).
    listened: usize,
    /// The monitors have not been cut back to `listened` yet: cuts come one
    /// event at a time as the search backtracks, and are applied at once
    /// when events come again.
    cut: bool,
    /// Signals of the events being heard: (event, model index, signal).
    raws: Vec<(u32, usize, RawViolation)>,
    /// Measuring fences right after statements on the way
    /// ([`Collector::measuring`]), for the models BSS decides completely;
    /// and a signal's positions, being gathered.
    measuring: Option<(crate::measure::VirtualFences, Vec<bool>)>,
    killers: Vec<StmtId>,
}

impl crate::dpor::EventListener for Collector<'_> {
    fn on_events(&mut self, log: &[Event], from: usize, clocks: Clocks<'_>) {
        if self.bss.is_none() && self.sober.is_none() {
            return;
        }
        debug_assert_eq!(from, self.listened);
        if self.cut {
            self.cut = false;
            if let Some((m, _)) = &mut self.bss {
                m.truncate(from);
            }
            if let Some((m, _)) = &mut self.sober {
                m.truncate(from);
            }
        }
        let mut raws = std::mem::take(&mut self.raws);
        match (&mut self.bss, &mut self.sober) {
            // BSS alone (the usual case): every event in one call, and the
            // signals, each with its event, handled after.
            (Some((m, models)), None) => {
                m.push_all(log, from, clocks, &mut |i, k, _, r| raws.push((i as u32, models[k], r)));
            }
            (bss, sober) => {
                for i in from..log.len() {
                    if let Some((m, models)) = bss.as_mut() {
                        m.push(log, i, clocks, &mut |k, _, r| raws.push((i as u32, models[k], r)));
                    }
                    if let Some((m, mi)) = sober.as_mut() {
                        m.push(log, i, clocks, &mut |r| raws.push((i as u32, *mi, r)));
                    }
                }
            }
        }
        // A store and access signalled under two models (by BSS) have one
        // set of positions: gathered once.
        let mut gathered = None;
        for &(i, mi, r) in &raws {
            let by_bss = self.bss.as_ref().is_some_and(|(_, models)| models.contains(&mi));
            let measured = by_bss
                && (gathered == Some((r.store, r.access)) && self.measured(mi) || self.killers_of(log, clocks, mi, r));
            if measured {
                gathered = Some((r.store, r.access));
            }
            // What the monitor has seen: the execution up to event i.
            self.record(&log[..=i as usize], mi, r, measured);
        }
        raws.clear();
        self.raws = raws;
        self.listened = log.len();
    }

    fn on_truncate(&mut self, len: usize) {
        if len < self.listened {
            self.hb_valid = self.hb_valid.min(len);
            self.listened = len;
            self.cut = true;
        }
    }
}

impl<'p> Collector<'p> {
    pub fn new(prog: &'p Program, models: &[Model], monitor: MonitorKind, opts: &Options) -> Self {
        let asked: Vec<Model> = models.iter().copied().filter(|m| m.buffered()).collect();
        let models: Vec<Model> = asked.iter().copied().filter(|m| m.monitored()).collect();
        let sober = monitor == MonitorKind::Sober && models.iter().any(|m| m.sober());
        // `--monitor graph` decides on the model's graphs wherever their
        // search applies (no preemption bound); BSS rides the rest.
        let on_graphs = |m: Model| monitor == MonitorKind::Graph && crate::graph::supports(m, opts);
        let by_bss: Vec<usize> =
            (0..models.len()).filter(|&i| !(on_graphs(models[i]) || sober && models[i].sober())).collect();
        let forcing = if monitor == MonitorKind::BssInterleaving { Forcing::Interleaving } else { Forcing::Causal };
        let bss = (!by_bss.is_empty()).then(|| {
            let ms: Vec<Model> = by_bss.iter().map(|&i| models[i]).collect();
            (monitor::Bss::new(prog, &ms, forcing), by_bss)
        });
        let sober = sober.then(|| {
            let mi = models.iter().position(|&m| m.sober()).unwrap();
            (monitor::Sober::new(prog.threads.len(), prog.mem_size()), mi)
        });
        Collector {
            prog,
            groups: models.iter().map(|_| hashbrown::HashMap::new()).collect(),
            machines: models.iter().map(|_| None).collect(),
            models,
            asked,
            explicit: Vec::new(),
            kept: Vec::new(),
            cross: Vec::new(),
            graphs: Vec::new(),
            monitor,
            stop: opts.clone(),
            hb: Hb::new(prog.threads.len(), prog.mem_size()),
            hb_valid: 0,
            bss,
            sober,
            listened: 0,
            cut: false,
            raws: Vec::new(),
            measuring: None,
            killers: Vec::new(),
        }
    }

    /// Also measure, from the signals, which full fences right after
    /// statements (ending in their store or their one load) would remove what (under the models BSS decides
    /// completely): [`Collector::premeasured`]. It costs only where a
    /// monitor signals.
    pub fn measuring(mut self) -> Self {
        // Only the models whose signals all come from BSS (not Sober's).
        let Some((_, by_bss)) = &self.bss else { return self };
        let measured: Vec<bool> = (0..self.models.len())
            .map(|i| by_bss.contains(&i) && crate::measure::measurable(self.models[i], self.monitor))
            .collect();
        if measured.iter().any(|&b| b) {
            self.measuring = Some((crate::measure::VirtualFences::new(self.prog), measured));
        }
        self
    }

    /// The models BSS rides for.
    fn by_bss(&self) -> Vec<Model> {
        self.bss.as_ref().map_or(Vec::new(), |(_, ms)| ms.iter().map(|&i| self.models[i]).collect())
    }

    /// Are model `mi`'s signals measured?
    fn measured(&self, mi: usize) -> bool {
        self.measuring.as_ref().is_some_and(|(_, measured)| measured[mi])
    }

    /// Signal `r` (of model `mi`, by BSS): gather into `killers` the
    /// positions whose fence would have committed its store before its
    /// access — right after a store of the store's thread, from it on,
    /// that happens before the access. False if not measuring it.
    fn killers_of(&mut self, log: &[Event], clocks: Clocks<'_>, mi: usize, r: RawViolation) -> bool {
        let Some((fences, measured)) = &self.measuring else { return false };
        if !measured[mi] {
            return false;
        }
        let s = &log[r.store as usize];
        let q = s.thread as usize;
        // A fence after the thread's k-th transition is at place 2k + 1:
        // before the access iff k < the access's clock for q.
        let c = clocks.at(&log[r.access as usize], q);
        self.killers.clear();
        let mut take = |e: &Event| {
            let p = fences.after(e);
            if p != NONE {
                self.killers.push(p);
            }
        };
        // Every memory event of q from the store on (a fence after it is
        // measured if its statement's code ends with it), read off the log
        // here: signals are rare, a list kept per event would cost more.
        for e in &log[r.store as usize..r.access as usize] {
            if e.thread as usize != q || e.cell == NONE {
                continue;
            }
            if clocks.count(e) >= c {
                break;
            }
            take(e);
        }
        self.killers.sort_unstable();
        self.killers.dedup();
        true
    }

    /// What the measuring ([`Collector::measuring`]) showed, if on; `sc` is
    /// how far the SC exploration went.
    pub fn premeasured(&self, sc: Coverage) -> Option<crate::measure::Premeasured> {
        let Some((fences, measured)) = self.measuring.as_ref() else {
            return crate::measure::Premeasured::of_graphs(self.prog, self.kept.clone());
        };
        let models = self
            .models
            .iter()
            .zip(&self.groups)
            .zip(measured)
            .filter(|(_, &on)| on)
            .map(|((&m, groups), _)| (m, groups.iter().map(|(&key, g)| (key, g.killers.clone())).collect()))
            .collect();
        Some(crate::measure::Premeasured { fences: fences.clone(), models, coverage: sc, graphs: self.kept.clone() })
    }

    /// Explore the SC executions with the monitors riding along, then (if
    /// asked) PSLO's own executions; returns the SC outcome.
    pub fn run(&mut self, opts: &Options) -> crate::outcome::ModelOutcome {
        self.run_observed(opts, |_| {})
    }

    /// [`Collector::run`], handing every SC execution to `observer` too.
    pub fn run_observed(
        &mut self,
        opts: &Options,
        observer: impl FnMut(&crate::dpor::Execution<'_>),
    ) -> crate::outcome::ModelOutcome {
        let prog = self.prog;
        let sc = if self.bss.is_none() && self.sober.is_none() {
            // No monitor reads the events: failing attempts may wait.
            crate::explore::explore_with(prog, Model::Sc, opts, observer)
        } else {
            crate::explore::explore_listened(prog, Model::Sc, opts, self, observer)
        };
        self.explicit.clear();
        self.kept.clear();
        let own: Vec<Model> = self.asked.iter().copied().filter(|m| m.buffered() && !m.monitored()).collect();
        for m in own {
            // Finding violations, PSLO's own executions are the work now.
            if let Some(p) = &opts.budget.progress {
                p.model_within(crate::progress::Phase::Violations, m);
            }
            let (r, kept) = own_executions_kept(prog, m, opts);
            self.kept.extend(kept);
            self.explicit.push(r);
        }
        // Models decided on graphs, and BSS's that left signals without a
        // witness (a graph search decides them exactly: the same pairs).
        let bss_models = self.by_bss();
        self.graphs = self
            .models
            .iter()
            .enumerate()
            .filter(|&(i, &m)| {
                let unwitnessed = bss_models.contains(&m) && self.groups[i].values().any(|g| g.v.is_none());
                // A model only the graphs decide is always searched: stopped,
                // the search says so itself (its first poll), and the answer
                // is unknown. Only settling is skipped once stopped.
                let decides = !bss_models.contains(&m) && self.monitor == MonitorKind::Graph;
                (decides || unwitnessed && !opts.budget.stopped()) && crate::graph::supports(m, opts)
            })
            .map(|(_, &m)| {
                if let Some(p) = &opts.budget.progress {
                    p.model_within(crate::progress::Phase::Violations, m);
                }
                // Settling gets half the time left (the later steps need
                // theirs); unfinished, it leaves the signals unconfirmed.
                let own = if bss_models.contains(&m) { opts.with_budget(opts.budget.share(0.5)) } else { opts.clone() };
                crate::graph::robust::robustness(prog, m, &own)
            })
            .collect();
        // A monitor that can miss violations of a model cannot prove it
        // robust: that model's own executions are explored too.
        let monitor = self.monitor;
        self.cross = self
            .models
            .iter()
            .filter(|&&m| !monitor.complete_for(m))
            .map(|&m| {
                if let Some(p) = &opts.budget.progress {
                    p.model_within(crate::progress::Phase::Violations, m);
                }
                crate::explicit::robustness(prog, m, opts)
            })
            .collect();
        sc
    }

    // Out of line: rare, and inlined it would weigh on every event.
    #[inline(never)]
    fn record(&mut self, log: &[Event], mi: usize, r: RawViolation, measured: bool) {
        let model = self.models[mi];
        let key = (log[r.store as usize].stmt, log[r.access as usize].stmt);
        let g =
            self.groups[mi].entry(key).or_insert(Group { v: None, attempts: 0, occurrences: 0, killers: Vec::new() });
        g.occurrences += 1;
        if measured {
            crate::measure::record_killers(&mut g.killers, &self.killers);
        }
        if g.v.is_some() || g.attempts >= 8 || self.stop.budget.stopped() {
            return;
        }
        g.attempts += 1;
        self.hb.truncate(self.hb_valid);
        for i in self.hb_valid..log.len() {
            self.hb.push(log, i);
        }
        self.hb_valid = log.len();
        let sober = self.monitor == MonitorKind::Sober && model.sober();
        let m =
            self.machines[mi].get_or_insert_with(|| crate::signalled::witness_machine(self.prog, model, &self.stop));
        if let Some(v) = crate::signalled::violation(m, &self.stop, log, &self.hb, r, sober) {
            self.stop.budget.note_finding();
            g.v = Some(v);
        }
    }

    /// Per relaxed model, the confirmed violations in statement order and
    /// the unconfirmed pairs; `sc` is how far the SC exploration went (PSLO's
    /// answer is worth what its own exploration was).
    pub fn finish(self, sc: Coverage) -> Vec<Robustness> {
        let by_bss = self.by_bss();
        let monitor = self.monitor;
        let asked = self.asked;
        let mut explicit = self.explicit;
        let mut cross = self.cross;
        let mut graphs = self.graphs;
        let mut out = Vec::new();
        for (model, groups) in self.models.into_iter().zip(self.groups) {
            let on_graphs = graphs.iter().position(|rb| rb.model == model).map(|k| graphs.swap_remove(k));
            let on_graphs = match on_graphs {
                // Decided on its graphs alone (`--monitor graph`).
                Some(rb) if !by_bss.contains(&model) => {
                    out.push(rb);
                    continue;
                }
                // Nothing rode for it and its graphs were not searched: no
                // answer (never the SC exploration's, with no monitor).
                None if monitor == MonitorKind::Graph && !by_bss.contains(&model) => {
                    let why =
                        crate::certainty::Why::stopped(&self.stop.budget).unwrap_or(crate::certainty::Why::Pending);
                    out.push(Robustness::found(
                        model,
                        MonitorKind::Graph,
                        Vec::new(),
                        Vec::new(),
                        Coverage::Stopped(why),
                    ));
                    continue;
                }
                settling => settling,
            };
            let mut unconfirmed = Vec::new();
            let mut violations = Vec::new();
            let mut groups: Vec<_> = groups.into_iter().collect();
            groups.sort_unstable_by_key(|&(key, _)| key);
            for (key, g) in groups {
                match g.v {
                    Some(mut v) => {
                        v.occurrences = g.occurrences;
                        violations.push(v);
                    }
                    None => unconfirmed.push(key),
                }
            }
            // What the model's own executions show that the monitor missed
            // (a witnessed violation either way); the answer is worth what
            // both explorations were.
            let mut coverage = sc;
            let mut missed = Vec::new();
            if let Some(k) = cross.iter().position(|rb| rb.model == model) {
                let own = cross.swap_remove(k);
                coverage = coverage.and(own.coverage);
                for v in own.violations {
                    if !violations.iter().any(|w: &Violation| w.key() == v.key()) {
                        missed.push(v.key());
                        violations.push(v);
                    }
                }
                missed.sort();
                // The model's own executions, explored to the end (within
                // the bounds), witness every violation there is: a signal
                // of the monitor they do not witness never happens.
                if own.coverage.finished() {
                    unconfirmed.clear();
                }
            }
            // Signals BSS could not witness, settled by the model's graphs
            // (the same pairs): witnessed there, or shown never to happen.
            if let Some(own) = on_graphs {
                coverage = coverage.and(own.coverage);
                // What the finished search did not witness never happens.
                let settled = own.coverage.finished();
                let left = own.unconfirmed.clone();
                for v in own.violations {
                    let key = v.key();
                    if violations.iter().any(|w: &Violation| w.key() == key) {
                        continue;
                    }
                    if !unconfirmed.contains(&key) {
                        missed.push(key);
                    }
                    violations.push(v);
                }
                unconfirmed.retain(|k| left.contains(k) || !settled && !violations.iter().any(|v| v.key() == *k));
                missed.sort();
            }
            violations.sort_by_key(|v: &Violation| v.key());
            // (`--monitor graph` where graphs do not apply: BSS rode.)
            let rode = if monitor == MonitorKind::Graph { MonitorKind::Bss } else { monitor };
            let mut rb = Robustness::found(model, rode, violations, unconfirmed, coverage);
            rb.missed_by_monitor = missed;
            out.push(rb);
        }
        out.append(&mut explicit);
        out.sort_by_key(|r| asked.iter().position(|&m| m == r.model));
        out
    }
}

/// What the SC exploration with the monitors measuring on the way shows
/// ([`Collector::measuring`]).
pub struct Measured {
    /// SC's outcome.
    pub sc: crate::outcome::ModelOutcome,
    /// Per relaxed model asked: its confirmed violations ([`Collector::finish`]).
    pub robustness: Vec<Robustness>,
    /// Which fences would remove what ([`Collector::premeasured`]).
    pub premeasured: Option<std::sync::Arc<crate::measure::Premeasured>>,
}

/// Explore a program's SC executions with the monitors for `models`
/// riding along, measuring fences on the way.
pub fn measured_robustness(prog: &Program, models: &[Model], monitor: MonitorKind, opts: &Options) -> Measured {
    measured_robustness_observed(prog, models, monitor, opts, |_| {})
}

/// [`measured_robustness`], handing every SC execution to `observer` too.
pub fn measured_robustness_observed(
    prog: &Program,
    models: &[Model],
    monitor: MonitorKind,
    opts: &Options,
    observer: impl FnMut(&crate::dpor::Execution<'_>),
) -> Measured {
    let mut c = Collector::new(prog, models, monitor, opts).measuring();
    let sc = c.run_observed(opts, observer);
    let premeasured = c.premeasured(sc.coverage).map(std::sync::Arc::new);
    let robustness = c.finish(sc.coverage);
    Measured { sc, robustness, premeasured }
}

/// The robustness of a program under one relaxed model, from its SC
/// executions (no harm, no fences).
/// Robustness from the model's own executions: its machine's (PSLO), or
/// its graphs for a model with no machine (a `.cat` file).
pub fn own_executions(prog: &Program, model: Model, opts: &Options) -> Robustness {
    own_executions_kept(prog, model, opts).0
}

/// [`own_executions`], and a model given as data's violating graphs, kept
/// to re-judge with fences ([`crate::graph::fenced`]).
pub fn own_executions_kept(
    prog: &Program,
    model: Model,
    opts: &Options,
) -> (Robustness, Option<std::sync::Arc<crate::graph::fenced::Kept>>) {
    if crate::explore::by_candidates(prog, model, opts) {
        return (crate::candidates::robustness(prog, model, opts), None);
    }
    if model.is_axiomatic() {
        let (r, kept) = crate::graph::axiomatic::robustness_kept(prog, model, opts);
        (r, Some(std::sync::Arc::new(kept)))
    } else {
        (crate::explicit::robustness(prog, model, opts), None)
    }
}

pub fn robustness_of(prog: &Program, model: Model, monitor: MonitorKind, opts: &Options) -> Robustness {
    let mut c = Collector::new(prog, &[model], monitor, opts);
    let sc = c.run(opts);
    c.finish(sc.coverage).pop().expect("one model asked, one answered")
}
