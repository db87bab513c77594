fn main() {
    let mut bad = 0;
    for path in std::env::args().skip(1) {
        let src = std::fs::read_to_string(&path).unwrap();
        let (ast, diags) = litmus_dsl::herd::parser::parse(&src);
        if !diags.is_empty() || ast.is_none() {
            bad += 1;
            print!("{}", litmus_dsl::diagnostic::render(&diags, &path, &src, false));
        } else if std::env::var("DUMP").is_ok() {
            println!("{:#?}", ast);
        }
    }
    println!("bad: {bad}");
}
