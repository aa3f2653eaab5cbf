//! The post-AD pipeline in parallel parts: large derivatives optimised and
//! compiled on threads of their own.
//!
//! After differentiation most of a program's new code is in derivatives
//! that the post-AD pipeline keeps out of line (large ones, or many called
//! from one function: [`crate::pipeline::derivatives_kept_apart`]), and the pipeline's work on a
//! function does not depend on the other functions beyond inlining its
//! callees. So on a machine with cores to spare, each large derivative can be
//! optimised and compiled in a module of its own, beside the rest of the
//! program, as LLVM's ThinLTO back ends work: the derivative's module holds
//! internal copies of the functions it calls (so the inliner sees them as it
//! would in the whole module), and declarations of everything else; the
//! globals and the functions whose addresses it takes are shared with the
//! rest as hidden symbols (see [`crate::split_codegen`]). The derivative is a
//! declaration in the rest. Each part yields an object for the final link.
//!
//! Not done (the whole module goes through the pipeline as before) at -O0,
//! on one core, with AddressSanitizer or `ENZYME_DUMP_IR` (whose `final.ll`
//! shows the whole optimised module), for Rust (whose already optimised code
//! is held back function by function), or with
//! `ENZYME_ABLATE=parallel-post-ad`. A derivative of thousands of
//! straight-line statements, which code generation compiles apart by its
//! fast path, stays in the module.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::values::{AsValueRef, FunctionValue};
use llvm_sys::core::*;
use llvm_sys::prelude::LLVMValueRef;

use crate::args::OptLevel;
use crate::error::DriverError;
use crate::split_codegen::{
    make_shared, part_module_with_copies, referenced_globals_and_block_addresses, to_declaration,
};

/// Modules of fewer instructions than this are optimised on one thread.
pub const PARALLEL_MODULE: usize = 2_000;

/// The most parts beside the rest of the program.
pub const MAX_PARTS: usize = 3;

/// One large derivative's module (or several), as bitcode, and the object it becomes.
pub struct Part {
    bitcode: Vec<u8>,
    path: PathBuf,
}

/// Which of the derivatives kept out of line (`apart`) go into which part
/// (the rest stays in the module), for `threads` threads and modules of at
/// least `least` instructions: largest first into the lightest part, the
/// rest of the module counting as one part.
fn plan(module: &Module<'_>, threads: usize, least: usize, apart: &[FunctionValue<'_>]) -> Vec<Vec<String>> {
    if threads < 2 || unsafe { !LLVMGetFirstGlobalAlias(module.as_mut_ptr()).is_null() } {
        return Vec::new();
    }
    let total: usize = module.get_functions().map(crate::pipeline::instruction_count).sum();
    let mut candidates: Vec<(usize, String)> = Vec::new();
    for &f in apart {
        // Those code generation compiles apart keep that fast path (see `split_codegen`).
        if f.count_basic_blocks() > 0 && !crate::split_codegen::is_huge(f) && movable(f) {
            candidates.push((crate::pipeline::instruction_count(f), f.get_name().to_string_lossy().into_owned()));
        }
    }
    if total < least || candidates.is_empty() {
        return Vec::new();
    }
    let rest = total - candidates.iter().map(|c| c.0).sum::<usize>();
    crate::split_codegen::spread(candidates, threads.min(MAX_PARTS + 1), rest)
}

/// Whether derivative `f` may move into a module of its own: one code
/// generation could compile apart ([`crate::split_codegen::movable`]) that
/// takes no block's address.
fn movable(f: FunctionValue<'_>) -> bool {
    let (referenced, block_addresses) = referenced_globals_and_block_addresses(f);
    !block_addresses && crate::split_codegen::movable(f, &referenced)
}

