//! The capacity benchmark (issue 14): our release binary and the official Python SDK agent
//! (`ag-ui-protocol` + Starlette/uvicorn, `tests/foreign/agent.py`, one event per write) as
//! separate processes on loopback, measured in one run and printed side by side with ratios and
//! the goals. Rows: one stream drained (SQLite and `:memory:`), many concurrent runs (aggregate
//! events/s, time to first event), idle observers and runs waiting on an approval (our RSS
//! before / during / after), the fan-out of a run to every observer (median of three), the
//! proxy's overhead on a foreign stream, and the first-load bytes of the site. Beside them, the floor
//! ([`floor`]): a server that only writes pre-encoded bytes, through the same client, for what
//! this machine allows any server.
//!
//! Run: `scripts/studio.sh bench`, or `cargo bench --features ssr --bench capacity` with
//! `AGUI_BIN` pointing at a release binary. `CAPACITY_QUICK=1` shrinks every size (about a
//! minute); each size has its own variable (see [`Config::from_env`]). Prints figures; it only
//! fails when a server cannot be started or the connections cannot be made.

mod client;
mod floor;
mod memory;
mod procs;
mod site;
mod table;
mod throughput;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use floor::Floor;
use procs::{raise_nofile, Db, Python, Studio, TempDir};
use throughput::Agent;

/// Every size of the run, from the environment.
#[derive(Debug, Clone)]
pub struct Config {
    pub quick: bool,
    pub bin: PathBuf,
    pub python: PathBuf,
    pub site: PathBuf,
    /// Deltas of the one-stream row.
    pub single_n: usize,
    /// Runs of the two concurrent rows, and the deltas of each.
    pub few: usize,
    pub many: usize,
    pub run_n: usize,
    pub observers: usize,
    pub approvals: usize,
    /// Deltas of the run fanned out to the observers.
    pub fanout_n: usize,
    /// Runs fanned out one after another to the same observers (the medians are printed).
    pub fanout_repeats: usize,
    /// How long after the streams closed the "after" RSS is read.
    pub wait: Duration,
    /// Deltas of the proxy row.
    pub proxy_n: usize,
    /// Repeats of the one-stream, few-runs and proxy rows (median), and of the many-runs row.
    pub repeats: usize,
    pub many_repeats: usize,
    /// Measure the floor server too (`CAPACITY_FLOOR=0` skips it).
    pub floor: bool,
    /// How the concurrent rows connect (`CAPACITY_OPEN_FIRST=1`: every connection before the
    /// round, times from each request's write).
    pub connect: throughput::Connect,
    /// The rows to run (`CAPACITY_ROWS=many,observers`; all when unset), e.g. to profile one.
    pub rows: Option<Vec<String>>,
}

/// The row names `CAPACITY_ROWS` takes.
const ROWS: [&str; 6] = ["single", "few", "many", "proxy", "observers", "approvals"];

impl Config {
    fn from_env() -> Config {
        let quick = std::env::var("CAPACITY_QUICK").is_ok_and(|v| !v.is_empty() && v != "0");
        let num = |name: &str, full: usize, small: usize| -> usize {
            match std::env::var(name) {
                Ok(v) => v
                    .replace(['_', ','], "")
                    .parse()
                    .unwrap_or_else(|_| panic!("{name}={v:?} is not a number")),
                Err(_) if quick => small,
                Err(_) => full,
            }
        };
        let path = |name: &str, default: &str| {
            PathBuf::from(std::env::var(name).unwrap_or_else(|_| default.to_string()))
        };
        Config {
            quick,
            bin: path("AGUI_BIN", "target/release/agui-studio"),
            python: path("CAPACITY_PYTHON", ".venv/bin/python"),
            site: path("CAPACITY_SITE_DIR", "target/site"),
            single_n: num("CAPACITY_SINGLE_N", 100_000, 20_000),
            few: num("CAPACITY_FEW", 100, 100),
            many: num("CAPACITY_MANY", 1_000, 1_000),
            run_n: num("CAPACITY_RUN_N", 1_000, 100),
            observers: num("CAPACITY_OBSERVERS", 10_000, 1_000),
            approvals: num("CAPACITY_APPROVALS", 10_000, 1_000),
            fanout_n: num("CAPACITY_FANOUT_N", 2_000, 2_000),
            fanout_repeats: num("CAPACITY_FANOUT_REPEATS", 3, 1).max(1),
            wait: Duration::from_secs(num("CAPACITY_WAIT_S", 60, 5) as u64),
            proxy_n: num("CAPACITY_PROXY_N", 20_000, 5_000),
            repeats: num("CAPACITY_REPEATS", 3, 1).max(1),
            many_repeats: num("CAPACITY_MANY_REPEATS", 1, 1).max(1),
            floor: num("CAPACITY_FLOOR", 1, 1) != 0,
            connect: if num("CAPACITY_OPEN_FIRST", 0, 0) != 0 {
                throughput::Connect::First
            } else {
                throughput::Connect::AsItStarts
            },
            rows: std::env::var("CAPACITY_ROWS").ok().map(|v| {
                let rows: Vec<String> = v.split(',').map(|r| r.trim().to_string()).collect();
                for r in &rows {
                    assert!(
                        ROWS.contains(&r.as_str()),
                        "CAPACITY_ROWS: unknown row {r:?}; the rows are {ROWS:?}"
                    );
                }
                rows
            }),
        }
    }

