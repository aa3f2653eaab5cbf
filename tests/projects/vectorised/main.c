/* Gradients of kernels that clang vectorised before enzyme-cc saw them,
 * for lengths 1..37 (every remainder of the vector loops), against their
 * analytic derivatives, forward mode against reverse. */
#include <math.h>
#include <stdio.h>
#include <enzyme/enzyme.h>

double sum_sq_sin(const double *x, int n);
double product(const double *x, int n);
double maximum(const double *x, int n);
double axpy_norm(double a, const double *x, double *y, int n);

static int failures, checks;
static void check(const char *what, int n, int i, double got, double want) {
  checks++;
  if (!(fabs(got - want) <= 1e-10 * (1 + fabs(want)))) {
    failures++;
    printf("FAIL %s n=%d i=%d: got %.17g, want %.17g\n", what, n, i, got, want);
  }
}

int main(void) {
  enum { MAX = 37 };
  for (int n = 1; n <= MAX; n++) {
    double x[MAX], dx[MAX], tx[MAX], y[MAX], y0[MAX], dy[MAX], ty[MAX];
    for (int i = 0; i < n; i++) {
      x[i] = 0.3 + 0.37 * i - 0.011 * i * i;
      y0[i] = 1.0 - 0.05 * i;
    }

    for (int i = 0; i < n; i++) dx[i] = 0;
    __enzyme_autodiff((void *)sum_sq_sin, enzyme_dup, x, dx, n);
    for (int i = 0; i < n; i++) {
      check("sum_sq_sin reverse", n, i, dx[i], cos(x[i]) * x[i] + sin(x[i]) + 2 * x[i]);
      for (int k = 0; k < n; k++) tx[k] = k == i;
      check("sum_sq_sin forward", n, i, __enzyme_fwddiff((void *)sum_sq_sin, enzyme_dup, x, tx, n), dx[i]);
    }

    double p = product(x, n);
    for (int i = 0; i < n; i++) dx[i] = 0;
    __enzyme_autodiff((void *)product, enzyme_dup, x, dx, n);
    for (int i = 0; i < n; i++) {
      check("product reverse", n, i, dx[i], p * 0.1 / (1 + 0.1 * x[i]));
      for (int k = 0; k < n; k++) tx[k] = k == i;
      check("product forward", n, i, __enzyme_fwddiff((void *)product, enzyme_dup, x, tx, n), dx[i]);
    }

    int best = 0;
    for (int i = 1; i < n; i++)
      if (x[i] * x[i] - x[i] > x[best] * x[best] - x[best]) best = i;
    for (int i = 0; i < n; i++) dx[i] = 0;
    __enzyme_autodiff((void *)maximum, enzyme_dup, x, dx, n);
    for (int i = 0; i < n; i++) {
      check("maximum reverse", n, i, dx[i], i == best ? 2 * x[i] - 1 : 0);
      for (int k = 0; k < n; k++) tx[k] = k == i;
      check("maximum forward", n, i, __enzyme_fwddiff((void *)maximum, enzyme_dup, x, tx, n), dx[i]);
    }

    const double a = 0.7;
    double r = 0, yn[MAX];
    for (int i = 0; i < n; i++) {
      yn[i] = a * x[i] + y0[i];
      r += yn[i] * yn[i];
    }
    r = sqrt(r);
    for (int i = 0; i < n; i++) { y[i] = y0[i]; dx[i] = 0; dy[i] = 0; }
    double da = __enzyme_autodiff((void *)axpy_norm, a, enzyme_dup, x, dx, enzyme_dup, y, dy, n);
    double want_da = 0;
    for (int i = 0; i < n; i++) want_da += yn[i] * x[i] / r;
    check("axpy_norm reverse d/da", n, -1, da, want_da);
    for (int i = 0; i < n; i++) {
      check("axpy_norm reverse d/dx", n, i, dx[i], a * yn[i] / r);
      check("axpy_norm reverse d/dy", n, i, dy[i], yn[i] / r);
      check("axpy_norm primal state", n, i, y[i], yn[i]);
    }
    for (int i = 0; i < n; i++) { y[i] = y0[i]; tx[i] = 0; ty[i] = 0; }
    double t = __enzyme_fwddiff((void *)axpy_norm, a, 1.0, enzyme_dup, x, tx, enzyme_dup, y, ty, n);
    check("axpy_norm forward d/da", n, -1, t, da);
  }
  printf("vectorised kernels: %d checks, %d failed\n", checks, failures);
  return failures != 0;
}
