/*
 * Derivatives of the LAPACK Cholesky routines `dpotrf_` (factor) and
 * `dpotrs_` (solve with the factor), Fortran interface as C programs
 * declare it (no hidden string lengths), as Enzyme custom rules
 * (conventions: the top of blas.c) calling BLAS and LAPACK again.
 *
 * With A = L L^T (uplo 'L'; 'U' is the transposed case, A = U^T U):
 *   forward   dL = L Phi(L^-1 dA L^-T), Phi = lower triangle, diagonal halved;
 *   reverse   S = L^-T Phi(L^T Lbar) L^-1, and A's adjoint is S + S^T
 *             (S on the diagonal) in the triangle that was read.
 *   dpotrs    X = A^-1 B: dX = A^-1 (dB - dA X); Bbar = A^-1 Xbar, and the
 *             factor's adjoint is -(Bbar X^T + X Bbar^T) L, lower part.
 * Only the triangle LAPACK reads and writes carries derivatives; the other
 * is left as it is, as LAPACK leaves it. A failed factorisation (info > 0)
 * has no derivative: the rules then leave the shadows as they are.
 */
#include "blas_common.h"

void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info);
void dpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a, const int *lda, double *b,
             const int *ldb, int *info);
void cblas_dtrmm(int layout, int side, int uplo, int trans, int diag, int m, int n, double alpha, const double *a,
                 int lda, double *b, int ldb);

static int lower_of(const char *uplo) { return *uplo == 'L' || *uplo == 'l'; }

static double *zeros(int n) { return calloc((size_t)(n > 0 ? n : 1) * (n > 0 ? n : 1), sizeof(double)); }

/* The factor as a packed lower-triangular n x n matrix (the transpose of U). */
static double *lower_factor(int lower, int n, const double *a, int lda) {
  double *l = zeros(n);
  for (int j = 0; j < n; j++)
    for (int i = j; i < n; i++)
      l[i + (size_t)j * n] = lower ? a[i + (size_t)j * lda] : a[j + (size_t)i * lda];
  return l;
}

/* Writes the lower triangle of packed m into the triangle of a that was read. */
static void store_triangle(int lower, int n, const double *m, double *a, int lda) {
  for (int j = 0; j < n; j++)
    for (int i = j; i < n; i++) {
      if (lower)
        a[i + (size_t)j * lda] = m[i + (size_t)j * n];
      else
        a[j + (size_t)i * lda] = m[i + (size_t)j * n];
    }
}

/* Phi: the lower triangle with the diagonal halved; the upper part zeroed. */
static void phi(int n, double *m) {
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      if (i < j)
        m[i + (size_t)j * n] = 0;
      else if (i == j)
        m[i + (size_t)j * n] *= 0.5;
    }
}

/* ---- dpotrf ---- */
static void f_dpotrf_fwd(const char *uplo, const char *duplo, const int *n, const int *dn, double *a, double *da,
                         const int *lda, const int *dlda, int *info, int *dinfo) {
  (void)duplo, (void)dn, (void)dlda, (void)dinfo;
  int lower = lower_of(uplo), m = *n;
  /* The tangent of the input, symmetric, from the triangle read. */
  double *x = zeros(m);
  if (da)
    for (int j = 0; j < m; j++)
      for (int i = j; i < m; i++) {
        double v = lower ? da[i + (size_t)j * *lda] : da[j + (size_t)i * *lda];
        x[i + (size_t)j * m] = x[j + (size_t)i * m] = v;
      }
  dpotrf_(uplo, n, a, lda, info);
  if (da && *info == 0) {
    double *l = lower_factor(lower, m, a, *lda);
    cblas_dtrsm(ColMajor, Left, Lower, NoTrans, NonUnit, m, m, 1.0, l, m, x, m);
    cblas_dtrsm(ColMajor, Right, Lower, Trans, NonUnit, m, m, 1.0, l, m, x, m);
    phi(m, x);
    cblas_dtrmm(ColMajor, Left, Lower, NoTrans, NonUnit, m, m, 1.0, l, m, x, m);
    store_triangle(lower, m, x, da, *lda);
    free(l);
  }
  free(x);
}

