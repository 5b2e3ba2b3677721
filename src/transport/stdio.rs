//! The stdio transport: a child process in its own process group, newline-delimited frames on
//! stdin/stdout, stderr kept as evidence, and a shutdown ladder that always leaves nothing behind.
//!
//! The ladder: close stdin, wait; SIGTERM the group, wait; SIGKILL the group. Every group ever
//! started is registered, so that Ctrl-C (or a panic) can still kill what is left.

use std::collections::{HashSet, VecDeque};
use std::process::Stdio;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};

use super::{Limits, StdioSpec};
use crate::record::exchange::StoppedBy;
use crate::record::{ExitReport, FrameIssue};

/// Process groups started and not yet reaped, for emergency cleanup.
fn groups() -> &'static Mutex<HashSet<i32>> {
    static GROUPS: OnceLock<Mutex<HashSet<i32>>> = OnceLock::new();
    GROUPS.get_or_init(|| Mutex::new(HashSet::new()))
}

/// Makes mcpcheck the reaper of every process it starts, however deep: a server's grandchild
/// that leaves the server's process group (with `setsid`) and is orphaned comes back to
/// mcpcheck instead of to init, so that [`reap_orphans`] can stop it. Call it before any server
/// starts.
pub fn become_subreaper() {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl with PR_SET_CHILD_SUBREAPER only sets a flag of this process.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
}

/// Kills and reaps every process still left as mcpcheck's child: the orphans that escaped their
/// server's process group. Called last, once every server mcpcheck stopped has been waited for,
/// so that nothing is left running.
pub fn reap_orphans() {
    #[cfg(target_os = "linux")]
    for _ in 0..8 {
        let orphans = children_of(std::process::id());
        if orphans.is_empty() {
            return;
        }
        for pid in &orphans {
            // SAFETY: kill and waitpid act on a child process of ours.
            unsafe {
                libc::kill(*pid, libc::SIGKILL);
            }
        }
        for pid in &orphans {
            let mut status = 0;
            // SAFETY: waits for a child of ours that was just killed.
            unsafe {
                libc::waitpid(*pid, &mut status, 0);
            }
        }
    }
}

/// The pids whose parent is `parent` (from /proc).
#[cfg(target_os = "linux")]
fn children_of(parent: u32) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            // The fields after the command name (which may hold spaces and parentheses): state,
            // then the parent's pid.
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|stat| {
                    let rest = &stat[stat.rfind(')')? + 1..];
                    rest.split_whitespace().nth(1)?.parse::<u32>().ok()
                })
                == Some(parent)
        })
        .collect()
}

/// Kills every process group mcpcheck started that is still registered (Ctrl-C, fatal errors,
/// and last of all before mcpcheck exits, should any be left).
pub fn kill_all_groups() {
    let killed: Vec<i32> = groups().lock().expect("groups lock").drain().collect();
    for pgid in killed {
        signal_group(pgid, libc::SIGKILL);
        tell_keeper('-', pgid);
    }
}

/// Registers a server's process group, here and with the keeper.
fn hold(pgid: i32) {
    groups().lock().expect("groups lock").insert(pgid);
    tell_keeper('+', pgid);
}

/// Forgets a server's process group, which mcpcheck has stopped (once: a group that was
/// already forgotten is not told to the keeper again, whose list may hold a later group of the
/// same id).
fn release(pgid: i32) {
    if groups().lock().expect("groups lock").remove(&pgid) {
        tell_keeper('-', pgid);
    }
}

