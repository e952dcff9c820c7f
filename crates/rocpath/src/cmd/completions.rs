//! `rocpath completions SHELL` and `rocpath man [-o DIR]`: generated from the CLI definition.

use crate::cli::{Cli, CompletionsArgs, ManArgs};
use crate::output::{Printer, Status};
use clap::CommandFactory;
use rocpath_docs::schema;
use serde::Serialize;

pub fn run(a: CompletionsArgs, p: &Printer) -> anyhow::Result<Status> {
    let mut cmd = Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(a.shell, &mut cmd, "rocpath", &mut buf);
    let script = String::from_utf8(buf)?;
    if p.global.json {
        #[derive(Serialize)]
        struct Doc {
            shell: String,
            script: String,
        }
        p.json(
            &schema::COMPLETIONS,
            &Doc {
                shell: a.shell.to_string(),
                script,
            },
        )?;
    } else {
        p.data(&script)?;
    }
    Ok(Status::Ok)
}

/// Every page: the main one and one per command, nested commands joined by `-`.
fn pages(cmd: &clap::Command, prefix: &str, out: &mut Vec<(String, clap::Command)>) {
    let name = if prefix.is_empty() {
        cmd.get_name().to_string()
    } else {
        format!("{prefix}-{}", cmd.get_name())
    };
    out.push((name.clone(), cmd.clone().name(name.clone())));
    for sub in cmd.get_subcommands() {
        if sub.get_name() != "help" {
            pages(sub, &name, out);
        }
    }
}

fn render(cmd: clap::Command) -> anyhow::Result<String> {
    let mut buf = Vec::new();
    clap_mangen::Man::new(cmd).render(&mut buf)?;
    Ok(String::from_utf8(buf)?)
}

pub fn run_man(a: ManArgs, p: &Printer) -> anyhow::Result<Status> {
    let mut cmd = Cli::command();
    cmd.build();
    #[derive(Serialize)]
    struct Page {
        name: String,
        path: Option<String>,
    }
    let mut written = Vec::new();
    match &a.out {
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?;
            let mut all = Vec::new();
            pages(&cmd, "", &mut all);
            for (name, c) in all {
                let path = dir.join(format!("{name}.1"));
                std::fs::write(&path, render(c)?)
                    .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
                written.push(Page {
                    name,
                    path: Some(path.display().to_string()),
                });
            }
            if !p.global.json {
                p.note(&format!(
                    "wrote {} man pages to {}",
                    written.len(),
                    dir.display()
                ));
            }
        }
        None if !p.global.json => p.data(&render(cmd)?)?,
        None => written.push(Page {
            name: "rocpath".into(),
            path: None,
        }),
    }
    if p.global.json {
        #[derive(Serialize)]
        struct Doc {
            pages: Vec<Page>,
        }
        p.json(&schema::MAN, &Doc { pages: written })?;
    }
    Ok(Status::Ok)
}
