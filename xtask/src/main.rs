//! Development tasks for rocpath.

fn main() -> std::process::ExitCode {
    let task = std::env::args().nth(1).unwrap_or_default();
    #[allow(clippy::print_stderr)]
    {
        eprintln!("unknown task {task:?}");
    }
    std::process::ExitCode::from(2)
}
