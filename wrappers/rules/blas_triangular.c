/*
 * Derivatives of the symmetric and triangular BLAS routines (CBLAS
 * `dsymv`, `dtrsv`, `dtrsm`), as Enzyme custom rules (conventions: the top
 * of blas.c). Only the triangle a routine reads is an input: adjoints go
 * into that triangle of the shadow (the other one is left as it is), a
 * unit diagonal is not read and gets none, and tangents of the other
 * triangle are ignored, as the routine ignores its values.
 */
#include "blas_common.h"

typedef struct {
  double alpha, beta;
} alpha_beta;

static int flip(int trans) { return trans == NoTrans ? Trans : NoTrans; }

/* Whether element (i, j) of a triangular matrix is read (a unit diagonal is not). */
static int in_triangle(int uplo, int diag, int i, int j) {
  return (uplo == Upper ? j >= i : j <= i) && !(diag == Unit && i == j);
}

/* Element (i, j) of op(T), T the part of A the routine reads. */
static double op_triangle(int layout, int uplo, int trans, int diag, const double *a, int lda, int i, int j) {
  int r = trans == NoTrans ? i : j, c = trans == NoTrans ? j : i;
  return in_triangle(uplo, diag, r, c) ? a[at(layout, lda, r, c)] : 0;
}

/* ---- dsymv: y = alpha A x + beta y, A symmetric, one triangle stored ---- */
static void cblas_dsymv_fwd(int layout, int uplo, int n, double alpha, double dalpha, const double *a,
                            const double *da, int lda, const double *x, const double *dx, int incx, double beta,
                            double dbeta, double *y, double *dy, int incy) {
  if (dy) {
    /* From the old y: dy = beta dy + dbeta y + alpha A dx + alpha dA x + dalpha A x. */
    scale_vector(n, beta, dy, incy);
    if (dbeta != 0)
      cblas_daxpy(n, dbeta, y, incy, dy, incy);
    if (dx)
      cblas_dsymv(layout, uplo, n, alpha, a, lda, dx, incx, 1.0, dy, incy);
    if (da) /* the stored triangle of dA, symmetric as A is */
      cblas_dsymv(layout, uplo, n, alpha, da, lda, x, incx, 1.0, dy, incy);
    if (dalpha != 0)
      cblas_dsymv(layout, uplo, n, dalpha, a, lda, x, incx, 1.0, dy, incy);
  }
  cblas_dsymv(layout, uplo, n, alpha, a, lda, x, incx, beta, y, incy);
}

/* The tape: A packed, x, and the old y. */
static void *cblas_dsymv_aug(int layout, int uplo, int n, double alpha, const double *a, double *da, int lda,
                             const double *x, double *dx, int incx, double beta, double *y, double *dy, int incy) {
  (void)da, (void)dx, (void)dy;
  void **t = malloc(3 * sizeof(void *));
  t[0] = saved_matrix(layout, n, n, a, lda);
  t[1] = saved(n, x, incx);
  t[2] = saved(n, y, incy);
  cblas_dsymv(layout, uplo, n, alpha, a, lda, x, incx, beta, y, incy);
  return t;
}

static alpha_beta cblas_dsymv_rev(int layout, int uplo, int n, double alpha, const double *a, double *da, int lda,
                                  const double *x, double *dx, int incx, double beta, double *y, double *dy, int incy,
                                  void *tape) {
  (void)a, (void)x, (void)y;
  void **t = tape;
  double *sa = t[0], *sx = t[1], *sy = t[2];
  alpha_beta r = {0, 0};
  if (dy) {
    double *g = saved(n, dy, incy), *ax = malloc((n > 0 ? n : 1) * sizeof(double));
    cblas_dsymv(layout, uplo, n, 1.0, sa, n, sx, 1, 0.0, ax, 1);
    r.alpha = cblas_ddot(n, g, 1, ax, 1);
    r.beta = cblas_ddot(n, g, 1, sy, 1);
    if (dx)
      cblas_dsymv(layout, uplo, n, alpha, sa, n, g, 1, 1.0, dx, incx);
    if (da) {
      /* An off-diagonal stored element stands for two entries of A. */
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
          if (in_triangle(uplo, NonUnit, i, j))
            da[at(layout, lda, i, j)] += alpha * (i == j ? g[i] * sx[i] : g[i] * sx[j] + g[j] * sx[i]);
    }
    scale_vector(n, beta, dy, incy);
    free(g);
    free(ax);
  }
  free(sa);
  free(sx);
  free(sy);
  free(t);
  return r;
}
REGISTER void *__enzyme_register_derivative_cblas_dsymv[2] = {(void *)cblas_dsymv, (void *)cblas_dsymv_fwd};
REGISTER void *__enzyme_register_gradient_cblas_dsymv[3] = {(void *)cblas_dsymv, (void *)cblas_dsymv_aug,
                                                   (void *)cblas_dsymv_rev};

