//! Geometry of the figures. Only numbers and labels are computed here; the SVG markup is in
//! `templates/figures.html`, so every label reaches the page through the template's escaping.

use rocpath_ledger::schemas::{Coverage, GROUP_ORDER, IsaFamily, processor_of};
use serde::Serialize;

/// The coverage heatmap.
#[derive(Debug, Serialize)]
pub struct Heatmap {
    /// Total width.
    pub width: u32,
    /// Total height.
    pub height: u32,
    /// Width of the row-label column.
    pub label_w: u32,
    /// Height of the column-label header.
    pub header: u32,
    /// Cell width.
    pub cell_w: u32,
    /// Cell height.
    pub cell_h: u32,
    /// Columns (targets).
    pub columns: Vec<HeatColumn>,
    /// Rows (libraries).
    pub rows: Vec<HeatRow>,
}

/// One column of the heatmap.
#[derive(Debug, Serialize)]
pub struct HeatColumn {
    /// Target id.
    pub label: String,
    /// Its processor (for highlighting a world).
    pub processor: String,
    /// Left edge.
    pub x: u32,
}

/// One row of the heatmap.
#[derive(Debug, Serialize)]
pub struct HeatRow {
    /// Shortened library path.
    pub label: String,
    /// Full library path.
    pub full: String,
    /// Top edge.
    pub y: u32,
    /// Cells, one per column.
    pub cells: Vec<HeatCell>,
}

/// One cell.
#[derive(Debug, Serialize)]
pub struct HeatCell {
    /// Left edge.
    pub x: u32,
    /// Target id.
    pub target: String,
    /// Code objects.
    pub code_objects: u64,
    /// Kernels.
    pub kernels: u64,
    /// Fill color (`#rrggbb`).
    pub fill: String,
}

/// Last two components of a path-like library name, for labels.
pub fn short_library(lib: &str) -> String {
    let parts: Vec<&str> = lib.split(['/', ':']).filter(|s| !s.is_empty()).collect();
    let n = parts.len();
    let s = if n >= 2 {
        format!("{}/{}", parts[n - 2], parts[n - 1])
    } else {
        lib.to_string()
    };
    if s.chars().count() > 46 {
        let tail: String = s
            .chars()
            .rev()
            .take(45)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        format!("…{tail}")
    } else {
        s
    }
}

fn shade(kernels: u64, max: u64) -> String {
    if kernels == 0 {
        return "#f1f3f6".to_string();
    }
    let t = ((kernels as f64).ln_1p() / (max.max(1) as f64).ln_1p()).clamp(0.0, 1.0);
    // From a light teal to a deep teal.
    let (r0, g0, b0) = (0xcc_u8, 0xec_u8, 0xe6_u8);
    let (r1, g1, b1) = (0x00_u8, 0x6d_u8, 0x77_u8);
    let mix = |a: u8, b: u8| {
        (f64::from(a) + (f64::from(b) - f64::from(a)) * (0.25 + 0.75 * t)).round() as u8
    };
    format!("#{:02x}{:02x}{:02x}", mix(r0, r1), mix(g0, g1), mix(b0, b1))
}

/// Lays out the heatmap of a coverage matrix; `None` when it is empty.
pub fn heatmap(cov: &Coverage) -> Option<Heatmap> {
    let libs = cov.libraries();
    let targets = cov.targets();
    if libs.is_empty() || targets.is_empty() {
        return None;
    }
    let (cell_w, cell_h, label_w, header) = (34u32, 22u32, 300u32, 96u32);
    let max = cov.cells.values().map(|c| c.kernels).max().unwrap_or(1);
    let columns: Vec<HeatColumn> = targets
        .iter()
        .enumerate()
        .map(|(i, t)| HeatColumn {
            label: t.clone(),
            processor: processor_of(t),
            x: label_w + i as u32 * cell_w,
        })
        .collect();
    let rows = libs
        .iter()
        .enumerate()
        .map(|(j, lib)| HeatRow {
            label: short_library(lib),
            full: lib.clone(),
            y: header + j as u32 * cell_h,
            cells: targets
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let c = cov.cells.get(&(lib.clone(), t.clone()));
                    let kernels = c.map_or(0, |c| c.kernels);
                    HeatCell {
                        x: label_w + i as u32 * cell_w,
                        target: t.clone(),
                        code_objects: c.map_or(0, |c| c.code_objects),
                        kernels,
                        fill: shade(kernels, max),
                    }
                })
                .collect(),
        })
        .collect();
    Some(Heatmap {
        width: label_w + targets.len() as u32 * cell_w + 10,
        height: header + libs.len() as u32 * cell_h + 4,
        label_w,
        header,
        cell_w,
        cell_h,
        columns,
        rows,
    })
}

/// The instruction-class bars.
#[derive(Debug, Serialize)]
pub struct Bars {
    /// Total width.
    pub width: u32,
    /// Total height.
    pub height: u32,
    /// Width of the label column.
    pub label_w: u32,
    /// Width of a full bar.
    pub bar_w: u32,
    /// Rows.
    pub rows: Vec<BarRow>,
    /// Legend entries.
    pub legend: Vec<LegendEntry>,
    /// Top of the legend.
    pub legend_y: u32,
}