/// The functions a part copies (those its functions call directly,
/// transitively, with bodies, not moved into any part), with the constant
/// data they read ([`constant_data`]), and the globals it shares with the
/// rest (everything else its functions and copies refer to).
fn closure(
    module: &Module<'_>,
    part: &[String],
    moved: &HashSet<String>,
) -> Option<(HashSet<String>, Vec<LLVMValueRef>)> {
    let mut copies: HashSet<String> = HashSet::new();
    let mut shared: Vec<LLVMValueRef> = Vec::new();
    let mut work: Vec<FunctionValue<'_>> = part.iter().filter_map(|n| module.get_function(n)).collect();
    let mut called_only: HashSet<LLVMValueRef> = HashSet::new();
    let mut by_address: HashSet<LLVMValueRef> = HashSet::new();
    while let Some(f) = work.pop() {
        let (referenced, block_addresses) = referenced_globals_and_block_addresses(f);
        if block_addresses {
            return None;
        }
        // Functions named other than as a direct callee keep one address: shared, not copied.
        crate::focus::for_each_instruction(f, |i| unsafe {
            let is_call = !LLVMIsACallInst(i).is_null() || !LLVMIsAInvokeInst(i).is_null();
            let operands = LLVMGetNumOperands(i) as u32;
            for k in 0..operands {
                let op = LLVMGetOperand(i, k);
                let callee_slot = is_call && k + 1 == operands;
                if !LLVMIsAFunction(op).is_null() {
                    if callee_slot {
                        called_only.insert(op);
                    } else {
                        by_address.insert(op);
                    }
                }
            }
        });
        for g in referenced {
            unsafe {
                if !LLVMIsAGlobalAlias(g).is_null() || !LLVMIsAGlobalIFunc(g).is_null() {
                    return None;
                }
                if LLVMIsAFunction(g).is_null() {
                    if constant_data(g) {
                        copies.insert(crate::focus::name_of(g));
                    } else {
                        shared.push(g);
                    }
                    continue;
                }
            }
            // SAFETY: `g` is a function of this module (checked above).
            let callee = unsafe { FunctionValue::new(g) }.expect("a function");
            let name = callee.get_name().to_string_lossy().into_owned();
            let plain_call = called_only.contains(&g) && !by_address.contains(&g);
            if part.contains(&name) {
                continue;
            }
            if moved.contains(&name) || !plain_call || callee.count_basic_blocks() == 0 || !copyable(callee) {
                shared.push(g);
            } else if copies.insert(name) {
                work.push(callee);
            }
        }
    }
    // A function copied before one of its addresses was found is shared after all.
    let addressed: Vec<String> = copies
        .iter()
        .filter(|n| module.get_function(n).is_some_and(|f| by_address.contains(&f.as_value_ref())))
        .cloned()
        .collect();
    for name in addressed {
        copies.remove(&name);
        shared.push(module.get_function(&name).expect("defined").as_value_ref());
    }
    Some((copies, shared))
}

/// Whether global `g` is constant data of the program's own whose address
/// means nothing (`unnamed_addr`: a table of coefficients, a string): a part
/// gets a copy, so that its optimiser reads the values (as it would in the
/// whole module) rather than loading them from a symbol it cannot see into.
/// Not where the data holds addresses (they would need sharing in turn).
fn constant_data(g: LLVMValueRef) -> bool {
    fn plain(c: LLVMValueRef) -> bool {
        unsafe {
            LLVMIsAGlobalValue(c).is_null()
                && LLVMIsAConstantExpr(c).is_null()
                && LLVMIsABlockAddress(c).is_null()
                && (0..LLVMGetNumOperands(c).max(0) as u32).all(|k| plain(LLVMGetOperand(c, k)))
        }
    }
    use llvm_sys::LLVMLinkage::*;
    unsafe {
        !LLVMIsAGlobalVariable(g).is_null()
            && LLVMIsDeclaration(g) == 0
            && LLVMIsGlobalConstant(g) != 0
            && LLVMIsThreadLocal(g) == 0
            && matches!(LLVMGetLinkage(g), LLVMInternalLinkage | LLVMPrivateLinkage)
            && LLVMGetUnnamedAddress(g) == llvm_sys::LLVMUnnamedAddr::LLVMGlobalUnnamedAddr
            && plain(LLVMGetInitializer(g))
    }
}

