//! Classifying a compiler command line the way clang's driver does, so build
//! systems can call us exactly as they call clang.
//!
//! Nothing is rejected here: flags we do not know are passed to clang, which
//! knows them. The only decisions are what the invocation is (compile, link,
//! or something we hand over unchanged) and which arguments belong to the
//! compile steps and which to the final link.

use std::path::{Path, PathBuf};

use crate::error::DriverError;

/// The language a front end was invoked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    /// `enzyme-cc`, over `clang`.
    C,
    /// `enzyme-c++`, over `clang++`.
    Cxx,
    /// `enzyme-fortran`, over `flang`.
    Fortran,
}

/// What an invocation asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// `--version` alone: our version, then clang's.
    Version,
    /// `-E`, `-S`, `-M`, `-fsyntax-only`, `-print-*`, no inputs, ...: clang does it all.
    PassThrough,
    /// `-c`: compile each source to an LLVM bitcode object.
    Compile,
    /// Anything else: compile sources, merge bitcode, differentiate, link.
    Link,
}

/// Optimisation level from `-O`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptLevel {
    /// `-O0`
    O0,
    /// `-O1`
    O1,
    /// `-O2` (also `-O` alone)
    O2,
    /// `-O3`, `-Ofast`
    O3,
    /// `-Os`
    Os,
    /// `-Oz`
    Oz,
}

impl OptLevel {
    fn parse(flag: &str) -> Option<OptLevel> {
        Some(match flag {
            "-O0" => OptLevel::O0,
            "-O1" | "-Og" => OptLevel::O1,
            "-O" | "-O2" => OptLevel::O2,
            "-O3" | "-Ofast" | "-O4" => OptLevel::O3,
            "-Os" => OptLevel::Os,
            "-Oz" => OptLevel::Oz,
            _ => return None,
        })
    }
}

/// What kind of file an input is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputKind {
    /// A source file in a language clang compiles (the `-x` name).
    Source(String),
    /// Assembly (`.s`, `.S`): compiled natively, never to bitcode.
    Assembly(String),
    /// An object file (`.o`): bitcode or native, decided by its content.
    Object,
    /// A static archive (`.a`).
    Archive,
    /// Anything else (shared libraries, linker scripts): for the linker.
    LinkerInput,
}

/// One input file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    /// As written on the command line.
    pub path: String,
    /// What it is.
    pub kind: InputKind,
}

/// An element of the final link line, in command-line order (order matters
/// to linkers: libraries after the objects that need them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkItem {
    /// An argument for the linker driver.
    Arg(String),
    /// `inputs[i]`.
    Input(usize),
    /// `-l<name>` (may resolve to a bitcode archive of the user's).
    Library(String),
}

/// A classified command line.
#[derive(Clone, Debug)]
pub struct Invocation {
    /// Which front end.
    pub language: Language,
    /// What to do.
    pub action: Action,
    /// `-###`: print the commands, run nothing.
    pub dry_run: bool,
    /// `-v`.
    pub verbose: bool,
    /// `-o`.
    pub output: Option<String>,
    /// Input files, in order.
    pub inputs: Vec<Input>,
    /// The last `-O` given.
    pub opt_level: Option<OptLevel>,
    /// Arguments for compile steps (no inputs, no `-o`, no `-c`, no link-only flags).
    pub compile_flags: Vec<String>,
    /// The final link line, less `-o`.
    pub link_items: Vec<LinkItem>,
    /// `-L` directories, in order.
    pub library_dirs: Vec<PathBuf>,
    /// The whole command line after `@file` expansion (for pass-through).
    pub all_args: Vec<String>,
    /// `-fenzyme-print-activity`: describe the analysis of each differentiated function.
    pub print_activity: bool,
    /// `-mllvm -enzyme-runtime-activity`: run-time activity for every derivative.
    pub runtime_activity: bool,
    /// What was dropped from the command line as not needed here (Enzyme's
    /// plugins), said with `-v`.
    pub notes: Vec<String>,
    /// `-fsanitize=address`: compile steps leave it out (instrumentation
    /// before differentiation would be differentiated), the link step runs
    /// AddressSanitizer after the AD pass, on derivatives too.
    pub sanitize_address: bool,
}

