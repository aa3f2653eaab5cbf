//! What each instruction means to differentiation, decided once by an
//! exhaustive match on the opcode ([`crate::prepare::checks`] turns what is
//! unsupported into diagnostics).

use llvm_sys::core::*;
use llvm_sys::LLVMOpcode;

pub(crate) use crate::ir::kind::{contains_float, Kind, Reduction};
use crate::ir::names::display_name;
use crate::ir::{self, Type, Value};
use crate::rules;

fn unsupported(what: impl Into<String>, help: impl Into<String>) -> Kind {
    Kind::Unsupported { what: what.into(), help: help.into() }
}

/// Whether a value's type holds floats but is neither a float nor a
/// fixed-width float vector (a struct, an array, a scalable vector).
fn is_float_aggregate(t: Type) -> bool {
    contains_float(t) && !ir::is_real(t)
}

pub(crate) const MEMORY_HELP: &str =
    "parameters and results of differentiated functions (and of recursive calls) must be \
     floats, integers or pointers; pass structs and vectors by pointer";

/// Classifies one instruction of a (preprocessed) function.
pub(crate) fn classify(i: Value) -> Kind {
    use LLVMOpcode::*;
    let ty = ir::type_of(i);
    let op = ir::opcode(i);
    if is_float_aggregate(ty) && !matches!(op, LLVMCall) {
        return unsupported(
            format!("`{}` producing aggregate floating-point type `{}`", opcode_name(op), ir::print_type(ty)),
            "struct and array floating-point values held in registers are not supported yet",
        );
    }
    match op {
        LLVMRet => Kind::Return,
        LLVMBr | LLVMSwitch | LLVMUnreachable => Kind::Inactive,
        LLVMIndirectBr | LLVMCallBr => unsupported(
            format!("indirect control flow (`{}`)", opcode_name(op)),
            "computed gotos and `asm goto` cannot be differentiated",
        ),
        LLVMInvoke | LLVMResume | LLVMLandingPad | LLVMCleanupRet | LLVMCatchRet | LLVMCatchPad
        | LLVMCleanupPad | LLVMCatchSwitch => unsupported(
            format!("exception handling (`{}`)", opcode_name(op)),
            "exceptions are not supported yet in differentiated code; mark callees `noexcept` or compile with -fno-exceptions",
        ),
        LLVMFNeg | LLVMFAdd | LLVMFSub | LLVMFMul | LLVMFDiv | LLVMFRem => {
            match rules::for_instruction(opcode_name(op)) {
                Some(r) => Kind::Rule(r),
                None => unsupported(format!("`{}`", opcode_name(op)), "no derivative rule"),
            }
        }
        LLVMAdd | LLVMSub | LLVMMul | LLVMUDiv | LLVMSDiv | LLVMURem | LLVMSRem | LLVMShl | LLVMLShr
        | LLVMAShr | LLVMAnd | LLVMOr | LLVMXor => Kind::Inactive,
        // Integer atomics (flags, counters, lazily set keys) carry no
        // derivative: ordinary integer accesses to the engine. An atomic
        // load of a float (`#pragma omp atomic read`) is a load whose tangent
        // is read atomically too and whose adjoint is added atomically in a
        // parallel region; an atomic store's reverse would have to know which
        // of the threads storing to one place stored last.
        LLVMStore if ir::is_atomic(i) && !is_integer_access(i) => unsupported(
            "atomic store of a float or pointer (`#pragma omp atomic write`, C11 `atomic_store`)".to_string(),
            "write the value with a plain store where each thread writes its own place, or use forward mode",
        ),
        LLVMLoad if ir::is_atomic(i) && !ir::is_real(ir::type_of(i)) && !is_integer_access(i) => unsupported(
            "atomic load of a pointer".to_string(),
            "atomic loads of pointers are not supported yet",
        ),
        LLVMLoad => Kind::Load,
        LLVMStore => Kind::Store,
        LLVMGetElementPtr => Kind::Gep,
        LLVMAlloca => Kind::Alloca,
        LLVMFence => Kind::Inactive,
        LLVMAtomicRMW if is_atomic_float_add(i) => Kind::AtomicAdd,
        LLVMAtomicCmpXchg | LLVMAtomicRMW => unsupported(
            format!("atomic memory operation (`{}`)", opcode_name(op)),
            "of atomics, only floating-point `atomicrmw fadd`/`fsub` whose old value is unused are differentiated \
             (`#pragma omp atomic` of `x += v`)",
        ),
        LLVMVAArg => unsupported("`va_arg`", "variadic functions are not supported yet"),
        LLVMAddrSpaceCast => Kind::PtrCast,
        LLVMTrunc | LLVMZExt | LLVMSExt | LLVMPtrToInt | LLVMPtrToAddr | LLVMIntToPtr => Kind::Inactive,
        // Integer-valued results: derivative zero almost everywhere.
        LLVMFPToUI | LLVMFPToSI => Kind::Inactive,
        // Floats made from integers do not depend on any float input.
        LLVMUIToFP | LLVMSIToFP => Kind::Inactive,
        LLVMFPTrunc | LLVMFPExt => Kind::FloatCast,
        LLVMBitCast => {
            let src = ir::type_of(ir::operand(i, 0));
            if ir::is_pointer(src) && ir::is_pointer(ty) {
                Kind::PtrCast
            } else if ir::is_float(src) && ir::is_int(ty) && crate::ir::compared_reads::only_inspected(i) {
                // A float's bits only compared (`total_cmp`): no derivative.
                Kind::Inactive
            } else if contains_float(src) || contains_float(ty) {
                unsupported(
                    "`bitcast` reinterpreting floating-point bits",
                    "bit-level manipulation of floats cannot be differentiated; write it with floating-point operations (`fabs`, `copysign`, arithmetic)",
                )
            } else {
                Kind::Inactive
            }
        }
        LLVMICmp | LLVMFCmp => Kind::Inactive,
        LLVMPHI => Kind::Phi,
        LLVMSelect => {
            if ir::is_real(ty) || ir::is_pointer(ty) {
                Kind::Select
            } else {
                Kind::Inactive
            }
        }
        LLVMCall => classify_call(i),
        LLVMUserOp1 | LLVMUserOp2 => unsupported("internal user operation", "this instruction should not appear in IR"),
        LLVMExtractElement | LLVMInsertElement | LLVMShuffleVector
            if ir::vector_lanes(ir::type_of(ir::operand(i, 0))).is_some() =>
        {
            Kind::Lanes
        }
        LLVMExtractValue | LLVMInsertValue if ir::is_float_aggregate(ir::type_of(ir::operand(i, 0))) => Kind::Lanes,
        LLVMExtractElement | LLVMInsertElement | LLVMShuffleVector | LLVMExtractValue | LLVMInsertValue => {
            let any_float = contains_float(ty)
                || (0..ir::operand_count(i)).any(|k| contains_float(ir::type_of(ir::operand(i, k))));
            if any_float {
                unsupported(
                    format!("`{}` on floating-point vectors or aggregates", opcode_name(op)),
                    "vector and struct floating-point values are not supported yet",
                )
            } else {
                Kind::Inactive
            }
        }
        LLVMFreeze => {
            if ir::is_real(ty) {
                Kind::Identity
            } else {
                Kind::Inactive
            }
        }
    }
}

