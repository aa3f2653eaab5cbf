/* The rules of the matrix-vector and matrix-matrix products (`dgemv`,
 * `dgemm`: CBLAS, and the Fortran routines by reference), shared by the
 * rule files that register them for the CBLAS names and for each Fortran
 * calling convention (blas.c: as C declares them; fortran/blas.c: with
 * flang's hidden string lengths). Conventions: the top of blas.c. */
#ifndef ENZYME_RS_BLAS_PRODUCTS_H
#define ENZYME_RS_BLAS_PRODUCTS_H
#include "blas_common.h"

/* ---- dgemv: y = alpha op(A) x + beta y ---- */
typedef struct {
  double alpha, beta;
} dgemv_adjoints;

/* op(A) is rows x cols; A is m x n as stored. */
static __attribute__((unused)) void dgemv_dims(int trans, int m, int n, int *rows, int *cols) {
  *rows = trans == NoTrans ? m : n;
  *cols = trans == NoTrans ? n : m;
}

static __attribute__((unused)) void cblas_dgemv_fwd(int layout, int trans, int m, int n, double alpha, double dalpha, const double *a,
                            const double *da, int lda, const double *x, const double *dx, int incx, double beta,
                            double dbeta, double *y, double *dy, int incy) {
  int rows, cols;
  dgemv_dims(trans, m, n, &rows, &cols);
  if (dy) {
    /* dy = beta dy + dbeta y + alpha op(A) dx + alpha op(dA) x + dalpha op(A) x, from the old y. */
    scale_vector(rows, beta, dy, incy);
    if (dbeta != 0)
      cblas_daxpy(rows, dbeta, y, incy, dy, incy);
    if (dx)
      cblas_dgemv(layout, trans, m, n, alpha, a, lda, dx, incx, 1.0, dy, incy);
    if (da)
      cblas_dgemv(layout, trans, m, n, alpha, da, lda, x, incx, 1.0, dy, incy);
    if (dalpha != 0)
      cblas_dgemv(layout, trans, m, n, dalpha, a, lda, x, incx, 1.0, dy, incy);
  }
  cblas_dgemv(layout, trans, m, n, alpha, a, lda, x, incx, beta, y, incy);
}

/* The tape: A packed, x, and the old y. */
static __attribute__((unused)) void *cblas_dgemv_aug(int layout, int trans, int m, int n, double alpha, const double *a, double *da, int lda,
                             const double *x, double *dx, int incx, double beta, double *y, double *dy, int incy) {
  (void)da, (void)dx, (void)dy;
  int rows, cols;
  dgemv_dims(trans, m, n, &rows, &cols);
  void **t = malloc(3 * sizeof(void *));
  t[0] = saved_matrix(layout, m, n, a, lda);
  t[1] = saved(cols, x, incx);
  t[2] = saved(rows, y, incy);
  cblas_dgemv(layout, trans, m, n, alpha, a, lda, x, incx, beta, y, incy);
  return t;
}

static __attribute__((unused)) dgemv_adjoints cblas_dgemv_rev(int layout, int trans, int m, int n, double alpha, const double *a, double *da,
                                      int lda, const double *x, double *dx, int incx, double beta, double *y,
                                      double *dy, int incy, void *tape) {
  (void)a, (void)x, (void)y;
  void **t = tape;
  double *sa = t[0], *sx = t[1], *sy = t[2];
  int ld = layout == RowMajor ? n : m;
  int rows, cols;
  dgemv_dims(trans, m, n, &rows, &cols);
  dgemv_adjoints r = {0, 0};
  if (dy) {
    double *ax = malloc((rows > 0 ? rows : 1) * sizeof(double));
    cblas_dgemv(layout, trans, m, n, 1.0, sa, ld, sx, 1, 0.0, ax, 1);
    r.alpha = cblas_ddot(rows, dy, incy, ax, 1);
    r.beta = cblas_ddot(rows, dy, incy, sy, 1);
    free(ax);
    if (dx)
      cblas_dgemv(layout, trans == NoTrans ? Trans : NoTrans, m, n, alpha, sa, ld, dy, incy, 1.0, dx, incx);
    if (da) {
      if (trans == NoTrans)
        cblas_dger(layout, m, n, alpha, dy, incy, sx, 1, da, lda);
      else
        cblas_dger(layout, m, n, alpha, sx, 1, dy, incy, da, lda);
    }
    scale_vector(rows, beta, dy, incy);
  }
  free(sa);
  free(sx);
  free(sy);
  free(t);
  return r;
}