/* ---- dtrsv: x = op(A)^-1 x, A triangular ---- */
static void cblas_dtrsv_fwd(int layout, int uplo, int trans, int diag, int n, const double *a, const double *da,
                            int lda, double *x, double *dx, int incx) {
  cblas_dtrsv(layout, uplo, trans, diag, n, a, lda, x, incx);
  if (dx) {
    /* op(A) x = b: op(A) dx = db - op(dA) x. */
    if (da) {
      double *xs = saved(n, x, incx);
      for (int i = 0; i < n; i++) {
        double s = 0;
        for (int j = 0; j < n; j++)
          s += op_triangle(layout, uplo, trans, diag, da, lda, i, j) * xs[j];
        *element(dx, n, incx, i) -= s;
      }
      free(xs);
    }
    cblas_dtrsv(layout, uplo, trans, diag, n, a, lda, dx, incx);
  }
}

/* The tape: A packed, and the solution. */
static void *cblas_dtrsv_aug(int layout, int uplo, int trans, int diag, int n, const double *a, double *da, int lda,
                             double *x, double *dx, int incx) {
  (void)da, (void)dx;
  void **t = malloc(2 * sizeof(void *));
  t[0] = saved_matrix(layout, n, n, a, lda);
  cblas_dtrsv(layout, uplo, trans, diag, n, a, lda, x, incx);
  t[1] = saved(n, x, incx);
  return t;
}

static void cblas_dtrsv_rev(int layout, int uplo, int trans, int diag, int n, const double *a, double *da, int lda,
                            double *x, double *dx, int incx, void *tape) {
  (void)a, (void)x;
  void **t = tape;
  double *sa = t[0], *sx = t[1];
  if (dx) {
    /* b's adjoint g = op(A)^-T (x's adjoint), in place; op(A)'s is -g x^T. */
    cblas_dtrsv(layout, uplo, flip(trans), diag, n, sa, n, dx, incx);
    if (da) {
      double *g = saved(n, dx, incx);
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
          if (in_triangle(uplo, diag, i, j))
            da[at(layout, lda, i, j)] -= trans == NoTrans ? g[i] * sx[j] : sx[i] * g[j];
      free(g);
    }
  }
  free(sa);
  free(sx);
  free(t);
}
REGISTER void *__enzyme_register_derivative_cblas_dtrsv[2] = {(void *)cblas_dtrsv, (void *)cblas_dtrsv_fwd};
REGISTER void *__enzyme_register_gradient_cblas_dtrsv[3] = {(void *)cblas_dtrsv, (void *)cblas_dtrsv_aug,
                                                   (void *)cblas_dtrsv_rev};

/* ---- dtrsm: B = alpha op(A)^-1 B (side Left) or alpha B op(A)^-1 (Right) ---- */

/* Element (i, j) of op(T) X (Left) or X op(T) (Right), X m x n. */
static double triangle_times(int layout, int side, int uplo, int trans, int diag, int m, int n, const double *t,
                             int ldt, const double *x, int ldx, int i, int j) {
  double s = 0;
  if (side == Left)
    for (int q = 0; q < m; q++)
      s += op_triangle(layout, uplo, trans, diag, t, ldt, i, q) * x[at(layout, ldx, q, j)];
  else
    for (int q = 0; q < n; q++)
      s += x[at(layout, ldx, i, q)] * op_triangle(layout, uplo, trans, diag, t, ldt, q, j);
  return s;
}

