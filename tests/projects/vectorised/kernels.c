/* Kernels compiled by plain clang at -O3 with fast-math: the loop
 * vectoriser turns them into vector loops with remainder loops and
 * `llvm.vector.reduce.*`. enzyme-cc then differentiates that IR as it is. */
#include <math.h>

double sum_sq_sin(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += sin(x[i]) * x[i] + x[i] * x[i];
  return s;
}

double product(const double *x, int n) {
  double p = 1;
  for (int i = 0; i < n; i++) p *= 1 + 0.1 * x[i];
  return p;
}

double maximum(const double *x, int n) {
  double m = -1e300;
  for (int i = 0; i < n; i++) m = fmax(m, x[i] * x[i] - x[i]);
  return m;
}

/* In place: y = a*x + y, then a norm of y. */
double axpy_norm(double a, const double *x, double *y, int n) {
  for (int i = 0; i < n; i++) y[i] = a * x[i] + y[i];
  double s = 0;
  for (int i = 0; i < n; i++) s += y[i] * y[i];
  return sqrt(s);
}
