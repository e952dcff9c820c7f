//! The pages of the site, one function each, in the order [`crate::build`] writes them: the
//! index, world pages, the stack map, cases, the assessment matrix, the failure-mode taxonomy,
//! the timeline, coverage, the claim list, claim pages, observation pages (with their JSON)
//! and search.

use crate::views::*;
use crate::{SiteError, Writer, svg};
use minijinja::{Value, context};
use rayon::prelude::*;
use rocpath_ledger::derive::{Block, block_of};
use rocpath_ledger::model::*;
use rocpath_ledger::schemas;
use rocpath_ledger::store::Loaded;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

const CLASS_MEANINGS: [(&str, &str, &str); 4] = [
    (
        "confirmed",
        "実機コマンド・ログ・ファイル存在・逆アセンブリ等で直接確認した事実",
        "Directly confirmed via live commands, logs, file presence, or disassembly",
    ),
    (
        "inferred",
        "確認した事実から論理的に導かれる解釈。直接確認はしていない",
        "Interpretation logically derived from confirmed facts. Not directly confirmed",
    ),
    (
        "unresolved",
        "現時点では確定できない事項。observer 制約または未実施の観測による",
        "Cannot be determined at this stage, due to observer constraints or observations not yet performed",
    ),
    (
        "limited",
        "部分的に確認できているが、tool 制限により完全ではない",
        "Partially confirmed, but incomplete due to tool limitations",
    ),
];

const FAILURE_MODES: [(&str, &str, &str); 11] = [
    (
        "applicability_reject",
        "Applicability 棄却",
        "Applicability reject",
    ),
    (
        "build_failure",
        "Build / tuning 失敗",
        "Build / tuning failure",
    ),
    ("runtime_abort", "実行時 abort", "Runtime abort"),
    ("gpu_fault", "GPU フォールト", "GPU fault"),
    ("success", "成功", "Success"),
    ("natural", "自然選択", "Natural selection"),
    (
        "fallback_observed",
        "フォールバック成立",
        "Fallback observed",
    ),
    ("cli_error", "CLI エラー", "CLI error"),
    ("library_error", "ライブラリのエラー", "Library error"),
    ("incomplete", "未完了(中断)", "Incomplete (interrupted)"),
    ("undetermined", "判定不能", "Undetermined"),
];

#[derive(Serialize)]
struct Timeline {
    date: String,
    from: String,
    class: String,
    kind: String,
    note: TextV,
    claim: ClaimV,
}

fn timeline(m: &Model<'_>) -> Vec<Timeline> {
    let mut v = Vec::new();
    for c in &m.ix.ledger.claims {
        let Some(cv) = m.claim(&c.id) else { continue };
        let mut prev: Option<String> = None;
        for h in &c.history {
            let class = class_name(h.class);
            v.push(Timeline {
                date: h.date.clone(),
                from: prev.clone().filter(|p| *p != class).unwrap_or_default(),
                class: class.clone(),
                kind: h.kind.map(|k| k.as_str().to_string()).unwrap_or_default(),
                note: tv(&h.note),
                claim: cv.clone(),
            });
            prev = Some(class);
        }
    }
    v.sort_by(|a, b| {
        b.date
            .cmp(&a.date)
            .then_with(|| a.claim.id.cmp(&b.claim.id))
    });
    v
}

#[derive(Serialize)]
struct SearchEntry {
    t: &'static str,
    id: String,
    u: String,
    ja: String,
    en: String,
    c: String,
    w: String,
    h: String,
}

/// What every page is made from: the ledger, the shared model, the writer, and what several
/// pages use (claims sorted by id, the timeline, the coverage heatmap).
pub(crate) struct Site<'a> {
    l: &'a Loaded,
    m: &'a Model<'a>,
    w: &'a Writer<'a>,
    claims: Vec<&'a Claim>,
    timeline: Vec<Timeline>,
    heat: Option<svg::Heatmap>,
}

