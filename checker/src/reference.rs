//! The reference explorer: explicit-state search over the operational
//! machine (commits as separate steps), with state hashing so each state is
//! explored once. No partial-order reduction: simple enough to trust, and
//! the oracle the DPOR explorer and the monitors are tested against.

use crate::certainty::Coverage;
use crate::machine::FailureKind;
use crate::machine::{Event, Machine, Model, State, ThreadStatus, Verdict};
use crate::options::Options;
use crate::outcome::{Final, FinalState, Observation, Witness};
use litmus_ir::{Program, StmtId};
use std::collections::{BTreeMap, HashMap};

#[derive(Clone, Debug)]
pub struct ReferenceOutcome {
    pub states: Vec<FinalState>,
    pub observation: Option<Observation>,
    pub failures: Vec<(u16, StmtId, FailureKind)>,
    pub deadlock: bool,
    /// Some final state's filter or condition divides by zero.
    pub condition_error: bool,
    pub complete: bool,
    pub visited: usize,
}

/// A state without the log indices it carries, which differ between paths.
pub fn canonical(st: &State) -> State {
    let mut c = st.clone();
    c.writer_mut().iter_mut().for_each(|w| *w = 0);
    for b in &mut c.bufs {
        for e in b.iter_mut() {
            e.store = 0;
            e.origin = 0;
        }
    }
    for h in &mut c.hist {
        for e in h.iter_mut() {
            e.writer = 0;
            e.origin = 0;
        }
    }
    c.shrunk_mut().iter_mut().for_each(|x| *x = 0);
    c
}

/// Replay a schedule from the initial state; the events it produces.
pub fn replay(m: &Machine<'_>, schedule: &[u32]) -> (State, Vec<Event>) {
    let mut log = Vec::new();
    let mut st = m.initial(&mut log);
    for (i, &p) in schedule.iter().enumerate() {
        if !m.enabled(&st, p as usize) {
            break;
        }
        m.step(&mut st, p as usize, i as u32, &mut log);
    }
    (st, log)
}

pub fn explore(prog: &Program, model: Model, opts: &Options, max_states: usize) -> ReferenceOutcome {
    let m = Machine::new(prog, model, opts.loop_bound, opts.buffer_bound);
    let mut log = Vec::new();
    let init = m.initial(&mut log);
    let mut ids: HashMap<State, u32> = HashMap::new();
    // Per state: (parent, proc) to rebuild a witness schedule.
    let mut parent: Vec<(u32, u32)> = Vec::new();
    let mut stack: Vec<(State, u32)> = Vec::new();
    ids.insert(canonical(&init), 0);
    parent.push((u32::MAX, u32::MAX));
    stack.push((init, 0));
    let mut finals: BTreeMap<Vec<i64>, (Option<bool>, u32)> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut deadlock = false;
    let mut complete = true;
    let mut condition_error = false;
    let procs = m.procs();
    while let Some((st, id)) = stack.pop() {
        for (thread, ts) in st.threads.iter().enumerate() {
            if let ThreadStatus::Failed { stmt, kind, .. } = *ts {
                if !failures.contains(&(thread as u16, stmt, kind)) {
                    failures.push((thread as u16, stmt, kind));
                }
            }
        }
        if !(0..procs).any(|p| m.enabled(&st, p)) {
            match m.verdict(&st) {
                Verdict::Complete => match Final::of(prog, &m, &st) {
                    Final::State { values, satisfies } => {
                        finals.entry(values).or_insert((satisfies, id));
                    }
                    Final::Undefined(_) => condition_error = true,
                    Final::Filtered => {}
                },
                Verdict::Cut => complete = false,
                Verdict::Pruned => deadlock |= m.deadlocked(&st),
                Verdict::Failed => {}
            }
            continue;
        }
        if st.buffer_bound_hit {
            complete = false;
        }
        for p in 0..procs {
            if !m.enabled(&st, p) {
                continue;
            }
            let mut next = st.clone();
            log.clear();
            m.step(&mut next, p, 0, &mut log);
            let key = canonical(&next);
            if ids.contains_key(&key) {
                continue;
            }
            if ids.len() >= max_states {
                complete = false;
                continue;
            }
            let nid = ids.len() as u32;
            ids.insert(key, nid);
            parent.push((id, p as u32));
            stack.push((next, nid));
        }
    }
    let states: Vec<FinalState> = finals
        .into_iter()
        .map(|(values, (satisfies, id))| {
            let mut schedule = Vec::new();
            let mut cur = id;
            while parent[cur as usize].0 != u32::MAX {
                schedule.push(parent[cur as usize].1);
                cur = parent[cur as usize].0;
            }
            schedule.reverse();
            let (_, events) = replay(&m, &schedule);
            FinalState { values, satisfies, witness: Witness { events, schedule } }
        })
        .collect();
    let coverage = if complete { Coverage::Complete } else { Coverage::Bounded(Default::default()) };
    let observation = Observation::of(prog, &states, coverage).and_then(|a| a.into_value());
    failures.sort();
    ReferenceOutcome { states, observation, failures, deadlock, condition_error, complete, visited: ids.len() }
}