/// Whether a load or store moves an integer (or integer vector).
fn is_integer_access(i: Value) -> bool {
    let t =
        if ir::opcode(i) == llvm_sys::LLVMOpcode::LLVMLoad { ir::type_of(i) } else { ir::type_of(ir::operand(i, 0)) };
    ir::int_lanes(t).is_some()
}

/// Library functions that neither produce floats nor write memory that
/// could hold them: safe to execute as they are, once.
const INACTIVE_LIBRARY: &[&str] = &[
    "printf",
    "fprintf",
    "vprintf",
    "vfprintf",
    "puts",
    "fputs",
    "putchar",
    "fputc",
    "putc",
    "fflush",
    "fwrite",
    "perror",
    "strlen",
    "strcmp",
    "strncmp",
    "memcmp",
    "bcmp",
    "strchr",
    "strrchr",
    "strstr",
    "atoi",
    "atol",
    // What the optimiser makes of `atoi`/`atol`; an end pointer it writes
    // points into the characters.
    "strtol",
    "strtoll",
    "strtoul",
    "strtoull",
    "getenv",
    "time",
    "clock",
    "clock_gettime",
    "gettimeofday",
    "rand",
    "srand",
    "__errno_location",
    "sysconf",
    "getpid",
    // MPI's queries and barriers: no data moves (communication has rules,
    // `wrappers/rules/mpi`).
    "MPI_Comm_rank",
    "MPI_Comm_size",
    "MPI_Barrier",
    "MPI_Initialized",
    // What a receive's status says (element counts): integers only.
    "MPI_Get_count",
    "MPI_Get_elements",
    // The same in Fortran (`include 'mpif.h'`).
    "mpi_comm_rank_",
    "mpi_comm_size_",
    "mpi_barrier_",
    "mpi_initialized_",
    "mpi_get_count_",
    "mpi_get_elements_",
    // Random bytes for hash keys (Rust's `HashMap`), written to integer memory.
    "getrandom",
    "getentropy",
    "fputs_unlocked",
    // C++ stream output (`std::cout << x << std::endl`), libstdc++'s names.
    "_ZNSolsEd",
    "_ZNSolsEf",
    "_ZNSolsEe",
    "_ZNSolsEi",
    "_ZNSolsEj",
    "_ZNSolsEl",
    "_ZNSolsEm",
    "_ZNSolsEPFRSoS_E",
    "_ZNSo9_M_insertIdEERSoT_",
    "_ZNSo9_M_insertIlEERSoT_",
    "_ZNSo9_M_insertImEERSoT_",
    "_ZNSo3putEc",
    "_ZNSo5flushEv",
    "_ZStlsISt11char_traitsIcEERSt13basic_ostreamIcT_ES5_PKc",
    "_ZStlsISt11char_traitsIcEERSt13basic_ostreamIcT_ES5_c",
    "_ZSt16__ostream_insertIcSt11char_traitsIcEERSt13basic_ostreamIT_T0_ES6_PKS3_l",
    "_ZSt4endlIcSt11char_traitsIcEERSt13basic_ostreamIT_T0_ES6_",
    "_ZNKSt5ctypeIcE13_M_widen_initEv",
    // `std::unordered_map`'s bucket-count policy and string hashing: integer
    // results from sizes, counts and key bytes (the policy's float is its
    // maximum load factor, not data).
    "_ZNKSt8__detail20_Prime_rehash_policy14_M_need_rehashEmmm",
    "_ZNKSt8__detail20_Prime_rehash_policy11_M_next_bktEm",
    "_ZSt11_Hash_bytesPKvmm",
    "_ZSt15_Fnv_hash_bytesPKvmm",
];

