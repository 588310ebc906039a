//! Checking: runs the annotated scratch crate's binary once per function (a crash, an abort or
//! an endless loop then stays with its function) and reads the verdict it prints.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The verdict on a function that compiles.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Value and gradient agree with the reference and finite differences at `points` points.
    Correct { points: usize },
    /// Value and gradient agree with the reference and with the program's own derivative,
    /// derived by hand ([`crate::program::PROGRAM_DERIVATIVES`]), at `points` points.
    Program { points: usize },
    /// A wrong value or gradient.
    Wrong(String),
    /// No point was found where the function is finite and smooth, or the check crashed.
    Untested(String),
}

/// How long one function's check may run.
const TIMEOUT: Duration = Duration::from_secs(20);

/// Runs the check of function `id`.
pub fn check(binary: &Path, id: usize) -> Verdict {
    let child = Command::new(binary)
        .arg(id.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => return Verdict::Untested(format!("cannot run the check: {e}")),
    };
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if start.elapsed() > TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Verdict::Untested(format!(
                    "the check ran longer than {}s",
                    TIMEOUT.as_secs()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Verdict::Untested(format!("wait: {e}")),
        }
    }
    let out = child
        .wait_with_output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    let Some(line) = out.lines().find_map(|l| l.strip_prefix("CORPUS-RESULT\t")) else {
        return Verdict::Untested("the check crashed (stack overflow or abort)".into());
    };
    let mut parts = line.splitn(3, '\t');
    let (status, points, detail) = (
        parts.next().unwrap_or(""),
        parts.next().unwrap_or("0"),
        parts.next().unwrap_or(""),
    );
    match status {
        "correct" => Verdict::Correct {
            points: points.parse().unwrap_or(0),
        },
        "program" => Verdict::Program {
            points: points.parse().unwrap_or(0),
        },
        "wrong" => Verdict::Wrong(detail.to_string()),
        _ => Verdict::Untested(detail.to_string()),
    }
}