/// Whether a command line asks for AddressSanitizer (the last of
/// `-fsanitize=...address...` / `-fno-sanitize=...address...` wins).
fn wants_address_sanitizer(args: &[String]) -> bool {
    let mut on = false;
    for a in args {
        if let Some(list) = a.strip_prefix("-fsanitize=") {
            if list.split(',').any(|s| s == "address") {
                on = true;
            }
        } else if let Some(list) = a.strip_prefix("-fno-sanitize=") {
            if list.split(',').any(|s| s == "address" || s == "all") {
                on = false;
            }
        }
    }
    on
}

/// A compile step's arguments as given to clang or flang. AddressSanitizer
/// is left to the link (`address` out of `-fsanitize=` lists, its
/// `-fsanitize-address-*` options dropped; other sanitizers' checks are made
/// by the front end and stay). For C and C++, `-w` becomes `-Wno-everything`:
/// `-w` would also silence the unknown-attribute warning that our plugin
/// turns into an error for `enzyme_*` attributes it does not know, and an
/// attribute dropped in silence is a wrong derivative. Debug info is DWARF 4
/// unless a version is asked for (flang's default too): the link merges
/// compile units, and Debian 12's valgrind cannot read DWARF 5 from a
/// program of several units.
pub fn compile_step_args(args: &[String], fortran: bool) -> Vec<String> {
    let mut out = Vec::with_capacity(args.len());
    let dwarf_version_given = args.iter().any(|a| a.starts_with("-gdwarf"));
    for a in args {
        if a == "-w" && !fortran {
            out.push("-Wno-everything".into());
        } else if enables_debug_info(a) && !fortran && !dwarf_version_given {
            out.push(a.clone());
            out.push("-gdwarf-4".into());
        } else if let Some(list) = a.strip_prefix("-fsanitize=") {
            let rest: Vec<&str> = list.split(',').filter(|s| *s != "address").collect();
            if !rest.is_empty() {
                out.push(format!("-fsanitize={}", rest.join(",")));
            }
        } else if !a.starts_with("-fsanitize-address-") {
            out.push(a.clone());
        }
    }
    out
}

/// `-g`, `-g1`..`-g3`, `-ggdb[N]`, `-gline-tables-only`: a flag that turns
/// debug info on (not `-g0`, nor options that only shape it).
fn enables_debug_info(a: &str) -> bool {
    matches!(a, "-g" | "-g1" | "-g2" | "-g3" | "-gline-tables-only" | "-gline-directives-only")
        || a.strip_prefix("-ggdb").is_some_and(|n| n.is_empty() || n != "0")
}

/// Whether a path names one of Enzyme's plugins (`ClangEnzyme-22.so`,
/// `LLVMEnzyme-22.so`, `LLDEnzyme-22.so`).
fn is_enzyme_plugin(path: &str) -> bool {
    let file = Path::new(path).file_name().and_then(|f| f.to_str()).unwrap_or(path);
    ["ClangEnzyme", "LLVMEnzyme", "LLDEnzyme"].iter().any(|p| file.starts_with(p))
}

/// Enzyme's `-mllvm -enzyme-*` options: the ones with a meaning here set
/// it; the others are refused (they would change Enzyme's behaviour in a way
/// this engine would silently not follow).
fn enzyme_llvm_option(opt: &str, inv: &mut Invocation) -> Result<(), DriverError> {
    let name = opt.split('=').next().unwrap_or(opt);
    match name {
        "-enzyme-print-activity" => inv.print_activity = true,
        "-enzyme-runtime-activity" => {
            inv.runtime_activity = !matches!(opt.split_once('=').map(|(_, v)| v), Some("0" | "false"))
        }
        // Only report what Enzyme does: nothing changes in the derivatives.
        "-enzyme-print" | "-enzyme-print-type" | "-enzyme-print-perf" => {
            inv.notes.push(format!("`{opt}` is Enzyme's debugging output; enzyme-rs ignores it (see -fenzyme-print-activity and ENZYME_DUMP_IR)"));
        }
        _ => {
            return Err(DriverError::Usage(format!(
                "`-mllvm {opt}` is an option of Enzyme's LLVM plugin that enzyme-rs does not implement; remove it \
                 (enzyme-rs understands -enzyme-print-activity and -enzyme-runtime-activity)"
            )))
        }
    }
    Ok(())
}

