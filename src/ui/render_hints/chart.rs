//! `chart`: a bar or line chart drawn as inline SVG, every coordinate computed here.
//!
//! Props:
//! ```json
//! {"type": "bar",                                   // "bar" | "line"; default "bar"
//!  "title": "Revenue",                              // optional; also the SVG's aria-label
//!  "labels": ["Q1", "Q2", "Q3"],                    // 1–50 strings (numbers are accepted too)
//!  "series": [{"name": "2024", "values": [1, 2, -3]}]}  // 1–5 series, one finite number per label
//! ```
//! A series without `name` is called "Series n". Negative values are drawn below a zero line.
//! Invalid: an unknown `type`, no labels or more than 50, no series or more than 5, a series
//! whose `values` length differs from the labels', a value that is not a finite number (JSON has
//! no NaN: a `null` or a string where a number belongs).
//!
//! The SVG has `role="img"` and an `aria-label`; each bar and point carries a `<title>` tooltip
//! ("series · label: value"). Colours come from CSS (`--series-1` … `--series-5`, see
//! the render-hints section of `style/main.css`); axes and text use `currentColor`. The legend is HTML below the SVG.

use leptos::prelude::*;
use serde_json::Value;

use super::props::{as_object, kind_of, opt_str, req_array, PropsError};

/// Most labels (categories) a chart accepts.
pub const MAX_LABELS: usize = 50;
/// Most series a chart accepts (one colour each).
pub const MAX_SERIES: usize = 5;

/// Bar or line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChartKind {
    Bar,
    Line,
}

/// One data series.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub name: String,
    pub values: Vec<f64>,
}

/// Validated chart props.
#[derive(Debug, Clone, PartialEq)]
pub struct ChartProps {
    pub kind: ChartKind,
    pub title: Option<String>,
    pub labels: Vec<String>,
    pub series: Vec<Series>,
}

