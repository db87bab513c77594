//! A candidate's construction: its cat events ([`Layout`]), the parts rf
//! and co do not change ([`skeleton`]), coherence from each cell's order of
//! writes, and the candidate written as a log ([`witness`]). The search and
//! the replay of a witness build candidates alike, from here.

use super::regs;
use super::thread::{Joint, Kind, Run};
use crate::machine::{Event, EventKind, ATOMIC_READ, NONE};
use crate::outcome::Witness;
use litmus_cat::eval::{Execution, Rel, Set, MAX_EVENTS};
use litmus_ir::Program;

/// The cat events of one candidate.
pub(super) struct Layout {
    pub n: usize,
    /// Per thread, per event: its cat events (read, write; equal if one).
    pub of: Vec<Vec<(usize, usize)>>,
    /// Per cell: its initial write's event, if the cell is accessed.
    pub iw: Vec<Option<usize>>,
    /// Per thread, for a model that computes its dependencies: its run's
    /// register events (numbered from `reg_base`).
    pub micro: Vec<std::rc::Rc<regs::Micro>>,
    pub reg_base: Vec<usize>,
}

impl Layout {
    /// The access (thread, statement) whose cat event `e` is; `None` for an
    /// initial write or a register event.
    pub fn access(&self, runs: &[&Run], e: usize) -> Option<(u16, litmus_ir::StmtId)> {
        self.of.iter().enumerate().find_map(|(t, evs)| {
            evs.iter().position(|&(r, w)| r == e || w == e).map(|i| (t as u16, runs[t].events[i].stmt))
        })
    }
}

/// The cat events of one choice of runs: initial writes of the cells
/// they touch, each run's events, then `micro`'s register events (one per
/// thread, for a model that computes its dependencies, else none).
/// `Err(n)`: `n` events, past those a model is evaluated on.
pub(super) fn layout(prog: &Program, runs: &[&Run], micro: Vec<std::rc::Rc<regs::Micro>>) -> Result<Layout, usize> {
    let cells = prog.init.len();
    let mut touched = vec![false; cells];
    for e in runs.iter().flat_map(|r| &r.events) {
        if !matches!(e.kind, Kind::Fence(_)) {
            touched[e.cell as usize] = true;
        }
    }
    let mut n = 0usize;
    let mut iw = vec![None; cells];
    for (c, _) in touched.iter().enumerate().filter(|(_, &t)| t) {
        iw[c] = Some(n);
        n += 1;
    }
    let mut of = Vec::with_capacity(runs.len());
    for r in runs {
        let mut mine = Vec::with_capacity(r.events.len());
        for e in &r.events {
            let k = if e.kind == Kind::Update && !prog.dialect.rmw_is_one_event() { 2 } else { 1 };
            mine.push((n, n + k - 1));
            n += k;
        }
        of.push(mine);
    }
    let mut reg_base = Vec::new();
    for m in &micro {
        reg_base.push(n);
        n += m.evs.len();
    }
    if n > MAX_EVENTS {
        return Err(n);
    }
    Ok(Layout { n, of, iw, micro, reg_base })
}

