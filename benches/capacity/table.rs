//! The figures as lines while the run goes, and the final table: our figure, the Python SDK's
//! where it applies, the ratio, the floor's figure (a server that only writes bytes, see
//! `floor`), the goal of issue 14 and whether this run met it.

use std::time::Duration;

use crate::memory::{Observers, Rss};
use crate::throughput::{Concurrent, Connect, Single};
use crate::{site, Config, Figures};

const MB: f64 = 1024.0 * 1024.0;

fn k(rate: f64) -> String {
    format!("{:.1} k events/s", rate / 1000.0)
}

fn ms(d: Duration) -> String {
    format!("{:.0} ms", d.as_secs_f64() * 1000.0)
}

fn mb(b: u64) -> String {
    format!("{:.0} MB", b as f64 / MB)
}

/// `1000` → `1,000`.
fn n(v: usize) -> String {
    let s = v.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

pub fn single(s: &Single) -> String {
    let mut line = format!("{} (min {}, max {})", k(s.rate), k(s.min), k(s.max));
    if s.unfinished > 0 {
        line.push_str(&format!(", {} runs did not finish", s.unfinished));
    }
    line
}

pub fn conc(c: &Concurrent) -> String {
    let mut line = format!(
        "{} aggregate in {:.1} s, first event p50 {} / p99 {}",
        k(c.rate),
        c.wall.as_secs_f64(),
        ms(c.p50),
        ms(c.p99)
    );
    if c.failed > 0 {
        line.push_str(&format!(", {} runs failed or did not finish", c.failed));
    }
    line
}

pub fn rss(r: &Rss) -> String {
    let after = if r.after == 0 {
        "…".to_string()
    } else {
        mb(r.after)
    };
    format!(
        "before {} → during {} → after {after}",
        mb(r.before),
        mb(r.during)
    )
}

/// `before → during → after MB (after N s)`.
fn rss_row(r: &Rss, wait: Duration) -> String {
    let m = |b: u64| format!("{:.0}", b as f64 / MB);
    format!(
        "{} → {} → {} MB (after {} s)",
        m(r.before),
        m(r.during),
        m(r.after),
        wait.as_secs()
    )
}

pub fn observers(o: &Observers) -> String {
    format!(
        "connected in {:.1} s; RSS {} ({:.0} KB each), {} after the fan-outs; fan-out of {} events, \
         median of {} runs: last observer {} ({}), median {}, the server's CPU {}; {} observers \
         got fewer events than the runs ({} resyncs)",
        o.connect.as_secs_f64(),
        rss(&o.rss),
        o.rss.during.saturating_sub(o.rss.before) as f64
            / 1024.0
            / o.count.max(1) as f64,
        mb(o.after_fanout),
        o.run_events,
        o.fanouts.len(),
        ms(o.fanout),
        o.fanouts.iter().map(|t| ms(*t)).collect::<Vec<_>>().join(" / "),
        ms(o.fanout_p50),
        ms(o.fanout_cpu),
        o.short,
        o.resyncs,
    )
}

/// The final table.
pub fn print(cfg: &Config, f: &Figures) {
    let mut rows: Vec<[String; 7]> = Vec::new();
    // The floor's cell of the next row (taken by it).
    let floor_cell = std::cell::RefCell::new("—".to_string());
    let mut row =
        |load: String, ours: String, py: String, ratio: String, goal: &str, met: Option<bool>| {
            let met = match met {
                Some(true) => "yes",
                Some(false) => "no",
                None => "",
            };
            let floor = floor_cell.replace("—".into());
            rows.push([
                load,
                ours,
                py,
                ratio,
                floor,
                goal.to_string(),
                met.to_string(),
            ]);
        };
    let fl = &f.floor;
    let x = |a: f64, b: f64| format!("{:.1}×", a / b);
    let dash = || "—".to_string();

    if let (Some(s), Some(m), Some(p)) = (&f.single_sqlite, &f.single_memory, &f.single_python) {
        let what = format!("one stream, {} deltas", n(cfg.single_n));
        let r = s.rate / p.rate;
        floor_cell.replace(
            fl.single
                .map(|s| format!("{} ({})", k(s.rate), x(s.rate, p.rate)))
                .unwrap_or_default(),
        );
        row(
            format!("{what}, SQLite"),
            k(s.rate),
            k(p.rate),
            x(s.rate, p.rate),
            "≥ 20×",
            Some(r >= 20.0),
        );
        let cost = 1.0 - s.rate / m.rate;
        row(
            format!("{what}, :memory:"),
            k(m.rate),
            k(p.rate),
            x(m.rate, p.rate),
            "persistence ≤ 25 %",
            None,
        );
        row(
            "  persistence cost (SQLite against :memory:)".into(),
            format!("{:.0} %", cost * 100.0),
            dash(),
            dash(),
            "≤ 25 %",
            Some(cost <= 0.25),
        );
    }
    for (runs, pair, floor, agg_goal, p99_goal) in [
        (cfg.few, &f.few, &fl.few, None, None),
        (cfg.many, &f.many, &fl.many, Some(10.0), Some(50.0)),
    ] {
        let Some((o, p)) = pair else { continue };
        let what = format!("{} concurrent runs × {} deltas", n(runs), n(cfg.run_n));
        let note = |c: &Concurrent| {
            if c.failed > 0 {
                format!(" ({} failed)", c.failed)
            } else {
                String::new()
            }
        };
        let (on, pn) = (note(o), note(p));
        floor_cell.replace(
            floor
                .map(|c| format!("{} ({})", k(c.rate), x(c.rate, p.rate)))
                .unwrap_or_default(),
        );
        row(
            format!("{what}: aggregate"),
            format!("{}{on}", k(o.rate)),
            format!("{}{pn}", k(p.rate)),
            x(o.rate, p.rate),
            if agg_goal.is_some() { "≥ 10×" } else { "" },
            agg_goal.map(|g| o.rate / p.rate >= g),
        );
        floor_cell.replace(
            floor
                .map(|c| format!("{} / {}", ms(c.p50), ms(c.p99)))
                .unwrap_or_default(),
        );
        row(
            format!("{what}: first event p50 / p99"),
            format!("{} / {}", ms(o.p50), ms(o.p99)),
            format!("{} / {}", ms(p.p50), ms(p.p99)),
            format!(
                "{} / {}",
                x(p.p50.as_secs_f64(), o.p50.as_secs_f64()),
                x(p.p99.as_secs_f64(), o.p99.as_secs_f64())
            ),
            if p99_goal.is_some() {
                "p99 ≤ 50 ms"
            } else {
                ""
            },
            p99_goal.map(|g| o.p99.as_secs_f64() * 1000.0 <= g),
        );
    }
    let rss_met =
        |r: &Rss| r.during as f64 <= 200.0 * MB && r.after as f64 <= r.before as f64 * 1.1;
    if let Some(o) = &f.observers {
        row(
            format!("{} idle observers: RSS", n(cfg.observers)),
            rss_row(&o.rss, cfg.wait),
            dash(),
            dash(),
            "≤ 200 MB; after within 10 %",
            Some(rss_met(&o.rss)),
        );
        floor_cell.replace(
            fl.observers
                .as_ref()
                .map(|f| format!("{:.2} s", f.fanout.as_secs_f64()))
                .unwrap_or_default(),
        );
        row(
            format!(
                "fan-out of `long {}` to {} observers (median of {})",
                n(cfg.fanout_n),
                n(cfg.observers),
                o.fanouts.len()
            ),
            format!(
                "{:.2} s{}",
                o.fanout.as_secs_f64(),
                if o.short > 0 {
                    format!(" ({} short)", o.short)
                } else {
                    String::new()
                }
            ),
            dash(),
            dash(),
            "≤ 2 s",
            Some(o.fanout <= Duration::from_secs(2) && o.short == 0),
        );
    }
    if let Some(a) = &f.approvals {
        row(
            format!("{} runs waiting on an approval: RSS", n(cfg.approvals)),
            rss_row(&a.rss, cfg.wait),
            dash(),
            dash(),
            "≤ 200 MB; after within 10 %",
            Some(rss_met(&a.rss)),
        );
    }
    if let Some((via, direct)) = &f.proxy {
        row(
            format!(
                "foreign stream of {} deltas: through our proxy / direct",
                n(cfg.proxy_n)
            ),
            k(via.rate),
            k(direct.rate),
            format!(
                "{} ({:+.0} % time)",
                x(via.rate, direct.rate),
                (direct.rate / via.rate - 1.0) * 100.0
            ),
            "",
            None,
        );
    }
    println!("first load ({}/pkg):", cfg.site.display());
    match &f.site {
        Ok(files) => {
            let gz = site::print(files);
            let first = || files.iter().filter(|f| !f.on_demand);
            let raw: u64 = first().map(|f| f.raw).sum();
            let br: Option<u64> = first().map(|f| f.brotli).sum();
            let later: Option<u64> = files.iter().filter(|f| f.on_demand).map(|f| f.gzip).sum();
            row(
                "first load, WASM + JS + CSS".into(),
                format!(
                    "{:.0} KB gzip ({:.0} KB raw{}){}",
                    gz as f64 / 1024.0,
                    raw as f64 / 1024.0,
                    br.map(|b| format!(", {:.0} KB brotli", b as f64 / 1024.0))
                        .unwrap_or_default(),
                    later
                        .filter(|&b| b > 0)
                        .map(|b| format!(
                            "; chunks after hydration (idle or on demand) {:.0} KB gzip",
                            b as f64 / 1024.0
                        ))
                        .unwrap_or_default()
                ),
                dash(),
                dash(),
                "≤ 400 KB gzip",
                Some(gz <= 400 * 1024),
            );
        }
        Err(e) => println!(
            "  not measured: {e} (build the site: cargo leptos build --release --precompress)"
        ),
    }

    let head = [
        "load",
        "agui-studio",
        "Python SDK",
        "ratio",
        "floor",
        "goal",
        "met",
    ];
    let widths: Vec<usize> = (0..head.len())
        .map(|i| {
            rows.iter()
                .map(|r| r[i].chars().count())
                .chain([head[i].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: &[String]| {
        let parts: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c}{}", " ".repeat(w - c.chars().count())))
            .collect();
        println!("| {} |", parts.join(" | "));
    };
    println!();
    line(&head.map(String::from));
    line(&widths.iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>());
    for r in &rows {
        line(r);
    }
    println!("(ratio: agui-studio over the Python SDK; for times, the SDK's over ours)");
    println!(
        "(floor: a server that only writes pre-encoded bytes, read by the same client on the \
         same cores, with its ratio over the SDK; a goal beyond it cannot be met on this machine)"
    );
    println!(
        "{}",
        match cfg.connect {
            Connect::AsItStarts => "(first event: from before each run's connect)",
            Connect::First =>
                "(first event: from each request's write, on a connection opened before the \
                 round; CAPACITY_OPEN_FIRST=1)",
        }
    );
}