static void *f_dpotrf_aug(const char *uplo, const char *duplo, const int *n, const int *dn, double *a, double *da,
                          const int *lda, const int *dlda, int *info, int *dinfo) {
  (void)duplo, (void)dn, (void)da, (void)dlda, (void)dinfo;
  dpotrf_(uplo, n, a, lda, info);
  /* The tape: the factor (null if the factorisation failed). */
  return *info == 0 ? lower_factor(lower_of(uplo), *n, a, *lda) : NULL;
}

static void f_dpotrf_rev(const char *uplo, const char *duplo, const int *n, const int *dn, double *a, double *da,
                         const int *lda, const int *dlda, int *info, int *dinfo, void *tape) {
  (void)duplo, (void)dn, (void)a, (void)dlda, (void)info, (void)dinfo;
  double *l = tape;
  int lower = lower_of(uplo), m = *n;
  if (da && l) {
    double *s = lower_factor(lower, m, da, *lda); /* Lbar, lower */
    cblas_dtrmm(ColMajor, Left, Lower, Trans, NonUnit, m, m, 1.0, l, m, s, m); /* L^T Lbar */
    phi(m, s);
    cblas_dtrsm(ColMajor, Left, Lower, Trans, NonUnit, m, m, 1.0, l, m, s, m);
    cblas_dtrsm(ColMajor, Right, Lower, NoTrans, NonUnit, m, m, 1.0, l, m, s, m);
    double *abar = zeros(m);
    for (int j = 0; j < m; j++)
      for (int i = j; i < m; i++)
        abar[i + (size_t)j * m] = i == j ? s[i + (size_t)i * m] : s[i + (size_t)j * m] + s[j + (size_t)i * m];
    /* The input was overwritten: its adjoint replaces the output's. */
    store_triangle(lower, m, abar, da, *lda);
    free(abar);
    free(s);
  }
  free(l);
}
REGISTER void *__enzyme_register_derivative_dpotrf_[2] = {(void *)dpotrf_, (void *)f_dpotrf_fwd};
REGISTER void *__enzyme_register_gradient_dpotrf_[3] = {(void *)dpotrf_, (void *)f_dpotrf_aug, (void *)f_dpotrf_rev};

/* ---- dpotrs ---- */

/* A packed n x k copy of a column-major matrix with leading dimension ld. */
static double *packed(int n, int k, const double *b, int ld) {
  double *p = malloc((size_t)(n > 0 ? n : 1) * (k > 0 ? k : 1) * sizeof(double));
  for (int j = 0; j < k; j++)
    memcpy(p + (size_t)j * n, b + (size_t)j * ld, (size_t)n * sizeof(double));
  return p;
}

static void f_dpotrs_fwd(const char *uplo, const char *duplo, const int *n, const int *dn, const int *nrhs,
                         const int *dnrhs, const double *a, const double *da, const int *lda, const int *dlda,
                         double *b, double *db, const int *ldb, const int *dldb, int *info, int *dinfo) {
  (void)duplo, (void)dn, (void)dnrhs, (void)dlda, (void)dldb, (void)dinfo;
  int lower = lower_of(uplo), m = *n, k = *nrhs;
  dpotrs_(uplo, n, nrhs, a, lda, b, ldb, info);
  if (!db)
    return;
  if (da) {
    /* dB -= dA X, dA = dL L^T + L dL^T. */
    double *l = lower_factor(lower, m, a, *lda), *dl = lower_factor(lower, m, da, *lda);
    double *x = packed(m, k, b, *ldb), *t = packed(m, k, b, *ldb);
    cblas_dtrmm(ColMajor, Left, Lower, Trans, NonUnit, m, k, 1.0, l, m, x, m);  /* L^T X */
    cblas_dtrmm(ColMajor, Left, Lower, NoTrans, NonUnit, m, k, 1.0, dl, m, x, m); /* dL L^T X */
    cblas_dtrmm(ColMajor, Left, Lower, Trans, NonUnit, m, k, 1.0, dl, m, t, m); /* dL^T X */
    cblas_dtrmm(ColMajor, Left, Lower, NoTrans, NonUnit, m, k, 1.0, l, m, t, m);  /* L dL^T X */
    for (int j = 0; j < k; j++)
      for (int i = 0; i < m; i++)
        db[i + (size_t)j * *ldb] -= x[i + (size_t)j * m] + t[i + (size_t)j * m];
    free(l);
    free(dl);
    free(x);
    free(t);
  }
  int ok;
  dpotrs_(uplo, n, nrhs, a, lda, db, ldb, &ok);
}

