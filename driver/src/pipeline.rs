//! The optimisation pipelines around the AD pass, and code generation.
//!
//! Differentiating after optimisation is the point of the design: the pre-AD
//! pipeline is the usual `default<On>` with vectorisation and unrolling held
//! back (they would hand the engine vector code for no gain); the post-AD
//! pipeline is the full `default<On>`, which also inlines and cleans up the
//! derivatives (stack slots to registers, dead primal work removed).

use std::path::Path;

use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetMachine, TargetTriple};
use inkwell::OptimizationLevel;

use crate::args::OptLevel;
use crate::error::DriverError;

/// The ablation switch `ENZYME_AD_BEFORE_OPT=1` (for `bench/`): C and C++
/// are compiled to unoptimised bitcode, nothing runs before
/// differentiation, and the full pipeline runs only after it, which shows
/// what differentiating after optimisation gains. Not for users' builds.
pub fn ad_before_optimisation() -> bool {
    std::env::var_os("ENZYME_AD_BEFORE_OPT").is_some_and(|v| !v.is_empty() && v != "0")
}

/// The ablation switch `ENZYME_ABLATE=lever,...` (for `bench/`): the engine's
/// speed levers named are switched off (`tape-reuse`, `bounded-tapes`, `tape-scope`; see
/// [`ad::Ablation`]). Not for users' builds.
pub fn ablation() -> Result<ad::Ablation, DriverError> {
    let mut a = ad::Ablation::default();
    let Some(v) = std::env::var_os("ENZYME_ABLATE") else { return Ok(a) };
    for lever in v.to_string_lossy().split(',').map(str::trim).filter(|l| !l.is_empty()) {
        match lever {
            "tape-reuse" => a.no_tape_reuse = true,
            "bounded-tapes" => a.no_bounded_tapes = true,
            "tape-scope" => a.no_tape_scope = true,
            other => {
                return Err(DriverError::Usage(format!(
                    "ENZYME_ABLATE: unknown lever `{other}` (known: tape-reuse, bounded-tapes, tape-scope)"
                )))
            }
        }
    }
    Ok(a)
}

/// The pass pipeline text for a level.
fn pipeline_text(level: OptLevel) -> &'static str {
    match level {
        OptLevel::O0 => "",
        OptLevel::O1 => "default<O1>",
        OptLevel::O2 => "default<O2>",
        OptLevel::O3 => "default<O3>",
        OptLevel::Os => "default<Os>",
        OptLevel::Oz => "default<Oz>",
    }
}

/// What runs before differentiation, as a pipeline string (for `-###`).
pub fn describe_pre_ad(level: OptLevel) -> String {
    if ad_before_optimisation() {
        return "none (ENZYME_AD_BEFORE_OPT)".into();
    }
    match pipeline_text(level) {
        "" => "none".into(),
        p => format!("{p} without vectorisation or unrolling"),
    }
}

/// What runs after differentiation, as a pipeline string (for `-###`).
pub fn describe_post_ad(level: OptLevel) -> String {
    match pipeline_text(level) {
        "" => POST_AD_O0.into(),
        p => p.into(),
    }
}

/// At -O0 the user's functions are `optnone` and untouched; only the
/// generated derivatives get their stack slots promoted.
const POST_AD_O0: &str = "function(sroa,early-cse)";

/// A target machine for the module's triple.
pub fn target_machine(module: &Module<'_>, level: OptLevel) -> Result<TargetMachine, DriverError> {
    Target::initialize_native(&InitializationConfig::default()).map_err(DriverError::Llvm)?;
    let triple = module.get_triple();
    let triple = if triple.as_str().to_bytes().is_empty() { TargetMachine::get_default_triple() } else { triple };
    let target = Target::from_triple(&triple)
        .map_err(|e| DriverError::Llvm(format!("no code generator for target `{}`: {e}", triple_str(&triple))))?;
    let opt = match level {
        OptLevel::O0 => OptimizationLevel::None,
        OptLevel::O1 => OptimizationLevel::Less,
        OptLevel::O3 => OptimizationLevel::Aggressive,
        _ => OptimizationLevel::Default,
    };
    // The CPU and features come from each function's attributes (set by clang from -march).
    target
        .create_target_machine(&triple, "", "", opt, RelocMode::PIC, CodeModel::Default)
        .ok_or_else(|| DriverError::Llvm(format!("cannot create a target machine for `{}`", triple_str(&triple))))
}

