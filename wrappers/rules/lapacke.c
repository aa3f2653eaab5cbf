/*
 * Bodies for LAPACKE's C interface to the LAPACK routines that have rules
 * (lapack.c): LAPACKE_dpotrf, LAPACKE_dpotrs and LAPACKE_dgesv, and their
 * `_work` forms. liblapacke's own bodies are in a shared library, out of the
 * engine's sight; these do what LAPACKE 3.11 does (the layout and leading
 * dimension checks, the NaN checks unless LAPACKE_NANCHECK=0, the same
 * return codes and messages) by calling the Fortran routines, whose rules
 * then give the derivatives. The driver links a body only into a program
 * that declares it, with the type it declares (32-bit `lapack_int`).
 *
 * Row-major storage of a matrix is column-major storage of its transpose.
 * A symmetric matrix is its own transpose, so a row-major Cholesky factor
 * is the column-major factor of the other triangle, in place; LU factors
 * and right-hand sides are transposed into column-major copies and back,
 * as LAPACKE does.
 */
#include <stdio.h>
#include <stdlib.h>

#define BODY(name) __asm__(name) __attribute__((used))

enum { ROW_MAJOR = 101, COL_MAJOR = 102 };

void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info);
void dpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a, const int *lda, double *b,
             const int *ldb, int *info);
void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b, const int *ldb,
            int *info);

static int max1(int n) { return n > 1 ? n : 1; }

/* LAPACKE_xerbla's message. */
static int wrong(const char *name, int info) {
  printf("Wrong parameter %d in %s\n", -info, name);
  return info;
}

static int nancheck_on(void) {
  const char *e = getenv("LAPACKE_NANCHECK");
  return e == NULL || atoi(e) != 0;
}

static int is_lower(char uplo) { return uplo == 'L' || uplo == 'l'; }

/* Whether the triangle LAPACK reads (logical rows i, columns j) holds a NaN. */
static int triangle_has_nan(int layout, char uplo, int n, const double *a, int lda) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      if (is_lower(uplo) ? i < j : i > j)
        continue;
      double v = layout == COL_MAJOR ? a[i + (size_t)j * lda] : a[(size_t)i * lda + j];
      if (v != v)
        return 1;
    }
  return 0;
}

static int matrix_has_nan(int layout, int m, int n, const double *a, int lda) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      double v = layout == COL_MAJOR ? a[i + (size_t)j * lda] : a[(size_t)i * lda + j];
      if (v != v)
        return 1;
    }
  return 0;
}

/* m x n row-major (leading dimension ld) to column-major (ld_t) and back. */
static void to_col_major(int m, int n, const double *a, int ld, double *t, int ld_t) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      t[i + (size_t)j * ld_t] = a[(size_t)i * ld + j];
}
static void to_row_major(int m, int n, const double *t, int ld_t, double *a, int ld) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      a[(size_t)i * ld + j] = t[i + (size_t)j * ld_t];
}

static char other_triangle(char uplo) { return is_lower(uplo) ? 'U' : 'L'; }

/* ---- dpotrf ---- */
static int potrf_work(int layout, char uplo, int n, double *a, int lda) {
  int info = 0;
  if (layout == COL_MAJOR) {
    dpotrf_(&uplo, &n, a, &lda, &info);
  } else if (layout == ROW_MAJOR) {
    if (lda < n)
      return wrong("LAPACKE_dpotrf_work", -5);
    char t = other_triangle(uplo);
    dpotrf_(&t, &n, a, &lda, &info);
  } else {
    return wrong("LAPACKE_dpotrf_work", -1);
  }
  return info < 0 ? info - 1 : info;
}

int lapacke_dpotrf_work(int layout, char uplo, int n, double *a, int lda) BODY("LAPACKE_dpotrf_work");
int lapacke_dpotrf_work(int layout, char uplo, int n, double *a, int lda) {
  return potrf_work(layout, uplo, n, a, lda);
}

int lapacke_dpotrf(int layout, char uplo, int n, double *a, int lda) BODY("LAPACKE_dpotrf");
int lapacke_dpotrf(int layout, char uplo, int n, double *a, int lda) {
  if (layout != COL_MAJOR && layout != ROW_MAJOR)
    return wrong("LAPACKE_dpotrf", -1);
  if (nancheck_on() && triangle_has_nan(layout, uplo, n, a, lda))
    return -4;
  return potrf_work(layout, uplo, n, a, lda);
}

