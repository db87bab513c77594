use litmus_checker::hb::Hb;
use litmus_checker::machine::Model;
use litmus_checker::monitor::{bss, Forcing};
use litmus_checker::outcome::{explore_with, Options};
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let model = if std::env::args().nth(2).as_deref() == Some("tso") { Model::Tso } else { Model::Pso };
    let src = std::fs::read_to_string(&path).unwrap();
    let prog = litmus_dsl::analyze(&src).program.unwrap();
    explore_with(&prog, Model::Sc, &Options::default(), |e| {
        let hb = Hb::of(e.events, prog.threads.len());
        let mut raws = vec![];
        let f = if std::env::var("PAPER").is_ok() { Forcing::Interleaving } else { Forcing::Causal };
        let sober = std::env::var("SOBER").is_ok();
        if sober {
            litmus_checker::monitor::sober(&prog, e.events, &hb, &mut |r| raws.push(r));
        } else {
            bss(&prog, model, f, e.events, &hb, &mut |r| raws.push(r));
        }
        for r in raws {
            println!("SC exec:");
            for l in litmus_checker::narrate::lines(&prog, Model::Sc, e.events) {
                println!("    {l}");
            }
            println!("  raw {:?} upto {:?}", r, hb.pre(e.events, r.access));
            let upto = if sober { hb.clock(r.prev).to_vec() } else { hb.pre(e.events, r.access) };
            let w = litmus_checker::witness::build(&prog, model, 2, e.events, &hb, &upto, r.store, r.access);
            match w {
                Some(w) => {
                    println!("  witness ok");
                    for l in litmus_checker::narrate::lines(&prog, model, &w.events) {
                        println!("    {l}");
                    }
                }
                None => println!("  witness FAILED"),
            }
        }
    });
}