/// An MPI function of the C bindings.
pub(crate) fn is_c_mpi(name: &str) -> bool {
    name.starts_with("MPI_") || name.starts_with("PMPI_")
}

/// What to do instead of a call to flang's runtime: the runtime's moves and
/// reallocating assignments happen at every level, its array intrinsics only
/// at -O0.
fn flang_runtime_hint(name: &str) -> &'static str {
    match name {
        "_FortranAMoveAlloc" => {
            "`move_alloc` hands an allocation over inside flang's runtime, which has no derivative; allocate the \
             destination and copy into it (`u(:) = t(:)`), or keep using the first array"
        }
        "_FortranAAssign" | "_FortranAAssignTemporary" => {
            "assigning a whole array to an allocatable (`t = x * x`) may reallocate it, which flang leaves to its \
             runtime at every level (at -O0, every array assignment); assign to a section (`t(:) = x * x`) and \
             compile with -O1 or higher, or write the loop out"
        }
        _ => {
            "flang calls its runtime for array intrinsics and whole-array assignments at -O0; compile with -O1 \
             or higher, where it writes them as loops, or write the loop out"
        }
    }
}

/// An MPI function of the Fortran bindings (`mpi_send_`).
pub(crate) fn is_fortran_mpi(name: &str) -> bool {
    name.starts_with("mpi_") && name.ends_with('_')
}

/// OpenMP runtime calls with no effect on derivatives: worksharing bounds
/// (integers written to the caller's slots, static or dynamic schedules),
/// thread numbers, barriers, and the entries and exits of `single`,
/// `master`/`masked` and `critical` (forward mode keeps the tangents' code
/// in the same order, inside the same sections).
pub(crate) const INACTIVE_RUNTIME: &[&str] = &[
    "__kmpc_for_static_init_4",
    "__kmpc_for_static_init_4u",
    "__kmpc_for_static_init_8",
    "__kmpc_for_static_init_8u",
    "__kmpc_for_static_fini",
    "__kmpc_dispatch_init_4",
    "__kmpc_dispatch_init_4u",
    "__kmpc_dispatch_init_8",
    "__kmpc_dispatch_init_8u",
    "__kmpc_dispatch_next_4",
    "__kmpc_dispatch_next_4u",
    "__kmpc_dispatch_next_8",
    "__kmpc_dispatch_next_8u",
    "__kmpc_dispatch_fini_4",
    "__kmpc_dispatch_fini_4u",
    "__kmpc_dispatch_fini_8",
    "__kmpc_dispatch_fini_8u",
    "__kmpc_dispatch_deinit",
    "__kmpc_single",
    "__kmpc_end_single",
    "__kmpc_master",
    "__kmpc_end_master",
    "__kmpc_masked",
    "__kmpc_end_masked",
    "__kmpc_critical",
    "__kmpc_critical_with_hint",
    "__kmpc_end_critical",
    "__kmpc_global_thread_num",
    "__kmpc_barrier",
    "omp_get_thread_num",
    "omp_get_num_threads",
    "omp_get_max_threads",
];