static void cblas_dtrsm_fwd(int layout, int side, int uplo, int trans, int diag, int m, int n, double alpha,
                            double dalpha, const double *a, const double *da, int lda, double *b, double *db,
                            int ldb) {
  int ld = layout == RowMajor ? n : m;
  double *old = db && dalpha != 0 ? saved_matrix(layout, m, n, b, ldb) : NULL;
  cblas_dtrsm(layout, side, uplo, trans, diag, m, n, alpha, a, lda, b, ldb);
  if (db) {
    /* op(A) X = alpha B: op(A) dX = alpha dB + dalpha B - op(dA) X (Left; Right alike). */
    for (int i = 0; i < m; i++)
      for (int j = 0; j < n; j++) {
        double v = alpha * db[at(layout, ldb, i, j)];
        if (old)
          v += dalpha * old[at(layout, ld, i, j)];
        if (da)
          v -= triangle_times(layout, side, uplo, trans, diag, m, n, da, lda, b, ldb, i, j);
        db[at(layout, ldb, i, j)] = v;
      }
    cblas_dtrsm(layout, side, uplo, trans, diag, m, n, 1.0, a, lda, db, ldb);
  }
  free(old);
}

/* The tape: A packed, the old B and the solution X, packed. */
static void *cblas_dtrsm_aug(int layout, int side, int uplo, int trans, int diag, int m, int n, double alpha,
                             const double *a, double *da, int lda, double *b, double *db, int ldb) {
  (void)da, (void)db;
  int k = side == Left ? m : n;
  void **t = malloc(3 * sizeof(void *));
  t[0] = saved_matrix(layout, k, k, a, lda);
  t[1] = saved_matrix(layout, m, n, b, ldb);
  cblas_dtrsm(layout, side, uplo, trans, diag, m, n, alpha, a, lda, b, ldb);
  t[2] = saved_matrix(layout, m, n, b, ldb);
  return t;
}

static double cblas_dtrsm_rev(int layout, int side, int uplo, int trans, int diag, int m, int n, double alpha,
                              const double *a, double *da, int lda, double *b, double *db, int ldb, void *tape) {
  (void)a, (void)b;
  void **t = tape;
  double *sa = t[0], *old = t[1], *sx = t[2];
  int k = side == Left ? m : n, ld = layout == RowMajor ? n : m;
  double dalpha = 0;
  if (db) {
    /* G = op(A)^-T (X's adjoint) (Left) or (X's adjoint) op(A)^-T (Right), in place. */
    cblas_dtrsm(layout, side, uplo, flip(trans), diag, m, n, 1.0, sa, k, db, ldb);
    for (int i = 0; i < m; i++)
      for (int j = 0; j < n; j++)
        dalpha += db[at(layout, ldb, i, j)] * old[at(layout, ld, i, j)];
    if (da) {
      /* op(A)'s adjoint: -G X^T (Left) or -X^T G (Right); A's is it or its transpose. */
      for (int r = 0; r < k; r++)
        for (int c = 0; c < k; c++) {
          if (!in_triangle(uplo, diag, r, c))
            continue;
          int p = trans == NoTrans ? r : c, q = trans == NoTrans ? c : r;
          double s = 0;
          if (side == Left)
            for (int j = 0; j < n; j++)
              s += db[at(layout, ldb, p, j)] * sx[at(layout, ld, q, j)];
          else
            for (int i = 0; i < m; i++)
              s += sx[at(layout, ld, i, p)] * db[at(layout, ldb, i, q)];
          da[at(layout, lda, r, c)] -= s;
        }
    }
    /* B's adjoint: alpha G. */
    for (int i = 0; i < m; i++)
      for (int j = 0; j < n; j++)
        db[at(layout, ldb, i, j)] *= alpha;
  }
  free(sa);
  free(old);
  free(sx);
  free(t);
  return dalpha;
}
REGISTER void *__enzyme_register_derivative_cblas_dtrsm[2] = {(void *)cblas_dtrsm, (void *)cblas_dtrsm_fwd};
REGISTER void *__enzyme_register_gradient_cblas_dtrsm[3] = {(void *)cblas_dtrsm, (void *)cblas_dtrsm_aug,
                                                   (void *)cblas_dtrsm_rev};
