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
/// speed levers named are switched off (`tape-reuse`, `bounded-tapes`, `tape-scope`,
/// `store-forwarding`, `settled-slots`, `exact-visits`, `entry-tables`, `sum-steps`; see
/// [`ad::Ablation`]; and the driver's `split-codegen`, `parallel-codegen` and
/// `parallel-post-ad`, see [`driver_lever_ablated`]).
/// Not for users' builds.
pub fn ablation() -> Result<ad::Ablation, DriverError> {
    let mut a = ad::Ablation::default();
    let Some(v) = std::env::var_os("ENZYME_ABLATE") else { return Ok(a) };
    for lever in v.to_string_lossy().split(',').map(str::trim).filter(|l| !l.is_empty()) {
        match lever {
            "tape-reuse" => a.no_tape_reuse = true,
            "bounded-tapes" => a.no_bounded_tapes = true,
            "tape-scope" => a.no_tape_scope = true,
            "store-forwarding" => a.no_store_forwarding = true,
            "settled-slots" => a.no_settled_slots = true,
            "exact-visits" => a.no_exact_visits = true,
            "entry-tables" => a.no_entry_tables = true,
            "sum-steps" => a.no_sum_steps = true,
            "split-codegen" | "parallel-codegen" | "parallel-post-ad" => {}
            other => {
                return Err(DriverError::Usage(format!(
                    "ENZYME_ABLATE: unknown lever `{other}` (known: tape-reuse, bounded-tapes, tape-scope, store-forwarding, settled-slots, exact-visits, entry-tables, sum-steps, split-codegen, parallel-codegen, parallel-post-ad)"
                )))
            }
        }
    }
    Ok(a)
}

/// Whether `ENZYME_ABLATE` names the driver's lever `lever`: `split-codegen`
/// (huge derivatives are compiled with the rest) or `parallel-codegen` (one
/// object, compiled on one thread), see [`crate::split_codegen`]; or
/// `parallel-post-ad` (large derivatives optimised with the rest, see
/// [`crate::parallel_post_ad`]).
pub fn driver_lever_ablated(lever: &str) -> bool {
    std::env::var_os("ENZYME_ABLATE").is_some_and(|v| v.to_string_lossy().split(',').any(|l| l.trim() == lever))
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
    target_machine_initialised(module, level)
}

