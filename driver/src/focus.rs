//! Where the optimisation pipelines around the AD pass need to run.
//!
//! Most of a merged program has nothing to do with derivatives (a Rust
//! program brings std's formatting, panicking and backtrace code), and
//! re-optimising it twice is what made links slow. The functions that
//! matter are the ones calling `__enzyme_*` entry points, the functions
//! they pass to them, and everything those call ([`relevant`]). The
//! pre-AD pipeline runs only on them: the rest is optimised once, by the
//! post-AD pipeline. Code rustc already optimised at link-time (its fat LTO
//! output, [`mark_finished`]) is skipped by the post-AD pipeline too.
//! Skipping is done by marking the functions `optnone` and `noinline` for
//! the duration of one pipeline ([`hold_back`], [`release`]).

use std::collections::HashSet;

use inkwell::attributes::AttributeLoc;
use inkwell::module::Module;
use inkwell::values::{AsValueRef, FunctionValue};
use llvm_sys::core::*;
use llvm_sys::prelude::LLVMValueRef;

/// String attribute on functions that came from rustc's optimised output.
const FINISHED: &str = "enzyme-rs-optimised";

/// Tags every function defined in `m` as already optimised when `m` is
/// rustc's output at an optimising level (its `llvm.ident` names rustc and
/// its code was built with `opt_level` above 1), before it is merged.
pub fn mark_finished(m: &Module<'_>, optimised: bool) {
    if !optimised || !made_by_rustc(m) {
        return;
    }
    let ctx = m.get_context();
    for f in m.get_functions() {
        if f.count_basic_blocks() > 0 {
            f.add_attribute(AttributeLoc::Function, ctx.create_string_attribute(FINISHED, ""));
        }
    }
}

/// Whether `m` (or a module merged into it) was made by rustc: its
/// `llvm.ident` names rustc.
pub(crate) fn made_by_rustc(m: &Module<'_>) -> bool {
    unsafe {
        let name = c"llvm.ident";
        let module = m.as_mut_ptr();
        let n = LLVMGetNamedMetadataNumOperands(module, name.as_ptr());
        let mut nodes: Vec<LLVMValueRef> = vec![std::ptr::null_mut(); n as usize];
        LLVMGetNamedMetadataOperands(module, name.as_ptr(), nodes.as_mut_ptr());
        nodes.into_iter().any(|node| {
            let k = LLVMGetMDNodeNumOperands(node);
            let mut ops: Vec<LLVMValueRef> = vec![std::ptr::null_mut(); k as usize];
            LLVMGetMDNodeOperands(node, ops.as_mut_ptr());
            ops.into_iter().any(|s| {
                let mut len = 0;
                let p = if s.is_null() { std::ptr::null() } else { LLVMGetMDString(s, &mut len) };
                !p.is_null()
                    && std::str::from_utf8(std::slice::from_raw_parts(p as *const u8, len as usize))
                        .is_ok_and(|t| t.starts_with("rustc version"))
            })
        })
    }
}

