//! How an instruction takes part in differentiation ([`Kind`]), decided by
//! [`crate::calls::classify`] and read by the analyses and both modes.

use llvm_sys::core::*;
use llvm_sys::LLVMTypeKind;

use crate::ir::{self, Type, Value};
use crate::rules::CompiledRule;

/// How an instruction takes part in differentiation.
pub(crate) enum Kind {
    /// No derivative flows through it: integer work, comparisons, control
    /// flow, integer-valued float operations (`fptosi`), debug intrinsics.
    /// Cloned into the derivative; a float result has a zero derivative.
    Inactive,
    /// A table rule: an arithmetic instruction or a known intrinsic/libm call.
    Rule(&'static CompiledRule),
    /// `fpext` / `fptrunc`: derivative 1, converted between widths.
    FloatCast,
    /// `freeze`: derivative 1.
    Identity,
    /// `select` of floats.
    Select,
    /// `phi` (of any type; only float phis carry derivatives).
    Phi,
    /// A call of a module function with a body, differentiated in turn.
    Call(Value),
    /// A call of a function with user-given derivatives
    /// (`__enzyme_register_derivative_f` / `__enzyme_register_gradient_f`):
    /// they are called instead of differentiating its body.
    Custom(Value),
    /// `ret`.
    Return,
    /// `load`: active through a shadowed pointer (see [`crate::analysis::memory`]).
    Load,
    /// `store`.
    Store,
    /// `atomicrmw fadd`/`fsub` of a float whose old value is unused (what
    /// `#pragma omp atomic` makes of `x += v`): the tangent is added
    /// atomically too; the adjoint of `v` is read from the shadow.
    AtomicAdd,
    /// `getelementptr`: the shadow is the same address arithmetic on the shadow.
    Gep,
    /// A fixed-size `alloca`: it gets a zeroed shadow slot.
    Alloca,
    /// `bitcast`/`addrspacecast` between pointers.
    PtrCast,
    /// `llvm.memset.*`.
    MemSet,
    /// `llvm.memcpy.*` / `llvm.memmove.*`.
    MemCpy,
    /// A heap allocation (`malloc`, `calloc`, `operator new`): its shadow is
    /// allocated alongside, zeroed, and freed once no longer needed.
    Alloc(&'static Allocator),
    /// A heap deallocation: the shadow is freed with it (forward mode) or
    /// after the reverse sweep is done with it (reverse mode).
    Free,
    /// `realloc`: the shadow is reallocated alongside (see `gen`).
    Realloc,
    /// `extractelement`, `insertelement` and `shufflevector` on float
    /// vectors, `extractvalue` and `insertvalue` on float aggregates: they
    /// move floats between lanes or fields, and their derivatives move the
    /// same way (forward) or back (reverse).
    Lanes,
    /// `llvm.vector.reduce.*` over a float vector.
    Reduce(Reduction),
    /// A library function with no effect on derivatives (`printf`, `strlen`, ...):
    /// executed once, in the forward sweep.
    LibCall,
    /// Outside what the engine can differentiate correctly.
    Unsupported {
        /// What the construct is, e.g. "memory access (`load`)".
        what: String,
        /// What the user can do.
        help: String,
    },
}

/// The float reductions of `llvm.vector.reduce.*`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reduction {
    /// `fadd(start, v)`: `start + Σ v[i]`.
    Add,
    /// `fmul(start, v)`: `start · Π v[i]`.
    Mul,
    /// `fmax`/`fmaximum`/`fmin`/`fminimum(v)`: one lane is the result, and
    /// the derivative is that lane's (the first such lane on ties).
    Pick,
}

/// A heap allocator and the function that frees what it returns.
#[derive(Debug)]
pub(crate) struct Allocator {
    /// The allocating function.
    pub name: &'static str,
    /// Its deallocation function.
    pub free: &'static str,
    /// Whether the memory comes back zeroed (then the shadow needs no memset).
    pub zeroed: bool,
    /// Which argument is the size in bytes (to zero the shadow).
    pub size_arg: u32,
    /// Which argument of the allocation the deallocation takes second (an
    /// over-aligned `operator new`'s alignment), if any.
    pub free_align_arg: Option<u32>,
}

/// Whether a type is, or contains, a floating-point type.
pub(crate) fn contains_float(t: Type) -> bool {
    contains_scalar(t, &ir::is_float)
}

/// Whether a type is, or has among its vector lanes, array elements or
/// struct fields (nested), a scalar `is` says yes to.
pub(crate) fn contains_scalar(t: Type, is: &dyn Fn(Type) -> bool) -> bool {
    use LLVMTypeKind::*;
    if is(t) {
        return true;
    }
    unsafe {
        match ir::kind(t) {
            LLVMVectorTypeKind | LLVMScalableVectorTypeKind | LLVMArrayTypeKind => {
                contains_scalar(LLVMGetElementType(t), is)
            }
            LLVMStructTypeKind => {
                let n = LLVMCountStructElementTypes(t);
                (0..n).any(|i| contains_scalar(LLVMStructGetTypeAtIndex(t, i), is))
            }
            _ => false,
        }
    }
}

/// What a run of bytes copied by `memcpy`/`memmove` holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Elem {
    /// `float`s: their adjoints move from the copy to the original.
    F32,
    /// `double`s: likewise.
    F64,
    /// Integers: no derivative.
    Int,
    /// Pointers: the shadow pointers are copied along.
    Ptr,
}