/// [`target_machine`] once the native target is initialised (which is not
/// safe to do from several threads at once).
pub(crate) fn target_machine_initialised(module: &Module<'_>, level: OptLevel) -> Result<TargetMachine, DriverError> {
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
/// Switches already as asked are left alone: the post-AD pipeline runs on
/// several threads at once (see [`crate::parallel_post_ad`]), and options
/// must not be parsed while passes read them.
fn set_vectorizers(loops: bool, slp: bool) {
    static CURRENT: std::sync::Mutex<Option<(bool, bool)>> = std::sync::Mutex::new(None);
    let mut current = CURRENT.lock().unwrap_or_else(|e| e.into_inner());
    if *current != Some((loops, slp)) {
        // LLVM 22's SLP "copyable elements" broke valid derivative code
        // (an instruction no longer dominating its use, then a crash in code
        // generation: a random program of the differential tester); off, the
        // same programs vectorise without it.
        set_llvm_options(&[
            format!("-vectorize-slp={slp}"),
            format!("-vectorize-loops={loops}"),
            "-slp-copyable-elements=false".to_string(),
        ]);
        *current = Some((loops, slp));
    }
}

/// Sets the options the post-AD pipeline and code generation run with for
/// `module`, before threads that run them on parts of it start.
pub(crate) fn prepare_post_ad(module: &Module<'_>) {
    set_vectorizers(true, true);
    if !huge_functions(module).is_empty() {
        without_machine_scheduler();
    }
}

/// Whether parts of the post-AD pipeline run on other threads now.
static PARTS_RUNNING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Says that parts of the post-AD pipeline start (`true`) or have all
/// finished (`false`) running on other threads: LLVM's options must not
/// change meanwhile.
pub(crate) fn parts_running(running: bool) {
    PARTS_RUNNING.store(running, std::sync::atomic::Ordering::SeqCst);
}

/// The machine instruction scheduler off (see [`HUGE_FUNCTION`]), once: a
/// switch of the whole process, read by code generation on every thread.
fn without_machine_scheduler() {
    static DONE: std::sync::Once = std::sync::Once::new();
    DONE.call_once(|| set_llvm_options(&["-enable-misched=false".to_string()]));
}

fn set_llvm_options(flags: &[String]) {
    let owned: Vec<std::ffi::CString> = std::iter::once("enzyme-rs")
        .chain(flags.iter().map(String::as_str))
        .map(|s| std::ffi::CString::new(s).expect("no NUL"))
        .collect();
    let argv: Vec<*const std::ffi::c_char> = owned.iter().map(|s| s.as_ptr()).collect();
    unsafe { llvm_sys::support::LLVMParseCommandLineOptions(argv.len() as i32, argv.as_ptr(), std::ptr::null()) };
}

/// Derivatives of more instructions than this (as the engine made them) are
/// not inlined by the post-AD pipeline. The inliner takes any internal
/// function with one call site, and a derivative usually has one: inlined,
/// it is optimised twice (on its own, then again as part of its caller) and
/// its caller becomes one large function for the code generator. A test
/// program that differentiates six cases in `main` built in 0.72 s with
/// them inlined, 0.55 s without (`blas_triangular.c`), and a call costs
/// nothing beside such a function's work. The benchmarks' derivatives are
/// all smaller (the largest, fft's, about 1,200): they are inlined as before.
pub const LARGE_DERIVATIVE: usize = 1_000;

/// The number of instructions of function `f`.
pub(crate) fn instruction_count(f: inkwell::values::FunctionValue<'_>) -> usize {
    f.get_basic_blocks().iter().map(|b| b.get_instructions().count()).sum()
}

/// A function of the program (not a derivative) whose calls take
/// derivatives of more instructions than this
/// in all (each at most [`LARGE_DERIVATIVE`]) would become, with them all
/// inlined, one function too large for the code generator to spread over
/// threads: those over [`SMALL_DERIVATIVE`] stay out of line too. A test
/// program whose `main` calls 62 derivatives of 10,356 instructions in all
/// (`tests/c/higher_order.c`) made a `main` of 7,934 instructions. A
/// benchmark's caller takes one or two derivatives (at most 1,030
/// instructions in all), which stay inlined.
pub const MANY_DERIVATIVES: usize = 4_000;

/// See [`MANY_DERIVATIVES`]: a call costs nothing beside such a derivative's work.
pub const SMALL_DERIVATIVE: usize = 200;

/// The module's derivatives the post-AD pipeline keeps out of line: those
/// over [`LARGE_DERIVATIVE`] instructions, and those over
/// [`SMALL_DERIVATIVE`] that a function calls beside many others (see
/// [`MANY_DERIVATIVES`]); not those that must be inlined.
pub(crate) fn derivatives_kept_apart<'ctx>(module: &Module<'ctx>) -> Vec<inkwell::values::FunctionValue<'ctx>> {
    use crate::focus::attribute_kind;
    use inkwell::attributes::AttributeLoc;
    use inkwell::values::AsValueRef;
    use std::collections::{HashMap, HashSet};
    let mut sizes: HashMap<llvm_sys::prelude::LLVMValueRef, usize> = HashMap::new();
    for f in module.get_functions() {
        if ad::is_derivative_name(&f.get_name().to_string_lossy())
            && f.get_enum_attribute(AttributeLoc::Function, attribute_kind("alwaysinline")).is_none()
        {
            sizes.insert(f.as_value_ref(), instruction_count(f));
        }
    }
    let mut apart: HashSet<llvm_sys::prelude::LLVMValueRef> =
        sizes.iter().filter(|(_, n)| **n > LARGE_DERIVATIVE).map(|(f, _)| *f).collect();
    // The program's own functions: a derivative calling the derivatives of
    // its callees (perhaps in its loops) keeps them inlinable.
    for caller in module.get_functions().filter(|f| !ad::is_derivative_name(&f.get_name().to_string_lossy())) {
        let mut callees: HashSet<llvm_sys::prelude::LLVMValueRef> = HashSet::new();
        crate::focus::for_each_instruction(caller, |i| unsafe {
            use llvm_sys::core::*;
            if !LLVMIsACallInst(i).is_null() || !LLVMIsAInvokeInst(i).is_null() {
                let callee = LLVMGetCalledValue(i);
                if sizes.get(&callee).is_some_and(|n| *n <= LARGE_DERIVATIVE) {
                    callees.insert(callee);
                }
            }
        });
        if callees.iter().map(|f| sizes[f]).sum::<usize>() > MANY_DERIVATIVES {
            apart.extend(callees.into_iter().filter(|f| sizes[f] > SMALL_DERIVATIVE));
        }
    }
    module.get_functions().filter(|f| apart.contains(&f.as_value_ref())).collect()
}

