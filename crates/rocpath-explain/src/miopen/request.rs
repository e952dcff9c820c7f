//! What `explain miopen` is asked: the problems of a find-db key or of an `MIOpenDriver`
//! command line, and the API path (mode) the command takes.

use rocpath_miopen::select::Mode;
use rocpath_miopen::{DriverCommand, DriverError, DriverPath, KeyError, Problem, Strictness};

/// Why a request cannot be explained; each message says what to give instead.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    /// Not a find-db key.
    #[error(transparent)]
    Key(#[from] KeyError),
    /// Not an MIOpenDriver convolution command.
    #[error(transparent)]
    Driver(#[from] DriverError),
    /// `-S NAME` with a name the registry lacks.
    #[error(
        "-S {0}: not a solver name of MIOpen's registry (MIOpenDriver would run the fastest solution as with -S 0; give a registered name or id)"
    )]
    UnknownName(String),
    /// `-S ID` with an id the registry lacks.
    #[error(
        "-S {0}: not a solver name or id of MIOpen's registry (see `rocpath explain miopen --all`)"
    )]
    UnknownSolver(String),
    /// Neither a key nor a command.
    #[error("give `--problem KEY` or `-- MIOpenDriver conv …`")]
    Nothing,
    /// MIOpenDriver refuses the command before it calls MIOpen.
    #[error(
        "MIOpenDriver refuses this command before MIOpen is called: {0} (change the command; no solver is asked)"
    )]
    Refused(String),
}

/// Whether `name` is a solver name of MIOpen's registry.
pub fn known_name(name: &str) -> bool {
    rocpath_miopen::registry::by_name(name).is_some()
}

/// Whether `s` is a solver name or id of MIOpen's registry.
pub fn known_solver(s: &str) -> bool {
    known_name(s)
        || s.parse::<u64>()
            .ok()
            .and_then(rocpath_miopen::registry::by_id)
            .is_some()
}

/// The mode of a driver command's API path; `find` is the mode of the Find API.
pub fn mode_of(path: DriverPath, find: Mode) -> Mode {
    match path {
        DriverPath::Find => find,
        DriverPath::ImmediateFastest => Mode::Immediate,
        DriverPath::ImmediateSolver(s) => Mode::Forced(s),
    }
}