    /// Whether `row` (one of [`ROWS`]) is to be run.
    pub fn wants(&self, row: &str) -> bool {
        self.rows
            .as_ref()
            .is_none_or(|rows| rows.iter().any(|r| r == row))
    }
}

/// What the run measured, for the table.
#[derive(Debug)]
pub struct Figures {
    pub single_sqlite: Option<throughput::Single>,
    pub single_memory: Option<throughput::Single>,
    pub single_python: Option<throughput::Single>,
    pub few: Option<(throughput::Concurrent, throughput::Concurrent)>,
    pub many: Option<(throughput::Concurrent, throughput::Concurrent)>,
    pub proxy: Option<(throughput::Single, throughput::Single)>,
    pub observers: Option<memory::Observers>,
    pub approvals: Option<memory::Approvals>,
    pub site: Result<Vec<site::File>, String>,
    pub floor: FloorFigures,
}

/// The floor server's figures for the rows it can stand in (see [`floor`]).
#[derive(Debug, Default)]
pub struct FloorFigures {
    pub single: Option<throughput::Single>,
    pub few: Option<throughput::Concurrent>,
    pub many: Option<throughput::Concurrent>,
    pub observers: Option<memory::Observers>,
}

fn main() {
    if let Ok(addr) = std::env::var(floor::SERVE_ENV) {
        floor::serve(&addr);
        return;
    }
    // `cargo bench` passes `--bench`; this harness takes no options.
    let cfg = Config::from_env();
    assert!(
        cfg.bin.is_file(),
        "no release binary at {} (set AGUI_BIN, or build it: scripts/studio.sh bench does)",
        cfg.bin.display()
    );
    let conns = cfg.observers.max(cfg.approvals).max(cfg.many);
    let nofile = raise_nofile(conns as u64 + 512);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    println!(
        "capacity benchmark{}: {} against the Python SDK agent ({}); open files limit {nofile}",
        if cfg.quick {
            " (quick: sizes below the issue's, goals do not apply)"
        } else {
            ""
        },
        cfg.bin.display(),
        cfg.python.display(),
    );
    let started = Instant::now();
    let figures = rt.block_on(run(&cfg));
    table::print(&cfg, &figures);
    println!("(whole run: {:.0} s)", started.elapsed().as_secs_f64());
}

