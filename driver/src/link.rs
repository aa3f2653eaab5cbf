//! The link step: bitcode in, differentiated native program out.
//!
//! 1. Sources on the command line are compiled to bitcode objects first.
//! 2. Bitcode objects are merged into one module; bitcode archive members
//!    are added only while they define a symbol still undefined.
//! 3. Pre-AD pipeline, the AD engine, post-AD pipeline, verification.
//! 4. One native object is emitted and linked by clang with everything that
//!    was native to begin with (objects, archives, `-l` libraries), in the
//!    original command-line order.
//!
//! Nothing is written to the output path unless every step before the final
//! link succeeded; the linker itself removes a half-written output.

use std::path::{Path, PathBuf};
use std::process::Command;

use inkwell::context::Context;
use inkwell::module::Module;

use crate::args::{InputKind, Invocation, LinkItem, OptLevel};
use crate::bitcode::{self, Member, ObjectKind};
use crate::error::DriverError;
use crate::toolchain::Toolchain;
use crate::{compile_flags, focus, pipeline, program_name, report, show, status};

/// Bitcode gathered from the command line.
#[derive(Default)]
struct Gathered {
    /// Whole bitcode objects (always linked): name and bytes.
    objects: Vec<(String, Vec<u8>)>,
    /// Bitcode archive members (linked when needed).
    members: Vec<Member>,
    /// The final link line, native parts only, in order.
    final_args: Vec<String>,
    /// Where in `final_args` the differentiated object goes.
    slot: Option<usize>,
    /// The user's shared libraries on the link line (given by path, or as
    /// `-l` found in a `-L` directory): where a missing body may be.
    shared_libraries: Vec<PathBuf>,
}

impl Gathered {
    fn mark_slot(&mut self) {
        if self.slot.is_none() {
            self.slot = Some(self.final_args.len());
        }
    }
}

/// Runs the whole link step.
pub fn link(inv: &Invocation, tc: &Toolchain) -> Result<(), DriverError> {
    let program = program_name(inv.language);
    let tmp = tempfile::Builder::new()
        .prefix("enzyme-")
        .tempdir()
        .map_err(|e| DriverError::Io { context: "cannot create a temporary directory".into(), source: e })?;
    let level = inv.opt_level.unwrap_or(OptLevel::O2);
    let g = gather(inv, tc, tmp.path())?;

    let ad_object = tmp.path().join("enzyme-ad.o");
    let mut final_args = g.final_args.clone();
    if let Some(slot) = g.slot {
        final_args.insert(slot, ad_object.display().to_string());
    }
    let link_command = |args: &[String]| {
        let mut cmd = Command::new(&tc.linker);
        cmd.args(args);
        if let Some(o) = &inv.output {
            cmd.arg("-o").arg(o);
        }
        // A link through enzyme-fortran gets flang's runtime and libm, as through flang.
        if inv.language == crate::Language::Fortran {
            cmd.args(fortran_runtime_flags());
        }
        cmd
    };
    let mut link_cmd = link_command(&final_args);

    if inv.dry_run {
        if g.slot.is_some() {
            eprintln!(
                " \"{program}\" link-time AD: merge {} bitcode object(s) and {} archive member(s) | pre-AD: {} | differentiate | post-AD: {} | codegen -> \"{}\"",
                g.objects.len(),
                g.members.len(),
                pipeline::describe_pre_ad(level),
                pipeline::describe_post_ad(level),
                ad_object.display()
            );
        }
        eprintln!("{}", show(&link_cmd));
        return Ok(());
    }

    if g.slot.is_some() {
        let progress = Progress::new(program);
        let _watchdog = crate::watchdog::Watchdog::start(program, progress.1.clone(), tmp.path().to_path_buf())?;
        let ctx = Context::create();
        bitcode::capture_llvm_errors(&ctx);
        progress.phase("merging bitcode");
        let module = merge(&ctx, g.objects, g.members, !matches!(level, OptLevel::O0 | OptLevel::O1))?;
        // Derivatives of the library functions (BLAS, qsort) the program calls.
        for rules in crate::toolchain::find_library_rules() {
            bitcode::link_rules(&ctx, &module, &rules)?;
        }
        // Fortran code calls its runtime, which clang does not link by itself.
        let fortran = inv.language != crate::Language::Fortran
            && module.get_functions().any(|f| f.get_name().to_bytes().starts_with(b"_Fortran"));
        let parts = differentiate(&module, level, inv, &ad_object, &progress, &g.shared_libraries)?;
        if let (false, Some(slot)) = (parts.is_empty(), g.slot) {
            // Beside the main object: the same libraries resolve them all.
            for (k, p) in parts.iter().enumerate() {
                final_args.insert(slot + 1 + k, p.display().to_string());
            }
            link_cmd = link_command(&final_args);
        }
        if fortran {
            link_cmd.args(fortran_runtime_flags());
        }
    }
    let code = status(&mut link_cmd)?;
    if code != 0 {
        return Err(DriverError::ToolFailed { tool: "the final link (clang)".into(), code });
    }
    Ok(())
}

