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
#endif

#endif /* ENZYME_RS_ENZYME_H */