/// Validates chart props.
pub fn parse(props: &Value) -> Result<ChartProps, PropsError> {
    let obj = as_object(props, "chart props")?;
    let kind = match obj.get("type") {
        None | Some(Value::Null) => ChartKind::Bar,
        Some(Value::String(s)) if s == "bar" => ChartKind::Bar,
        Some(Value::String(s)) if s == "line" => ChartKind::Line,
        Some(other) => {
            return Err(PropsError::Invalid(format!(
                "\"type\" must be \"bar\" or \"line\", got {}",
                other
            )))
        }
    };
    let title = opt_str(obj, "title")?;
    let labels = req_array(obj, "labels")?;
    if labels.is_empty() || labels.len() > MAX_LABELS {
        return Err(PropsError::Invalid(format!(
            "\"labels\" must have 1 to {MAX_LABELS} entries, got {}",
            labels.len()
        )));
    }
    let labels = labels
        .iter()
        .enumerate()
        .map(|(i, l)| match l {
            Value::String(s) => Ok(s.clone()),
            Value::Number(n) => Ok(n.to_string()),
            other => Err(PropsError::Invalid(format!(
                "label {} must be a string, got {}",
                i + 1,
                kind_of(other)
            ))),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let series = req_array(obj, "series")?;
    if series.is_empty() || series.len() > MAX_SERIES {
        return Err(PropsError::Invalid(format!(
            "\"series\" must have 1 to {MAX_SERIES} entries, got {}",
            series.len()
        )));
    }
    let series = series
        .iter()
        .enumerate()
        .map(|(i, s)| parse_series(i, s, labels.len()))
        .collect::<Result<Vec<_>, _>>()?;
    let (lo, hi) = extent(&series);
    if !(hi - lo).is_finite() {
        return Err(PropsError::Invalid("values are too large to plot".into()));
    }
    Ok(ChartProps {
        kind,
        title,
        labels,
        series,
    })
}

fn parse_series(i: usize, s: &Value, n_labels: usize) -> Result<Series, PropsError> {
    let what = format!("series {}", i + 1);
    let obj = as_object(s, &what)?;
    let name = match obj.get("name") {
        None | Some(Value::Null) => format!("Series {}", i + 1),
        Some(Value::String(n)) => n.clone(),
        Some(other) => {
            return Err(PropsError::Invalid(format!(
                "{what}: \"name\" must be a string, got {}",
                kind_of(other)
            )))
        }
    };
    let values = req_array(obj, "values").map_err(|e| e.at(&what))?;
    if values.len() != n_labels {
        return Err(PropsError::Invalid(format!(
            "{what} has {} values but there are {n_labels} labels",
            values.len()
        )));
    }
    let values = values
        .iter()
        .enumerate()
        .map(|(j, v)| match v.as_f64() {
            Some(x) if x.is_finite() => Ok(x),
            _ => Err(PropsError::Invalid(format!(
                "{what}, value {}: expected a finite number, got {}",
                j + 1,
                if v.is_number() {
                    "a non-finite number"
                } else {
                    kind_of(v)
                }
            ))),
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Series { name, values })
}

/// The smallest and largest value, with 0 always inside.
fn extent(series: &[Series]) -> (f64, f64) {
    series
        .iter()
        .flat_map(|s| s.values.iter().copied())
        .fold((0.0_f64, 0.0_f64), |(lo, hi), v| (lo.min(v), hi.max(v)))
}

/// The registry entry.
pub fn render(props: &Value) -> Result<AnyView, PropsError> {
    parse(props).map(view)
}

// ---- Layout: pure geometry. ----

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

// ---- View. ----

fn num(v: f64) -> String {
    format!("{v:.1}")
}

fn series_class(base: &str, i: usize) -> String {
    format!("{base} series-{}", i + 1)
}

/// The chart built from validated props.
pub fn view(p: ChartProps) -> AnyView {
    let l = layout(&p);
    let (x0, y0, x1, y1) = l.plot;
    let kind = match p.kind {
        ChartKind::Bar => "bar",
        ChartKind::Line => "line",
    };
    let aria = match &p.title {
        Some(t) if !t.trim().is_empty() => t.clone(),
        _ => format!(
            "{} chart of {}",
            if p.kind == ChartKind::Bar {
                "Bar"
            } else {
                "Line"
            },
            p.series
                .iter()
                .map(|s| s.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let view_box = format!("0 0 {WIDTH} {HEIGHT}");

    let grid = l
        .ticks
        .iter()
        .map(|t| {
            view! {
                <line class="rh-gridline" x1=num(x0) x2=num(x1) y1=num(t.y) y2=num(t.y)
                    stroke="currentColor"/>
                <text class="rh-tick" x=num(x0 - 6.0) y=num(t.y) text-anchor="end"
                    dominant-baseline="middle" fill="currentColor">{t.text.clone()}</text>
            }
        })
        .collect::<Vec<_>>();
    let x_labels = l
        .x_labels
        .into_iter()
        .map(|xl| {
            view! {
                <text class="rh-xlabel" x=num(xl.x) y=num(y1 + 18.0) text-anchor="middle"
                    fill="currentColor"><title>{xl.full}</title>{xl.text}</text>
            }
        })
        .collect::<Vec<_>>();
    let marks = match p.kind {
        ChartKind::Bar => l
            .bars
            .into_iter()
            .map(|b| {
                view! {
                    <rect class=series_class("rh-bar", b.series) x=num(b.x) y=num(b.y)
                        width=num(b.width) height=num(b.height) fill="currentColor">
                        <title>{b.tooltip}</title>
                    </rect>
                }
                .into_any()
            })
            .collect::<Vec<_>>(),
        ChartKind::Line => l
            .lines
            .into_iter()
            .enumerate()
            .map(|(si, pts)| {
                let points = pts
                    .iter()
                    .map(|pt| format!("{},{}", num(pt.x), num(pt.y)))
                    .collect::<Vec<_>>()
                    .join(" ");
                let dots = pts
                    .into_iter()
                    .map(|pt| {
                        view! {
                            <circle class=series_class("rh-dot", si) cx=num(pt.x) cy=num(pt.y)
                                r="3" fill="currentColor"><title>{pt.tooltip}</title></circle>
                        }
                    })
                    .collect::<Vec<_>>();
                view! {
                    <g class=series_class("rh-line-series", si)>
                        <polyline class=series_class("rh-line", si) points=points fill="none"
                            stroke="currentColor" stroke-width="2"
                            stroke-linejoin="round"/>
                        {dots}
                    </g>
                }
                .into_any()
            })
            .collect::<Vec<_>>(),
    };
    let legend = p
        .series
        .iter()
        .enumerate()
        .map(|(i, s)| {
            view! {
                <li><span class=series_class("rh-swatch", i) aria-hidden="true"></span>{s.name.clone()}</li>
            }
        })
        .collect::<Vec<_>>();
    let title = p.title.map(|t| view! { <div class="rh-title">{t}</div> });
    view! {
        <div class="rh-chart" data-type=kind>
            {title}
            <svg class="rh-chart-svg" role="img" aria-label=aria viewBox=view_box
                preserveAspectRatio="xMidYMid meet">
                <g class="rh-grid">{grid}</g>
                <g class="rh-marks">{marks}</g>
                <line class="rh-axis" x1=num(x0) x2=num(x0) y1=num(y0) y2=num(y1)
                    stroke="currentColor"/>
                <line class="rh-axis" x1=num(x0) x2=num(x1) y1=num(l.zero_y) y2=num(l.zero_y)
                    stroke="currentColor"/>
                <g class="rh-xlabels">{x_labels}</g>
            </svg>
            <ul class="rh-legend">{legend}</ul>
        </div>
    }
    .into_any()
}

#[cfg(test)]
mod tests;