/// Classifies every input and library, compiling sources on the way.
fn gather(inv: &Invocation, tc: &Toolchain, tmp: &Path) -> Result<Gathered, DriverError> {
    let mut g = Gathered::default();
    for item in &inv.link_items {
        match item {
            LinkItem::Arg(a) => g.final_args.push(a.clone()),
            LinkItem::Input(k) => {
                let input = &inv.inputs[*k];
                match &input.kind {
                    InputKind::Source(lang) => {
                        let out = tmp.join(format!("input{k}.o"));
                        let fortran = crate::toolchain::is_fortran(lang);
                        let mut cmd = Command::new(tc.compiler_for(lang)?);
                        cmd.args(crate::args::compile_step_args(&inv.compile_flags, fortran))
                            .args(compile_flags(fortran))
                            .args(tc.include_flags_for(fortran));
                        if !fortran {
                            cmd.args(tc.plugin_flags()?);
                        }
                        if fortran {
                            // flang knows Fortran sources by their names.
                            cmd.args(["-c", &input.path, "-o"]).arg(&out);
                        } else {
                            cmd.args(["-c", "-x", lang, &input.path, "-o"]).arg(&out);
                        }
                        run_compile(&mut cmd, inv.dry_run)?;
                        if inv.dry_run {
                            g.mark_slot();
                            continue;
                        }
                        let bytes = read(&out)?;
                        g.mark_slot();
                        g.objects.push((input.path.clone(), bytes));
                    }
                    InputKind::Assembly(lang) => {
                        let out = tmp.join(format!("input{k}.o"));
                        let mut cmd = Command::new(&tc.compiler);
                        cmd.args(&inv.compile_flags).args(["-c", "-x", lang, &input.path, "-o"]).arg(&out);
                        run_compile(&mut cmd, inv.dry_run)?;
                        g.final_args.push(out.display().to_string());
                    }
                    InputKind::Object => {
                        let path = Path::new(&input.path);
                        let bytes = read(path)?;
                        let kind = if input.path.ends_with(".ll") {
                            ObjectKind::Bitcode // textual IR, parsed as such
                        } else {
                            bitcode::object_kind(&bytes)
                        };
                        match kind {
                            ObjectKind::Bitcode => {
                                g.mark_slot();
                                g.objects.push((input.path.clone(), bytes));
                            }
                            ObjectKind::Native => {
                                if is_shared_library_name(&input.path) {
                                    g.shared_libraries.push(path.to_path_buf());
                                }
                                g.final_args.push(input.path.clone())
                            }
                            ObjectKind::Unknown => {
                                return Err(DriverError::BadInput {
                                    path: path.to_path_buf(),
                                    message: "not an object file (neither LLVM bitcode nor ELF); is it corrupt?".into(),
                                })
                            }
                        }
                    }
                    InputKind::Archive => {
                        let path = Path::new(&input.path);
                        if !path.is_file() {
                            return Err(DriverError::BadInput { path: path.into(), message: "no such file".into() });
                        }
                        let contents = bitcode::read_archive(path)?;
                        if !contents.bitcode.is_empty() {
                            g.mark_slot();
                            g.members.extend(contents.bitcode);
                        }
                        if contents.has_native {
                            g.final_args.push(input.path.clone());
                        }
                    }
                    InputKind::LinkerInput => {
                        if is_shared_library_name(&input.path) {
                            g.shared_libraries.push(PathBuf::from(&input.path));
                        }
                        g.final_args.push(input.path.clone())
                    }
                }
            }
            LinkItem::Library(name) => {
                let found = find_static_archive(name, &inv.library_dirs);
                let contents = match &found {
                    Some(p) => Some(bitcode::read_archive(p)?),
                    None => None,
                };
                match contents {
                    Some(c) if !c.bitcode.is_empty() => {
                        g.mark_slot();
                        g.members.extend(c.bitcode);
                        if c.has_native {
                            g.final_args.push(format!("-l{name}"));
                        }
                    }
                    _ => {
                        let file = format!("lib{name}.so");
                        if let Some(so) = inv.library_dirs.iter().map(|d| d.join(&file)).find(|p| p.exists()) {
                            g.shared_libraries.push(so);
                        }
                        g.final_args.push(format!("-l{name}"))
                    }
                }
            }
        }
    }
    Ok(g)
}

