#![allow(clippy::unwrap_used, clippy::print_stdout, missing_docs)]
use rocpath_miopen::model::context::{Device, Env};
use rocpath_miopen::model::eval::{Evaluator, Input};
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let m = rocpath_miopen::model::from_json(&std::fs::read_to_string(&a[1]).unwrap()).unwrap();
    let p = rocpath_miopen::Problem::from_fdb_key(&a[3]).unwrap();
    let mut d = Device::new(&a[2], Some(64)).unwrap();
    d.vram = Some(8 << 30);
    let env = Env::default();
    let build = Default::default();
    let ev = Evaluator::new(&m, None);
    let inp = Input {
        problem: &p,
        device: &d,
        env: &env,
        build: &build,
        always_enable_naive: false,
    };
    let s = m.solvers.iter().find(|s| s.name == a[4]).unwrap();
    let v = ev.solver_fn(s, s.is_applicable.unwrap(), &inp, true);
    println!("{:?}", v.outcome);
    for b in v.blame.iter().chain(v.undecided.iter()) {
        println!(
            "  {}:{} {:?} = {:?}",
            m.files[m.functions[b.func as usize].site.file as usize], b.line, b.text, b.value
        );
    }
}
