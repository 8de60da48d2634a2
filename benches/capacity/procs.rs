//! The servers under test, each a child process on loopback: our release binary and the official
//! Python SDK agent under uvicorn. Every child is killed by its PID when its guard drops (also
//! while a panic unwinds) and is asked to die with the benchmark (`PR_SET_PDEATHSIG`).

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a server may take to start listening.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// A child process, killed and reaped when dropped.
pub struct Proc {
    child: Child,
    name: String,
}

impl Proc {
    pub fn spawn(mut cmd: Command, name: &str) -> Proc {
        // SAFETY: prctl only sets a flag of the new process, between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        let child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {name} ({cmd:?}): {e}"));
        Proc {
            child,
            name: name.to_string(),
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Resident memory of the process (VmRSS of /proc/PID/status), in bytes.
    pub fn rss(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid()))
            .unwrap_or_else(|e| panic!("{} (pid {}) is gone: {e}", self.name, self.pid()));
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
            .map(|kb| kb * 1024)
            .expect("VmRSS in /proc/PID/status")
    }
}

impl Proc {
    /// CPU time the process has used, user and system (`/proc/PID/stat`, in clock ticks of
    /// 10 ms).
    pub fn cpu(&self) -> Duration {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.pid()))
            .unwrap_or_else(|e| panic!("{} (pid {}) is gone: {e}", self.name, self.pid()));
        // The fields after the command's name, which is in parentheses and may hold spaces:
        // utime and stime are the 14th and 15th fields, the 12th and 13th after it.
        let rest = &stat[stat.rfind(')').expect("(comm) in /proc/PID/stat") + 1..];
        let ticks: u64 = rest
            .split_whitespace()
            .skip(11)
            .take(2)
            .map(|f| f.parse::<u64>().expect("utime and stime"))
            .sum();
        Duration::from_millis(ticks * 10)
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Where our server keeps its threads.
#[derive(Debug, Clone)]
pub enum Db {
    /// A fresh SQLite file (WAL), as served by default.
    File(PathBuf),
    Memory,
}

/// Our binary, listening on a loopback port.
pub struct Studio {
    pub proc: Proc,
    pub addr: SocketAddr,
}

impl Studio {
    /// Start `bin` on 127.0.0.1 (a port the OS picks) with `db`, limits raised to `capacity`
    /// runs, observers and connections, no pause between demo deltas, and `extra` flags.
    pub fn start(bin: &Path, db: &Db, capacity: usize, extra: &[String]) -> Studio {
        let db_arg = match db {
            Db::File(p) => p.to_string_lossy().into_owned(),
            Db::Memory => ":memory:".into(),
        };
        let cap = capacity.to_string();
        // A free port of our choosing (the address is logged only at `info`, which would slow
        // the server down), then polled until it accepts.
        let addr = SocketAddr::from(([127, 0, 0, 1], free_port()));
        let mut cmd = Command::new(bin);
        cmd.args([
            "--addr",
            &addr.to_string(),
            "--demo-delay-ms",
            "0",
            "--log",
            "error",
        ])
        .args(["--db", &db_arg])
        .args(["--max-runs", &cap, "--max-runs-per-user", &cap])
        .args(["--max-observers-per-user", &cap, "--max-connections", &cap])
        .args(["--approval-timeout", "3600"])
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit());
        let proc = Proc::spawn(cmd, "agui-studio");
        wait_listening(addr, &format!("agui-studio ({})", bin.display()));
        Studio { proc, addr }
    }
}

/// The official Python SDK agent (`tests/foreign/agent.py`) under uvicorn.
pub struct Python {
    /// Held so the process is killed when this drops.
    _proc: Proc,
    pub addr: SocketAddr,
}

impl Python {
    /// Start uvicorn with `python` (the repo's venv) on a free loopback port; a listen backlog
    /// of 4096 so a thousand simultaneous connects are not dropped by the kernel.
    pub fn start(python: &Path) -> Python {
        let port = free_port();
        let mut cmd = Command::new(python);
        cmd.args(["-m", "uvicorn", "agent:app", "--app-dir", "tests/foreign"])
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args([
                "--log-level",
                "warning",
                "--no-access-log",
                "--lifespan",
                "off",
            ])
            .args(["--backlog", "4096"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit());
        let proc = Proc::spawn(cmd, "uvicorn");
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        wait_listening(
            addr,
            &format!(
                "the Python agent ({}; `scripts/studio.sh setup` makes .venv)",
                python.display()
            ),
        );
        Python { _proc: proc, addr }
    }
}

/// Poll `addr` until it accepts a connection, or panic naming `what`.
pub fn wait_listening(addr: SocketAddr, what: &str) {
    let deadline = Instant::now() + START_TIMEOUT;
    while TcpStream::connect(addr).is_err() {
        assert!(
            Instant::now() < deadline,
            "{what} did not listen on {addr} within {START_TIMEOUT:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A loopback port free at the time of asking.
pub fn free_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
    l.local_addr().expect("its address").port()
}

/// Raise the soft limit on open files to the hard one (children inherit it); fail clearly when
/// even the hard limit is below `needed`.
pub fn raise_nofile(needed: u64) -> u64 {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit read and write the struct given, nothing else.
    unsafe {
        assert_eq!(
            libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim),
            0,
            "getrlimit"
        );
        lim.rlim_cur = lim.rlim_max;
        assert_eq!(
            libc::setrlimit(libc::RLIMIT_NOFILE, &lim),
            0,
            "setrlimit(RLIMIT_NOFILE, {})",
            lim.rlim_max
        );
    }
    assert!(
        lim.rlim_cur >= needed,
        "the open-files limit is {} (hard), below the {needed} this run needs; raise it \
         (`ulimit -Hn`, /etc/security/limits.conf) or lower CAPACITY_OBSERVERS / \
         CAPACITY_APPROVALS",
        lim.rlim_cur
    );
    lim.rlim_cur
}

/// A temporary directory, removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new() -> TempDir {
        let dir = std::env::temp_dir().join(format!("agui-capacity-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("create a temporary directory");
        TempDir(dir)
    }

    pub fn db(&self, name: &str) -> Db {
        Db::File(self.0.join(format!("{name}.db")))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
