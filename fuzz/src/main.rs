//! The soak driver: generates programs in batches, builds and runs each batch as a
//! throwaway cargo project under `target/fuzz-work/`, and minimizes what fails.
//!
//! ```text
//! cargo run -p autodiff-fuzz --release -- --programs 5000 --seed 7
//! cargo run -p autodiff-fuzz --release -- --emit tests/random_programs/programs.rs
//! ```
//!
//! Batch `b` of a run with `--seed S` is exactly `generate(S + b, batch size)`, so a failing
//! batch is reproduced with `--emit FILE --seed S+b --programs SIZE`.
#![forbid(unsafe_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use autodiff_fuzz::{
    feature_counts, generate, generate_functions, render_module_body, render_test_file, Func,
    ALLOWED_LINTS, HARNESS, TEST_COUNT, TEST_SEED,
};

const USAGE: &str = "\
usage: autodiff-fuzz [--programs N] [--seed S] [--batch B] [--minimize M] [--timeout SECS]
       autodiff-fuzz --emit PATH [--seed S] [--programs N]

  --programs N   how many functions to generate and check (default 2000; with --emit, 200)
  --seed S       the first batch's seed; batch b uses S + b (default 1)
  --batch B      functions per throwaway project (default 200)
  --minimize M   minimize at most M failures (default 10)
  --timeout SECS per run of a batch binary (default 600)
  --emit PATH    write generate(S, N) to PATH and exit (the checked-in test file)";

struct Options {
    programs: Option<usize>,
    seed: Option<u64>,
    batch: usize,
    minimize: usize,
    timeout: Duration,
    emit: Option<PathBuf>,
}

