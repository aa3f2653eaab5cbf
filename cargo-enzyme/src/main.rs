//! `cargo enzyme`: builds, runs and tests Rust programs with link-time
//! automatic differentiation.
//!
//! It runs cargo with fat LTO in the chosen profile, `-Clinker-plugin-lto`
//! (so every crate, std included, reaches the link as LLVM bitcode) and
//! `enzyme-cc` as the linker, which merges the bitcode, differentiates what
//! the `enzyme` crate's macros asked for, and links. The build goes to its
//! own directory (`<target-dir>/enzyme`), so normal builds are not disturbed.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use clap::{Parser, Subcommand};

mod rustc_wrapper;
mod templates;

/// cargo calls us as `cargo-enzyme enzyme <args>`.
#[derive(Parser)]
#[command(name = "cargo", bin_name = "cargo")]
enum CargoCli {
    /// Build, run or test with link-time automatic differentiation.
    Enzyme(EnzymeArgs),
}

#[derive(clap::Args)]
#[command(version, about)]
struct EnzymeArgs {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// `cargo build` with differentiation at link time.
    Build(CargoArgs),
    /// `cargo run` with differentiation at link time.
    Run(CargoArgs),
    /// `cargo test` with differentiation at link time.
    Test(CargoArgs),
    /// Create a project from a template whose own test passes at once.
    New {
        /// The directory (and project name) to create.
        name: String,
        /// rust, c, cpp, fortran, mixed or cmake.
        #[arg(long, default_value = "rust")]
        template: String,
    },
    /// Check the toolchain enzyme-rs needs and say what to install.
    Doctor,
}

/// Everything after the subcommand goes to cargo as it is (`--release`,
/// `-p`, `--features`, `--manifest-path`, `--target-dir`, `-- args`...).
#[derive(clap::Args)]
struct CargoArgs {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    args: Vec<String>,
}

fn main() -> ExitCode {
    driver::default_sigpipe();
    let args: Vec<String> = std::env::args().collect();
    if std::env::var_os(rustc_wrapper::WRAPPING).is_some() && args.get(1).is_some_and(|a| a != "enzyme") {
        return rustc_wrapper::run(args[1..].to_vec());
    }
    let CargoCli::Enzyme(cli) = CargoCli::parse();
    let (sub, args) = match cli.command {
        Cmd::Build(a) => ("build", a.args),
        Cmd::Run(a) => ("run", a.args),
        Cmd::Test(a) => ("test", a.args),
        Cmd::New { name, template } => {
            return match new_project(&name, &template) {
                Ok(()) => ExitCode::SUCCESS,
                Err(msg) => {
                    eprintln!("error: {msg}");
                    ExitCode::from(2)
                }
            }
        }
        Cmd::Doctor => return doctor(),
    };
    match run(sub, args) {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("error: {msg}");
            ExitCode::from(2)
        }
    }
}

fn run(sub: &str, args: Vec<String>) -> Result<ExitCode, String> {
    let cargo = std::env::var_os("CARGO").map(PathBuf::from).unwrap_or_else(|| "cargo".into());
    let linker = find_linker()?;
    let host = host_triple()?;
    // Cargo's own flags before `--`; the program's after.
    let split = args.iter().position(|a| a == "--").unwrap_or(args.len());
    let (ours, rest) = args.split_at(split);
    let profile = profile_of(sub, ours);
    let mut cmd = Command::new(&cargo);
    cmd.arg(sub).args(["--target", &host]);
    cmd.args(["--config", &format!("profile.{profile}.lto=\"fat\"")]);
    cmd.args(["--config", &format!("profile.{profile}.codegen-units=1")]);
    if !ours.iter().any(|a| a == "--target-dir" || a.starts_with("--target-dir=")) {
        cmd.args(["--target-dir", &enzyme_target_dir(ours)?.display().to_string()]);
    }
    cmd.args(ours).args(rest);
    // The user's RUSTFLAGS are kept; ours are appended. With `--target`,
    // they do not reach build scripts and proc macros (which must not be
    // linked by enzyme-cc).
    let mut flags: Vec<String> = match std::env::var("CARGO_ENCODED_RUSTFLAGS") {
        Ok(s) if !s.is_empty() => s.split('\x1f').map(String::from).collect(),
        _ => std::env::var("RUSTFLAGS").map(|s| s.split_whitespace().map(String::from).collect()).unwrap_or_default(),
    };
    flags.push("-Clinker-plugin-lto".into());
    // `cfg(enzyme_rs)`: code may ask whether cargo enzyme builds it. Also
    // part of what cargo fingerprints, so crates built by an older cargo
    // enzyme (the `libm` crate before `rustc_wrapper`) are built again.
    flags.push("--cfg=enzyme_rs".into());
    flags.push("--check-cfg=cfg(enzyme_rs)".into());
    flags.push(format!("-Clinker={}", linker.display()));
    cmd.env_remove("RUSTFLAGS").env("CARGO_ENCODED_RUSTFLAGS", flags.join("\x1f"));
    // We wrap rustc (see `rustc_wrapper`), and run the user's wrapper in turn.
    let me = std::env::current_exe().map_err(|e| format!("cannot find cargo-enzyme's own path: {e}"))?;
    if let Some(user) = std::env::var_os("RUSTC_WRAPPER").filter(|w| !w.is_empty()) {
        cmd.env(rustc_wrapper::USER_WRAPPER, user);
    }
    cmd.env("RUSTC_WRAPPER", me).env(rustc_wrapper::WRAPPING, "1");
    let status = cmd.status().map_err(|e| format!("cannot run `{}`: {e}", cargo.display()))?;
    Ok(exit_code(status))
}

