//! The enzyme-rs compiler driver: everything between a build system's
//! command line and the AD engine.
//!
//! - [`args`] classifies a clang-style command line;
//! - [`toolchain`] finds clang 22 and our header;
//! - compile steps run clang with full LTO so objects carry LLVM bitcode;
//! - [`link`] collects bitcode from objects and archives, merges it, runs
//!   the pre-AD pipeline, the engine ([`ad`]), the post-AD pipeline
//!   ([`pipeline`]), emits a native object and links it with clang;
//! - [`report`] renders the engine's diagnostics.
//!
//! The driver knows nothing about derivative rules; the engine knows nothing
//! about processes or files.

#![warn(missing_docs)]

pub mod args;
pub mod bitcode;
pub mod error;
pub mod focus;
pub mod link;
pub mod parallel_post_ad;
pub mod pipeline;
pub mod report;
pub mod split_codegen;
pub mod toolchain;
pub mod watchdog;

use std::process::Command;

pub use args::Language;
use args::{Action, Invocation};
pub use error::DriverError;
use toolchain::Toolchain;

/// Flags added to every compile step: objects carry bitcode (full LTO), and
/// vectorisation and unrolling wait until after differentiation.
pub const COMPILE_FLAGS: &[&str] = &["-flto", "-fno-vectorize", "-fno-slp-vectorize", "-fno-unroll-loops"];

/// The flags added to a compile step of C or C++ (`fortran` false) or
/// Fortran: [`COMPILE_FLAGS`], plus, under the ablation
/// [`pipeline::ad_before_optimisation`], clang's switch that leaves the
/// bitcode unoptimised (flang has none, so Fortran is compiled as usual).
pub fn compile_flags(fortran: bool) -> Vec<&'static str> {
    let mut flags = COMPILE_FLAGS.to_vec();
    if pipeline::ad_before_optimisation() && !fortran {
        flags.extend(["-Xclang", "-disable-llvm-passes"]);
    }
    flags
}

/// The program name users see in messages.
pub fn program_name(language: Language) -> &'static str {
    match language {
        Language::C => "enzyme-cc",
        Language::Cxx => "enzyme-c++",
        Language::Fortran => "enzyme-fortran",
    }
}

/// Entry point of the `enzyme-cc` / `enzyme-c++` binaries: runs with the
/// process arguments and returns the exit code.
pub fn run_from_env(language: Language) -> i32 {
    let program = program_name(language);
    default_sigpipe();
    let mut args = Vec::new();
    for a in std::env::args_os().skip(1) {
        match a.into_string() {
            Ok(s) => args.push(s),
            Err(a) => {
                eprintln!("{program}: error: argument {a:?} is not valid UTF-8");
                return 1;
            }
        }
    }
    // A bug of ours must read as one, with a non-zero exit, not as a Rust panic.
    std::panic::set_hook(Box::new(move |info| {
        eprintln!(
            "{program}: internal error: {info}\n  = note: this is a bug in enzyme-rs; please report it with the command line"
        );
    }));
    let result = std::panic::catch_unwind(|| run(language, args));
    let Ok(result) = result else { return 70 };
    match result {
        Ok(code) => code,
        Err(DriverError::Differentiation(_)) => 1,
        Err(e) => {
            eprintln!("{program}: error: {e}");
            e.exit_code()
        }
    }
}

/// Makes a write to a closed pipe end the process quietly, as it ends clang
/// (`enzyme-cc --version | head -1`), instead of failing `println!` with a
/// panic. Rust ignores SIGPIPE by default; C tools do not.
pub fn default_sigpipe() {
    // SAFETY: called at the start of `main`, before any thread is spawned;
    // SIG_DFL is a valid disposition for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Runs one invocation; `Ok` carries the exit code of a tool we handed over to.
pub fn run(language: Language, args: Vec<String>) -> Result<i32, DriverError> {
    let args = args::expand_response_files(&args)?;
    let inv = args::classify(language, args)?;
    if inv.verbose {
        for n in &inv.notes {
            eprintln!("{}: note: {n}", program_name(language));
        }
    }
    let tc = Toolchain::discover(language)?;
    match inv.action {
        Action::Version => {
            println!("{} (enzyme-rs) {}", program_name(language), env!("CARGO_PKG_VERSION"));
            println!("AD engine built on LLVM {}", toolchain::llvm_version());
            println!("compiler: {}", tc.compiler.display());
            Ok(status(Command::new(&tc.compiler).arg("--version"))?)
        }
        Action::PassThrough => {
            let mut cmd = Command::new(&tc.compiler);
            cmd.args(&inv.all_args).args(tc.include_flags());
            // `-fsyntax-only` and friends know Enzyme's attributes too.
            if let (Some(p), false) = (&tc.plugin, inv.language == Language::Fortran) {
                cmd.arg(format!("-fplugin={}", p.display()));
            }
            Ok(status(&mut cmd)?)
        }
        Action::Compile => Ok(status(&mut compile_command(&tc, &inv)?)?),
        Action::Link => {
            link::link(&inv, &tc)?;
            Ok(0)
        }
    }
}

/// The clang command for a `-c` invocation.
fn compile_command(tc: &Toolchain, inv: &Invocation) -> Result<Command, DriverError> {
    let mut cmd = Command::new(&tc.compiler);
    cmd.args(args::compile_step_args(&inv.all_args, inv.language == Language::Fortran));
    let only_assembly = inv.inputs.iter().all(|i| matches!(i.kind, args::InputKind::Assembly(_)));
    if !only_assembly {
        cmd.args(compile_flags(inv.language == Language::Fortran));
        if inv.language != Language::Fortran {
            cmd.args(tc.plugin_flags()?);
        }
    }
    cmd.args(tc.include_flags());
    Ok(cmd)
}

/// Runs a command to completion and returns its exit code.
pub(crate) fn status(cmd: &mut Command) -> Result<i32, DriverError> {
    let program = cmd.get_program().to_string_lossy().into_owned();
    let st = cmd.status().map_err(|e| DriverError::Io { context: format!("cannot run `{program}`"), source: e })?;
    Ok(st.code().unwrap_or(1))
}

/// Formats a command the way `-###` shows it.
pub(crate) fn show(cmd: &Command) -> String {
    let mut parts = vec![format!("\"{}\"", cmd.get_program().to_string_lossy())];
    parts.extend(cmd.get_args().map(|a| format!("\"{}\"", a.to_string_lossy())));
    format!(" {}", parts.join(" "))
}
