//! `enzyme-fuzz`: a differential tester for the AD engine, in the spirit of
//! Csmith. It generates random C programs (see [`gen`]), builds each with
//! `enzyme-cc` at several optimisation levels, and runs them: every program
//! checks reverse mode against forward mode against finite differences for
//! each of its functions. A function that fails is reduced (statements taken
//! out while it still fails the same way) and written to `--found` as a
//! self-checking regression program.
//!
//! Prints one line per build and a closing `N passed, M failed` line.

mod gen;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use clap::Parser;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use gen::{Focus, Function, Stmt, NX};

#[derive(Parser)]
#[command(about = "Random C programs differentiated by enzyme-cc: reverse vs forward vs finite differences")]
struct Args {
    /// Seed of the first program; program k uses seed + k.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Number of programs.
    #[arg(long, default_value_t = 10)]
    programs: u64,
    /// Functions per program.
    #[arg(long, default_value_t = 10)]
    functions: usize,
    /// Top-level statements per function (at most).
    #[arg(long, default_value_t = 10)]
    size: usize,
    /// Optimisation levels to build at.
    #[arg(long, value_delimiter = ',', default_value = "-O0,-O2,-O3")]
    opt: Vec<String>,
    /// Parallel builds.
    #[arg(long, default_value_t = 2)]
    jobs: usize,
    /// Where reduced failing programs are written.
    #[arg(long, default_value = "tests/fuzz/found")]
    found: PathBuf,
    /// Do not reduce failures (just report them).
    #[arg(long)]
    no_reduce: bool,
    /// What the programs lean towards (`mix`: every construct at its usual share).
    #[arg(long, value_enum, default_value_t = Focus::Mix)]
    focus: Focus,
    /// Keep the generated programs here (default: a temporary directory).
    #[arg(long)]
    keep: Option<PathBuf>,
}

/// What one build and run of a program gave.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    Pass,
    /// Built, ran, and some derivative disagreed: the output's FAIL lines.
    Mismatch(Vec<String>),
    /// The build failed (refusal or crash): the compiler's message.
    BuildFailed(String),
    /// The program crashed or timed out.
    Crashed(String),
}

fn compiler() -> String {
    std::env::var("ENZYME_CC").unwrap_or_else(|_| "enzyme-cc".into())
}

/// Builds `src` at `opt` and runs it.
fn build_and_run(src: &str, opt: &str, dir: &Path, tag: &str) -> Outcome {
    let c = dir.join(format!("{tag}.c"));
    let exe = dir.join(tag);
    if let Err(e) = std::fs::write(&c, src) {
        return Outcome::BuildFailed(format!("cannot write {}: {e}", c.display()));
    }
    let out = Command::new(compiler()).arg(opt).arg(&c).arg("-o").arg(&exe).arg("-lm").output();
    match out {
        Ok(o) if o.status.success() => {}
        Ok(o) => return Outcome::BuildFailed(String::from_utf8_lossy(&o.stderr).into_owned()),
        Err(e) => return Outcome::BuildFailed(format!("cannot run {}: {e}", compiler())),
    }
    let run = Command::new("timeout").arg("60").arg(&exe).output();
    let _ = std::fs::remove_file(&exe);
    match run {
        Ok(o) => {
            let text = String::from_utf8_lossy(&o.stdout).into_owned();
            let fails: Vec<String> = text.lines().filter(|l| l.starts_with("FAIL")).map(String::from).collect();
            if !fails.is_empty() {
                Outcome::Mismatch(fails)
            } else if o.status.success() {
                Outcome::Pass
            } else {
                Outcome::Crashed(format!("{}{}", text, String::from_utf8_lossy(&o.stderr)))
            }
        }
        Err(e) => Outcome::Crashed(format!("cannot run the program: {e}")),
    }
}

/// The kind of a failure, which a reduction must keep.
fn same_kind(a: &Outcome, b: &Outcome) -> bool {
    matches!(
        (a, b),
        (Outcome::Mismatch(_), Outcome::Mismatch(_))
            | (Outcome::BuildFailed(_), Outcome::BuildFailed(_))
            | (Outcome::Crashed(_), Outcome::Crashed(_))
    )
}