static void *f_dpotrs_aug(const char *uplo, const char *duplo, const int *n, const int *dn, const int *nrhs,
                          const int *dnrhs, const double *a, double *da, const int *lda, const int *dlda, double *b,
                          double *db, const int *ldb, const int *dldb, int *info, int *dinfo) {
  (void)duplo, (void)dn, (void)dnrhs, (void)da, (void)dlda, (void)db, (void)dldb, (void)dinfo;
  void **t = malloc(2 * sizeof(void *));
  t[0] = lower_factor(lower_of(uplo), *n, a, *lda);
  dpotrs_(uplo, n, nrhs, a, lda, b, ldb, info);
  t[1] = packed(*n, *nrhs, b, *ldb); /* the solution X */
  return t;
}

static void f_dpotrs_rev(const char *uplo, const char *duplo, const int *n, const int *dn, const int *nrhs,
                         const int *dnrhs, const double *a, double *da, const int *lda, const int *dlda, double *b,
                         double *db, const int *ldb, const int *dldb, int *info, int *dinfo, void *tape) {
  (void)duplo, (void)dn, (void)dnrhs, (void)a, (void)b, (void)dlda, (void)dldb, (void)info, (void)dinfo;
  void **t = tape;
  double *l = t[0], *x = t[1];
  int lower = lower_of(uplo), m = *n, k = *nrhs;
  if (db) {
    /* Bbar = A^-1 Xbar, in place (the solution overwrote B); with the
     * factor from the tape, as the caller may have changed a since. */
    int ok;
    dpotrs_("L", n, nrhs, l, n, db, ldb, &ok);
    if (da) {
      /* Lbar = -(Bbar X^T + X Bbar^T) L, lower part, added to the factor's shadow. */
      double *g = packed(m, k, db, *ldb), *w = zeros(m);
      cblas_dgemm(ColMajor, NoTrans, Trans, m, m, k, -1.0, g, m, x, m, 0.0, w, m);
      cblas_dgemm(ColMajor, NoTrans, Trans, m, m, k, -1.0, x, m, g, m, 1.0, w, m);
      cblas_dtrmm(ColMajor, Right, Lower, NoTrans, NonUnit, m, m, 1.0, l, m, w, m);
      for (int j = 0; j < m; j++)
        for (int i = j; i < m; i++) {
          if (lower)
            da[i + (size_t)j * *lda] += w[i + (size_t)j * m];
          else
            da[j + (size_t)i * *lda] += w[i + (size_t)j * m];
        }
      free(g);
      free(w);
    }
  }
  free(l);
  free(x);
  free(t);
}
REGISTER void *__enzyme_register_derivative_dpotrs_[2] = {(void *)dpotrs_, (void *)f_dpotrs_fwd};
REGISTER void *__enzyme_register_gradient_dpotrs_[3] = {(void *)dpotrs_, (void *)f_dpotrs_aug, (void *)f_dpotrs_rev};

/* ---- dgesv: P A = L U (unit lower L), A overwritten by L and U, B by X ----
 *   forward   F = L^-1 P dA U^-1: dL = L (strict lower of F), dU = (upper of F) U;
 *             dX = A^-1 (dB - dA X);
 *   reverse   Bbar = A^-T Xbar; A's adjoint is -Bbar X^T plus
 *             P^T L^-T (strict lower of L^T Lbar + upper of Ubar U^T) U^-T.
 */