/// The keeper: a shell that mcpcheck starts once, in a process group of its own, to stop every
/// server still running when mcpcheck goes away without stopping them (killed outright, or
/// crashed). mcpcheck tells it on its stdin each server's process group as the server starts
/// (`+PGID`) and once it is stopped (`-PGID`); when that pipe closes, mcpcheck is gone, and the
/// keeper sends SIGKILL to each group it still holds, then ends. (At a normal end it holds none:
/// the binary stops it with its other children, a program that runs mcpcheck as a library lets
/// it end with its pipe.) With a keeper the servers are started without a fork of mcpcheck
/// (`posix_spawn`, which the standard library uses unless a PATH of the server's own is to find
/// a bare program name): a parent-death signal, the other way, has to be set in a forked child,
/// and forking copies the page tables of the whole process at every start, which costs a process
/// that runs mcpcheck as a library, with many runs at once, more than the start itself. A server
/// is told to the keeper as soon as it has started: a mcpcheck killed in between leaves it to
/// its stdin's end. The pipe does not block: a keeper that stopped reading, or is gone, is given
/// up (and killed, so that it never acts on a list it was no longer told about), and the servers
/// started after that get the parent-death signal instead. `None` where the shell cannot be
/// started, or the keeper was given up.
fn keeper() -> Option<&'static Mutex<Keeper>> {
    static KEEPER: OnceLock<Option<Mutex<Keeper>>> = OnceLock::new();
    if KEEPER_GIVEN_UP.load(std::sync::atomic::Ordering::Relaxed) {
        return None;
    }
    KEEPER
        .get_or_init(|| {
            use std::os::unix::io::AsRawFd;
            use std::os::unix::process::CommandExt;
            let mut child = std::process::Command::new("/bin/sh")
                .args(["-c", KEEPER_SCRIPT])
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .process_group(0)
                .spawn()
                .ok()?;
            let stdin = child.stdin.take()?;
            let fd = stdin.as_raw_fd();
            // SAFETY: fcntl on a descriptor this process owns; only its status flags change.
            let nonblocking = unsafe {
                let flags = libc::fcntl(fd, libc::F_GETFL);
                flags >= 0 && libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) == 0
            };
            nonblocking.then(|| {
                Mutex::new(Keeper {
                    stdin,
                    process: child,
                })
            })
        })
        .as_ref()
}

/// The keeper's process and the pipe to it. It lives as long as mcpcheck (the binary reaps it
/// with its other children at the end).
struct Keeper {
    stdin: std::process::ChildStdin,
    process: std::process::Child,
}

/// Set once a write to the keeper failed: it is no longer counted on.
static KEEPER_GIVEN_UP: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The keeper's script (see [`keeper`]): the groups it holds are a space-separated list; signals
/// that would end it before mcpcheck (a Ctrl-C to the terminal's group) are ignored.
const KEEPER_SCRIPT: &str = r#"trap '' INT TERM HUP
held=' '
while read -r line; do
  case $line in
    +*) held="$held${line#+} " ;;
    -*) id=${line#-}
        case $held in *" $id "*) held="${held%%" $id "*} ${held#*" $id "}" ;; esac ;;
  esac
done
for id in $held; do kill -s KILL -- "-$id" 2>/dev/null; done
"#;

/// Tells the keeper that a group started (`+`) or was stopped (`-`), in one write. A keeper that
/// is gone (someone killed it) or does not read is given up (see [`keeper`]); that is not an
/// error of the run.
fn tell_keeper(change: char, pgid: i32) {
    use std::io::Write;
    if let Some(keeper) = keeper() {
        let line = format!("{change}{pgid}\n");
        let mut keeper = keeper.lock().expect("keeper lock");
        if !matches!(keeper.stdin.write(line.as_bytes()), Ok(n) if n == line.len()) {
            KEEPER_GIVEN_UP.store(true, std::sync::atomic::Ordering::Relaxed);
            let _ = keeper.process.kill();
            let _ = keeper.process.try_wait();
        }
    }
}

fn signal_group(pgid: i32, signal: i32) {
    // SAFETY: killpg only sends a signal; an unknown or empty group makes it fail with ESRCH.
    unsafe {
        libc::killpg(pgid, signal);
    }
}

/// What a stream-shaped transport received: a line of a stdio server's stdout, or an SSE event
/// of the 2024-11-05 HTTP+SSE transport.
#[derive(Debug)]
pub enum Inbound {
    /// One JSON value read, with the text it came from and a framing problem, if any (e.g. it
    /// spanned several lines, or came in an SSE event not named `message`).
    Message {
        /// The value.
        value: Value,
        /// The text it was read from.
        text: String,
        /// What is wrong with how it was framed, if anything.
        issue: Option<FrameIssue>,
    },
    /// Output that is not a JSON-RPC message: a banner, a log line, a blank line, an oversize frame.
    Noise {
        /// The text.
        text: String,
        /// What is wrong with it.
        issue: FrameIssue,
    },
    /// stdout closed, or the SSE stream ended.
    Closed,
}

