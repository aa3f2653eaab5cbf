/*
 * Derivatives of BLAS routines, written as Enzyme custom rules that call
 * BLAS again. Built by `make install` into bitcode that enzyme-cc links
 * into a program calling these routines (only the registrations of the
 * routines it calls are kept). Both the CBLAS names and the Fortran ones
 * (`ddot_`, arguments by reference).
 *
 * Conventions (README, "Custom derivatives"): a forward rule takes every
 * float and pointer parameter followed by its tangent or shadow (a null
 * shadow: that argument carries no derivative); an augmented forward
 * returns the tape (and the primal result, `{tape, primal}`), and the
 * reverse rule takes the parameters (pointers with their shadows), the
 * result's adjoint, the tape, and returns the float parameters' adjoints.
 * Tapes keep copies of the inputs the reverse pass needs, since the caller
 * may overwrite them in between.
 */
#include "blas_common.h"

/* ---- ddot: r = x . y ---- */
static dual ddot_fwd(int n, const double *x, const double *dx, int incx, const double *y, const double *dy, int incy) {
  dual r = {cblas_ddot(n, x, incx, y, incy), 0};
  if (dx)
    r.tangent += cblas_ddot(n, dx, incx, y, incy);
  if (dy)
    r.tangent += cblas_ddot(n, x, incx, dy, incy);
  return r;
}
static aug_double ddot_aug(int n, const double *x, double *dx, int incx, const double *y, double *dy, int incy) {
  double **t = malloc(2 * sizeof(double *));
  t[0] = dy ? saved(n, x, incx) : NULL; /* x, for y's adjoint */
  t[1] = dx ? saved(n, y, incy) : NULL; /* y, for x's adjoint */
  return (aug_double){t, cblas_ddot(n, x, incx, y, incy)};
}
static void ddot_rev(int n, const double *x, double *dx, int incx, const double *y, double *dy, int incy, double dr,
                     void *tape) {
  double **t = tape;
  (void)x, (void)y;
  if (dx)
    cblas_daxpy(n, dr, t[1], 1, dx, incx);
  if (dy)
    cblas_daxpy(n, dr, t[0], 1, dy, incy);
  free(t[0]);
  free(t[1]);
  free(t);
}
REGISTER void *__enzyme_register_derivative_cblas_ddot[2] = {(void *)cblas_ddot, (void *)ddot_fwd};
REGISTER void *__enzyme_register_gradient_cblas_ddot[3] = {(void *)cblas_ddot, (void *)ddot_aug, (void *)ddot_rev};

static dual f_ddot_fwd(const int *n, const int *dn, const double *x, const double *dx, const int *incx,
                       const int *dincx, const double *y, const double *dy, const int *incy, const int *dincy) {
  (void)dn, (void)dincx, (void)dincy;
  return ddot_fwd(*n, x, dx, *incx, y, dy, *incy);
}
static aug_double f_ddot_aug(const int *n, const int *dn, const double *x, double *dx, const int *incx,
                             const int *dincx, const double *y, double *dy, const int *incy, const int *dincy) {
  (void)dn, (void)dincx, (void)dincy;
  return ddot_aug(*n, x, dx, *incx, y, dy, *incy);
}
static void f_ddot_rev(const int *n, const int *dn, const double *x, double *dx, const int *incx, const int *dincx,
                       const double *y, double *dy, const int *incy, const int *dincy, double dr, void *tape) {
  (void)dn, (void)dincx, (void)dincy;
  ddot_rev(*n, x, dx, *incx, y, dy, *incy, dr, tape);
}
REGISTER void *__enzyme_register_derivative_ddot_[2] = {(void *)ddot_, (void *)f_ddot_fwd};
REGISTER void *__enzyme_register_gradient_ddot_[3] = {(void *)ddot_, (void *)f_ddot_aug, (void *)f_ddot_rev};

