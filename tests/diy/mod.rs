//! diy-style test generation (the way herd's diy7 builds a catalogue): a
//! cycle of threads, each with two accesses in program order (optionally
//! fenced), joined by communication edges on one location each — `Rfe`
//! (a write read by the next thread), `Fre` (a read before the next
//! thread's write), `Wse` (a write before the next thread's write). The
//! final condition is the state that closes the cycle; SC never shows it,
//! TSO and PSO sometimes do. Shared by the suite tests and the suite bench.

/// The communication edge from thread i's second access to thread i+1's first.
#[derive(Clone, Copy, Debug)]
pub enum Com {
    Rfe,
    Fre,
    Wse,
}

/// A small deterministic generator (xorshift), so suites are reproducible.
pub struct Rng(pub u64);

impl Rng {
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// The test of a cycle: `coms[i]` joins thread i to thread i+1 (mod n),
/// `fenced[i]` puts a fence between thread i's accesses. The test is named
/// diy-style by its edges (`PodWR+Fre+…`).
pub fn cycle(coms: &[Com], fenced: &[bool]) -> String {
    let n = coms.len();
    let loc = |i: usize| format!("x{}", i % n);
    // Thread i's first access is on location i-1 (it ends edge i-1), its
    // second on location i (it starts edge i).
    let mut threads = Vec::new();
    let mut cond = Vec::new();
    let mut name = Vec::new();
    for i in 0..n {
        let into = coms[(i + n - 1) % n];
        let out = coms[i];
        let mut body = String::new();
        // First access: the end of the incoming edge.
        match into {
            Com::Rfe => {
                body += &format!("  let r0 = {};\n", loc(i + n - 1));
                cond.push(format!("P{i}:r0 == 1"));
            }
            Com::Fre => body += &format!("  {} = 1;\n", loc(i + n - 1)),
            Com::Wse => {
                body += &format!("  {} = 2;\n", loc(i + n - 1));
                cond.push(format!("{} == 2", loc(i + n - 1)));
            }
        }
        let first_is_read = matches!(into, Com::Rfe);
        if fenced[i] {
            body += "  fence;\n";
        }
        // Second access: the start of the outgoing edge.
        match out {
            Com::Rfe | Com::Wse => body += &format!("  {} = 1;\n", loc(i)),
            Com::Fre => {
                body += &format!("  let r1 = {};\n", loc(i));
                cond.push(format!("P{i}:r1 == 0"));
            }
        }
        let second_is_read = matches!(out, Com::Fre);
        let kinds = format!("{}{}", if first_is_read { "R" } else { "W" }, if second_is_read { "R" } else { "W" });
        name.push(format!("{}d{kinds}", if fenced[i] { "MFence" } else { "Po" }));
        name.push(format!("{out:?}"));
        threads.push(format!("thread P{i} {{\n{body}}}\n"));
    }
    let shared: Vec<String> = (0..n).map(|i| format!("{} = 0", loc(i))).collect();
    let name = name.join("+");
    format!("litmus {name}\nshared {};\n{}exists ({});\n", shared.join(", "), threads.join(""), cond.join(" && "))
}

/// A random cycle of 2 to `max_threads` threads.
pub fn random(rng: &mut Rng, max_threads: u64) -> String {
    let n = 2 + rng.below(max_threads - 1) as usize;
    let coms: Vec<Com> = (0..n).map(|_| [Com::Rfe, Com::Fre, Com::Wse][rng.below(3) as usize]).collect();
    let fenced: Vec<bool> = (0..n).map(|_| rng.below(3) == 0).collect();
    cycle(&coms, &fenced)
}
