//! Each tuned parameter's path as a picture (`arena spsa`, the `plot=` file): one small
//! panel per parameter, laid out in a grid, with theta after every iteration against the
//! iteration number, the start value dashed in grey, and the panel's title naming the
//! parameter and its value now. Each panel's value axis spans the path and the start (with
//! some air), so a parameter that moved a little still shows how it moved.
//!
//! Drawn as `sprt_plot` draws (plotters without its default features, text in the DejaVu
//! Sans font the `dejavu` crate embeds, PNG pixels encoded with the `png` crate, SVG as
//! text), and written through a temporary name and a rename, so a reader never sees half a
//! picture.

use crate::sprt_plot::{padded, PlotError};
use plotters::coord::Shift;
use plotters::prelude::*;

/// One panel's size, in pixels (PNG) or user units (SVG).
pub const PANEL: (u32, u32) = (360, 240);
/// Height of the picture's title strip.
pub const TITLE_HEIGHT: u32 = 40;
/// Colour of the paths.
pub const PATH_COLOUR: RGBColor = RGBColor(31, 94, 214);
/// Colour of the dashed start value.
pub const START_COLOUR: RGBColor = RGBColor(150, 150, 150);

/// Everything the picture shows.
#[derive(Clone, Debug)]
pub struct SpsaPlot<'a> {
    /// The parameters' names, in the order of the values in `history`.
    pub names: &'a [String],
    /// theta before the first iteration and after each: (iteration, one value a parameter).
    pub history: &'a [(u64, Vec<f64>)],
    /// The picture's title.
    pub title: String,
}

/// (columns, rows) of the grid for `n` panels: about square, wider than tall.
pub fn grid(n: usize) -> (usize, usize) {
    let n = n.max(1);
    let mut cols = 1;
    while cols * cols < n {
        cols += 1;
    }
    (cols, n.div_ceil(cols))
}

/// The picture's size for `n` parameters.
pub fn size(n: usize) -> (u32, u32) {
    let (cols, rows) = grid(n);
    (PANEL.0 * cols as u32, PANEL.1 * rows as u32 + TITLE_HEIGHT)
}

fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    name: &str,
    path: &[(f64, f64)],
    last_iteration: f64,
) -> Result<(), PlotError> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| PlotError::Draw(e.to_string());
    let start = path.first().map_or(0.0, |p| p.1);
    let now = path.last().map_or(start, |p| p.1);
    let lo = path.iter().map(|p| p.1).fold(start, f64::min);
    let hi = path.iter().map(|p| p.1).fold(start, f64::max);
    let (y0, y1) = padded(lo, hi);
    let x1 = last_iteration.max(1.0);
    let mut chart = ChartBuilder::on(area)
        .caption(format!("{name}: {now:.2}"), ("sans-serif", 15))
        .margin(8)
        .x_label_area_size(24)
        .y_label_area_size(52)
        .build_cartesian_2d(0.0..x1, y0..y1)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_labels(4)
        .y_labels(5)
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| format!("{v:.1}"))
        .label_style(("sans-serif", 11))
        .light_line_style(RGBColor(238, 238, 238))
        .bold_line_style(RGBColor(214, 214, 214))
        .draw()
        .map_err(err)?;
    chart
        .draw_series(DashedLineSeries::new(
            [(0.0, start), (x1, start)],
            6,
            4,
            START_COLOUR.stroke_width(1),
        ))
        .map_err(err)?;
    chart
        .draw_series(LineSeries::new(path.iter().copied(), PATH_COLOUR.stroke_width(2)))
        .map_err(err)?;
    Ok(())
}

fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, plot: &SpsaPlot) -> Result<(), PlotError> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| PlotError::Draw(e.to_string());
    root.fill(&WHITE).map_err(err)?;
    let (_, height) = root.dim_in_pixel();
    let (title, body) = root.split_vertically(TITLE_HEIGHT.min(height));
    title.titled(&plot.title, ("sans-serif", 20)).map_err(err)?;
    let (cols, rows) = grid(plot.names.len());
    let panels = body.split_evenly((rows, cols));
    let last = plot.history.last().map_or(1, |h| h.0) as f64;
    for (i, (name, area)) in plot.names.iter().zip(&panels).enumerate() {
        let path: Vec<(f64, f64)> = plot
            .history
            .iter()
            .filter_map(|(k, values)| values.get(i).map(|&v| (*k as f64, v)))
            .filter(|p| p.1.is_finite())
            .collect();
        draw_panel(area, name, &path, last)?;
    }
    root.present().map_err(err)
}

