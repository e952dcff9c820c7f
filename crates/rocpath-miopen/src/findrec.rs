//! Find-db records: `key=item;item;…`, with legacy 1.0 items
//! (`<algo>:<Solver>,<time>,<ws>,<algo>,<unused>`) and 2.0 items (`<Solver>:<time>,<ws>,<algo>`).
//!
//! Source: ROCm/MIOpen@2d1fd997 `src/db_record.cpp:90-164` (record parsing, legacy items,
//! duplicates ignored), `src/include/miopen/perf_field.hpp:48-74` (2.0 item fields).

pub use rocpath_docs::conv::FindItem;

/// A parsed record, items in file order. Items that fit neither format are skipped ("Ill-formed
/// file: ID not found; skipped", db_record.cpp:133-137); a repeated solver keeps its first item
/// ("Duplicate ID (ignored)", :156-160).
pub fn parse_record(contents: &str) -> Vec<FindItem> {
    let mut out: Vec<FindItem> = Vec::new();
    for item in contents.trim().split(';') {
        let Some((id, values)) = item.split_once(':') else {
            continue;
        };
        let v: Vec<&str> = values.split(',').collect();
        let parsed = if id.starts_with("miopenConvolution") {
            match v.as_slice() {
                [solver, t, ws, ..] => Some((*solver, id, *t, *ws, true)),
                _ => None,
            }
        } else {
            match v.as_slice() {
                [t, ws, algo, ..] => Some((id, *algo, *t, *ws, false)),
                _ => None,
            }
        };
        let Some((solver, algorithm, t, ws, legacy)) = parsed else {
            continue;
        };
        let (Ok(time_ms), Ok(workspace)) = (t.trim().parse::<f64>(), ws.trim().parse::<u64>())
        else {
            continue;
        };
        if solver.is_empty() || out.iter().any(|i| i.solver == solver) {
            continue;
        }
        out.push(FindItem {
            solver: solver.to_string(),
            algorithm: algorithm.to_string(),
            time_ms,
            workspace,
            legacy,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legacy_and_current_items() {
        let r = parse_record(
            "miopenConvolutionFwdAlgoWinograd:ConvBinWinograd3x3U,0.676743,0,miopenConvolutionFwdAlgoWinograd,<unused>",
        );
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].solver, "ConvBinWinograd3x3U");
        assert_eq!(r[0].time_ms, 0.676743);
        assert!(r[0].legacy);
        let r = parse_record(
            "ConvDirectNaiveConvFwd:4.87333,0,miopenConvolutionFwdAlgoDirect;GemmFwdRest:6.7,1024,miopenConvolutionFwdAlgoGEMM;GemmFwdRest:1,1,x",
        );
        assert_eq!(r.len(), 2);
        assert_eq!(r[1].workspace, 1024);
        assert_eq!(r[1].algorithm, "miopenConvolutionFwdAlgoGEMM");
        assert!(parse_record("garbage").is_empty());
        assert!(parse_record("A:x,1,algo").is_empty());
    }
}
