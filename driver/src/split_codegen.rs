//! Code generation of huge derivatives apart from the rest of the program.
//!
//! The derivative of a function of thousands of straight-line statements is
//! one block of tens of thousands of instructions, and LLVM's optimising
//! code generator (greedy register allocation, two-address rewriting,
//! stack-slot colouring) is superlinear in a block's size: such a derivative
//! took four times as long to compile as clang's whole build of the
//! program. Its code is spills and reloads either way (its values all live
//! across the reverse sweep), and the code generator's fast path (fast
//! instruction selection and register allocation) compiled one ten times as
//! fast into code that ran as fast (measured on `bench/scaling.sh`'s
//! programs). So derivatives over [`SPLIT_FUNCTION`] instructions with a
//! block over [`SPLIT_BLOCK`] move into a module of their own, compiled without code-generation optimisations
//! into a second object; the rest is compiled as before. The functions and
//! globals they share become hidden symbols of the two objects.

use std::path::Path;

use inkwell::module::{Linkage, Module};
use inkwell::targets::{FileType, TargetMachine};
use inkwell::values::{AsValueRef, FunctionValue};
use llvm_sys::core::*;
use llvm_sys::prelude::LLVMValueRef;

use crate::error::DriverError;

/// Derivatives of more instructions than this are compiled apart. The
/// benchmarks' derivatives are far smaller (their largest functions are
/// under 2,000 lines of IR); the derivative of 2,000 straight-line
/// statements is about 11,000 instructions.
pub const SPLIT_FUNCTION: usize = 8_000;

/// ... and only if one block has more than this: the code generator's cost
/// is superlinear in a block's size, and straight-line code is what its fast
/// path compiles as well (a derivative with loops of moderate blocks keeps
/// the optimising code generator, which keeps values in registers there).
pub const SPLIT_BLOCK: usize = 4_000;

/// Whether `f` is over [`SPLIT_FUNCTION`] instructions with a block over [`SPLIT_BLOCK`].
fn is_huge(f: FunctionValue<'_>) -> bool {
    let sizes: Vec<usize> = f.get_basic_blocks().iter().map(|b| b.get_instructions().count()).collect();
    sizes.iter().sum::<usize>() > SPLIT_FUNCTION && sizes.iter().any(|n| *n > SPLIT_BLOCK)
}

/// Whether `name` is one the engine gives the derivatives it generates.
fn is_derivative(name: &str) -> bool {
    ["diffe", "fwddiffe", "augmented_", "fwdsplit_"].iter().any(|p| name.starts_with(p))
}

/// The names of the module's huge derivatives, if they can be compiled
/// apart (no aliases or interfaces among what they use, no comdat).
pub fn huge_derivatives(module: &Module<'_>) -> Vec<String> {
    module
        .get_functions()
        .filter(|f| {
            let name = f.get_name().to_string_lossy();
            is_derivative(&name) && is_huge(*f) && f.as_global_value().get_comdat().is_none()
        })
        .filter(|f| {
            referenced_globals(*f)
                .iter()
                .all(|g| unsafe { LLVMIsAGlobalAlias(*g).is_null() && LLVMIsAGlobalIFunc(*g).is_null() })
        })
        .map(|f| f.get_name().to_string_lossy().into_owned())
        .collect()
}

/// The globals (functions, variables, aliases) function `f` refers to,
/// through constant expressions, and its personality function.
fn referenced_globals(f: FunctionValue<'_>) -> Vec<LLVMValueRef> {
    let mut out: Vec<LLVMValueRef> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut work: Vec<LLVMValueRef> = Vec::new();
    unsafe {
        if LLVMHasPersonalityFn(f.as_value_ref()) != 0 {
            work.push(LLVMGetPersonalityFn(f.as_value_ref()));
        }
    }
    crate::focus::for_each_instruction(f, |i| unsafe {
        work.extend((0..LLVMGetNumOperands(i)).map(|k| LLVMGetOperand(i, k as u32)));
    });
    while let Some(v) = work.pop() {
        if v.is_null() || !seen.insert(v) {
            continue;
        }
        unsafe {
            if !LLVMIsAGlobalValue(v).is_null() {
                out.push(v);
            } else if !LLVMIsAConstant(v).is_null() {
                work.extend((0..LLVMGetNumOperands(v)).map(|k| LLVMGetOperand(v, k as u32)));
            }
        }
    }
    out
}

/// Replaces function `f` of `module` by a declaration of the same name,
/// type, calling convention and linkage.
fn to_declaration<'ctx>(module: &Module<'ctx>, f: FunctionValue<'ctx>) {
    let name = f.get_name().to_string_lossy().into_owned();
    if unsafe { LLVMGetFirstUse(f.as_value_ref()).is_null() } {
        unsafe { f.delete() };
        return;
    }
    let decl = module.add_function(&format!("{name}.declared"), f.get_type(), Some(Linkage::External));
    decl.set_call_conventions(f.get_call_conventions());
    unsafe {
        LLVMSetVisibility(decl.as_value_ref(), LLVMGetVisibility(f.as_value_ref()));
        LLVMReplaceAllUsesWith(f.as_value_ref(), decl.as_value_ref());
        f.delete();
    }
    decl.as_global_value().set_name(&name);
}

