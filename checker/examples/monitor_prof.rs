use litmus_checker::machine::Model;
use litmus_checker::outcome::Options;
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let mode = std::env::args().nth(2).unwrap_or_default();
    let lb: u32 = std::env::args().nth(3).and_then(|s| s.parse().ok()).unwrap_or(3);
    let pb: Option<u32> = std::env::args().nth(4).and_then(|s| s.parse().ok());
    let src = std::fs::read_to_string(&path).unwrap();
    let prog = litmus_dsl::analyze(&src).program.unwrap();
    let o = Options { preemption_bound: pb, loop_bound: lb, ..Options::default() };
    let t = std::time::Instant::now();
    let execs;
    let reps: usize = std::env::var("REPS").ok().and_then(|s| s.parse().ok()).unwrap_or(1);
    for _ in 1..reps {
        if mode == "mon" {
            let mut c = litmus_checker::robust::Collector::new(
                &prog,
                &[Model::Tso, Model::Pso],
                litmus_checker::MonitorKind::Bss,
                lb,
            );
            c.run(&o);
        } else {
            litmus_checker::outcome::explore(&prog, Model::Sc, &o);
        }
    }
    if mode == "mon" {
        let mut c = litmus_checker::robust::Collector::new(
            &prog,
            &[Model::Tso, Model::Pso],
            litmus_checker::MonitorKind::Bss,
            lb,
        );
        let out = c.run(&o);
        execs = out.stats.executions;
        let v = c.finish();
        println!(
            "violations {:?} unconfirmed {:?}",
            v.iter().map(|x| x.1.len()).collect::<Vec<_>>(),
            v.iter().map(|x| x.2).collect::<Vec<_>>()
        );
    } else {
        execs = litmus_checker::outcome::explore(&prog, Model::Sc, &o).stats.executions;
    }
    println!("{execs} executions in {:?}", t.elapsed());
}
