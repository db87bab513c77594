//! Debug aid: analyse files, print diagnostics, and with DUMP=1 the IR.
fn main() {
    let mut bad = 0;
    for path in std::env::args().skip(1) {
        let src = std::fs::read_to_string(&path).unwrap();
        let a = litmus_dsl::analyze(&src);
        if !a.diagnostics.is_empty() {
            print!("{}", litmus_dsl::diagnostic::render(&a.diagnostics, &path, &src, false));
        }
        if a.program.is_none() {
            bad += 1;
        }
        if std::env::var("DUMP").is_ok() {
            if let Some(p) = &a.program {
                for t in &p.threads {
                    println!("thread {} regs {:?}", t.name, t.regs.iter().map(|r| &r.name).collect::<Vec<_>>());
                    for (i, ins) in t.code.iter().enumerate() {
                        println!("  {i:3} {ins:?}");
                    }
                }
                println!("cond {:?}\nobs {:?}", p.condition, p.observables);
                for s in &p.stmts {
                    println!("  stmt {:?}", s);
                }
            }
        }
    }
    println!("files without a program: {bad}");
}
