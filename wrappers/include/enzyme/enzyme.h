/*
 * enzyme/enzyme.h: the entry points and activity markers of enzyme-rs,
 * compatible with Enzyme's C API so code written for Enzyme compiles
 * unchanged with enzyme-cc / enzyme-c++.
 *
 * Reverse mode:  double dx = __enzyme_autodiff((void*)f, x);
 *                (several active arguments: declare your own variant returning
 *                 a struct, e.g. `struct grad2 __enzyme_autodiff2(void*, ...);`
 *                 -- any function whose name contains __enzyme_autodiff works)
 * Forward mode:  double dy = __enzyme_fwddiff((void*)f, enzyme_dup, x, dx);
 *
 * Markers go before the argument they describe:
 *   enzyme_out        active by-value float; its adjoint is returned (reverse)
 *   enzyme_const      no derivative
 *   enzyme_dup        value followed by its shadow (forward: the tangent)
 *   enzyme_dupnoneed  like enzyme_dup; the primal result is not needed
 * Without a marker, floats are active (reverse) or duplicated (forward) and
 * integers are constant.
 *   enzyme_strong_zero  (anywhere after the function, no value) a zero tangent
 *                       or adjoint times an infinite or NaN partial derivative
 *                       contributes zero instead of NaN
 *
 * Vector mode: `enzyme_width, N` right after the function gives N lanes in
 * one call (the primal runs once). Each duplicated argument is followed by N
 * shadows (forward: N tangents of a float), or `enzyme_dupv, stride, p, s`
 * gives them in one buffer, lane k's at s + k * stride bytes. Forward mode
 * returns N tangents (declare a struct or vector of N floats); reverse mode
 * takes N seeds (or none: 1 in every lane) and returns N adjoints per active
 * float, argument by argument:
 *   typedef struct { double d0, d1; } lanes2;
 *   lanes2 __enzyme_fwddiff_2(void *, ...);
 *   lanes2 t = __enzyme_fwddiff_2((void*)f, enzyme_width, 2, x, 1.0, 0.0, y, 0.0, 1.0);
 */
#ifndef ENZYME_RS_ENZYME_H
#define ENZYME_RS_ENZYME_H

#define ENZYME_RS_VERSION_MAJOR 0
#define ENZYME_RS_VERSION_MINOR 1

#ifdef __cplusplus
extern "C" {
#endif

extern int enzyme_dup;
extern int enzyme_dupnoneed;
extern int enzyme_out;
extern int enzyme_const;
extern int enzyme_strong_zero;
extern int enzyme_width;
extern int enzyme_dupv;
extern int enzyme_dupnoneedv;
extern int enzyme_byref;
extern int enzyme_runtime_activity;
extern int enzyme_primal_return;
extern int enzyme_noret;
extern int enzyme_const_return;
extern int enzyme_active_return;
extern int enzyme_dup_return;
extern int enzyme_tape;
extern int enzyme_allocated;
extern int enzyme_nofree;
extern int enzyme_not_overwritten;

/* Type hints: what the memory at `ptr` holds, for copies whose type the
 * compiler cannot tell (e.g. memcpy between void* buffers at -O0). */
void __enzyme_double(void *ptr, ...);
void __enzyme_float(void *ptr, ...);
void __enzyme_integer(void *ptr, ...);
void __enzyme_pointer(void *ptr, ...);

#ifndef __cplusplus
/* In C the entry points are variadic: pass the function, then its arguments. */
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
#endif

#ifdef __cplusplus
}

/* In C++ the entry points are templates over the return type, as in Enzyme's
 * <enzyme/utils>: __enzyme_autodiff<double>((void*)f, x). The instantiations'
 * mangled names contain "__enzyme_autodiff", which is what the AD pass looks for. */
template <typename Return, typename... Args>
Return __enzyme_autodiff(Args...) noexcept;
template <typename Return, typename... Args>
Return __enzyme_fwddiff(Args...) noexcept;
template <typename Return, typename... Args>
Return __enzyme_augmentfwd(Args...) noexcept;
template <typename Return, typename... Args>
Return __enzyme_reverse(Args...) noexcept;
#endif

#endif /* ENZYME_RS_ENZYME_H */
