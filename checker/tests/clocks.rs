//! The monitors read SC happens-before off the explorer's transition clocks
//! (`clocks.rs`): for every event the explorer hands its listener, and every
//! earlier event of another thread, "happens before" read that way equals
//! the event-level vector clocks of `hb.rs` (po ∪ rf ∪ co ∪ fr), on every
//! example and corpus file and on generated programs with atomics, awaits,
//! locks and spin loops, with and without a preemption bound.

mod common;

use litmus_checker::clocks::Clocks;
use litmus_checker::dpor::EventListener;
use litmus_checker::explore::explore_listened;
use litmus_checker::hb::Hb;
use litmus_checker::machine::{Event, Model};
use litmus_checker::options::Options;
use proptest::prelude::*;

/// Pushes every event into an `Hb` and compares the two readings.
struct Compare {
    hb: Hb,
    events: u64,
    mismatch: Option<String>,
}

impl EventListener for Compare {
    fn on_events(&mut self, log: &[Event], from: usize, clocks: Clocks<'_>) {
        for i in from..log.len() {
            self.hb.push(log, i);
            self.events += 1;
            let g = &log[i];
            for (j, f) in log[..i].iter().enumerate() {
                let by_hb = self.hb.before(log, j as u32, i as u32);
                let by_clocks = if f.thread == g.thread {
                    true // program order
                } else {
                    clocks.place(f) <= 2 * clocks.at(g, f.thread as usize)
                };
                if by_hb != by_clocks && self.mismatch.is_none() {
                    self.mismatch =
                        Some(format!("event {j} ({f:?}) before {i} ({g:?}): hb {by_hb}, clocks {by_clocks}"));
                }
            }
        }
    }

    fn on_truncate(&mut self, len: usize) {
        self.hb.truncate(len);
    }
}

fn agree(prog: &litmus_ir::Program, opts: &Options) -> Result<u64, String> {
    let mut c = Compare { hb: Hb::new(prog.threads.len(), prog.mem_size()), events: 0, mismatch: None };
    explore_listened(prog, Model::Sc, opts, &mut c, |_| {});
    match c.mismatch {
        Some(m) => Err(m),
        None => Ok(c.events),
    }
}

#[test]
fn transition_clocks_are_sc_happens_before_on_examples_and_corpus() {
    let mut events = 0;
    for (name, src) in common::corpus_and_example_sources() {
        let Some(prog) = litmus_dsl::analyze(&src).program else { continue };
        for pb in [None, Some(1)] {
            let opts = Options { loop_bound: 2, preemption_bound: pb, ..Options::default() };
            events += agree(&prog, &opts).unwrap_or_else(|e| panic!("{name} (preemption bound {pb:?}): {e}"));
        }
    }
    assert!(events > 10_000, "the comparison saw {events} events");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn transition_clocks_are_sc_happens_before_on_generated_programs(
        threads in common::blocking_program(2..4, 1..5),
        fenced in common::program(2..4, 1..5, true),
    ) {
        for t in [threads, fenced] {
            let src = common::render(&t);
            let prog = common::compile(&src);
            let r = agree(&prog, &Options { loop_bound: 2, ..Options::default() });
            prop_assert!(r.is_ok(), "{}\n{src}", r.unwrap_err());
        }
    }
}
