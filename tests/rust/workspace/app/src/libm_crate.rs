//! The `libm` crate (pure-Rust ports of C's libm, whose bodies work on float
//! bits): its functions are differentiated by the rules of C's functions of
//! the same names, while the primal is still the crate's own result.
//! Checked against closed forms, central differences, and forward against
//! reverse, in f64 and f32, in release and debug builds.
use enzyme::{autodiff_forward, autodiff_reverse};

// Most of the crate's f64 functions with rules, in one expression.
#[autodiff_reverse(d_mix, Duplicated, Active)]
#[autodiff_forward(t_mix, Dual, Dual)]
fn mix(x: &[f64; 3]) -> f64 {
    let (a, b, c) = (x[0], x[1], x[2]);
    libm::exp(a) * libm::sin(b) + libm::cos(a * b) + libm::tan(0.3 * c)
        + libm::log(1.0 + a * a) + libm::log2(2.0 + b * b) + libm::log10(3.0 + c * c)
        + libm::log1p(0.5 * a * a) + libm::expm1(0.2 * b)
        + libm::pow(1.5 + a * a, 0.5 + 0.1 * c) + libm::atan2(b, 2.0 + a) + libm::hypot(a, c)
        + libm::sqrt(1.0 + b * b) + libm::cbrt(2.0 + c) + libm::tanh(a - c) + libm::sinh(0.3 * b)
        + libm::cosh(0.2 * c) + libm::asin(0.3 * a) + libm::acos(0.2 * b) + libm::atan(c)
        + libm::erf(a) + libm::erfc(0.5 * b) + libm::lgamma(2.5 + c * c) + libm::fabs(a - 2.0)
        + libm::floor(10.0 * a) * b
}

// An integer argument (no derivative) beside the float one.
#[autodiff_reverse(d_scaled, Active, Const, Active)]
#[autodiff_forward(t_scaled, Dual, Const, Dual)]
fn scaled(x: f64, n: i32) -> f64 {
    libm::ldexp(x * x, n) + libm::fmod(3.0 * x, 0.7)
}

// f32 functions (`expf`, ...) take the same rules at single precision.
#[autodiff_reverse(d_mixf, Active, Active)]
#[autodiff_forward(t_mixf, Dual, Dual)]
fn mixf(x: f32) -> f32 {
    libm::expf(x) * libm::sinf(x) + libm::logf(1.0 + x * x) + libm::powf(2.0 + x, 1.5) + libm::sqrtf(3.0 + x)
}

/// Checks them through `check(what, got, want, tolerance)`.
pub fn check_all(check: &mut dyn FnMut(&str, f64, f64, f64)) {
    // floor(10 a) jumps at multiples of 0.1: the differences keep away from them.
    for x in [[0.33, -0.7, 0.9], [-0.45, 1.2, -0.35], [1.05, 0.25, 1.6]] {
        let mut dx = [0.0; 3];
        let y = d_mix(&x, &mut dx, 1.0);
        // The primal is the crate's own, to the last bit.
        check("libm crate: primal", y, mix(&x), 0.0);
        for i in 0..3 {
            let h = 1e-6;
            let (mut xp, mut xm) = (x, x);
            xp[i] += h;
            xm[i] -= h;
            let fd = (mix(&xp) - mix(&xm)) / (2.0 * h);
            check("libm crate: reverse vs finite differences", dx[i], fd, 1e-7);
            let mut tx = [0.0; 3];
            tx[i] = 1.0;
            let (ty, t) = t_mix(&x, &tx);
            check("libm crate: forward primal", ty, y, 0.0);
            check("libm crate: forward vs reverse", t, dx[i], 1e-12);
        }
        // One partial in closed form: d/da of the terms in a.
        let (a, b, c) = (x[0], x[1], x[2]);
        let want = a.exp() * b.sin() - (a * b).sin() * b + 2.0 * a / (1.0 + a * a) + a / (1.0 + 0.5 * a * a)
            + (0.5 + 0.1 * c) * (1.5 + a * a).powf(-0.5 + 0.1 * c) * 2.0 * a
            - b / ((2.0 + a) * (2.0 + a) + b * b)
            + a / (a * a + c * c).sqrt()
            + (1.0 - (a - c).tanh().powi(2))
            + 0.3 / (1.0 - 0.09 * a * a).sqrt()
            + 2.0 / std::f64::consts::PI.sqrt() * (-a * a).exp()
            + if a < 2.0 { -1.0 } else { 1.0 };
        check("libm crate: d/da in closed form", dx[0], want, 1e-12);
    }
    for (x, n) in [(0.8, 3), (-1.3, -2), (0.35, 0)] {
        let (y, dx) = d_scaled(x, n, 1.0);
        check("libm crate ldexp/fmod: primal", y, scaled(x, n), 0.0);
        check("libm crate ldexp/fmod: closed form", dx, 2.0 * x * 2f64.powi(n) + 3.0, 1e-12);
        let (_, t) = t_scaled(x, 1.0, n);
        check("libm crate ldexp/fmod: forward vs reverse", t, dx, 1e-12);
    }
    for x in [0.4f32, -0.6, 1.3] {
        let (y, dx) = d_mixf(x, 1.0);
        check("libm crate f32: primal", y as f64, mixf(x) as f64, 0.0);
        let want = x.exp() * (x.sin() + x.cos()) + 2.0 * x / (1.0 + x * x) + 1.5 * (2.0 + x).sqrt()
            + 0.5 / (3.0 + x).sqrt();
        check("libm crate f32: closed form", dx as f64, want as f64, 1e-5);
        let (_, t) = t_mixf(x, 1.0);
        check("libm crate f32: forward vs reverse", t as f64, dx as f64, 1e-6);
    }
}