/// The problems to explain and their mode: from a find-db `key` in mode `default`, or from
/// the `MIOpenDriver` arguments `driver`, whose `-S` decides the mode (`default` when it
/// takes the Find API). The driver's problems are built as the driver of the model's
/// `release` builds them (`None`: the pinned checkout's), so the problem and the model agree.
/// A forced solver must be one of the registry.
pub fn problems(
    key: Option<&str>,
    driver: &[String],
    default: Mode,
    release: Option<&str>,
) -> Result<(Vec<Problem>, Mode), RequestError> {
    if let Some(k) = key {
        return Ok((vec![Problem::from_fdb_key(k)?], default));
    }
    if driver.is_empty() {
        return Err(RequestError::Nothing);
    }
    let d = DriverCommand::parse(driver, Strictness::Strict)?.for_release(release);
    if let Some(why) = d.rejected_by_driver() {
        return Err(RequestError::Refused(why));
    }
    if let Some(name) = d.solution.as_deref().filter(|n| n.parse::<i64>().is_err()) {
        if !known_name(name) {
            return Err(RequestError::UnknownName(name.to_string()));
        }
    }
    let mode = mode_of(d.path(known_name), default);
    if let Mode::Forced(s) = &mode {
        if !known_solver(s) {
            return Err(RequestError::UnknownSolver(s.clone()));
        }
    }
    Ok((d.problems, mode))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn a_group_count_the_channels_do_not_divide_is_the_drivers_error() {
        let bad = "conv -n 8 -c 63 -H 28 -W 28 -k 64 -y 3 -x 3 -p 1 -q 1 -g 2 -F 1";
        let e = problems(None, &args(bad), Mode::Find, None).unwrap_err();
        assert!(e.to_string().contains("Invalid group number"), "{e}");
        let good = "conv -n 8 -c 64 -H 28 -W 28 -k 64 -y 3 -x 3 -p 1 -q 1 -g 2 -F 1";
        assert!(problems(None, &args(good), Mode::Find, None).is_ok());
    }

    #[test]
    fn the_driver_flag_s_decides_the_mode() {
        let conv = "conv -n 1 -c 3 -H 32 -W 32 -k 8 -y 3 -x 3 -p 1 -q 1 -F 1";
        let (p, m) = problems(None, &args(conv), Mode::Find, None).unwrap();
        assert_eq!((p.len(), m), (1, Mode::Find));
        let (_, m) = problems(None, &args(&format!("{conv} -S 0")), Mode::Find, None).unwrap();
        assert_eq!(m, Mode::Immediate);
        let (_, m) = problems(
            None,
            &args(&format!("{conv} -S ConvDirectNaiveConvFwd")),
            Mode::Find,
            None,
        )
        .unwrap();
        assert_eq!(m, Mode::Forced("ConvDirectNaiveConvFwd".into()));
    }

    /// The first problem of `cmd`, built for `release`, predicted in Find mode on gfx900 with
    /// the model of the same release.
    fn predict(cmd: &str, release: Option<&str>) -> rocpath_miopen::select::Prediction {
        use rocpath_miopen::model::context::{Device, Env};
        let (p, mode) = problems(None, &args(cmd), Mode::Find, release).unwrap();
        let dev = Device::parse("gfx900:xnack-", Some(64)).unwrap();
        let (env, build) = (Env::default(), std::collections::HashMap::new());
        let q = rocpath_miopen::select::Query {
            problem: &p[0],
            device: &dev,
            env: &env,
            build: &build,
            release,
            record: None,
            mode,
            tunanet: rocpath_miopen::select::TunaNetFiles::NotRead,
        };
        rocpath_miopen::select::select(rocpath_miopen::model::pinned().unwrap(), &q).prediction
    }

    #[test]
    fn convint8_is_built_as_the_model_release_builds_it() {
        use rocpath_miopen::select::Prediction;
        let int8 = "convint8 -n 32 -c 64 -H 56 -W 56 -k 64 -y 1 -x 1 -p 0 -q 0 -F 1";
        // 2d1fd997's driver makes the output int32, which its IsInt8 accepts: the naive solver
        // and the int8 GEMMs are timed (an all-int8 problem would have none: no_solution).
        match predict(int8, None) {
            Prediction::Unresolved { candidates, .. } => assert_eq!(
                candidates,
                [
                    "ConvDirectNaiveConvFwd",
                    "GemmFwd1x1_0_1_int8",
                    "GemmFwdRest"
                ]
            ),
            other => panic!("{other:?}"),
        }
        // 3.5.1's makes it int8, which only the naive solver takes.
        assert_eq!(
            predict(int8, Some("3.5.1")),
            Prediction::Solver {
                name: "ConvDirectNaiveConvFwd".into(),
                id: 85
            }
        );
    }

    #[test]
    fn unknown_solvers_and_empty_requests_are_refused() {
        let conv = "conv -n 1 -c 3 -H 32 -W 32 -k 8 -y 3 -x 3 -p 1 -q 1 -F 1";
        let e = problems(
            None,
            &args(&format!("{conv} -S NoSuchSolver")),
            Mode::Find,
            None,
        )
        .unwrap_err();
        assert!(
            matches!(e, RequestError::UnknownName(ref n) if n == "NoSuchSolver"),
            "{e}"
        );
        let e = problems(None, &args(&format!("{conv} -S 999999")), Mode::Find, None).unwrap_err();
        assert!(
            matches!(e, RequestError::UnknownSolver(ref n) if n == "999999"),
            "{e}"
        );
        assert!(matches!(
            problems(None, &[], Mode::Find, None),
            Err(RequestError::Nothing)
        ));
    }
}
