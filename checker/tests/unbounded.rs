//! The unbounded procedure (stateful SC search with Trencher's attacks)
//! against the bounded engine: whatever the bounded search finds is found,
//! and nothing proved robust has a bounded violation.

use litmus_checker::machine::Model;
use litmus_checker::outcome::Options;
use litmus_checker::unbounded::{self, Limits};
use litmus_checker::MonitorKind;
use std::path::Path;

fn files() -> Vec<std::path::PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut v = Vec::new();
    for dir in ["examples", "examples/relaxer", "examples/trencher", "tests/corpus/herd-x86"] {
        let Ok(rd) = std::fs::read_dir(root.join(dir)) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "litmus") {
                v.push(p);
            }
        }
    }
    v.sort();
    v
}

#[test]
fn survey() {
    let models = [Model::Sc, Model::Tso, Model::Pso];
    for f in files() {
        let src = std::fs::read_to_string(&f).unwrap();
        let a = litmus_dsl::analyze(&src);
        let Some(p) = a.program else { continue };
        let t = std::time::Instant::now();
        let opts = Options::default().with_timeout(Some(std::time::Duration::from_secs(5)));
        let u = unbounded::prove(&p, &models, &opts, &Limits::default());
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        match u {
            Err(s) => println!("{name:50} stop: {} ({ms:.1} ms)", s.describe()),
            Ok(pr) => {
                let bounded = litmus_checker::check_robustness(&p, &models, MonitorKind::Bss, &Options::default());
                let words: Vec<String> = pr
                    .robustness
                    .iter()
                    .map(|r| {
                        let b = bounded.robustness.iter().find(|b| b.model == r.model).unwrap();
                        format!(
                            "{} {}v/{}u (bounded {}v {:?})",
                            r.model.upper(),
                            r.violations.len(),
                            r.unconfirmed.len(),
                            b.violations.len(),
                            b.robust()
                        )
                    })
                    .collect();
                println!(
                    "{name:50} {:>7} states {:>8.1} ms  SC states {} fails {}  {}",
                    pr.states,
                    ms,
                    pr.sc.states.len(),
                    pr.sc.failures.len(),
                    words.join("  ")
                );
            }
        }
    }
}

#[test]
fn pairs() {
    let Ok(f) = std::env::var("PAIRS") else { return };
    let src = std::fs::read_to_string(&f).unwrap();
    let p = litmus_dsl::analyze(&src).program.unwrap();
    let models = [Model::Sc, Model::Tso, Model::Pso];
    let pr = unbounded::prove(&p, &models, &Options::default(), &Limits::default()).unwrap();
    let bounded = litmus_checker::check_robustness(&p, &models, MonitorKind::Bss, &Options::default());
    let show =
        |s: u32| format!("{}:{} `{}`", p.stmts[s as usize].line, p.stmts[s as usize].col, p.stmts[s as usize].text);
    for r in &pr.robustness {
        let b = bounded.robustness.iter().find(|b| b.model == r.model).unwrap();
        for v in &r.violations {
            let inb = b.violations.iter().any(|w| w.key() == v.key());
            println!(
                "{} attack {} -> {} {}  cycle: {}",
                r.model.upper(),
                show(v.store_stmt),
                show(v.access_stmt),
                if inb { "" } else { "(NEW)" },
                v.cycle
                    .iter()
                    .map(|c| format!("{} -{}->", show(c.stmt), c.edge.as_str()))
                    .collect::<Vec<_>>()
                    .join(" ")
            );
        }
        for w in &b.violations {
            if !r.violations.iter().any(|v| v.key() == w.key()) {
                println!("{} MISSING bounded {} -> {}", r.model.upper(), show(w.store_stmt), show(w.access_stmt));
            }
        }
    }
}

#[test]
fn explicit_probe() {
    use litmus_checker::dpor::{Control, Explorer, Limits as DLimits};
    use litmus_checker::machine::Machine;
    let Ok(f) = std::env::var("EXPLICIT") else { return };
    let lb: u32 = std::env::var("LB").ok().and_then(|s| s.parse().ok()).unwrap_or(2);
    let src = std::fs::read_to_string(&f).unwrap();
    let p = litmus_dsl::analyze(&src).program.unwrap();
    for model in [Model::Tso, Model::Pso] {
        let m = Machine::new(&p, model, lb, 16);
        let mut ex = Explorer::new(&m);
        let mut found = 0u64;
        ex.run(DLimits::default(), |e| {
            if litmus_checker::trace::has_cycle(e.events) {
                found += 1;
            }
            Control::Continue
        });
        println!(
            "{} lb {lb}: {} executions, {} cyclic, cut {}",
            model.upper(),
            ex.stats.executions,
            found,
            ex.stats.cut
        );
    }
}