/// Compiles `module` into `path`, and its huge derivatives (if any) apart
/// into `apart` without code-generation optimisations; returns whether
/// `apart` was written (if the module of the huge derivatives cannot be
/// made, everything is compiled into `path` as usual).
pub fn emit_objects(
    module: &Module<'_>,
    tm: &TargetMachine,
    fast_tm: &TargetMachine,
    path: &Path,
    apart: &Path,
) -> Result<bool, DriverError> {
    // Aliases would alias declarations in one of the two modules.
    let has_aliases = unsafe { !LLVMGetFirstGlobalAlias(module.as_mut_ptr()).is_null() };
    let huge =
        if has_aliases || crate::pipeline::split_codegen_ablated() { Vec::new() } else { huge_derivatives(module) };
    if huge.is_empty() {
        crate::pipeline::emit_object(module, tm, path)?;
        return Ok(false);
    }
    // Everything the huge functions share with the rest, visible to both objects.
    let suffix = format!(".enzyme_rs.{}", std::process::id());
    let huge_values: Vec<FunctionValue<'_>> = huge.iter().filter_map(|n| module.get_function(n)).collect();
    for &f in &huge_values {
        let mut shared = referenced_globals(f);
        shared.push(f.as_value_ref());
        for g in shared {
            unsafe {
                use llvm_sys::LLVMLinkage::*;
                if matches!(LLVMGetLinkage(g), LLVMInternalLinkage | LLVMPrivateLinkage) {
                    let old = std::ffi::CStr::from_ptr(LLVMGetValueName2(g, &mut 0)).to_string_lossy().into_owned();
                    let new = std::ffi::CString::new(format!("{old}{suffix}")).expect("no NUL");
                    LLVMSetValueName2(g, new.as_ptr(), new.as_bytes().len());
                    LLVMSetLinkage(g, LLVMExternalLinkage);
                    LLVMSetVisibility(g, llvm_sys::LLVMVisibility::LLVMHiddenVisibility);
                }
            }
        }
    }
    // Their names now (renamed where they were internal).
    let huge: Vec<String> = huge_values.iter().map(|f| f.get_name().to_string_lossy().into_owned()).collect();
    let apart_module = module.clone();
    // The huge functions' module: only them defined.
    let keep: std::collections::HashSet<&str> = huge.iter().map(String::as_str).collect();
    let others: Vec<FunctionValue<'_>> = apart_module
        .get_functions()
        .filter(|f| f.count_basic_blocks() > 0 && !keep.contains(f.get_name().to_str().unwrap_or("")))
        .collect();
    for f in others {
        to_declaration(&apart_module, f);
    }
    let globals: Vec<_> = apart_module.get_globals().collect();
    for g in globals {
        let name = g.get_name().to_string_lossy().into_owned();
        unsafe {
            let v = g.as_value_ref();
            if LLVMGetLinkage(v) == llvm_sys::LLVMLinkage::LLVMAppendingLinkage || name.starts_with("llvm.") {
                LLVMDeleteGlobal(v);
            } else if LLVMIsDeclaration(v) == 0 {
                if LLVMGetFirstUse(v).is_null() {
                    LLVMDeleteGlobal(v);
                } else {
                    // Its debug description stays with its definition (else the
                    // second object's debug information names a symbol it lacks).
                    LLVMGlobalEraseMetadata(
                        v,
                        LLVMGetMDKindIDInContext(LLVMGetModuleContext(apart_module.as_mut_ptr()), c"dbg".as_ptr(), 3),
                    );
                    LLVMSetInitializer(v, std::ptr::null_mut());
                    LLVMSetLinkage(v, llvm_sys::LLVMLinkage::LLVMExternalLinkage);
                    llvm_sys::comdat::LLVMSetComdat(v, std::ptr::null_mut());
                }
            }
        }
    }
    if apart_module.verify().is_err() {
        // Compiled together after all (the shared symbols now hidden ones: harmless).
        crate::pipeline::emit_object(module, tm, path)?;
        return Ok(false);
    }
    // The rest: the huge functions declared.
    for name in &huge {
        if let Some(f) = module.get_function(name) {
            to_declaration(module, f);
        }
    }
    crate::pipeline::emit_object(module, tm, path)?;
    fast_tm
        .write_to_file(&apart_module, FileType::Object, apart)
        .map_err(|e| DriverError::Llvm(format!("code generation of huge derivatives failed: {e}")))?;
    Ok(true)
}
