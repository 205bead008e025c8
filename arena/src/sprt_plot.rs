//! The trajectory of an SPRT as a picture (`-sprt-plot FILE.png|FILE.svg`): after every
//! completed pair (or game, with `-games 1`) the runner records the games played, the
//! log-likelihood ratio and the Elo estimate with its 95% interval; when the match ends
//! this module draws two panels over the games axis. The upper one is the LLR walking
//! between its bounds (H0 accepted at the lower, H1 at the upper), the lower one the Elo
//! estimate in its shaded interval with `elo0` and `elo1` marked, which shows why a test
//! took as long as it did.
//!
//! Drawn with `plotters` without its default features (which need fontconfig and system
//! fonts): text comes from the DejaVu Sans font the `dejavu` crate embeds, PNG pixels are
//! encoded with the `png` crate and SVG is text, and the file is written through a
//! temporary name and a rename (the `output` crate's rule), so a reader never sees half a
//! picture. Estimates that are
//! not finite (every pair with the same result) are left out; values far outside the
//! bounds are clamped to the panel's edge rather than drawn over the axes.

use matchcore::sprt::SprtConfig;
use plotters::coord::Shift;
use plotters::prelude::*;

/// Why a plot (the SPRT's or `arena spsa`'s) cannot be drawn or written, in plotters' or the
/// file system's words: the `picture` crate, which the trainer and learn share, reports its
/// failures as text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlotError {
    /// Drawing or encoding failed.
    #[error("{0}")]
    Draw(String),
    /// The picture cannot be drawn into its file.
    #[error("the {plot} plot: {why}")]
    Write {
        /// Which plot: `SPRT` or `SPSA`.
        plot: &'static str,
        /// Why.
        why: String,
    },
}

/// The picture's size, in pixels (PNG) or user units (SVG).
pub const SIZE: (u32, u32) = (960, 720);

/// Colour of the LLR and Elo curves.
pub const CURVE_COLOUR: RGBColor = RGBColor(31, 94, 214);
/// Colour of the H1 bound and of `elo1`.
pub const H1_COLOUR: RGBColor = RGBColor(30, 150, 60);
/// Colour of the H0 bound and of `elo0`.
pub const H0_COLOUR: RGBColor = RGBColor(205, 50, 40);

/// The state of the test after some games.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SprtPoint {
    /// Games played so far.
    pub games: u64,
    /// The log-likelihood ratio after them.
    pub llr: f64,
    /// The Elo estimate after them.
    pub elo: f64,
    /// Half the width of the 95% interval.
    pub elo_error: f64,
}

/// Everything a picture shows.
#[derive(Clone, Debug)]
pub struct SprtPlot<'a> {
    /// The trajectory, in the order the games were played.
    pub points: &'a [SprtPoint],
    /// The test's `elo0`, `elo1` and error rates.
    pub sprt: &'a SprtConfig,
    /// The LLR bounds (lower: H0, upper: H1).
    pub bounds: (f64, f64),
    /// The picture's title.
    pub title: String,
}

/// A range from `lo` to `hi` with some air, never empty.
pub(crate) fn padded(lo: f64, hi: f64) -> (f64, f64) {
    let span = (hi - lo).max(1e-6);
    (lo - 0.08 * span, hi + 0.08 * span)
}

/// One panel over the games axis: a mesh, an optional shaded band, two dashed horizontal
/// marks (H1's then H0's), the curve, and a legend in the upper left.
struct Panel {
    /// The value axis, bottom to top.
    y_range: (f64, f64),
    /// The value axis's name.
    y_desc: &'static str,
    /// Decimals of the value axis's labels.
    y_decimals: usize,
    /// The shaded polygon drawn under everything else (empty: none).
    band: Vec<(f64, f64)>,
    /// The dashed marks: value, colour and legend label.
    marks: [(f64, RGBColor, String); 2],
    /// The curve's points and its legend label.
    curve: Vec<(f64, f64)>,
    curve_label: String,
}

fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    max_games: f64,
    panel: Panel,
) -> Result<(), PlotError> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| PlotError::Draw(e.to_string());
    let (y0, y1) = panel.y_range;
    let mut chart = ChartBuilder::on(area)
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..max_games, y0..y1)
        .map_err(err)?;
    let decimals = panel.y_decimals;
    chart
        .configure_mesh()
        .x_desc("games")
        .y_desc(panel.y_desc)
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| format!("{v:.decimals$}"))
        .axis_desc_style(("sans-serif", 16))
        .label_style(("sans-serif", 13))
        .light_line_style(RGBColor(238, 238, 238))
        .bold_line_style(RGBColor(214, 214, 214))
        .draw()
        .map_err(err)?;
    if !panel.band.is_empty() {
        chart
            .draw_series(std::iter::once(Polygon::new(
                panel.band,
                CURVE_COLOUR.mix(0.18).filled(),
            )))
            .map_err(err)?;
    }
    for (value, colour, label) in panel.marks {
        chart
            .draw_series(DashedLineSeries::new(
                [(0.0, value), (max_games, value)],
                8,
                5,
                colour.stroke_width(2),
            ))
            .map_err(err)?
            .label(label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 22, y)], colour.stroke_width(2)));
    }
    chart
        .draw_series(LineSeries::new(panel.curve, CURVE_COLOUR.stroke_width(2)))
        .map_err(err)?
        .label(panel.curve_label)
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 22, y)], CURVE_COLOUR.stroke_width(3)));
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .label_font(("sans-serif", 14))
        .background_style(WHITE.mix(0.9))
        .border_style(RGBColor(160, 160, 160))
        .draw()
        .map_err(err)?;
    Ok(())
}

fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, plot: &SprtPlot) -> Result<(), PlotError> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| PlotError::Draw(e.to_string());
    root.fill(&WHITE).map_err(err)?;
    let area = root.titled(&plot.title, ("sans-serif", 22)).map_err(err)?;
    let (top, bottom) = area.split_vertically(area.dim_in_pixel().1 / 2);
    let points: Vec<SprtPoint> = plot
        .points
        .iter()
        .copied()
        .filter(|p| p.llr.is_finite())
        .collect();
    let max_games = points.iter().map(|p| p.games).max().unwrap_or(0).max(2) as f64;
    let (lower, upper) = plot.bounds;

    // Upper panel: the LLR between its bounds.
    let llr_lo = points.iter().map(|p| p.llr).fold(lower, f64::min);
    let llr_hi = points.iter().map(|p| p.llr).fold(upper, f64::max);
    let last_llr = points.last().map_or(0.0, |p| p.llr);
    draw_panel(
        &top,
        max_games,
        Panel {
            y_range: padded(llr_lo, llr_hi),
            y_desc: "LLR",
            y_decimals: 1,
            band: Vec::new(),
            marks: [
                (upper, H1_COLOUR, format!("H1 accepted at {upper:.2}")),
                (lower, H0_COLOUR, format!("H0 accepted at {lower:.2}")),
            ],
            curve: std::iter::once((0.0, 0.0))
                .chain(points.iter().map(|p| (p.games as f64, p.llr)))
                .collect(),
            curve_label: format!("LLR (now {last_llr:.2})"),
        },
    )?;

    // Lower panel: the Elo estimate and its interval, with elo0 and elo1.
    let elo: Vec<&SprtPoint> = points
        .iter()
        .filter(|p| p.elo.is_finite() && p.elo_error.is_finite())
        .collect();
    let (e0, e1) = (plot.sprt.elo0, plot.sprt.elo1);
    // The interval of the first few games is wide; the panel shows at most 4 times the
    // distance of the test's bounds from 0 beyond the latest interval.
    let reach = 4.0 * e0.abs().max(e1.abs()).max(5.0);
    let last = elo
        .last()
        .map_or((0.0, 0.0), |p| (p.elo - p.elo_error, p.elo + p.elo_error));
    let lo_cap = e0.min(last.0) - reach;
    let hi_cap = e1.max(last.1) + reach;
    let elo_lo = elo
        .iter()
        .map(|p| p.elo - p.elo_error)
        .fold(e0.min(e1), f64::min)
        .max(lo_cap);
    let elo_hi = elo
        .iter()
        .map(|p| p.elo + p.elo_error)
        .fold(e0.max(e1), f64::max)
        .min(hi_cap);
    let (y0, y1) = padded(elo_lo, elo_hi);
    let clamp = |v: f64| v.clamp(y0, y1);
    let band = if elo.len() >= 2 {
        elo.iter()
            .map(|p| (p.games as f64, clamp(p.elo + p.elo_error)))
            .chain(
                elo.iter()
                    .rev()
                    .map(|p| (p.games as f64, clamp(p.elo - p.elo_error))),
            )
            .collect()
    } else {
        Vec::new()
    };
    draw_panel(
        &bottom,
        max_games,
        Panel {
            y_range: (y0, y1),
            y_desc: "Elo (95% interval)",
            y_decimals: 0,
            band,
            marks: [
                (e1, H1_COLOUR, format!("elo1 = {e1}")),
                (e0, H0_COLOUR, format!("elo0 = {e0}")),
            ],
            curve: elo.iter().map(|p| (p.games as f64, clamp(p.elo))).collect(),
            curve_label: match elo.last() {
                Some(p) => format!("Elo {:.1} +/- {:.1}", p.elo, p.elo_error),
                None => "Elo (no estimate yet)".to_string(),
            },
        },
    )?;
    root.present().map_err(err)
}

impl picture::Picture for SprtPlot<'_> {
    fn size(&self) -> (u32, u32) {
        SIZE
    }
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        draw(root, self).map_err(|e| e.to_string())
    }
}

/// The picture as PNG bytes.
pub fn render_png(plot: &SprtPlot) -> Result<Vec<u8>, PlotError> {
    picture::png(plot).map_err(PlotError::Draw)
}

/// The picture as SVG text.
pub fn render_svg(plot: &SprtPlot) -> Result<String, PlotError> {
    picture::svg(plot).map_err(PlotError::Draw)
}

