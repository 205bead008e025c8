//! The loss plot of a training run, as PNG (`loss.png`) and SVG (`loss.svg`), drawn with
//! `plotters`: the training and validation loss per superbatch on a logarithmic loss axis
//! (a run's loss falls by orders of magnitude early and by per mille late, and a log axis
//! shows both), labelled axes, a title and a legend that carries each curve's last value.
//!
//! Rendering (the embedded font, PNG encoding) is the `picture` crate's; the caller writes
//! the bytes by the workspace's output rule.
//!
//! A value that is not finite (no validation set, a diverged run) or not positive (a log
//! axis has no place for it) is left out, and its curve is broken there rather than drawn
//! through a made-up point.

use plotters::coord::Shift;
use plotters::prelude::*;
use std::fmt;

/// The size of the plot, in pixels (PNG) or user units (SVG).
pub const SIZE: (u32, u32) = (900, 560);

/// Colour of the training curve.
pub const TRAIN_COLOUR: RGBColor = RGBColor(31, 94, 214);
/// Colour of the validation curve.
pub const VALIDATION_COLOUR: RGBColor = RGBColor(214, 55, 40);

/// Why a plot could not be drawn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlotError(pub String);

impl fmt::Display for PlotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot draw the plot: {}", self.0)
    }
}

impl std::error::Error for PlotError {}

/// A number with three significant digits, for the log axis (0.0312, 0.5, 1.25, 12.5).
pub fn significant(v: f64) -> String {
    if !v.is_finite() || v == 0.0 {
        return format!("{v}");
    }
    let digits = (2 - v.abs().log10().floor() as i32).clamp(0, 12) as usize;
    let text = format!("{v:.digits$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// Evenly spaced round ticks (steps of 1, 2, 2.5 or 5 times a power of ten) from `lo` to
/// `hi`, about `target` of them.
pub fn linear_ticks(lo: f64, hi: f64, target: usize) -> Vec<f64> {
    if !(lo.is_finite() && hi.is_finite() && hi > lo) {
        return Vec::new();
    }
    let raw = (hi - lo) / target.max(1) as f64;
    let power = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * power)
        .find(|&s| s >= raw)
        .unwrap_or(10.0 * power);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|i| i as f64 * step).collect()
}

/// Ticks for a log axis from `lo` to `hi` (both above 0): the coarsest of powers of ten,
/// then 1-2-5, then finer mantissas, that puts at least four ticks on the axis; a range
/// too narrow for that (less than a factor of about 1.3) gets evenly spaced ticks.
pub fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    if !(lo > 0.0 && hi > lo && hi.is_finite()) {
        return Vec::new();
    }
    const MANTISSAS: [&[f64]; 5] = [
        &[1.0],
        &[1.0, 2.0, 5.0],
        &[1.0, 1.5, 2.0, 3.0, 5.0, 7.0],
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
        &[
            1.0, 1.2, 1.4, 1.6, 1.8, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 6.0, 7.0, 8.0, 9.0,
        ],
    ];
    let (from, to) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    for set in MANTISSAS {
        let ticks: Vec<f64> = (from..=to)
            .flat_map(|k| set.iter().map(move |m| m * 10f64.powi(k)))
            .filter(|v| (lo..=hi).contains(v))
            .collect();
        if ticks.len() >= 4 {
            // Very wide ranges: every n-th power of ten, at most 12 ticks.
            let every = ticks.len().div_ceil(12);
            return ticks.into_iter().step_by(every).collect();
        }
    }
    linear_ticks(lo, hi, 8)
}

/// Superbatch ticks from 1 to `n`: 1, then every 1, 2, 5, 10, 20, ... superbatches.
pub fn superbatch_ticks(n: u32) -> Vec<u32> {
    let n = n.max(1);
    let mut step = 1u32;
    for m in [2u32, 5, 10].iter().cycle().scan(1u32, |scale, &m| {
        let s = m.saturating_mul(*scale);
        if m == 10 {
            *scale = s;
        }
        Some(s)
    }) {
        if n / step <= 10 {
            break;
        }
        step = m;
    }
    let mut ticks = vec![1];
    ticks.extend((1..=n / step).map(|i| i * step).filter(|&t| t > 1));
    ticks
}

