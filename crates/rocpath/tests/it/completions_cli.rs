#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Shell completions and man pages generated from the CLI definition: the bash script
//! sources without error and completes a command; the man pages render with `man -l`
//! (`man` is required under CI).

use assert_cmd::Command;
use std::process::Command as Proc;

fn rocpath(args: &[&str]) -> std::process::Output {
    Command::cargo_bin("rocpath")
        .unwrap()
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn bash_completion_sources_and_completes_a_command() {
    let out = rocpath(&["completions", "bash"]);
    assert!(out.status.success());
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("rocpath.bash");
    std::fs::write(&script, &out.stdout).unwrap();
    // As bash calls a completion function: the command, the word being completed, the one
    // before it.
    let run = |words: &str, cword: usize| {
        let w: Vec<&str> = words.split(' ').collect();
        let cmd = format!(
            "set -e; source '{}'; COMP_WORDS=({words}); COMP_CWORD={cword}; COMP_LINE='{words}'; COMP_POINT=${{#COMP_LINE}}; _rocpath rocpath '{}' '{}'; echo \"${{COMPREPLY[@]}}\"",
            script.display(),
            w[cword],
            w[cword - 1]
        );
        let o = Proc::new("bash").arg("-c").arg(cmd).output().unwrap();
        assert!(
            o.status.success(),
            "bash: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(
            o.stderr.is_empty(),
            "bash said: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let words = run("rocpath su", 1);
    assert_eq!(words.split_whitespace().collect::<Vec<_>>(), ["survey"]);
    let flags = run("rocpath survey --ro", 2);
    assert!(flags.split_whitespace().any(|w| w == "--root"), "{flags}");
}

#[test]
fn zsh_and_fish_scripts_name_the_commands() {
    for shell in ["zsh", "fish"] {
        let out = rocpath(&["completions", shell]);
        assert!(out.status.success());
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("survey") && text.contains("completions"),
            "{shell}"
        );
    }
    assert_eq!(rocpath(&["completions", "tcsh"]).status.code(), Some(2));
}

#[test]
fn man_pages_render() {
    let dir = tempfile::tempdir().unwrap();
    let out = rocpath(&["man", "-o", dir.path().to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let main = dir.path().join("rocpath.1");
    let survey = dir.path().join("rocpath-survey.1");
    let nested = dir.path().join("rocpath-ledger-import.1");
    for p in [&main, &survey, &nested] {
        assert!(p.is_file(), "{} missing", p.display());
    }
    let stdout = rocpath(&["man"]);
    assert_eq!(stdout.stdout, std::fs::read(&main).unwrap());
    if !rocpath_testdata::have_tool("man") {
        rocpath_testdata::missing("man is not installed (apt-get install man-db)");
        return;
    }
    for (page, want) in [(&main, "survey"), (&survey, "--max-depth")] {
        let o = Proc::new("man")
            .arg("-l")
            .arg(page)
            .env("MANPAGER", "cat")
            .env("MANWIDTH", "100")
            .env("LC_ALL", "C.UTF-8")
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "man -l {}: {}",
            page.display(),
            String::from_utf8_lossy(&o.stderr)
        );
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(
            text.contains(want),
            "{}: {want} not in the rendered page:\n{text}",
            page.display()
        );
    }
}
