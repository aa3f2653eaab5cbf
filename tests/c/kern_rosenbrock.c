/* The n-dimensional Rosenbrock function against its analytic gradient. */
#include "check.h"

static double rosenbrock(const double *x, int n) {
  double f = 0;
  for (int i = 0; i + 1 < n; i++) {
    double a = x[i + 1] - x[i] * x[i], b = 1 - x[i];
    f += 100 * a * a + b * b;
  }
  return f;
}

int main(void) {
  enum { N = 7 };
  double x[N] = {-1.2, 1.0, 0.5, -0.3, 1.4, 0.9, 0.1}, dx[N] = {0}, g[N] = {0};
  __enzyme_autodiff((void *)rosenbrock, enzyme_dup, x, dx, N);
  for (int i = 0; i + 1 < N; i++) {
    double a = x[i + 1] - x[i] * x[i];
    g[i] += -400 * x[i] * a - 2 * (1 - x[i]);
    g[i + 1] += 200 * a;
  }
  for (int i = 0; i < N; i++) {
    CHECK("rosenbrock gradient", dx[i], g[i], TOL_EXACT);
    double t[N] = {0}, xs[N];
    for (int k = 0; k < N; k++) xs[k] = x[k];
    t[i] = 1;
    CHECK("rosenbrock forward vs reverse", __enzyme_fwddiff((void *)rosenbrock, enzyme_dup, xs, t, N), dx[i], TOL_MODES);
  }
  return CHECK_DONE();
}