/// compiler-rt's complex multiplication and division, which clang calls
/// unless told the operands are finite.
const COMPLEX_HELPERS: &[&str] = &["__muldc3", "__divdc3", "__mulsc3", "__divsc3", "__mulxc3", "__divxc3"];

/// Intrinsics that never carry a derivative.
const INACTIVE_INTRINSICS: &[&str] = &[
    "llvm.dbg.",
    "llvm.lifetime.",
    "llvm.assume",
    "llvm.expect",
    "llvm.experimental.noalias.scope.decl",
    "llvm.donothing",
    "llvm.prefetch",
    "llvm.invariant.",
    "llvm.sideeffect",
    "llvm.is.constant",
    "llvm.trap",
    "llvm.ubsantrap",
    "llvm.pseudoprobe",
    "llvm.var.annotation",
    "llvm.annotation",
    "llvm.fake.use",
    "llvm.is.fpclass",
];

fn classify_call(call: Value) -> Kind {
    let Some(callee) = ir::called_function(call) else {
        let floats = contains_float(ir::type_of(call))
            || (0..ir::call_arg_count(call)).any(|k| contains_float(ir::type_of(ir::operand(call, k))));
        if let Some(asm) = ir::inline_asm_text(call).filter(|_| floats) {
            return unsupported(
                format!("inline assembly `{asm}` on floating-point values"),
                "assembly has no derivative here; write the computation in the source language, or give the \
                 function holding it a rule (__enzyme_register_gradient_*, or #[custom_reverse] in Rust)",
            );
        }
        if crate::calls::dispatch::has_no_candidates(call) {
            if !floats {
                // Code outside the program (a shared library's virtual function),
                // given no floats: it runs as it is; `memory` checks that no
                // differentiated memory is passed to it.
                return Kind::LibCall;
            }
            return unsupported(
                "indirect call of code outside the program, with floating-point arguments or result",
                "no function of the program with this type has its address taken, so the target is in a shared \
                 library and has no derivative here; call a function compiled with enzyme-cc, or give the \
                 library function a rule and call it directly",
            );
        }
        return unsupported(
            "indirect call through a function pointer with more possible targets than the engine tries",
            "a call through a pointer is differentiated when the pointer can be one of at most 16 functions of \
             the program of its type (whose address is taken); call the function directly, or through a \
             smaller table",
        );
    };
    let name = ir::name(callee);
    if crate::ir::kind::type_hint(&name).is_some() {
        // `__enzyme_double(p)` and friends: read by the analyses, removed afterwards.
        return Kind::Inactive;
    }
    if crate::surface::custom::rules_of(callee).is_some() {
        return Kind::Custom(callee);
    }
    if let Some(a) = crate::surface::registry::allocation_like(callee) {
        return Kind::Alloc(a);
    }
    if crate::surface::registry::is_deallocation_like(callee) {
        return Kind::Free;
    }
    if crate::surface::registry::is_ignore_derivatives(&name) {
        // A stop-gradient: replaced by its argument once derivatives are made.
        return Kind::Inactive;
    }
    if crate::surface::registry::is_inactive_call(call, callee) || ir::has_flag(call, crate::ir::kind::INERT) {
        return Kind::LibCall;
    }
    if let Some(math) = crate::surface::registry::function_like(callee) {
        let ret = ir::type_of(call);
        if let Some(r) = rules::for_callee(&math, ir::float_rank(ret)).filter(|_| ir::is_float(ret)) {
            if r.int_params.len() == ir::call_arg_count(call) as usize {
                return Kind::Rule(r);
            }
        }
        return unsupported(
            format!(
                "call to `{}`, declared to be like `{math}`, with arguments that do not fit `{math}`",
                display_name(&name)
            ),
            "a function registered with __enzyme_function_like must take and return what the math function does",
        );
    }
    if let Some(math) = crate::surface::registry::reshaped_libm(callee) {
        return unsupported(
            format!(
                "call to `{}`, the `libm` crate's `{math}` with its parameters changed by rustc's optimiser",
                display_name(&name)
            ),
            "the `libm` crate's functions are differentiated by rule, which needs their own parameters; the \
             `enzyme` crate's default feature `libm` keeps them (do not turn it off), or call std's float \
             methods (`x.powf(y)`, `x.exp()`, ...) instead",
        );
    }
    if crate::surface::registry::is_enzyme_api_name(&name) {
        // Requests inside differentiated code were made into calls of their
        // derivatives first (higher order); what is left is not implemented.
        return unsupported(
            format!("call to `{}` inside a differentiated function", display_name(&name)),
            "this part of Enzyme's API is not supported yet",
        );
    }
    let ret = ir::type_of(call);
    let nargs = ir::call_arg_count(call);
    let arg_tys: Vec<Type> = (0..nargs).map(|k| ir::type_of(ir::operand(call, k))).collect();
    let float_ty = if ir::is_real(ret) { Some(ret) } else { arg_tys.iter().copied().find(|t| ir::is_real(*t)) };
    if name.starts_with("llvm.memset.") {
        return Kind::MemSet;
    }
    if name.starts_with("llvm.memcpy.") || name.starts_with("llvm.memmove.") {
        return Kind::MemCpy;
    }
    if name.starts_with("llvm.") {
        if INACTIVE_INTRINSICS.iter().any(|p| name.starts_with(p)) {
            return Kind::Inactive;
        }
        // Integer-valued intrinsics (`llvm.umin`, `llvm.lround`, ...) carry no
        // derivative; ones returning nothing but given floats write them
        // somewhere (`llvm.masked.store`, `llvm.masked.scatter`): not inactive.
        let writes_floats = ir::is_void(ret) && arg_tys.iter().any(|t| contains_float(*t));
        if !contains_float(ret) && !writes_floats {
            return Kind::Inactive;
        }
        if let Some(op) = name.strip_prefix("llvm.vector.reduce.") {
            let r = match op.split('.').next().unwrap_or("") {
                "fadd" => Some(Reduction::Add),
                "fmul" => Some(Reduction::Mul),
                "fmax" | "fmin" | "fmaximum" | "fminimum" => Some(Reduction::Pick),
                _ => None,
            };
            if let Some(r) = r.filter(|_| nargs >= 1 && ir::vector_lanes(arg_tys[nargs as usize - 1]).is_some()) {
                return Kind::Reduce(r);
            }
        }
        if let Some(t) = float_ty {
            if let Some(r) = rules::for_callee(&name, ir::float_rank(t)) {
                if r.int_params.len() == nargs as usize {
                    return Kind::Rule(r);
                }
            }
        }
        return unsupported(format!("call to intrinsic `{name}`"), "this intrinsic has no derivative rule yet");
    }
    if never_returns_inertly(call, callee) {
        // Nothing after it runs, so no derivative flows through it: it runs as
        // it is (a panic, `abort`, `exit`), its body (if any) left alone.
        return Kind::Inactive;
    }
    if ir::is_declaration(callee) {
        if let Some(a) = crate::ir::kind::ALLOCATORS.iter().find(|a| a.name == name) {
            return Kind::Alloc(a);
        }
        if crate::ir::kind::DEALLOCATORS.contains(&name.as_str()) {
            return Kind::Free;
        }
        if name == "realloc" {
            return Kind::Realloc;
        }
        // UndefinedBehaviorSanitizer's reports (`-fsanitize=undefined` checks
        // are made by the front end, before differentiation).
        let ubsan = name.starts_with("__ubsan_handle_");
        if (ubsan || INACTIVE_LIBRARY.contains(&name.as_str())) && !contains_float(ret) {
            return Kind::LibCall;
        }
        if ir::is_float(ret) {
            if let Some(r) = rules::for_callee(&name, ir::float_rank(ret)) {
                if r.int_params.len() == nargs as usize {
                    return Kind::Rule(r);
                }
            }
        }
        if INACTIVE_RUNTIME.contains(&name.as_str()) && !contains_float(ret) {
            return Kind::LibCall;
        }
        if name.starts_with("__kmpc_") || name.starts_with("omp_") {
            return unsupported(
                format!("OpenMP construct (`{name}`)"),
                "differentiating across OpenMP parallel regions is not supported yet; differentiate a serial \
                 function (it may be called from inside a parallel region), or build this code without -fopenmp",
            );
        }
        if is_c_mpi(&name) {
            return unsupported(
                format!("MPI call (`{name}`)"),
                "this MPI call has no derivative yet: MPI_Send, MPI_Recv, MPI_Sendrecv, MPI_Isend, MPI_Irecv, \
                 MPI_Wait, MPI_Waitall, MPI_Test, MPI_Bcast, MPI_Reduce, MPI_Allreduce, MPI_Gather, MPI_Allgather \
                 and MPI_Scatter of doubles, MPI_Comm_rank, MPI_Comm_size, MPI_Barrier and MPI_Get_count are \
                 differentiated; use those, or communicate outside the differentiated function",
            );
        }
        if is_fortran_mpi(&name) {
            return unsupported(
                format!("MPI call from Fortran (`{name}`)"),
                "of MPI's Fortran bindings, mpi_send, mpi_recv, mpi_sendrecv, mpi_isend, mpi_irecv, mpi_wait, \
                 mpi_waitall, mpi_test, mpi_bcast, mpi_reduce, mpi_allreduce, mpi_gather, mpi_allgather and \
                 mpi_scatter of double precision data, mpi_comm_rank, mpi_comm_size and mpi_barrier are \
                 differentiated; use those, or communicate outside the differentiated procedure",
            );
        }
        if name.starts_with("_FortranA") {
            return unsupported(format!("call to flang's runtime (`{name}`)"), flang_runtime_hint(&name));
        }
        if COMPLEX_HELPERS.contains(&name.as_str()) {
            return unsupported(
                format!("complex multiplication or division (`{name}`, with C99's infinity and NaN recovery)"),
                "compile with -fcx-limited-range (or -ffast-math): clang then writes complex products and \
                 quotients as plain arithmetic, which is differentiated",
            );
        }
        let shown = display_name(&name);
        let string_member = ["_ZNSt7__cxx1112basic_string", "_ZNKSt7__cxx1112basic_string", "_ZNSaIcE"];
        if string_member.iter().any(|p| name.starts_with(p)) {
            return unsupported(
                format!("call to `{shown}`, a member of std::string (or its allocator) compiled into libstdc++.so"),
                "std::string in differentiated code works only for literals of up to 15 characters, at -O1 and \
                 higher (as map keys: `m[\"alpha\"]`); build strings of other lengths outside the function, or \
                 give the function indices instead of string keys",
            );
        }
        return unsupported(
            format!("call to external function `{shown}`"),
            format!(
                "the function has no body in the merged module and no derivative rule. Compile its source with \
                 enzyme-cc, or give it a derivative{}",
                rule_example(&name)
            ),
        );
    }
    // A module function, validated in turn: it has no memory effects or
    // external calls, so recomputing it in a derivative is harmless. One that
    // touches no float is cloned as it is; the others are differentiated.
    Kind::Call(callee)
}