/// Draws the picture into `path` (SVG when it ends in `.svg`, else PNG) by the workspace's
/// rule for output files (`picture::write`).
pub fn write(path: &str, plot: &SprtPlot) -> Result<(), PlotError> {
    picture::write(std::path::Path::new(path), plot).map_err(|why| PlotError::Write { plot: "SPRT", why })
}

#[cfg(test)]
mod tests {
    use super::*;
    use matchcore::stats::Model;

    fn sprt() -> SprtConfig {
        SprtConfig {
            elo0: 0.0,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.05,
            model: Model::Normalized,
        }
    }

    fn walk(n: u64) -> Vec<SprtPoint> {
        (1..=n)
            .map(|i| SprtPoint {
                games: 2 * i,
                llr: 3.2 * (i as f64 / n as f64) - 0.4 * ((i as f64) * 0.7).sin(),
                elo: 12.0 + 40.0 / (i as f64).sqrt(),
                elo_error: 300.0 / (i as f64).sqrt(),
            })
            .collect()
    }

    fn pixels_of(rgb: &[u8], colour: RGBColor) -> usize {
        rgb.chunks_exact(3)
            .filter(|p| p[0] == colour.0 && p[1] == colour.1 && p[2] == colour.2)
            .count()
    }

    fn decode(bytes: &[u8]) -> (u32, u32, Vec<u8>) {
        let mut reader = png::Decoder::new(std::io::Cursor::new(bytes))
            .read_info()
            .unwrap();
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).unwrap();
        buf.truncate(info.buffer_size());
        (info.width, info.height, buf)
    }

    #[test]
    fn the_png_shows_the_walk_and_both_bounds() {
        let points = walk(200);
        let s = sprt();
        let plot = SprtPlot {
            points: &points,
            sprt: &s,
            bounds: (-2.94, 2.94),
            title: "SPRT [0, 5]: new vs base, H1 accepted after 400 games".into(),
        };
        let (w, h, rgb) = decode(&render_png(&plot).unwrap());
        assert_eq!((w, h), SIZE);
        assert!(pixels_of(&rgb, CURVE_COLOUR) > 1000);
        assert!(pixels_of(&rgb, H1_COLOUR) > 200);
        assert!(pixels_of(&rgb, H0_COLOUR) > 200);
        let svg = render_svg(&plot).unwrap();
        for text in [
            "games",
            "LLR",
            "Elo (95% interval)",
            "H1 accepted at 2.94",
            "H0 accepted at -2.94",
            "elo0 = 0",
            "elo1 = 5",
            "H1 accepted after 400 games",
        ] {
            assert!(svg.contains(text), "{text:?} missing");
        }
    }

    #[test]
    fn empty_and_degenerate_trajectories_still_draw() {
        let s = sprt();
        let infinite = [
            SprtPoint {
                games: 2,
                llr: 0.3,
                elo: f64::INFINITY,
                elo_error: f64::NAN,
            },
            SprtPoint {
                games: 4,
                llr: f64::NAN,
                elo: 1e9,
                elo_error: 1e9,
            },
        ];
        for points in [&[][..], &infinite[..], &walk(1)[..]] {
            let plot = SprtPlot {
                points,
                sprt: &s,
                bounds: (-2.94, 2.94),
                title: "t".into(),
            };
            assert_eq!(decode(&render_png(&plot).unwrap()).0, SIZE.0);
            assert!(render_svg(&plot).unwrap().contains("Elo"));
        }
    }

    #[test]
    fn writing_refuses_a_directory_and_leaves_nothing_behind() {
        let dir = testing::temp("sprt-plot");
        std::fs::create_dir_all(dir.join("taken.png")).unwrap();
        let points = walk(10);
        let s = sprt();
        let plot = SprtPlot {
            points: &points,
            sprt: &s,
            bounds: (-2.94, 2.94),
            title: "t".into(),
        };
        let bad = dir.join("taken.png");
        let e = write(bad.to_str().unwrap(), &plot).unwrap_err().to_string();
        assert!(e.starts_with("the SPRT plot: "), "{e}");
        assert!(
            e.ends_with("taken.png is a directory, not a file to write"),
            "{e}"
        );
        assert!(!dir.join("taken.png.partial").exists());
        let good = dir.join("walk.svg");
        write(good.to_str().unwrap(), &plot).unwrap();
        assert!(std::fs::read_to_string(&good).unwrap().starts_with("<svg"));
        // A link keeps being one, its target gets the picture; /dev/null stays a device.
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt;
            let link = dir.join("latest.svg");
            std::os::unix::fs::symlink("walk.svg", &link).unwrap();
            std::fs::write(&good, b"old").unwrap();
            write(link.to_str().unwrap(), &plot).unwrap();
            assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
            assert!(std::fs::read_to_string(&good).unwrap().starts_with("<svg"));
            let null = std::path::Path::new("/dev/null");
            assert!(matches!(
                output::plan(null).unwrap(),
                output::Plan::Through { .. }
            ));
            write("/dev/null", &plot).unwrap();
            assert!(std::fs::metadata(null).unwrap().file_type().is_char_device());
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}