/// One bar: a kernel family on one processor.
#[derive(Debug, Serialize)]
pub struct BarRow {
    /// `family · processor`.
    pub label: String,
    /// Kernel family.
    pub family: String,
    /// Processor.
    pub processor: String,
    /// Kernels summed.
    pub kernels: u64,
    /// Instructions.
    pub instructions: u64,
    /// Top edge.
    pub y: u32,
    /// Segments by group.
    pub segments: Vec<Segment>,
}

/// One segment of a bar.
#[derive(Debug, Serialize)]
pub struct Segment {
    /// Group name.
    pub group: String,
    /// Count.
    pub count: u64,
    /// Percent of the bar, one decimal.
    pub pct: String,
    /// Left edge.
    pub x: String,
    /// Width.
    pub w: String,
}

/// One legend entry.
#[derive(Debug, Serialize)]
pub struct LegendEntry {
    /// Group name.
    pub group: String,
    /// Left edge.
    pub x: u32,
    /// Top edge.
    pub y: u32,
}

/// Lays out bars for the given families (already ordered); `None` when there are none.
pub fn bars(fams: &[&IsaFamily]) -> Option<Bars> {
    if fams.is_empty() {
        return None;
    }
    let (label_w, bar_w, row_h) = (300u32, 420u32, 24u32);
    let rows: Vec<BarRow> = fams
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let total: u64 = f.groups.values().sum();
            let mut x = f64::from(label_w);
            let mut segments = Vec::new();
            let mut names: Vec<&str> = GROUP_ORDER.to_vec();
            for g in f.groups.keys() {
                if !names.contains(&g.as_str()) {
                    names.push(g);
                }
            }
            for g in names {
                let n = f.groups.get(g).copied().unwrap_or(0);
                if n == 0 || total == 0 {
                    continue;
                }
                let w = f64::from(bar_w) * n as f64 / total as f64;
                segments.push(Segment {
                    group: g.to_string(),
                    count: n,
                    pct: format!("{:.1}", 100.0 * n as f64 / total as f64),
                    x: format!("{x:.2}"),
                    w: format!("{w:.2}"),
                });
                x += w;
            }
            let label = format!("{} · {}", f.family, f.processor);
            BarRow {
                label: if label.chars().count() > 46 {
                    label.chars().take(45).collect::<String>() + "…"
                } else {
                    label
                },
                family: f.family.clone(),
                processor: f.processor.clone(),
                kernels: f.kernels,
                instructions: f.instructions,
                y: 6 + i as u32 * row_h,
                segments,
            }
        })
        .collect();
    let legend_y = 6 + rows.len() as u32 * row_h + 8;
    let legend = GROUP_ORDER
        .iter()
        .enumerate()
        .map(|(i, g)| LegendEntry {
            group: (*g).to_string(),
            x: label_w + (i as u32 % 7) * 64,
            y: legend_y + (i as u32 / 7) * 16,
        })
        .collect();
    Some(Bars {
        width: label_w + bar_w + 70,
        height: legend_y + 34,
        label_w,
        bar_w,
        rows,
        legend,
        legend_y,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rocpath_ledger::schemas::CoverageCell;

    #[test]
    fn heatmap_layout_and_shades() {
        let mut cov = Coverage::default();
        cov.cells.insert(
            ("lib/a.so".into(), "gfx906".into()),
            CoverageCell {
                code_objects: 1,
                kernels: 3,
                bytes: 9,
            },
        );
        cov.cells.insert(
            ("lib/b.so".into(), "gfx900:xnack-".into()),
            CoverageCell {
                code_objects: 2,
                kernels: 300,
                bytes: 9,
            },
        );
        let h = heatmap(&cov).unwrap();
        assert_eq!(
            h.columns
                .iter()
                .map(|c| c.label.as_str())
                .collect::<Vec<_>>(),
            ["gfx900:xnack-", "gfx906"]
        );
        assert_eq!(h.columns[0].processor, "gfx900");
        assert_eq!(h.rows.len(), 2);
        assert_eq!(h.rows[0].cells[0].fill, "#f1f3f6");
        assert_eq!(h.rows[1].cells[0].fill, "#006d77");
        assert!(heatmap(&Coverage::default()).is_none());
        assert_eq!(
            short_library("deb:opt/x/lib/libfoo.so.1"),
            "lib/libfoo.so.1"
        );
    }

    #[test]
    fn bars_fill_their_width() {
        let f = IsaFamily {
            family: "dot_i8".into(),
            processor: "gfx900".into(),
            kernels: 1,
            instructions: 10,
            groups: [("fma".to_string(), 3), ("valu".to_string(), 7)]
                .into_iter()
                .collect(),
        };
        let b = bars(&[&f]).unwrap();
        let segs = &b.rows[0].segments;
        assert_eq!(
            segs.iter().map(|s| s.group.as_str()).collect::<Vec<_>>(),
            ["fma", "valu"]
        );
        let end: f64 = segs[1].x.parse::<f64>().unwrap() + segs[1].w.parse::<f64>().unwrap();
        assert!((end - f64::from(b.label_w + b.bar_w)).abs() < 0.02);
        assert!(bars(&[]).is_none());
    }
}
