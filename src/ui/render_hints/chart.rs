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

mod geometry;
mod svg;

pub use geometry::{format_tick, layout, Bar, Layout, Point, Tick, XLabel, HEIGHT, WIDTH};
pub use svg::view;

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

#[cfg(test)]
mod tests;
