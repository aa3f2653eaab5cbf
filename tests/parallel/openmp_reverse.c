/* Reverse mode through OpenMP parallel regions: the reverse of each
 * region runs on a team of the forward team's size, each thread reversing
 * its own share (barriers reversed too), adjoints added into shared
 * shadows atomically; a sum reduction, `atomic` updates. For each kernel of
 * openmp_kernels.h and a weight vector w on its outputs, the gradient of
 * <w, f(x)> is checked against forward mode (<w, J dx> = <J^T w, dx>,
 * 1e-10) and against a central difference of the whole parallel
 * computation (1e-6); one kernel also element by element against its
 * analytic gradient (1e-12), and the shared local scalar's gradient
 * (summed privately by each thread) element by element too. Each gradient is computed again with 1, 2 and
 * 4 threads (omp_set_num_threads) and must agree with the others to
 * rounding (1e-12: atomic additions and reductions come in any order). */
#include <stdio.h>
#include <string.h>

extern int enzyme_const, enzyme_dup, enzyme_dupnoneed;
void __enzyme_fwddiff(void *, ...);
void __enzyme_autodiff(void *, ...);

#include "openmp_kernels.h"

static int failures, checks;

static void check(const char *what, int k, double got, double want, double tol) {
  checks++;
  if (!(fabs(got - want) <= tol * (1 + fabs(want)))) {
    failures++;
    printf("FAIL %s[%d]: %.17g, want %.17g\n", what, k, got, want);
  }
}

enum { OUT = N + 3, IN = 2 * N };
static double X[IN], DX[IN], W[OUT];

static void inputs(void) {
  for (int i = 0; i < IN; i++) {
    X[i] = (double)((i * 37) % 61 - 30) / 64;
    DX[i] = (double)((i * 11) % 17 - 8) / 64;
  }
  for (int i = 0; i < OUT; i++) W[i] = 0.5 + (double)((i * 7) % 13) / 13;
}

/* Each kernel as x -> outputs (for differences), its gradient of <W, out>
 * into gx, and its tangent J dx into dout. */
typedef struct {
  const char *name;
  int outs;
  void (*run)(const double *x, double *out);
  void (*grad)(const double *x, double *gx);
  void (*tangent)(const double *x, const double *dx, double *dout);
} kernel;

static void scale_sin_run(const double *x, double *out) { scale_sin(x, out, x + N); }
static void scale_sin_grad(const double *x, double *gx) {
  double y[N], w[N];
  memcpy(w, W, sizeof w);
  __enzyme_autodiff((void *)scale_sin, x, gx, y, w, x + N, gx + N);
}
static void scale_sin_tangent(const double *x, const double *dx, double *dout) {
  double y[N];
  __enzyme_fwddiff((void *)scale_sin, x, dx, y, dout, x + N, dx + N);
}

static void stencil_run(const double *x, double *out) {
  out[0] = out[N - 1] = 0;
  stencil(x, out);
}
static void stencil_grad(const double *x, double *gx) {
  double y[N], w[N];
  memcpy(w, W, sizeof w);
  __enzyme_autodiff((void *)stencil, x, gx, y, w);
}
static void stencil_tangent(const double *x, const double *dx, double *dout) {
  double y[N];
  dout[0] = dout[N - 1] = 0;
  __enzyme_fwddiff((void *)stencil, x, dx, y, dout);
}

static void dense_run(const double *x, double *out) { dense(x, out); }
static void dense_grad(const double *x, double *gx) {
  double y[N], w[N];
  memcpy(w, W, sizeof w);
  __enzyme_autodiff((void *)dense, x, gx, y, w);
}
static void dense_tangent(const double *x, const double *dx, double *dout) {
  double y[N];
  __enzyme_fwddiff((void *)dense, x, dx, y, dout);
}

static void outer_run(const double *x, double *out) { outer(x, out); }
static void outer_grad(const double *x, double *gx) {
  double z[M * M], w[M * M];
  memcpy(w, W, sizeof w);
  __enzyme_autodiff((void *)outer, x, gx, z, w);
}
static void outer_tangent(const double *x, const double *dx, double *dout) {
  double z[M * M];
  __enzyme_fwddiff((void *)outer, x, dx, z, dout);
}

static void phases_run(const double *x, double *out) {
  double t[N], shared[3] = {0, 0, 0};
  phases(x, t, out, shared);
  out[N] = shared[0], out[N + 1] = shared[1], out[N + 2] = shared[2];
}
static void phases_grad(const double *x, double *gx) {
  double t[N], dt[N] = {0}, y[N], w[N], shared[3] = {0, 0, 0}, wshared[3] = {W[N], W[N + 1], W[N + 2]};
  memcpy(w, W, sizeof w);
  __enzyme_autodiff((void *)phases, x, gx, t, dt, y, w, shared, wshared);
}
static void phases_tangent(const double *x, const double *dx, double *dout) {
  double t[N], dt[N] = {0}, y[N], shared[3] = {0, 0, 0}, dshared[3] = {0, 0, 0};
  __enzyme_fwddiff((void *)phases, x, dx, t, dt, y, dout, shared, dshared);
  dout[N] = dshared[0], dout[N + 1] = dshared[1], dout[N + 2] = dshared[2];
}

static void by_thread_run(const double *x, double *out) { by_thread(x, out); }
static void by_thread_grad(const double *x, double *gx) {
  double y[N], w[N];
  memcpy(w, W, sizeof w);
  __enzyme_autodiff((void *)by_thread, x, gx, y, w);
}
static void by_thread_tangent(const double *x, const double *dx, double *dout) {
  double y[N];
  __enzyme_fwddiff((void *)by_thread, x, dx, y, dout);
}