/// The functions the AD pass works on or next to: callers of `__enzyme_*`
/// functions, the functions passed to those calls, and every function the
/// latter reach through direct references (calls, pointers passed on), plus
/// the functions named by `__enzyme_*` globals; with `rules` false, not
/// those named only by registrations of derivative rules
/// (`__enzyme_register_*`): the engine calls a rule and does not look
/// inside it, and the rule was optimised when it was compiled (the
/// pre-AD pipeline took twice as long on `tests/c/blas_triangular.c` with
/// the BLAS rules in it). The post-AD pipeline needs them (a rule is
/// inlined into the derivative that calls it).
pub fn relevant(module: &Module<'_>, rules: bool) -> HashSet<LLVMValueRef> {
    let mut out: HashSet<LLVMValueRef> = HashSet::new();
    let mut work: Vec<LLVMValueRef> = Vec::new();
    let is_enzyme = |v: LLVMValueRef| name_of(v).starts_with("__enzyme_");
    for f in module.get_functions() {
        for_each_instruction(f, |i| unsafe {
            if LLVMIsACallInst(i).is_null() && LLVMIsAInvokeInst(i).is_null() {
                return;
            }
            let callee = LLVMGetCalledValue(i);
            if LLVMIsAFunction(callee).is_null() || !is_enzyme(callee) {
                return;
            }
            out.insert(f.as_value_ref());
            for k in 0..LLVMGetNumArgOperands(i) {
                work.push(LLVMGetOperand(i, k));
            }
        });
    }
    for g in module.get_globals() {
        let name = name_of(g.as_value_ref());
        if name.starts_with("__enzyme_") && (rules || !name.starts_with(ad::RULE_REGISTRATION_PREFIX)) {
            if let Some(init) = g.get_initializer() {
                work.push(init.as_value_ref());
            }
        }
    }
    // Functions referenced from the seeds, through constants, and onwards.
    let mut seen: HashSet<LLVMValueRef> = HashSet::new();
    while let Some(v) = work.pop() {
        if v.is_null() || !seen.insert(v) {
            continue;
        }
        unsafe {
            if !LLVMIsAFunction(v).is_null() {
                if LLVMCountBasicBlocks(v) > 0 && out.insert(v) || out.contains(&v) {
                    let f = FunctionValue::new(v).expect("a function");
                    for_each_instruction(f, |i| {
                        for k in 0..LLVMGetNumOperands(i).max(0) as u32 {
                            let op = LLVMGetOperand(i, k);
                            if !op.is_null() && !LLVMIsAConstant(op).is_null() {
                                work.push(op);
                            }
                        }
                    });
                }
            } else if !LLVMIsAConstantExpr(v).is_null()
                || !LLVMIsAConstantStruct(v).is_null()
                || !LLVMIsAConstantArray(v).is_null()
            {
                for k in 0..LLVMGetNumOperands(v).max(0) as u32 {
                    work.push(LLVMGetOperand(v, k));
                }
            }
        }
    }
    out
}

/// Calls `visit` on every instruction of `f`, block by block.
pub(crate) fn for_each_instruction(f: FunctionValue<'_>, mut visit: impl FnMut(LLVMValueRef)) {
    for b in f.get_basic_block_iter() {
        let mut i = b.get_first_instruction();
        while let Some(ins) = i {
            visit(ins.as_value_ref());
            i = ins.get_next_instruction();
        }
    }
}

pub(crate) fn name_of(v: LLVMValueRef) -> String {
    unsafe {
        let mut len = 0;
        let p = LLVMGetValueName2(v, &mut len);
        if p.is_null() {
            return String::new();
        }
        String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len)).into_owned()
    }
}

/// The named functions with a body outside `relevant` (with `finished_only`,
/// only those rustc already optimised): what a pipeline can pass by.
pub fn irrelevant(module: &Module<'_>, relevant: &HashSet<LLVMValueRef>, finished_only: bool) -> Vec<String> {
    module
        .get_functions()
        .filter(|f| f.count_basic_blocks() > 0 && !relevant.contains(&f.as_value_ref()))
        .filter(|f| !finished_only || f.get_string_attribute(AttributeLoc::Function, FINISHED).is_some())
        .map(|f| f.get_name().to_string_lossy().into_owned())
        .filter(|n| !n.is_empty())
        .collect()
}

/// The attributes [`hold_back`] added, to be taken off by [`release`]:
/// each function's name, and whether `noinline` was added too.
pub struct Held {
    added: Vec<(String, bool)>,
}

/// The kind number of enum attribute `name`.
pub(crate) fn attribute_kind(name: &str) -> u32 {
    inkwell::attributes::Attribute::get_named_enum_kind_id(name)
}

/// Marks the functions named (those still there) `optnone` and `noinline`,
/// so a pipeline passes them by; functions already `optnone`, or
/// `alwaysinline` (which `noinline` contradicts), are left as they are.
pub fn hold_back(module: &Module<'_>, names: &[String]) -> Held {
    let ctx = module.get_context();
    let (optnone, noinline, alwaysinline) =
        (attribute_kind("optnone"), attribute_kind("noinline"), attribute_kind("alwaysinline"));
    let mut added = Vec::new();
    for name in names {
        let Some(f) = module.get_function(name) else { continue };
        let has = |k: u32| f.get_enum_attribute(AttributeLoc::Function, k).is_some();
        if f.count_basic_blocks() == 0 || has(optnone) || has(alwaysinline) {
            continue;
        }
        let add_noinline = !has(noinline);
        f.add_attribute(AttributeLoc::Function, ctx.create_enum_attribute(optnone, 0));
        if add_noinline {
            f.add_attribute(AttributeLoc::Function, ctx.create_enum_attribute(noinline, 0));
        }
        added.push((name.clone(), add_noinline));
    }
    Held { added }
}

