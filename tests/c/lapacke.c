// link: -llapacke -llapack -lblas
/* LAPACKE's C interface inside differentiated code: LAPACKE_dpotrf (both
 * triangles), LAPACKE_dpotrs and LAPACKE_dgesv in row-major and column-major
 * storage with padded leading dimensions, and the _work forms. The values
 * of the same logical matrices agree across storage orders, the argument
 * checks return liblapacke's codes, and full Jacobians are checked
 * reverse against finite differences and forward against reverse (the
 * derivatives come from the bodies in wrappers/rules/lapacke.c calling the
 * Fortran routines' rules). The bodies pass the address of their own
 * by-value parameters (`&n`) to the rules: once inlined, these are stack
 * slots whose lifetime ends in the forward sweep, and the reverse sweep reads
 * them again (this once crashed: the engine now drops such lifetime ends). */
#include <lapacke.h>

#include "jacobian.h"

enum { N = 4, LD = 6 };

/* Element (i, j) of a matrix stored in `layout` with leading dimension ld. */
static double *at(int layout, double *a, int i, int j) {
  return layout == LAPACK_COL_MAJOR ? &a[i + j * LD] : &a[i * LD + j];
}

/* A symmetric positive definite matrix from the inputs; the triangle LAPACK
 * does not read holds junk that depends on x (it must not matter). */
static void spd(int layout, char uplo, const double *x, double *a) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      int lo = i > j ? i : j, hi = i > j ? j : i;
      double v = 0.2 * sin(x[(lo + hi) % 5] + 0.3 * (lo + hi)) + 0.1 * x[lo] * x[hi];
      if (i == j) v += 2 + x[i] * x[i];
      int read = uplo == 'L' ? i >= j : i <= j;
      *at(layout, a, i, j) = read ? v : 7 * x[(i + 2 * j) % 5];
    }
}

/* Cholesky in one layout and triangle, then a solve with two right-hand
 * sides, summarised as a log-determinant, weighted factor entries and a
 * quadratic form. */
static double cholesky_case(const double *x, int layout, char uplo, int work) {
  double a[LD * LD], b[LD * LD];
  spd(layout, uplo, x, a);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < 2; j++) *at(layout, b, i, j) = cos(x[(i + j) % 5]) + 0.1 * i;
  int info = work ? LAPACKE_dpotrf_work(layout, uplo, N, a, LD) : LAPACKE_dpotrf(layout, uplo, N, a, LD);
  if (info != 0) return NAN;
  double s = 0;
  for (int i = 0; i < N; i++) {
    s += 2 * log(*at(layout, a, i, i));
    for (int j = 0; j < N; j++) {
      int read = uplo == 'L' ? i >= j : i <= j;
      if (read) s += *at(layout, a, i, j) * (1 + i + 2 * j) * 0.1;
    }
  }
  double c[LD * LD];
  for (int k = 0; k < LD * LD; k++) c[k] = b[k];
  info = work ? LAPACKE_dpotrs_work(layout, uplo, N, 2, a, LD, c, LD) : LAPACKE_dpotrs(layout, uplo, N, 2, a, LD, c, LD);
  if (info != 0) return NAN;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < 2; j++) s += *at(layout, b, i, j) * *at(layout, c, i, j) * (1 + (i + j) % 3);
  return s;
}

static void cholesky(const double *x, double *y) {
  y[0] = cholesky_case(x, LAPACK_COL_MAJOR, 'L', 0);
  y[1] = cholesky_case(x, LAPACK_COL_MAJOR, 'U', 1);
  y[2] = cholesky_case(x, LAPACK_ROW_MAJOR, 'L', 0);
  y[3] = cholesky_case(x, LAPACK_ROW_MAJOR, 'U', 1);
}

/* A general system (pivoting happens), its solution and the LU factors. */
static double general_case(const double *x, int layout, int work) {
  double a[LD * LD], b[LD * LD];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) *at(layout, a, i, j) = sin(x[(i + 2 * j) % 5] * (i + 1)) + 0.3 * x[(i + j) % 5] * (j - i);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < 2; j++) *at(layout, b, i, j) = x[(i + j) % 5] * x[(i + 1) % 5] + i;
  lapack_int ipiv[N];
  int info = work ? LAPACKE_dgesv_work(layout, N, 2, a, LD, ipiv, b, LD) : LAPACKE_dgesv(layout, N, 2, a, LD, ipiv, b, LD);
  if (info != 0) return NAN;
  double s = 0;
  for (int i = 0; i < N; i++) {
    s += log(fabs(*at(layout, a, i, i)));
    for (int j = 0; j < 2; j++) s += *at(layout, b, i, j) * (1 + (i + 2 * j) % 3);
    for (int j = 0; j < i; j++) s += *at(layout, a, i, j) * (i + j) * 0.1;
  }
  return s;
}

static void general(const double *x, double *y) {
  y[0] = general_case(x, LAPACK_COL_MAJOR, 0);
  y[1] = general_case(x, LAPACK_ROW_MAJOR, 0);
  y[2] = general_case(x, LAPACK_ROW_MAJOR, 1);
}

/* LAPACKE's argument checks: the codes liblapacke returns. */
static void checks(void) {
  double a[LD * LD] = {0}, b[LD * LD] = {0};
  lapack_int ipiv[N];
  CHECK("LAPACKE return code", LAPACKE_dpotrf(99, 'L', N, a, LD), -1, 0);
  CHECK("LAPACKE return code", LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', N, a, N - 1), -5, 0);
  CHECK("LAPACKE return code", LAPACKE_dpotrs(LAPACK_ROW_MAJOR, 'L', N, 2, a, LD, b, 1), -8, 0);
  CHECK("LAPACKE return code", LAPACKE_dgesv(LAPACK_ROW_MAJOR, N, 2, a, N - 1, ipiv, b, LD), -5, 0);
  a[1] = NAN;
  CHECK("LAPACKE return code", LAPACKE_dgesv(LAPACK_COL_MAJOR, N, 2, a, LD, ipiv, b, LD), -4, 0);
  /* Not positive definite: the order of the failing minor. */
  for (int i = 0; i < N; i++) a[i + i * LD] = i == 2 ? -1 : 1;
  a[1] = 0;
  CHECK("LAPACKE return code", LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'U', N, a, LD), 3, 0);
}

int main(void) {
  const double x[5] = {0.3, -0.7, 1.1, 0.4, -0.2};
  double y[4];
  /* The summaries are of the same logical matrices in either storage. */
  cholesky(x, y);
  CHECK("LAPACKE_dpotrf/dpotrs row-major 'L' against column-major", y[2], y[0], 1e-12);
  CHECK("LAPACKE_dpotrf/dpotrs row-major 'U' against column-major", y[3], y[1], 1e-12);
  general(x, y);
  CHECK("LAPACKE_dgesv row-major against column-major", y[1], y[0], 1e-12);
  CHECK("LAPACKE_dgesv_work against LAPACKE_dgesv", y[2], y[1], 0);
  checks();
  CHECK_JACOBIAN(cholesky, 5, 4, 0.3, -0.7, 1.1, 0.4, -0.2);
  CHECK_JACOBIAN(general, 5, 3, 0.3, -0.7, 1.1, 0.4, -0.2);
  return CHECK_DONE();
}
