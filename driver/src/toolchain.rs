//! Finding the LLVM 22 tools we drive and the public header we provide.

use std::path::{Path, PathBuf};

use crate::args::Language;
use crate::error::DriverError;

/// Where LLVM 22 lives on Debian.
pub const LLVM_PREFIX: &str = "/usr/lib/llvm-22";

/// The tools one invocation needs.
#[derive(Clone, Debug)]
pub struct Toolchain {
    /// clang (C) or clang++ (C++).
    pub compiler: PathBuf,
    /// The directory holding `enzyme/enzyme.h`, if found.
    pub include_dir: Option<PathBuf>,
}

impl Toolchain {
    /// Looks the tools up: `ENZYME_CLANG` / `ENZYME_CLANGXX` first, then
    /// Debian's LLVM 22 prefix, then `clang-22` / `clang++-22` on `PATH`.
    pub fn discover(language: Language) -> Result<Toolchain, DriverError> {
        let (env, in_prefix, on_path) = match language {
            Language::C => ("ENZYME_CLANG", "bin/clang", "clang-22"),
            Language::Cxx => ("ENZYME_CLANGXX", "bin/clang++", "clang++-22"),
        };
        let compiler = if let Some(p) = std::env::var_os(env) {
            PathBuf::from(p)
        } else if Path::new(LLVM_PREFIX).join(in_prefix).is_file() {
            Path::new(LLVM_PREFIX).join(in_prefix)
        } else if let Ok(p) = which::which(on_path) {
            p
        } else {
            return Err(DriverError::MissingTool {
                tool: on_path.to_string(),
                hint: format!(
                    "install LLVM 22 (`apt-get install clang-22 llvm-22-dev lld-22`), or set {env} to a clang 22 binary"
                ),
            });
        };
        Ok(Toolchain { compiler, include_dir: find_include_dir() })
    }

    /// Flags that make `#include <enzyme/enzyme.h>` work without `-I`.
    pub fn include_flags(&self) -> Vec<String> {
        match &self.include_dir {
            // -idirafter: the user's own headers of the same name win.
            Some(d) => vec!["-idirafter".into(), d.display().to_string()],
            None => Vec::new(),
        }
    }
}

/// `ENZYME_INCLUDE_DIR`, `<exe>/../include` (installed layout), or the
/// source tree's `wrappers/include` (running from a cargo build).
fn find_include_dir() -> Option<PathBuf> {
    let has_header = |d: &Path| d.join("enzyme/enzyme.h").is_file();
    if let Some(d) = std::env::var_os("ENZYME_INCLUDE_DIR").map(PathBuf::from) {
        if has_header(&d) {
            return Some(d);
        }
    }
    if let Ok(exe) = std::env::current_exe() {
        if let Some(prefix) = exe.parent().and_then(Path::parent) {
            let d = prefix.join("include");
            if has_header(&d) {
                return Some(d);
            }
        }
    }
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../wrappers/include");
    has_header(&d).then(|| d.canonicalize().unwrap_or(d))
}

/// The LLVM version this driver is linked against, e.g. `22.1.8`.
pub fn llvm_version() -> String {
    let (mut major, mut minor, mut patch) = (0u32, 0u32, 0u32);
    unsafe { llvm_sys::core::LLVMGetVersion(&mut major, &mut minor, &mut patch) };
    format!("{major}.{minor}.{patch}")
}
