//! Compiles native/energy.c (enzyme-cc) and native/pair.f90 (enzyme-fortran)
//! to LLVM bitcode objects and archives them with LLVM 22's archiver.
use std::path::PathBuf;
use std::process::Command;

fn run(cmd: &mut Command) {
    let status = cmd.status().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(status.success(), "{cmd:?} failed");
}

fn main() {
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let (c, f) = (out.join("energy.o"), out.join("pair.o"));
    run(Command::new("enzyme-fortran").args(["-O2", "-c", "native/pair.f90", "-J"]).arg(&out).arg("-o").arg(&f));
    run(Command::new("enzyme-cc").args(["-O2", "-c", "native/energy.c", "-o"]).arg(&c));
    let lib = out.join("libnative.a");
    let _ = std::fs::remove_file(&lib);
    run(Command::new("enzyme-ar").arg("rcs").arg(&lib).arg(&c).arg(&f));
    println!("cargo:rustc-link-search=native={}", out.display());
    println!("cargo:rustc-link-lib=static=native");
    for p in ["build.rs", "native/energy.c", "native/pair.f90"] {
        println!("cargo:rerun-if-changed={p}");
    }
}