/// The name of a file a ledger names by a path relative to itself (`../../docs/x.json` →
/// `x.json`): a published page names no place outside the site.
fn file_name(path: &str) -> String {
    path.rsplit(['/', '\\']).next().unwrap_or(path).to_string()
}

/// An observation as the site publishes it (`data/<id>.json`): the document, its inputs and
/// quotes as imported, and of the import only the file's name, its sha256 and the world; the
/// ledger's own paths (where the file was, the folder its relative inputs are relative to)
/// are left out, since they lead outside the site and name the building machine's folders.
fn published_json(o: &Observation) -> Result<Vec<u8>, serde_json::Error> {
    #[derive(Serialize)]
    struct Import<'a> {
        file: String,
        sha256: &'a str,
        #[serde(skip_serializing_if = "str::is_empty")]
        world: &'a str,
    }
    #[derive(Serialize)]
    struct Published<'a> {
        schema: &'a str,
        id: &'a str,
        imported: Import<'a>,
        inputs: &'a [Input],
        quotes: &'a [Quote],
        document: &'a serde_json::Value,
    }
    let p = Published {
        schema: &o.schema,
        id: &o.id,
        imported: Import {
            file: file_name(&o.imported.file),
            sha256: &o.imported.sha256,
            world: &o.imported.world,
        },
        inputs: &o.inputs,
        quotes: &o.quotes,
        document: &o.document,
    };
    let mut v = serde_json::to_vec_pretty(&p)?;
    v.push(b'\n');
    Ok(v)
}

impl<'a> Site<'a> {
    pub(crate) fn new(l: &'a Loaded, m: &'a Model<'a>, w: &'a Writer<'a>) -> Self {
        Site {
            l,
            m,
            w,
            claims: m.sorted_claims(),
            timeline: timeline(m),
            heat: svg::heatmap(&m.coverage),
        }
    }

    /// Writes every page.
    pub(crate) fn write_all(&self) -> Result<(), SiteError> {
        self.index()?;
        self.worlds()?;
        self.stack()?;
        self.cases()?;
        self.matrix()?;
        self.taxonomy()?;
        self.timeline_page()?;
        self.coverage()?;
        self.claim_list()?;
        self.claim_pages()?;
        self.observation_pages()?;
        self.search()
    }

    fn claim_views<'c>(&self, claims: impl Iterator<Item = &'c &'a Claim>) -> Vec<ClaimV>
    where
        'a: 'c,
    {
        claims.filter_map(|c| self.m.claim(&c.id)).collect()
    }

    /// The claims of a class.
    fn count_class(&self, class: &str, world: Option<&str>) -> usize {
        self.l
            .claims
            .iter()
            .filter(|x| world.is_none_or(|w| x.world == w) && class_name(x.class) == class)
            .count()
    }

    /// `index.html`: what the classes mean and how many claims each has, the worlds, the
    /// latest changes.
    fn index(&self) -> Result<(), SiteError> {
        let l = self.l;
        let classes: Vec<Value> = CLASS_MEANINGS
            .iter()
            .map(|(c, ja, en)| {
                context! { class => c, meaning => lit(ja, en), count => self.count_class(c, None) }
            })
            .collect();
        let world_rows: Vec<Value> = self
            .m
            .worlds()
            .iter()
            .map(|wd| self.world_row(wd))
            .collect();
        self.w.page(
            "index.html",
            "index.html",
            "index",
            lit("トップ", "Home"),
            context! {
                description => tv(&l.meta.description),
                classes => classes,
                class_bar => self.class_bar(),
                worlds => world_rows,
                recent => self.timeline.iter().take(10).collect::<Vec<_>>(),
                n_claims => l.claims.len(),
                n_observations => l.observations.len(),
            },
        )
    }

