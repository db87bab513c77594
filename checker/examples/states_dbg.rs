use litmus_checker::machine::Model;
use litmus_checker::outcome::{explore, Options};
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let model = match std::env::args().nth(2).as_deref() {
        Some("tso") => Model::Tso,
        Some("pso") => Model::Pso,
        _ => Model::Sc,
    };
    let src = std::fs::read_to_string(&path).unwrap();
    let prog = litmus_dsl::analyze(&src).program.unwrap();
    let o = explore(&prog, model, &Options::default());
    for s in &o.states {
        println!("state {:?} schedule {:?}", s.values, s.witness.schedule);
        for l in litmus_checker::narrate::lines(&prog, model, &s.witness.events) {
            println!("   {l}");
        }
    }
}
