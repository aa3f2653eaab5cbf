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
#include "blas_products.h"

/* As C programs declare them (no hidden lengths of the character arguments). */
void dgemv_(const char *trans, const int *m, const int *n, const double *alpha, const double *a, const int *lda,
            const double *x, const int *incx, const double *beta, double *y, const int *incy);
void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k, const double *alpha,
            const double *a, const int *lda, const double *b, const int *ldb, const double *beta, double *c,
            const int *ldc);

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

/* ---- dgemv, dgemm: the rules are in blas_products.h ---- */
REGISTER void *__enzyme_register_derivative_cblas_dgemv[2] = {(void *)cblas_dgemv, (void *)cblas_dgemv_fwd};
REGISTER void *__enzyme_register_gradient_cblas_dgemv[3] = {(void *)cblas_dgemv, (void *)cblas_dgemv_aug,
                                                   (void *)cblas_dgemv_rev};
REGISTER void *__enzyme_register_derivative_cblas_dgemm[2] = {(void *)cblas_dgemm, (void *)cblas_dgemm_fwd};
REGISTER void *__enzyme_register_gradient_cblas_dgemm[3] = {(void *)cblas_dgemm, (void *)cblas_dgemm_aug,
                                                            (void *)cblas_dgemm_rev};
REGISTER void *__enzyme_register_derivative_dgemv_[2] = {(void *)dgemv_, (void *)f_dgemv_fwd};
REGISTER void *__enzyme_register_gradient_dgemv_[3] = {(void *)dgemv_, (void *)f_dgemv_aug, (void *)f_dgemv_rev};
REGISTER void *__enzyme_register_derivative_dgemm_[2] = {(void *)dgemm_, (void *)f_dgemm_fwd};
REGISTER void *__enzyme_register_gradient_dgemm_[3] = {(void *)dgemm_, (void *)f_dgemm_aug, (void *)f_dgemm_rev};