fn run_compile(cmd: &mut Command, dry_run: bool) -> Result<(), DriverError> {
    if dry_run {
        eprintln!("{}", show(cmd));
        return Ok(());
    }
    let code = status(cmd)?;
    if code != 0 {
        return Err(DriverError::ToolFailed { tool: "compilation (clang)".into(), code });
    }
    Ok(())
}

fn read(path: &Path) -> Result<Vec<u8>, DriverError> {
    std::fs::read(path)
        .map_err(|e| DriverError::BadInput { path: path.to_path_buf(), message: format!("cannot read: {e}") })
}

/// Link flags for flang's runtime (`libflang_rt.runtime.a`, in clang's
/// resource directory), plus what it needs from the C++ runtime and libm.
fn fortran_runtime_flags() -> Vec<String> {
    let base = Path::new(crate::toolchain::LLVM_PREFIX).join("lib/clang");
    let dir = std::fs::read_dir(&base).into_iter().flatten().flatten().find_map(|version| {
        std::fs::read_dir(version.path().join("lib"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|target| target.path())
            .find(|p| p.join("libflang_rt.runtime.a").is_file())
    });
    let mut flags = Vec::new();
    if let Some(d) = dir {
        flags.push(format!("-L{}", d.display()));
    }
    flags.extend(["-lflang_rt.runtime", "-lm"].map(String::from));
    flags
}

/// `libx.so`, `libx.so.1.2`.
fn is_shared_library_name(path: &str) -> bool {
    let file = Path::new(path).file_name().and_then(|f| f.to_str()).unwrap_or(path);
    file.ends_with(".so") || file.contains(".so.")
}

/// Says, for each function the engine found no body for, which of the
/// user's shared libraries defines it: its body is machine code there, which
/// no bitcode link can see, and "compile it with enzyme-cc" would mislead.
fn explain_missing_bodies(diags: &mut [ad::Diagnostic], shared_libraries: &[PathBuf]) {
    for d in diags {
        let Some(name) = &d.missing_body else { continue };
        let Some(lib) = shared_libraries.iter().find(|l| bitcode::defines_dynamic_symbol(l, name)) else { continue };
        let lib = lib.display();
        d.help = Some(format!(
            "`{name}` is defined in the shared library {lib}, linked as machine code: its body cannot be seen at this \
             link, however it was compiled. Link the objects or a static archive it was built from (compiled with \
             enzyme-cc) instead, or give it a derivative rule{}",
            ad::rule_example(name)
        ));
    }
}

/// A user's static archive for `-l<name>` in the `-L` directories, unless a
/// shared library of that name comes first (as the linker would choose).
fn find_static_archive(name: &str, dirs: &[PathBuf]) -> Option<PathBuf> {
    if let Some(file) = name.strip_prefix(':') {
        return dirs.iter().map(|d| d.join(file)).find(|p| p.is_file() && file.ends_with(".a"));
    }
    for d in dirs {
        if d.join(format!("lib{name}.so")).exists() {
            return None;
        }
        let a = d.join(format!("lib{name}.a"));
        if a.is_file() {
            return Some(a);
        }
    }
    None
}

/// Merges bitcode objects, then archive members as long as they resolve
/// undefined symbols.
fn merge<'ctx>(
    ctx: &'ctx Context,
    objects: Vec<(String, Vec<u8>)>,
    members: Vec<Member>,
    optimised: bool,
) -> Result<Module<'ctx>, DriverError> {
    let merged = ctx.create_module("enzyme-link");
    let mut first = true;
    for (name, bytes) in &objects {
        let m = bitcode::parse(ctx, bytes, name)?;
        bitcode::soften_marker_definitions(&m);
        focus::mark_finished(&m, optimised);
        if first {
            // Take the target and data layout of the program.
            merged.set_triple(&m.get_triple());
            merged.set_data_layout(&m.get_data_layout());
            first = false;
        }
        bitcode::link(&merged, m, name)?;
    }
    let mut pending: Vec<(String, Module<'ctx>, std::collections::HashSet<String>)> = Vec::new();
    for member in &members {
        let m = bitcode::parse(ctx, &member.bytes, &member.name)?;
        bitcode::soften_marker_definitions(&m);
        focus::mark_finished(&m, optimised);
        let (defined, _) = bitcode::symbols(&m);
        pending.push((member.name.clone(), m, defined));
    }
    loop {
        let (defined, undefined) = bitcode::symbols(&merged);
        let needed =
            pending.iter().position(|(_, _, defs)| defs.iter().any(|d| undefined.contains(d) && !defined.contains(d)));
        let Some(k) = needed else { break };
        let (name, m, _) = pending.remove(k);
        if first {
            merged.set_triple(&m.get_triple());
            merged.set_data_layout(&m.get_data_layout());
            first = false;
        }
        bitcode::link(&merged, m, &name)?;
    }
    Ok(merged)
}