/// Whether a function's body may be copied into a part as an internal
/// function: not one the program may replace (weak definitions) and not a
/// block of a comdat group that other code must see as one.
fn copyable(f: FunctionValue<'_>) -> bool {
    use llvm_sys::LLVMLinkage::*;
    matches!(
        unsafe { LLVMGetLinkage(f.as_value_ref()) },
        LLVMExternalLinkage | LLVMInternalLinkage | LLVMPrivateLinkage | LLVMLinkOnceODRLinkage | LLVMWeakODRLinkage
    )
}

/// Moves the module's large derivatives into parts of their own, where
/// that pays (see the module's documentation): they are declarations in
/// `module` afterwards, and each part is to be optimised and compiled by
/// [`optimise_and_compile`] into an object beside `out`.
pub fn split(module: &Module<'_>, level: OptLevel, out: &Path) -> Vec<Part> {
    if matches!(level, OptLevel::O0)
        || crate::pipeline::driver_lever_ablated("parallel-post-ad")
        || crate::focus::made_by_rustc(module)
    {
        return Vec::new();
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let plan = plan(module, threads, PARALLEL_MODULE, &crate::pipeline::derivatives_kept_apart(module));
    let moved: HashSet<String> = plan.iter().flatten().cloned().collect();
    let mut closures = Vec::new();
    for part in &plan {
        match closure(module, part, &moved) {
            Some(c) => closures.push(c),
            None => return Vec::new(),
        }
    }
    let suffix = format!(".enzyme_rs.post_ad.{}", std::process::id());
    let mut parts = Vec::new();
    let mut moved_functions = Vec::new();
    for (k, (names, (copies, shared))) in plan.iter().zip(closures).enumerate() {
        let fs: Vec<FunctionValue<'_>> = names.iter().filter_map(|n| module.get_function(n)).collect();
        for g in shared.into_iter().chain(fs.iter().map(|f| f.as_value_ref())) {
            make_shared(g, &suffix);
        }
        let keep: HashSet<String> = fs.iter().map(|f| f.get_name().to_string_lossy().into_owned()).collect();
        let Some(bitcode) = part_module_with_copies(module, &keep, &copies) else {
            // Optimised with the rest after all (the shared symbols now hidden ones: harmless).
            return Vec::new();
        };
        parts.push(Part { bitcode, path: out.with_file_name(format!("enzyme-ad-derivatives{k}.o")) });
        moved_functions.extend(fs);
    }
    for f in moved_functions {
        to_declaration(module, f);
    }
    if !parts.is_empty() {
        crate::pipeline::prepare_post_ad(module);
    }
    parts
}

/// The post-AD pipeline and code generation of one part, on the calling
/// thread, in a context of its own; returns the object written.
pub fn optimise_and_compile(part: &Part, level: OptLevel) -> Result<PathBuf, DriverError> {
    let ctx = Context::create();
    let module = crate::split_codegen::read_part(&ctx, &part.bitcode)?;
    let tm = crate::pipeline::target_machine_initialised(&module, level)?;
    crate::pipeline::post_ad(&module, &tm, level)?;
    crate::pipeline::emit_object(&module, &tm, &part.path)?;
    Ok(part.path.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::split_codegen::tests::object_symbols;

    /// A derivative (kept out of line in these tests) that calls an
    /// internal helper (which reads constant coefficients) and a function
    /// whose address it also passes on, and reads an internal table whose
    /// address may matter; `main` calls it.
    const IR: &str = r#"
@table = internal constant [2 x double] [double 1.0, double 2.0]
@coefficients = private unnamed_addr constant [2 x double] [double 3.0, double 4.0]
define internal double @square(double %x) { %a = fmul double %x, %x
  %c = load double, ptr @coefficients
  %b = fmul double %a, %c
  ret double %b }
define internal double @callback(double %x) { %a = fadd double %x, 1.0
  ret double %a }
declare double @apply(ptr, double)
define internal double @diffe_f(double %x) { %a = call double @square(double %x)
  %b = load double, ptr @table
  %c = fmul double %a, %b
  %d = call double @callback(double %c)
  %e = call double @apply(ptr @callback, double %d)
  ret double %e }
define i32 @main() { %a = call double @diffe_f(double 1.0)
  %b = call double @square(double %a)
  %c = fptosi double %b to i32
  ret i32 %c }
"#;

    #[test]
    fn a_large_derivative_moves_with_copies_of_what_it_calls() {
        let ctx = Context::create();
        let m = crate::bitcode::parse(&ctx, IR.as_bytes(), "test.ll").expect("valid IR");
        let apart = [m.get_function("diffe_f").expect("defined")];
        let plan = plan(&m, 2, 1, &apart);
        assert_eq!(plan, [vec!["diffe_f".to_string()]]);
        assert!(super::plan(&m, 1, 1, &apart).is_empty());
        let moved: HashSet<String> = plan.iter().flatten().cloned().collect();
        let (copies, shared) = closure(&m, &plan[0], &moved).expect("a closure");
        assert_eq!(copies, HashSet::from(["square".to_string(), "coefficients".to_string()]));
        let names: HashSet<String> = shared.iter().map(|g| crate::focus::name_of(*g)).collect();
        // The callback's address is passed on: one copy of it, shared.
        assert_eq!(names, HashSet::from(["table".to_string(), "callback".to_string(), "apply".to_string()]));
    }

    #[test]
    fn the_part_and_the_rest_compile_into_objects_that_link() {
        let ctx = Context::create();
        let m = crate::bitcode::parse(&ctx, IR.as_bytes(), "test.ll").expect("valid IR");
        let dir = tempfile::tempdir().expect("temporary directory");
        let tm = crate::pipeline::target_machine(&m, OptLevel::O2).expect("target");
        let plan = plan(&m, 2, 1, &[m.get_function("diffe_f").expect("defined")]);
        let moved: HashSet<String> = plan.iter().flatten().cloned().collect();
        let (copies, shared) = closure(&m, &plan[0], &moved).expect("a closure");
        let f = m.get_function("diffe_f").expect("defined");
        for g in shared.into_iter().chain([f.as_value_ref()]) {
            make_shared(g, ".test");
        }
        let keep = HashSet::from(["diffe_f.test".to_string()]);
        let bitcode = part_module_with_copies(&m, &keep, &copies).expect("a valid part");
        to_declaration(&m, m.get_function("diffe_f.test").expect("renamed"));
        let part = Part { bitcode, path: dir.path().join("part.o") };
        optimise_and_compile(&part, OptLevel::O2).expect("the part compiles");
        let main_object = dir.path().join("main.o");
        crate::pipeline::write_object(&m, &tm, &main_object).expect("the rest compiles");
        let (main_syms, part_syms) = (object_symbols(&main_object), object_symbols(&part.path));
        assert!(part_syms.contains(&("diffe_f.test".to_string(), false)), "{part_syms:?}");
        assert!(main_syms.contains(&("diffe_f.test".to_string(), true)), "{main_syms:?}");
        assert!(main_syms.contains(&("table.test".to_string(), false)), "{main_syms:?}");
        assert!(part_syms.contains(&("table.test".to_string(), true)), "{part_syms:?}");
        assert!(main_syms.contains(&("callback.test".to_string(), false)), "{main_syms:?}");
        // `square` and its coefficients were copied (and folded): the part needs no symbol of them.
        assert!(!part_syms.iter().any(|(n, _)| n.starts_with("square") || n.contains("coefficients")), "{part_syms:?}");
    }
}