static void shared_scalar_run(const double *x, double *out) { shared_scalar(x, out); }
static void shared_scalar_grad(const double *x, double *gx) {
  double y[N], w[N];
  memcpy(w, W, sizeof w);
  __enzyme_autodiff((void *)shared_scalar, x, gx, y, w);
}
static void shared_scalar_tangent(const double *x, const double *dx, double *dout) {
  double y[N];
  __enzyme_fwddiff((void *)shared_scalar, x, dx, y, dout);
}

static void sums_run(const double *x, double *out) { sums(x, out); }
static void sums_grad(const double *x, double *gx) {
  double o[2], w[2] = {W[0], W[1]};
  __enzyme_autodiff((void *)sums, x, gx, o, w);
}
static void sums_tangent(const double *x, const double *dx, double *dout) {
  double o[2];
  __enzyme_fwddiff((void *)sums, x, dx, o, dout);
}

static void atomic_run(const double *x, double *out) { atomic_sum(x, out); }
static void atomic_grad(const double *x, double *gx) {
  double o[2], w[2] = {W[0], W[1]};
  __enzyme_autodiff((void *)atomic_sum, x, gx, o, w);
}
static void atomic_tangent(const double *x, const double *dx, double *dout) {
  double o[2];
  __enzyme_fwddiff((void *)atomic_sum, x, dx, o, dout);
}

static void weighted_run(const double *x, double *out) { coeff_weighted(x, out, COEFFS); }
static void weighted_grad(const double *x, double *gx) {
  double y[N], w[N];
  memcpy(w, W, sizeof w);
  __enzyme_autodiff((void *)coeff_weighted, x, gx, y, w, enzyme_const, COEFFS);
}
static void weighted_tangent(const double *x, const double *dx, double *dout) {
  double y[N];
  __enzyme_fwddiff((void *)coeff_weighted, x, dx, y, dout, enzyme_const, COEFFS);
}

static const kernel kernels[] = {
    {"parallel for", N, scale_sin_run, scale_sin_grad, scale_sin_tangent},
    {"schedule(dynamic) stencil", N, stencil_run, stencil_grad, stencil_tangent},
    {"schedule(guided)", N, dense_run, dense_grad, dense_tangent},
    {"collapse(2)", M * M, outer_run, outer_grad, outer_tangent},
    {"single, barriers, master", N + 3, phases_run, phases_grad, phases_tangent},
    {"omp_get_thread_num", N, by_thread_run, by_thread_grad, by_thread_tangent},
    {"shared local scalar", N, shared_scalar_run, shared_scalar_grad, shared_scalar_tangent},
    {"reduction(+)", 2, sums_run, sums_grad, sums_tangent},
    {"atomic", 2, atomic_run, atomic_grad, atomic_tangent},
    {"constant array", N, weighted_run, weighted_grad, weighted_tangent},
};

static double weighted(const kernel *k, double s) {
  double x[IN], out[OUT];
  for (int i = 0; i < IN; i++) x[i] = X[i] + s * DX[i];
  k->run(x, out);
  double sum = 0;
  for (int i = 0; i < k->outs; i++) sum += W[i] * out[i];
  return sum;
}

int main(void) {
  inputs();
  for (int i = 0; i < N; i++) COEFFS[i] = 1 + 0.5 * sin(0.3 * i);
  int counts[] = {1, 2, 4};
  for (unsigned k = 0; k < sizeof kernels / sizeof kernels[0]; k++) {
    const kernel *kn = &kernels[k];
    double g1[IN];
    for (int c = 0; c < 3; c++) {
      omp_set_num_threads(counts[c]);
      double gx[IN] = {0}, dout[OUT] = {0};
      kn->grad(X, gx);
      if (c == 0) {
        memcpy(g1, gx, sizeof g1);
        kn->tangent(X, DX, dout);
        double lhs = 0, rhs = 0;
        for (int i = 0; i < kn->outs; i++) lhs += W[i] * dout[i];
        for (int i = 0; i < IN; i++) rhs += gx[i] * DX[i];
        check(kn->name, -1, rhs, lhs, 1e-10);
        double h = 1e-6;
        check(kn->name, -2, rhs, (weighted(kn, h) - weighted(kn, -h)) / (2 * h), 1e-6);
      } else {
        for (int i = 0; i < IN; i++) check(kn->name, i, gx[i], g1[i], 1e-12);
      }
    }
  }
  /* scale_sin element by element. */
  {
    omp_set_num_threads(4);
    double gx[IN] = {0};
    scale_sin_grad(X, gx);
    double ga = 0;
    for (int i = 0; i < N; i++) {
      check("parallel for, gradient", i, gx[i], W[i] * X[N] * (cos(X[i]) * X[i] + sin(X[i])), 1e-12);
      ga += W[i] * sin(X[i]) * X[i];
    }
    check("parallel for, shared scalar", N, gx[N], ga, 1e-12);
  }
  /* shared_scalar element by element: c = x0 x1 + 1, y_i = c sin(x_i) + c^2. */
  {
    omp_set_num_threads(4);
    double gx[IN] = {0}, c = X[0] * X[1] + 1, gc = 0;
    shared_scalar_grad(X, gx);
    for (int i = 0; i < N; i++) gc += W[i] * (sin(X[i]) + 2 * c);
    for (int i = 2; i < N; i++) check("shared local scalar, gradient", i, gx[i], W[i] * c * cos(X[i]), 1e-12);
    check("shared local scalar, gradient", 0, gx[0], W[0] * c * cos(X[0]) + gc * X[1], 1e-12);
    check("shared local scalar, gradient", 1, gx[1], W[1] * c * cos(X[1]) + gc * X[0], 1e-12);
  }
  printf("openmp reverse: %d checks, %d failed\n", checks, failures);
  return failures != 0;
}
