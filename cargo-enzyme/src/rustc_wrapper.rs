//! `cargo enzyme` is also cargo's `RUSTC_WRAPPER` for the builds it runs.
//!
//! rustc's fat LTO (which brings std to the link as bitcode) optimises the
//! whole program before `enzyme-cc` sees it, and would inline the bodies of
//! the `libm` crate's functions, which work on float bits and have no
//! derivative. The engine differentiates those functions by the rules of the
//! C functions of the same names instead; for that they must still be calls.
//! So the wrapper compiles the `libm` crate with LLVM's `forceattrs` pass
//! marking all its functions `noinline` (the engine lets them be inlined
//! again once derivatives are made), and incrementally: rustc does not copy
//! an incrementally compiled crate's small functions into the crates that
//! call them (where no such mark would reach them). Every other compilation
//! runs as it would have.

use std::path::Path;
use std::process::{Command, ExitCode};

/// Set by `cargo enzyme` for the cargo it runs: this process is a wrapper.
pub const WRAPPING: &str = "ENZYME_RS_RUSTC_WRAPPER";
/// A `RUSTC_WRAPPER` the user had set (sccache, ...), which still runs.
pub const USER_WRAPPER: &str = "ENZYME_RS_USER_RUSTC_WRAPPER";

/// `cargo-enzyme RUSTC ARGS...` as cargo calls a wrapper.
pub fn run(rustc_and_args: Vec<String>) -> ExitCode {
    let Some((rustc, args)) = rustc_and_args.split_first() else {
        eprintln!("error: cargo-enzyme as a rustc wrapper needs rustc's path and arguments");
        return ExitCode::from(2);
    };
    let mut cmd = match std::env::var_os(USER_WRAPPER).filter(|w| !w.is_empty()) {
        Some(w) => {
            let mut c = Command::new(w);
            c.arg(rustc);
            c
        }
        None => Command::new(rustc),
    };
    cmd.args(args);
    if crate_name(args) == Some("libm") {
        cmd.arg("-Cllvm-args=-force-attribute=noinline");
        if !codegen_options(args).any(|o| o.starts_with("incremental=")) {
            let dir = out_dir(args).unwrap_or(Path::new("."));
            cmd.arg(format!("-Cincremental={}", dir.join("enzyme-rs-libm-incremental").display()));
        }
    }
    match cmd.status() {
        Ok(s) => crate::exit_code(s),
        Err(e) => {
            eprintln!("error: cannot run `{rustc}`: {e}");
            ExitCode::from(2)
        }
    }
}

/// The value of `--crate-name`.
fn crate_name(args: &[String]) -> Option<&str> {
    args.iter().enumerate().find_map(|(i, a)| match a.as_str() {
        "--crate-name" => args.get(i + 1).map(String::as_str),
        _ => a.strip_prefix("--crate-name="),
    })
}

/// The values of `-C` options, in both spellings.
fn codegen_options(args: &[String]) -> impl Iterator<Item = &str> {
    args.iter().enumerate().filter_map(|(i, a)| match a.as_str() {
        "-C" | "--codegen" => args.get(i + 1).map(String::as_str),
        _ => a.strip_prefix("-C").or_else(|| a.strip_prefix("--codegen=")),
    })
}

/// The value of `--out-dir`.
fn out_dir(args: &[String]) -> Option<&Path> {
    args.iter().enumerate().find_map(|(i, a)| match a.as_str() {
        "--out-dir" => args.get(i + 1).map(Path::new),
        _ => a.strip_prefix("--out-dir=").map(Path::new),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_options_it_needs() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(crate_name(&args(&["--edition=2021", "--crate-name", "libm", "src/lib.rs"])), Some("libm"));
        assert_eq!(crate_name(&args(&["--crate-name=p"])), Some("p"));
        assert_eq!(crate_name(&args(&["-vV"])), None);
        let a = args(&["-C", "opt-level=3", "-Cincremental=/i", "--out-dir", "/t/deps", "--crate-name", "lto=fat"]);
        assert_eq!(codegen_options(&a).collect::<Vec<_>>(), vec!["opt-level=3", "incremental=/i"]);
        assert_eq!(out_dir(&a), Some(Path::new("/t/deps")));
    }
}
