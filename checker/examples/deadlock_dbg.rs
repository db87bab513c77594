use litmus_checker::machine::Model;
use litmus_checker::outcome::{explore, Options};
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let src = std::fs::read_to_string(&path).unwrap();
    let prog = litmus_dsl::analyze(&src).program.unwrap();
    let o = explore(&prog, Model::Sc, &Options::default());
    for w in &o.deadlocks {
        println!("deadlock witness schedule {:?}", w.schedule);
        for e in &w.events {
            println!(
                "  {} {:?} {} = {} ({})",
                prog.threads[e.thread as usize].name,
                e.kind,
                if e.cell == u32::MAX { "-".into() } else { prog.cell_name(e.cell) },
                e.value,
                prog.stmts[e.stmt as usize].text
            );
        }
    }
}
