/* Loops over arrays: dot product, norm, matrix-vector and matrix-matrix
 * products, with sizes known only at run time. */
#include "jacobian.h"

static int n = 4;

static double dot(const double *a, const double *b, int len) {
  double s = 0;
  for (int i = 0; i < len; i++)
    s += a[i] * b[i];
  return s;
}

static double norm(const double *x, int len) { return sqrt(dot(x, x, len)); }

/* y = A x for A n-by-n stored row-major in x[0 .. n*n), vector in x[n*n ..) */
static void matvec(const double *x, double *y) {
  const double *A = x, *v = x + n * n;
  for (int i = 0; i < n; i++) {
    double s = 0;
    for (int j = 0; j < n; j++)
      s += A[i * n + j] * v[j];
    y[i] = s;
  }
}

/* C = A B, both 3x3 in x */
static void matmul(const double *x, double *c) {
  const double *a = x, *b = x + 9;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      c[i * 3 + j] = 0;
      for (int k = 0; k < 3; k++)
        c[i * 3 + j] += a[i * 3 + k] * b[k * 3 + j];
    }
}

int main(void) {
  double a[5] = {1, 2, 3, 4, 5}, b[5] = {0.5, -1, 2, 0.25, 3}, da[5] = {0}, db[5] = {0};
  __enzyme_autodiff((void *)dot, enzyme_dup, a, da, enzyme_dup, b, db, 5);
  for (int i = 0; i < 5; i++) {
    CHECK("dot d/da", da[i], b[i], TOL_EXACT);
    CHECK("dot d/db", db[i], a[i], TOL_EXACT);
  }
  double ta[5] = {1, 1, 0, 0, 0}, tb[5] = {0};
  CHECK("dot forward", __enzyme_fwddiff((void *)dot, enzyme_dup, a, ta, enzyme_dup, b, tb, 5), b[0] + b[1], TOL_EXACT);

  double x[4] = {3, -4, 1, 2}, dx[4] = {0};
  double nx = norm(x, 4);
  __enzyme_autodiff((void *)norm, enzyme_dup, x, dx, 4);
  for (int i = 0; i < 4; i++)
    CHECK("norm gradient", dx[i], x[i] / nx, TOL_EXACT);

  CHECK_JACOBIAN(matvec, 20, 4, 1, 2, 3, 4, 0.5, 0.25, -1, 2, 3, 1, 0, -2, 1, 1, 1, 1, 0.3, -0.7, 1.1, 2.0);
  CHECK_JACOBIAN(matmul, 18, 9, 1, 2, 0, -1, 3, 1, 0.5, 0.5, 2, 2, 0, 1, 1, -1, 0, 0.5, 3, 1);
  return CHECK_DONE();
}
