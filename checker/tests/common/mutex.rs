//! Generated mutual-exclusion protocols, written several ways: Dekker's
//! (with and without its back-off), Peterson's, Burns's and the bare
//! "flag, then look" of issue 43's smallest case; each thread's entry inside
//! an outer `while (1)` or run once, waits as `await` or as spin loops
//! (nested in the retry loop or not), critical sections that count. The
//! threads of one program may be written differently. Seeded: the same
//! seed gives the same program.

#![allow(dead_code)]

/// A small deterministic generator (xorshift64*).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub fn coin(&mut self) -> bool {
        self.below(2) == 0
    }
}

/// `until (cell == v)`: an `await`, a spin loop that reads first, or one
/// that reads only in its body.
fn wait_eq(r: &mut Rng, reg: &str, cell: &str, v: i64, ind: &str) -> String {
    match r.below(3) {
        0 => format!("{ind}await ({cell} == {v});\n"),
        1 => format!("{ind}let {reg} = {cell};\n{ind}while ({reg} != {v}) {{\n{ind}  {reg} = {cell};\n{ind}}}\n"),
        _ => format!("{ind}let {reg} = {};\n{ind}while ({reg} != {v}) {{\n{ind}  {reg} = {cell};\n{ind}}}\n", 1 - v),
    }
}

fn critical(r: &mut Rng, i: usize, ind: &str) -> String {
    match r.below(3) {
        0 => String::new(),
        1 => format!("{ind}cs = {};\n", i + 1),
        // A toggle: a counter would grow without bound.
        _ => format!("{ind}let c{i} = cs;\n{ind}cs = 1 - c{i};\n"),
    }
}

/// Dekker's entry and exit for thread `i` of two (`j` the other).
fn dekker(r: &mut Rng, i: usize, ind: &str) -> String {
    let j = 1 - i;
    let mut s = format!("{ind}flag{i} = 1;\n{ind}let r{i} = flag{j};\n");
    let inner = format!("{ind}  ");
    let backoff = r.below(3);
    s += &format!("{ind}while (r{i} == 1) {{\n");
    match backoff {
        // The textbook back-off: give up the flag while it is not our turn.
        0 => {
            s += &format!("{inner}let t{i} = turn;\n{inner}if (t{i} != {i}) {{\n");
            s += &format!("{inner}  flag{i} = 0;\n");
            s += &wait_eq(r, &format!("w{i}"), "turn", i as i64, &format!("{inner}  "));
            s += &format!("{inner}  flag{i} = 1;\n{inner}}}\n");
        }
        // Back off only: drop the flag, wait for the turn, raise it again.
        1 => {
            s += &format!("{inner}flag{i} = 0;\n");
            s += &wait_eq(r, &format!("w{i}"), "turn", i as i64, &inner);
            s += &format!("{inner}flag{i} = 1;\n");
        }
        // No back-off: spin on the other's flag.
        _ => {}
    }
    s += &format!("{inner}r{i} = flag{j};\n{ind}}}\n");
    s += &critical(r, i, ind);
    s += &format!("{ind}turn = {j};\n{ind}flag{i} = 0;\n");
    s
}

/// Peterson's for thread `i` of two.
fn peterson(r: &mut Rng, i: usize, ind: &str) -> String {
    let j = 1 - i;
    let mut s = format!("{ind}flag{i} = 1;\n{ind}turn = {j};\n");
    if r.coin() {
        s += &format!("{ind}await (flag{j} == 0 || turn == {i});\n");
    } else {
        s += &format!(
            "{ind}let a{i} = flag{j};\n{ind}let b{i} = turn;\n{ind}while (a{i} == 1 && b{i} == {j}) {{\n{ind}  a{i} = flag{j};\n{ind}  b{i} = turn;\n{ind}}}\n"
        );
    }
    s += &critical(r, i, ind);
    s += &format!("{ind}flag{i} = 0;\n");
    s
}

/// Burns's (one-bit) for thread `i` of two: the lower index wins.
fn burns(r: &mut Rng, i: usize, ind: &str) -> String {
    let j = 1 - i;
    let inner = format!("{ind}  ");
    let mut s = String::new();
    if i == 0 {
        s += &format!("{ind}flag0 = 1;\n");
        s += &wait_eq(r, "u0", "flag1", 0, ind);
    } else {
        s += &format!("{ind}let g1 = 1;\n{ind}while (g1 == 1) {{\n{inner}flag1 = 0;\n");
        s += &wait_eq(r, "u1", "flag0", 0, &inner);
        s += &format!("{inner}flag1 = 1;\n{inner}g1 = flag0;\n{ind}}}\n");
    }
    s += &critical(r, i, ind);
    s += &format!("{ind}flag{i} = 0;\n");
    let _ = j;
    s
}

/// Issue 43's smallest shape: raise the flag, look, and then hand over the
/// turn, back off and wait, or lower the flag — each branch its own way.
fn look(r: &mut Rng, i: usize, ind: &str) -> String {
    let j = 1 - i;
    let inner = format!("{ind}  ");
    let mut s = format!("{ind}flag{i} = 1;\n{ind}let r{i} = flag{j};\n{ind}if (r{i} == 1) {{\n");
    match r.below(3) {
        0 => {}
        1 => {
            s += &format!("{inner}flag{i} = 0;\n");
            s += &wait_eq(r, &format!("w{i}"), "turn", i as i64, &inner);
        }
        _ => {
            s += &format!("{inner}flag{i} = 0;\n");
            s += &wait_eq(r, &format!("w{i}"), "turn", i as i64, &inner);
            s += &format!("{inner}flag{i} = 1;\n");
        }
    }
    s += &format!("{ind}}} else {{\n");
    match r.below(4) {
        0 => {}
        1 => s += &format!("{inner}turn = {j};\n"),
        2 => s += &format!("{inner}flag{i} = 0;\n"),
        _ => {
            s += &critical(r, i, &inner);
            s += &format!("{inner}turn = {j};\n{inner}flag{i} = 0;\n");
        }
    }
    s += &format!("{ind}}}\n");
    s
}

/// One generated protocol: its source, and a name saying how it was made.
pub fn program(seed: u64) -> (String, String) {
    let mut r = Rng::new(seed);
    let mut src = format!("litmus M{seed}\nshared turn = 0, flag0 = 0, flag1 = 0, cs = 0;\n");
    let mut name = Vec::new();
    // Mostly one protocol for both threads; sometimes each its own.
    let both = r.below(4);
    for i in 0..2 {
        let kind = if i == 1 && r.below(4) == 0 { r.below(4) } else { both };
        let outer = r.below(3) != 0;
        let ind = if outer { "    " } else { "  " };
        let body = match kind {
            0 => dekker(&mut r, i, ind),
            1 => peterson(&mut r, i, ind),
            2 => burns(&mut r, i, ind),
            _ => look(&mut r, i, ind),
        };
        name.push(format!(
            "{}{}",
            ["dekker", "peterson", "burns", "look"][kind as usize],
            if outer { "*" } else { "" }
        ));
        src += &format!("thread t{i} {{\n");
        if outer {
            src += &format!("  while (1) {{\n{body}  }}\n");
        } else {
            src += &body;
        }
        src += "}\n";
    }
    src += "exists (cs == 0);\n";
    (name.join("+"), src)
}