/* ---- dgemm: C = alpha op(A) op(B) + beta C ---- */
typedef dgemv_adjoints dgemm_adjoints;

/* The lines (rows or columns, as stored) of an m x n matrix. */
static __attribute__((unused)) int lines_of(int layout, int m, int n) { return layout == RowMajor ? m : n; }
static __attribute__((unused)) int line_len(int layout, int m, int n) { return layout == RowMajor ? n : m; }

static __attribute__((unused)) void matrix_scale(int layout, int m, int n, double alpha, double *a, int lda) {
  for (int k = 0; k < lines_of(layout, m, n); k++)
    cblas_dscal(line_len(layout, m, n), alpha, a + (size_t)k * lda, 1);
}
static __attribute__((unused)) void matrix_axpy(int layout, int m, int n, double alpha, const double *x, int ldx, double *y, int ldy) {
  for (int k = 0; k < lines_of(layout, m, n); k++)
    cblas_daxpy(line_len(layout, m, n), alpha, x + (size_t)k * ldx, 1, y + (size_t)k * ldy, 1);
}
static __attribute__((unused)) double matrix_dot(int layout, int m, int n, const double *x, int ldx, const double *y, int ldy) {
  double s = 0;
  for (int k = 0; k < lines_of(layout, m, n); k++)
    s += cblas_ddot(line_len(layout, m, n), x + (size_t)k * ldx, 1, y + (size_t)k * ldy, 1);
  return s;
}

/* Stored shapes: A is ra x ca, B is rb x cb. */
static __attribute__((unused)) void dgemm_shapes(int ta, int tb, int m, int n, int k, int *ra, int *ca, int *rb, int *cb) {
  *ra = ta == NoTrans ? m : k;
  *ca = ta == NoTrans ? k : m;
  *rb = tb == NoTrans ? k : n;
  *cb = tb == NoTrans ? n : k;
}