/// The parts of a candidate that rf and co do not change.
pub(super) fn skeleton(prog: &Program, catdep: bool, runs: &[&Run], lay: &Layout) -> Execution {
    let n = lay.n;
    // Every name a model may read is bound, empty or not: the event
    // kinds, every label's set and every fence's tag.
    let mut sets: std::collections::BTreeMap<String, Set> = Default::default();
    for k in
        ["F", "IW", "R", "W"].into_iter().chain(litmus_ir::Labels::all_names()).chain(litmus_ir::FenceKind::all_tags())
    {
        sets.insert(k.into(), 0);
    }
    // Looked up by `&str` first: `entry` would allocate a key per event.
    let mut add = |k: &str, e: usize| match sets.get_mut(k) {
        Some(s) => *s |= 1 << e,
        None => {
            sets.insert(k.into(), 1 << e);
        }
    };
    let mut loc: Vec<Set> = vec![0; prog.init.len()];
    for (c, e) in lay.iw.iter().enumerate() {
        if let Some(e) = *e {
            add("IW", e);
            add("W", e);
            loc[c] |= 1 << e;
        }
    }
    let mut rels: std::collections::BTreeMap<&str, Rel> = [
        "po",
        "int",
        "loc",
        "same-instance",
        "addr",
        "data",
        "ctrl",
        "pick-addr",
        "pick-data",
        "pick-ctrl",
        "iico_data",
        "iico_ctrl",
        "iico_order",
        "rf-reg",
    ]
    .into_iter()
    .map(|k| (k, Rel::empty(n)))
    .collect();
    let mut sm_classes: Vec<Set> = Vec::new();
    for (t, r) in runs.iter().enumerate() {
        let of = &lay.of[t];
        let mut thread: Set = 0;
        for (i, e) in r.events.iter().enumerate() {
            let (a, b) = of[i];
            for k in a..=b {
                thread |= 1 << k;
            }
            match e.kind {
                Kind::Fence(f) => {
                    // Its own tag, and its sets' (a native `fence` is
                    // `Fence.rw.rw` to a RISC-V model).
                    add("F", a);
                    add(f.tag(), a);
                    add(f.sets().tag(), a);
                }
                Kind::Read => add("R", a),
                Kind::AtomicRead => {
                    add("R", a);
                    add("X", a);
                }
                Kind::Write => add("W", a),
                // One event in R and W (a RISC-V AMO), or two of one instruction.
                Kind::Update => {
                    add("R", a);
                    add("W", b);
                    add("X", a);
                    add("X", b);
                    let si = rels.get_mut("same-instance").expect("made");
                    si.0[a] |= 1 << b;
                    si.0[b] |= 1 << a;
                }
            }
            for l in e.labels.names() {
                add(l, a);
                add(l, b);
            }
            if !matches!(e.kind, Kind::Fence(_)) {
                loc[e.cell as usize] |= (1 << a) | (1 << b);
            }
            // Dependencies: from each read they name to this event.
            let dep = |mask: u64, rel: &mut Rel, targets: &[usize]| {
                let mut m = mask;
                while m != 0 {
                    let j = m.trailing_zeros() as usize;
                    m &= m - 1;
                    for &tg in targets {
                        rel.0[of[j].0] |= 1 << tg;
                    }
                }
            };
            let both = if a == b { vec![a] } else { vec![a, b] };
            dep(e.addr, rels.get_mut("addr").expect("made"), &both);
            if e.writes() {
                dep(e.data, rels.get_mut("data").expect("made"), &[b]);
            }
            dep(e.ctrl, rels.get_mut("ctrl").expect("made"), &both);
            dep(e.pick[0], rels.get_mut("pick-addr").expect("made"), &both);
            if e.writes() {
                dep(e.pick[1], rels.get_mut("pick-data").expect("made"), &[b]);
            }
            dep(e.pick[2], rels.get_mut("pick-ctrl").expect("made"), &both);
        }
        // A pair instruction's two accesses: one instance, ordered
        // inside it only as the instruction says (`iico_order`), and
        // one single-copy-atomic access where exclusive (herd's `sm`).
        let cat_events = |i: usize| of[i].0..=of[i].1;
        let mut instance = vec![0usize; of.len()];
        for (i, e) in r.events.iter().enumerate().skip(1) {
            instance[i] = if e.joint == Joint::No { i } else { instance[i - 1] };
            if e.joint == Joint::No {
                continue;
            }
            let (prev, me) = (cat_events(i - 1), cat_events(i));
            let mine: Set = me.clone().fold(0, |m, k| m | 1 << k);
            let theirs: Set = prev.clone().fold(0, |m, k| m | 1 << k);
            let si = rels.get_mut("same-instance").expect("made");
            for k in prev.clone() {
                si.0[k] |= mine;
            }
            for k in me.clone() {
                si.0[k] |= theirs;
            }
            let order = rels.get_mut("iico_order").expect("made");
            match e.joint {
                Joint::After => order.0[of[i - 1].1] |= 1 << of[i].0,
                Joint::Before => order.0[of[i].1] |= 1 << of[i - 1].0,
                _ => {}
            }
            if e.labels.contains(litmus_ir::Labels::EX) {
                sm_classes.push(theirs | mine);
            }
        }
        if catdep {
            continue; // po and int over every event: `registers`
        }
        // po: each instruction's events before every later one's.
        let po = rels.get_mut("po").expect("made");
        for i in 0..of.len() {
            let mut later: Set = 0;
            for (j, &(a, b)) in of.iter().enumerate().skip(i + 1) {
                if instance[j] == instance[i] {
                    continue;
                }
                for k in a..=b {
                    later |= 1 << k;
                }
            }
            for k in of[i].0..=of[i].1 {
                po.0[k] = later;
            }
        }
        let int = rels.get_mut("int").expect("made");
        let mut m = thread;
        while m != 0 {
            let k = m.trailing_zeros() as usize;
            m &= m - 1;
            int.0[k] |= thread;
        }
    }
    if catdep {
        registers(lay, &mut sets, &mut rels);
    }
    for m in loc {
        let mut k = m;
        while k != 0 {
            let e = k.trailing_zeros() as usize;
            k &= k - 1;
            rels.get_mut("loc").expect("made").0[e] |= m;
        }
    }
    for k in ["same-instance", "int"] {
        for (e, row) in rels.get_mut(k).expect("made").0.iter_mut().enumerate() {
            *row |= 1 << e;
        }
    }
    if !sm_classes.is_empty() {
        // herd's `sm` (and `si`): the identity on memory events, and
        // each exclusive pair's two accesses.
        let mem = sets["R"] | sets["W"];
        let mut sm = Rel::empty(n);
        for (e, row) in sm.0.iter_mut().enumerate() {
            if mem >> e & 1 == 1 {
                *row |= 1 << e;
            }
        }
        for class in sm_classes {
            let mut k = class;
            while k != 0 {
                let e = k.trailing_zeros() as usize;
                k &= k - 1;
                sm.0[e] |= class;
            }
        }
        rels.insert("si", sm.clone());
        rels.insert("sm", sm);
    }
    let mut x = Execution::new(n).absent(prog.dialect.system_sets().iter().copied());
    x.sets = sets;
    x.rels = rels.into_iter().map(|(k, r)| (k.to_string(), r)).collect();
    x.rels.insert("rf".into(), Rel::empty(n));
    x.rels.insert("co".into(), Rel::empty(n));
    x
}

