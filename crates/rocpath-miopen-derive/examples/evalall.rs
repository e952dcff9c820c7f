#![allow(clippy::unwrap_used, clippy::print_stdout, missing_docs)]
use rocpath_miopen::model::context::{Device, Env};
use rocpath_miopen::model::eval::{Evaluator, Input, Outcome};
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let m = rocpath_miopen::model::from_json(&std::fs::read_to_string(&a[1]).unwrap()).unwrap();
    let p = rocpath_miopen::Problem::from_fdb_key(&a[3]).unwrap();
    let mut d = Device::new(&a[2], Some(64)).unwrap();
    d.vram = Some(8 << 30);
    let env = Env::default();
    let build = Default::default();
    let ev = Evaluator::new(&m, a.get(4).map(String::as_str));
    let inp = Input {
        problem: &p,
        device: &d,
        env: &env,
        build: &build,
        always_enable_naive: false,
    };
    for s in &m.solvers {
        let Some(f) = s.is_applicable else { continue };
        let v = ev.solver_fn(s, f, &inp, true);
        let dynm = s
            .is_dynamic
            .map(|f| ev.solver_fn(s, f, &inp, false).outcome);
        let o = match &v.outcome {
            Outcome::Bool { v } => v.to_string(),
            Outcome::Number { v } => v.to_string(),
            Outcome::Unknown(u) => format!(
                "?? {}:{} {}",
                m.files[m.functions[u.func as usize].site.file as usize], u.line, u.why
            ),
        };
        let why = v
            .blame
            .first()
            .map(|b| {
                format!(
                    "{}:{} {}",
                    m.files[m.functions[b.func as usize].site.file as usize],
                    b.line,
                    b.text.clone().unwrap_or_default()
                )
            })
            .unwrap_or_default();
        println!(
            "{:3} {:45} {:6} dyn={:?} | {}",
            s.id,
            s.name,
            o,
            dynm.map(|o| matches!(o, Outcome::Bool { v: true })),
            why.chars().take(150).collect::<String>()
        );
    }
}
