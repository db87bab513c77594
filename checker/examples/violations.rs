use litmus_checker::{check_all, Model, MonitorKind, Options};
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let monitor = match std::env::var("MON").as_deref() {
        Ok("sober") => MonitorKind::Sober,
        Ok("paper") => MonitorKind::BssInterleaving,
        _ => MonitorKind::Bss,
    };
    let pb: Option<u32> = std::env::var("PB").ok().and_then(|s| s.parse().ok());
    for path in args {
        let src = std::fs::read_to_string(&path).unwrap();
        let prog = litmus_dsl::analyze(&src).program.unwrap();
        let opts = Options { preemption_bound: pb, ..Options::default() };
        let r = check_all(&prog, Some(&src), &[Model::Sc, Model::Tso, Model::Pso], monitor, &opts);
        for rb in &r.robustness {
            println!(
                "{path} {:?}: {} violations ({} unconfirmed), fences {:?} confirmed {}",
                rb.model,
                rb.violations.len(),
                rb.unconfirmed,
                rb.fences
                    .iter()
                    .map(|f| format!(
                        "{}@{}:{} {:?}",
                        prog.threads[f.thread as usize].name,
                        prog.stmts[f.stmt as usize].end_line,
                        prog.stmts[f.stmt as usize].end_col,
                        f.kind
                    ))
                    .collect::<Vec<_>>(),
                rb.fences_confirmed
            );
            if std::env::var("V").is_ok() {
                for v in &rb.violations {
                    let cyc: Vec<String> = v
                        .cycle
                        .iter()
                        .map(|c| {
                            format!(
                                "{}:{} `{}` -{}->",
                                prog.threads[c.thread as usize].name,
                                prog.stmts[c.stmt as usize].line,
                                prog.stmts[c.stmt as usize].text,
                                c.edge.as_str()
                            )
                        })
                        .collect();
                    println!(
                        "   {} harmful={} occ={}  {}",
                        prog.stmts[v.store_stmt as usize].text,
                        v.harm.is_harmful(),
                        v.occurrences,
                        cyc.join(" ")
                    );
                }
            }
        }
    }
}