/// A running stdio server.
pub struct StdioProcess {
    child: tokio::sync::Mutex<Option<Child>>,
    stdin: tokio::sync::Mutex<Option<ChildStdin>>,
    pgid: i32,
    stderr: Arc<Mutex<VecDeque<u8>>>,
    stderr_reader: Mutex<Option<tokio::task::JoinHandle<()>>>,
    /// Set when the process is known to have exited.
    exited: Arc<Mutex<Option<String>>>,
    stopped: Mutex<bool>,
    /// How long one write to stdin may block (a server that stops reading fills the pipe).
    write_timeout: Duration,
    /// Set once a write timed out: the server no longer reads its stdin, and later writes fail
    /// at once instead of queueing behind the stuck one.
    wedged: std::sync::atomic::AtomicBool,
}

/// Why a stdio server could not be started or written to: what a caller may tell apart, each
/// said in words.
#[derive(Debug, thiserror::Error)]
pub enum StdioError {
    /// The command has no program.
    #[error("the --stdio command is empty")]
    Empty,
    /// The program could not be started (not found, not executable).
    #[error("failed to start `{program}`: {source}")]
    Spawn {
        /// The program.
        program: String,
        /// What the system said.
        source: std::io::Error,
    },
    /// The process was gone before its process group could be registered.
    #[error("the server exited before it could be registered")]
    ExitedAtOnce,
    /// A write to stdin did not complete within its bound: the server no longer reads it.
    #[error("the server stopped reading its stdin (a write did not complete within {seconds} s)")]
    StdinStuck {
        /// The bound, in seconds.
        seconds: f64,
    },
    /// Stdin was closed (by mcpcheck, to stop the server).
    #[error("stdin is closed")]
    StdinClosed,
    /// The write failed (the server closed its end).
    #[error("failed to write to the server's stdin: {0}")]
    Write(std::io::Error),
    /// The flush after the write failed.
    #[error("failed to flush the server's stdin: {0}")]
    Flush(std::io::Error),
}

impl From<StdioError> for String {
    fn from(error: StdioError) -> String {
        error.to_string()
    }
}

impl StdioProcess {
    /// Starts the server and returns it with the stream of what its stdout produces.
    pub fn spawn(
        spec: &StdioSpec,
        limits: &Limits,
    ) -> Result<(StdioProcess, StdoutReader), StdioError> {
        let program = spec.argv.first().ok_or(StdioError::Empty)?;
        // If mcpcheck itself is killed outright, the server goes too: the keeper stops it, or
        // where there is none (no /bin/sh) the parent-death signal does, which needs the child
        // to be forked first (stdin closes as well).
        #[cfg_attr(not(target_os = "linux"), allow(unused_variables))]
        let kept = keeper().is_some();
        let command = |argv: &[&str]| {
            let mut command = Command::new(argv[0]);
            command
                .args(&argv[1..])
                .envs(spec.env.iter().map(|(k, v)| (k, v)))
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .process_group(0)
                .kill_on_drop(true);
            #[cfg(target_os = "linux")]
            if !kept {
                // SAFETY: prctl is async-signal-safe; it only sets the child's parent-death
                // signal.
                unsafe {
                    command.pre_exec(|| {
                        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
                        Ok(())
                    });
                }
            }
            if let Some(dir) = &spec.cwd {
                command.current_dir(dir);
            }
            command
        };
        let argv: Vec<&str> = spec.argv.iter().map(String::as_str).collect();
        let mut child = match command(&argv).spawn() {
            // A script without a `#!` line is run by the shell, as a shell's exec runs it (and
            // as execvp did where the child was forked).
            Err(e) if e.raw_os_error() == Some(libc::ENOEXEC) => {
                command(&[["/bin/sh"].as_slice(), &argv].concat()).spawn()
            }
            spawned => spawned,
        }
        .map_err(|source| StdioError::Spawn {
            program: program.clone(),
            source,
        })?;
        limits
            .starts
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let pgid = child.id().ok_or(StdioError::ExitedAtOnce)? as i32;
        hold(pgid);
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr_pipe = child.stderr.take().expect("piped stderr");
        let stdin = child.stdin.take();
        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        let reader = StdoutReader {
            reader: BufReader::new(stdout),
            framer: Framer::new(limits.max_frame_bytes),
            line: Vec::new(),
            max_frame: limits.max_frame_bytes,
            closed: false,
            heard: Arc::new(std::sync::atomic::AtomicBool::new(false)),
        };
        let stderr_reader = tokio::spawn(read_stderr(
            stderr_pipe,
            stderr.clone(),
            limits.stderr_bytes,
        ));
        let process = StdioProcess {
            child: tokio::sync::Mutex::new(Some(child)),
            stdin: tokio::sync::Mutex::new(stdin),
            pgid,
            stderr,
            stderr_reader: Mutex::new(Some(stderr_reader)),
            exited: Arc::new(Mutex::new(None)),
            stopped: Mutex::new(false),
            write_timeout: limits.request_timeout.max(Duration::from_millis(100)),
            wedged: std::sync::atomic::AtomicBool::new(false),
        };
        Ok((process, reader))
    }