fn parse_args() -> Result<Options, String> {
    let mut opts = Options {
        programs: None,
        seed: None,
        batch: 200,
        minimize: 10,
        timeout: Duration::from_secs(600),
        emit: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        if flag == "--help" || flag == "-h" {
            return Err(String::new());
        }
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let number = || {
            value
                .parse::<u64>()
                .map_err(|e| format!("{flag} {value}: {e}"))
        };
        match flag.as_str() {
            "--programs" => opts.programs = Some(number()? as usize),
            "--seed" => opts.seed = Some(number()?),
            "--batch" => opts.batch = (number()? as usize).max(1),
            "--minimize" => opts.minimize = number()? as usize,
            "--timeout" => opts.timeout = Duration::from_secs(number()?),
            "--emit" => opts.emit = Some(PathBuf::from(&value)),
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    Ok(opts)
}

fn main() {
    let opts = match parse_args() {
        Ok(opts) => opts,
        Err(message) => {
            if !message.is_empty() {
                eprintln!("error: {message}");
            }
            eprintln!("{USAGE}");
            std::process::exit(2);
        }
    };
    if let Some(path) = &opts.emit {
        let seed = opts.seed.unwrap_or(TEST_SEED);
        let count = opts.programs.unwrap_or(TEST_COUNT);
        if let Err(e) = fs::write(path, generate(seed, count)) {
            eprintln!("error: writing {}: {e}", path.display());
            std::process::exit(1);
        }
        println!("wrote generate({seed}, {count}) to {}", path.display());
        print_features(&feature_counts(&generate_functions(seed, count)));
        return;
    }
    let ok = Soak::new(opts).run();
    std::process::exit(if ok { 0 } else { 1 });
}

/// How many programs use each construct of the slice programs and `params` selections.
fn print_features(counts: &[(&str, usize)]) {
    println!("programs using each construct:");
    for (feature, n) in counts {
        println!("  {n:6}  {feature}");
    }
}

// ---------------------------------------------------------------------------------------
// Throwaway projects
// ---------------------------------------------------------------------------------------

/// The workspace root (the `autodiff` package).
fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("fuzz/ lives in the workspace")
        .to_path_buf()
}

/// A cargo project under `target/fuzz-work/<name>`, sharing one target directory with the
/// other throwaway projects so `autodiff` and its dependencies are built once.
struct Project {
    dir: PathBuf,
    target: PathBuf,
    name: String,
    release: bool,
}

/// A compiler error: line in the file, message.
struct CompileError {
    file: String,
    line: usize,
    message: String,
}

enum Build {
    Ok,
    Failed {
        errors: Vec<CompileError>,
        log: String,
    },
}

/// What a run printed for one checker.
#[derive(Clone, Debug)]
enum Outcome {
    Pass,
    Fail(String),
    /// Killed by the timeout, or the process died (stack overflow, abort) while it ran.
    Crash(String),
}

impl Project {
    fn new(name: &str, release: bool) -> Project {
        let work = workspace_root().join("target").join("fuzz-work");
        Project {
            dir: work.join(name),
            target: work.join("target"),
            name: format!("fuzz-{name}"),
            release,
        }
    }

    /// Writes the manifest and `files` (relative to `src/`), leaving unchanged files alone.
    fn write(&self, files: &[(&str, &str)]) {
        let root = workspace_root();
        let manifest = format!(
            "# Written by autodiff-fuzz; throwaway.\n[package]\nname = \"{}\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n[dependencies]\nautodiff = {{ path = {:?} }}\n\n# Not part of the autodiff workspace.\n[workspace]\n",
            self.name,
            root.display().to_string()
        );
        let mut all = vec![("Cargo.toml".to_string(), manifest)];
        for (path, text) in files {
            all.push((format!("src/{path}"), text.to_string()));
        }
        fs::create_dir_all(self.dir.join("src")).expect("create the project directory");
        if !self.dir.join("Cargo.lock").exists() {
            // The workspace's versions of autodiff's dependencies: no resolution needed.
            let _ = fs::copy(root.join("Cargo.lock"), self.dir.join("Cargo.lock"));
        }
        for (path, text) in all {
            let path = self.dir.join(path);
            if fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
                fs::write(&path, text).expect("write a project file");
            }
        }
    }

    fn cargo(&self, subcommand: &str) -> Command {
        let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
        cmd.arg(subcommand)
            .arg("--manifest-path")
            .arg(self.dir.join("Cargo.toml"))
            .env("CARGO_TARGET_DIR", &self.target)
            .env_remove("RUSTFLAGS")
            .env_remove("CARGO_ENCODED_RUSTFLAGS");
        if self.release {
            cmd.arg("--release");
        }
        cmd
    }

    fn build(&self) -> Build {
        self.compile("build")
    }

    /// `cargo check` (or `build`): errors with their lines.
    fn compile(&self, subcommand: &str) -> Build {
        let output = self
            .cargo(subcommand)
            .arg("--message-format=short")
            .stdin(Stdio::null())
            .output()
            .expect("run cargo");
        if output.status.success() {
            return Build::Ok;
        }
        let log = String::from_utf8_lossy(&output.stderr).into_owned();
        Build::Failed {
            errors: parse_errors(&log),
            log,
        }
    }

    /// Runs the built binary (as `cargo run` would) with `args`, killing it after `timeout`.
    fn run(
        &self,
        args: &[String],
        timeout: Duration,
    ) -> (BTreeMap<String, Outcome>, Option<String>, Vec<String>) {
        let profile = if self.release { "release" } else { "debug" };
        let binary = self.target.join(profile).join(&self.name);
        let mut child = Command::new(&binary)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("run the batch binary");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = mpsc::channel();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let deadline = Instant::now() + timeout;
        let mut lines = Vec::new();
        let status = loop {
            while let Ok(line) = rx.try_recv() {
                lines.push(line);
            }
            if let Some(status) = child.try_wait().expect("wait for the batch binary") {
                break Some(status);
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let _ = reader.join();
        lines.extend(rx.try_iter());
        let mut outcomes = BTreeMap::new();
        let mut started: Option<String> = None;
        let mut failing: Option<(String, Vec<String>)> = None;
        // `NOTE name: …` lines of checkers that passed (what they skipped)
        let mut notes = Vec::new();
        for line in lines {
            if let Some((name, message)) = &mut failing {
                if line == format!("END {name}") {
                    outcomes.insert(name.clone(), Outcome::Fail(message.join("\n")));
                    failing = None;
                    started = None;
                } else {
                    message.push(line.strip_prefix("| ").unwrap_or(&line).to_string());
                }
            } else if let Some(name) = line.strip_prefix("START ") {
                started = Some(name.to_string());
            } else if let Some(name) = line.strip_prefix("OK ") {
                outcomes.insert(name.to_string(), Outcome::Pass);
                started = None;
            } else if let Some(name) = line.strip_prefix("FAIL ") {
                failing = Some((name.to_string(), Vec::new()));
            } else if let Some(note) = line.strip_prefix("NOTE ") {
                notes.push(note.to_string());
            }
        }
        let unfinished = match status {
            Some(s) if s.success() => None,
            Some(s) => Some(format!("the process died ({s})")),
            None => Some(format!("timed out after {}s", timeout.as_secs())),
        };
        // The checker that was running when the process died or was killed.
        let culprit = unfinished.and_then(|why| {
            let name = failing.map(|f| f.0).or(started)?;
            outcomes.insert(name.clone(), Outcome::Crash(why));
            Some(name)
        });
        (outcomes, culprit, notes)
    }
}

/// `src/file.rs:LINE:COL: error…` lines of `cargo build --message-format=short`.
fn parse_errors(log: &str) -> Vec<CompileError> {
    log.lines()
        .filter_map(|line| {
            let (location, message) = line.split_once(": error")?;
            let mut parts = location.rsplitn(3, ':');
            let _col = parts.next()?;
            let line_no = parts.next()?.parse().ok()?;
            let file = parts.next()?.to_string();
            Some(CompileError {
                file,
                line: line_no,
                message: format!("error{message}"),
            })
        })
        .collect()
}

/// Every function that calls one in `bad`, directly or not.
fn dependents(funcs: &[Func], bad: &BTreeSet<usize>) -> BTreeSet<usize> {
    let mut out = bad.clone();
    for f in funcs {
        if f.callees().iter().any(|j| out.contains(j)) {
            out.insert(f.index);
        }
    }
    out
}

/// `target` and every function it calls, directly or not.
fn closure(funcs: &BTreeMap<usize, Func>, target: usize) -> BTreeSet<usize> {
    let mut out = BTreeSet::new();
    let mut todo = vec![target];
    while let Some(k) = todo.pop() {
        if out.insert(k) {
            todo.extend(funcs[&k].callees());
        }
    }
    out
}

/// The functions without `#[differentiable]`, each with its lines: plain Rust, so a
/// compile error here is the generator's.
fn render_plain(funcs: &[Func]) -> (String, Vec<(usize, usize, usize)>) {
    let mut text = format!(
        "#![allow({ALLOWED_LINTS})]\n#[allow(unused_imports)]\nuse autodiff::ndarray::{{Array1, Array2, Axis}};\n"
    );
    let mut spans = Vec::new();
    for f in funcs {
        let first = text.matches('\n').count() + 1;
        text.push_str(&f.render_plain());
        spans.push((f.index, first, text.matches('\n').count()));
    }
    (text, spans)
}

/// `main` of a batch: runs the checker of every function in `funcs` (the test's harness
/// and generated module, compiled as a binary), printing `START`/`OK`/`FAIL … END` lines
/// per checker; arguments name checkers to skip.
fn batch_main(funcs: &[Func]) -> String {
    let mut text = String::from(
        r#"//! Runs every checker of the batch; arguments name checkers to skip.
#[macro_use]
mod harness;
mod plain;
mod programs;

use std::io::Write;

/// Every checker, by function name.
const CHECKS: &[(&str, fn())] = &[
"#,
    );
    for f in funcs {
        text.push_str(&format!("    (\"{0}\", programs::check_{0}),\n", f.name()));
    }
    text.push_str(
        r#"];

fn main() {
    // A checker reports its failure by panicking with the message.
    std::panic::set_hook(Box::new(|_| {}));
    let skip: Vec<String> = std::env::args().skip(1).collect();
    let mut out = std::io::stdout().lock();
    for (name, check) in CHECKS {
        if skip.iter().any(|s| s == name) {
            continue;
        }
        writeln!(out, "START {name}").unwrap();
        out.flush().unwrap();
        match harness::catch(check) {
            Ok(()) => writeln!(out, "OK {name}").unwrap(),
            Err(e) => {
                writeln!(out, "FAIL {name}").unwrap();
                for line in e.lines() {
                    writeln!(out, "| {line}").unwrap();
                }
                writeln!(out, "END {name}").unwrap();
            }
        }
        out.flush().unwrap();
    }
}
"#,
    );
    text
}

// ---------------------------------------------------------------------------------------
// Failures
// ---------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum FailureKind {
    Compile,
    GradientMismatch,
    ValueMismatch,
    /// `jvp!`'s tangent differs from ⟨∇f, v⟩ or from the difference along `v`.
    JvpMismatch,
    /// `jvp!`'s value differs from the function's.
    JvpValueMismatch,
    Panic,
    Crash,
    /// The generated function itself panics: a bug of the generator, not of the macro.
    Generator,
}

impl FailureKind {
    fn of_message(message: &str) -> FailureKind {
        if message.starts_with("value mismatch") {
            FailureKind::ValueMismatch
        } else if message.starts_with("jvp mismatch") {
            FailureKind::JvpMismatch
        } else if message.starts_with("jvp value mismatch") {
            FailureKind::JvpValueMismatch
        } else if message.starts_with("generator error") {
            FailureKind::Generator
        } else if message.starts_with("panicked") {
            FailureKind::Panic
        } else {
            FailureKind::GradientMismatch
        }
    }

    fn label(self) -> &'static str {
        match self {
            FailureKind::Compile => "does not compile",
            FailureKind::GradientMismatch => "gradient differs from finite differences",
            FailureKind::ValueMismatch => "value_and_gradients_function! value differs",
            FailureKind::JvpMismatch => "jvp! tangent differs from the gradient along v",
            FailureKind::JvpValueMismatch => "jvp! value differs",
            FailureKind::Panic => "panics",
            FailureKind::Crash => "hangs or crashes",
            FailureKind::Generator => "GENERATOR BUG: invalid Rust, or the function itself panics",
        }
    }
}

struct Failure {
    seed: u64,
    function: usize,
    kind: FailureKind,
    message: String,
}

// ---------------------------------------------------------------------------------------
// The soak
// ---------------------------------------------------------------------------------------

struct Soak {
    opts: Options,
    batch_project: Project,
    minimize_project: Project,
    failures: Vec<Failure>,
    checked: usize,
    passed: usize,
    skipped: usize,
    /// Programs whose `jvp!` check was skipped, by reason (forward mode refuses them).
    jvp_skipped: BTreeMap<String, usize>,
    /// Programs generated per construct, over all batches.
    features: Vec<(&'static str, usize)>,
}

impl Soak {
    fn new(opts: Options) -> Soak {
        Soak {
            opts,
            batch_project: Project::new("batch", true),
            minimize_project: Project::new("minimize", false),
            failures: Vec::new(),
            checked: 0,
            passed: 0,
            skipped: 0,
            jvp_skipped: BTreeMap::new(),
            features: Vec::new(),
        }
    }

    fn run(mut self) -> bool {
        let start = Instant::now();
        let total = self.opts.programs.unwrap_or(2000);
        let first_seed = self.opts.seed.unwrap_or(1);
        let batches = total.div_ceil(self.opts.batch);
        for b in 0..batches {
            let size = self.opts.batch.min(total - b * self.opts.batch);
            let seed = first_seed + b as u64;
            let t = Instant::now();
            let failures_before = self.failures.len();
            if !self.batch(seed, size) {
                eprintln!("stopping: the batch could not be built (see above)");
                return false;
            }
            println!(
                "batch {}/{batches}: seed {seed}, {size} programs, {} failures, {:.0}s (total {} checked, {:.0}s)",
                b + 1,
                self.failures.len() - failures_before,
                t.elapsed().as_secs_f64(),
                self.checked,
                start.elapsed().as_secs_f64()
            );
        }
        let mut minimized = 0;
        let failures = std::mem::take(&mut self.failures);
        for failure in &failures {
            println!(
                "\n=== FAILURE: seed {} p{}: {} ===\n{}",
                failure.seed,
                failure.function,
                failure.kind.label(),
                failure.message
            );
            if minimized < self.opts.minimize {
                minimized += 1;
                self.minimize(failure);
            }
        }
        println!(
            "\n{} programs generated (seeds {}..={}, batches of {}): {} checked, {} passed, {} failed, {} skipped (they call a failing function); {:.0}s",
            total,
            first_seed,
            first_seed + batches as u64 - 1,
            self.opts.batch,
            self.checked,
            self.passed,
            failures.len(),
            self.skipped,
            start.elapsed().as_secs_f64()
        );
        let jvp_skipped: usize = self.jvp_skipped.values().sum();
        println!(
            "jvp! checked on {} of the {} passing programs; skipped (forward mode refuses them) on {jvp_skipped}:",
            self.passed.saturating_sub(jvp_skipped),
            self.passed
        );
        for (reason, n) in &self.jvp_skipped {
            println!("  {n:6}  {reason}");
        }
        print_features(&self.features);
        failures.is_empty()
    }

    /// Builds and runs one batch; `false` if it could not be built for a reason outside
    /// the generated code.
    fn batch(&mut self, seed: u64, size: usize) -> bool {
        let funcs = generate_functions(seed, size);
        let counts = feature_counts(&funcs);
        if self.features.is_empty() {
            self.features = counts;
        } else {
            for (total, (_, n)) in self.features.iter_mut().zip(counts) {
                total.1 += n;
            }
        }
        let mut bad: BTreeSet<usize> = BTreeSet::new();
        let mut retries = 0;
        let excluded = loop {
            let excluded = dependents(&funcs, &bad);
            let active: Vec<Func> = funcs
                .iter()
                .filter(|f| !excluded.contains(&f.index))
                .cloned()
                .collect();
            let rendered = render_test_file(seed, &active);
            let (plain, plain_spans) = render_plain(&active);
            self.batch_project.write(&[
                ("main.rs", &batch_main(&active)),
                ("harness.rs", HARNESS),
                ("programs.rs", &rendered.text),
                ("plain.rs", &plain),
            ]);
            match self.batch_project.build() {
                Build::Ok => break excluded,
                Build::Failed { errors, log } => {
                    let mut culprits: BTreeMap<usize, Vec<String>> = BTreeMap::new();
                    let mut invalid: BTreeSet<usize> = BTreeSet::new();
                    for e in &errors {
                        if e.file.ends_with("programs.rs") {
                            if let Some(k) = rendered.function_at(e.line) {
                                culprits.entry(k).or_default().push(e.message.clone());
                            }
                        } else if e.file.ends_with("plain.rs") {
                            if let Some(&(k, _, _)) = plain_spans
                                .iter()
                                .find(|(_, a, b)| (*a..=*b).contains(&e.line))
                            {
                                invalid.insert(k);
                                culprits.entry(k).or_default().push(e.message.clone());
                            }
                        }
                    }
                    if culprits.is_empty() {
                        // Not the generated code: maybe the library is being edited.
                        eprintln!("{log}");
                        retries += 1;
                        if retries > 3 {
                            return false;
                        }
                        eprintln!("build failed outside the generated code; retrying in 60s");
                        std::thread::sleep(Duration::from_secs(60));
                        continue;
                    }
                    for (k, messages) in culprits {
                        bad.insert(k);
                        self.failures.push(Failure {
                            seed,
                            function: k,
                            kind: if invalid.contains(&k) {
                                FailureKind::Generator
                            } else {
                                FailureKind::Compile
                            },
                            message: format!(
                                "{}\n{}",
                                messages.join("\n"),
                                funcs[k].render_source()
                            ),
                        });
                    }
                }
            }
        };
        self.skipped += excluded.len() - bad.len();
        // Run; after a hang or a crash, run again without the culprit and its callers.
        let mut skip: BTreeSet<String> = BTreeSet::new();
        let mut results: BTreeMap<String, Outcome> = BTreeMap::new();
        loop {
            let args: Vec<String> = skip.iter().cloned().collect();
            let (outcomes, culprit, notes) = self.batch_project.run(&args, self.opts.timeout);
            results.extend(outcomes);
            for note in notes {
                // `p12: jvp! skipped: <reason>`: counted by reason, names and paths left out
                let reason = note.split_once(": ").map_or(note.as_str(), |n| n.1);
                let reason: String = reason
                    .split('`')
                    .enumerate()
                    .map(|(i, part)| if i % 2 == 1 { "…" } else { part })
                    .collect::<Vec<_>>()
                    .join("`");
                *self.jvp_skipped.entry(reason).or_default() += 1;
            }
            let Some(name) = culprit else { break };
            let k: usize = name[1..].parse().expect("checker names are p<k>");
            let callers = dependents(&funcs, &BTreeSet::from([k]));
            for j in callers {
                let caller = format!("p{j}");
                if j != k && !excluded.contains(&j) && !results.contains_key(&caller) {
                    self.skipped += 1;
                }
                skip.insert(caller);
            }
            skip.extend(results.keys().cloned());
        }
        for f in &funcs {
            match results.get(&f.name()) {
                Some(Outcome::Pass) => {
                    self.checked += 1;
                    self.passed += 1;
                }
                Some(Outcome::Fail(message)) => {
                    self.checked += 1;
                    self.failures.push(Failure {
                        seed,
                        function: f.index,
                        kind: FailureKind::of_message(message),
                        message: message.clone(),
                    });
                }
                Some(Outcome::Crash(why)) => {
                    self.checked += 1;
                    self.failures.push(Failure {
                        seed,
                        function: f.index,
                        kind: FailureKind::Crash,
                        message: format!("{why}\n{}", f.render_source()),
                    });
                }
                None => {}
            }
        }
        true
    }

    /// Deletes statements of the failing function and its callees while it keeps failing
    /// the same way, then prints what is left.
    fn minimize(&mut self, failure: &Failure) {
        if matches!(failure.kind, FailureKind::Crash | FailureKind::Generator) {
            println!("(hangs, crashes and generator bugs are not minimized)");
            return;
        }
        let t = Instant::now();
        let all = generate_functions(failure.seed, self.opts.batch.max(failure.function + 1));
        let map: BTreeMap<usize, Func> = all.into_iter().map(|f| (f.index, f)).collect();
        let target = failure.function;
        let mut set: BTreeMap<usize, Func> = closure(&map, target)
            .into_iter()
            .map(|k| (k, map[&k].clone()))
            .collect();
        let key = compile_key(&failure.message);
        let mut message = failure.message.clone();
        let mut rounds = 0;
        loop {
            rounds += 1;
            let mut changes: Vec<Change> = Vec::new();
            for f in set.values() {
                changes.extend(
                    f.deletable()
                        .into_iter()
                        .map(|id| Change::Delete(f.index, id)),
                );
                changes.extend(
                    f.simpler_returns()
                        .into_iter()
                        .map(|r| Change::Return(f.index, r)),
                );
                changes.extend(
                    f.simpler_lets()
                        .into_iter()
                        .map(|(id, line)| Change::Line(f.index, id, line)),
                );
            }
            let candidates: Vec<BTreeMap<usize, Func>> = changes
                .iter()
                .map(|c| apply(&set, target, std::slice::from_ref(c)))
                .collect();
            if candidates.is_empty() {
                break;
            }
            let current = size(&set);
            let verdicts = self.still_fails(&candidates, target, failure.kind, &key);
            // Only changes that make the program smaller (a new return of the same size
            // could flip back and forth forever).
            let winners: Vec<usize> = (0..candidates.len())
                .filter(|&i| verdicts[i].is_some() && size(&candidates[i]) < current)
                .collect();
            eprintln!(
                "minimize p{target}: round {rounds}, {} bytes, {} candidates, {} still fail",
                current,
                candidates.len(),
                winners.len()
            );
            if winners.is_empty() {
                break;
            }
            // All the deletions that work one at a time, at once (one new return per
            // function at most).
            let mut chosen: Vec<Change> = Vec::new();
            let mut returns: BTreeSet<usize> = BTreeSet::new();
            for &i in &winners {
                match &changes[i] {
                    Change::Return(k, _) if !returns.insert(*k) => {}
                    // A line both replaced and deleted: the deletion wins, harmlessly.
                    c => chosen.push(c.clone()),
                }
            }
            if chosen.len() > 1 {
                // Prefixes of decreasing length, all in one build: the longest that still
                // fails wins.
                let mut lengths = Vec::new();
                let mut n = chosen.len();
                while n > 1 {
                    lengths.push(n);
                    n /= 2;
                }
                let combos: Vec<BTreeMap<usize, Func>> = lengths
                    .iter()
                    .map(|&n| apply(&set, target, &chosen[..n]))
                    .collect();
                let results = self.still_fails(&combos, target, failure.kind, &key);
                if let Some(i) =
                    (0..combos.len()).find(|&i| results[i].is_some() && size(&combos[i]) < current)
                {
                    set = combos[i].clone();
                    message = results[i].clone().unwrap_or_default();
                    continue;
                }
            }
            let best = *winners
                .iter()
                .min_by_key(|&&i| size(&candidates[i]))
                .expect("winners is not empty");
            set = candidates[best].clone();
            message = verdicts[best].clone().unwrap_or_default();
        }
        let mut program = String::new();
        for f in set.values() {
            program.push_str(&f.render_source());
            program.push('\n');
        }
        println!(
            "--- minimized in {rounds} rounds, {:.0}s: seed {} p{target} ({}) ---\n{program}--- how it fails ---\n{message}\n",
            t.elapsed().as_secs_f64(),
            failure.seed,
            failure.kind.label()
        );
        let dir = workspace_root()
            .join("target")
            .join("fuzz-work")
            .join("failures");
        let _ = fs::create_dir_all(&dir);
        let path = dir.join(format!("seed{}_p{target}.rs", failure.seed));
        let _ = fs::write(
            &path,
            format!(
                "// seed {} p{target}: {}\n{program}\n/*\n{message}\n*/\n",
                failure.seed,
                failure.kind.label()
            ),
        );
        println!("(written to {})", path.display());
    }

    /// For each candidate program: `Some(how it fails)` if `target` still fails the same
    /// way, `None` if it passes or fails differently.
    fn still_fails(
        &mut self,
        candidates: &[BTreeMap<usize, Func>],
        target: usize,
        kind: FailureKind,
        key: &str,
    ) -> Vec<Option<String>> {
        let mut verdicts: Vec<Option<String>> = vec![None; candidates.len()];
        let mut broken: BTreeSet<usize> = BTreeSet::new();
        for _attempt in 0..4 {
            // One module per candidate that still compiles, after the harness (its
            // `program!` macro first).
            let mut text = format!("#![allow({ALLOWED_LINTS})]\n#[macro_use]\nmod harness;\n");
            // (candidate, first line, last line, plain Rust?)
            let mut spans: Vec<(usize, usize, usize, bool)> = Vec::new();
            let mut modules = Vec::new();
            for (i, c) in candidates.iter().enumerate() {
                if broken.contains(&i) {
                    continue;
                }
                let funcs: Vec<Func> = c.values().cloned().collect();
                // A compile failure needs no checker.
                let body =
                    render_module_body(&funcs, |k| k == target && kind != FailureKind::Compile);
                let first = text.matches('\n').count() + 1;
                text.push_str(&format!("mod c{i} {{\n{}}}\n", body.text));
                spans.push((i, first, text.matches('\n').count(), false));
                if kind == FailureKind::Compile {
                    // The program without the attribute must be valid Rust: the failure
                    // is then the macro's.
                    let first = text.matches('\n').count() + 1;
                    text.push_str(&format!(
                        "mod plain_c{i} {{\n#[allow(unused_imports)]\nuse autodiff::ndarray::{{Array1, Array2, Axis}};\n"
                    ));
                    for f in &funcs {
                        text.push_str(&f.render_plain());
                    }
                    text.push_str("}\n");
                    spans.push((i, first, text.matches('\n').count(), true));
                }
                modules.push(i);
            }
            if modules.is_empty() {
                break;
            }
            let checked = (kind != FailureKind::Compile).then_some(target);
            text.push_str(&minimize_main(&modules, checked));
            self.minimize_project
                .write(&[("main.rs", &text), ("harness.rs", HARNESS)]);
            let subcommand = if kind == FailureKind::Compile {
                "check"
            } else {
                "build"
            };
            match self.minimize_project.compile(subcommand) {
                Build::Ok => {}
                Build::Failed { errors, log } => {
                    let mut found = false;
                    let mut invalid: BTreeSet<usize> = BTreeSet::new();
                    for e in errors.iter().filter(|e| e.file.ends_with("main.rs")) {
                        if let Some(&(i, _, _, plain)) = spans
                            .iter()
                            .find(|(_, a, b, _)| (*a..=*b).contains(&e.line))
                        {
                            found = true;
                            broken.insert(i);
                            if plain {
                                invalid.insert(i);
                            } else if kind == FailureKind::Compile && e.message == key {
                                verdicts[i] = Some(e.message.clone());
                            }
                        }
                    }
                    for i in invalid {
                        verdicts[i] = None;
                    }
                    if !found {
                        eprintln!("minimizer: unexpected build failure\n{log}");
                        return vec![None; candidates.len()];
                    }
                    if kind == FailureKind::Compile {
                        break;
                    }
                    continue;
                }
            }
            if kind == FailureKind::Compile {
                break;
            }
            let mut skip: BTreeSet<String> = BTreeSet::new();
            loop {
                let args: Vec<String> = skip.iter().cloned().collect();
                let (outcomes, culprit, _) = self.minimize_project.run(&args, self.opts.timeout);
                for (name, outcome) in &outcomes {
                    let i: usize = name[1..].parse().expect("module names are c<i>");
                    if let Outcome::Fail(m) = outcome {
                        if FailureKind::of_message(m) == kind {
                            verdicts[i] = Some(m.clone());
                        }
                    }
                }
                skip.extend(outcomes.keys().cloned());
                if culprit.is_none() {
                    break;
                }
            }
            break;
        }
        verdicts
    }
}

/// The first error of a compile failure: a reduced program must fail with the same one.
fn compile_key(message: &str) -> String {
    message.lines().next().unwrap_or_default().to_string()
}

/// One reduction step of the minimizer.
#[derive(Clone, Debug)]
enum Change {
    /// Delete a statement (function, statement id).
    Delete(usize, u32),
    /// Replace a function's final expression.
    Return(usize, String),
    /// Replace a line (function, statement id, new text).
    Line(usize, u32, String),
}

/// The set after `changes`, keeping only the functions `target` still calls.
fn apply(set: &BTreeMap<usize, Func>, target: usize, changes: &[Change]) -> BTreeMap<usize, Func> {
    let mut out: BTreeMap<usize, Func> = set
        .iter()
        .map(|(&k, f)| {
            let ids: BTreeSet<u32> = changes
                .iter()
                .filter_map(|c| match c {
                    Change::Delete(j, id) if *j == k => Some(*id),
                    _ => None,
                })
                .collect();
            let mut g = f.without(&ids);
            for c in changes {
                match c {
                    Change::Return(j, r) if *j == k => g = g.with_ret(r),
                    Change::Line(j, id, text) if *j == k => g = g.with_line(*id, text),
                    _ => {}
                }
            }
            (k, g)
        })
        .collect();
    let keep = closure(&out, target);
    out.retain(|k, _| keep.contains(k));
    out
}

fn size(set: &BTreeMap<usize, Func>) -> usize {
    set.values().map(|f| f.render_source().len()).sum()
}

/// `main` of the minimizer's project: runs the checker of `target` (if any: a compile
/// failure needs none) in each candidate module, printing the module's name as the
/// checker's.
fn minimize_main(modules: &[usize], target: Option<usize>) -> String {
    let mut text = String::from(
        "\nfn main() {\n    std::panic::set_hook(Box::new(|_| {}));\n    let skip: Vec<String> = std::env::args().skip(1).collect();\n    let all: &[(&str, fn())] = &[\n",
    );
    if let Some(k) = target {
        for i in modules {
            text.push_str(&format!("        (\"c{i}\", c{i}::check_p{k}),\n"));
        }
    }
    text.push_str(
        r#"    ];
    for (module, check) in all {
        if skip.iter().any(|s| s == module) {
            continue;
        }
        println!("START {module}");
        match harness::catch(check) {
            Ok(()) => println!("OK {module}"),
            Err(e) => {
                println!("FAIL {module}");
                for line in e.lines() {
                    println!("| {line}");
                }
                println!("END {module}");
            }
        }
    }
}
"#,
    );
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_format_errors_are_parsed() {
        let log = "   Compiling x\nsrc/programs.rs:120:9: error[E0425]: cannot find value `t3` in this scope\nsrc/main.rs:3:1: warning: unused\nerror: could not compile `x`";
        let errors = parse_errors(log);
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].file, "src/programs.rs");
        assert_eq!(errors[0].line, 120);
        assert_eq!(
            errors[0].message,
            "error[E0425]: cannot find value `t3` in this scope"
        );
    }
}