/* ---- daxpy: y += alpha x ---- */
static void daxpy_tangent(int n, double alpha, double dalpha, const double *x, const double *dx, int incx, double *y,
                          double *dy, int incy) {
  if (dy) {
    if (dx)
      cblas_daxpy(n, alpha, dx, incx, dy, incy);
    if (dalpha != 0)
      cblas_daxpy(n, dalpha, x, incx, dy, incy);
  }
  cblas_daxpy(n, alpha, x, incx, y, incy);
}
/* The adjoint of alpha; x's adjoint gains alpha times y's (which stays). */
static double daxpy_adjoint(int n, double alpha, double *dx, int incx, double *dy, int incy, void *tape) {
  double da = 0;
  if (dy) {
    da = cblas_ddot(n, tape, 1, dy, incy);
    if (dx)
      cblas_daxpy(n, alpha, dy, incy, dx, incx);
  }
  free(tape);
  return da;
}
static void cblas_daxpy_fwd(int n, double alpha, double dalpha, const double *x, const double *dx, int incx,
                            double *y, double *dy, int incy) {
  daxpy_tangent(n, alpha, dalpha, x, dx, incx, y, dy, incy);
}
static void *cblas_daxpy_aug(int n, double alpha, const double *x, double *dx, int incx, double *y, double *dy,
                             int incy) {
  (void)dx, (void)dy;
  double *t = saved(n, x, incx);
  cblas_daxpy(n, alpha, x, incx, y, incy);
  return t;
}
static double cblas_daxpy_rev(int n, double alpha, const double *x, double *dx, int incx, double *y, double *dy,
                              int incy, void *tape) {
  (void)x, (void)y;
  return daxpy_adjoint(n, alpha, dx, incx, dy, incy, tape);
}
REGISTER void *__enzyme_register_derivative_cblas_daxpy[2] = {(void *)cblas_daxpy, (void *)cblas_daxpy_fwd};
REGISTER void *__enzyme_register_gradient_cblas_daxpy[3] = {(void *)cblas_daxpy, (void *)cblas_daxpy_aug,
                                                   (void *)cblas_daxpy_rev};

static void f_daxpy_fwd(const int *n, const int *dn, const double *alpha, const double *dalpha, const double *x,
                        const double *dx, const int *incx, const int *dincx, double *y, double *dy, const int *incy,
                        const int *dincy) {
  (void)dn, (void)dincx, (void)dincy;
  daxpy_tangent(*n, *alpha, dalpha ? *dalpha : 0, x, dx, *incx, y, dy, *incy);
}
static void *f_daxpy_aug(const int *n, const int *dn, const double *alpha, double *dalpha, const double *x, double *dx,
                         const int *incx, const int *dincx, double *y, double *dy, const int *incy, const int *dincy) {
  (void)dn, (void)dalpha, (void)dx, (void)dincx, (void)dy, (void)dincy;
  double *t = saved(*n, x, *incx);
  cblas_daxpy(*n, *alpha, x, *incx, y, *incy);
  return t;
}
static void f_daxpy_rev(const int *n, const int *dn, const double *alpha, double *dalpha, const double *x, double *dx,
                        const int *incx, const int *dincx, double *y, double *dy, const int *incy, const int *dincy,
                        void *tape) {
  (void)dn, (void)x, (void)dincx, (void)y, (void)dincy;
  double da = daxpy_adjoint(*n, *alpha, dx, *incx, dy, *incy, tape);
  if (dalpha)
    *dalpha += da;
}
REGISTER void *__enzyme_register_derivative_daxpy_[2] = {(void *)daxpy_, (void *)f_daxpy_fwd};
REGISTER void *__enzyme_register_gradient_daxpy_[3] = {(void *)daxpy_, (void *)f_daxpy_aug, (void *)f_daxpy_rev};

/* ---- dscal: x *= alpha ---- */
/* BLAS leaves x as it is for a stride below 1: so does the derivative. */
static void dscal_tangent(int n, double alpha, double dalpha, double *x, double *dx, int incx) {
  if (dx && incx > 0) {
    cblas_dscal(n, alpha, dx, incx);
    if (dalpha != 0)
      cblas_daxpy(n, dalpha, x, incx, dx, incx);
  }
  cblas_dscal(n, alpha, x, incx);
}
static double dscal_adjoint(int n, double alpha, double *dx, int incx, void *tape) {
  double da = 0;
  if (dx && incx > 0) {
    da = cblas_ddot(n, tape, 1, dx, incx);
    cblas_dscal(n, alpha, dx, incx);
  }
  free(tape);
  return da;
}
static void cblas_dscal_fwd(int n, double alpha, double dalpha, double *x, double *dx, int incx) {
  dscal_tangent(n, alpha, dalpha, x, dx, incx);
}
static void *cblas_dscal_aug(int n, double alpha, double *x, double *dx, int incx) {
  (void)dx;
  double *t = saved(n, x, incx);
  cblas_dscal(n, alpha, x, incx);
  return t;
}
static double cblas_dscal_rev(int n, double alpha, double *x, double *dx, int incx, void *tape) {
  (void)x;
  return dscal_adjoint(n, alpha, dx, incx, tape);
}
REGISTER void *__enzyme_register_derivative_cblas_dscal[2] = {(void *)cblas_dscal, (void *)cblas_dscal_fwd};
REGISTER void *__enzyme_register_gradient_cblas_dscal[3] = {(void *)cblas_dscal, (void *)cblas_dscal_aug,
                                                   (void *)cblas_dscal_rev};