impl Elem {
    /// The float element a scalar or vector type `t` holds, if any.
    pub(crate) fn float_of(t: Type) -> Option<Elem> {
        match ir::kind(ir::scalar_of(t)) {
            llvm_sys::LLVMTypeKind::LLVMDoubleTypeKind => Some(Elem::F64),
            llvm_sys::LLVMTypeKind::LLVMFloatTypeKind => Some(Elem::F32),
            _ => None,
        }
    }

    /// Size of one element in bytes.
    pub fn size(self) -> u64 {
        match self {
            Elem::F32 | Elem::Int => 4,
            Elem::F64 | Elem::Ptr => 8,
        }
    }
}

/// Allocation functions, C and Itanium C++ ABI. A shadow is the same call
/// again (so an aligned block gets an aligned shadow), zeroed; the reverse
/// sweep frees it with `free`, passing the alignment argument too where the
/// deallocation takes one. `posix_memalign` and `reallocarray` are
/// rewritten into `memalign` and `realloc` in preprocessing (`prep`).
pub(crate) static ALLOCATORS: &[Allocator] = &[
    Allocator { name: "malloc", free: "free", zeroed: false, size_arg: 0, free_align_arg: None },
    Allocator { name: "calloc", free: "free", zeroed: true, size_arg: 0, free_align_arg: None },
    Allocator { name: "aligned_alloc", free: "free", zeroed: false, size_arg: 1, free_align_arg: None },
    Allocator { name: "memalign", free: "free", zeroed: false, size_arg: 1, free_align_arg: None },
    Allocator { name: "valloc", free: "free", zeroed: false, size_arg: 0, free_align_arg: None },
    Allocator { name: "_Znwm", free: "_ZdlPv", zeroed: false, size_arg: 0, free_align_arg: None },
    Allocator { name: "_Znam", free: "_ZdaPv", zeroed: false, size_arg: 0, free_align_arg: None },
    // `new (std::nothrow)`: a null result is the primal's to handle.
    Allocator { name: "_ZnwmRKSt9nothrow_t", free: "_ZdlPv", zeroed: false, size_arg: 0, free_align_arg: None },
    Allocator { name: "_ZnamRKSt9nothrow_t", free: "_ZdaPv", zeroed: false, size_arg: 0, free_align_arg: None },
    // Over-aligned types (`alignas(64)`), their alignment the second argument.
    Allocator {
        name: "_ZnwmSt11align_val_t",
        free: "_ZdlPvSt11align_val_t",
        zeroed: false,
        size_arg: 0,
        free_align_arg: Some(1),
    },
    Allocator {
        name: "_ZnamSt11align_val_t",
        free: "_ZdaPvSt11align_val_t",
        zeroed: false,
        size_arg: 0,
        free_align_arg: Some(1),
    },
    Allocator {
        name: "_ZnwmSt11align_val_tRKSt9nothrow_t",
        free: "_ZdlPvSt11align_val_t",
        zeroed: false,
        size_arg: 0,
        free_align_arg: Some(1),
    },
    Allocator {
        name: "_ZnamSt11align_val_tRKSt9nothrow_t",
        free: "_ZdaPvSt11align_val_t",
        zeroed: false,
        size_arg: 0,
        free_align_arg: Some(1),
    },
];

/// Deallocation functions (the pointer is the first argument).
pub(crate) const DEALLOCATORS: &[&str] = &[
    "free",
    "_ZdlPv",
    "_ZdaPv",
    "_ZdlPvm",
    "_ZdaPvm",
    "_ZdlPvSt11align_val_t",
    "_ZdaPvSt11align_val_t",
    "_ZdlPvmSt11align_val_t",
    "_ZdaPvmSt11align_val_t",
    "_ZdlPvRKSt9nothrow_t",
    "_ZdaPvRKSt9nothrow_t",
];

/// The flag preprocessing puts on an inert call (see `inert_calls::runs_inertly`).
pub(crate) const INERT: &str = "enzyme_rs.inert_call";

/// The type-hint functions of Enzyme's C API and what they declare.
pub(crate) fn type_hint(name: &str) -> Option<Elem> {
    Some(match name {
        "__enzyme_double" => Elem::F64,
        "__enzyme_float" => Elem::F32,
        "__enzyme_integer" => Elem::Int,
        "__enzyme_pointer" => Elem::Ptr,
        _ => return None,
    })
}
