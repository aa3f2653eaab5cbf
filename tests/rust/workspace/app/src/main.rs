//! Gradients from Rust, checked against analytic derivatives and finite
//! differences, forward mode against reverse: a scalar function, slices with
//! a bounds-checked loop, a struct from a path dependency, in-place updates.
use enzyme::{autodiff_forward, autodiff_reverse};
use physics::{simulate, State};

mod collections;
mod inactive_data;
mod inert_calls;
mod lanes;
mod libm_crate;
mod maps;
mod matrices;
mod nested;
mod parity;
mod rules;
mod slices;
mod sorting;
mod sums;
mod widths;

#[autodiff_reverse(d_wave, Active, Active)]
#[autodiff_forward(t_wave, Dual, Dual)]
fn wave(x: f64) -> f64 {
    x.sin() * x * x + (-x).exp()
}

// A bounds-checked loop over slices (indices computed, so the checks stay).
#[autodiff_reverse(d_weighted, Duplicated, Const, Active)]
fn weighted(x: &[f64], idx: &[usize]) -> f64 {
    let mut s = 0.0;
    for (k, i) in idx.iter().enumerate() {
        s += x[*i] * x[*i] * (k as f64 + 1.0);
    }
    s.sqrt()
}

#[autodiff_forward(t_weighted, Dual, Const, Dual)]
fn weighted_fwd(x: &[f64], idx: &[usize]) -> f64 {
    weighted(x, idx)
}

#[autodiff_reverse(d_energy, Duplicated, Active, Const, ActiveOnly)]
fn energy(s: &State, k: f64, steps: usize) -> f64 {
    simulate(s, k, steps)
}

// In place: y = a x + y over a mutable slice, then nothing returned.
#[autodiff_reverse(d_axpy, Active, Duplicated, Duplicated)]
fn axpy(a: f64, x: &[f64], y: &mut [f64]) {
    for i in 0..y.len() {
        y[i] += a * x[i] * x[i];
    }
}

// A fixed-size array and a Vec behind references.
#[autodiff_reverse(d_arr, Duplicated, ActiveOnly)]
fn arr(x: &[f64; 3]) -> f64 {
    x[0] * x[1] + x[2].exp()
}

#[allow(clippy::ptr_arg)]
#[autodiff_reverse(d_vec_norm, Duplicated, ActiveOnly)]
fn vec_norm(v: &Vec<f64>) -> f64 {
    v.iter().map(|a| a * a).sum::<f64>().sqrt()
}

#[autodiff_reverse(d_float, Active, ActiveOnly)]
fn single(x: f32) -> f32 {
    x * x * x.cos()
}

fn check(what: &str, got: f64, want: f64, tol: f64, failures: &mut u32) {
    // Written so that a NaN fails.
    if !((got - want).abs() <= tol * (1.0 + want.abs())) {
        println!("FAIL {what}: got {got}, want {want}");
        *failures += 1;
    }
}

