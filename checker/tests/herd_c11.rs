//! herd's C11 corpus (`tests/corpus/herd-c11/`, herd7's verdicts at
//! 5feffe4e with `-c11`): every test litmus reads gets herd7's
//! observation and state count under the project's own `rc11` model
//! (`models/rc11-lahav.cat`), under herd's stock `rc11.cat`, and under the
//! built-in SC (herd's `sc.cat` column), and herd7's data-race flag. The
//! tests litmus refuses are named, each with its reason.

mod common;

use litmus_checker::check::check;
use litmus_checker::machine::Model;
use litmus_checker::options::Options;

use common::cat;

/// Refused by name: (file, the diagnostic code, why).
const REFUSED: &[(&str, &str, &str)] = &[(
    "herdtools7__herd__tests__instructions__C__C17.litmus",
    "E0140",
    "Linux-kernel `atomic_t`, `ATOMIC_INIT` and `__atomic_add_unless{mb}`: the kernel's primitives, not C11",
)];

#[test]
fn c11_corpus_agrees_with_herd() {
    let own = Model::parse_in("rc11", &[]).expect("the rc11 model");
    assert_eq!(own.as_str(), "rc11");
    let stock = cat("rc11.cat");
    assert_eq!(stock.as_str(), "rc11.cat", "herd's file is named apart from the project's `rc11`");
    let opts = Options::default();
    let mut flagged = 0;
    let (checked, named, bad) = common::herd_corpus("herd-c11", REFUSED, |c, prog, bad| {
        assert_eq!(prog.dialect, litmus_ir::Dialect::HerdC);
        assert_eq!(litmus_checker::catalog::defaults_for(prog.dialect), [Model::Sc, own], "a C test's models");
        for (m, obs_col, states_col) in [(own, 4, 5), (stock, 4, 5), (Model::Sc, 6, 7)] {
            let out = &check(&prog, &[m], &opts)[0];
            bad.extend(common::herd_difference(c, m, out, obs_col, states_col));
            // herd7 flags a data race (`*undef*`) where some execution
            // RC11 allows has one; SC flags nothing.
            let raced = c[9].contains("undef") && m != Model::Sc;
            if out.flags.is_empty() == raced {
                bad.push(format!("{} {}: flags {:?}, herd {}", c[0], m.as_str(), out.flags, c[9]));
            }
            flagged += usize::from(!out.flags.is_empty());
        }
        // Robustness against SC (herd's column: the model plus `~acyclic po | rf | co | fr`).
        for m in [own, stock] {
            bad.extend(common::herd_robust_difference(c, m, &prog, 8));
        }
    });
    eprintln!("{checked} C tests checked under rc11, rc11.cat and sc; {flagged} flagged (a data race)");
    assert!(bad.is_empty(), "{} differences:\n{}", bad.len(), bad.join("\n"));
    assert_eq!((checked + named, named), (150, REFUSED.len()));
    assert!(flagged > 0);
}