/// A child's exit status as ours.
fn exit_code(status: std::process::ExitStatus) -> ExitCode {
    match status.code() {
        Some(0) => ExitCode::SUCCESS,
        Some(c) => ExitCode::from(c.clamp(1, 255) as u8),
        None => ExitCode::FAILURE,
    }
}

/// `cargo enzyme new`: writes the template's files with the placeholders filled.
fn new_project(name: &str, template: &str) -> Result<(), String> {
    let Some(t) = templates::TEMPLATES.iter().find(|t| t.name == template) else {
        let names: Vec<&str> = templates::TEMPLATES.iter().map(|t| t.name).collect();
        return Err(format!("unknown template `{template}`; choose one of: {}", names.join(", ")));
    };
    let dir = Path::new(name);
    if dir.exists() {
        return Err(format!("`{name}` already exists"));
    }
    let base = dir.file_name().and_then(|n| n.to_str()).unwrap_or("project");
    if t.files.iter().any(|(f, _)| *f == "Cargo.toml") {
        check_package_name(base)?;
    }
    let project = base.replace(['-', '.'], "_");
    let enzyme = enzyme_crate_path().ok_or("the `enzyme` crate's sources were not found; reinstall enzyme-rs")?;
    for (file, text) in t.files {
        let path = dir.join(file);
        let text = text.replace("{{name}}", &project).replace("{{enzyme_path}}", &enzyme.display().to_string());
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        }
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    eprintln!("     Created {} project `{name}` ({})", t.name, t.about);
    eprintln!("        Test with: cd {name} && {}", t.test);
    Ok(())
}

/// Refuses a directory name that cargo would not take as a package name, as
/// `cargo new` does, before anything is written.
fn check_package_name(name: &str) -> Result<(), String> {
    const KEYWORDS: &[&str] = &[
        "Self", "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate", "do",
        "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl", "in", "let", "loop",
        "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref", "return", "self", "static", "struct",
        "super", "trait", "true", "try", "type", "typeof", "unsafe", "unsized", "use", "virtual", "where", "while",
        "yield",
    ];
    const BUILT_IN: &[&str] = &["alloc", "core", "proc_macro", "proc-macro", "std", "test"];
    let hint = "choose another directory name (cargo's rules: letters, digits, `-` and `_`, not starting with a digit)";
    let why = if name.is_empty() {
        Some("it is empty".to_string())
    } else if let Some(c) = name.chars().find(|c| !(c.is_alphanumeric() || *c == '-' || *c == '_')) {
        Some(format!("the character `{c}` is not allowed"))
    } else if name.starts_with(|c: char| c.is_ascii_digit()) {
        Some("it starts with a digit".to_string())
    } else if KEYWORDS.contains(&name) {
        Some("it is a Rust keyword".to_string())
    } else if BUILT_IN.contains(&name) {
        Some("it is the name of a crate built into Rust".to_string())
    } else {
        None
    };
    match why {
        Some(why) => Err(format!("`{name}` cannot be the name of a cargo package: {why}; {hint}")),
        None => Ok(()),
    }
}

/// The `enzyme` crate: installed with the tools, or this source tree's.
fn enzyme_crate_path() -> Option<PathBuf> {
    let installed = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent()?.parent().map(|p| p.join("share/enzyme-rs/crates/enzyme")));
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../enzyme");
    installed.into_iter().chain([source]).find(|p| p.join("Cargo.toml").is_file()).and_then(|p| p.canonicalize().ok())
}