    /// Writes bytes to the server's stdin, within the request timeout: a server that stops
    /// reading its stdin (the pipe full) makes the write fail instead of hang, and every later
    /// write fails at once.
    pub async fn write(&self, bytes: &[u8]) -> Result<(), StdioError> {
        use std::sync::atomic::Ordering;
        let stuck = || StdioError::StdinStuck {
            seconds: self.write_timeout.as_secs_f64(),
        };
        if self.wedged.load(Ordering::SeqCst) {
            return Err(stuck());
        }
        let write = async {
            let mut stdin = self.stdin.lock().await;
            let pipe = stdin.as_mut().ok_or(StdioError::StdinClosed)?;
            pipe.write_all(bytes).await.map_err(StdioError::Write)?;
            pipe.flush().await.map_err(StdioError::Flush)
        };
        match tokio::time::timeout(self.write_timeout, write).await {
            Ok(result) => result,
            Err(_) => {
                self.wedged.store(true, Ordering::SeqCst);
                Err(stuck())
            }
        }
    }

    /// The exit status, if the process has exited.
    pub async fn try_status(&self) -> Option<String> {
        if let Some(status) = self.exited.lock().expect("exit lock").clone() {
            return Some(status);
        }
        let mut child = self.child.lock().await;
        let status = child.as_mut()?.try_wait().ok().flatten().map(describe)?;
        *self.exited.lock().expect("exit lock") = Some(status.clone());
        Some(status)
    }

    /// The server's process group (every process it started is in it).
    pub fn process_group(&self) -> i32 {
        self.pgid
    }

    /// The last bytes the server wrote to stderr.
    pub fn stderr_tail(&self) -> String {
        let buffer = self.stderr.lock().expect("stderr lock");
        String::from_utf8_lossy(&buffer.iter().copied().collect::<Vec<u8>>()).into_owned()
    }

    /// Stops the server: close stdin and wait `grace`; SIGTERM the group and wait; SIGKILL it.
    pub async fn shutdown(&self, grace: Duration) -> ExitReport {
        let already = self.try_status().await;
        // Closing stdin never waits behind a stuck write: a server that no longer reads its
        // stdin gets no grace and is signalled at once (which ends the write too).
        let grace = match self.stdin.try_lock() {
            Ok(mut stdin) if !self.wedged.load(std::sync::atomic::Ordering::SeqCst) => {
                stdin.take();
                grace
            }
            _ => Duration::ZERO,
        };
        let started = Instant::now();
        let mut child = self.child.lock().await;
        let report = match (already, child.as_mut()) {
            (Some(status), _) => ExitReport {
                stopped_by: StoppedBy::ExitedBeforeShutdown,
                exit_ms: None,
                status,
            },
            (None, None) => ExitReport {
                stopped_by: StoppedBy::ExitedBeforeShutdown,
                exit_ms: None,
                status: "unknown".into(),
            },
            (None, Some(process)) => match tokio::time::timeout(grace, process.wait()).await {
                Ok(status) => ExitReport {
                    stopped_by: StoppedBy::StdinEof,
                    exit_ms: Some(started.elapsed().as_millis() as u64),
                    status: status.map(describe).unwrap_or_else(|e| e.to_string()),
                },
                Err(_) => {
                    signal_group(self.pgid, libc::SIGTERM);
                    match tokio::time::timeout(Duration::from_secs(2), process.wait()).await {
                        Ok(status) => ExitReport {
                            stopped_by: StoppedBy::Sigterm,
                            exit_ms: Some(started.elapsed().as_millis() as u64),
                            status: status.map(describe).unwrap_or_else(|e| e.to_string()),
                        },
                        Err(_) => {
                            signal_group(self.pgid, libc::SIGKILL);
                            let status = process.wait().await;
                            ExitReport {
                                stopped_by: StoppedBy::Sigkill,
                                exit_ms: Some(started.elapsed().as_millis() as u64),
                                status: status.map(describe).unwrap_or_else(|e| e.to_string()),
                            }
                        }
                    }
                }
            },
        };
        // Whatever the server left behind in its group (grandchildren) goes too.
        signal_group(self.pgid, libc::SIGKILL);
        release(self.pgid);
        *self.stopped.lock().expect("stopped lock") = true;
        child.take();
        // With the whole group gone, stderr reaches EOF; let the reader take in the last bytes.
        let reader = self
            .stderr_reader
            .lock()
            .expect("stderr reader lock")
            .take();
        if let Some(reader) = reader {
            let _ = tokio::time::timeout(Duration::from_millis(500), reader).await;
        }
        report
    }
}

