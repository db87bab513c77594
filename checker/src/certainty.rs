//! What an answer is worth. Every claim the checker makes — an observation,
//! "robust", "benign", "the fences work" — is one of three answers:
//!
//! - *proved*: the search that decides it finished and nothing was cut (or
//!   a witness execution proves it outright);
//! - *within bounds*: the search finished, but some executions were cut by
//!   the loop, preemption or buffer bound (which, and how many, is kept);
//! - *unknown*: the search stopped early (timeout, cancel) or a monitor
//!   signal could not be confirmed.
//!
//! An unknown answer carries no value at all, so nothing can print
//! "robust" or "never" without having earned it. The words users read are
//! written once, for the CLI and the language server alike, in
//! `litmus_present::words`.

use crate::budget::Budget;
use crate::dpor::Stats;

/// What bounds cut from a search that otherwise finished.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Cuts {
    /// Executions stopped by the loop bound.
    pub loop_bound: u64,
    /// Branches of the search not explored because of the preemption bound.
    pub preemption_bound: u64,
    /// Executions in which a store waited for room in a full buffer.
    pub buffer_bound: u64,
}

impl Cuts {
    pub fn is_empty(&self) -> bool {
        *self == Cuts::default()
    }

    /// What two searches cut, as one claim: per bound, the larger count —
    /// "the loop bound cut N executions" then holds of at least one of them
    /// (a sum would count a search shared by both claims twice).
    pub fn max(self, o: Cuts) -> Cuts {
        Cuts {
            loop_bound: self.loop_bound.max(o.loop_bound),
            preemption_bound: self.preemption_bound.max(o.preemption_bound),
            buffer_bound: self.buffer_bound.max(o.buffer_bound),
        }
    }

    /// "the loop bound cut 12 executions; the preemption bound skipped 3 branches".
    pub fn describe(&self) -> String {
        let plural = |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let mut parts = Vec::new();
        if self.loop_bound > 0 {
            parts.push(format!("the loop bound cut {}", plural(self.loop_bound, "execution", "executions")));
        }
        if self.preemption_bound > 0 {
            parts.push(format!("the preemption bound skipped {}", plural(self.preemption_bound, "branch", "branches")));
        }
        if self.buffer_bound > 0 {
            parts.push(format!(
                "the buffer bound held back stores in {}",
                plural(self.buffer_bound, "execution", "executions")
            ));
        }
        parts.join("; ")
    }
}

/// Why an answer is unknown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Why {
    /// The deadline passed first.
    Timeout,
    /// The cancel flag was set (the editor moved on).
    Cancelled,
    /// Monitor signals for which no witness replayed (statement pairs).
    Unconfirmed(u64),
    /// Not decided yet: a later phase of the check decides it.
    Pending,
    /// Only tested actively (RELAXER): this many steered runs found no
    /// violation, which proves nothing.
    Tested(u64),
    /// `--first`: the check stopped at its first finding (a failing
    /// assertion or a witnessed violation); the rest was not searched.
    First,
    /// An exploration spent its work budget (this many steps: `--work`).
    Work(u64),
    /// A graph had this many events, more than the cat evaluator takes.
    TooManyEvents(u32),
    /// The model (a `.cat` file) failed to evaluate a graph: its
    /// diagnostic is [`crate::catalog::error`]'s.
    ModelError(crate::catalog::CatId),
    /// Robustness under a model that allows a `po ∪ rf` cycle: its
    /// candidates are explored for outcomes only, not judged for SC yet.
    Undecided,
    /// The program has a store-conditional, which the model's machine does
    /// not run, and the model has no definition as data.
    StoreConditional,
    /// Repairs under this model are not searched yet (a model its whole
    /// candidate executions decide).
    NoRepairs,
    /// Executions compared across two models, one of which is a machine
    /// with no definition as data (TSO, PSO): its `.cat` file answers.
    NoDefinition,
}

impl Why {
    /// Why a check with this budget stopped, if it did.
    pub fn stopped(budget: &Budget) -> Option<Why> {
        if budget.stopped() && budget.cancelled() {
            Some(Why::Cancelled)
        } else if budget.late() {
            Some(Why::Timeout)
        } else if budget.found() {
            Some(Why::First)
        } else {
            None
        }
    }

    pub fn describe(&self) -> String {
        match *self {
            Why::Timeout => "timed out".into(),
            Why::Cancelled => "cancelled".into(),
            Why::Unconfirmed(n) => {
                format!("{n} monitor signal{} without a replayable witness", if n == 1 { "" } else { "s" })
            }
            Why::Pending => "not decided yet".into(),
            Why::Tested(n) => format!("no violation found in {n} active run{}", if n == 1 { "" } else { "s" }),
            Why::First => "stopped at the first finding".into(),
            Why::Work(0) => "its work budget ran out".into(),
            Why::Work(n) => format!("its work budget ran out ({} steps)", crate::progress::thousands(n)),
            Why::TooManyEvents(n) => {
                format!("a graph had {n} events, past the {} a cat model is evaluated on", litmus_cat::eval::MAX_EVENTS)
            }
            Why::ModelError(id) => {
                format!("the model failed on a graph: {}", crate::catalog::error(id).unwrap_or_default())
            }
            Why::Undecided => "not decided under a model that allows load buffering: outcomes only, for now".into(),
            Why::StoreConditional => {
                "the program has a store-conditional (`sc`) or a pair instruction, which this model's machine does not run".into()
            }
            Why::NoRepairs => "no repair is searched under this model yet".into(),
            Why::NoDefinition => {
                "executions are compared by models given as data, and a machine has none (for TSO give x86tso.cat)"
                    .into()
            }
        }
    }

