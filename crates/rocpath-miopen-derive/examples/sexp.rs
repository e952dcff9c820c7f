#![allow(clippy::unwrap_used, clippy::print_stdout, missing_docs)]
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let mut p = tree_sitter::Parser::new();
    p.set_language(&tree_sitter_cpp::LANGUAGE.into()).unwrap();
    let t = p.parse(a[1].as_bytes(), None).unwrap();
    println!("{}", t.root_node().to_sexp());
}
