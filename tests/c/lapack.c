// link: -llapack -lblas
/* LAPACK's Cholesky routines inside differentiated code (Fortran interface,
 * as C declares it): dpotrf_ with either triangle and a padded leading
 * dimension (every element of the matrix depends on the inputs; only the
 * triangle LAPACK reads may get derivatives), the log-determinant from the
 * factor, and dpotrs_ solving with it (a Gaussian-process style quadratic
 * form); dgesv_ (LU with pivoting), its solution and the factors it leaves
 * in A. Derivatives by rules (wrappers/rules/lapack.c). Full Jacobians:
 * reverse against finite differences, forward against reverse. */
#include "jacobian.h"

void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info);
void dpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a, const int *lda, double *b,
             const int *ldb, int *info);

enum { N = 4, LDA = 6 };

/* A symmetric positive definite matrix from the inputs, both triangles
 * written (the unread one differently, which must not matter). */
static void spd(const double *x, double *a, double junk) {
  for (int j = 0; j < N; j++)
    for (int i = 0; i < N; i++) {
      double v = 0.2 * sin(x[(i + j) % 5] + 0.3 * (i + j)) + 0.1 * x[i] * x[j];
      if (i == j) v += 2 + x[i] * x[i];
      a[i + j * LDA] = i >= j ? v : v + junk * x[(i + 2 * j) % 5];
    }
}

static double factor_case(const double *x, const char *uplo) {
  double a[LDA * N];
  spd(x, a, 0);
  /* The same matrix for either triangle: fill the other one symmetrically. */
  for (int j = 0; j < N; j++)
    for (int i = 0; i < j; i++) a[i + j * LDA] = a[j + i * LDA];
  int n = N, lda = LDA, info;
  dpotrf_(uplo, &n, a, &lda, &info);
  double s = 0;
  for (int j = 0; j < N; j++)
    for (int i = 0; i < N; i++) {
      int read = *uplo == 'L' ? i >= j : i <= j;
      if (read) s += a[i + j * LDA] * (1 + i + 2 * j);
    }
  return s;
}
static void factor(const double *x, double *y) {
  y[0] = factor_case(x, "L");
  y[1] = factor_case(x, "U");
}

/* log det A and b^T A^-1 b through one factorisation; the triangle not read
 * holds junk that depends on x. */
static double gp_case(const double *x, const char *uplo, double *quad) {
  double a[LDA * N], b[2 * N];
  spd(x, a, 1.0);
  if (*uplo == 'U')
    for (int j = 0; j < N; j++)
      for (int i = 0; i < j; i++) {
        double t = a[i + j * LDA];
        a[i + j * LDA] = a[j + i * LDA];
        a[j + i * LDA] = t;
      }
  for (int i = 0; i < 2 * N; i++) b[i] = cos(x[i % 5]) + 0.1 * i;
  int n = N, lda = LDA, nrhs = 2, ldb = N, info;
  dpotrf_(uplo, &n, a, &lda, &info);
  double logdet = 0;
  for (int i = 0; i < N; i++) logdet += 2 * log(a[i + i * LDA]);
  double c[2 * N];
  for (int i = 0; i < 2 * N; i++) c[i] = b[i];
  dpotrs_(uplo, &n, &nrhs, a, &lda, c, &ldb, &info);
  *quad = 0;
  for (int i = 0; i < 2 * N; i++) *quad += b[i] * c[i] * (1 + i % 3);
  return logdet;
}
static void gp(const double *x, double *y) {
  double q1, q2;
  y[0] = gp_case(x, "L", &q1) + 0.5 * q1;
  y[1] = gp_case(x, "U", &q2) * q2;
}

void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b, const int *ldb,
            int *info);

/* A general system (pivoting happens: small diagonal), its solution, and
 * the factors LAPACK leaves in A (log |det A| from U, L's entries). */
static void general(const double *x, double *y) {
  double a[LDA * N], b[N * 2];
  for (int j = 0; j < N; j++)
    for (int i = 0; i < N; i++) a[i + j * LDA] = sin(x[(i + 2 * j) % 5] * (i + 1)) + 0.3 * x[(i + j) % 5] * (j - i);
  for (int i = 0; i < 2 * N; i++) b[i] = x[i % 5] * x[(i + 1) % 5] + i;
  int n = N, lda = LDA, nrhs = 2, ldb = N, ipiv[N], info;
  dgesv_(&n, &nrhs, a, &lda, ipiv, b, &ldb, &info);
  y[0] = y[1] = y[2] = 0;
  for (int i = 0; i < 2 * N; i++) y[0] += b[i] * (1 + i % 3);
  for (int i = 0; i < N; i++) y[1] += log(fabs(a[i + i * LDA]));
  for (int j = 0; j < N; j++)
    for (int i = j + 1; i < N; i++) y[2] += a[i + j * LDA] * (i + j);
}

int main(void) {
  CHECK_JACOBIAN(factor, 5, 2, 0.3, -0.7, 1.1, 0.4, -0.2);
  CHECK_JACOBIAN(gp, 5, 2, 0.3, -0.7, 1.1, 0.4, -0.2);
  CHECK_JACOBIAN(general, 5, 3, 0.3, -0.7, 1.1, 0.4, -0.2);
  return CHECK_DONE();
}