    /// The JSON word: `timeout`, `cancelled`, `unconfirmed`, `pending`, `unchecked`, `tested`, `first`, `work`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Why::Timeout => "timeout",
            Why::Cancelled => "cancelled",
            Why::Unconfirmed(_) => "unconfirmed",
            Why::Pending => "pending",
            Why::Tested(_) => "tested",
            Why::First => "first",
            Why::Work(_) => "work",
            Why::TooManyEvents(_) => "too-many-events",
            Why::ModelError(_) => "model-error",
            Why::Undecided => "undecided",
            Why::StoreConditional => "unsupported",
            Why::NoRepairs => "no-repairs",
            Why::NoDefinition => "no-definition",
        }
    }
}

/// How far a search went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Coverage {
    /// Finished, nothing cut.
    Complete,
    /// Finished, some executions cut by bounds.
    Bounded(Cuts),
    /// Stopped early.
    Stopped(Why),
}

impl Coverage {
    pub fn of_stats(s: &Stats) -> Coverage {
        if let Some(u) = s.unjudged {
            Coverage::Stopped(match u {
                crate::catalog::Unjudged::TooManyEvents(n) => Why::TooManyEvents(n),
                crate::catalog::Unjudged::ModelError(id) => Why::ModelError(id),
                crate::catalog::Unjudged::NoDefinition => Why::StoreConditional,
            })
        } else if s.cancelled {
            Coverage::Stopped(Why::Cancelled)
        } else if s.first {
            Coverage::Stopped(Why::First)
        } else if let Some(n) = s.work_cut {
            Coverage::Stopped(Why::Work(n))
        } else if s.timed_out {
            Coverage::Stopped(Why::Timeout)
        } else {
            Coverage::from_cuts(Cuts {
                loop_bound: s.cut,
                preemption_bound: s.preemption_skips,
                buffer_bound: s.buffer_waits,
            })
        }
    }

    pub fn from_cuts(c: Cuts) -> Coverage {
        if c.is_empty() {
            Coverage::Complete
        } else {
            Coverage::Bounded(c)
        }
    }

    /// Both searches' worth: the weaker of the two (cuts: the larger count
    /// per bound).
    pub fn and(self, o: Coverage) -> Coverage {
        match (self, o) {
            (Coverage::Stopped(w), _) | (_, Coverage::Stopped(w)) => Coverage::Stopped(w),
            (Coverage::Bounded(a), Coverage::Bounded(b)) => Coverage::Bounded(a.max(b)),
            (Coverage::Bounded(a), Coverage::Complete) | (Coverage::Complete, Coverage::Bounded(a)) => {
                Coverage::Bounded(a)
            }
            (Coverage::Complete, Coverage::Complete) => Coverage::Complete,
        }
    }

    pub fn finished(&self) -> bool {
        !matches!(self, Coverage::Stopped(_))
    }

    /// `value` as earned by this search.
    pub fn answer<T>(self, value: T) -> Answer<T> {
        match self {
            Coverage::Complete => Answer::Proved(value),
            Coverage::Bounded(c) => Answer::WithinBounds(value, c),
            Coverage::Stopped(w) => Answer::Unknown(w),
        }
    }

    pub fn certainty(&self) -> Certainty {
        match self {
            Coverage::Complete => Certainty::Proved,
            Coverage::Bounded(_) => Certainty::WithinBounds,
            Coverage::Stopped(_) => Certainty::Unknown,
        }
    }

    /// "proved", "within bounds (the loop bound cut 3 executions)", "unknown (timed out)".
    pub fn qualifier(&self) -> String {
        match self {
            Coverage::Complete => "proved".into(),
            Coverage::Bounded(c) => format!("within bounds: {}", c.describe()),
            Coverage::Stopped(w) => format!("unknown: {}", w.describe()),
        }
    }
}

/// How far an answer reaches through the program's loops: the bounded
/// engine's answers hold up to the loop bound (unless nothing was cut),
/// the unbounded procedure's (`crate::unbounded`) for every iteration.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Iterations {
    /// From the bounded engine; the unbounded procedure was not run for it.
    #[default]
    Bounded,
    /// Proved for every iteration and interleaving: the stateful search
    /// closed after this many states (`loops`: the program has loops, so
    /// this says more than a bounded search could).
    Every { states: u64, loops: bool },
    /// The unbounded procedure could not decide it (why, in words); the
    /// answer is the bounded engine's.
    Fallback(String),
}