/// Every way of taking one statement out of a statement list (or replacing a
/// block by its contents).
fn smaller(stmts: &[Stmt]) -> Vec<Vec<Stmt>> {
    let mut out = Vec::new();
    for k in 0..stmts.len() {
        let mut v = stmts.to_vec();
        v.remove(k);
        out.push(v);
    }
    for k in 0..stmts.len() {
        let inner: Vec<Vec<Stmt>> = match &stmts[k] {
            Stmt::Line(_) => Vec::new(),
            Stmt::If(c, t, f) => {
                let mut alts = vec![t.clone(), f.clone()];
                for t2 in smaller(t) {
                    alts.push(vec![Stmt::If(c.clone(), t2, f.clone())]);
                }
                for f2 in smaller(f) {
                    alts.push(vec![Stmt::If(c.clone(), t.clone(), f2)]);
                }
                alts
            }
            Stmt::For(v, b, body) => {
                smaller(body).into_iter().map(|b2| vec![Stmt::For(v.clone(), b.clone(), b2)]).collect()
            }
            Stmt::Scope(p, body, e) => {
                smaller(body).into_iter().map(|b2| vec![Stmt::Scope(p.clone(), b2, e.clone())]).collect()
            }
        };
        for replacement in inner {
            // Loop variables of an unwrapped `for` would be out of scope: skip those.
            let text = format!("{replacement:?}");
            if matches!(stmts[k], Stmt::For(..)) && replacement.iter().all(|s| !matches!(s, Stmt::For(..))) {
                if text.contains("i0") || text.contains("i1") {
                    continue;
                }
            }
            let mut v = stmts[..k].to_vec();
            v.extend(replacement);
            v.extend(stmts[k + 1..].iter().cloned());
            out.push(v);
        }
    }
    out
}

/// Takes statements out of `f` while the program still fails like `first`.
fn reduce(f: &Function, base: &[f64; NX], opt: &str, dir: &Path, first: &Outcome) -> (Function, Outcome) {
    let mut best = f.clone();
    let mut outcome = build_and_run(&gen::program(std::slice::from_ref(&best), base), opt, dir, "reduce");
    if !same_kind(&outcome, first) {
        // Fails only together with the other functions: keep it whole.
        return (best, outcome);
    }
    loop {
        let mut improved = false;
        for body in smaller(&best.body) {
            let cand = Function { name: best.name.clone(), body };
            let o = build_and_run(&gen::program(std::slice::from_ref(&cand), base), opt, dir, "reduce");
            if same_kind(&o, first) {
                best = cand;
                outcome = o;
                improved = true;
                break;
            }
        }
        if !improved {
            return (best, outcome);
        }
    }
}

/// The function a FAIL line names (`FAIL f3 n=...`).
fn failing_function(line: &str) -> Option<String> {
    line.strip_prefix("FAIL ")?.split_whitespace().next().map(String::from)
}

