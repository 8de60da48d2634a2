//! The chart's view: the laid-out chart as inline SVG, with its title and HTML legend.

use leptos::prelude::*;

use super::{layout, ChartKind, ChartProps, HEIGHT, WIDTH};

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
