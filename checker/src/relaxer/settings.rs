//! The knobs of active testing.

/// The knobs of active testing (the paper's defaults where it has them).
#[derive(Clone, Debug)]
pub struct Settings {
    /// Phase I: random SC runs to predict from.
    pub sc_runs: u32,
    /// Phase II: steered runs per predicted cycle and model.
    pub trials: u32,
    pub seed: u64,
    /// P: the chance of delaying a store, pausing before a load, or (PSLO)
    /// reading the oldest value, at a statement of the cycle.
    pub probability: f64,
    /// Longest predicted cycle, in events (even, 4..=16). `None`: grow by
    /// itself, shortest first, up to 2 × threads (a cycle visits each
    /// thread once, with two events) — as far as `max_cycles` allows.
    pub cycle_length: Option<usize>,
    /// Logical ticks a thread pauses before a load or atomic (PSO).
    pub delay_load: u64,
    /// Logical ticks a delayed store stays in its buffer (> `delay_load`).
    pub delay_store: u64,
    /// Transitions per run before it is cut.
    pub max_steps: u64,
    /// Predicted cycles kept at most.
    pub max_cycles: usize,
    /// Also predict the cycles only a model with load histories (PSLO)
    /// needs, whose pair to reorder is not where the cycle enters or leaves
    /// its thread: entering at a write and going on in program order to a
    /// later read of the same cell (PSLO reorders a load that read its own
    /// thread's write past a later one), or leaving at an access po-after
    /// the pair (the pair reordered around an atomic). [`run`] predicts
    /// them, for such models only, from the same SC runs.
    ///
    /// [`run`]: super::run
    pub history_links: bool,
}

/// The longest cycle a program's threads can make: two events in each.
pub fn longest_cycle(threads: usize) -> usize {
    (2 * threads).clamp(4, 16)
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            sc_runs: 100,
            trials: 30,
            seed: 0,
            probability: 0.5,
            cycle_length: None,
            delay_load: 8,
            delay_store: 16,
            max_steps: 100_000,
            max_cycles: 5_000,
            history_links: false,
        }
    }
}