fn main() {
    let mut failures = 0;
    for x in [-1.0, 0.3, 1.7] {
        let (y, dx) = d_wave(x, 1.0);
        let want = x.cos() * x * x + 2.0 * x * x.sin() - (-x).exp();
        check("wave primal", y, wave(x), 0.0, &mut failures);
        check("wave reverse", dx, want, 1e-12, &mut failures);
        let (y2, t) = t_wave(x, 1.0);
        check("wave forward primal", y2, y, 0.0, &mut failures);
        check("wave forward vs reverse", t, dx, 1e-12, &mut failures);
    }

    let x = [0.5, -1.5, 2.0, 0.25];
    let idx = [3usize, 0, 2, 2, 1];
    let mut dx = [0.0; 4];
    let (y, seed_dx) = (weighted(&x, &idx), ());
    let _ = seed_dx;
    let r = d_weighted(&x, &mut dx, &idx, 1.0);
    check("weighted primal", r, y, 0.0, &mut failures);
    for i in 0..4 {
        let h = 1e-6;
        let (mut xp, mut xm) = (x, x);
        xp[i] += h;
        xm[i] -= h;
        let fd = (weighted(&xp, &idx) - weighted(&xm, &idx)) / (2.0 * h);
        check("weighted reverse vs finite difference", dx[i], fd, 1e-6, &mut failures);
        let mut tx = [0.0; 4];
        tx[i] = 1.0;
        let (_, t) = t_weighted(&x, &tx, &idx);
        check("weighted forward vs reverse", t, dx[i], 1e-12, &mut failures);
    }

    let s = State { x: 1.0, v: 0.5 };
    let mut ds = State::default();
    let dk = d_energy(&s, &mut ds, 2.0, 300, 1.0);
    let h = 1e-6;
    let fd_k = (simulate(&s, 2.0 + h, 300) - simulate(&s, 2.0 - h, 300)) / (2.0 * h);
    let fd_x = (simulate(&State { x: 1.0 + h, ..s }, 2.0, 300) - simulate(&State { x: 1.0 - h, ..s }, 2.0, 300)) / (2.0 * h);
    let fd_v = (simulate(&State { v: 0.5 + h, ..s }, 2.0, 300) - simulate(&State { v: 0.5 - h, ..s }, 2.0, 300)) / (2.0 * h);
    check("energy d/dk", dk, fd_k, 1e-6, &mut failures);
    check("energy d/dx0", ds.x, fd_x, 1e-6, &mut failures);
    check("energy d/dv0", ds.v, fd_v, 1e-6, &mut failures);

    let x = [1.0, 2.0, 3.0];
    let mut y = [0.5, 0.5, 0.5];
    let (mut dx, mut dy) = ([0.0; 3], [1.0, 2.0, 3.0]);
    let da = d_axpy(0.7, &x, &mut dx, &mut y, &mut dy);
    check("axpy d/da", da, 1.0 * 1.0 + 2.0 * 4.0 + 3.0 * 9.0, 1e-12, &mut failures);
    for i in 0..3 {
        check("axpy d/dx", dx[i], (i as f64 + 1.0) * 2.0 * 0.7 * x[i], 1e-12, &mut failures);
        check("axpy d/dy", dy[i], i as f64 + 1.0, 1e-12, &mut failures);
        check("axpy state", y[i], 0.5 + 0.7 * x[i] * x[i], 1e-12, &mut failures);
    }

    let a = [0.5, -2.0, 0.3];
    let mut da = [0.0; 3];
    d_arr(&a, &mut da, 1.0);
    check("array d/dx0", da[0], a[1], 1e-12, &mut failures);
    check("array d/dx1", da[1], a[0], 1e-12, &mut failures);
    check("array d/dx2", da[2], a[2].exp(), 1e-12, &mut failures);

    let v = vec![3.0, 4.0, 12.0];
    let mut dv = vec![0.0; 3];
    d_vec_norm(&v, &mut dv, 1.0);
    for i in 0..3 {
        check("Vec<f64> norm gradient", dv[i], v[i] / 13.0, 1e-12, &mut failures);
    }

    let g = d_float(0.8, 1.0);
    let want = 2.0 * 0.8f32 * 0.8f32.cos() - 0.8 * 0.8 * 0.8f32.sin();
    check("f32 reverse", g as f64, want as f64, 1e-5, &mut failures);

    collections::check_all(&mut |what, got, want, tol| check(what, got, want, tol, &mut failures));
    maps::check_all(&mut |what, got, want, tol| check(what, got, want, tol, &mut failures));
    matrices::check_all(&mut |what, got, want, tol| check(what, got, want, tol, &mut failures));
    nested::check_all(&mut |what, got, want, tol| check(what, got, want, tol, &mut failures));
    rules::check_all(&mut |what, got, want, tol| check(what, got, want, tol, &mut failures));
    widths::check_all(&mut |what, got, want, tol| check(what, got, want, tol, &mut failures));
    lanes::check_all(&mut |what, got, want, tol| check(what, got, want, tol, &mut failures));
    parity::check_all(&mut |what, got, want, tol| check(what, got, want, tol, &mut failures));
    libm_crate::check_all(&mut |what, got, want, tol| check(what, got, want, tol, &mut failures));
    inert_calls::check_all(&mut |what, got, want, tol| check(what, got, want, tol, &mut failures));
    inactive_data::check_all(&mut |what, got, want, tol| check(what, got, want, tol, &mut failures));
    slices::check_all(&mut |what, got, want, tol| check(what, got, want, tol, &mut failures));
    sorting::check_all(&mut |what, got, want, tol| check(what, got, want, tol, &mut failures));
    sums::check_all(&mut |what, got, want, tol| check(what, got, want, tol, &mut failures));

    println!("rust gradients: {failures} failures");
    std::process::exit(if failures == 0 { 0 } else { 1 });
}