/// Marks [`derivatives_kept_apart`] `noinline`.
fn keep_large_derivatives_apart(module: &Module<'_>) {
    use crate::focus::attribute_kind;
    use inkwell::attributes::AttributeLoc;
    let ctx = module.get_context();
    for f in derivatives_kept_apart(module) {
        f.add_attribute(AttributeLoc::Function, ctx.create_enum_attribute(attribute_kind("noinline"), 0));
    }
}

/// Functions of more instructions than this (the derivative of thousands of
/// straight-line statements) are optimised by [`HUGE_PIPELINE`] instead of
/// the level's pipeline, and compiled without the machine instruction
/// scheduler: the passes whose cost grows faster than a function's size
/// (the SLP vectoriser, dead-store elimination over memory SSA, the
/// scheduler) took most of the build time of such a function, for little
/// gain in code that is one long block. The benchmarks' functions are far
/// smaller.
const HUGE_FUNCTION: usize = 4_000;

/// What a huge derivative gets after differentiation: stack slots to
/// registers, common subexpressions and dead code gone, instructions
/// combined (about a quarter of `default<O2>`'s time on such a function).
const HUGE_PIPELINE: &str = "sroa,early-cse<memssa>,instcombine<no-verify-fixpoint>,simplifycfg";

/// The names of the module's functions over [`HUGE_FUNCTION`] instructions.
pub(crate) fn huge_functions(module: &Module<'_>) -> Vec<String> {
    module
        .get_functions()
        .filter(|f| instruction_count(*f) > HUGE_FUNCTION)
        .map(|f| f.get_name().to_string_lossy().into_owned())
        .collect()
}

fn run(module: &Module<'_>, tm: &TargetMachine, passes: &str, pre_ad: bool) -> Result<(), DriverError> {
    if passes.is_empty() {
        return Ok(());
    }
    set_vectorizers(!pre_ad, !pre_ad);
    let opts = PassBuilderOptions::create();
    if pre_ad {
        opts.set_loop_vectorization(false);
        opts.set_loop_slp_vectorization(false);
        opts.set_loop_unrolling(false);
    }
    // An optimiser bug that leaves invalid code would crash code generation:
    // a clear error instead, where the code was valid before (rustc's
    // modules may carry attribute combinations the verifier objects to and
    // code generation accepts).
    let valid_before = !pre_ad && module.verify().is_ok();
    module
        .run_passes(passes, tm, opts)
        .map_err(|e| DriverError::Llvm(format!("optimisation pipeline `{passes}` failed: {e}")))?;
    crate::bitcode::reported_llvm_errors(&format!("optimisation pipeline `{passes}` failed"))?;
    if !valid_before {
        return Ok(());
    }
    module.verify().map_err(|e| {
        DriverError::Llvm(format!(
            "LLVM's optimisation pipeline `{passes}` left invalid code (a bug in LLVM, not in the program): {}; \
             building with -O1 may avoid it",
            e.to_string().lines().next().unwrap_or("")
        ))
    })
}

/// The pipeline before differentiation.
pub fn pre_ad(module: &Module<'_>, tm: &TargetMachine, level: OptLevel) -> Result<(), DriverError> {
    run(module, tm, pipeline_text(level), true)
}

