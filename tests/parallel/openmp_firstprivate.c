/* `firstprivate` floats in parallel regions, both modes: clang passes each
 * by value as the integer of its bits; the engine passes the bits' address
 * instead, so each thread's copy is a read of a shared value whose adjoint
 * sums over the threads. A double and a float read by every iteration, a
 * double each thread's copy accumulates into (the result depends on the
 * schedule, so it is compared at one thread count), and a plain `parallel`
 * region indexing by thread number. The directional derivative along v
 * three ways: reverse mode <grad, v>, forward mode, central differences. */
#include <math.h>
#include <omp.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

typedef struct {
  double a;
  float b;
} grads;
grads __enzyme_autodiff_ab(void *, ...);

enum { N = 48 };
static int failures, checks;
static void check(const char *what, double got, double want, double tol) {
  checks++;
  if (!(fabs(got - want) <= tol * (1 + fabs(want)))) {
    failures++;
    printf("FAIL %s: got %.17g, want %.17g\n", what, got, want);
  }
}

/* A double and a float, read by every iteration. */
static double scaled(const double *x, double a, float b, int n) {
  double y[N];
#pragma omp parallel for firstprivate(a, b)
  for (int i = 0; i < n; i++) y[i] = a * sin(x[i]) + b * x[i] * x[i];
  double s = 0;
  for (int i = 0; i < n; i++) s += y[i] * (1 + i % 3);
  return s;
}

/* Each thread's copy of a accumulates along its iterations. */
static double running(const double *x, double a, float b, int n) {
  double y[N];
#pragma omp parallel for schedule(static) firstprivate(a)
  for (int i = 0; i < n; i++) {
    a = a * 0.9 + 0.1 * x[i];
    y[i] = a * a + b * x[i];
  }
  double s = 0;
  for (int i = 0; i < n; i++) s += y[i];
  return s;
}

/* A plain region: each thread scales its own slice. */
static double slices(const double *x, double a, float b, int n) {
  double y[N];
#pragma omp parallel firstprivate(a, b)
  {
    int t = omp_get_thread_num(), nt = omp_get_num_threads();
    for (int i = t; i < n; i += nt) y[i] = cos(a * x[i]) + (double)b;
  }
  double s = 0;
  for (int i = 0; i < n; i++) s += y[i] * x[i];
  return s;
}

typedef double (*fn)(const double *, double, float, int);

static void directional(const char *name, fn f) {
  double x[N], v[N], dx[N] = {0};
  for (int i = 0; i < N; i++) x[i] = 0.3 + 0.05 * i, v[i] = cos(1.0 + i);
  double a = 0.7, va = -0.4;
  float b = 1.25f, vb = 0.6f;
  grads g = __enzyme_autodiff_ab((void *)f, enzyme_dup, x, dx, enzyme_out, a, enzyme_out, b, enzyme_const, N);
  double rev = g.a * va + g.b * vb;
  for (int i = 0; i < N; i++) rev += dx[i] * v[i];
  double fwd = __enzyme_fwddiff((void *)f, enzyme_dup, x, v, enzyme_dup, a, va, enzyme_dup, b, vb, enzyme_const, N);
  /* Differences in double steps; the float parameter's step is its own. */
  double h = 1e-6, xp[N], xm[N];
  for (int i = 0; i < N; i++) xp[i] = x[i] + h * v[i], xm[i] = x[i] - h * v[i];
  double fd = (f(xp, a + h * va, b, N) - f(xm, a - h * va, b, N)) / (2 * h);
  float hb = 1e-2f;
  fd += (f(x, a, b + hb * vb, N) - f(x, a, b - hb * vb, N)) / (2 * (double)hb);
  char what[96];
  snprintf(what, sizeof what, "%s: forward against reverse", name);
  check(what, fwd, rev, 1e-6);
  snprintf(what, sizeof what, "%s: reverse against differences", name);
  check(what, rev, fd, 2e-4);
  /* Only the parameter's own adjoint: the float one against its closed-form-free difference. */
  snprintf(what, sizeof what, "%s: float adjoint against differences", name);
  check(what, g.b, (f(x, a, b + hb, N) - f(x, a, b - hb, N)) / (2 * (double)hb), 2e-4);
}

int main(void) {
  directional("read-only firstprivate double and float", scaled);
  directional("firstprivate double accumulated per thread", running);
  directional("firstprivate in a plain parallel region", slices);
  printf("openmp firstprivate: %d of %d checks passed (%d threads)\n", checks - failures, checks,
         omp_get_max_threads());
  return failures != 0;
}
