//! A loss plot as a PNG, with no dependencies: a white canvas, axes, the training loss in
//! blue and the validation loss in red, one point per superbatch. The PNG is written with
//! stored (uncompressed) deflate blocks, which every reader accepts. A value that is not
//! finite (no validation set, a diverged run) is left out of its curve rather than drawn.

/// CRC-32 (PNG chunks).
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn adler32(bytes: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for &x in bytes {
        a = (a + u32::from(x)) % 65521;
        b = (b + a) % 65521;
    }
    b << 16 | a
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let start = out.len();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let crc = crc32(&out[start..]);
    out.extend_from_slice(&crc.to_be_bytes());
}

/// Encodes an RGB image as PNG.
pub fn encode_png(width: usize, height: usize, rgb: &[u8]) -> Vec<u8> {
    let mut raw = Vec::with_capacity((width * 3 + 1) * height);
    for row in rgb.chunks_exact(width * 3) {
        raw.push(0);
        raw.extend_from_slice(row);
    }
    let mut zlib = vec![0x78, 0x01];
    let blocks: Vec<&[u8]> = raw.chunks(65535).collect();
    for (i, block) in blocks.iter().enumerate() {
        zlib.push(u8::from(i + 1 == blocks.len()));
        let len = block.len() as u16;
        zlib.extend_from_slice(&len.to_le_bytes());
        zlib.extend_from_slice(&(!len).to_le_bytes());
        zlib.extend_from_slice(block);
    }
    zlib.extend_from_slice(&adler32(&raw).to_be_bytes());
    let mut out = vec![0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1A, b'\n'];
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&(width as u32).to_be_bytes());
    ihdr.extend_from_slice(&(height as u32).to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
    chunk(&mut out, b"IHDR", &ihdr);
    chunk(&mut out, b"IDAT", &zlib);
    chunk(&mut out, b"IEND", &[]);
    out
}

/// Draws the curves `(train, validation)` per superbatch.
pub fn loss_plot(history: &[(f64, f64)]) -> Vec<u8> {
    let (w, h) = (640usize, 400usize);
    let (left, right, top, bottom) = (50usize, 620usize, 20usize, 370usize);
    let mut img = vec![255u8; w * h * 3];
    let mut set = |x: usize, y: usize, c: [u8; 3]| {
        if x < w && y < h {
            img[(y * w + x) * 3..(y * w + x) * 3 + 3].copy_from_slice(&c);
        }
    };
    for x in left..=right {
        set(x, bottom, [0, 0, 0]);
    }
    for y in top..=bottom {
        set(left, y, [0, 0, 0]);
    }
    let values: Vec<f64> = history
        .iter()
        .flat_map(|&(a, b)| [a, b])
        .filter(|v| v.is_finite())
        .collect();
    if history.is_empty() || values.is_empty() {
        return encode_png(w, h, &img);
    }
    let max = values.iter().cloned().fold(f64::MIN, f64::max);
    let min = values.iter().cloned().fold(f64::MAX, f64::min);
    let span = (max - min).max(1e-12);
    let px = |i: usize| left + (i * (right - left)) / history.len().max(2).saturating_sub(1).max(1);
    let py = |v: f64| bottom - (((v - min) / span).clamp(0.0, 1.0) * (bottom - top) as f64) as usize;
    for (curve, colour) in [(0usize, [30u8, 80, 220]), (1, [220, 40, 40])] {
        let points: Vec<Option<(usize, usize)>> = history
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let v = if curve == 0 { p.0 } else { p.1 };
                v.is_finite().then(|| (px(i), py(v)))
            })
            .collect();
        for pair in points.windows(2) {
            let (Some((x0, y0)), Some((x1, y1))) = (pair[0], pair[1]) else {
                continue;
            };
            let steps = x1.abs_diff(x0).max(y1.abs_diff(y0)).max(1);
            for s in 0..=steps {
                let x = x0 as f64 + (x1 as f64 - x0 as f64) * s as f64 / steps as f64;
                let y = y0 as f64 + (y1 as f64 - y0 as f64) * s as f64 / steps as f64;
                for d in 0..2 {
                    set(x as usize, y as usize + d, colour);
                }
            }
        }
        for &(x, y) in points.iter().flatten() {
            for dx in 0..3 {
                for dy in 0..3 {
                    set(x + dx, y + dy, colour);
                }
            }
        }
    }
    encode_png(w, h, &img)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_that_are_not_finite_are_left_out() {
        // Before, +inf reached `bottom - usize::MAX` (an overflow) and NaN a line on the axis.
        let with_gaps = loss_plot(&[
            (0.5, f64::NAN),
            (f64::INFINITY, f64::NAN),
            (0.3, f64::NEG_INFINITY),
        ]);
        let clean = loss_plot(&[(0.5, f64::NAN), (f64::NAN, f64::NAN), (0.3, f64::NAN)]);
        assert_eq!(with_gaps, clean);
        assert_ne!(clean, loss_plot(&[]), "the finite points are drawn");
    }
}