    /// The bar of claims by class (600 wide), if there is any claim.
    fn class_bar(&self) -> Option<Value> {
        let total = self.l.claims.len().max(1);
        let mut x = 0.0f64;
        let mut segments = Vec::new();
        for c in CLASSES {
            let n = self.count_class(c, None);
            if n == 0 {
                continue;
            }
            let wdt = 600.0 * n as f64 / total as f64;
            segments.push(
                context! { class => c, count => n, x => format!("{x:.2}"), w => format!("{wdt:.2}") },
            );
            x += wdt;
        }
        (!segments.is_empty()).then(|| context! { width => 600, segments => segments })
    }

    /// A world's row on the index: its claims by class and its code objects.
    fn world_row(&self, wd: &WorldDecl) -> Value {
        let procs = self.m.world_processors(&wd.id);
        let code_objects: u64 = self
            .m
            .coverage
            .cells
            .iter()
            .filter(|((_, t), _)| procs.contains(&schemas::processor_of(t)))
            .map(|(_, c)| c.code_objects)
            .sum();
        let counts: Vec<Value> = CLASSES
            .iter()
            .map(|c| context! { class => c, count => self.count_class(c, Some(&wd.id)) })
            .collect();
        context! {
            id => wd.id.clone(), name => wd.name.clone(), url => world_url(&wd.id),
            character => tv(&wd.character), status => tv(&wd.status),
            class_counts => counts, code_objects => code_objects,
        }
    }

    /// `worlds/<id>.html`, one per world.
    fn worlds(&self) -> Result<(), SiteError> {
        for wd in &self.m.worlds() {
            self.world(wd)?;
        }
        Ok(())
    }

    fn world(&self, wd: &WorldDecl) -> Result<(), SiteError> {
        let (l, m) = (self.l, self.m);
        let procs = m.world_processors(&wd.id);
        let cov = self.world_coverage(&procs);
        let fams: Vec<&schemas::IsaFamily> = m
            .families
            .values()
            .filter(|f| procs.contains(&f.processor))
            .collect();
        let observations: Vec<ObsRef> = l
            .observations
            .iter()
            .filter(|o| {
                m.processors
                    .get(o.id.as_str())
                    .is_some_and(|ps| ps.iter().any(|p| procs.contains(p)))
            })
            .map(|o| m.obs_ref(o))
            .collect();
        let hosts: Vec<Value> = m
            .surveys
            .iter()
            .filter(|r| procs.contains(&r.processor))
            .map(|r| context! {
                host => r.host.clone(), target => r.target.clone(), install => r.install.clone(),
                outcome => r.outcome.clone(), why => r.why.clone(), class => r.class.clone(),
                fallbacks => r.fallbacks.clone(), url => format!("observations/{}.html", r.observation),
            })
            .collect();
        self.w.page(
            &world_url(&wd.id),
            "world.html",
            "index",
            lit(&format!("観測世界 {}", wd.id), &format!("World {}", wd.id)),
            context! {
                w => context! {
                    id => wd.id.clone(), name => wd.name.clone(), character => tv(&wd.character), status => tv(&wd.status),
                    processors => procs, coverage_rows => cov.rows, no_code => cov.no_code, tensile => cov.tensile, miopen => cov.miopen,
                    observations => observations,
                    hosts => hosts, blocks => crate::findings::world_blocks(l, m, &wd.id),
                    chain => crate::chain::world_chain(l, m, wd),
                },
                heat => self.heat.as_ref().filter(|_| cov.any_code),
                bars_fig => svg::bars(&fams),
            },
        )
    }