/// `cargo enzyme doctor`: one line per tool, and the exit code says whether
/// everything needed is there.
fn doctor() -> ExitCode {
    // The same lookup as enzyme-cc's (ENZYME_CLANG, ENZYME_FLANG, Debian's prefix, PATH).
    let prefix = Path::new(driver::toolchain::LLVM_PREFIX);
    let lld = Some(prefix.join("bin/ld.lld")).filter(|p| p.is_file()).or_else(|| which::which("ld.lld-22").ok());
    let mut missing = Vec::new();
    let mut line = |ok: bool, what: &str, detail: String, package: &str, required: bool| {
        let mark = if ok {
            "ok     "
        } else if required {
            "missing"
        } else {
            "absent "
        };
        println!("{mark} {what:<28} {detail}");
        if !ok && !package.is_empty() {
            missing.push((package.to_string(), required));
        }
    };
    for (name, found, package, required) in [
        ("clang-22", driver::toolchain::find(driver::Language::C).ok(), "clang-22", true),
        ("flang-22", driver::toolchain::find(driver::Language::Fortran).ok(), "flang-22", false),
        ("ld.lld-22", lld, "lld-22", true),
    ] {
        let detail = found.as_ref().map(|p| p.display().to_string()).unwrap_or_else(|| format!("install {package}"));
        line(found.is_some(), name, detail, package, required);
    }
    let rustc_llvm = Command::new("rustc").arg("-vV").output().ok().and_then(|o| {
        String::from_utf8_lossy(&o.stdout).lines().find_map(|l| l.strip_prefix("LLVM version: ").map(String::from))
    });
    let rust_ok = rustc_llvm.as_deref().is_some_and(|v| v.starts_with("22."));
    line(
        rust_ok,
        "rustc on LLVM 22",
        match &rustc_llvm {
            Some(v) => format!("rustc's LLVM is {v}{}", if rust_ok { "" } else { "; use rustc 1.95 (rustup)" }),
            None => "rustc not found; install Rust 1.95 with rustup".into(),
        },
        "",
        false,
    );
    let omp_lib = prefix.join("lib/libomp.so");
    let omp = omp_lib.exists();
    line(
        omp,
        "libomp (OpenMP)",
        if omp { omp_lib.display().to_string() } else { "install libomp-22-dev".into() },
        "libomp-22-dev",
        false,
    );
    let mpi = which::which("mpicc").is_ok() && which::which("mpiexec").is_ok();
    line(
        mpi,
        "MPI (mpicc, mpiexec)",
        if mpi { "MPICH_CC=enzyme-cc mpicc ...".into() } else { "install mpich libmpich-dev".into() },
        "mpich libmpich-dev",
        false,
    );
    let linker = find_linker();
    line(linker.is_ok(), "enzyme-cc", linker.map(|p| p.display().to_string()).unwrap_or_else(|e| e), "", true);
    let required: Vec<&str> = missing.iter().filter(|(_, r)| *r).map(|(p, _)| p.as_str()).collect();
    let optional: Vec<&str> = missing.iter().filter(|(_, r)| !*r).map(|(p, _)| p.as_str()).collect();
    if !optional.is_empty() {
        println!("optional: apt-get install {}", optional.join(" "));
    }
    if required.is_empty() && !missing.iter().any(|(_, r)| *r) && find_linker().is_ok() {
        println!("enzyme-rs is ready");
        ExitCode::SUCCESS
    } else {
        println!("needed: apt-get install {}", required.join(" "));
        ExitCode::FAILURE
    }
}

/// `enzyme-cc` next to this binary (installed together), else on `PATH`.
fn find_linker() -> Result<PathBuf, String> {
    if let Ok(exe) = std::env::current_exe() {
        let p = exe.with_file_name("enzyme-cc");
        if p.is_file() {
            return Ok(p);
        }
    }
    which::which("enzyme-cc").map_err(|_| {
        "`enzyme-cc` not found next to cargo-enzyme or on PATH; install enzyme-rs with `make install`".to_string()
    })
}

/// The host triple, from `rustc -vV`.
fn host_triple() -> Result<String, String> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let out = Command::new(&rustc).arg("-vV").output().map_err(|e| format!("cannot run rustc: {e}"))?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_string))
        .ok_or_else(|| "`rustc -vV` did not say the host triple".to_string())
}

/// The cargo profile the command builds with.
fn profile_of(sub: &str, args: &[String]) -> String {
    for (k, a) in args.iter().enumerate() {
        if let Some(p) = a.strip_prefix("--profile=") {
            return p.to_string();
        }
        if a == "--profile" {
            if let Some(p) = args.get(k + 1) {
                return p.clone();
            }
        }
    }
    if args.iter().any(|a| a == "--release" || a == "-r") {
        "release".into()
    } else if sub == "test" {
        "test".into()
    } else {
        "dev".into()
    }
}

/// `<target-dir>/enzyme` of the workspace (honouring `--manifest-path`).
fn enzyme_target_dir(args: &[String]) -> Result<PathBuf, String> {
    let mut meta = cargo_metadata::MetadataCommand::new();
    meta.no_deps();
    for (k, a) in args.iter().enumerate() {
        if let Some(p) = a.strip_prefix("--manifest-path=") {
            meta.manifest_path(p);
        } else if a == "--manifest-path" {
            if let Some(p) = args.get(k + 1) {
                meta.manifest_path(p);
            }
        }
    }
    let m = meta.exec().map_err(|e| format!("cannot read the workspace: {e}"))?;
    Ok(m.target_directory.into_std_path_buf().join("enzyme"))
}