static void f_dscal_fwd(const int *n, const int *dn, const double *alpha, const double *dalpha, double *x, double *dx,
                        const int *incx, const int *dincx) {
  (void)dn, (void)dincx;
  dscal_tangent(*n, *alpha, dalpha ? *dalpha : 0, x, dx, *incx);
}
static void *f_dscal_aug(const int *n, const int *dn, const double *alpha, double *dalpha, double *x, double *dx,
                         const int *incx, const int *dincx) {
  (void)dn, (void)dalpha, (void)dx, (void)dincx;
  double *t = saved(*n, x, *incx);
  cblas_dscal(*n, *alpha, x, *incx);
  return t;
}
static void f_dscal_rev(const int *n, const int *dn, const double *alpha, double *dalpha, double *x, double *dx,
                        const int *incx, const int *dincx, void *tape) {
  (void)dn, (void)x, (void)dincx;
  double da = dscal_adjoint(*n, *alpha, dx, *incx, tape);
  if (dalpha)
    *dalpha += da;
}
REGISTER void *__enzyme_register_derivative_dscal_[2] = {(void *)dscal_, (void *)f_dscal_fwd};
REGISTER void *__enzyme_register_gradient_dscal_[3] = {(void *)dscal_, (void *)f_dscal_aug, (void *)f_dscal_rev};

/* ---- dnrm2: r = |x| (the derivative at x = 0 taken as 0) ---- */
static dual dnrm2_fwd(int n, const double *x, const double *dx, int incx) {
  dual r = {cblas_dnrm2(n, x, incx), 0};
  if (dx && r.value != 0)
    r.tangent = cblas_ddot(n, x, incx, dx, incx) / r.value;
  return r;
}
/* The tape: x, then the norm as BLAS computed it (reference BLAS returns 0
 * for a stride below 1, and so has no derivative there). */
static aug_double dnrm2_aug(int n, const double *x, double *dx, int incx) {
  double r = cblas_dnrm2(n, x, incx), *t = NULL;
  if (dx) {
    t = malloc((n > 0 ? n + 1 : 1) * sizeof(double));
    if (n > 0)
      cblas_dcopy(n, x, incx, t, 1);
    t[n > 0 ? n : 0] = r;
  }
  return (aug_double){t, r};
}
static void dnrm2_rev(int n, const double *x, double *dx, int incx, double dr, void *tape) {
  (void)x;
  if (dx) {
    double *t = tape, r = t[n > 0 ? n : 0];
    if (r != 0)
      cblas_daxpy(n, dr / r, t, 1, dx, incx);
  }
  free(tape);
}
REGISTER void *__enzyme_register_derivative_cblas_dnrm2[2] = {(void *)cblas_dnrm2, (void *)dnrm2_fwd};
REGISTER void *__enzyme_register_gradient_cblas_dnrm2[3] = {(void *)cblas_dnrm2, (void *)dnrm2_aug, (void *)dnrm2_rev};

static dual f_dnrm2_fwd(const int *n, const int *dn, const double *x, const double *dx, const int *incx,
                        const int *dincx) {
  (void)dn, (void)dincx;
  return dnrm2_fwd(*n, x, dx, *incx);
}
static aug_double f_dnrm2_aug(const int *n, const int *dn, const double *x, double *dx, const int *incx,
                              const int *dincx) {
  (void)dn, (void)dincx;
  return dnrm2_aug(*n, x, dx, *incx);
}
static void f_dnrm2_rev(const int *n, const int *dn, const double *x, double *dx, const int *incx, const int *dincx,
                        double dr, void *tape) {
  (void)dn, (void)dincx;
  dnrm2_rev(*n, x, dx, *incx, dr, tape);
}
REGISTER void *__enzyme_register_derivative_dnrm2_[2] = {(void *)dnrm2_, (void *)f_dnrm2_fwd};
REGISTER void *__enzyme_register_gradient_dnrm2_[3] = {(void *)dnrm2_, (void *)f_dnrm2_aug, (void *)f_dnrm2_rev};