/// Takes off what [`hold_back`] added, from the functions still there.
pub fn release(module: &Module<'_>, held: Held) {
    let (optnone, noinline) = (attribute_kind("optnone"), attribute_kind("noinline"));
    for (name, added_noinline) in held.added {
        let Some(f) = module.get_function(&name) else { continue };
        f.remove_enum_attribute(AttributeLoc::Function, optnone);
        if added_noinline {
            f.remove_enum_attribute(AttributeLoc::Function, noinline);
        }
    }
}

/// Takes [`mark_finished`]'s tags off again (after the last pipeline).
pub fn clear_marks(module: &Module<'_>) {
    for f in module.get_functions() {
        if f.get_string_attribute(AttributeLoc::Function, FINISHED).is_some() {
            f.remove_string_attribute(AttributeLoc::Function, FINISHED);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use inkwell::context::Context;

    const IR: &str = r#"
declare double @__enzyme_autodiff(ptr, double)
define double @helper(double %x) { %y = fmul double %x, %x
  ret double %y }
define double @target(double %x) { %y = call double @helper(double %x)
  ret double %y }
define double @requester(double %x) { %d = call double @__enzyme_autodiff(ptr @target, double %x)
  ret double %d }
define double @unrelated(double %x) { %y = fadd double %x, 1.0
  ret double %y }
define i32 @main() { %d = call double @requester(double 1.0)
  %u = call double @unrelated(double 2.0)
  ret i32 0 }
"#;

    fn names(m: &Module<'_>, set: &HashSet<LLVMValueRef>) -> Vec<String> {
        let mut v: Vec<String> = m
            .get_functions()
            .filter(|f| set.contains(&f.as_value_ref()))
            .map(|f| f.get_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn relevant_is_requesters_targets_and_what_targets_reach() {
        let ctx = Context::create();
        let m = crate::bitcode::parse(&ctx, IR.as_bytes(), "test.ll").expect("valid IR");
        let r = relevant(&m, true);
        assert_eq!(names(&m, &r), ["helper", "requester", "target"]);
        let mut skipped = irrelevant(&m, &r, false);
        skipped.sort();
        assert_eq!(skipped, ["main", "unrelated"]);
        // Nothing here came from rustc: the post-AD pipeline skips nothing.
        assert!(irrelevant(&m, &r, true).is_empty());
    }

    #[test]
    fn rules_are_relevant_to_the_post_ad_pipeline_only() {
        let ir = format!(
            "{IR}\n@__enzyme_register_gradient_helper = global [3 x ptr] [ptr @helper, ptr @aug, ptr @rev]\n\
             define ptr @aug(double %x) {{ ret ptr null }}\ndefine double @rev(double %x, ptr %t) {{ ret double %x }}\n"
        );
        let ctx = Context::create();
        let m = crate::bitcode::parse(&ctx, ir.as_bytes(), "test.ll").expect("valid IR");
        assert_eq!(names(&m, &relevant(&m, false)), ["helper", "requester", "target"]);
        assert_eq!(names(&m, &relevant(&m, true)), ["aug", "helper", "requester", "rev", "target"]);
    }

    #[test]
    fn held_back_functions_get_their_attributes_back() {
        let ctx = Context::create();
        let m = crate::bitcode::parse(&ctx, IR.as_bytes(), "test.ll").expect("valid IR");
        let unrelated = m.get_function("unrelated").expect("defined");
        let noinline = attribute_kind("noinline");
        let optnone = attribute_kind("optnone");
        let held = hold_back(&m, &["unrelated".to_string()]);
        assert!(unrelated.get_enum_attribute(AttributeLoc::Function, optnone).is_some());
        assert!(unrelated.get_enum_attribute(AttributeLoc::Function, noinline).is_some());
        release(&m, held);
        assert!(unrelated.get_enum_attribute(AttributeLoc::Function, optnone).is_none());
        assert!(unrelated.get_enum_attribute(AttributeLoc::Function, noinline).is_none());
    }
}