/* ---- dpotrs ---- */
static int potrs_work(int layout, char uplo, int n, int nrhs, const double *a, int lda, double *b, int ldb) {
  int info = 0;
  if (layout == COL_MAJOR) {
    dpotrs_(&uplo, &n, &nrhs, a, &lda, b, &ldb, &info);
  } else if (layout == ROW_MAJOR) {
    if (lda < n)
      return wrong("LAPACKE_dpotrs_work", -6);
    if (ldb < nrhs)
      return wrong("LAPACKE_dpotrs_work", -8);
    int ldb_t = max1(n);
    double *b_t = malloc(sizeof(double) * (size_t)ldb_t * (size_t)max1(nrhs));
    if (b_t == NULL)
      return -1011; /* LAPACK_TRANSPOSE_MEMORY_ERROR */
    to_col_major(n, nrhs, b, ldb, b_t, ldb_t);
    char t = other_triangle(uplo);
    dpotrs_(&t, &n, &nrhs, a, &lda, b_t, &ldb_t, &info);
    to_row_major(n, nrhs, b_t, ldb_t, b, ldb);
    free(b_t);
  } else {
    return wrong("LAPACKE_dpotrs_work", -1);
  }
  return info < 0 ? info - 1 : info;
}

int lapacke_dpotrs_work(int layout, char uplo, int n, int nrhs, const double *a, int lda, double *b, int ldb)
    BODY("LAPACKE_dpotrs_work");
int lapacke_dpotrs_work(int layout, char uplo, int n, int nrhs, const double *a, int lda, double *b, int ldb) {
  return potrs_work(layout, uplo, n, nrhs, a, lda, b, ldb);
}

int lapacke_dpotrs(int layout, char uplo, int n, int nrhs, const double *a, int lda, double *b, int ldb)
    BODY("LAPACKE_dpotrs");
int lapacke_dpotrs(int layout, char uplo, int n, int nrhs, const double *a, int lda, double *b, int ldb) {
  if (layout != COL_MAJOR && layout != ROW_MAJOR)
    return wrong("LAPACKE_dpotrs", -1);
  if (nancheck_on()) {
    if (triangle_has_nan(layout, uplo, n, a, lda))
      return -6;
    if (matrix_has_nan(layout, n, nrhs, b, ldb))
      return -8;
  }
  return potrs_work(layout, uplo, n, nrhs, a, lda, b, ldb);
}

/* ---- dgesv ---- */
static int gesv_work(int layout, int n, int nrhs, double *a, int lda, int *ipiv, double *b, int ldb) {
  int info = 0;
  if (layout == COL_MAJOR) {
    dgesv_(&n, &nrhs, a, &lda, ipiv, b, &ldb, &info);
  } else if (layout == ROW_MAJOR) {
    if (lda < n)
      return wrong("LAPACKE_dgesv_work", -5);
    if (ldb < nrhs)
      return wrong("LAPACKE_dgesv_work", -8);
    int lda_t = max1(n), ldb_t = max1(n);
    double *a_t = malloc(sizeof(double) * (size_t)lda_t * (size_t)max1(n));
    double *b_t = malloc(sizeof(double) * (size_t)ldb_t * (size_t)max1(nrhs));
    if (a_t == NULL || b_t == NULL) {
      free(a_t);
      free(b_t);
      return -1011; /* LAPACK_TRANSPOSE_MEMORY_ERROR */
    }
    to_col_major(n, n, a, lda, a_t, lda_t);
    to_col_major(n, nrhs, b, ldb, b_t, ldb_t);
    dgesv_(&n, &nrhs, a_t, &lda_t, ipiv, b_t, &ldb_t, &info);
    to_row_major(n, n, a_t, lda_t, a, lda);
    to_row_major(n, nrhs, b_t, ldb_t, b, ldb);
    free(a_t);
    free(b_t);
  } else {
    return wrong("LAPACKE_dgesv_work", -1);
  }
  return info < 0 ? info - 1 : info;
}

int lapacke_dgesv_work(int layout, int n, int nrhs, double *a, int lda, int *ipiv, double *b, int ldb)
    BODY("LAPACKE_dgesv_work");
int lapacke_dgesv_work(int layout, int n, int nrhs, double *a, int lda, int *ipiv, double *b, int ldb) {
  return gesv_work(layout, n, nrhs, a, lda, ipiv, b, ldb);
}

int lapacke_dgesv(int layout, int n, int nrhs, double *a, int lda, int *ipiv, double *b, int ldb)
    BODY("LAPACKE_dgesv");
int lapacke_dgesv(int layout, int n, int nrhs, double *a, int lda, int *ipiv, double *b, int ldb) {
  if (layout != COL_MAJOR && layout != ROW_MAJOR)
    return wrong("LAPACKE_dgesv", -1);
  if (nancheck_on()) {
    if (matrix_has_nan(layout, n, n, a, lda))
      return -4;
    if (matrix_has_nan(layout, n, nrhs, b, ldb))
      return -7;
  }
  return gesv_work(layout, n, nrhs, a, lda, ipiv, b, ldb);
}