impl Drop for StdioProcess {
    fn drop(&mut self) {
        if !*self.stopped.lock().expect("stopped lock") {
            signal_group(self.pgid, libc::SIGKILL);
            release(self.pgid);
        }
    }
}

fn describe(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit {code}"),
        (None, Some(signal)) => format!("signal {signal}"),
        _ => status.to_string(),
    }
}

async fn read_stderr(
    mut pipe: tokio::process::ChildStderr,
    buffer: Arc<Mutex<VecDeque<u8>>>,
    cap: usize,
) {
    let mut chunk = [0u8; 4096];
    while let Ok(n) = pipe.read(&mut chunk).await {
        if n == 0 {
            break;
        }
        let mut buffer = buffer.lock().expect("stderr lock");
        buffer.extend(&chunk[..n]);
        let excess = buffer.len().saturating_sub(cap);
        buffer.drain(..excess);
    }
}

/// The server's stdout, read line by line and turned into events; multi-line JSON is recovered
/// so that the problem can be reported precisely rather than as a timeout. The session's
/// dispatcher pulls from it directly, so a response takes no extra task hop.
pub struct StdoutReader {
    reader: BufReader<tokio::process::ChildStdout>,
    framer: Framer,
    line: Vec<u8>,
    max_frame: usize,
    closed: bool,
    heard: Arc<std::sync::atomic::AtomicBool>,
}

impl StdoutReader {
    /// A flag set once stdout has produced any byte: the server is up.
    pub fn heard(&self) -> Arc<std::sync::atomic::AtomicBool> {
        self.heard.clone()
    }

    /// The next events; `Inbound::Closed` comes last, then `None`.
    pub async fn next(&mut self) -> Option<Vec<Inbound>> {
        if self.closed {
            return None;
        }
        self.line.clear();
        let max_frame = self.max_frame;
        Some(
            match read_line_capped(&mut self.reader, &mut self.line, max_frame, &self.heard).await {
                Ok(LineRead::Line) => self.framer.line(&self.line),
                Ok(LineRead::Oversize(total)) => vec![Inbound::Noise {
                    text: String::from_utf8_lossy(&self.line[..self.line.len().min(256)])
                        .into_owned(),
                    issue: FrameIssue::Oversize {
                        bytes: total,
                        max: max_frame,
                    },
                }],
                Ok(LineRead::Eof) | Err(_) => {
                    self.closed = true;
                    let mut events = self.framer.flush();
                    events.push(Inbound::Closed);
                    events
                }
            },
        )
    }
}

enum LineRead {
    Line,
    Eof,
    Oversize(usize),
}

