//! Text measured the same way on every target. plotters sizes text through
//! its font backend, which is a rough estimate natively (no font files) but
//! the browser's DOM on `wasm32-unknown-unknown` — absent in Node, so the
//! JavaScript tools would trap. [`Measured`] wraps a backend and answers
//! every size question with plotters' own native estimate, so the CLI, Node
//! and the browser draw byte-identical SVG.

use plotters::prelude::*;
use plotters_backend::{BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind};

/// plotters' native (`naive`) estimate of `text` at font `size`: width, height.
pub fn text_size(text: &str, size: f64) -> (u32, u32) {
    let em = size / 1.24 / 1.24;
    ((em * 0.7 * text.len() as f64).round() as u32, ((em * 0.24).round() + em.round()) as u32)
}

/// A backend whose text sizes are [`text_size`]; everything else is `B`'s.
pub struct Measured<B>(pub B);

/// An SVG backend writing into `buf`, measuring text with [`text_size`].
pub fn svg(buf: &mut String, size: (u32, u32)) -> Measured<SVGBackend<'_>> {
    Measured(SVGBackend::with_string(buf, size))
}

type Res<E> = Result<(), DrawingErrorKind<E>>;

impl<B: DrawingBackend> DrawingBackend for Measured<B> {
    type ErrorType = B::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.0.get_size()
    }
    fn ensure_prepared(&mut self) -> Res<B::ErrorType> {
        self.0.ensure_prepared()
    }
    fn present(&mut self) -> Res<B::ErrorType> {
        self.0.present()
    }
    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Res<B::ErrorType> {
        self.0.draw_pixel(point, color)
    }
    fn draw_line<S: BackendStyle>(&mut self, from: BackendCoord, to: BackendCoord, style: &S) -> Res<B::ErrorType> {
        self.0.draw_line(from, to, style)
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Res<B::ErrorType> {
        self.0.draw_rect(upper_left, bottom_right, style, fill)
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Res<B::ErrorType> {
        self.0.draw_path(path, style)
    }
    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Res<B::ErrorType> {
        self.0.draw_circle(center, radius, style, fill)
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Res<B::ErrorType> {
        self.0.fill_polygon(vert, style)
    }
    fn draw_text<T: BackendTextStyle>(&mut self, text: &str, style: &T, pos: BackendCoord) -> Res<B::ErrorType> {
        self.0.draw_text(text, style, pos)
    }
    fn estimate_text_size<T: BackendTextStyle>(
        &self,
        text: &str,
        style: &T,
    ) -> Result<(u32, u32), DrawingErrorKind<B::ErrorType>> {
        Ok(text_size(text, style.size()))
    }
    fn blit_bitmap(&mut self, pos: BackendCoord, size: (u32, u32), src: &[u8]) -> Res<B::ErrorType> {
        self.0.blit_bitmap(pos, size, src)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_measured_as_plotters_measures_it_natively() {
        // plotters' naive font at 12 px: em 7.80, "abc" 16 px wide, 10 px high.
        assert_eq!(text_size("abc", 12.0), (16, 10));
        assert_eq!(text_size("", 15.0), (0, 12));
    }
}