/// The register events of a model that computes its dependencies
/// ([`regs`]): their sets, `iico`, `rf-reg`, each register a location
/// of its thread, and `po`, `int`, `same-instance` over every event by
/// the instruction it belongs to.
fn registers(
    lay: &Layout,
    sets: &mut std::collections::BTreeMap<String, Set>,
    rels: &mut std::collections::BTreeMap<&str, Rel>,
) {
    use regs::{Node, RegKind};
    for k in ["Rreg", "Wreg", "ADDR", "DATA", "B", "BCC", "PRED"] {
        sets.entry(k.into()).or_insert(0);
    }
    for (t, m) in lay.micro.iter().enumerate() {
        let base = lay.reg_base[t];
        let of = &lay.of[t];
        let cat = |n: Node| match n {
            Node::Mem { event, write } => {
                let (a, b) = of[event as usize];
                if write {
                    b
                } else {
                    a
                }
            }
            Node::Reg(i) => base + i as usize,
        };
        // Every event of the thread with its instruction.
        let mut all: Vec<(usize, u32)> = Vec::new();
        for (j, &(a, b)) in of.iter().enumerate() {
            all.push((a, m.mem_step[j]));
            if b != a {
                all.push((b, m.mem_step[j]));
            }
        }
        let mut by_reg: std::collections::BTreeMap<regs::RegId, Vec<usize>> = Default::default();
        // The last write of each register so far (events are in program order).
        let mut last: std::collections::HashMap<regs::RegId, usize> = Default::default();
        for (i, e) in m.evs.iter().enumerate() {
            let c = base + i;
            all.push((c, e.step));
            let mut add = |k: &str| *sets.get_mut(k).expect("made") |= 1 << c;
            match e.kind {
                RegKind::Read(r) => {
                    add("Rreg");
                    by_reg.entry(r).or_default().push(c);
                    if let Some(&w) = last.get(&r) {
                        rels.get_mut("rf-reg").expect("made").0[w] |= 1 << c;
                    }
                }
                RegKind::Write(r) => {
                    add("Wreg");
                    by_reg.entry(r).or_default().push(c);
                    last.insert(r, c);
                }
                RegKind::Commit { branch } => {
                    add("B");
                    add(if branch { "BCC" } else { "PRED" });
                }
                RegKind::Nothing => {}
            }
            if e.addr {
                add("ADDR");
            }
            if e.data {
                add("DATA");
            }
        }
        for (k, edges) in [("iico_data", &m.iico_data), ("iico_ctrl", &m.iico_ctrl), ("iico_order", &m.iico_order)] {
            let r = rels.get_mut(k).expect("made");
            for &(a, b) in edges {
                r.0[cat(a)] |= 1 << cat(b);
            }
        }
        let loc = rels.get_mut("loc").expect("made");
        for evs in by_reg.values() {
            let mask: Set = evs.iter().fold(0, |m, &e| m | 1 << e);
            for &e in evs {
                loc.0[e] |= mask;
            }
        }
        let thread: Set = all.iter().fold(0, |m, &(e, _)| m | 1 << e);
        for &(a, sa) in &all {
            let (mut later, mut same): (Set, Set) = (0, 0);
            for &(b, sb) in &all {
                if sb > sa {
                    later |= 1 << b;
                } else if sb == sa {
                    same |= 1 << b;
                }
            }
            rels.get_mut("po").expect("made").0[a] = later;
            rels.get_mut("same-instance").expect("made").0[a] |= same;
            rels.get_mut("int").expect("made").0[a] |= thread;
        }
    }
}

