use litmus_checker::machine::Model;
use litmus_checker::outcome::{explore, Options};
fn main() {
    for path in std::env::args().skip(1) {
        let src = std::fs::read_to_string(&path).unwrap();
        let a = litmus_dsl::analyze(&src);
        let Some(prog) = a.program else {
            println!("{path}: errors");
            continue;
        };
        for m in [Model::Sc, Model::Tso, Model::Pso] {
            let o = explore(&prog, m, &Options::default());
            let fails: Vec<String> = o
                .failures
                .iter()
                .map(|f| format!("{}@{}", prog.threads[f.thread as usize].name, prog.stmts[f.stmt as usize].line))
                .collect();
            println!("{path} {:?}: obs {:?} states {} fails {:?} deadlocks {} complete {} execs {} sleepblocked {} pruned {} trans {} {:?}",
                m, o.observation.map(|x| x.as_str()), o.states.len(), fails, o.deadlocks.len(), o.complete, o.stats.executions, o.stats.sleep_blocked, o.stats.pruned, o.stats.transitions, o.elapsed);
        }
    }
}
#[allow(dead_code)]
fn unused() {}
