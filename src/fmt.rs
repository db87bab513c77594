//! `litmus fmt`: rewrite files in the canonical layout (as `rustfmt` or
//! `gofmt` do), or with `--check` only say which would change. A file with
//! errors is left as it is and its errors are shown: the layout of a file
//! that does not parse is not defined.

use crate::suite::walk::expand;
use std::io::Read;

#[derive(clap::Args)]
pub struct FmtArgs {
    /// Files or folders (their `.litmus` files); `-` reads standard input
    /// and writes the result to standard output.
    #[arg(required = true)]
    pub paths: Vec<String>,
    /// Change nothing: list the files whose layout differs and exit 1 if any does.
    #[arg(long)]
    pub check: bool,
}

pub fn run(args: &FmtArgs) -> u8 {
    let mut code = 0;
    if args.paths.iter().any(|p| p == "-") {
        if args.paths.len() > 1 {
            eprintln!("error: `-` (standard input) cannot be mixed with paths");
            return 2;
        }
        let mut src = String::new();
        if let Err(e) = std::io::stdin().read_to_string(&mut src) {
            eprintln!("error: reading standard input: {e}");
            return 2;
        }
        return match formatted("<stdin>", &src) {
            Some(out) if args.check && out != src => {
                println!("<stdin>");
                1
            }
            Some(_) if args.check => 0,
            Some(out) => {
                print!("{out}");
                0
            }
            None => 1,
        };
    }
    for entry in expand(&args.paths) {
        if let Some(e) = entry.error {
            eprintln!("error: {}: {e}", entry.path);
            code = code.max(2);
            continue;
        }
        // A regular file only (a FIFO named here would wait for a writer
        // for good), in UTF-8.
        let src = match crate::check::read_regular(&entry.path)
            .and_then(|b| String::from_utf8(b).map_err(|_| format!("`{}` is not valid UTF-8", entry.path)))
        {
            Ok(s) => s,
            Err(e) => {
                eprintln!("error: {e}");
                code = code.max(2);
                continue;
            }
        };
        let Some(out) = formatted(&entry.path, &src) else {
            code = code.max(1);
            continue;
        };
        if out == src {
            continue;
        }
        if args.check {
            println!("{}", entry.path);
            code = code.max(1);
        } else if let Err(e) = std::fs::write(&entry.path, out) {
            eprintln!("error: {}: {e}", entry.path);
            code = code.max(2);
        }
    }
    code
}

/// The layout of one file, or its errors printed and `None`.
fn formatted(path: &str, src: &str) -> Option<String> {
    let out = litmus_dsl::format(src);
    if out.is_none() {
        let a = litmus_dsl::analyze(src);
        eprint!("{}", litmus_dsl::diagnostic::render(&a.diagnostics, path, src, false));
        eprintln!("{path}: not formatted (it has errors)");
    }
    out
}