/// Takes Enzyme's plugin flags out of a command line: `-fplugin=`,
/// `-fpass-plugin=`, `-Xclang -load -Xclang`, `-Wl,--load-pass-plugin=` and
/// `-Wl,-mllvm,-load=` naming Enzyme's plugins (the engine is built in, so
/// they are not needed and the files may not exist), and `-mllvm
/// -enzyme-*` / `-Wl,-mllvm,-enzyme-*` options.
fn strip_enzyme_plugin_flags(args: Vec<String>, inv: &mut Invocation) -> Result<Vec<String>, DriverError> {
    let mut out = Vec::with_capacity(args.len());
    let mut i = 0;
    let not_needed = |inv: &mut Invocation, what: &str| {
        inv.notes.push(format!("`{what}` is not needed: enzyme-rs has the AD engine built in; ignored"));
    };
    while i < args.len() {
        let a = args[i].as_str();
        let next = args.get(i + 1).map(String::as_str);
        if let Some(p) = a.strip_prefix("-fplugin=").or_else(|| a.strip_prefix("-fpass-plugin=")) {
            if is_enzyme_plugin(p) {
                not_needed(inv, a);
                i += 1;
                continue;
            }
        }
        if a == "-Xclang" && next == Some("-load") && args.get(i + 2).map(String::as_str) == Some("-Xclang") {
            if let Some(p) = args.get(i + 3).filter(|p| is_enzyme_plugin(p)) {
                not_needed(inv, &format!("-Xclang -load -Xclang {p}"));
                i += 4;
                continue;
            }
        }
        if a == "-Xclang" && next.is_some_and(|n| n.starts_with("-fpass-plugin=") && is_enzyme_plugin(&n[14..])) {
            not_needed(inv, &format!("-Xclang {}", next.unwrap_or_default()));
            i += 2;
            continue;
        }
        if a == "-mllvm" && next.is_some_and(|n| n.starts_with("-enzyme")) {
            enzyme_llvm_option(next.unwrap_or_default(), inv)?;
            i += 2;
            continue;
        }
        if a == "-Xclang" && next == Some("-mllvm") && args.get(i + 2).map(String::as_str) == Some("-Xclang") {
            if let Some(o) = args.get(i + 3).filter(|o| o.starts_with("-enzyme")) {
                enzyme_llvm_option(o, inv)?;
                i += 4;
                continue;
            }
        }
        if let Some(rest) = a.strip_prefix("-Wl,") {
            // Keep the linker options that are not Enzyme's.
            let parts: Vec<&str> = rest.split(',').collect();
            let mut kept = Vec::new();
            let mut k = 0;
            while k < parts.len() {
                let p = parts[k];
                let plugin = p
                    .strip_prefix("--load-pass-plugin=")
                    .or_else(|| p.strip_prefix("-load-pass-plugin="))
                    .or_else(|| p.strip_prefix("-load="))
                    .or_else(|| p.strip_prefix("--load="));
                if plugin.is_some_and(is_enzyme_plugin) {
                    not_needed(inv, p);
                    if kept.last() == Some(&"-mllvm") {
                        kept.pop();
                    }
                } else if p == "-mllvm" && parts.get(k + 1).is_some_and(|n| n.starts_with("-enzyme")) {
                    enzyme_llvm_option(parts[k + 1], inv)?;
                    k += 1;
                } else if let Some(o) = p.strip_prefix("-mllvm=").filter(|o| o.starts_with("-enzyme")) {
                    enzyme_llvm_option(o, inv)?;
                } else {
                    kept.push(p);
                }
                k += 1;
            }
            if !kept.is_empty() {
                out.push(format!("-Wl,{}", kept.join(",")));
            }
            i += 1;
            continue;
        }
        out.push(args[i].clone());
        i += 1;
    }
    Ok(out)
}

/// Flags that take their value as the next argument and only matter when compiling.
const COMPILE_FLAGS_WITH_VALUE: &[&str] = &[
    "-I",
    "-D",
    "-U",
    "-include",
    "-imacros",
    "-isystem",
    "-idirafter",
    "-iquote",
    "-iprefix",
    "-iwithprefix",
    "-iwithprefixbefore",
    "-isysroot",
    "-MF",
    "-MT",
    "-MQ",
    "-MJ",
    "-Xclang",
    "-Xpreprocessor",
    "-Xassembler",
    "-mllvm",
    "-ivfsoverlay",
    "-include-pch",
    "-dependency-file",
    "--param",
    "-working-directory",
];

