// link: -lblas
/* BLAS inside differentiated code: CBLAS ddot (strided), dnrm2, daxpy and
 * dscal with active scalars, dgemv in both layouts, transposed or not, with
 * padded leading dimensions, and the Fortran routines (arguments by
 * reference), dgemm in both layouts with every transposition. Their derivatives are rules that call BLAS again
 * (wrappers/rules/blas.c). Full Jacobians: reverse against finite
 * differences, forward against reverse. Linked against the system BLAS. */
#include "jacobian.h"

enum { RowMajor = 101, ColMajor = 102, NoTrans = 111, Trans = 112 };
double cblas_ddot(int n, const double *x, int incx, const double *y, int incy);
double cblas_dnrm2(int n, const double *x, int incx);
void cblas_daxpy(int n, double alpha, const double *x, int incx, double *y, int incy);
void cblas_dscal(int n, double alpha, double *x, int incx);
void cblas_dgemv(int layout, int trans, int m, int n, double alpha, const double *a, int lda, const double *x,
                 int incx, double beta, double *y, int incy);
void cblas_dgemm(int layout, int transa, int transb, int m, int n, int k, double alpha, const double *a, int lda,
                 const double *b, int ldb, double beta, double *c, int ldc);
double ddot_(const int *n, const double *x, const int *incx, const double *y, const int *incy);
void daxpy_(const int *n, const double *alpha, const double *x, const int *incx, double *y, const int *incy);
void dscal_(const int *n, const double *alpha, double *x, const int *incx);
double dnrm2_(const int *n, const double *x, const int *incx);

static void dot_norm(const double *x, double *y) {
  y[0] = cblas_ddot(2, x, 2, x + 1, 2) + cblas_ddot(3, x, -1, x + 2, 1);
  y[1] = cblas_dnrm2(5, x, 1) * cblas_dnrm2(2, x + 1, 3);
  /* Reference BLAS returns 0 for a negative stride; the derivative follows BLAS. */
  y[0] += x[0] * cblas_dnrm2(3, x + 1, -1);
}

static void axpy_scal(const double *x, double *y) {
  double a[5], b[5];
  for (int i = 0; i < 5; i++) {
    a[i] = sin(x[i]);
    b[i] = x[i] * x[(i + 1) % 5];
  }
  cblas_daxpy(5, x[0] * x[1], a, 1, b, 1);
  cblas_dscal(3, x[2] + 1, b, 2);
  cblas_dscal(2, x[3], a, -1); /* BLAS leaves a as it is: a negative stride */
  cblas_daxpy(2, 0.5, b, 2, a, -1);
  y[0] = cblas_ddot(5, b, 1, b, 1);
  y[1] = a[0] * a[1] + b[4];
}

/* y = alpha op(A) v + beta w in every layout and transposition. */
static double gemv_case(const double *x, int layout, int trans) {
  const int m = 3, n = 4, lda = layout == RowMajor ? 6 : 5;
  double A[30], v[4], w[4];
  for (int i = 0; i < 30; i++) A[i] = sin(x[i % 5] * (i + 1)) + x[(i + 2) % 5];
  for (int i = 0; i < 4; i++) {
    v[i] = cos(x[i]) * x[i + 1];
    w[i] = x[(i + 3) % 5] * x[i];
  }
  int len_y = trans == NoTrans ? m : n;
  /* The old y's stride negative in one layout (scaled by an active beta). */
  cblas_dgemv(layout, trans, m, n, x[2] * x[0], A, lda, v, 1, x[3] - 0.5, w, layout == RowMajor ? -1 : 1);
  double s = 0;
  for (int i = 0; i < len_y; i++) s += w[i] * w[i] * (i + 1);
  return s;
}
static void gemv(const double *x, double *y) {
  y[0] = gemv_case(x, RowMajor, NoTrans) + gemv_case(x, ColMajor, Trans);
  y[1] = gemv_case(x, RowMajor, Trans) * gemv_case(x, ColMajor, NoTrans);
}

/* C = alpha op(A) op(B) + beta C, with padded leading dimensions. */
static double gemm_case(const double *x, int layout, int ta, int tb) {
  const int m = 2, n = 3, k = 4;
  int ra = ta == NoTrans ? m : k, ca = ta == NoTrans ? k : m;
  int rb = tb == NoTrans ? k : n, cb = tb == NoTrans ? n : k;
  int lda = (layout == RowMajor ? ca : ra) + 1, ldb = (layout == RowMajor ? cb : rb) + 2;
  int ldc = (layout == RowMajor ? n : m) + 1;
  double A[40], B[40], C[40];
  for (int i = 0; i < 40; i++) {
    A[i] = sin(x[i % 5] + 0.1 * i);
    B[i] = x[(i + 1) % 5] * cos(0.2 * i);
    C[i] = x[(i + 3) % 5] * x[i % 5];
  }
  cblas_dgemm(layout, ta, tb, m, n, k, x[0] * x[1] + 0.5, A, lda, B, ldb, x[2], C, ldc);
  double s = 0;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      double c = layout == RowMajor ? C[i * ldc + j] : C[j * ldc + i];
      s += c * c * (i + 2 * j + 1);
    }
  return s;
}
static void gemm(const double *x, double *y) {
  y[0] = y[1] = 0;
  for (int ta = NoTrans; ta <= Trans; ta++)
    for (int tb = NoTrans; tb <= Trans; tb++) {
      y[0] += gemm_case(x, RowMajor, ta, tb);
      y[1] += gemm_case(x, ColMajor, ta, tb) * (ta + tb - 221);
    }
}

static void fortran(const double *x, double *y) {
  int n = 5, two = 2, one = 1;
  double a[5], b[5], alpha = x[0] * x[4], scale = x[1] - 0.3;
  for (int i = 0; i < 5; i++) {
    a[i] = exp(0.2 * x[i]);
    b[i] = x[i] * x[i];
  }
  daxpy_(&n, &alpha, a, &one, b, &one);
  dscal_(&two, &scale, b, &two);
  y[0] = ddot_(&n, a, &one, b, &one);
  y[1] = dnrm2_(&n, b, &one);
}

int main(void) {
  CHECK_JACOBIAN(dot_norm, 5, 2, 0.3, -0.7, 1.1, 0.4, -0.2);
  CHECK_JACOBIAN(axpy_scal, 5, 2, 0.3, -0.7, 1.1, 0.4, -0.2);
  CHECK_JACOBIAN(gemv, 5, 2, 0.3, -0.7, 1.1, 0.4, -0.2);
  CHECK_JACOBIAN(gemm, 5, 2, 0.3, -0.7, 1.1, 0.4, -0.2);
  CHECK_JACOBIAN(fortran, 5, 2, 0.3, -0.7, 1.1, 0.4, -0.2);
  return CHECK_DONE();
}