void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b, const int *ldb,
            int *info);
void dgetrs_(const char *trans, const int *n, const int *nrhs, const double *a, const int *lda, const int *ipiv,
             double *b, const int *ldb, int *info);
void dlaswp_(const int *n, double *a, const int *lda, const int *k1, const int *k2, const int *ipiv,
             const int *incx);

/* L (unit diagonal) and U, packed n x n, from the factors stored together. */
static void split_lu(int n, const double *lu, int ld, double *l, double *u) {
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      double v = lu[i + (size_t)j * ld];
      l[i + (size_t)j * n] = i > j ? v : i == j ? 1 : 0;
      u[i + (size_t)j * n] = i <= j ? v : 0;
    }
}

/* Rows of the packed n x k matrix m permuted as LAPACK's pivots say
 * (forward: P m; backward: P^T m). */
static void pivot_rows(int n, int k, double *m, const int *ipiv, int backward) {
  int one = 1, inc = backward ? -1 : 1;
  dlaswp_(&k, m, &n, &one, &n, ipiv, &inc);
}

static void f_dgesv_fwd(const int *n, const int *dn, const int *nrhs, const int *dnrhs, double *a, double *da,
                        const int *lda, const int *dlda, int *ipiv, int *dipiv, double *b, double *db,
                        const int *ldb, const int *dldb, int *info, int *dinfo) {
  (void)dn, (void)dnrhs, (void)dlda, (void)dipiv, (void)dldb, (void)dinfo;
  int m = *n, k = *nrhs;
  double *dA = da ? packed(m, m, da, *lda) : NULL;
  dgesv_(n, nrhs, a, lda, ipiv, b, ldb, info);
  if (*info != 0) {
    free(dA);
    return;
  }
  if (db) {
    if (dA) { /* dB -= dA X */
      double *x = packed(m, k, b, *ldb), *r = packed(m, k, db, *ldb);
      cblas_dgemm(ColMajor, NoTrans, NoTrans, m, k, m, -1.0, dA, m, x, m, 1.0, r, m);
      for (int j = 0; j < k; j++)
        memcpy(db + (size_t)j * *ldb, r + (size_t)j * m, (size_t)m * sizeof(double));
      free(x);
      free(r);
    }
    int ok;
    dgetrs_("N", n, nrhs, a, lda, ipiv, db, ldb, &ok);
  }
  if (dA) {
    double *l = zeros(m), *u = zeros(m);
    split_lu(m, a, *lda, l, u);
    pivot_rows(m, m, dA, ipiv, 0); /* P dA */
    cblas_dtrsm(ColMajor, Left, Lower, NoTrans, Unit, m, m, 1.0, l, m, dA, m);
    cblas_dtrsm(ColMajor, Right, Upper, NoTrans, NonUnit, m, m, 1.0, u, m, dA, m); /* F */
    double *fl = zeros(m), *fu = zeros(m);
    for (int j = 0; j < m; j++)
      for (int i = 0; i < m; i++) {
        if (i > j)
          fl[i + (size_t)j * m] = dA[i + (size_t)j * m];
        else
          fu[i + (size_t)j * m] = dA[i + (size_t)j * m];
      }
    cblas_dtrmm(ColMajor, Left, Lower, NoTrans, Unit, m, m, 1.0, l, m, fl, m);     /* dL = L tril(F) */
    cblas_dtrmm(ColMajor, Right, Upper, NoTrans, NonUnit, m, m, 1.0, u, m, fu, m); /* dU = triu(F) U */
    for (int j = 0; j < m; j++)
      for (int i = 0; i < m; i++)
        da[i + (size_t)j * *lda] = i > j ? fl[i + (size_t)j * m] : fu[i + (size_t)j * m];
    free(l);
    free(u);
    free(fl);
    free(fu);
  }
  free(dA);
}