impl picture::Picture for SpsaPlot<'_> {
    fn size(&self) -> (u32, u32) {
        size(self.names.len())
    }
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        draw(root, self).map_err(|e| e.to_string())
    }
}

/// The picture as PNG bytes.
pub fn render_png(plot: &SpsaPlot) -> Result<Vec<u8>, PlotError> {
    picture::png(plot).map_err(PlotError::Draw)
}

/// The picture as SVG text.
pub fn render_svg(plot: &SpsaPlot) -> Result<String, PlotError> {
    picture::svg(plot).map_err(PlotError::Draw)
}

/// Draws the picture into `path` (SVG when it ends in `.svg`, else PNG) by the workspace's
/// rule for output files (`picture::write`; this plot used to write a `.partial` file of
/// its own and rename it, replacing a link or a device).
pub fn write(path: &str, plot: &SpsaPlot) -> Result<(), PlotError> {
    picture::write(std::path::Path::new(path), plot).map_err(|why| PlotError::Write { plot: "SPSA", why })
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn grids_are_about_square() {
        assert_eq!(grid(0), (1, 1));
        assert_eq!(grid(1), (1, 1));
        assert_eq!(grid(2), (2, 1));
        assert_eq!(grid(5), (3, 2));
        assert_eq!(grid(9), (3, 3));
        assert_eq!(grid(40), (7, 6));
        assert_eq!(size(2), (720, 280));
    }

    #[test]
    fn every_parameter_gets_a_panel_with_its_path() {
        let names = vec!["X".to_string(), "Y".to_string(), "Z".to_string()];
        let history: Vec<(u64, Vec<f64>)> = (0..=200)
            .map(|k| {
                let t = k as f64;
                (
                    k,
                    vec![80.0 - 50.0 * (1.0 - (-t / 40.0).exp()), 40.0 - 0.3 * t, 7.0],
                )
            })
            .collect();
        let plot = SpsaPlot {
            names: &names,
            history: &history,
            title: "SPSA: 200 of 200 iterations".into(),
        };
        let (w, h, rgb) = decode(&render_png(&plot).unwrap());
        assert_eq!((w, h), size(3));
        let blue = rgb
            .chunks_exact(3)
            .filter(|p| p[0] == PATH_COLOUR.0 && p[1] == PATH_COLOUR.1 && p[2] == PATH_COLOUR.2)
            .count();
        assert!(blue > 600, "{blue}");
        let svg = render_svg(&plot).unwrap();
        for text in ["X: 30.", "Y: -20.00", "Z: 7.00", "SPSA: 200 of 200 iterations"] {
            assert!(svg.contains(text), "{text:?} missing");
        }
        // No iterations yet, and no parameters, still draw.
        let one = [(0, vec![1.0, 2.0, 3.0])];
        for history in [&[][..], &one[..]] {
            let plot = SpsaPlot {
                names: &names,
                history,
                title: "t".into(),
            };
            assert_eq!(decode(&render_png(&plot).unwrap()).0, size(3).0);
        }
        let plot = SpsaPlot {
            names: &[],
            history: &[],
            title: "t".into(),
        };
        assert!(render_svg(&plot).unwrap().starts_with("<svg"));
    }

    #[test]
    fn writing_refuses_a_directory_and_leaves_nothing_behind() {
        let dir = testing::temp("spsa-plot");
        std::fs::create_dir_all(dir.join("taken.png")).unwrap();
        let names = vec!["X".to_string()];
        let history = vec![(0, vec![1.0]), (1, vec![2.0])];
        let plot = SpsaPlot {
            names: &names,
            history: &history,
            title: "t".into(),
        };
        let bad = dir.join("taken.png");
        let e = write(bad.to_str().unwrap(), &plot).unwrap_err().to_string();
        assert!(e.starts_with("the SPSA plot: ") && e.contains("taken.png"), "{e}");
        let left: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, ["taken.png"], "nothing but the directory stays behind");
        let good = dir.join("path.png");
        write(good.to_str().unwrap(), &plot).unwrap();
        assert!(std::fs::read(&good).unwrap().starts_with(b"\x89PNG"));
        std::fs::remove_dir_all(&dir).ok();
    }
}
