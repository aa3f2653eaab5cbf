//! Rust collections as temporaries inside differentiated functions, in
//! release and debug builds: `vec![0.0; n]`, `collect()`, `push` (growing
//! from empty), `extend`, and a `Box`. Gradients against finite
//! differences, forward mode against reverse.
use enzyme::{autodiff_forward, autodiff_reverse};

// Temporaries made with vec!, collect and push, read back in a sum.
#[autodiff_reverse(d_temps, Duplicated, ActiveOnly)]
#[autodiff_forward(t_temps, Dual, DualOnly)]
fn temps(x: &[f64]) -> f64 {
    let n = x.len();
    let mut a = vec![0.0; n];
    for i in 0..n {
        a[i] = x[i].sin() * x[(i + 1) % n];
    }
    let b: Vec<f64> = a.iter().zip(x).map(|(p, q)| p * q + 1.0).collect();
    let mut c = Vec::new();
    for v in &b {
        c.push(v * v);
    }
    c.extend(a.iter().map(|v| v.exp()));
    let boxed = Box::new(c.iter().sum::<f64>());
    *boxed * 0.5
}

/// Checks them through `check(what, got, want, tolerance)`.
pub fn check_all(check: &mut dyn FnMut(&str, f64, f64, f64)) {
    let x = [0.3, -0.8, 1.1, 0.45];
    let mut dx = [0.0; 4];
    d_temps(&x, &mut dx, 1.0);
    for i in 0..x.len() {
        let h = 1e-6;
        let (mut xp, mut xm) = (x, x);
        xp[i] += h;
        xm[i] -= h;
        let fd = (temps(&xp) - temps(&xm)) / (2.0 * h);
        check("collections: reverse vs finite differences", dx[i], fd, 1e-6);
        let mut tx = [0.0; 4];
        tx[i] = 1.0;
        check("collections: forward vs reverse", t_temps(&x, &tx), dx[i], 1e-12);
    }
}