fn main() {
    let args = Args::parse();
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let dir = args.keep.clone().unwrap_or_else(|| tmp.path().to_path_buf());
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("enzyme-fuzz: cannot create {}: {e}", dir.display());
        std::process::exit(2);
    }
    let passed = AtomicUsize::new(0);
    let failed = AtomicUsize::new(0);
    let failures: Mutex<Vec<(u64, String, Outcome)>> = Mutex::new(Vec::new());
    let next = AtomicUsize::new(0);
    let work: Vec<(u64, String)> =
        (0..args.programs).flat_map(|p| args.opt.iter().map(move |o| (args.seed + p, o.clone()))).collect();
    std::thread::scope(|s| {
        for _ in 0..args.jobs.max(1) {
            s.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::SeqCst);
                let Some((seed, opt)) = work.get(k) else { break };
                let (functions, base) = make_program(*seed, &args);
                let src = gen::program(&functions, &base);
                let tag = format!("fuzz{seed}{}", opt.replace('-', "_"));
                let o = build_and_run(&src, opt, &dir, &tag);
                if args.keep.is_none() {
                    let _ = std::fs::remove_file(dir.join(format!("{tag}.c")));
                }
                let n = functions.len();
                match &o {
                    Outcome::Pass => {
                        passed.fetch_add(n, Ordering::SeqCst);
                        println!("ok   seed {seed} {opt}: {n} functions");
                    }
                    _ => {
                        let bad = match &o {
                            Outcome::Mismatch(lines) => {
                                let mut names: Vec<String> = lines.iter().filter_map(|l| failing_function(l)).collect();
                                names.sort();
                                names.dedup();
                                names.len().max(1)
                            }
                            _ => n,
                        };
                        passed.fetch_add(n - bad.min(n), Ordering::SeqCst);
                        failed.fetch_add(bad, Ordering::SeqCst);
                        println!("FAIL seed {seed} {opt}: {}", summary(&o));
                        failures.lock().expect("not poisoned").push((*seed, opt.clone(), o));
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().expect("not poisoned");
    if !args.no_reduce {
        for (seed, opt, o) in &failures {
            report_reduced(*seed, opt, o, &args, &dir);
        }
    }
    println!("differential tester: {} passed, {} failed", passed.load(Ordering::SeqCst), failed.load(Ordering::SeqCst));
    std::process::exit(if failures.is_empty() { 0 } else { 1 });
}

/// The functions and input point of program `seed`.
fn make_program(seed: u64, args: &Args) -> (Vec<Function>, [f64; NX]) {
    let mut rng = StdRng::seed_from_u64(seed);
    let functions =
        (0..args.functions).map(|k| gen::function(&mut rng, &format!("f{k}"), args.size, args.focus)).collect();
    let mut base = [0.0; NX];
    for b in &mut base {
        *b = rng.gen_range(-1.0..1.0);
    }
    (functions, base)
}

fn summary(o: &Outcome) -> String {
    match o {
        Outcome::Pass => "passed".into(),
        Outcome::Mismatch(lines) => lines.iter().take(4).cloned().collect::<Vec<_>>().join("\n     "),
        Outcome::BuildFailed(e) => format!("build failed:\n{}", e.lines().take(12).collect::<Vec<_>>().join("\n")),
        Outcome::Crashed(e) => format!("crashed:\n{}", e.lines().take(8).collect::<Vec<_>>().join("\n")),
    }
}

/// Reduces the failing functions of one failed build and writes each as a
/// regression program.
fn report_reduced(seed: u64, opt: &str, o: &Outcome, args: &Args, dir: &Path) {
    let (functions, base) = make_program(seed, args);
    let names: Vec<String> = match o {
        Outcome::Mismatch(lines) => {
            let mut v: Vec<String> = lines.iter().filter_map(|l| failing_function(l)).collect();
            v.dedup();
            v
        }
        // The functions the diagnostics name (`in `f5``), else all.
        Outcome::BuildFailed(text) => {
            let mut v: Vec<String> =
                functions.iter().map(|f| f.name.clone()).filter(|n| text.contains(&format!("in `{n}`"))).collect();
            if v.is_empty() {
                v = functions.iter().map(|f| f.name.clone()).collect();
            }
            v
        }
        _ => functions.iter().map(|f| f.name.clone()).collect(),
    };
    for f in functions.iter().filter(|f| names.contains(&f.name)).take(3) {
        let (small, outcome) = reduce(f, &base, opt, dir, o);
        if !same_kind(&outcome, o) {
            println!("note: seed {seed} {opt}: `{}` passes alone; not reduced", f.name);
            continue;
        }
        let path = args.found.join(format!("seed{seed}_{}{}.c", f.name, opt.replace('-', "_")));
        let header = format!(
            "/* Found by enzyme-fuzz (seed {seed}, function {}, failing at {opt}), reduced.\n * {}\n */\n",
            f.name,
            summary(&outcome).replace("*/", "* /").replace('\n', "\n * ")
        );
        let text = header + &gen::program(std::slice::from_ref(&small), &base);
        match std::fs::create_dir_all(&args.found).and_then(|_| std::fs::write(&path, text)) {
            Ok(()) => println!("reduced: {}", path.display()),
            Err(e) => eprintln!("enzyme-fuzz: cannot write {}: {e}", path.display()),
        }
    }
}