/* ---- dgemv: y = alpha op(A) x + beta y ---- */
typedef struct {
  double alpha, beta;
} dgemv_adjoints;

/* op(A) is rows x cols; A is m x n as stored. */
static void dgemv_dims(int trans, int m, int n, int *rows, int *cols) {
  *rows = trans == NoTrans ? m : n;
  *cols = trans == NoTrans ? n : m;
}

static void cblas_dgemv_fwd(int layout, int trans, int m, int n, double alpha, double dalpha, const double *a,
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
static void *cblas_dgemv_aug(int layout, int trans, int m, int n, double alpha, const double *a, double *da, int lda,
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

static dgemv_adjoints cblas_dgemv_rev(int layout, int trans, int m, int n, double alpha, const double *a, double *da,
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
REGISTER void *__enzyme_register_derivative_cblas_dgemv[2] = {(void *)cblas_dgemv, (void *)cblas_dgemv_fwd};
REGISTER void *__enzyme_register_gradient_cblas_dgemv[3] = {(void *)cblas_dgemv, (void *)cblas_dgemv_aug,
                                                   (void *)cblas_dgemv_rev};

/* ---- dgemm: C = alpha op(A) op(B) + beta C ---- */
typedef dgemv_adjoints dgemm_adjoints;

/* The lines (rows or columns, as stored) of an m x n matrix. */
static int lines_of(int layout, int m, int n) { return layout == RowMajor ? m : n; }
static int line_len(int layout, int m, int n) { return layout == RowMajor ? n : m; }

static void matrix_scale(int layout, int m, int n, double alpha, double *a, int lda) {
  for (int k = 0; k < lines_of(layout, m, n); k++)
    cblas_dscal(line_len(layout, m, n), alpha, a + (size_t)k * lda, 1);
}
static void matrix_axpy(int layout, int m, int n, double alpha, const double *x, int ldx, double *y, int ldy) {
  for (int k = 0; k < lines_of(layout, m, n); k++)
    cblas_daxpy(line_len(layout, m, n), alpha, x + (size_t)k * ldx, 1, y + (size_t)k * ldy, 1);
}
static double matrix_dot(int layout, int m, int n, const double *x, int ldx, const double *y, int ldy) {
  double s = 0;
  for (int k = 0; k < lines_of(layout, m, n); k++)
    s += cblas_ddot(line_len(layout, m, n), x + (size_t)k * ldx, 1, y + (size_t)k * ldy, 1);
  return s;
}

/* Stored shapes: A is ra x ca, B is rb x cb. */
static void dgemm_shapes(int ta, int tb, int m, int n, int k, int *ra, int *ca, int *rb, int *cb) {
  *ra = ta == NoTrans ? m : k;
  *ca = ta == NoTrans ? k : m;
  *rb = tb == NoTrans ? k : n;
  *cb = tb == NoTrans ? n : k;
}

static void cblas_dgemm_fwd(int layout, int ta, int tb, int m, int n, int k, double alpha, double dalpha,
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
static void *cblas_dgemm_aug(int layout, int ta, int tb, int m, int n, int k, double alpha, const double *a, double *da,
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

static dgemm_adjoints cblas_dgemm_rev(int layout, int ta, int tb, int m, int n, int k, double alpha, const double *a,
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
REGISTER void *__enzyme_register_derivative_cblas_dgemm[2] = {(void *)cblas_dgemm, (void *)cblas_dgemm_fwd};
REGISTER void *__enzyme_register_gradient_cblas_dgemm[3] = {(void *)cblas_dgemm, (void *)cblas_dgemm_aug,
                                                            (void *)cblas_dgemm_rev};

/* ---- Fortran dgemv_ and dgemm_ (column-major, arguments by reference) ---- */
static int fortran_trans(const char *t) { return *t == 'N' || *t == 'n' ? NoTrans : Trans; }
static double tangent_of(const double *d) { return d ? *d : 0; }
static void add_adjoint(double *d, double v) {
  if (d)
    *d += v;
}

static void f_dgemv_fwd(const char *trans, const char *dtrans, const int *m, const int *dm, const int *n,
                        const int *dn, const double *alpha, const double *dalpha, const double *a, const double *da,
                        const int *lda, const int *dlda, const double *x, const double *dx, const int *incx,
                        const int *dincx, const double *beta, const double *dbeta, double *y, double *dy,
                        const int *incy, const int *dincy) {
  (void)dtrans, (void)dm, (void)dn, (void)dlda, (void)dincx, (void)dincy;
  cblas_dgemv_fwd(ColMajor, fortran_trans(trans), *m, *n, *alpha, tangent_of(dalpha), a, da, *lda, x, dx, *incx,
                  *beta, tangent_of(dbeta), y, dy, *incy);
}
static void *f_dgemv_aug(const char *trans, const char *dtrans, const int *m, const int *dm, const int *n,
                         const int *dn, const double *alpha, double *dalpha, const double *a, double *da,
                         const int *lda, const int *dlda, const double *x, double *dx, const int *incx,
                         const int *dincx, const double *beta, double *dbeta, double *y, double *dy, const int *incy,
                         const int *dincy) {
  (void)dtrans, (void)dm, (void)dn, (void)dalpha, (void)dlda, (void)dincx, (void)dbeta, (void)dincy;
  return cblas_dgemv_aug(ColMajor, fortran_trans(trans), *m, *n, *alpha, a, da, *lda, x, dx, *incx, *beta, y, dy,
                         *incy);
}
static void f_dgemv_rev(const char *trans, const char *dtrans, const int *m, const int *dm, const int *n,
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
REGISTER void *__enzyme_register_derivative_dgemv_[2] = {(void *)dgemv_, (void *)f_dgemv_fwd};
REGISTER void *__enzyme_register_gradient_dgemv_[3] = {(void *)dgemv_, (void *)f_dgemv_aug, (void *)f_dgemv_rev};

static void f_dgemm_fwd(const char *ta, const char *dta, const char *tb, const char *dtb, const int *m, const int *dm,
                        const int *n, const int *dn, const int *k, const int *dk, const double *alpha,
                        const double *dalpha, const double *a, const double *da, const int *lda, const int *dlda,
                        const double *b, const double *db, const int *ldb, const int *dldb, const double *beta,
                        const double *dbeta, double *c, double *dc, const int *ldc, const int *dldc) {
  (void)dta, (void)dtb, (void)dm, (void)dn, (void)dk, (void)dlda, (void)dldb, (void)dldc;
  cblas_dgemm_fwd(ColMajor, fortran_trans(ta), fortran_trans(tb), *m, *n, *k, *alpha, tangent_of(dalpha), a, da, *lda,
                  b, db, *ldb, *beta, tangent_of(dbeta), c, dc, *ldc);
}
static void *f_dgemm_aug(const char *ta, const char *dta, const char *tb, const char *dtb, const int *m,
                         const int *dm, const int *n, const int *dn, const int *k, const int *dk, const double *alpha,
                         double *dalpha, const double *a, double *da, const int *lda, const int *dlda,
                         const double *b, double *db, const int *ldb, const int *dldb, const double *beta,
                         double *dbeta, double *c, double *dc, const int *ldc, const int *dldc) {
  (void)dta, (void)dtb, (void)dm, (void)dn, (void)dk, (void)dalpha, (void)dlda, (void)dldb, (void)dbeta, (void)dldc;
  return cblas_dgemm_aug(ColMajor, fortran_trans(ta), fortran_trans(tb), *m, *n, *k, *alpha, a, da, *lda, b, db, *ldb,
                         *beta, c, dc, *ldc);
}
static void f_dgemm_rev(const char *ta, const char *dta, const char *tb, const char *dtb, const int *m, const int *dm,
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
REGISTER void *__enzyme_register_derivative_dgemm_[2] = {(void *)dgemm_, (void *)f_dgemm_fwd};
REGISTER void *__enzyme_register_gradient_dgemm_[3] = {(void *)dgemm_, (void *)f_dgemm_aug, (void *)f_dgemm_rev};
