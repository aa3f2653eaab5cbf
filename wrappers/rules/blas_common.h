/* What the BLAS rule files share: CBLAS constants and prototypes, the
 * registration attribute, result types, and tape copies. */
#ifndef ENZYME_RS_BLAS_COMMON_H
#define ENZYME_RS_BLAS_COMMON_H
#include <stdlib.h>
#include <string.h>

/* Registrations are kept although nothing in their file uses them;
 * internal, so a program's own registrations of the same names stay its own. */
#define REGISTER static __attribute__((used))

enum { RowMajor = 101, ColMajor = 102, NoTrans = 111, Trans = 112, ConjTrans = 113 };
enum { Upper = 121, Lower = 122, NonUnit = 131, Unit = 132, Left = 141, Right = 142 };

double cblas_ddot(int n, const double *x, int incx, const double *y, int incy);
void cblas_daxpy(int n, double alpha, const double *x, int incx, double *y, int incy);
void cblas_dscal(int n, double alpha, double *x, int incx);
double cblas_dnrm2(int n, const double *x, int incx);
void cblas_dcopy(int n, const double *x, int incx, double *y, int incy);
void cblas_dgemv(int layout, int trans, int m, int n, double alpha, const double *a, int lda, const double *x,
                 int incx, double beta, double *y, int incy);
void cblas_dger(int layout, int m, int n, double alpha, const double *x, int incx, const double *y, int incy,
                double *a, int lda);
void cblas_dgemm(int layout, int transa, int transb, int m, int n, int k, double alpha, const double *a, int lda,
                 const double *b, int ldb, double beta, double *c, int ldc);
void cblas_dsymv(int layout, int uplo, int n, double alpha, const double *a, int lda, const double *x, int incx,
                 double beta, double *y, int incy);
void cblas_dtrsv(int layout, int uplo, int trans, int diag, int n, const double *a, int lda, double *x, int incx);
void cblas_dtrsm(int layout, int side, int uplo, int trans, int diag, int m, int n, double alpha, const double *a,
                 int lda, double *b, int ldb);
double ddot_(const int *n, const double *x, const int *incx, const double *y, const int *incy);
void daxpy_(const int *n, const double *alpha, const double *x, const int *incx, double *y, const int *incy);
void dscal_(const int *n, const double *alpha, double *x, const int *incx);
double dnrm2_(const int *n, const double *x, const int *incx);
/* A contiguous copy of n strided elements (BLAS order for negative strides). */
static inline double *saved(int n, const double *x, int inc) {
  double *s = malloc((n > 0 ? n : 1) * sizeof(double));
  if (n > 0)
    cblas_dcopy(n, x, inc, s, 1);
  return s;
}

typedef struct {
  void *tape;
  double primal;
} aug_double;

typedef struct {
  double value, tangent;
} dual;

/* A packed copy of the m x n matrix A (leading dimension m or n). */
static inline double *saved_matrix(int layout, int m, int n, const double *a, int lda) {
  double *s = malloc((m * n > 0 ? m * n : 1) * sizeof(double));
  int lines = layout == RowMajor ? m : n, len = layout == RowMajor ? n : m;
  for (int k = 0; k < lines; k++)
    memcpy(s + (size_t)k * len, a + (size_t)k * lda, len * sizeof(double));
  return s;
}

/* x *= a over n elements of stride inc of either sign (cblas_dscal leaves
 * x as it is for a negative stride; the same elements, in any order). */
static inline void scale_vector(int n, double a, double *x, int inc) {
  cblas_dscal(n, a, x, inc < 0 ? -inc : inc);
}

/* Element k of a strided vector of n (BLAS order for negative strides). */
static inline double *element(double *v, int n, int inc, int k) {
  return v + (inc >= 0 ? (size_t)k * inc : (size_t)(n - 1 - k) * (size_t)(-inc));
}

/* Element (i, j) of a matrix stored with `layout` and leading dimension ld. */
static inline size_t at(int layout, int ld, int i, int j) {
  return layout == RowMajor ? (size_t)i * ld + j : (size_t)j * ld + i;
}

#endif
