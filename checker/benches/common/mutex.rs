//! Mutual-exclusion harnesses: fenced Dekker and Peterson, 2 threads, each
//! entering its critical section `k` times. The shapes are those of
//! `../shared/bench/harnesses/{dekker,peterson}_f_kK.litmus` (C versions run
//! with GenMC and Nidhugg, whose AWAIT is a spin loop their spin-assume
//! transformation reduces); peer figures in `loops.rs`.

/// How a thread waits, and how its entries are counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// `await (c);`, entries by `for k in 0..K` (the peers' AWAIT).
    Await,
    /// Spin loops (Dekker: `let t = x; while (!c) { t = x; }`; Peterson:
    /// `while (!c) { }`), entries by `for k in 0..K`.
    Spin,
}

/// `wait(reg, cell, cond)`: wait until `cond` (over `reg`, a fresh read of `cell`) holds.
fn wait(style: Style, reg: &str, cell: &str, cond: &str, indent: &str) -> String {
    match style {
        Style::Await => format!("{indent}await ({});\n", cond.replace(reg, cell)),
        Style::Spin => format!(
            "{indent}let {reg} = {cell};\n{indent}while (!({cond})) {{\n{indent}  {reg} = {cell};\n{indent}}}\n"
        ),
    }
}

fn entries(k: u32, body: &str) -> String {
    format!("  for k in 0..{k} {{\n{body}  }}\n")
}

const HEAD: &str = "shared flag0 = 0;\nshared flag1 = 0;\nshared turn = 0;\nshared in_cs = 0;\n\n";

fn critical(other: u32) -> String {
    format!(
        "    let c = fetch_add(in_cs, 1);\n    assert (c == 0);\n    fetch_add(in_cs, -1);\n    turn = {other};\n    fence;\n"
    )
}

/// Fenced Dekker (`dekker_f_kK`'s shape).
pub fn dekker(k: u32, style: Style) -> String {
    let mut s = format!("litmus dekker_{style:?}_k{k}\n\n{HEAD}");
    for (me, other) in [(0, 1), (1, 0)] {
        let body = format!(
            "    flag{me} = 1;\n    fence;\n    if (flag{other} == 1) {{\n      if (turn != {me}) {{\n        flag{me} = 0;\n{}        flag{me} = 1;\n        fence;\n      }}\n{}    }}\n{}    flag{me} = 0;\n",
            wait(style, "t", "turn", &format!("t == {me}"), "        "),
            wait(style, "f", &format!("flag{other}"), "f == 0", "      "),
            critical(other),
        );
        s.push_str(&format!("thread P{me} {{\n{}}}\n\n", entries(k, &body)));
    }
    s
}

/// Fenced Peterson (`peterson_f_kK`'s shape).
pub fn peterson(k: u32, style: Style) -> String {
    let mut s = format!("litmus peterson_{style:?}_k{k}\n\n{HEAD}");
    for (me, other) in [(0, 1), (1, 0)] {
        let cond = format!("flag{other} == 0 || turn == {me}");
        let wait = match style {
            Style::Await => format!("    await ({cond});\n"),
            Style::Spin => format!("    while (!({cond})) {{ }}\n"),
        };
        let body = format!(
            "    flag{me} = 1;\n    fence;\n    turn = {other};\n    fence;\n{wait}    let c = fetch_add(in_cs, 1);\n    assert (c == 0);\n    fetch_add(in_cs, -1);\n    flag{me} = 0;\n"
        );
        s.push_str(&format!("thread P{me} {{\n{}}}\n\n", entries(k, &body)));
    }
    s
}
