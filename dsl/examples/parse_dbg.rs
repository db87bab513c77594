fn main() {
    let path = std::env::args().nth(1).unwrap();
    let src = std::fs::read_to_string(&path).unwrap();
    let (ast, diags) = litmus_dsl::native::parser::parse(&src);
    println!("{:#?}", ast);
    print!("{}", litmus_dsl::diagnostic::render(&diags, &path, &src, false));
}