/// Coherence: each cell of `cells`, its initial write, then its writes in
/// the order `perms` gives.
pub(super) fn co_of(lay: &Layout, cells: &[usize], perms: &[Vec<usize>]) -> Rel {
    let mut co = Rel::empty(lay.n);
    for (k, &c) in cells.iter().enumerate() {
        let iw = lay.iw[c].expect("accessed");
        let mut later: Set = 0;
        for &w in perms[k].iter().rev() {
            co.0[w] |= later;
            later |= 1 << w;
        }
        co.0[iw] |= later;
    }
    co
}

/// The candidate as a log (see the module doc).
pub(super) fn witness(
    runs: &[&Run],
    lay: &Layout,
    cells: &[usize],
    perms: &[Vec<usize>],
    readers: &[(usize, usize, Vec<usize>)],
    rf_pick: &[usize],
) -> Witness {
    let mut events: Vec<Event> = Vec::new();
    let mut schedule: Vec<u32> = Vec::new();
    // Per cat write event: the log event a read of it names.
    let mut named: std::collections::HashMap<usize, u32> = Default::default();
    let mut store_at: std::collections::HashMap<usize, u32> = Default::default();
    let mut read_at: Vec<Vec<u32>> = Vec::new();
    for (t, r) in runs.iter().enumerate() {
        let mut mine = Vec::new();
        for (i, e) in r.events.iter().enumerate() {
            let at = events.len() as u32;
            mine.push(at);
            let ev = |kind, value, old, store| Event {
                thread: t as u16,
                kind,
                cell: if matches!(e.kind, Kind::Fence(_)) { NONE } else { e.cell },
                value,
                old,
                stmt: e.stmt,
                rf: NONE,
                store,
                step: at,
            };
            events.push(match e.kind {
                Kind::Fence(f) => ev(EventKind::Fence(f), 0, 0, NONE),
                Kind::Read => ev(EventKind::Load, e.old, 0, NONE),
                Kind::AtomicRead => ev(EventKind::Load, e.old, 0, ATOMIC_READ),
                Kind::Write => {
                    store_at.insert(lay.of[t][i].1, at);
                    ev(EventKind::Store, e.value, 0, NONE)
                }
                Kind::Update => {
                    named.insert(lay.of[t][i].1, at);
                    ev(EventKind::Rmw, e.value, e.old, NONE)
                }
            });
            schedule.push(t as u32);
        }
        read_at.push(mine);
    }
    // Commits, each cell's in coherence order (an update's too: its
    // coherence position, which its place among the threads' is not).
    for (k, _) in cells.iter().enumerate() {
        for w in &perms[k] {
            if let Some(&u) = named.get(w) {
                let mut c = events[u as usize];
                c.kind = EventKind::Commit;
                c.store = u;
                c.step = events.len() as u32;
                schedule.push(c.thread as u32);
                events.push(c);
            } else if let Some(&s) = store_at.get(w) {
                let at = events.len() as u32;
                let mut c = events[s as usize];
                c.kind = EventKind::Commit;
                c.store = s;
                c.step = at;
                events.push(c);
                schedule.push(c.thread as u32);
                named.insert(*w, at);
            }
        }
    }
    for (k, (t, i, from)) in readers.iter().enumerate() {
        let at = read_at[*t][*i] as usize;
        events[at].rf = named.get(&from[rf_pick[k]]).copied().unwrap_or(NONE);
    }
    Witness { events, schedule }
}

/// The next permutation in lexicographic order; `false` (and sorted
/// again) after the last.
pub(super) fn next_permutation(v: &mut [usize]) -> bool {
    if v.len() < 2 {
        return false;
    }
    let mut i = v.len() - 1;
    while i > 0 && v[i - 1] >= v[i] {
        i -= 1;
    }
    if i == 0 {
        v.reverse();
        return false;
    }
    let mut j = v.len() - 1;
    while v[j] <= v[i - 1] {
        j -= 1;
    }
    v.swap(i - 1, j);
    v[i..].reverse();
    true
}

/// The next choice of an odometer: `pick[k]` counts below `size(k)`, the
/// first digit fastest; `false` (all zero again) past the last.
pub(super) fn next_pick(pick: &mut [usize], size: impl Fn(usize) -> usize) -> bool {
    for (k, p) in pick.iter_mut().enumerate() {
        *p += 1;
        if *p < size(k) {
            return true;
        }
        *p = 0;
    }
    false
}
