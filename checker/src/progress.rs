//! How far a running check has got, for whoever shows it (the CLI's bar,
//! the server's `$/progress`): the phase, the model it concerns and the
//! executions explored so far. The checker only writes atomics; it knows
//! nothing of terminals or protocols. Readers poll [`Progress::snapshot`]
//! and word it with [`Snapshot::message`], so both front ends say the same.
//!
//! Searches count into a [`Tally`] of their own and add to the shared
//! counter every [`BATCH`] executions (and when the tally is dropped), so
//! parallel workers do not contend on one cache line per execution.

use crate::machine::Model;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;

/// Executions a search counts before it adds them to the shared counter.
pub const BATCH: u64 = 64;

/// What the check is doing now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Nothing reported yet.
    Starting,
    /// SC exploration with the monitors riding along (PSLO: its own
    /// executions searched for cycles).
    Violations,
    /// Harm of each violation from its own continuations.
    Harm,
    /// Minimal fences and their re-checks.
    Fences,
    /// A relaxed model's outcomes (which also settle harm).
    Outcomes,
    /// Active testing (RELAXER) past the exhaustive budget.
    Active,
    /// The unbounded procedure's stateful search (SC states and attacks, or
    /// a relaxed model's own states): counted in states, not executions.
    Proving,
}

impl Phase {
    const ALL: [Phase; 7] = [
        Phase::Starting,
        Phase::Violations,
        Phase::Harm,
        Phase::Fences,
        Phase::Outcomes,
        Phase::Active,
        Phase::Proving,
    ];

    /// The phase as users read it: "executions and monitors", "harm".
    pub fn words(self) -> &'static str {
        match self {
            Phase::Starting => "starting",
            Phase::Violations => "executions and monitors",
            Phase::Harm => "harm",
            Phase::Fences => "fences",
            Phase::Outcomes => "outcomes",
            Phase::Active => "active testing",
            Phase::Proving => "every iteration",
        }
    }
}

/// No model (a phase over several at once).
const NO_MODEL: u32 = 0xff;

/// The shared progress of one check. Phase and model live in one atomic so
/// a reader never sees one phase with another's model.
#[derive(Debug)]
pub struct Progress {
    /// Phase index in the low byte, model index (or [`NO_MODEL`]) above it.
    phase: AtomicU32,
    executions: AtomicU64,
    /// States of the unbounded procedure's searches.
    states: AtomicU64,
}

impl Default for Progress {
    fn default() -> Self {
        Progress { phase: AtomicU32::new(NO_MODEL << 8), executions: AtomicU64::new(0), states: AtomicU64::new(0) }
    }
}

/// One reading of a [`Progress`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Snapshot {
    pub phase: Phase,
    pub model: Option<Model>,
    pub executions: u64,
    /// States of the unbounded procedure so far.
    pub states: u64,
}

impl Progress {
    pub fn new() -> Arc<Progress> {
        Arc::new(Progress::default())
    }

    /// The check entered `phase`, about `model` if it concerns one.
    pub fn enter(&self, phase: Phase, model: Option<Model>) {
        let p = Phase::ALL.iter().position(|&q| q == phase).unwrap_or(0) as u32;
        let m = model.map_or(NO_MODEL, Model::code);
        self.phase.store(p | (m << 8), Ordering::Relaxed);
    }

    /// Name `model` as the one being explored, if the check is in `phase`
    /// (a step shared by several phases names its model only in its own).
    pub fn model_within(&self, phase: Phase, model: Model) {
        if self.snapshot().phase == phase {
            self.enter(phase, Some(model));
        }
    }

    /// Add `n` executions (a search's batch).
    pub fn add(&self, n: u64) {
        if n > 0 {
            self.executions.fetch_add(n, Ordering::Relaxed);
        }
    }

    pub fn executions(&self) -> u64 {
        self.executions.load(Ordering::Relaxed)
    }

