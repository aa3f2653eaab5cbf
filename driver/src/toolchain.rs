//! Finding the LLVM 22 tools we drive and the public header we provide.

use std::path::{Path, PathBuf};

use crate::args::Language;
use crate::error::DriverError;

/// Where LLVM 22 lives on Debian.
pub const LLVM_PREFIX: &str = "/usr/lib/llvm-22";

/// The tools one invocation needs.
#[derive(Clone, Debug)]
pub struct Toolchain {
    /// The invoked language's compiler: clang (C), clang++ (C++) or flang (Fortran).
    pub compiler: PathBuf,
    /// The link driver: clang++ for C++, clang otherwise.
    pub linker: PathBuf,
    /// The front end invoked.
    pub language: Language,
    /// The directory holding `enzyme/enzyme.h` (and `enzyme/enzyme.mod`), if found.
    pub include_dir: Option<PathBuf>,
    /// Our clang plugin (Enzyme's attributes; registered functions kept out
    /// of line until differentiation), if found.
    pub plugin: Option<PathBuf>,
}

/// The plugin's file name, as `make install` puts it in `<prefix>/lib/enzyme-rs/`.
pub const PLUGIN_FILE: &str = "enzyme-rs-plugin.so";

/// Where one tool is looked for: an environment variable, a path under
/// Debian's LLVM 22 prefix, a name on `PATH`, and what to install.
struct ToolSpec {
    env: &'static str,
    in_prefix: &'static str,
    on_path: &'static str,
    package: &'static str,
}

fn spec(language: Language) -> ToolSpec {
    match language {
        Language::C => {
            ToolSpec { env: "ENZYME_CLANG", in_prefix: "bin/clang", on_path: "clang-22", package: "clang-22" }
        }
        Language::Cxx => {
            ToolSpec { env: "ENZYME_CLANGXX", in_prefix: "bin/clang++", on_path: "clang++-22", package: "clang-22" }
        }
        Language::Fortran => {
            ToolSpec { env: "ENZYME_FLANG", in_prefix: "bin/flang", on_path: "flang-22", package: "flang-22" }
        }
    }
}

/// Finds the compiler of `language`.
pub fn find(language: Language) -> Result<PathBuf, DriverError> {
    let s = spec(language);
    if let Some(p) = std::env::var_os(s.env) {
        return Ok(PathBuf::from(p));
    }
    if Path::new(LLVM_PREFIX).join(s.in_prefix).is_file() {
        return Ok(Path::new(LLVM_PREFIX).join(s.in_prefix));
    }
    which::which(s.on_path).map_err(|_| DriverError::MissingTool {
        tool: s.on_path.to_string(),
        hint: format!(
            "install LLVM 22 (`apt-get install {} llvm-22-dev lld-22`), or set {} to the binary",
            s.package, s.env
        ),
    })
}

impl Toolchain {
    /// Looks the tools up: `ENZYME_CLANG` / `ENZYME_CLANGXX` / `ENZYME_FLANG`
    /// first, then Debian's LLVM 22 prefix, then `clang-22` / `clang++-22` /
    /// `flang-22` on `PATH`.
    pub fn discover(language: Language) -> Result<Toolchain, DriverError> {
        let compiler = find(language)?;
        let linker = match language {
            Language::C | Language::Cxx => compiler.clone(),
            Language::Fortran => find(Language::C)?,
        };
        Ok(Toolchain { compiler, linker, language, include_dir: find_include_dir(), plugin: find_plugin() })
    }

    /// The compiler for a source of clang's `-x` language `lang` (Fortran
    /// sources go to flang whichever front end was invoked).
    pub fn compiler_for(&self, lang: &str) -> Result<PathBuf, DriverError> {
        match (is_fortran(lang), self.language == Language::Fortran) {
            (true, false) => find(Language::Fortran),
            // C sources in a Fortran link: clang, which links anyway.
            (false, true) => Ok(self.linker.clone()),
            _ => Ok(self.compiler.clone()),
        }
    }