    /// What the inventories say about a world's processors.
    fn world_coverage(&self, procs: &[String]) -> WorldCoverage<'a> {
        let m: &'a Model<'a> = self.m;
        let cov = &m.coverage;
        let rows: Vec<Value> = cov
            .cells
            .iter()
            .filter(|((_, t), _)| procs.contains(&schemas::processor_of(t)))
            .map(|((lib, t), c)| context! { library => lib, target => t, code_objects => c.code_objects, kernels => c.kernels })
            .collect();
        let with_code: BTreeSet<&String> = cov
            .cells
            .keys()
            .filter(|(_, t)| procs.contains(&schemas::processor_of(t)))
            .map(|(lib, _)| lib)
            .collect();
        let no_code: Vec<String> = if procs.is_empty() {
            Vec::new()
        } else {
            cov.libraries()
                .into_iter()
                .filter(|lib| !with_code.contains(lib))
                .collect()
        };
        let files = |v: &'a BTreeSet<(String, String)>| -> Vec<&'a String> {
            v.iter()
                .filter(|(p, _)| procs.contains(p))
                .map(|(_, f)| f)
                .collect()
        };
        WorldCoverage {
            rows,
            no_code,
            tensile: files(&cov.tensile),
            miopen: files(&cov.miopen),
            any_code: !with_code.is_empty(),
        }
    }

    /// `stack.html`: claims by floor of the stack and by layer.
    fn stack(&self) -> Result<(), SiteError> {
        let floors: Vec<Value> = Floor::ALL
            .iter()
            .map(|&f| {
                let on: Vec<&&Claim> = self.claims.iter().filter(|c| c.floor == Some(f)).collect();
                let layers: Vec<Value> = layer_keys()
                    .into_iter()
                    .map(|(ly, key, title)| {
                        let cs = self.claim_views(on.iter().copied().filter(|c| c.layer == ly));
                        let more = cs.len().saturating_sub(MAX_PER_LAYER);
                        context! { key => key, title => title, claims => cs.into_iter().take(MAX_PER_LAYER).collect::<Vec<_>>(), more => more }
                    })
                    .collect();
                let (title, who) = floor_titles(f);
                context! { number => f.number(), title => title, who => who, count => on.len(), layers => layers }
            })
            .collect();
        let unplaced = self.claim_views(self.claims.iter().filter(|c| c.floor.is_none()));
        self.w.page(
            "stack.html",
            "stack.html",
            "stack",
            lit("スタック地図", "Stack map"),
            context! { floors => floors, unplaced => unplaced },
        )
    }

    /// `cases/<id>.html`, one per case, and `cases.html`, the list.
    fn cases(&self) -> Result<(), SiteError> {
        let mut case_rows = Vec::new();
        for c in &self.l.cases {
            case_rows.push(self.case(c)?);
        }
        self.w.page(
            "cases.html",
            "cases.html",
            "cases",
            lit("ケース", "Cases"),
            context! { cases => case_rows },
        )
    }

    /// A case's page; returns its row in the list.
    fn case(&self, c: &Case) -> Result<Value, SiteError> {
        let m = self.m;
        let cl: Vec<&Claim> = c
            .claims
            .iter()
            .filter_map(|id| m.ix.claims.get(id.as_str()).copied())
            .collect();
        // The blocks of the world page: what this case showed by itself (its own outcome), what
        // it reads as with the others (its group, the prediction it was compared with), what
        // is still open; a rejected claim in none.
        let by = |pred: &dyn Fn(&Claim) -> bool| -> Vec<ClaimV> {
            cl.iter()
                .filter(|x| pred(x))
                .filter_map(|x| m.claim(&x.id))
                .collect()
        };
        let facts = by(&|x| block_of(x) == Some(Block::ObservedFacts));
        let interp =
            by(&|x| block_of(x) == Some(Block::CurrentFindings) && shows_evidence(x.class));
        let open = by(&|x| block_of(x).is_some() && !shows_evidence(x.class));
        let obs: Vec<&Observation> = c
            .observations
            .iter()
            .filter_map(|id| m.ix.observations.get(id.as_str()).copied())
            .collect();
        let outcomes: Vec<&schemas::CaseOutcome> = c
            .observations
            .iter()
            .flat_map(|id| m.outcomes.get(id).into_iter().flatten())
            .collect();
        let questions: Vec<QuestionV> = c
            .questions
            .iter()
            .filter_map(|q| m.ix.questions.get(q.as_str()))
            .map(|q| m.question(q))
            .collect();
        let cref = Model::case_ref(c);
        let row = context! {
            url => cref.url.clone(), title => cref.title.clone(), world => c.world.clone(), date => c.date.clone(),
            outcomes => outcomes.iter().map(|o| o.outcome.clone()).collect::<BTreeSet<_>>(),
            n_facts => facts.len(), n_interp => interp.len(), n_open => open.len() + questions.len(),
        };
        let outcome_rows: Vec<Value> = outcomes
            .iter()
            .map(|o| context! { name => o.name.clone(), outcome => o.outcome.clone(), forced => o.forced.clone(), selected => o.selected.clone(), exit => o.exit.clone(), errors => o.errors.clone() })
            .collect();
        let (raw, raw_rest) = m.raw_excerpt(&obs, &cl);
        self.w.page(
            &cref.url,
            "case.html",
            "cases",
            cref.title.clone(),
            context! { c => context! {
                id => c.id.clone(), title => cref.title, world => c.world.clone(),
                world_url => if c.world.is_empty() { String::new() } else { world_url(&c.world) },
                date => c.date.clone(), summary => tv(&c.summary),
                facts => facts, interpretations => interp, open => open, questions => questions,
                outcomes => outcome_rows, raw => raw, raw_rest => raw_rest,
                observations => obs.iter().map(|o| m.obs_ref(o)).collect::<Vec<_>>(),
            } },
        )?;
        Ok(row)
    }

    /// `matrix.html`: the assessment questions and their answers.
    fn matrix(&self) -> Result<(), SiteError> {
        let rows: Vec<QuestionV> = self
            .l
            .questions
            .iter()
            .map(|q| self.m.question(q))
            .collect();
        self.w.page(
            "matrix.html",
            "matrix.html",
            "matrix",
            lit("判定マトリクス", "Assessment matrix"),
            context! { rows => rows },
        )
    }

    /// `taxonomy.html`: case outcomes by failure mode, the known modes first.
    fn taxonomy(&self) -> Result<(), SiteError> {
        let mut by_mode: BTreeMap<String, Vec<&schemas::CaseOutcome>> = BTreeMap::new();
        for o in self.m.outcomes.values().flatten() {
            by_mode.entry(o.mode().to_string()).or_default().push(o);
        }
        let mut modes: Vec<&str> = FAILURE_MODES
            .iter()
            .map(|(k, _, _)| *k)
            .filter(|k| by_mode.contains_key(*k))
            .collect();
        modes.extend(
            by_mode
                .keys()
                .map(String::as_str)
                .filter(|k| !FAILURE_MODES.iter().any(|(f, _, _)| f == k)),
        );
        let rows: Vec<Value> = modes
            .iter()
            .map(|mode| {
                let os = by_mode.get(*mode).map(Vec::as_slice).unwrap_or_default();
                self.taxonomy_row(mode, os)
            })
            .collect();
        self.w.page(
            "taxonomy.html",
            "taxonomy.html",
            "taxonomy",
            lit("失敗モード分類", "Failure-mode taxonomy"),
            context! { rows => rows },
        )
    }

    /// A failure mode: its sub-kinds, symptoms, exits and up to 12 example cases.
    fn taxonomy_row(&self, mode: &str, os: &[&schemas::CaseOutcome]) -> Value {
        let m = self.m;
        let title = FAILURE_MODES
            .iter()
            .find(|(k, _, _)| *k == mode)
            .map_or_else(|| lit(mode, mode), |(_, ja, en)| lit(ja, en));
        let subs: BTreeSet<String> = os
            .iter()
            .filter_map(|o| o.outcome.split_once(['/', ':']).map(|(_, s)| s.to_string()))
            .collect();
        let symptoms: BTreeSet<&String> = os.iter().flat_map(|o| o.errors.iter()).collect();
        let exits: BTreeSet<&String> = os.iter().filter_map(|o| o.exit.as_ref()).collect();
        let examples: Vec<Value> = os
            .iter()
            .take(12)
            .map(|o| {
                let url = m
                    .cases_by_observation
                    .get(o.observation.as_str())
                    .and_then(|v| v.first())
                    .map_or_else(
                        || format!("observations/{}.html", o.observation),
                        |c| format!("cases/{}.html", c.id),
                    );
                let mut label = o.name.clone();
                if let Some(f) = &o.forced {
                    label.push_str(&format!(" — forced {f}"));
                } else if let Some(s) = &o.selected {
                    label.push_str(&format!(" — {s}"));
                }
                context! { url => url, label => label }
            })
            .collect();
        context! {
            mode => mode, title => title, subs => subs, count => os.len(),
            symptoms => symptoms.into_iter().take(8).collect::<Vec<_>>(), exits => exits, examples => examples,
        }
    }

    /// `timeline.html`: every class change, newest first.
    fn timeline_page(&self) -> Result<(), SiteError> {
        self.w.page(
            "timeline.html",
            "timeline.html",
            "timeline",
            lit("タイムライン", "Timeline"),
            context! { entries => &self.timeline },
        )
    }

    /// `coverage.html`: the heatmap and the instruction-class bars of all processors.
    fn coverage(&self) -> Result<(), SiteError> {
        let all_fams: Vec<&schemas::IsaFamily> = self.m.families.values().collect();
        self.w.page(
            "coverage.html",
            "coverage.html",
            "coverage",
            lit("カバレッジ", "Coverage"),
            context! { heat => &self.heat, bars_fig => svg::bars(&all_fams) },
        )
    }

    /// `claims.html`: every claim.
    fn claim_list(&self) -> Result<(), SiteError> {
        let claim_list = self.claim_views(self.claims.iter());
        self.w.page(
            "claims.html",
            "claims.html",
            "claims",
            lit("すべての主張", "All claims"),
            context! { claims => claim_list },
        )
    }

    /// `claims/<id>.html`, one per claim, written in parallel.
    fn claim_pages(&self) -> Result<(), SiteError> {
        let mut cited_by: BTreeMap<&str, Vec<ClaimV>> = BTreeMap::new();
        for c in &self.claims {
            for s in &c.support {
                if let (Some(t), Some(v)) = (&s.claim, self.m.claim(&c.id)) {
                    cited_by.entry(t.as_str()).or_default().push(v);
                }
            }
        }
        self.claims
            .par_iter()
            .try_for_each(|c| self.claim_page(c, &cited_by))
    }

    fn claim_page(
        &self,
        c: &Claim,
        cited_by: &BTreeMap<&str, Vec<ClaimV>>,
    ) -> Result<(), SiteError> {
        let m = self.m;
        let Some(cv) = m.claim(&c.id) else {
            return Ok(());
        };
        let answers: Vec<QuestionV> = m
            .questions_by_answer
            .get(c.id.as_str())
            .into_iter()
            .flatten()
            .map(|q| m.question(q))
            .collect();
        let in_cases: Vec<CaseRef> = m
            .cases_by_claim
            .get(c.id.as_str())
            .into_iter()
            .flatten()
            .map(|k| Model::case_ref(k))
            .collect();
        let history: Vec<Value> = c
            .history
            .iter()
            .map(|h| context! { date => h.date.clone(), class => class_name(h.class), kind => h.kind.map(|k| k.as_str()).unwrap_or_default(), note => tv(&h.note) })
            .collect();
        self.w.page(
            &cv.url.clone(),
            "claim.html",
            "claims",
            lit(&format!("主張 {}", c.id), &format!("Claim {}", c.id)),
            context! {
                c => minijinja::value::merge_maps([context! { falsified_by => tv(&c.falsified_by) }, Value::from_serialize(&cv)]),
                supports => m.supports(c),
                cited_by => cited_by.get(c.id.as_str()).cloned().unwrap_or_default(),
                answers => answers, in_cases => in_cases, history => history,
            },
        )
    }

    /// `observations/<id>.html` and `data/<id>.json`, one per observation, written in parallel;
    /// then `observations.html`, the list.
    fn observation_pages(&self) -> Result<(), SiteError> {
        let obs_list = self
            .l
            .observations
            .par_iter()
            .map(|o| self.observation_page(o))
            .collect::<Result<Vec<_>, _>>()?;
        self.w.page(
            "observations.html",
            "observations.html",
            "claims",
            lit("観測", "Observations"),
            context! { observations => obs_list },
        )
    }

    /// An observation's page and its JSON; returns its entry in the list.
    fn observation_page(&self, o: &Observation) -> Result<ObsRef, SiteError> {
        let m = self.m;
        let r = m.obs_ref(o);
        let citing: Vec<ClaimV> = m
            .claims_by_observation
            .get(o.id.as_str())
            .into_iter()
            .flatten()
            .filter_map(|c| m.claim(&c.id))
            .collect();
        let in_cases: Vec<CaseRef> = m
            .cases_by_observation
            .get(o.id.as_str())
            .into_iter()
            .flatten()
            .map(|k| Model::case_ref(k))
            .collect();
        let json_url = format!("data/{}.json", o.id);
        let json = published_json(o).map_err(|e| SiteError::Template {
            name: "observation json".into(),
            message: e.to_string(),
        })?;
        self.w.write(&json_url, &json)?;
        self.w.page(
            &r.url.clone(),
            "observation.html",
            "claims",
            lit(&format!("観測 {}", o.id), &format!("Observation {}", o.id)),
            context! {
                o => self.observation_view(o, &r, json_url),
                cited_by => citing, in_cases => in_cases,
                trail => crate::follow::trail_view(o),
            },
        )?;
        Ok(r)
    }

    /// What an observation page shows of it: where it came from, its inputs, quotes and
    /// records (the first [`MAX_RECORDS`], and every record a claim cites).
    fn observation_view(&self, o: &Observation, r: &ObsRef, json_url: String) -> Value {
        let cited = self.m.cited_records(&o.id);
        let recs = rocpath_ledger::records::records(&o.document);
        let n_records = recs.len();
        let shown: Vec<RecordV> = recs
            .iter()
            .enumerate()
            .filter(|(i, r)| *i < MAX_RECORDS || cited.contains(&r.pointer))
            .map(|(_, r)| self.m.record(o, r))
            .collect();
        let quotes: Vec<LineV> = o
            .quotes
            .iter()
            .take(MAX_QUOTES)
            .map(|q| LineV {
                path: q.path.clone(),
                line: q.line,
                text: q.text.clone(),
            })
            .collect();
        context! {
            id => o.id.clone(), schema => r.schema.clone(), command => r.command.clone(), time => r.time.clone(),
            tool => views_observed(o, "tool"), version => views_observed(o, "version"), host => views_observed(o, "host"),
            file => file_name(&o.imported.file), sha256 => o.imported.sha256.clone(), json_url => json_url,
            inputs => o.inputs.iter().map(|i| context! { path => i.path.clone(), sha256 => i.sha256.clone(), bytes => i.bytes, note => i.note.clone() }).collect::<Vec<_>>(),
            quotes => quotes, quotes_more => o.quotes.len().saturating_sub(MAX_QUOTES),
            records => shown, n_records => n_records, records_more => n_records.saturating_sub(MAX_RECORDS),
        }
    }

    /// `search.html` and its offline index, `assets/search-index.js`.
    fn search(&self) -> Result<(), SiteError> {
        let json =
            serde_json::to_string(&self.search_entries()).map_err(|e| SiteError::Template {
                name: "search index".into(),
                message: e.to_string(),
            })?;
        self.w.write(
            "assets/search-index.js",
            format!("window.ROCPATH_SEARCH = {json};\n").as_bytes(),
        )?;
        self.w.page(
            "search.html",
            "search.html",
            "search",
            lit("検索", "Search"),
            context! {},
        )
    }

    /// The search index: every claim, then every case.
    fn search_entries(&self) -> Vec<SearchEntry> {
        let mut entries = Vec::new();
        for c in &self.claims {
            let Some(v) = self.m.claim(&c.id) else {
                continue;
            };
            let h = format!(
                "{} {} {} {} {} {}",
                c.id, c.statement.ja, c.statement.en, c.world, v.class, v.kind
            )
            .to_lowercase();
            entries.push(SearchEntry {
                t: "claim",
                id: c.id.clone(),
                u: v.url,
                ja: v.statement.ja,
                en: v.statement.en,
                c: v.class,
                w: c.world.clone(),
                h,
            });
        }
        for c in &self.l.cases {
            let r = Model::case_ref(c);
            let h = format!(
                "{} {} {} {} {} {}",
                c.id, c.title.ja, c.title.en, c.summary.ja, c.summary.en, c.world
            )
            .to_lowercase();
            entries.push(SearchEntry {
                t: "case",
                id: c.id.clone(),
                u: r.url,
                ja: r.title.ja,
                en: r.title.en,
                c: String::new(),
                w: c.world.clone(),
                h,
            });
        }
        entries
    }
}

