#![allow(clippy::unwrap_used, clippy::print_stdout, missing_docs)]
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let (m, r) = rocpath_miopen_derive::derive(std::path::Path::new(&a[1]), &|_, _| {}).unwrap();
    println!("{}", serde_json::to_string_pretty(&r).unwrap());
    std::fs::write(&a[2], serde_json::to_string(&m).unwrap()).unwrap();
}