/// The drawable points of one curve, `(superbatch, loss)` from 1, split into runs at
/// values a log axis cannot show.
fn segments(history: &[(f64, f64)], validation: bool) -> Vec<Vec<(u32, f64)>> {
    let mut out: Vec<Vec<(u32, f64)>> = Vec::new();
    let mut current = Vec::new();
    for (i, &(train, val)) in history.iter().enumerate() {
        let v = if validation { val } else { train };
        if v.is_finite() && v > 0.0 {
            current.push((u32::try_from(i + 1).unwrap_or(u32::MAX), v));
        } else if !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// Draws the plot on any plotters backend.
fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, history: &[(f64, f64)]) -> Result<(), PlotError> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| PlotError(e.to_string());
    root.fill(&WHITE).map_err(err)?;
    let curves = [
        ("training", TRAIN_COLOUR, segments(history, false)),
        ("validation", VALIDATION_COLOUR, segments(history, true)),
    ];
    let values: Vec<f64> = curves
        .iter()
        .flat_map(|(_, _, s)| s.iter().flatten().map(|p| p.1))
        .collect();
    let (lo, hi) = if values.is_empty() {
        (0.01, 1.0)
    } else {
        let min = values.iter().copied().fold(f64::INFINITY, f64::min);
        let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        // At least a factor of 1.5 between the ends, so a flat curve sits mid-plot.
        let pad = ((1.5 * min / max).sqrt()).max(1.08);
        (min / pad, max * pad)
    };
    let superbatches = u32::try_from(history.len()).unwrap_or(u32::MAX).max(1);
    let title = match history.len() {
        0 => "Training loss (no superbatch finished yet)".to_string(),
        1 => "Training loss, 1 superbatch".to_string(),
        n => format!("Training loss, {n} superbatches"),
    };
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 24))
        .margin(16)
        .x_label_area_size(50)
        .y_label_area_size(80)
        .build_cartesian_2d(
            // One superbatch of margin on each side, so no point sits on an axis.
            (0..superbatches.saturating_add(1)).with_key_points(superbatch_ticks(superbatches)),
            (lo..hi).log_scale().with_key_points(log_ticks(lo, hi)),
        )
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("superbatch")
        .y_desc("loss (log scale)")
        .y_label_formatter(&|v| significant(*v))
        .axis_desc_style(("sans-serif", 18))
        .label_style(("sans-serif", 14))
        .light_line_style(RGBColor(236, 236, 236))
        .bold_line_style(RGBColor(210, 210, 210))
        .draw()
        .map_err(err)?;
    let mut legend = false;
    for (name, colour, runs) in &curves {
        let colour = *colour;
        let last = runs.last().and_then(|r| r.last()).map(|p| p.1);
        for (i, run) in runs.iter().enumerate() {
            let drawn = chart
                .draw_series(LineSeries::new(run.iter().copied(), colour.stroke_width(2)))
                .map_err(err)?;
            if i == 0 {
                let label = match last {
                    Some(v) => format!("{name} (last {})", significant(v)),
                    None => name.to_string(),
                };
                drawn.label(label).legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 24, y)], colour.stroke_width(3))
                });
                legend = true;
            }
            chart
                .draw_series(run.iter().map(|&p| Circle::new(p, 3, colour.filled())))
                .map_err(err)?;
        }
    }
    if legend {
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .label_font(("sans-serif", 16))
            .background_style(WHITE.mix(0.9))
            .border_style(RGBColor(160, 160, 160))
            .draw()
            .map_err(err)?;
    }
    root.present().map_err(err)
}

/// The loss plot of a history of `(training, validation)` losses per superbatch, as a
/// picture for `picture`'s renderers.
#[derive(Clone, Copy, Debug)]
pub struct LossPlot<'a>(pub &'a [(f64, f64)]);

impl picture::Picture for LossPlot<'_> {
    fn size(&self) -> (u32, u32) {
        SIZE
    }
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        draw(root, self.0).map_err(|e| e.0)
    }
}

/// The loss plot of `(training, validation)` losses per superbatch, as PNG.
pub fn loss_plot(history: &[(f64, f64)]) -> Result<Vec<u8>, PlotError> {
    picture::png(&LossPlot(history)).map_err(PlotError)
}

