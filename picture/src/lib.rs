//! The one way Luft's tools turn a drawing into a file: arena's SPRT and SPSA plots, the
//! trainer's loss plot and `learn report`'s plots each describe what they draw as a
//! [`Picture`] (a size and a `draw` over any plotters backend), and this crate renders it
//! to PNG or SVG and writes it.
//!
//! plotters runs without its default features, which find fonts through fontconfig and so
//! need system libraries a bare build machine lacks: text is drawn by `ab_glyph` from the
//! DejaVu Sans font the `dejavu` crate embeds ([`register_font`], once per process), so a
//! picture looks the same on every machine. The bitmap backend draws into a buffer that is
//! encoded here with the `png` crate, and [`write()`] goes through `output::write` (a
//! temporary file and a rename for a regular file, a link kept, a device or FIFO written
//! through), never through plotters' own encoder, which writes to the final path directly.

use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;
use std::sync::OnceLock;

/// Something to draw: its size (pixels for PNG, user units for SVG) and how to draw it on
/// any backend. Errors are messages (the backends' own error types differ).
pub trait Picture {
    /// Width and height.
    fn size(&self) -> (u32, u32);
    /// Draws the picture on `root` (already of [`Picture::size`]) and presents it.
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String>;
}

/// A backend's error as a message, for `map_err` inside [`Picture::draw`].
pub fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// Makes the embedded DejaVu Sans plotters' "sans-serif" (once per process). Error: the
/// embedded font does not parse (a broken build).
pub fn register_font() -> Result<(), String> {
    static REGISTERED: OnceLock<Result<(), String>> = OnceLock::new();
    REGISTERED
        .get_or_init(|| {
            plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular())
                .map_err(|_| "the embedded DejaVu Sans font does not parse".to_string())
        })
        .clone()
}

/// Encodes an RGB buffer (3 bytes a pixel, rows top to bottom) of `size` as PNG.
pub fn encode_png(size: (u32, u32), rgb: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, size.0, size.1);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().map_err(|e| format!("PNG header: {e}"))?;
        writer
            .write_image_data(rgb)
            .map_err(|e| format!("PNG data: {e}"))?;
        writer.finish().map_err(|e| format!("PNG end: {e}"))?;
    }
    Ok(out)
}

/// The picture as PNG bytes.
pub fn png(picture: &impl Picture) -> Result<Vec<u8>, String> {
    register_font()?;
    let size = picture.size();
    let mut rgb = vec![0u8; size.0 as usize * size.1 as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, size).into_drawing_area();
        picture.draw(&root)?;
    }
    encode_png(size, &rgb)
}

/// The picture as SVG text.
pub fn svg(picture: &impl Picture) -> Result<String, String> {
    register_font()?;
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, picture.size()).into_drawing_area();
        picture.draw(&root)?;
    }
    Ok(text)
}

/// Draws the picture into `path`: SVG when the name ends in `.svg` (any case), PNG
/// otherwise, by the workspace's rule for output files (`output::write`). Errors: the
/// drawing's, or the write's (with the path).
pub fn write(path: &Path, picture: &impl Picture) -> Result<(), String> {
    let is_svg = path
        .extension()
        .is_some_and(|e| e.to_string_lossy().eq_ignore_ascii_case("svg"));
    let bytes = if is_svg {
        svg(picture)?.into_bytes()
    } else {
        png(picture)?
    };
    output::write(path, &[], &bytes).map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Square;

    impl Picture for Square {
        fn size(&self) -> (u32, u32) {
            (40, 30)
        }
        fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
            root.fill(&RGBColor(10, 200, 30)).map_err(err)?;
            root.draw_text("x", &("sans-serif", 12).into_font().color(&BLACK), (2, 2))
                .map_err(err)?;
            root.present().map_err(err)
        }
    }

    #[test]
    fn a_picture_renders_to_png_and_svg_and_is_written_by_its_extension() {
        let bytes = png(&Square).unwrap();
        let decoder = png::Decoder::new(std::io::Cursor::new(&bytes));
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!((info.width, info.height), (40, 30));
        assert_eq!(&buf[..3], &[10, 200, 30]);
        let text = svg(&Square).unwrap();
        assert!(
            text.starts_with("<svg") && text.contains("width=\"40\""),
            "{text}"
        );

        let dir = std::env::temp_dir().join(format!("picture-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        write(&dir.join("a.PNG"), &Square).unwrap();
        write(&dir.join("a.Svg"), &Square).unwrap();
        assert!(std::fs::read(dir.join("a.PNG")).unwrap().starts_with(b"\x89PNG"));
        assert!(std::fs::read(dir.join("a.Svg")).unwrap().starts_with(b"<svg"));
        let error = write(&dir.join("missing/a.png"), &Square).unwrap_err();
        assert!(error.contains("missing/a.png"), "{error}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
