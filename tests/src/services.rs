//! System services the scale tests start: a Redis server and an HAProxy load balancer, both
//! from Debian's packages (`redis-server`, `haproxy`). [`ensure_packages`] installs them with
//! `apt-get` when they are missing (CI and fresh machines run as root); each service runs on a
//! free loopback port and is killed by its own process handle when dropped. [`Cluster`] puts
//! replicas of a server sharing one Redis behind HAProxy.

use std::fs::{self, File};
use std::io::{BufRead, BufReader};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::peers::{InstallError, run, target_dir};

/// The Debian packages and the program each provides.
const PACKAGES: [(&str, &str); 2] = [("redis-server", "redis-server"), ("haproxy", "haproxy")];

/// Where a program is: the first match on `PATH`, then the system directories (`haproxy`
/// lives in `/usr/sbin`, not on every user's `PATH`).
pub fn program(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin", "/usr/bin", "/sbin", "/bin"].map(PathBuf::from))
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// Installs the Debian packages whose programs are missing (`apt-get install`, after an
/// `apt-get update` when the first attempt fails). One installer at a time across processes.
pub fn ensure_packages() -> Result<(), InstallError> {
    let missing = || -> Vec<&str> {
        PACKAGES
            .iter()
            .filter(|(program_name, _)| program(program_name).is_none())
            .map(|(_, package)| *package)
            .collect()
    };
    if missing().is_empty() {
        return Ok(());
    }
    let dir = target_dir().join("peers");
    fs::create_dir_all(&dir)
        .map_err(|e| InstallError::new(format!("creating {}", dir.display()), e))?;
    let lock_path = dir.join("apt.lock");
    let lock = File::create(&lock_path)
        .map_err(|e| InstallError::new(format!("opening {}", lock_path.display()), e))?;
    lock.lock()
        .map_err(|e| InstallError::new(format!("locking {}", lock_path.display()), e))?;
    let packages = missing();
    if packages.is_empty() {
        return Ok(());
    }
    let install = || {
        let mut command = Command::new("apt-get");
        command
            .env("DEBIAN_FRONTEND", "noninteractive")
            .args(["install", "-y", "--no-install-recommends"])
            .args(&packages);
        command
    };
    let step = format!(
        "installing {} with apt-get (needs root and Debian's archive)",
        packages.join(" ")
    );
    if run(&step, &mut install()).is_err() {
        run(
            "running apt-get update",
            Command::new("apt-get").args(["update", "-q"]),
        )?;
        run(&step, &mut install())?;
    }
    Ok(())
}

/// A free loopback TCP port (free when asked; the caller binds it next).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

/// Waits until something accepts connections on `port`; panics after `within`.
pub fn wait_for_port(port: u16, within: Duration) {
    let deadline = Instant::now() + within;
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "nothing listens on 127.0.0.1:{port} after {within:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A service process, killed (by its own handle, with SIGKILL) when dropped.
#[derive(Debug)]
pub struct Service {
    child: Child,
    /// Its loopback port.
    pub port: u16,
}

impl Service {
    /// Starts `command`, which listens on `port`, and waits (bounded) until it accepts.
    pub fn start(mut command: Command, port: u16) -> Self {
        let child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {command:?}: {e}"));
        let service = Self { child, port };
        wait_for_port(port, Duration::from_secs(10));
        service
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Kills it now (SIGKILL) and waits for it to end.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A Redis server on `port` (a free one when `None`), in memory only (no snapshot, no
/// append-only file).
pub fn start_redis(port: Option<u16>) -> Service {
    ensure_packages().unwrap_or_else(|e| panic!("{e}"));
    let port = port.unwrap_or_else(free_port);
    let mut command = Command::new(program("redis-server").expect("redis-server installed"));
    command.args([
        "--port",
        &port.to_string(),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
        "--daemonize",
        "no",
    ]);
    Service::start(command, port)
}

/// HAProxy on a free loopback port, balancing HTTP requests round-robin over `backends`
/// without stickiness: each request may go to any of them. A backend that refuses a connection
/// (a killed replica) is retried on another; long timeouts keep SSE streams open. Its
/// configuration is written into `dir`.
pub fn start_haproxy(dir: &Path, backends: &[SocketAddr]) -> Service {
    ensure_packages().unwrap_or_else(|e| panic!("{e}"));
    let port = free_port();
    let servers: String = backends
        .iter()
        .enumerate()
        .map(|(i, addr)| format!("    server r{i} {addr} check inter 500ms fall 1 rise 1\n"))
        .collect();
    let config = format!(
        "global\n    maxconn 1024\n\
         defaults\n    mode http\n    option http-server-close\n    retries 3\n    option redispatch 1\n\
         \x20   timeout connect 2s\n    timeout client 120s\n    timeout server 120s\n    timeout tunnel 120s\n\
         frontend mcp\n    bind 127.0.0.1:{port}\n    default_backend replicas\n\
         backend replicas\n    balance roundrobin\n{servers}"
    );
    fs::create_dir_all(dir).expect("the HAProxy directory");
    let path = dir.join("haproxy.cfg");
    fs::write(&path, config).expect("the HAProxy configuration");
    let mut command = Command::new(program("haproxy").expect("haproxy installed"));
    command.arg("-f").arg(&path).arg("-db");
    Service::start(command, port)
}

/// One replica process: a server that prints its URL (`http://ADDR/mcp`) as its first line,
/// killed (SIGKILL, by its own handle) when dropped.
#[derive(Debug)]
pub struct Replica {
    child: Child,
    /// The address it listens on.
    pub addr: SocketAddr,
}

impl Replica {
    /// Starts `command` (the program with its listen address on port 0 and its own arguments)
    /// with `--store redis://127.0.0.1:{redis_port} --secret-file {secret}` appended, and reads
    /// its address from the first line it prints.
    pub fn start(mut command: Command, redis_port: u16, secret: &Path) -> Self {
        let mut child = command
            .arg("--store")
            .arg(format!("redis://127.0.0.1:{redis_port}"))
            .arg("--secret-file")
            .arg(secret)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {command:?}: {e}"));
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("piped stdout"))
            .read_line(&mut line)
            .unwrap_or_else(|e| panic!("{command:?} prints its URL: {e}"));
        let addr = line
            .trim()
            .strip_prefix("http://")
            .and_then(|s| s.strip_suffix("/mcp"))
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("unexpected first line {line:?} of {command:?}"));
        Self { child, addr }
    }

    /// Its endpoint.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// Kills it now (SIGKILL) and waits for it to end.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A Redis server, replicas sharing it with one secret file, and HAProxy round-robin without
/// stickiness in front of them; the scratch directory (secret, HAProxy configuration) under
/// the target dir is removed when dropped, after every process is killed.
#[derive(Debug)]
pub struct Cluster {
    /// The replicas, in start order.
    pub replicas: Vec<Replica>,
    /// The load balancer.
    pub balancer: Service,
    /// The shared store.
    pub redis: Service,
    dir: PathBuf,
}

impl Cluster {
    /// `replicas` processes, each started by [`Replica::start`] on a command `command` makes.
    pub fn start(replicas: usize, command: impl Fn() -> Command) -> Self {
        let mut n = [0u8; 8];
        getrandom::fill(&mut n).expect("OS randomness");
        let dir = target_dir()
            .join("scale")
            .join(format!("{:016x}", u64::from_le_bytes(n)));
        fs::create_dir_all(&dir).expect("a scratch directory");
        let secret = dir.join("secret");
        let mut bytes = [0u8; 48];
        getrandom::fill(&mut bytes).expect("OS randomness");
        fs::write(&secret, bytes).expect("the secret file");
        let redis = start_redis(None);
        let replicas: Vec<Replica> = (0..replicas)
            .map(|_| Replica::start(command(), redis.port, &secret))
            .collect();
        let addrs: Vec<SocketAddr> = replicas.iter().map(|r| r.addr).collect();
        let balancer = start_haproxy(&dir, &addrs);
        Self {
            replicas,
            balancer,
            redis,
            dir,
        }
    }

    /// The balancer's address.
    pub fn balancer(&self) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], self.balancer.port))
    }

    /// The endpoint through the balancer.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.balancer())
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.balancer.kill();
        self.replicas.iter_mut().for_each(Replica::kill);
        self.redis.kill();
        let _ = fs::remove_dir_all(&self.dir);
    }
}