/// The same plot as SVG.
pub fn loss_plot_svg(history: &[(f64, f64)]) -> Result<String, PlotError> {
    picture::svg(&LossPlot(history)).map_err(PlotError)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// Decodes a PNG into (width, height, RGB bytes).
    fn decode(png_bytes: &[u8]) -> (u32, u32, Vec<u8>) {
        let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!(info.color_type, png::ColorType::Rgb);
        buf.truncate(info.buffer_size());
        (info.width, info.height, buf)
    }

    fn pixels_of(rgb: &[u8], colour: RGBColor) -> usize {
        rgb.chunks_exact(3)
            .filter(|p| p[0] == colour.0 && p[1] == colour.1 && p[2] == colour.2)
            .count()
    }

    #[test]
    fn values_that_are_not_finite_are_left_out() {
        // Before, +inf reached `bottom - usize::MAX` (an overflow) and NaN a line on the axis.
        let with_gaps = loss_plot(&[
            (0.5, f64::NAN),
            (f64::INFINITY, f64::NAN),
            (0.3, f64::NEG_INFINITY),
        ])
        .unwrap();
        let clean = loss_plot(&[(0.5, f64::NAN), (f64::NAN, f64::NAN), (0.3, f64::NAN)]).unwrap();
        assert_eq!(with_gaps, clean);
        assert_ne!(clean, loss_plot(&[]).unwrap(), "the finite points are drawn");
    }

    #[test]
    fn the_png_shows_both_curves_and_text() {
        let history: Vec<(f64, f64)> = (0..20)
            .map(|i| (0.1 * 0.8f64.powi(i), 0.11 * 0.82f64.powi(i)))
            .collect();
        let (w, h, rgb) = decode(&loss_plot(&history).unwrap());
        assert_eq!((w, h), SIZE);
        assert!(pixels_of(&rgb, TRAIN_COLOUR) > 500, "the training curve is drawn");
        assert!(
            pixels_of(&rgb, VALIDATION_COLOUR) > 500,
            "the validation curve is drawn"
        );
        // Text (title, tick labels, axis names) is dark grey or black anti-aliased glyphs:
        // the band of the title holds dark pixels.
        let title_band = &rgb[..(40 * w as usize * 3)];
        let dark = title_band
            .chunks_exact(3)
            .filter(|p| p.iter().all(|&c| c < 100))
            .count();
        assert!(dark > 100, "the title is drawn ({dark} dark pixels)");
    }

    #[test]
    fn without_validation_only_the_training_curve_is_drawn() {
        let history = [(0.2, f64::NAN), (0.1, f64::NAN), (0.05, f64::NAN)];
        let (_, _, rgb) = decode(&loss_plot(&history).unwrap());
        assert!(pixels_of(&rgb, TRAIN_COLOUR) > 100);
        assert_eq!(pixels_of(&rgb, VALIDATION_COLOUR), 0);
    }

    #[test]
    fn the_svg_has_labelled_axes_and_a_legend() {
        let svg = loss_plot_svg(&[(0.08, 0.09), (0.05, 0.06), (0.04, 0.05)]).unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(80)]);
        for text in [
            "superbatch",
            "loss (log scale)",
            "training (last 0.04)",
            "validation (last 0.05)",
            "Training loss, 3 superbatches",
        ] {
            assert!(svg.contains(text), "{text:?} missing");
        }
    }

    #[test]
    fn degenerate_histories_still_draw() {
        for history in [
            vec![],
            vec![(0.5, 0.5)],
            vec![(0.0, -1.0), (f64::NAN, f64::INFINITY)],
            vec![(1e-30, 1e30), (1e-30, 1e30)],
            vec![(0.25, 0.25); 5000],
        ] {
            let png_bytes = loss_plot(&history).unwrap();
            assert_eq!(decode(&png_bytes).0, SIZE.0);
            assert!(loss_plot_svg(&history).unwrap().trim_end().ends_with("</svg>"));
        }
    }

    #[test]
    fn ticks_are_round_and_inside_the_range() {
        assert_eq!(superbatch_ticks(1), [1]);
        assert_eq!(superbatch_ticks(3), [1, 2, 3]);
        assert_eq!(superbatch_ticks(40), [1, 5, 10, 15, 20, 25, 30, 35, 40]);
        assert_eq!(superbatch_ticks(1000).len(), 11);
        assert_eq!(superbatch_ticks(u32::MAX).len(), 9);
        let labels = |t: Vec<f64>| t.into_iter().map(significant).collect::<Vec<_>>();
        assert_eq!(
            labels(log_ticks(0.0001, 2.0)),
            ["0.0001", "0.001", "0.01", "0.1", "1"]
        );
        assert_eq!(labels(log_ticks(0.011, 0.06)), ["0.015", "0.02", "0.03", "0.05"]);
        let narrow = log_ticks(0.0149, 0.0152);
        assert!(
            narrow.len() >= 3 && narrow.iter().all(|v| (0.0149..=0.0152).contains(v)),
            "{narrow:?}"
        );
        assert!(log_ticks(1e-30, 1e30).len() <= 12);
        assert!(log_ticks(0.0, 1.0).is_empty() && linear_ticks(1.0, 1.0, 5).is_empty());
    }

    #[test]
    fn significant_digits() {
        assert_eq!(significant(0.031234), "0.0312");
        assert_eq!(significant(0.5), "0.5");
        assert_eq!(significant(1.25), "1.25");
        assert_eq!(significant(12.5), "12.5");
        assert_eq!(significant(1234.0), "1234");
    }
}
