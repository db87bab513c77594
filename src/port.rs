//! `litmus port FILE --from A --to B`: what moving a program from the model
//! it was written for (`A`) to another (`B`) changes — whether every
//! execution `B` allows is one `A` allows (robustness against `A`), with
//! an execution that shows otherwise, and the final states each allows
//! that the other does not ([`litmus_checker::port`]).

use crate::check::{load_one, options, Bounds};
use crate::Format;
use litmus_checker::port::Port;
use litmus_checker::Answer;
use litmus_present::{narrate, porting, words};

#[derive(clap::Args)]
pub struct PortArgs {
    pub file: String,
    /// The model the program was written for (`tso`, `sc`, a `.cat` file:
    /// executions are compared by models given as data, so TSO as
    /// `x86tso.cat`).
    #[arg(long)]
    pub from: String,
    /// The model it is moved to (`aarch64`, `riscv`, `rc11`, a `.cat` file).
    #[arg(long)]
    pub to: String,
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    #[command(flatten)]
    pub bounds: Bounds,
}

pub fn run(args: &PortArgs) -> u8 {
    let (models, l) = match load_one(&[args.from.clone(), args.to.clone()], &args.bounds, &args.file) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let [from, to] = models[..] else {
        eprintln!("error: `--from` and `--to` name one model each");
        return 2;
    };
    let prog = l.analysis.program.as_ref().expect("load_one returns analysed files");
    let p = litmus_checker::port::port(prog, from, to, &options(&args.bounds));
    match args.format {
        Format::Json => println!("{}", json(prog, &p, &args.file)),
        Format::Human => print!("{}", human(prog, &p, &args.file)),
    }
    match p.executions {
        Answer::Proved(true) | Answer::WithinBounds(true, _) => 0,
        Answer::Proved(false) | Answer::WithinBounds(false, _) => 1,
        Answer::Unknown(_) => 3,
    }
}

fn human(prog: &litmus_ir::Program, p: &Port, path: &str) -> String {
    let mut s =
        format!("{path} — {} ({}), from {} to {}\n", prog.name, prog.dialect.as_str(), p.from.upper(), p.to.upper());
    for (indent, line) in porting::lines(prog, p) {
        let pad = ["  ", "    ", "      "][indent.min(2)];
        s.push_str(&format!("{pad}{line}\n"));
    }
    s
}

fn json(prog: &litmus_ir::Program, p: &Port, path: &str) -> serde_json::Value {
    let (word, how) = porting::verdict(p);
    let states = |o: &litmus_checker::ModelOutcome, at: &[usize]| -> Vec<serde_json::Value> {
        at.iter()
            .map(|&i| {
                let st = &o.states[i];
                serde_json::json!({ "state": words::state(prog, &st.values), "condition": st.satisfies })
            })
            .collect()
    };
    serde_json::json!({
        "file": path,
        "test": prog.name,
        "from": p.from.as_str(),
        "to": p.to.as_str(),
        "robust": match word { "robust" => Some(true), "not robust" => Some(false), _ => None },
        "robust_certainty": match &p.executions {
            Answer::Proved(_) => "proved",
            Answer::WithinBounds(..) => "within-bounds",
            Answer::Unknown(_) => "unknown",
        },
        "robust_note": (how != "proved").then_some(how),
        "witness": p.witness.as_ref().map(|w| narrate::lines(prog, p.to, &w.events)),
        "gained": states(&p.to_outcome, &p.gained),
        "lost": states(&p.from_outcome, &p.lost),
        "outcomes_complete": p.outcomes_complete(),
    })
}