/// Flags that take their value as the next argument and matter to both steps.
const BOTH_FLAGS_WITH_VALUE: &[&str] = &["-target", "--target", "--sysroot", "-arch", "-B", "--gcc-toolchain"];

/// Flags that take their value as the next argument and only matter when linking.
const LINK_FLAGS_WITH_VALUE: &[&str] = &["-Xlinker", "-u", "-T", "-z", "-e"];

/// Flags without a value that only matter when linking.
const LINK_ONLY_FLAGS: &[&str] = &[
    "-shared",
    "-static",
    "-static-pie",
    "-pie",
    "-no-pie",
    "-rdynamic",
    "-nostdlib",
    "-nodefaultlibs",
    "-nostartfiles",
    "-nolibc",
    "-static-libgcc",
    "-static-libstdc++",
    "-shared-libgcc",
    "-s",
    "-r",
];

/// Flags that make the whole invocation something clang does on its own.
fn is_pass_through_flag(a: &str) -> bool {
    matches!(a, "-E" | "-S" | "-M" | "-MM" | "-fsyntax-only" | "-dumpversion" | "-dumpmachine" | "--help" | "-help")
        || a.starts_with("-print-")
        || a.starts_with("--print-")
        || a == "-emit-llvm"
        || a == "-emit-ast"
        || a == "-fdriver-only"
}

/// Guesses an input's kind from its extension, as clang does.
fn kind_for(path: &str, forced: Option<&str>) -> InputKind {
    if let Some(lang) = forced {
        return match lang {
            "assembler" | "assembler-with-cpp" => InputKind::Assembly(lang.to_string()),
            _ => InputKind::Source(lang.to_string()),
        };
    }
    let ext = Path::new(path).extension().and_then(|e| e.to_str()).unwrap_or("");
    match ext {
        "c" => InputKind::Source("c".into()),
        "i" => InputKind::Source("cpp-output".into()),
        "cc" | "cpp" | "cxx" | "c++" | "C" | "cp" | "CPP" => InputKind::Source("c++".into()),
        "ii" => InputKind::Source("c++-cpp-output".into()),
        // Fortran: flang's names (`f95-cpp-input` is preprocessed first).
        "f" | "for" | "f90" | "f95" | "f03" | "f08" => InputKind::Source("f95".into()),
        "F" | "FOR" | "F90" | "F95" | "F03" | "F08" => InputKind::Source("f95-cpp-input".into()),
        "m" => InputKind::Source("objective-c".into()),
        "mm" | "M" => InputKind::Source("objective-c++".into()),
        "s" => InputKind::Assembly("assembler".into()),
        "S" | "sx" => InputKind::Assembly("assembler-with-cpp".into()),
        "o" | "obj" | "bc" | "ll" | "lo" => InputKind::Object,
        "a" | "rlib" => InputKind::Archive,
        _ => InputKind::LinkerInput,
    }
}