/// A spinner naming the link step's phase, on a terminal only (a build
/// system capturing our output sees nothing of it); the phase also goes to
/// the watchdog.
struct Progress(Option<indicatif::ProgressBar>, crate::watchdog::Phase);

impl Progress {
    fn new(program: &str) -> Progress {
        use std::io::IsTerminal;
        let phase = crate::watchdog::Phase::default();
        if !std::io::stderr().is_terminal() {
            return Progress(None, phase);
        }
        let bar = indicatif::ProgressBar::new_spinner();
        if let Ok(style) =
            indicatif::ProgressStyle::with_template(&format!("{{spinner}} {program}: {{msg}} {{elapsed}}"))
        {
            bar.set_style(style);
        }
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
        Progress(Some(bar), phase)
    }

    fn phase(&self, what: &str) {
        if let Ok(mut p) = self.1.lock() {
            *p = what.to_string();
        }
        if let Some(b) = &self.0 {
            b.set_message(what.to_string());
        }
    }

    /// Removes the spinner before anything else is printed.
    fn clear(&self) {
        if let Some(b) = &self.0 {
            b.finish_and_clear();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.clear();
    }
}

/// Pre-AD pipeline, AD, post-AD pipeline, verification and code generation.
fn differentiate(
    module: &Module<'_>,
    level: OptLevel,
    inv: &Invocation,
    out: &Path,
    progress: &Progress,
    shared_libraries: &[PathBuf],
) -> Result<Vec<PathBuf>, DriverError> {
    let program = program_name(inv.language);
    let dump = std::env::var_os("ENZYME_DUMP_IR").map(PathBuf::from);
    let tm = pipeline::target_machine(module, level)?;
    // `ENZYME_TIME=1`: each phase's wall time on stderr (for bench/); a path
    // instead of 1 appends them to that file (cargo hides a linker's stderr).
    let timing = std::env::var_os("ENZYME_TIME").filter(|v| !v.is_empty());
    let mut clock = std::time::Instant::now();
    let mut lap = |what: &str| {
        if let Some(t) = &timing {
            let line = format!("{program}: {what}: {:.1} ms", clock.elapsed().as_secs_f64() * 1e3);
            if t == "1" {
                eprintln!("{line}");
            } else {
                use std::io::Write;
                let file = std::fs::OpenOptions::new().create(true).append(true).open(t);
                if let Ok(mut f) = file {
                    let _ = writeln!(f, "{line}");
                }
            }
        }
        clock = std::time::Instant::now();
    };
    // Registered functions must reach the engine as calls, not inlined.
    if let Err(diags) = ad::read_registrations(module) {
        progress.clear();
        anstream::eprint!("{}", report::render(&diags, program, focus::made_by_rustc(module)));
        return Err(DriverError::Differentiation(diags.len()));
    }
    // The pipelines work where derivatives are (see `focus`).
    let (pre_skip, post_skip) = (
        focus::irrelevant(module, &focus::relevant(module, false), false),
        focus::irrelevant(module, &focus::relevant(module, true), true),
    );
    if pipeline::ad_before_optimisation() {
        lap("pre-AD pipeline skipped (ENZYME_AD_BEFORE_OPT)");
    } else {
        progress.phase("optimising before differentiation");
        let held = focus::hold_back(module, &pre_skip);
        let result = pipeline::pre_ad(module, &tm, level);
        focus::release(module, held);
        result?;
        lap("pre-AD pipeline");
    }
    if let Some(d) = &dump {
        let _ = module.print_to_file(d.join("before-ad.ll"));
    }
    let options = ad::Options {
        report_activity: inv.print_activity,
        keep_clones_on_error: dump.is_some(),
        runtime_activity: inv.runtime_activity,
        ablation: pipeline::ablation()?,
    };
    progress.phase("differentiating");
    let result = ad::differentiate_with(module, &options);
    lap("differentiate");
    if result.is_err() || inv.verbose || inv.print_activity {
        progress.clear();
    }
    match result {
        Ok(summary) => {
            if inv.verbose {
                for c in &summary.calls {
                    eprintln!("{program}: differentiated: {c}");
                }
            }
            for report in &summary.activity {
                eprint!("{report}");
            }
        }
        Err(mut diags) => {
            if let Some(d) = &dump {
                let _ = module.print_to_file(d.join("failed-ad.ll"));
            }
            explain_missing_bodies(&mut diags, shared_libraries);
            anstream::eprint!("{}", report::render(&diags, program, focus::made_by_rustc(module)));
            return Err(DriverError::Differentiation(diags.len()));
        }
    }
    if let Some(d) = &dump {
        let _ = module.print_to_file(d.join("after-ad.ll"));
    }
    if let Err(e) = module.verify() {
        return Err(DriverError::Internal(format!(
            "the differentiated module is invalid: {}",
            first_lines(&e.to_string(), 6)
        )));
    }
    progress.phase("optimising the derivatives");
    // Large derivatives optimised and compiled on threads of their own (see `parallel_post_ad`).
    let derivative_parts = if inv.sanitize_address || dump.is_some() {
        Vec::new()
    } else {
        crate::parallel_post_ad::split(module, level, out)
    };
    crate::pipeline::parts_running(!derivative_parts.is_empty());
    let (derivative_objects, rest) = std::thread::scope(|s| {
        let handles: Vec<_> = derivative_parts
            .iter()
            .map(|p| s.spawn(move || crate::parallel_post_ad::optimise_and_compile(p, level)))
            .collect();
        let rest =
            optimise_and_compile_rest(module, &tm, level, inv, out, &post_skip, dump.as_deref(), progress, &mut lap);
        let objects: Result<Vec<PathBuf>, DriverError> = handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(DriverError::Internal("the post-AD pipeline of a part panicked".into())))
            })
            .collect();
        (objects, rest)
    });
    crate::pipeline::parts_running(false);
    let mut parts = rest?;
    let derivative_objects = derivative_objects?;
    if !derivative_objects.is_empty() {
        let k = derivative_objects.len();
        lap(&format!("derivatives optimised and compiled apart ({k} {})", if k == 1 { "part" } else { "parts" }));
    }
    parts.extend(derivative_objects);
    Ok(parts)
}

