//! What std::autodiff accepts beyond floats and references: generic
//! functions, methods (`&self`, `&mut self`, `self`), functions nested in
//! functions, structs and tuples by value (as parameters and results), raw
//! pointers, closures and iterators inside. Both modes where they apply,
//! against closed forms, finite differences and each other.
use enzyme::{autodiff_forward, autodiff_reverse};

// Generic over the float type.
#[autodiff_reverse(d_cube, Active, Active)]
#[autodiff_forward(t_cube, Dual, Dual)]
fn cube<T: Copy + std::ops::Mul<Output = T> + std::ops::Add<Output = T>>(x: T) -> T {
    x * x * x + x
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Spring {
    k: f64,
    rest: f64,
}

impl Spring {
    #[autodiff_reverse(d_energy, Duplicated, Active, Active)]
    #[autodiff_forward(t_energy, Dual, Dual, Dual)]
    fn energy(&self, x: f64) -> f64 {
        0.5 * self.k * (x - self.rest).powi(2)
    }

    #[autodiff_reverse(d_stretch, Duplicated, Active)]
    fn stretch(&mut self, by: f64) {
        self.rest += by * self.k;
        self.k *= by.exp();
    }

    #[autodiff_reverse(d_consume, Active, Active, Active)]
    fn consume(self, x: f64) -> f64 {
        self.k * x.sin() + self.rest
    }
}

// A point by value, in and out.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Point {
    x: f64,
    y: f64,
}

#[autodiff_reverse(d_norm, Active, Active)]
#[autodiff_forward(t_norm, Dual, Dual)]
fn norm(p: Point) -> f64 {
    (p.x * p.x + p.y * p.y).sqrt()
}

#[autodiff_reverse(d_rotate, Active, Const, Active)]
#[autodiff_forward(t_rotate, Dual, Const, Dual)]
fn rotate(p: Point, angle: f64) -> Point {
    let (s, c) = angle.sin_cos();
    Point { x: c * p.x - s * p.y, y: s * p.x + c * p.y }
}

#[autodiff_reverse(d_tuple, Active, Active)]
fn tuple_fn(t: (f64, f32)) -> f64 {
    t.0 * (t.1 as f64).exp()
}

// Raw pointers: the derivative is an `unsafe fn`.
#[autodiff_reverse(d_raw, Duplicated, Const, Active)]
#[autodiff_forward(t_raw, Dual, Const, Dual)]
unsafe fn raw_sum(p: *const f64, n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        let v = unsafe { *p.add(i) };
        s += v * v.cos();
    }
    s
}

// Closures and iterator chains inside.
#[autodiff_reverse(d_closures, Duplicated, Active, Active)]
fn closures(x: &[f64], scale: f64) -> f64 {
    let f = |v: f64| (v * scale).sin() * v;
    x.iter().map(|v| f(*v)).filter(|v| *v > -10.0).zip(1..).map(|(v, k)| v * k as f64).sum()
}

// Forward over reverse: a row of the Hessian from the gradient's derivative.
#[autodiff_reverse(grad_r, Active, Active, Active)]
fn r(x: f64, y: f64) -> f64 {
    x * x * y + y.sin() * x
}

#[autodiff_forward(hess_x, Dual, Dual, Dual)]
fn dr_dx(x: f64, y: f64) -> f64 {
    grad_r(x, y, 1.0).1
}

fn fd(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-6;
    (f(x + h) - f(x - h)) / (2.0 * h)
}