/// Reads up to and including `\n`, keeping at most `max` bytes; longer lines are drained.
async fn read_line_capped<R: tokio::io::AsyncBufRead + Unpin>(
    reader: &mut R,
    line: &mut Vec<u8>,
    max: usize,
    heard: &std::sync::atomic::AtomicBool,
) -> std::io::Result<LineRead> {
    let mut total = 0usize;
    loop {
        let available = reader.fill_buf().await?;
        if !available.is_empty() {
            heard.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        if available.is_empty() {
            return Ok(if total == 0 {
                LineRead::Eof
            } else if total > max {
                LineRead::Oversize(total)
            } else {
                LineRead::Line
            });
        }
        let (chunk, done) = match available.iter().position(|b| *b == b'\n') {
            Some(i) => (&available[..=i], true),
            None => (available, false),
        };
        let take = chunk.len();
        if line.len() < max {
            let room = max - line.len();
            line.extend_from_slice(&chunk[..take.min(room)]);
        }
        total += take;
        reader.consume(take);
        if done {
            return Ok(if total > max {
                LineRead::Oversize(total)
            } else {
                LineRead::Line
            });
        }
    }
}

/// Turns stdout lines into events; holds unparsable lines in case they are one pretty-printed
/// message spread over several lines.
struct Framer {
    pending: Vec<String>,
    pending_bytes: usize,
    max_frame: usize,
    /// Where the pending lines stand as JSON text: a parse is tried only once the bracket they
    /// open has closed, so that a long pretty-printed message is parsed once, not once per line.
    scan: Nesting,
}

/// The bracket depth of JSON text read so far, outside its strings.
#[derive(Default)]
struct Nesting {
    depth: i64,
    in_string: bool,
    escaped: bool,
    /// The first bracket has been closed: the value is over, and more text cannot mend it.
    closed: bool,
}

impl Nesting {
    /// Reads one more line (the newline between lines is outside any valid string).
    fn feed(&mut self, line: &str) {
        for byte in line.bytes() {
            match (self.in_string, self.escaped, byte) {
                (true, true, _) => self.escaped = false,
                (true, false, b'\\') => self.escaped = true,
                (true, false, b'"') => self.in_string = false,
                (true, false, _) => {}
                (false, _, b'"') => self.in_string = true,
                (false, _, b'{' | b'[') => self.depth += 1,
                (false, _, b'}' | b']') => {
                    self.depth -= 1;
                    self.closed |= self.depth <= 0;
                }
                (false, _, _) => {}
            }
        }
    }
}

/// How many lines a multi-line message may span before the lines are given up on as noise (a
/// pretty-printed tool list runs to thousands; the frame's byte limit bounds it as well).
const MAX_PENDING_LINES: usize = 65_536;

impl Framer {
    fn new(max_frame: usize) -> Framer {
        Framer {
            pending: Vec::new(),
            pending_bytes: 0,
            max_frame,
            scan: Nesting::default(),
        }
    }

    fn line(&mut self, raw: &[u8]) -> Vec<Inbound> {
        let mut events = Vec::new();
        let body = raw.strip_suffix(b"\n").unwrap_or(raw);
        let (body, crlf) = match body.strip_suffix(b"\r") {
            Some(b) => (b, true),
            None => (body, false),
        };
        let text = match std::str::from_utf8(body) {
            Ok(text) => text.to_string(),
            Err(_) => {
                events.extend(self.flush());
                events.push(Inbound::Noise {
                    text: String::from_utf8_lossy(body).into_owned(),
                    issue: FrameIssue::NotUtf8,
                });
                return events;
            }
        };
        // A line that is JSON on its own is a message, unless a multi-line message is being
        // gathered and the line is one of its inner lines (`"2026-07-28"`, `true` and `{}` are
        // JSON too): then only a whole JSON-RPC object on one line starts anew.
        if let Ok(value) = serde_json::from_str::<Value>(&text) {
            let starts_anew = self.pending.is_empty()
                || value.get("jsonrpc").is_some()
                || value
                    .as_array()
                    .is_some_and(|items| items.iter().any(|i| i.get("jsonrpc").is_some()));
            if starts_anew {
                events.extend(self.flush());
                events.push(classify(value, text, crlf.then_some(FrameIssue::CrLf)));
                return events;
            }
        }
        if !self.pending.is_empty() || text.trim_start().starts_with(['{', '[']) {
            self.pending_bytes += text.len() + 1;
            self.scan.feed(&text);
            self.pending.push(text);
            // The lines are parsed once the value they open has closed: then they are one
            // message, or noise that no further line can mend (`[INFO] starting`, say).
            if !self.scan.closed {
                if self.pending.len() > MAX_PENDING_LINES || self.pending_bytes > self.max_frame {
                    events.extend(self.flush());
                }
                return events;
            }
            let joined = self.pending.join("\n");
            if let Ok(value) = serde_json::from_str::<Value>(&joined) {
                let lines = self.pending.len();
                self.pending.clear();
                self.pending_bytes = 0;
                self.scan = Nesting::default();
                events.push(classify(
                    value,
                    joined,
                    Some(FrameIssue::MultiLine { lines }),
                ));
            } else {
                events.extend(self.flush());
            }
            return events;
        }
        let issue = if text.trim().is_empty() {
            FrameIssue::Blank
        } else {
            FrameIssue::NotJson
        };
        events.push(Inbound::Noise { text, issue });
        events
    }

    fn flush(&mut self) -> Vec<Inbound> {
        self.pending_bytes = 0;
        self.scan = Nesting::default();
        self.pending
            .drain(..)
            .map(|text| Inbound::Noise {
                text,
                issue: FrameIssue::NotJsonRpc,
            })
            .collect()
    }
}

fn classify(value: Value, text: String, issue: Option<FrameIssue>) -> Inbound {
    if value.is_object() || value.is_array() {
        Inbound::Message { value, text, issue }
    } else {
        Inbound::Noise {
            text,
            issue: FrameIssue::JsonNotMessage,
        }
    }
}

/// The CPU time (user and system, its own and its waited-for children's, in clock ticks) the
/// processes of a process group have used so far, and whether one of them is running or
/// waiting for a core right now; read from `/proc`, `None` where there is none.
pub fn group_cpu_ticks(pgid: i32) -> Option<(u64, bool)> {
    let entries = std::fs::read_dir("/proc").ok()?;
    let mut total = 0u64;
    let mut running = false;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // After the command (in parentheses, which may hold spaces): state, ppid, pgrp, …; utime,
        // stime, cutime and cstime are the 12th to 15th fields.
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.get(2).and_then(|g| g.parse::<i32>().ok()) != Some(pgid) {
            continue;
        }
        let ticks = |i: usize| {
            fields
                .get(i)
                .and_then(|t| t.parse::<u64>().ok())
                .unwrap_or(0)
        };
        total += ticks(11) + ticks(12) + ticks(13) + ticks(14);
        running |= fields.first() == Some(&"R");
    }
    Some((total, running))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(events: &[Inbound]) -> Vec<&'static str> {
        events
            .iter()
            .map(|e| match e {
                Inbound::Message { issue: None, .. } => "message",
                Inbound::Message { issue: Some(_), .. } => "message-with-issue",
                Inbound::Noise { .. } => "noise",
                Inbound::Closed => "closed",
            })
            .collect()
    }

    proptest::proptest! {
        /// Whatever lines come, the framer neither panics nor holds more than the frame limit
        /// (plus one line) for a message that might span lines, and a valid line after them is
        /// still one message.
        #[test]
        fn the_framer_never_panics_and_stays_bounded(
            lines in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::collection::vec(proptest::prelude::any::<u8>(), 0..64),
                    proptest::prelude::Just(b"{".to_vec()),
                    proptest::prelude::Just(b"  \"id\": 1,".to_vec()),
                    proptest::prelude::Just(b"}".to_vec()),
                    proptest::prelude::Just(b"[".to_vec()),
                ],
                0..64,
            )
        ) {
            let mut framer = Framer::new(256);
            for mut line in lines {
                line.push(b'\n');
                let _ = framer.line(&line);
                proptest::prop_assert!(framer.pending_bytes <= 256 + 66);
            }
            let _ = framer.flush();
            let events = framer.line(b"{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}\n");
            proptest::prop_assert_eq!(kinds(&events), ["message"]);
        }
    }

    #[test]
    fn one_line_one_message() {
        let mut framer = Framer::new(1 << 20);
        assert_eq!(
            kinds(&framer.line(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n")),
            ["message"]
        );
    }

    #[test]
    fn banner_is_noise_and_the_next_message_survives() {
        let mut framer = Framer::new(1 << 20);
        assert_eq!(kinds(&framer.line(b"server ready\n")), ["noise"]);
        assert_eq!(kinds(&framer.line(b"\n")), ["noise"]);
        assert_eq!(kinds(&framer.line(b"{\"id\":1}\n")), ["message"]);
    }

    /// The lines of a small pretty-printed response.
    const PRETTY: &[&str] = &[
        "{",
        "  \"jsonrpc\": \"2.0\",",
        "  \"id\": 1,",
        "  \"result\": {}",
        "}",
    ];

    /// Feeds `lines` to `framer`, each with its newline; returns what came out.
    fn feed(framer: &mut Framer, lines: &[&str]) -> Vec<Inbound> {
        lines
            .iter()
            .flat_map(|line| framer.line(format!("{line}\n").as_bytes()))
            .collect()
    }

    #[test]
    fn pretty_printed_message_is_recovered_and_flagged() {
        let events = feed(&mut Framer::new(1 << 20), PRETTY);
        assert_eq!(kinds(&events), ["message-with-issue"]);
        let Inbound::Message { value, issue, .. } = &events[0] else {
            unreachable!()
        };
        assert_eq!(value["id"], 1);
        assert_eq!(issue, &Some(FrameIssue::MultiLine { lines: 5 }));
    }

    #[test]
    fn inner_lines_that_are_json_on_their_own_stay_in_the_message() {
        let lines = [
            "{",
            "  \"jsonrpc\": \"2.0\",",
            "  \"id\": 1,",
            "  \"result\": {",
            "    \"supportedVersions\": [",
            "      \"2026-07-28\"",
            "    ],",
            "    \"list\": [",
            "      {}",
            "    ],",
            "    \"flag\": true",
            "  }",
            "}",
        ];
        let events = feed(&mut Framer::new(1 << 20), &lines);
        assert_eq!(kinds(&events), ["message-with-issue"]);
        let Inbound::Message { value, .. } = &events[0] else {
            unreachable!()
        };
        assert_eq!(value["result"]["supportedVersions"][0], "2026-07-28");
    }

    #[test]
    fn a_bracketed_log_line_does_not_swallow_the_message_after_it() {
        let mut framer = Framer::new(1 << 20);
        let mut events = framer.line(b"[INFO] starting {\"port\": 0}\n");
        assert_eq!(kinds(&events), ["noise"]);
        events.extend(feed(&mut framer, PRETTY));
        assert_eq!(kinds(&events), ["noise", "message-with-issue"]);
    }

    #[test]
    fn brackets_inside_strings_do_not_close_the_message() {
        let lines = ["{", "  \"text\": \"} ] \\\" {\",", "  \"id\": 1", "}"];
        let events = feed(&mut Framer::new(1 << 20), &lines);
        assert_eq!(kinds(&events), ["message-with-issue"]);
    }

    #[test]
    fn unfinished_json_is_noise_at_the_end() {
        let mut framer = Framer::new(1 << 20);
        assert!(framer.line(b"{\"truncated\":\n").is_empty());
        assert_eq!(kinds(&framer.flush()), ["noise"]);
    }

    #[tokio::test]
    async fn oversize_lines_are_drained_not_kept() {
        let data = [vec![b'x'; 100], b"\n{}\n".to_vec()].concat();
        let mut reader = BufReader::new(&data[..]);
        let mut line = Vec::new();
        assert!(matches!(
            read_line_capped(&mut reader, &mut line, 10, &Default::default())
                .await
                .unwrap(),
            LineRead::Oversize(101)
        ));
        assert_eq!(line.len(), 10);
        line.clear();
        assert!(matches!(
            read_line_capped(&mut reader, &mut line, 10, &Default::default())
                .await
                .unwrap(),
            LineRead::Line
        ));
        assert_eq!(line, b"{}\n");
    }

    #[test]
    fn a_process_group_s_cpu_time_is_read_from_proc() {
        if !std::path::Path::new("/proc/self/stat").exists() {
            return;
        }
        // This test's own process group has used some CPU by now; a group that does not
        // exist has used none.
        // SAFETY: getpgrp only reads the calling process's group id.
        let own = unsafe { libc::getpgrp() };
        assert!(group_cpu_ticks(own).is_some());
        assert_eq!(group_cpu_ticks(i32::MAX), Some((0, false)));
    }
}