/// The post-AD pipeline, sanitizers and code generation of the module
/// (less the derivatives `parallel_post_ad` moved out); returns the other
/// objects code generation wrote beside `out`.
#[allow(clippy::too_many_arguments)]
fn optimise_and_compile_rest(
    module: &Module<'_>,
    tm: &inkwell::targets::TargetMachine,
    level: OptLevel,
    inv: &Invocation,
    out: &Path,
    post_skip: &[String],
    dump: Option<&Path>,
    progress: &Progress,
    lap: &mut impl FnMut(&str),
) -> Result<Vec<PathBuf>, DriverError> {
    let held = focus::hold_back(module, post_skip);
    let result = pipeline::post_ad(module, tm, level);
    focus::release(module, held);
    focus::clear_marks(module);
    result?;
    lap("post-AD pipeline");
    if inv.sanitize_address {
        pipeline::address_sanitizer(module, tm)?;
        lap("AddressSanitizer");
    }
    if let Some(d) = dump {
        let _ = module.print_to_file(d.join("final.ll"));
    }
    progress.phase("generating code");
    // Huge derivatives, and parts of a large module, get objects of their own (see `split_codegen`).
    let (parts, huge) = crate::split_codegen::emit_objects(module, level, out)?;
    lap("code generation");
    if huge {
        // Said (with no time of its own) for tests and bench/.
        lap("huge derivatives compiled apart");
    }
    if parts.len() > usize::from(huge) {
        lap(&format!("code generated in {} parts", parts.len() + 1));
    }
    Ok(parts)
}

fn first_lines(s: &str, n: usize) -> String {
    s.lines().take(n).collect::<Vec<_>>().join("\n")
}