/// Checks all of them through `check(what, got, want, tolerance)`.
pub fn check_all(check: &mut dyn FnMut(&str, f64, f64, f64)) {
    // Generics, at both float types.
    let (y, d) = d_cube(1.5f64, 1.0);
    check("generic f64 primal", y, 1.5f64.powi(3) + 1.5, 1e-15);
    check("generic f64 reverse", d, 3.0 * 1.5 * 1.5 + 1.0, 1e-12);
    let (_, d32) = d_cube(1.5f32, 1.0);
    check("generic f32 reverse", d32 as f64, 3.0 * 1.5 * 1.5 + 1.0, 1e-6);
    let (_, t) = t_cube(1.5f64, 1.0);
    check("generic forward vs reverse", t, d, 1e-12);

    // Methods.
    let s = Spring { k: 3.0, rest: 0.5 };
    let mut ds = Spring::default();
    let (e, dx) = s.d_energy(&mut ds, 1.25, 1.0);
    check("method primal", e, s.energy(1.25), 1e-15);
    check("method d/dx", dx, 3.0 * 0.75, 1e-12);
    check("method d/dk (shadow of self)", ds.k, 0.5 * 0.75 * 0.75, 1e-12);
    check("method d/drest (shadow of self)", ds.rest, -3.0 * 0.75, 1e-12);
    let (_, t) = s.t_energy(&Spring { k: 1.0, rest: 0.0 }, 1.25, 0.0);
    check("method forward d/dk", t, ds.k, 1e-12);
    let mut m = s;
    let mut dm = Spring { k: 1.0, rest: 0.0 }; // seed: d(final k)
    let dby = m.d_stretch(&mut dm, 0.2);
    check("&mut self method ran", m.k, 3.0 * 0.2f64.exp(), 1e-12);
    check("&mut self d(final k)/dby", dby, 3.0 * 0.2f64.exp(), 1e-12);
    check("&mut self d(final k)/dk", dm.k, 0.2f64.exp(), 1e-12);
    let (v, dself, dx) = s.d_consume(0.7, 1.0);
    check("self by value primal", v, 3.0 * 0.7f64.sin() + 0.5, 1e-15);
    check("self by value d/dk", dself.k, 0.7f64.sin(), 1e-12);
    check("self by value d/drest", dself.rest, 1.0, 1e-12);
    check("self by value d/dx", dx, 3.0 * 0.7f64.cos(), 1e-12);

    // A function nested in a function.
    #[autodiff_reverse(d_inner, Active, Active)]
    fn inner(x: f64) -> f64 {
        x.sin() * x
    }
    let (_, di) = d_inner(0.9, 1.0);
    check("nested function", di, 0.9f64.cos() * 0.9 + 0.9f64.sin(), 1e-12);

    // Structs and tuples by value.
    let p = Point { x: 3.0, y: 4.0 };
    let (n, dp) = d_norm(p, 1.0);
    check("struct parameter primal", n, 5.0, 1e-15);
    check("struct parameter adjoint x", dp.x, 0.6, 1e-12);
    check("struct parameter adjoint y", dp.y, 0.8, 1e-12);
    let (_, tn) = t_norm(p, Point { x: 1.0, y: 2.0 });
    check("struct parameter tangent", tn, 0.6 + 1.6, 1e-12);
    let (r, dr) = d_rotate(p, 0.3, Point { x: 1.0, y: 0.0 });
    check("struct result primal", r.x, 0.3f64.cos() * 3.0 - 0.3f64.sin() * 4.0, 1e-12);
    check("struct result adjoint (seed x) d/dpx", dr.x, 0.3f64.cos(), 1e-12);
    check("struct result adjoint (seed x) d/dpy", dr.y, -0.3f64.sin(), 1e-12);
    let (_, tr) = t_rotate(p, Point { x: 0.0, y: 1.0 }, 0.3);
    check("struct result tangent x", tr.x, -0.3f64.sin(), 1e-12);
    check("struct result tangent y", tr.y, 0.3f64.cos(), 1e-12);
    let (_, dt) = d_tuple((2.0, 0.5), 1.0);
    check("tuple parameter adjoint .0", dt.0, 0.5f64.exp(), 1e-12);
    check("tuple parameter adjoint .1", dt.1 as f64, 2.0 * 0.5f64.exp(), 1e-6);

    // Raw pointers.
    let xs = [0.3, -1.2, 2.0];
    let mut dxs = [0.0; 3];
    let (s_raw, _) = (unsafe { raw_sum(xs.as_ptr(), 3) }, ());
    let y = unsafe { d_raw(xs.as_ptr(), dxs.as_mut_ptr(), 3, 1.0) };
    check("raw pointer primal", y, s_raw, 1e-15);
    for i in 0..3 {
        check("raw pointer adjoint", dxs[i], xs[i].cos() - xs[i] * xs[i].sin(), 1e-12);
        let mut e = [0.0; 3];
        e[i] = 1.0;
        let (_, t) = unsafe { t_raw(xs.as_ptr(), e.as_ptr(), 3) };
        check("raw pointer forward vs reverse", t, dxs[i], 1e-12);
    }

    // Forward over reverse.
    let (x, y) = (0.8, -1.1);
    let (g, hxx) = hess_x(x, 1.0, y, 0.0);
    let (_, hxy) = hess_x(x, 0.0, y, 1.0);
    check("forward over reverse: gradient", g, 2.0 * x * y + y.sin(), 1e-12);
    check("forward over reverse: d2/dx2", hxx, 2.0 * y, 1e-12);
    check("forward over reverse: d2/dxdy", hxy, 2.0 * x + y.cos(), 1e-12);

    // Closures and iterators.
    let xs = [0.4, -0.8, 1.3];
    let mut dxs = [0.0; 3];
    let (_, dscale) = d_closures(&xs, &mut dxs, 1.7, 1.0);
    check("closures d/dscale vs finite difference", dscale, fd(|s| closures(&xs, s), 1.7), 1e-6);
    for i in 0..3 {
        let g = |v: f64| {
            let mut x2 = xs;
            x2[i] = v;
            closures(&x2, 1.7)
        };
        check("closures d/dx vs finite difference", dxs[i], fd(g, xs[i]), 1e-6);
    }
}