/// Expands `@file` response files (GNU quoting), recursively.
pub fn expand_response_files(args: &[String]) -> Result<Vec<String>, DriverError> {
    fn expand(args: &[String], depth: usize, out: &mut Vec<String>) -> Result<(), DriverError> {
        for a in args {
            match a.strip_prefix('@') {
                Some(file) if !file.is_empty() && Path::new(file).is_file() => {
                    if depth > 16 {
                        return Err(DriverError::Usage(format!("response file `{file}` nests too deeply")));
                    }
                    let text = std::fs::read_to_string(file)
                        .map_err(|e| DriverError::Usage(format!("cannot read response file `{file}`: {e}")))?;
                    let words = shell_words::split(&text)
                        .map_err(|e| DriverError::Usage(format!("cannot parse response file `{file}`: {e}")))?;
                    expand(&words, depth + 1, out)?;
                }
                _ => out.push(a.clone()),
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    expand(args, 0, &mut out)?;
    Ok(out)
}

/// Classifies a command line (after `@file` expansion).
pub fn classify(language: Language, args: Vec<String>) -> Result<Invocation, DriverError> {
    let mut inv = Invocation {
        language,
        action: Action::Link,
        dry_run: false,
        verbose: false,
        output: None,
        inputs: Vec::new(),
        opt_level: None,
        compile_flags: Vec::new(),
        link_items: Vec::new(),
        library_dirs: Vec::new(),
        all_args: Vec::new(),
        print_activity: false,
        runtime_activity: false,
        notes: Vec::new(),
        sanitize_address: false,
    };
    let args = strip_enzyme_plugin_flags(args, &mut inv)?;
    inv.all_args = args.iter().filter(|a| !is_enzyme_flag(a)).cloned().collect();
    inv.sanitize_address = wants_address_sanitizer(&args);
    let mut compile_only = false;
    let mut pass_through = false;
    let mut version = false;
    let mut forced_lang: Option<String> = None;
    let mut i = 0;
    let value = |i: usize, flag: &str| -> Result<String, DriverError> {
        args.get(i + 1).cloned().ok_or_else(|| DriverError::Usage(format!("argument to `{flag}` is missing")))
    };
    while i < args.len() {
        let a = args[i].as_str();
        if a == "-" || !a.starts_with('-') || a.len() == 1 {
            let kind = if a == "-" {
                InputKind::Source(forced_lang.clone().unwrap_or_else(|| "c".into()))
            } else {
                kind_for(a, forced_lang.as_deref())
            };
            // clang++ compiles `.c` files as C++ (unless told `-x c`).
            let kind = match kind {
                InputKind::Source(l) if l == "c" && language == Language::Cxx && forced_lang.is_none() => {
                    InputKind::Source("c++".into())
                }
                k => k,
            };
            inv.link_items.push(LinkItem::Input(inv.inputs.len()));
            inv.inputs.push(Input { path: a.to_string(), kind });
            i += 1;
            continue;
        }
        match a {
            "-fenzyme-print-activity" => inv.print_activity = true,
            "--version" => version = true,
            "-###" => inv.dry_run = true,
            "-c" => compile_only = true,
            "-v" => {
                inv.verbose = true;
                inv.compile_flags.push(a.into());
                inv.link_items.push(LinkItem::Arg(a.into()));
            }
            "-o" => {
                inv.output = Some(value(i, a)?);
                i += 1;
            }
            "-x" => {
                let l = value(i, a)?;
                forced_lang = (l != "none").then_some(l);
                i += 1;
            }
            "-l" => {
                inv.link_items.push(LinkItem::Library(value(i, a)?));
                i += 1;
            }
            "-L" => {
                let d = value(i, a)?;
                inv.library_dirs.push(PathBuf::from(&d));
                inv.link_items.push(LinkItem::Arg(format!("-L{d}")));
                i += 1;
            }
            _ if pass_through_or(a, &mut pass_through) => {
                inv.compile_flags.push(a.into());
            }
            _ if OptLevel::parse(a).is_some() => {
                inv.opt_level = OptLevel::parse(a);
                inv.compile_flags.push(a.into());
            }
            _ if a.starts_with("-O") => {
                // An -O form we do not know: clang decides; we optimise at -O2.
                inv.opt_level = Some(OptLevel::O2);
                inv.compile_flags.push(a.into());
            }
            _ if a.starts_with("-o") => inv.output = Some(a[2..].to_string()),
            _ if a.starts_with("-x") => {
                let l = &a[2..];
                forced_lang = (l != "none").then(|| l.to_string());
            }
            _ if a.starts_with("-l") => inv.link_items.push(LinkItem::Library(a[2..].to_string())),
            _ if a.starts_with("-L") => {
                inv.library_dirs.push(PathBuf::from(&a[2..]));
                inv.link_items.push(LinkItem::Arg(a.into()));
            }
            _ if a.starts_with("-Wl,") || LINK_ONLY_FLAGS.contains(&a) || a.starts_with("-fuse-ld=") => {
                inv.link_items.push(LinkItem::Arg(a.into()));
            }
            _ if LINK_FLAGS_WITH_VALUE.contains(&a) => {
                inv.link_items.push(LinkItem::Arg(a.into()));
                inv.link_items.push(LinkItem::Arg(value(i, a)?));
                i += 1;
            }
            _ if COMPILE_FLAGS_WITH_VALUE.contains(&a) => {
                inv.compile_flags.push(a.into());
                inv.compile_flags.push(value(i, a)?);
                i += 1;
            }
            _ if BOTH_FLAGS_WITH_VALUE.contains(&a) => {
                let v = value(i, a)?;
                inv.compile_flags.extend([a.to_string(), v.clone()]);
                inv.link_items.push(LinkItem::Arg(a.into()));
                inv.link_items.push(LinkItem::Arg(v));
                i += 1;
            }
            _ if a.starts_with("-flto") || a.starts_with("-fno-lto") => {
                // We decide LTO ourselves: full LTO when compiling, none at the final link.
            }
            _ if a.starts_with("-I")
                || a.starts_with("-D")
                || a.starts_with("-U")
                || a.starts_with("-W")
                || a.starts_with("-std=")
                || a.starts_with("-g")
                || a.starts_with("-M")
                || a.starts_with("-isystem")
                || a.starts_with("-include")
                || a == "-w"
                || a == "-pedantic"
                || a == "-ansi" =>
            {
                inv.compile_flags.push(a.into());
            }
            _ => {
                // Everything else (-f..., -m..., -pthread, --target=...) goes to both steps.
                inv.compile_flags.push(a.into());
                inv.link_items.push(LinkItem::Arg(a.into()));
            }
        }
        i += 1;
    }
    inv.action = if version && inv.inputs.is_empty() {
        Action::Version
    } else if pass_through || inv.inputs.is_empty() {
        Action::PassThrough
    } else if compile_only {
        Action::Compile
    } else {
        Action::Link
    };
    Ok(inv)
}

/// Our own flags, never passed to clang.
fn is_enzyme_flag(a: &str) -> bool {
    a == "-fenzyme-print-activity"
}

fn pass_through_or(a: &str, flag: &mut bool) -> bool {
    if is_pass_through_flag(a) {
        *flag = true;
        true
    } else {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cl(s: &str) -> Invocation {
        classify(Language::C, s.split_whitespace().map(String::from).collect()).unwrap()
    }

    #[test]
    fn compile_and_link_are_told_apart() {
        let c = cl("-O2 -g -Iinc -DX=1 -c a.c -o a.o");
        assert_eq!(c.action, Action::Compile);
        assert_eq!(c.output.as_deref(), Some("a.o"));
        assert_eq!(c.compile_flags, ["-O2", "-g", "-Iinc", "-DX=1"]);
        let l = cl("a.o b.c -o app -L. -lfoo -lm -Wl,--as-needed");
        assert_eq!(l.action, Action::Link);
        assert_eq!(l.inputs.len(), 2);
        assert_eq!(l.inputs[1].kind, InputKind::Source("c".into()));
        assert_eq!(
            l.link_items,
            [
                LinkItem::Input(0),
                LinkItem::Input(1),
                LinkItem::Arg("-L.".into()),
                LinkItem::Library("foo".into()),
                LinkItem::Library("m".into()),
                LinkItem::Arg("-Wl,--as-needed".into())
            ]
        );
    }

    #[test]
    fn pass_through_modes() {
        assert_eq!(cl("-E a.c").action, Action::PassThrough);
        assert_eq!(cl("-S a.c -o a.s").action, Action::PassThrough);
        assert_eq!(cl("-MM a.c").action, Action::PassThrough);
        assert_eq!(cl("-print-file-name=libc.a").action, Action::PassThrough);
        assert_eq!(cl("-v").action, Action::PassThrough);
        assert_eq!(cl("--version").action, Action::Version);
        // -MD/-MF only add a depfile to a normal compile.
        assert_eq!(cl("-MD -MF a.d -c a.c").action, Action::Compile);
    }

    #[test]
    fn language_override_and_stdin() {
        let l = cl("-x c foo.txt -x none bar.o");
        assert_eq!(l.inputs[0].kind, InputKind::Source("c".into()));
        assert_eq!(l.inputs[1].kind, InputKind::Object);
        assert_eq!(cl("-x assembler-with-cpp -c x.S").inputs[0].kind, InputKind::Assembly("assembler-with-cpp".into()));
    }

    #[test]
    fn response_files_expand() {
        let dir = tempfile::tempdir().unwrap();
        let rsp = dir.path().join("args.rsp");
        std::fs::write(&rsp, "-O2 \"-DNAME=a b\" -c\n").unwrap();
        let out = expand_response_files(&[format!("@{}", rsp.display()), "x.c".into()]).unwrap();
        assert_eq!(out, ["-O2", "-DNAME=a b", "-c", "x.c"]);
    }

    #[test]
    fn missing_values_are_errors() {
        assert!(classify(Language::C, vec!["-o".into()]).is_err());
    }
}