    /// Add `n` states (the unbounded procedure's searches).
    pub fn add_states(&self, n: u64) {
        self.states.fetch_add(n, Ordering::Relaxed);
    }

    pub fn snapshot(&self) -> Snapshot {
        let v = self.phase.load(Ordering::Relaxed);
        Snapshot {
            phase: Phase::ALL.get((v & 0xff) as usize).copied().unwrap_or(Phase::Starting),
            model: Model::from_code(v >> 8),
            executions: self.executions(),
            states: self.states.load(Ordering::Relaxed),
        }
    }
}

impl Snapshot {
    /// "TSO: outcomes · 12,345 executions", "active testing · 0 executions".
    pub fn message(&self) -> String {
        let phase = match self.model {
            Some(m) => format!("{}: {}", m.upper(), self.phase.words()),
            None => self.phase.words().to_string(),
        };
        if self.phase == Phase::Proving {
            let noun = if self.states == 1 { "state" } else { "states" };
            return format!("{phase} · {} {noun}", thousands(self.states));
        }
        let noun = if self.executions == 1 { "execution" } else { "executions" };
        format!("{phase} · {} {noun}", thousands(self.executions))
    }
}

/// 12345 → "12,345".
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Enter `phase` if `progress` is there (the check's options may have none).
pub fn enter(progress: &Option<Arc<Progress>>, phase: Phase, model: Option<Model>) {
    if let Some(p) = progress {
        p.enter(phase, model);
    }
}

/// One search's count, added to the shared [`Progress`] in batches and in
/// full when dropped (so the shared count is exact once a search is over).
#[derive(Debug, Default)]
pub struct Tally {
    progress: Option<Arc<Progress>>,
    unsent: u64,
}

impl Tally {
    pub fn new(progress: Option<Arc<Progress>>) -> Tally {
        Tally { progress, unsent: 0 }
    }

    /// One more execution.
    #[inline]
    pub fn one(&mut self) {
        if self.progress.is_some() {
            self.unsent += 1;
            if self.unsent >= BATCH {
                self.flush();
            }
        }
    }

    /// Add what is counted and not yet sent.
    pub fn flush(&mut self) {
        if let Some(p) = &self.progress {
            p.add(std::mem::take(&mut self.unsent));
        }
    }
}

impl Drop for Tally {
    fn drop(&mut self) {
        self.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phase_and_model_round_trip() {
        let p = Progress::new();
        assert_eq!(p.snapshot(), Snapshot { phase: Phase::Starting, model: None, executions: 0, states: 0 });
        for phase in Phase::ALL {
            for model in [None, Some(Model::Sc), Some(Model::Tso), Some(Model::Pso), Some(Model::Pslo)] {
                p.enter(phase, model);
                let s = p.snapshot();
                assert_eq!((s.phase, s.model), (phase, model));
            }
        }
    }

    #[test]
    fn messages_name_model_phase_and_count() {
        let s = Snapshot { phase: Phase::Outcomes, model: Some(Model::Tso), executions: 12_345, states: 7 };
        assert_eq!(s.message(), "TSO: outcomes · 12,345 executions");
        let s = Snapshot { phase: Phase::Active, model: None, executions: 1, states: 7 };
        assert_eq!(s.message(), "active testing · 1 execution");
        let s = Snapshot { phase: Phase::Proving, model: Some(Model::Sc), executions: 3, states: 1_234 };
        assert_eq!(s.message(), "SC: every iteration · 1,234 states");
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }

    #[test]
    fn a_tally_sends_in_batches_and_all_when_dropped() {
        let p = Progress::new();
        let mut t = Tally::new(Some(p.clone()));
        for _ in 0..BATCH - 1 {
            t.one();
        }
        assert_eq!(p.executions(), 0, "nothing sent before a batch is full");
        t.one();
        assert_eq!(p.executions(), BATCH);
        t.one();
        drop(t);
        assert_eq!(p.executions(), BATCH + 1);
    }
}
