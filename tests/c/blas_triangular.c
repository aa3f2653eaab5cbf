// link: -lblas
/* Symmetric and triangular BLAS inside differentiated code: CBLAS dsymv,
 * dtrsv and dtrsm in both layouts, both triangles, every transposition,
 * unit and non-unit diagonals, both sides, padded leading dimensions and
 * strides; and the Fortran dgemv_ and dgemm_ (arguments by reference, as C
 * declares them). Every element of each matrix depends on the inputs, so
 * the triangle a routine does not read must get no derivative (finite
 * differences see none). Full Jacobians: reverse against finite
 * differences, forward against reverse. Linked against the system BLAS. */
#include "jacobian.h"

enum { RowMajor = 101, ColMajor = 102, NoTrans = 111, Trans = 112 };
enum { Upper = 121, Lower = 122, NonUnit = 131, Unit = 132, Left = 141, Right = 142 };
void cblas_dsymv(int layout, int uplo, int n, double alpha, const double *a, int lda, const double *x, int incx,
                 double beta, double *y, int incy);
void cblas_dtrsv(int layout, int uplo, int trans, int diag, int n, const double *a, int lda, double *x, int incx);
void cblas_dtrsm(int layout, int side, int uplo, int trans, int diag, int m, int n, double alpha, const double *a,
                 int lda, double *b, int ldb);
void dgemv_(const char *trans, const int *m, const int *n, const double *alpha, const double *a, const int *lda,
            const double *x, const int *incx, const double *beta, double *y, const int *incy);
void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k, const double *alpha,
            const double *a, const int *lda, const double *b, const int *ldb, const double *beta, double *c,
            const int *ldc);

/* A well-conditioned 4 x 4 matrix (leading dimension 5) from the inputs. */
static void matrix(const double *x, double *A, double shift) {
  for (int i = 0; i < 20; i++) A[i] = 0.3 * sin(x[i % 5] * (i + 1) + shift) + 0.1 * x[(i + 2) % 5];
  for (int i = 0; i < 4; i++) A[i * 5 + i] += 3 + x[i] * x[i];
}

static double symv_case(const double *x, int layout, int uplo) {
  double A[20], v[8], w[4];
  matrix(x, A, 0.1 * uplo + layout);
  for (int i = 0; i < 8; i++) v[i] = cos(x[i % 5]) * x[(i + 1) % 5];
  for (int i = 0; i < 4; i++) w[i] = x[(i + 3) % 5] * x[i];
  cblas_dsymv(layout, uplo, 4, x[2] * x[0], A, 5, v, 2, x[3] - 0.5, w, -1);
  double s = 0;
  for (int i = 0; i < 4; i++) s += w[i] * w[i] * (i + 1);
  return s;
}
static void symv(const double *x, double *y) {
  y[0] = symv_case(x, RowMajor, Upper) + 2 * symv_case(x, ColMajor, Lower);
  y[1] = symv_case(x, RowMajor, Lower) * symv_case(x, ColMajor, Upper);
}

static double trsv_case(const double *x, int layout, int uplo, int trans, int diag) {
  double A[20], b[8];
  matrix(x, A, 0.01 * (layout + uplo + trans + diag));
  for (int i = 0; i < 8; i++) b[i] = x[i % 5] * x[(i + 2) % 5] + i;
  cblas_dtrsv(layout, uplo, trans, diag, 4, A, 5, b, 2);
  double s = 0;
  for (int i = 0; i < 8; i++) s += b[i] * b[i] * (i + 1);
  return s;
}
static void trsv(const double *x, double *y) {
  y[0] = y[1] = 0;
  for (int uplo = Upper; uplo <= Lower; uplo++)
    for (int trans = NoTrans; trans <= Trans; trans++)
      for (int diag = NonUnit; diag <= Unit; diag++) {
        y[0] += trsv_case(x, RowMajor, uplo, trans, diag) * (uplo - 120);
        y[1] += trsv_case(x, ColMajor, uplo, trans, diag) * (trans + diag - 240);
      }
}

/* B (3 x 2, padded) solved in place from either side. */
static double trsm_case(const double *x, int layout, int side, int uplo, int trans, int diag) {
  const int m = 3, n = 2;
  int k = side == Left ? m : n, ldb = (layout == RowMajor ? n : m) + 1;
  double A[20], B[12];
  matrix(x, A, 0.02 * (layout + side + uplo + trans + diag));
  (void)k;
  for (int i = 0; i < 12; i++) B[i] = x[(i + 1) % 5] * cos(0.3 * i) + x[i % 5];
  cblas_dtrsm(layout, side, uplo, trans, diag, m, n, x[4] + 1.5, A, 5, B, ldb);
  double s = 0;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      double v = layout == RowMajor ? B[i * ldb + j] : B[j * ldb + i];
      s += v * v * (i + 2 * j + 1);
    }
  return s;
}
static void trsm(const double *x, double *y) {
  y[0] = y[1] = 0;
  for (int side = Left; side <= Right; side++)
    for (int uplo = Upper; uplo <= Lower; uplo++)
      for (int trans = NoTrans; trans <= Trans; trans++)
        for (int diag = NonUnit; diag <= Unit; diag++) {
          y[0] += trsm_case(x, RowMajor, side, uplo, trans, diag) * (side - 140);
          y[1] += trsm_case(x, ColMajor, side, uplo, trans, diag) * (uplo + trans + diag - 363);
        }
}

static void fortran(const double *x, double *y) {
  int m = 3, n = 4, k = 2, lda = 5, one = 1, ldc = 3;
  double A[20], v[4], w[4], B[20], C[12], alpha = x[0] * x[1], beta = x[2] - 0.3;
  for (int i = 0; i < 20; i++) {
    A[i] = sin(x[i % 5] + 0.1 * i);
    B[i] = x[(i + 1) % 5] * cos(0.2 * i);
  }
  for (int i = 0; i < 4; i++) {
    v[i] = x[i] * x[i + 1];
    w[i] = exp(0.3 * x[i]);
  }
  for (int i = 0; i < 12; i++) C[i] = x[i % 5] * (i + 1);
  dgemv_("N", &m, &n, &alpha, A, &lda, v, &one, &beta, w, &one);
  dgemv_("T", &m, &n, &beta, A, &lda, w, &one, &alpha, v, &one);
  dgemm_("N", "T", &m, &n, &k, &alpha, A, &lda, B, &lda, &beta, C, &ldc);
  y[0] = w[0] * w[2] + v[3] * v[1];
  y[1] = 0;
  for (int i = 0; i < 12; i++) y[1] += C[i] * C[i] * (i % 4 + 1);
}

int main(void) {
  CHECK_JACOBIAN(symv, 5, 2, 0.3, -0.7, 1.1, 0.4, -0.2);
  CHECK_JACOBIAN(trsv, 5, 2, 0.3, -0.7, 1.1, 0.4, -0.2);
  CHECK_JACOBIAN(trsm, 5, 2, 0.3, -0.7, 1.1, 0.4, -0.2);
  CHECK_JACOBIAN(fortran, 5, 2, 0.3, -0.7, 1.1, 0.4, -0.2);
  return CHECK_DONE();
}
