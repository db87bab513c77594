//! `Prepared::allowed` allocates nothing once the shape is compiled (and
//! neither does `allowed_partial`): counted by a global allocator.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use common::{Graph, Rng, Style};
use litmus_cat::eval::Options;
use litmus_cat::stock;

struct Counting;

static ALLOCS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn allowed_allocates_nothing_in_the_steady_state() {
    let mut rng = Rng::new(9);
    let execs: Vec<_> = (0..50)
        .map(|_| {
            let threads = 1 + rng.below(4);
            Graph::random(&mut rng, threads, 6, 3, false).to_execution(Style::EXPLORER)
        })
        .collect();
    for name in ["x86tso", "sc-rmw", "x86pso", "x86tso-mixed"] {
        let mut p = stock::load(name).unwrap().prepare(&Options::default()).unwrap();
        // The first round compiles the shape and sizes the scratch arena.
        for x in &execs {
            p.allowed(x).unwrap();
            p.allowed_partial(x).unwrap();
        }
        let before = ALLOCS.load(Ordering::Relaxed);
        let mut allowed = 0;
        for x in &execs {
            allowed += p.allowed(x).unwrap() as usize;
            allowed += p.allowed_partial(x).unwrap() as usize;
        }
        assert_eq!(ALLOCS.load(Ordering::Relaxed) - before, 0, "{name}");
        assert!(allowed > 0);
    }
}