async fn run(cfg: &Config) -> Figures {
    let tmp = TempDir::new();
    let cap = cfg.observers.max(cfg.approvals).max(cfg.many) + 64;
    let mut f = Figures {
        single_sqlite: None,
        single_memory: None,
        single_python: None,
        few: None,
        many: None,
        proxy: None,
        observers: None,
        approvals: None,
        site: site::first_load(&cfg.site),
        floor: FloorFigures::default(),
    };
    {
        let python = Python::start(&cfg.python);
        let floor = cfg.floor.then(Floor::start);
        let proxy = vec!["--proxy".to_string(), format!("py=http://{}/", python.addr)];
        let sqlite = Studio::start(&cfg.bin, &tmp.db("throughput"), cap, &proxy);
        let memory = Studio::start(&cfg.bin, &Db::Memory, cap, &[]);
        // Warm up: connections, allocators, lazy initialisation, Python's imports.
        for (addr, agent) in [
            (sqlite.addr, Agent::Demo),
            (memory.addr, Agent::Demo),
            (python.addr, Agent::Python),
            (sqlite.addr, Agent::Proxy),
        ] {
            throughput::one(addr, agent, 1_000).await;
        }

        let (n, r) = (cfg.single_n, cfg.repeats);
        if cfg.wants("single") {
            println!("one stream of {n} deltas, median of {r} (our two servers in turn):");
            let ours = throughput::singles(
                &[(sqlite.addr, Agent::Demo), (memory.addr, Agent::Demo)],
                n,
                r,
            )
            .await;
            println!("  agui-studio, SQLite:   {}", table::single(&ours[0]));
            println!("  agui-studio, :memory:  {}", table::single(&ours[1]));
            f.single_sqlite = Some(ours[0]);
            f.single_memory = Some(ours[1]);
            let py = throughput::singles(&[(python.addr, Agent::Python)], n, r).await[0];
            println!("  Python SDK:            {}", table::single(&py));
            f.single_python = Some(py);
            if let Some(floor) = &floor {
                let fl = throughput::singles(&[(floor.addr, Agent::Demo)], n, r).await[0];
                println!("  floor:                 {}", table::single(&fl));
                f.floor.single = Some(fl);
            }
        }
        drop(memory);

        for (row, runs, repeats, slot, floor_slot) in [
            ("few", cfg.few, cfg.repeats, &mut f.few, &mut f.floor.few),
            (
                "many",
                cfg.many,
                cfg.many_repeats,
                &mut f.many,
                &mut f.floor.many,
            ),
        ] {
            if !cfg.wants(row) {
                continue;
            }
            let n = cfg.run_n;
            println!("{runs} concurrent runs × {n} deltas, median of {repeats}:");
            let ours = throughput::concurrent_median(
                sqlite.addr,
                Agent::Demo,
                runs,
                n,
                repeats,
                cfg.connect,
            )
            .await;
            println!("  agui-studio, SQLite:   {}", table::conc(&ours));
            let py = throughput::concurrent_median(
                python.addr,
                Agent::Python,
                runs,
                n,
                repeats,
                cfg.connect,
            )
            .await;
            println!("  Python SDK:            {}", table::conc(&py));
            *slot = Some((ours, py));
            if let Some(floor) = &floor {
                let fl = throughput::concurrent_median(
                    floor.addr,
                    Agent::Demo,
                    runs,
                    n,
                    repeats,
                    cfg.connect,
                )
                .await;
                println!("  floor:                 {}", table::conc(&fl));
                *floor_slot = Some(fl);
            }
        }

        let n = cfg.proxy_n;
        if cfg.wants("proxy") {
            println!("proxy: `big {n}` of the Python agent, direct and through /api/agents/py in turn, median of {r}:");
            let both = throughput::singles(
                &[(python.addr, Agent::Python), (sqlite.addr, Agent::Proxy)],
                n,
                r,
            )
            .await;
            let (direct, proxied) = (both[0], both[1]);
            println!("  direct:                {}", table::single(&direct));
            println!("  through agui-studio:   {}", table::single(&proxied));
            f.proxy = Some((proxied, direct));
        }
    }

    // Memory rows: a fresh server each, warmed by one run before its baseline is read. The
    // observers' server waits out its "after" while the approvals are measured.
    let mut obs = None;
    if cfg.wants("observers") {
        let server = Studio::start(&cfg.bin, &tmp.db("observers"), cap, &[]);
        throughput::one(server.addr, Agent::Demo, 1_000).await;
        println!(
            "{} idle observers, then {} `long {}` run(s) fanned out to them in turn:",
            cfg.observers, cfg.fanout_repeats, cfg.fanout_n
        );
        let o = memory::observers(
            server.addr,
            &server.proc,
            cfg.observers,
            cfg.fanout_n,
            cfg.fanout_repeats,
        )
        .await;
        println!("  {}", table::observers(&o));
        obs = Some((server, o, Instant::now()));
    }

    let mut appr = None;
    if cfg.wants("approvals") {
        let server = Studio::start(&cfg.bin, &tmp.db("approvals"), cap, &[]);
        throughput::one(server.addr, Agent::Demo, 1_000).await;
        println!("{} runs waiting on an in-stream approval:", cfg.approvals);
        let a = memory::approvals(&server, cfg.approvals).await;
        println!(
            "  all waiting after {:.1} s; RSS {}",
            a.setup.as_secs_f64(),
            table::rss(&a.rss)
        );
        appr = Some((server, a, Instant::now()));
    }

    if cfg.floor && cfg.wants("observers") {
        let floor = Floor::start();
        println!("the floor's {} observers and fan-out:", cfg.observers);
        let fl = memory::observers(
            floor.addr,
            &floor.proc,
            cfg.observers,
            cfg.fanout_n,
            cfg.fanout_repeats,
        )
        .await;
        println!("  {}", table::observers(&fl));
        f.floor.observers = Some(fl);
    }

    if obs.is_some() || appr.is_some() {
        println!(
            "waiting {} s after the streams closed for the \"after\" RSS …",
            cfg.wait.as_secs()
        );
    }
    if let Some((server, mut o, closed)) = obs {
        tokio::time::sleep_until((closed + cfg.wait).into()).await;
        o.rss.after = server.proc.rss();
        f.observers = Some(o);
    }
    if let Some((server, mut a, closed)) = appr {
        tokio::time::sleep_until((closed + cfg.wait).into()).await;
        a.rss.after = server.proc.rss();
        f.approvals = Some(a);
    }
    drop(tmp);
    f
}
