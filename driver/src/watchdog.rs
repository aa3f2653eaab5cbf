//! Stops a link step that runs far longer than compiling takes (issue 39,
//! item 6: a derivative over a thread pool once linked for 16 minutes
//! without a word). A thread waits out the limit; if the step has not
//! finished by then, it says which phase and which function the engine was
//! on, removes the step's temporary files and ends the process: no output
//! file has been written at that point.

use std::path::PathBuf;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::error::DriverError;

/// The limit when `ENZYME_TIME_LIMIT` is not set: clang compiles the
/// largest programs we build in well under a minute.
const DEFAULT_LIMIT_S: f64 = 600.0;

/// The link step's current phase, shared with the watchdog.
pub type Phase = Arc<Mutex<String>>;

/// Running while the link step differentiates and compiles; stopped (and
/// joined) when dropped.
pub struct Watchdog {
    /// The sender whose drop wakes the thread, and the thread; none without a limit.
    running: Option<(mpsc::Sender<()>, JoinHandle<()>)>,
}

/// `ENZYME_TIME_LIMIT` in seconds (0: none).
fn limit() -> Result<Option<Duration>, DriverError> {
    let Some(v) = std::env::var_os("ENZYME_TIME_LIMIT") else {
        return Ok(Some(Duration::from_secs_f64(DEFAULT_LIMIT_S)));
    };
    let text = v.to_string_lossy();
    match text.trim().parse::<f64>() {
        Ok(0.0) => Ok(None),
        Ok(s) if s > 0.0 && s.is_finite() => Ok(Some(Duration::from_secs_f64(s))),
        _ => {
            Err(DriverError::Usage(format!("ENZYME_TIME_LIMIT={text}: expected a number of seconds (0 for no limit)")))
        }
    }
}

impl Watchdog {
    /// Starts the watchdog of a link step whose temporary files are `tmp`.
    pub fn start(program: &'static str, phase: Phase, tmp: PathBuf) -> Result<Watchdog, DriverError> {
        let Some(limit) = limit()? else {
            return Ok(Watchdog { running: None });
        };
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::spawn(move || {
            if stopped.recv_timeout(limit) != Err(RecvTimeoutError::Timeout) {
                return;
            }
            let phase = phase.lock().map(|p| p.clone()).unwrap_or_default();
            let engine = ad::progress::current();
            let on =
                if phase == "differentiating" && !engine.is_empty() { format!("{phase}: {engine}") } else { phase };
            let shown = limit.as_secs_f64();
            eprintln!(
                "\r{program}: error: the link step ran past its time limit of {shown} s while {on}; nothing was \
                 written\n  = help: compiling takes far less: please report it with the program (ENZYME_DUMP_IR=<dir> \
                 saves the module), or set ENZYME_TIME_LIMIT=<seconds> (0: no limit)"
            );
            let _ = std::fs::remove_dir_all(&tmp);
            std::process::exit(1);
        });
        Ok(Watchdog { running: Some((stop, thread)) })
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        if let Some((stop, thread)) = self.running.take() {
            // Dropping the sender wakes the thread, which then returns.
            drop(stop);
            let _ = thread.join();
        }
    }
}
