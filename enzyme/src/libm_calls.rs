//! The `libm` crate's functions stay calls (feature `libm`, on by default).
//!
//! enzyme-rs differentiates the `libm` crate's functions by the rules of C's
//! functions of the same names (their bodies work on float bits). rustc's
//! link-time optimisation, before that, would rewrite a function that every
//! caller passes the same constant (`libm::powf(x, 1.5)`) into one without
//! that parameter, which no rule fits. A function whose address is taken
//! keeps its parameters, so this table takes the address of each one with a
//! rule. It is never read; it costs the program those functions' code.

macro_rules! addresses {
    ($($f:ident),* $(,)?) => {
        [$(libm::$f as *const ()),*]
    };
}

#[used]
static LIBM_FUNCTIONS_WITH_RULES: crate::Registration<74> = crate::Registration(addresses!(
    sqrt, sqrtf, cbrt, cbrtf, sin, sinf, cos, cosf, tan, tanf, asin, asinf, acos, acosf, atan, atanf, atan2, atan2f,
    sinh, sinhf, cosh, coshf, tanh, tanhf, exp, expf, exp2, exp2f, exp10, exp10f, expm1, expm1f, log, logf, log2,
    log2f, log10, log10f, log1p, log1pf, pow, powf, hypot, hypotf, fabs, fabsf, fma, fmaf, copysign, copysignf, erf,
    erff, erfc, erfcf, fmod, fmodf, remainder, remainderf, lgamma, lgammaf, tgamma, tgammaf, ldexp, ldexpf, floor,
    floorf, ceil, ceilf, round, roundf, rint, rintf, trunc, truncf,
));