fn triple_str(t: &TargetTriple) -> String {
    t.as_str().to_string_lossy().into_owned()
}

/// Sets LLVM's global vectoriser switches. The pass-builder tuning options
/// of the C API do not keep the SLP vectoriser out of `default<On>` on LLVM
/// 22 (checked: scalar code still came out vectorised), while these options
/// do; they are read when the passes run, so each phase sets its own.
fn set_vectorizers(enabled: bool) {
    let flags = [format!("-vectorize-slp={enabled}"), format!("-vectorize-loops={enabled}")];
    let owned: Vec<std::ffi::CString> = std::iter::once("enzyme-rs".to_string())
        .chain(flags)
        .map(|s| std::ffi::CString::new(s).expect("no NUL"))
        .collect();
    let argv: Vec<*const std::ffi::c_char> = owned.iter().map(|s| s.as_ptr()).collect();
    unsafe { llvm_sys::support::LLVMParseCommandLineOptions(argv.len() as i32, argv.as_ptr(), std::ptr::null()) };
}

fn run(module: &Module<'_>, tm: &TargetMachine, passes: &str, pre_ad: bool) -> Result<(), DriverError> {
    if passes.is_empty() {
        return Ok(());
    }
    set_vectorizers(!pre_ad);
    let opts = PassBuilderOptions::create();
    if pre_ad {
        opts.set_loop_vectorization(false);
        opts.set_loop_slp_vectorization(false);
        opts.set_loop_unrolling(false);
    }
    module
        .run_passes(passes, tm, opts)
        .map_err(|e| DriverError::Llvm(format!("optimisation pipeline `{passes}` failed: {e}")))
}

/// The pipeline before differentiation.
pub fn pre_ad(module: &Module<'_>, tm: &TargetMachine, level: OptLevel) -> Result<(), DriverError> {
    run(module, tm, pipeline_text(level), true)
}

/// The pipeline after differentiation.
pub fn post_ad(module: &Module<'_>, tm: &TargetMachine, level: OptLevel) -> Result<(), DriverError> {
    match pipeline_text(level) {
        "" => run(module, tm, POST_AD_O0, false),
        p => run(module, tm, p, false),
    }
}

/// AddressSanitizer over the whole module, derivatives included: every
/// function with a body is marked for instrumentation (what clang does for
/// `-fsanitize=address` when it compiles) and LLVM's `asan` pass runs.
pub fn address_sanitizer(module: &Module<'_>, tm: &TargetMachine) -> Result<(), DriverError> {
    let kind = inkwell::attributes::Attribute::get_named_enum_kind_id("sanitize_address");
    let ctx = module.get_context();
    for f in module.get_functions() {
        if f.count_basic_blocks() > 0 {
            f.add_attribute(inkwell::attributes::AttributeLoc::Function, ctx.create_enum_attribute(kind, 0));
        }
    }
    let opts = PassBuilderOptions::create();
    module
        .run_passes("asan", tm, opts)
        .map_err(|e| DriverError::Llvm(format!("AddressSanitizer instrumentation failed: {e}")))
}

/// Writes a native object file.
pub fn emit_object(module: &Module<'_>, tm: &TargetMachine, path: &Path) -> Result<(), DriverError> {
    tm.write_to_file(module, FileType::Object, path)
        .map_err(|e| DriverError::Llvm(format!("code generation failed: {e}")))
}
