//! `cargo enzyme`: builds, runs and tests Rust programs with link-time
//! automatic differentiation.
//!
//! It runs cargo with fat LTO in the chosen profile, `-Clinker-plugin-lto`
//! (so every crate, std included, reaches the link as LLVM bitcode) and
//! `enzyme-cc` as the linker, which merges the bitcode, differentiates what
//! the `enzyme` crate's macros asked for, and links. The build goes to its
//! own directory (`<target-dir>/enzyme`), so normal builds are not disturbed.

use std::path::PathBuf;
use std::process::{Command, ExitCode};

use clap::{Parser, Subcommand};

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
}

/// Everything after the subcommand goes to cargo as it is (`--release`,
/// `-p`, `--features`, `--manifest-path`, `--target-dir`, `-- args`...).
#[derive(clap::Args)]
struct CargoArgs {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    args: Vec<String>,
}

fn main() -> ExitCode {
    let CargoCli::Enzyme(cli) = CargoCli::parse();
    let (sub, args) = match cli.command {
        Cmd::Build(a) => ("build", a.args),
        Cmd::Run(a) => ("run", a.args),
        Cmd::Test(a) => ("test", a.args),
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
    flags.push(format!("-Clinker={}", linker.display()));
    cmd.env_remove("RUSTFLAGS").env("CARGO_ENCODED_RUSTFLAGS", flags.join("\x1f"));
    let status = cmd.status().map_err(|e| format!("cannot run `{}`: {e}", cargo.display()))?;
    Ok(match status.code() {
        Some(0) => ExitCode::SUCCESS,
        Some(c) => ExitCode::from(c.clamp(1, 255) as u8),
        None => ExitCode::FAILURE,
    })
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