/// A call of a function that never returns, passing and returning no
/// floats: inactive whatever it does (see [`classify`]); preprocessing does
/// not clone its callee.
pub(crate) fn never_returns_inertly(call: Value, callee: Value) -> bool {
    let floats = contains_float(ir::type_of(call))
        || (0..ir::call_arg_count(call)).any(|k| contains_float(ir::type_of(ir::operand(call, k))));
    !floats && is_noreturn(call, callee)
}

fn is_noreturn(call: Value, callee: Value) -> bool {
    let k = ir::attr_kind("noreturn");
    unsafe {
        !LLVMGetEnumAttributeAtIndex(callee, llvm_sys::LLVMAttributeFunctionIndex, k).is_null()
            || !LLVMGetCallSiteEnumAttribute(call, llvm_sys::LLVMAttributeFunctionIndex, k).is_null()
    }
}

/// Whether a type may appear as a parameter or return value of a function the
/// engine differentiates through a nested call.
pub(crate) fn scalar_interface_type(t: Type) -> bool {
    ir::is_float(t) || ir::is_int(t)
}

/// `atomicrmw fadd`/`fsub` of a float whose old value nothing uses.
fn is_atomic_float_add(i: Value) -> bool {
    use llvm_sys::LLVMAtomicRMWBinOp::*;
    let op = unsafe { llvm_sys::core::LLVMGetAtomicRMWBinOp(i) };
    matches!(op, LLVMAtomicRMWBinOpFAdd | LLVMAtomicRMWBinOpFSub)
        && ir::is_float(ir::type_of(i))
        && unsafe { llvm_sys::core::LLVMGetFirstUse(i).is_null() }
}