    /// Flags that make `#include <enzyme/enzyme.h>` (C, C++) or `use enzyme`
    /// (Fortran) work without `-I`.
    pub fn include_flags_for(&self, fortran: bool) -> Vec<String> {
        let Some(d) = &self.include_dir else { return Vec::new() };
        if fortran {
            // After the user's own -I: their modules of the same name win.
            vec![format!("-I{}", d.join("enzyme").display())]
        } else {
            // -idirafter: the user's own headers of the same name win.
            vec!["-idirafter".into(), d.display().to_string()]
        }
    }

    /// The flags that load our clang plugin into a C or C++ compile step. Its
    /// absence is an error: without it clang would drop Enzyme's attributes
    /// with a warning and the program would build with wrong derivatives.
    pub fn plugin_flags(&self) -> Result<Vec<String>, DriverError> {
        match &self.plugin {
            // The plugin turns warnings about unknown `enzyme_*` attributes
            // into errors of its own, so they must not be switched off; nor
            // may `-Werror` make other unknown attributes fail a build that
            // had them switched off.
            Some(p) => Ok(vec![
                format!("-fplugin={}", p.display()),
                format!("-fpass-plugin={}", p.display()),
                "-Wunknown-attributes".into(),
                "-Wno-error=unknown-attributes".into(),
            ]),
            None => Err(DriverError::MissingTool {
                tool: PLUGIN_FILE.to_string(),
                hint: "it is built and installed with the tools (`make install`, into <prefix>/lib/enzyme-rs/); \
                       or set ENZYME_PLUGIN to its path"
                    .to_string(),
            }),
        }
    }

    /// [`Toolchain::include_flags_for`] the invoked compiler.
    pub fn include_flags(&self) -> Vec<String> {
        self.include_flags_for(self.language == Language::Fortran)
    }
}

/// Whether a `-x` language name is Fortran.
pub fn is_fortran(lang: &str) -> bool {
    lang.starts_with('f')
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

/// `ENZYME_PLUGIN`, `<exe>/../lib/enzyme-rs/` (installed layout), or the
/// cargo target directory (`make build` puts it there).
fn find_plugin() -> Option<PathBuf> {
    find_installed("ENZYME_PLUGIN", PLUGIN_FILE)
}

/// The bitcode files of our derivative rules for library functions (BLAS,
/// LAPACK, `qsort`: `wrappers/rules/*.c`; the Fortran BLAS as flang calls
/// it: `wrappers/rules/fortran/*.c`), installed beside the plugin; those
/// that are there.
pub fn find_library_rules() -> Vec<PathBuf> {
    [
        ("ENZYME_LIBRARY_RULES", LIBRARY_RULES_FILE),
        ("ENZYME_FORTRAN_RULES", FORTRAN_RULES_FILE),
        ("ENZYME_MPI_RULES", MPI_RULES_FILE),
    ]
    .into_iter()
    .filter_map(|(var, file)| find_installed(var, file))
    .collect()
}

/// The library rules' file name in `<prefix>/lib/enzyme-rs/`.
pub const LIBRARY_RULES_FILE: &str = "enzyme-rs-rules.bc";

/// The rules for MPI communication (MPICH's ABI), beside them.
pub const MPI_RULES_FILE: &str = "enzyme-rs-rules-mpi.bc";

/// The rules for Fortran BLAS as flang calls it, beside them.
pub const FORTRAN_RULES_FILE: &str = "enzyme-rs-rules-fortran.bc";

/// A file `make install` puts in `<prefix>/lib/enzyme-rs/` (or `make build`
/// in `target/`), or the path in environment variable `var`.
fn find_installed(var: &str, file: &str) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(var).map(PathBuf::from) {
        return p.is_file().then_some(p);
    }
    if let Ok(exe) = std::env::current_exe() {
        if let Some(prefix) = exe.parent().and_then(Path::parent) {
            let p = prefix.join("lib/enzyme-rs").join(file);
            if p.is_file() {
                return Some(p);
            }
        }
        // Running from the cargo target directory: target/release/enzyme-cc.
        if let Some(target) = exe.parent().and_then(Path::parent) {
            let p = target.join(file);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// The LLVM version this driver is linked against, e.g. `22.1.8`.
pub fn llvm_version() -> String {
    let (mut major, mut minor, mut patch) = (0u32, 0u32, 0u32);
    unsafe { llvm_sys::core::LLVMGetVersion(&mut major, &mut minor, &mut patch) };
    format!("{major}.{minor}.{patch}")
}