static __attribute__((unused)) void cblas_dgemm_fwd(int layout, int ta, int tb, int m, int n, int k, double alpha, double dalpha,
                            const double *a, const double *da, int lda, const double *b, const double *db, int ldb,
                            double beta, double dbeta, double *c, double *dc, int ldc) {
  if (dc) {
    matrix_scale(layout, m, n, beta, dc, ldc);
    if (dbeta != 0)
      matrix_axpy(layout, m, n, dbeta, c, ldc, dc, ldc);
    if (da)
      cblas_dgemm(layout, ta, tb, m, n, k, alpha, da, lda, b, ldb, 1.0, dc, ldc);
    if (db)
      cblas_dgemm(layout, ta, tb, m, n, k, alpha, a, lda, db, ldb, 1.0, dc, ldc);
    if (dalpha != 0)
      cblas_dgemm(layout, ta, tb, m, n, k, dalpha, a, lda, b, ldb, 1.0, dc, ldc);
  }
  cblas_dgemm(layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

/* The tape: A and B packed, and the old C. */
static __attribute__((unused)) void *cblas_dgemm_aug(int layout, int ta, int tb, int m, int n, int k, double alpha, const double *a, double *da,
                             int lda, const double *b, double *db, int ldb, double beta, double *c, double *dc,
                             int ldc) {
  (void)da, (void)db, (void)dc;
  int ra, ca, rb, cb;
  dgemm_shapes(ta, tb, m, n, k, &ra, &ca, &rb, &cb);
  void **t = malloc(3 * sizeof(void *));
  t[0] = saved_matrix(layout, ra, ca, a, lda);
  t[1] = saved_matrix(layout, rb, cb, b, ldb);
  t[2] = saved_matrix(layout, m, n, c, ldc);
  cblas_dgemm(layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  return t;
}

static __attribute__((unused)) dgemm_adjoints cblas_dgemm_rev(int layout, int ta, int tb, int m, int n, int k, double alpha, const double *a,
                                      double *da, int lda, const double *b, double *db, int ldb, double beta, double *c,
                                      double *dc, int ldc, void *tape) {
  (void)a, (void)b, (void)c;
  void **t = tape;
  double *sa = t[0], *sb = t[1], *sc = t[2];
  int ra, ca, rb, cb;
  dgemm_shapes(ta, tb, m, n, k, &ra, &ca, &rb, &cb);
  int ldsa = line_len(layout, ra, ca), ldsb = line_len(layout, rb, cb), ldsc = line_len(layout, m, n);
  int not_ta = ta == NoTrans ? Trans : NoTrans, not_tb = tb == NoTrans ? Trans : NoTrans;
  dgemm_adjoints r = {0, 0};
  if (dc) {
    double *p = malloc((m * n > 0 ? m * n : 1) * sizeof(double));
    cblas_dgemm(layout, ta, tb, m, n, k, 1.0, sa, ldsa, sb, ldsb, 0.0, p, ldsc);
    r.alpha = matrix_dot(layout, m, n, dc, ldc, p, ldsc);
    r.beta = matrix_dot(layout, m, n, dc, ldc, sc, ldsc);
    free(p);
    if (da) {
      if (ta == NoTrans) /* dA += alpha G op(B)^T */
        cblas_dgemm(layout, NoTrans, not_tb, m, k, n, alpha, dc, ldc, sb, ldsb, 1.0, da, lda);
      else /* dA += alpha op(B) G^T */
        cblas_dgemm(layout, tb == NoTrans ? NoTrans : Trans, Trans, k, m, n, alpha, sb, ldsb, dc, ldc, 1.0, da, lda);
    }
    if (db) {
      if (tb == NoTrans) /* dB += alpha op(A)^T G */
        cblas_dgemm(layout, not_ta, NoTrans, k, n, m, alpha, sa, ldsa, dc, ldc, 1.0, db, ldb);
      else /* dB += alpha G^T op(A) */
        cblas_dgemm(layout, Trans, ta == NoTrans ? NoTrans : Trans, n, k, m, alpha, dc, ldc, sa, ldsa, 1.0, db, ldb);
    }
    matrix_scale(layout, m, n, beta, dc, ldc);
  }
  free(sa);
  free(sb);
  free(sc);
  free(t);
  return r;
}

/* ---- Fortran dgemv_ and dgemm_ (column-major, arguments by reference) ---- */
static __attribute__((unused)) int fortran_trans(const char *t) { return *t == 'N' || *t == 'n' ? NoTrans : Trans; }
static __attribute__((unused)) double tangent_of(const double *d) { return d ? *d : 0; }
static __attribute__((unused)) void add_adjoint(double *d, double v) {
  if (d)
    *d += v;
}

static __attribute__((unused)) void f_dgemv_fwd(const char *trans, const char *dtrans, const int *m, const int *dm, const int *n,
                        const int *dn, const double *alpha, const double *dalpha, const double *a, const double *da,
                        const int *lda, const int *dlda, const double *x, const double *dx, const int *incx,
                        const int *dincx, const double *beta, const double *dbeta, double *y, double *dy,
                        const int *incy, const int *dincy) {
  (void)dtrans, (void)dm, (void)dn, (void)dlda, (void)dincx, (void)dincy;
  cblas_dgemv_fwd(ColMajor, fortran_trans(trans), *m, *n, *alpha, tangent_of(dalpha), a, da, *lda, x, dx, *incx,
                  *beta, tangent_of(dbeta), y, dy, *incy);
}
static __attribute__((unused)) void *f_dgemv_aug(const char *trans, const char *dtrans, const int *m, const int *dm, const int *n,
                         const int *dn, const double *alpha, double *dalpha, const double *a, double *da,
                         const int *lda, const int *dlda, const double *x, double *dx, const int *incx,
                         const int *dincx, const double *beta, double *dbeta, double *y, double *dy, const int *incy,
                         const int *dincy) {
  (void)dtrans, (void)dm, (void)dn, (void)dalpha, (void)dlda, (void)dincx, (void)dbeta, (void)dincy;
  return cblas_dgemv_aug(ColMajor, fortran_trans(trans), *m, *n, *alpha, a, da, *lda, x, dx, *incx, *beta, y, dy,
                         *incy);
}
static __attribute__((unused)) void f_dgemv_rev(const char *trans, const char *dtrans, const int *m, const int *dm, const int *n,
                        const int *dn, const double *alpha, double *dalpha, const double *a, double *da,
                        const int *lda, const int *dlda, const double *x, double *dx, const int *incx,
                        const int *dincx, const double *beta, double *dbeta, double *y, double *dy, const int *incy,
                        const int *dincy, void *tape) {
  (void)dtrans, (void)dm, (void)dn, (void)dlda, (void)dincx, (void)dincy;
  dgemv_adjoints r = cblas_dgemv_rev(ColMajor, fortran_trans(trans), *m, *n, *alpha, a, da, *lda, x, dx, *incx, *beta,
                                     y, dy, *incy, tape);
  add_adjoint(dalpha, r.alpha);
  add_adjoint(dbeta, r.beta);
}

static __attribute__((unused)) void f_dgemm_fwd(const char *ta, const char *dta, const char *tb, const char *dtb, const int *m, const int *dm,
                        const int *n, const int *dn, const int *k, const int *dk, const double *alpha,
                        const double *dalpha, const double *a, const double *da, const int *lda, const int *dlda,
                        const double *b, const double *db, const int *ldb, const int *dldb, const double *beta,
                        const double *dbeta, double *c, double *dc, const int *ldc, const int *dldc) {
  (void)dta, (void)dtb, (void)dm, (void)dn, (void)dk, (void)dlda, (void)dldb, (void)dldc;
  cblas_dgemm_fwd(ColMajor, fortran_trans(ta), fortran_trans(tb), *m, *n, *k, *alpha, tangent_of(dalpha), a, da, *lda,
                  b, db, *ldb, *beta, tangent_of(dbeta), c, dc, *ldc);
}
static __attribute__((unused)) void *f_dgemm_aug(const char *ta, const char *dta, const char *tb, const char *dtb, const int *m,
                         const int *dm, const int *n, const int *dn, const int *k, const int *dk, const double *alpha,
                         double *dalpha, const double *a, double *da, const int *lda, const int *dlda,
                         const double *b, double *db, const int *ldb, const int *dldb, const double *beta,
                         double *dbeta, double *c, double *dc, const int *ldc, const int *dldc) {
  (void)dta, (void)dtb, (void)dm, (void)dn, (void)dk, (void)dalpha, (void)dlda, (void)dldb, (void)dbeta, (void)dldc;
  return cblas_dgemm_aug(ColMajor, fortran_trans(ta), fortran_trans(tb), *m, *n, *k, *alpha, a, da, *lda, b, db, *ldb,
                         *beta, c, dc, *ldc);
}
static __attribute__((unused)) void f_dgemm_rev(const char *ta, const char *dta, const char *tb, const char *dtb, const int *m, const int *dm,
                        const int *n, const int *dn, const int *k, const int *dk, const double *alpha, double *dalpha,
                        const double *a, double *da, const int *lda, const int *dlda, const double *b, double *db,
                        const int *ldb, const int *dldb, const double *beta, double *dbeta, double *c, double *dc,
                        const int *ldc, const int *dldc, void *tape) {
  (void)dta, (void)dtb, (void)dm, (void)dn, (void)dk, (void)dlda, (void)dldb, (void)dldc;
  dgemm_adjoints r = cblas_dgemm_rev(ColMajor, fortran_trans(ta), fortran_trans(tb), *m, *n, *k, *alpha, a, da, *lda,
                                     b, db, *ldb, *beta, c, dc, *ldc, tape);
  add_adjoint(dalpha, r.alpha);
  add_adjoint(dbeta, r.beta);
}

#endif