/* The tape: the factors packed, the pivots, the solution. */
static void *f_dgesv_aug(const int *n, const int *dn, const int *nrhs, const int *dnrhs, double *a, double *da,
                         const int *lda, const int *dlda, int *ipiv, int *dipiv, double *b, double *db,
                         const int *ldb, const int *dldb, int *info, int *dinfo) {
  (void)dn, (void)dnrhs, (void)da, (void)dlda, (void)dipiv, (void)db, (void)dldb, (void)dinfo;
  dgesv_(n, nrhs, a, lda, ipiv, b, ldb, info);
  if (*info != 0)
    return NULL;
  void **t = malloc(3 * sizeof(void *));
  t[0] = packed(*n, *n, a, *lda);
  t[1] = malloc((size_t)(*n > 0 ? *n : 1) * sizeof(int));
  memcpy(t[1], ipiv, (size_t)*n * sizeof(int));
  t[2] = packed(*n, *nrhs, b, *ldb);
  return t;
}

static void f_dgesv_rev(const int *n, const int *dn, const int *nrhs, const int *dnrhs, double *a, double *da,
                        const int *lda, const int *dlda, int *ipiv, int *dipiv, double *b, double *db,
                        const int *ldb, const int *dldb, int *info, int *dinfo, void *tape) {
  (void)dn, (void)dnrhs, (void)a, (void)dlda, (void)ipiv, (void)dipiv, (void)b, (void)dldb, (void)info, (void)dinfo;
  void **t = tape;
  if (!t)
    return;
  double *lu = t[0], *x = t[2];
  int *piv = t[1];
  int m = *n, k = *nrhs;
  double *abar = zeros(m);
  if (db) {
    int ok;
    dgetrs_("T", n, nrhs, lu, n, piv, db, ldb, &ok); /* Bbar = A^-T Xbar, in place */
    double *g = packed(m, k, db, *ldb);
    cblas_dgemm(ColMajor, NoTrans, Trans, m, m, k, -1.0, g, m, x, m, 0.0, abar, m);
    free(g);
  }
  if (da) {
    double *l = zeros(m), *u = zeros(m), *lbar = zeros(m), *ubar = zeros(m);
    split_lu(m, lu, m, l, u);
    for (int j = 0; j < m; j++)
      for (int i = 0; i < m; i++) {
        double v = da[i + (size_t)j * *lda];
        if (i > j)
          lbar[i + (size_t)j * m] = v;
        else
          ubar[i + (size_t)j * m] = v;
      }
    cblas_dtrmm(ColMajor, Left, Lower, Trans, Unit, m, m, 1.0, l, m, lbar, m);     /* L^T Lbar */
    cblas_dtrmm(ColMajor, Right, Upper, Trans, NonUnit, m, m, 1.0, u, m, ubar, m); /* Ubar U^T */
    double *c = zeros(m);
    for (int j = 0; j < m; j++)
      for (int i = 0; i < m; i++)
        c[i + (size_t)j * m] = i > j ? lbar[i + (size_t)j * m] : ubar[i + (size_t)j * m];
    cblas_dtrsm(ColMajor, Left, Lower, Trans, Unit, m, m, 1.0, l, m, c, m);
    cblas_dtrsm(ColMajor, Right, Upper, Trans, NonUnit, m, m, 1.0, u, m, c, m);
    pivot_rows(m, m, c, piv, 1); /* P^T */
    /* A was overwritten: its adjoint replaces the factors'. */
    for (int j = 0; j < m; j++)
      for (int i = 0; i < m; i++)
        da[i + (size_t)j * *lda] = c[i + (size_t)j * m] + abar[i + (size_t)j * m];
    free(l);
    free(u);
    free(lbar);
    free(ubar);
    free(c);
  }
  free(abar);
  free(lu);
  free(piv);
  free(x);
  free(t);
}
REGISTER void *__enzyme_register_derivative_dgesv_[2] = {(void *)dgesv_, (void *)f_dgesv_fwd};
REGISTER void *__enzyme_register_gradient_dgesv_[3] = {(void *)dgesv_, (void *)f_dgesv_aug, (void *)f_dgesv_rev};