/// What the inventories say about a world's processors: (library, target) rows, libraries
/// without code for them, Tensile and MIOpen files, whether any library has code.
struct WorldCoverage<'a> {
    rows: Vec<Value>,
    no_code: Vec<String>,
    tensile: Vec<&'a String>,
    miopen: Vec<&'a String>,
    any_code: bool,
}

/// A floor of the stack: its title and who lives there.
fn floor_titles(f: Floor) -> (TextV, TextV) {
    match f {
        Floor::Application => (
            lit(
                "アプリケーション — あなたが使うソフト",
                "Application — the software you use",
            ),
            lit(
                "PyTorch、Ollama、llama.cpp など",
                "PyTorch, Ollama, llama.cpp, ...",
            ),
        ),
        Floor::MathLibrary => (
            lit(
                "数学ライブラリ — 専門の計算チーム",
                "Math libraries — specialised calculation teams",
            ),
            lit(
                "rocBLAS・MIOpen・Tensile・hipBLASLt・Composable Kernel・ggml-hip",
                "rocBLAS, MIOpen, Tensile, hipBLASLt, Composable Kernel, ggml-hip",
            ),
        ),
        Floor::Runtime => (
            lit(
                "ランタイム — 受付と配達係",
                "Runtime — reception & delivery",
            ),
            lit(
                "HIP runtime・ROCr(code object の読み込み)",
                "HIP runtime, ROCr (code object loading)",
            ),
        ),
        Floor::Driver => (
            lit("ドライバ — 通訳", "Driver — the translator"),
            lit("amdgpu ドライバと KFD", "amdgpu driver and KFD"),
        ),
        Floor::Hardware => (
            lit(
                "GPU ハードウェア — 実際に計算する本体",
                "GPU hardware — the chip that computes",
            ),
            lit(
                "gfx900・gfx1201・gfx942 など",
                "gfx900, gfx1201, gfx942, ...",
            ),
        ),
    }
}

/// The layers of a floor, in order: key and title.
fn layer_keys() -> [(Option<Layer>, &'static str, TextV); 4] {
    [
        (Some(Layer::Build), "build", lit("維持 (Build)", "Build")),
        (
            Some(Layer::Selection),
            "selection",
            lit("管理 (Selection)", "Selection"),
        ),
        (
            Some(Layer::Fallback),
            "fallback",
            lit("補充 (Fallback)", "Fallback"),
        ),
        (None, "none", lit("層未指定", "No layer")),
    ]
}

fn views_observed(o: &Observation, k: &str) -> String {
    o.document
        .get("observed")
        .and_then(|v| v.get(k))
        .and_then(|v| v.as_str())
        .unwrap_or_default()
        .to_string()
}