impl Iterations {
    pub fn every(&self) -> bool {
        matches!(self, Iterations::Every { .. })
    }

    /// The JSON word: `every`, `bounded`, `fallback`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Iterations::Bounded => "bounded",
            Iterations::Every { .. } => "every",
            Iterations::Fallback(_) => "fallback",
        }
    }

    /// "proved for every iteration (1,234 states)", "proved (56 states)";
    /// the fallback's reason; nothing for the bounded engine's own answers.
    pub fn describe(&self) -> Option<String> {
        match self {
            Iterations::Bounded => None,
            Iterations::Every { states, loops: true } => {
                Some(format!("proved for every iteration ({} states)", crate::progress::thousands(*states)))
            }
            Iterations::Every { states, loops: false } => {
                Some(format!("proved ({} states)", crate::progress::thousands(*states)))
            }
            Iterations::Fallback(r) => Some(r.clone()),
        }
    }

    /// Why the unbounded procedure did not decide it, if it was tried.
    pub fn reason(&self) -> Option<&str> {
        match self {
            Iterations::Fallback(r) => Some(r),
            _ => None,
        }
    }
}

/// The three answers, without their details: what JSON calls `certainty`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Certainty {
    Proved,
    WithinBounds,
    Unknown,
}

impl Certainty {
    pub fn as_str(self) -> &'static str {
        match self {
            Certainty::Proved => "proved",
            Certainty::WithinBounds => "within-bounds",
            Certainty::Unknown => "unknown",
        }
    }
}

/// A claim and what it is worth. An unknown answer has no value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer<T> {
    Proved(T),
    WithinBounds(T, Cuts),
    Unknown(Why),
}

impl<T> Answer<T> {
    pub fn value(&self) -> Option<&T> {
        match self {
            Answer::Proved(v) | Answer::WithinBounds(v, _) => Some(v),
            Answer::Unknown(_) => None,
        }
    }

    pub fn into_value(self) -> Option<T> {
        match self {
            Answer::Proved(v) | Answer::WithinBounds(v, _) => Some(v),
            Answer::Unknown(_) => None,
        }
    }

    pub fn coverage(&self) -> Coverage {
        match self {
            Answer::Proved(_) => Coverage::Complete,
            Answer::WithinBounds(_, c) => Coverage::Bounded(*c),
            Answer::Unknown(w) => Coverage::Stopped(*w),
        }
    }

    pub fn certainty(&self) -> Certainty {
        self.coverage().certainty()
    }

    pub fn is_known(&self) -> bool {
        self.value().is_some()
    }

    /// Holds this value (proved or within bounds).
    pub fn is(&self, v: &T) -> bool
    where
        T: PartialEq,
    {
        self.value() == Some(v)
    }

    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Answer<U> {
        match self {
            Answer::Proved(v) => Answer::Proved(f(v)),
            Answer::WithinBounds(v, c) => Answer::WithinBounds(f(v), c),
            Answer::Unknown(w) => Answer::Unknown(w),
        }
    }

    pub fn as_ref(&self) -> Answer<&T> {
        match self {
            Answer::Proved(v) => Answer::Proved(v),
            Answer::WithinBounds(v, c) => Answer::WithinBounds(v, *c),
            Answer::Unknown(w) => Answer::Unknown(*w),
        }
    }

    /// "proved", "within bounds: …", "unknown: …".
    pub fn qualifier(&self) -> String {
        self.coverage().qualifier()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_weaker_search_decides() {
        let cut = Coverage::Bounded(Cuts { loop_bound: 2, ..Cuts::default() });
        assert_eq!(Coverage::Complete.and(Coverage::Complete), Coverage::Complete);
        assert_eq!(Coverage::Complete.and(cut), cut);
        // One search behind two claims is not counted twice.
        assert_eq!(cut.and(cut), cut);
        let other = Coverage::Bounded(Cuts { preemption_bound: 3, ..Cuts::default() });
        assert_eq!(cut.and(other), Coverage::Bounded(Cuts { loop_bound: 2, preemption_bound: 3, buffer_bound: 0 }));
        assert_eq!(cut.and(Coverage::Stopped(Why::Timeout)), Coverage::Stopped(Why::Timeout));
        assert_eq!(Coverage::Stopped(Why::Cancelled).answer(true), Answer::Unknown(Why::Cancelled));
        assert_eq!(Coverage::Stopped(Why::Timeout).answer(true).value(), None);
    }

    #[test]
    fn qualifiers_name_the_bound_and_the_count() {
        let c = Cuts { loop_bound: 1, preemption_bound: 3, buffer_bound: 0 };
        assert_eq!(
            Coverage::Bounded(c).qualifier(),
            "within bounds: the loop bound cut 1 execution; the preemption bound skipped 3 branches"
        );
        assert_eq!(
            Answer::<bool>::Unknown(Why::Unconfirmed(2)).qualifier(),
            "unknown: 2 monitor signals without a replayable witness"
        );
    }
}