/// The IR spelling of an opcode, as in `.ll` files.
pub(crate) fn opcode_name(op: LLVMOpcode) -> &'static str {
    use LLVMOpcode::*;
    match op {
        LLVMRet => "ret",
        LLVMBr => "br",
        LLVMSwitch => "switch",
        LLVMIndirectBr => "indirectbr",
        LLVMInvoke => "invoke",
        LLVMUnreachable => "unreachable",
        LLVMCallBr => "callbr",
        LLVMFNeg => "fneg",
        LLVMAdd => "add",
        LLVMFAdd => "fadd",
        LLVMSub => "sub",
        LLVMFSub => "fsub",
        LLVMMul => "mul",
        LLVMFMul => "fmul",
        LLVMUDiv => "udiv",
        LLVMSDiv => "sdiv",
        LLVMFDiv => "fdiv",
        LLVMURem => "urem",
        LLVMSRem => "srem",
        LLVMFRem => "frem",
        LLVMShl => "shl",
        LLVMLShr => "lshr",
        LLVMAShr => "ashr",
        LLVMAnd => "and",
        LLVMOr => "or",
        LLVMXor => "xor",
        LLVMAlloca => "alloca",
        LLVMLoad => "load",
        LLVMStore => "store",
        LLVMGetElementPtr => "getelementptr",
        LLVMTrunc => "trunc",
        LLVMZExt => "zext",
        LLVMSExt => "sext",
        LLVMFPToUI => "fptoui",
        LLVMFPToSI => "fptosi",
        LLVMUIToFP => "uitofp",
        LLVMSIToFP => "sitofp",
        LLVMFPTrunc => "fptrunc",
        LLVMFPExt => "fpext",
        LLVMPtrToInt => "ptrtoint",
        LLVMPtrToAddr => "ptrtoaddr",
        LLVMIntToPtr => "inttoptr",
        LLVMBitCast => "bitcast",
        LLVMAddrSpaceCast => "addrspacecast",
        LLVMICmp => "icmp",
        LLVMFCmp => "fcmp",
        LLVMPHI => "phi",
        LLVMCall => "call",
        LLVMSelect => "select",
        LLVMUserOp1 => "userop1",
        LLVMUserOp2 => "userop2",
        LLVMVAArg => "va_arg",
        LLVMExtractElement => "extractelement",
        LLVMInsertElement => "insertelement",
        LLVMShuffleVector => "shufflevector",
        LLVMExtractValue => "extractvalue",
        LLVMInsertValue => "insertvalue",
        LLVMFreeze => "freeze",
        LLVMFence => "fence",
        LLVMAtomicCmpXchg => "cmpxchg",
        LLVMAtomicRMW => "atomicrmw",
        LLVMResume => "resume",
        LLVMLandingPad => "landingpad",
        LLVMCleanupRet => "cleanupret",
        LLVMCatchRet => "catchret",
        LLVMCatchPad => "catchpad",
        LLVMCleanupPad => "cleanuppad",
        LLVMCatchSwitch => "catchswitch",
    }
}

/// How to give external function `name` a derivative, for help texts: a
/// custom rule as it would be written were it `double name(double)`, or
/// a declaration that it is inactive.
pub fn rule_example(name: &str) -> String {
    // The example needs a name the user can write: a C name as it is.
    let c_name = name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !name.starts_with("_Z");
    let name = if c_name { name } else { "f" };
    format!(
        "; were it `double {name}(double)`, as:\n  \
         double {name}_aug(double x) {{ return {name}(x); }}\n  \
         double {name}_rev(double x, double d_result) {{ return d_result * /* d{name}/dx at x */; }}\n  \
         void *__enzyme_register_gradient_{name}[3] = {{(void *){name}, (void *){name}_aug, (void *){name}_rev}};\n\
         or, if it does not depend on the inputs, `void *__enzyme_inactivefn[] = {{(void *){name}}};` \
         (README, \"Custom derivatives\")"
    )
}
