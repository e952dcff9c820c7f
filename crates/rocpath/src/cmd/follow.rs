//! `rocpath follow --from SPEC REPO…`

use crate::cli::FollowArgs;
use crate::output::{Printer, Status};
use rocpath_docs::schema;
use rocpath_follow::{IndexOptions, Options, Repos};

pub fn run(a: FollowArgs, p: &Printer) -> anyhow::Result<Status> {
    super::check_paths(&a.repos)?;
    let opts = Options {
        depth: a.depth.max(1),
        limit: a.limit.max(1),
        max_matches: a.max_matches.max(1),
        fan_out: a.fan_out.max(1),
        index: IndexOptions {
            max_file_bytes: a.max_file_bytes,
            include_tests: a.include_tests,
        },
        cache: !a.no_cache,
        memory: Some(super::budget(p)),
    };
    let bar = p.bar("indexing sources");
    let repos = Repos::open(&a.repos, &opts);
    bar.finish_and_clear();
    let repos = repos?;
    let bar = p.bar("following");
    let doc = rocpath_follow::follow_in(&a.from, &repos, &opts);
    bar.finish_and_clear();
    let doc = doc?;
    if p.global.json {
        p.json(&schema::FOLLOW, &doc)?;
    } else if a.markdown {
        p.data(&rocpath_render::follow::markdown(&doc))?;
    } else {
        p.data(&rocpath_render::follow::trail(&doc))?;
    }
    for n in &doc.notes {
        p.note(&format!("note: {n}"));
    }
    Ok(Status::Ok)
}
