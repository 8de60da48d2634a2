//! The chart's layout, pure geometry: ticks, shown x labels, bars and line points in viewBox units.

use super::{extent, ChartKind, ChartProps, Series};

/// ViewBox width.
pub const WIDTH: f64 = 640.0;
/// ViewBox height.
pub const HEIGHT: f64 = 300.0;
const TOP: f64 = 12.0;
const RIGHT: f64 = 16.0;
const BOTTOM: f64 = 40.0;
const CHAR_W: f64 = 6.5;

/// A y-axis tick.
#[derive(Debug, Clone, PartialEq)]
pub struct Tick {
    pub y: f64,
    pub text: String,
}

/// An x-axis label that is shown (labels are thinned out when there are many).
#[derive(Debug, Clone, PartialEq)]
pub struct XLabel {
    pub x: f64,
    pub text: String,
    pub full: String,
}

/// One bar.
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    pub series: usize,
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
    pub tooltip: String,
}

/// One point of a line.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    pub x: f64,
    pub y: f64,
    pub tooltip: String,
}

/// Where everything goes.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// Plot area: left, top, right, bottom.
    pub plot: (f64, f64, f64, f64),
    /// The y of the value 0 (the x axis).
    pub zero_y: f64,
    pub ticks: Vec<Tick>,
    pub x_labels: Vec<XLabel>,
    /// Bar charts: labels × series bars.
    pub bars: Vec<Bar>,
    /// Line charts: the points of each series.
    pub lines: Vec<Vec<Point>>,
}

/// A "nice" tick step (1, 2, 2.5 or 5 × 10ⁿ) giving about `target` steps over `range`.
fn nice_step(range: f64, target: f64) -> f64 {
    let raw = range / target;
    let mag = 10f64.powf(raw.log10().floor());
    let norm = raw / mag;
    let nice = if norm <= 1.0 {
        1.0
    } else if norm <= 2.0 {
        2.0
    } else if norm <= 2.5 {
        2.5
    } else if norm <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * mag
}

/// A tick value as short text: `k`/`M`/`B` suffixes, as many decimals as the step needs.
pub fn format_tick(v: f64, step: f64, magnitude: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let (div, suffix) = if magnitude >= 1e9 {
        (1e9, "B")
    } else if magnitude >= 1e6 {
        (1e6, "M")
    } else if magnitude >= 1e4 {
        (1e3, "k")
    } else {
        (1.0, "")
    };
    let s = step / div;
    let decimals = (0..=6)
        .find(|&d| {
            let scaled = s * 10f64.powi(d);
            (scaled - scaled.round()).abs() < 1e-6 * scaled.abs().max(1.0)
        })
        .unwrap_or(6) as usize;
    let text = format!("{:.*}{suffix}", decimals, v / div);
    if text.starts_with('-') && text[1..].chars().all(|c| c == '0' || c == '.') {
        text[1..].to_string()
    } else {
        text
    }
}

/// Shortens `s` to at most `max` characters, with an ellipsis.
fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max.saturating_sub(1).max(1)).collect();
        t.push('…');
        t
    }
}

/// Computes the geometry of a validated chart.
pub fn layout(p: &ChartProps) -> Layout {
    let (min, max) = extent(&p.series);
    let range = if max - min > 0.0 { max - min } else { 1.0 };
    let step = nice_step(range, 5.0);
    let lo = (min / step).floor() * step;
    let hi = (max / step).ceil() * step;
    let hi = if hi > lo { hi } else { lo + step };
    let n_ticks = ((hi - lo) / step).round() as usize;
    let magnitude = lo.abs().max(hi.abs());
    let tick_values: Vec<f64> = (0..=n_ticks).map(|k| lo + k as f64 * step).collect();
    let tick_texts: Vec<String> = tick_values
        .iter()
        .map(|&v| format_tick(v, step, magnitude))
        .collect();
    let widest = tick_texts
        .iter()
        .map(|t| t.chars().count())
        .max()
        .unwrap_or(1);
    let left = (widest as f64 * CHAR_W + 14.0).clamp(32.0, 96.0);
    let (x0, y0, x1, y1) = (left, TOP, WIDTH - RIGHT, HEIGHT - BOTTOM);
    let y_of = |v: f64| y1 - (v - lo) / (hi - lo) * (y1 - y0);
    let zero_y = y_of(0.0);

    let ticks = tick_values
        .iter()
        .zip(tick_texts)
        .map(|(&v, text)| Tick { y: y_of(v), text })
        .collect();

    let n = p.labels.len();
    let band = (x1 - x0) / n as f64;
    let max_shown = ((x1 - x0) / 48.0).floor().max(1.0) as usize;
    let every = n.div_ceil(max_shown).max(1);
    let fit = ((band * every as f64) / CHAR_W).floor().max(4.0) as usize;
    let x_labels = p
        .labels
        .iter()
        .enumerate()
        .filter(|(i, _)| i % every == 0)
        .map(|(i, l)| XLabel {
            x: x0 + band * (i as f64 + 0.5),
            text: truncate(l, fit),
            full: l.clone(),
        })
        .collect();

    let tooltip = |s: &Series, i: usize| format!("{} · {}: {}", s.name, p.labels[i], s.values[i]);
    let mut bars = Vec::new();
    let mut lines = Vec::new();
    match p.kind {
        ChartKind::Bar => {
            let group = band * 0.8;
            let bar_w = group / p.series.len() as f64;
            let gap = if bar_w > 6.0 { 1.0 } else { 0.0 };
            for i in 0..n {
                for (si, s) in p.series.iter().enumerate() {
                    let vy = y_of(s.values[i]);
                    bars.push(Bar {
                        series: si,
                        x: x0 + band * i as f64 + band * 0.1 + bar_w * si as f64,
                        y: vy.min(zero_y),
                        width: (bar_w - gap).max(0.5),
                        height: (vy - zero_y).abs(),
                        tooltip: tooltip(s, i),
                    });
                }
            }
        }
        ChartKind::Line => {
            for s in &p.series {
                lines.push(
                    (0..n)
                        .map(|i| Point {
                            x: x0 + band * (i as f64 + 0.5),
                            y: y_of(s.values[i]),
                            tooltip: tooltip(s, i),
                        })
                        .collect(),
                );
            }
        }
    }
    Layout {
        plot: (x0, y0, x1, y1),
        zero_y,
        ticks,
        x_labels,
        bars,
        lines,
    }
}