/// The pipeline after differentiation. Huge functions are held back from
/// it and get [`HUGE_PIPELINE`] of their own.
pub fn post_ad(module: &Module<'_>, tm: &TargetMachine, level: OptLevel) -> Result<(), DriverError> {
    let passes = pipeline_text(level);
    if passes.is_empty() {
        return run(module, tm, POST_AD_O0, false);
    }
    keep_large_derivatives_apart(module);
    let huge = huge_functions(module);
    if huge.is_empty() {
        return run(module, tm, passes, false);
    }
    let held = crate::focus::hold_back(module, &huge);
    let result = run(module, tm, passes, false);
    crate::focus::release(module, held);
    result?;
    let light = std::ffi::CString::new(HUGE_PIPELINE).expect("no NUL");
    for name in &huge {
        let Some(f) = module.get_function(name) else { continue };
        let opts = PassBuilderOptions::create();
        let err = unsafe {
            llvm_sys::transforms::pass_builder::LLVMRunPassesOnFunction(
                inkwell::values::AsValueRef::as_value_ref(&f),
                light.as_ptr(),
                tm.as_mut_ptr(),
                opts.as_mut_ptr(),
            )
        };
        if !err.is_null() {
            let message = unsafe {
                let m = llvm_sys::error::LLVMGetErrorMessage(err);
                let text = std::ffi::CStr::from_ptr(m).to_string_lossy().into_owned();
                llvm_sys::error::LLVMDisposeErrorMessage(m);
                text
            };
            return Err(DriverError::Llvm(format!("optimisation pipeline `{HUGE_PIPELINE}` failed: {message}")));
        }
    }
    Ok(())
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

/// Writes a native object file (without the machine instruction scheduler
/// when a function is huge, and with its addresses spread over several
/// bases: see [`HUGE_FUNCTION`] and [`spread_address_bases`]).
pub fn emit_object(module: &Module<'_>, tm: &TargetMachine, path: &Path) -> Result<(), DriverError> {
    prepare_codegen(module);
    write_object(module, tm, path)
}

/// What [`emit_object`] does before code generation: the machine scheduler
/// off where a function is huge (a switch of the whole process: call it
/// before code generation starts on other threads; while parts of the
/// post-AD pipeline run on other threads, see [`parts_running`], a function
/// that became huge there keeps the scheduler, which only makes its code
/// generation slower), and [`spread_address_bases`].
pub(crate) fn prepare_codegen(module: &Module<'_>) {
    if !huge_functions(module).is_empty() && !PARTS_RUNNING.load(std::sync::atomic::Ordering::SeqCst) {
        without_machine_scheduler();
    }
    for f in module.get_functions() {
        spread_address_bases(f);
    }
}

/// Code generation of a module [`prepare_codegen`] has seen.
pub(crate) fn write_object(module: &Module<'_>, tm: &TargetMachine, path: &Path) -> Result<(), DriverError> {
    tm.write_to_file(module, FileType::Object, path)
        .map_err(|e| DriverError::Llvm(format!("code generation failed: {e}")))?;
    crate::bitcode::reported_llvm_errors("code generation failed")
}

/// Addresses computed from one base in one block, at most, before the next
/// ones are computed from a copy of it, in a block that computes more than
/// [`MANY_ADDRESSES`] from it.
const ADDRESSES_PER_BASE: usize = 32;

/// Addresses from one base in one block past which the code generator's
/// cost grows fast (a tape record of hundreds of fields; the benchmarks'
/// blocks stay far below).
const MANY_ADDRESSES: usize = 128;

/// Gives the addresses that a block computes from one pointer, where it
/// computes many (the record of a tape: thousands of fields of one loop
/// iteration), a fresh copy of the pointer every [`ADDRESSES_PER_BASE`], through an empty inline
/// assembly statement that the code generator cannot see through. Its
/// instruction selector and DAG combiner compare the memory accesses of one
/// base with one another (measured: 2,000 statements' derivative took 2.3 s
/// with one base, 0.6 s with these copies, where the copy costs nothing: a
/// register move at most). Nothing runs on the IR after this but code
/// generation.
fn spread_address_bases(f: inkwell::values::FunctionValue<'_>) {
    use llvm_sys::core::*;
    use std::collections::HashMap;
    let ctx = f.get_type().get_context();
    unsafe {
        let ctx = inkwell::context::AsContextRef::as_ctx_ref(&ctx);
        let ptr = LLVMPointerTypeInContext(ctx, 0);
        let mut params = [ptr];
        let fn_ty = LLVMFunctionType(ptr, params.as_mut_ptr(), 1, 0);
        let (text, constraints) = ("", "=r,0");
        let asm = LLVMGetInlineAsm(
            fn_ty,
            text.as_ptr().cast(),
            text.len(),
            constraints.as_ptr().cast(),
            constraints.len(),
            0,
            0,
            llvm_sys::LLVMInlineAsmDialect::LLVMInlineAsmDialectATT,
            0,
        );
        let memory = LLVMGetEnumAttributeKindForName(c"memory".as_ptr(), 6);
        let nounwind = LLVMGetEnumAttributeKindForName(c"nounwind".as_ptr(), 8);
        let builder = LLVMCreateBuilderInContext(ctx);
        // The base of an address worth spreading. (A constant base folds
        // into the addresses, and a vector of pointers has no single base.)
        let base_of = |i: llvm_sys::prelude::LLVMValueRef| {
            if LLVMGetInstructionOpcode(i) != llvm_sys::LLVMOpcode::LLVMGetElementPtr {
                return None;
            }
            let base = LLVMGetOperand(i, 0);
            (LLVMIsConstant(base) == 0 && LLVMTypeOf(base) == ptr).then_some(base)
        };
        for block in f.get_basic_blocks() {
            let mut uses: HashMap<llvm_sys::prelude::LLVMValueRef, usize> = HashMap::new();
            let mut i = LLVMGetFirstInstruction(block.as_mut_ptr());
            while !i.is_null() {
                if let Some(base) = base_of(i) {
                    *uses.entry(base).or_default() += 1;
                }
                i = LLVMGetNextInstruction(i);
            }
            if uses.values().all(|n| *n <= MANY_ADDRESSES) {
                continue;
            }
            // Per base: addresses computed from it so far, and the copy in use.
            let mut bases: HashMap<llvm_sys::prelude::LLVMValueRef, (usize, Option<llvm_sys::prelude::LLVMValueRef>)> =
                HashMap::new();
            let mut i = LLVMGetFirstInstruction(block.as_mut_ptr());
            while !i.is_null() {
                let base = base_of(i).filter(|b| uses[b] > MANY_ADDRESSES);
                if let Some(base) = base {
                    let (count, copy) = bases.entry(base).or_insert((0, None));
                    *count += 1;
                    if *count % ADDRESSES_PER_BASE == 0 {
                        LLVMPositionBuilderBefore(builder, i);
                        let mut args = [base];
                        let c = LLVMBuildCall2(builder, fn_ty, asm, args.as_mut_ptr(), 1, c"base".as_ptr());
                        // memory(none): it reads and writes nothing.
                        LLVMAddCallSiteAttribute(
                            c,
                            llvm_sys::LLVMAttributeFunctionIndex,
                            LLVMCreateEnumAttribute(ctx, memory, 0),
                        );
                        LLVMAddCallSiteAttribute(
                            c,
                            llvm_sys::LLVMAttributeFunctionIndex,
                            LLVMCreateEnumAttribute(ctx, nounwind, 0),
                        );
                        *copy = Some(c);
                    }
                    if let Some(c) = copy {
                        LLVMSetOperand(i, 0, *c);
                    }
                }
                i = LLVMGetNextInstruction(i);
            }
        }
        LLVMDisposeBuilder(builder);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use inkwell::context::Context;

    /// A function storing `n` doubles at offsets of one pointer, in one block.
    fn stores(n: usize) -> String {
        let mut ir = String::from("define void @f(ptr %p, double %x) {\n");
        for k in 0..n {
            ir.push_str(&format!("  %a{k} = getelementptr i8, ptr %p, i64 {}\n  store double %x, ptr %a{k}\n", 8 * k));
        }
        ir.push_str("  ret void\n}\n");
        ir
    }

    fn bases(m: &Module<'_>) -> (usize, usize) {
        let text = m.print_to_string().to_string();
        (text.matches("call ptr asm").count(), text.matches("getelementptr i8, ptr %p,").count())
    }

    #[test]
    fn many_addresses_of_one_base_get_copies_of_it() {
        let ctx = Context::create();
        let m = crate::bitcode::parse(&ctx, stores(200).as_bytes(), "test.ll").expect("valid IR");
        let f = m.get_function("f").expect("defined");
        spread_address_bases(f);
        assert!(m.verify().is_ok(), "{}", m.verify().unwrap_err());
        // 200 addresses: the first 31 from %p, then a copy for each 32.
        assert_eq!(bases(&m), (200 / ADDRESSES_PER_BASE, ADDRESSES_PER_BASE - 1));
    }

    #[test]
    fn few_addresses_of_one_base_are_left_alone() {
        let ctx = Context::create();
        let m = crate::bitcode::parse(&ctx, stores(MANY_ADDRESSES).as_bytes(), "test.ll").expect("valid IR");
        let f = m.get_function("f").expect("defined");
        spread_address_bases(f);
        assert_eq!(bases(&m), (0, MANY_ADDRESSES));
    }
}
