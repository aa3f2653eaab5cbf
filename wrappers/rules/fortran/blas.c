/*
 * The Fortran `dgemv` and `dgemm` as flang calls them: after the arguments,
 * one hidden length per character argument (`trans`). A separate rule file
 * (built into its own bitcode) because blas.c declares the same routines as
 * C programs do, without the lengths, and a program's declaration picks the
 * rules of its own type. The rules themselves are blas_products.h's.
 */
#include <stddef.h>
#include "../blas_products.h"

void dgemv_(const char *trans, const int *m, const int *n, const double *alpha, const double *a, const int *lda,
            const double *x, const int *incx, const double *beta, double *y, const int *incy, size_t trans_len);
void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k, const double *alpha,
            const double *a, const int *lda, const double *b, const int *ldb, const double *beta, double *c,
            const int *ldc, size_t ta_len, size_t tb_len);

static void h_dgemv_fwd(const char *trans, const char *dtrans, const int *m, const int *dm, const int *n,
                        const int *dn, const double *alpha, const double *dalpha, const double *a, const double *da,
                        const int *lda, const int *dlda, const double *x, const double *dx, const int *incx,
                        const int *dincx, const double *beta, const double *dbeta, double *y, double *dy,
                        const int *incy, const int *dincy, size_t len) {
  (void)len;
  f_dgemv_fwd(trans, dtrans, m, dm, n, dn, alpha, dalpha, a, da, lda, dlda, x, dx, incx, dincx, beta, dbeta, y, dy,
              incy, dincy);
}
static void *h_dgemv_aug(const char *trans, const char *dtrans, const int *m, const int *dm, const int *n,
                         const int *dn, const double *alpha, double *dalpha, const double *a, double *da,
                         const int *lda, const int *dlda, const double *x, double *dx, const int *incx,
                         const int *dincx, const double *beta, double *dbeta, double *y, double *dy, const int *incy,
                         const int *dincy, size_t len) {
  (void)len;
  return f_dgemv_aug(trans, dtrans, m, dm, n, dn, alpha, dalpha, a, da, lda, dlda, x, dx, incx, dincx, beta, dbeta, y,
                     dy, incy, dincy);
}
static void h_dgemv_rev(const char *trans, const char *dtrans, const int *m, const int *dm, const int *n,
                        const int *dn, const double *alpha, double *dalpha, const double *a, double *da,
                        const int *lda, const int *dlda, const double *x, double *dx, const int *incx,
                        const int *dincx, const double *beta, double *dbeta, double *y, double *dy, const int *incy,
                        const int *dincy, size_t len, void *tape) {
  (void)len;
  f_dgemv_rev(trans, dtrans, m, dm, n, dn, alpha, dalpha, a, da, lda, dlda, x, dx, incx, dincx, beta, dbeta, y, dy,
              incy, dincy, tape);
}
REGISTER void *__enzyme_register_derivative_dgemv_[2] = {(void *)dgemv_, (void *)h_dgemv_fwd};
REGISTER void *__enzyme_register_gradient_dgemv_[3] = {(void *)dgemv_, (void *)h_dgemv_aug, (void *)h_dgemv_rev};

static void h_dgemm_fwd(const char *ta, const char *dta, const char *tb, const char *dtb, const int *m, const int *dm,
                        const int *n, const int *dn, const int *k, const int *dk, const double *alpha,
                        const double *dalpha, const double *a, const double *da, const int *lda, const int *dlda,
                        const double *b, const double *db, const int *ldb, const int *dldb, const double *beta,
                        const double *dbeta, double *c, double *dc, const int *ldc, const int *dldc, size_t la,
                        size_t lb) {
  (void)la, (void)lb;
  f_dgemm_fwd(ta, dta, tb, dtb, m, dm, n, dn, k, dk, alpha, dalpha, a, da, lda, dlda, b, db, ldb, dldb, beta, dbeta, c,
              dc, ldc, dldc);
}
static void *h_dgemm_aug(const char *ta, const char *dta, const char *tb, const char *dtb, const int *m,
                         const int *dm, const int *n, const int *dn, const int *k, const int *dk, const double *alpha,
                         double *dalpha, const double *a, double *da, const int *lda, const int *dlda,
                         const double *b, double *db, const int *ldb, const int *dldb, const double *beta,
                         double *dbeta, double *c, double *dc, const int *ldc, const int *dldc, size_t la, size_t lb) {
  (void)la, (void)lb;
  return f_dgemm_aug(ta, dta, tb, dtb, m, dm, n, dn, k, dk, alpha, dalpha, a, da, lda, dlda, b, db, ldb, dldb, beta,
                     dbeta, c, dc, ldc, dldc);
}
static void h_dgemm_rev(const char *ta, const char *dta, const char *tb, const char *dtb, const int *m, const int *dm,
                        const int *n, const int *dn, const int *k, const int *dk, const double *alpha, double *dalpha,
                        const double *a, double *da, const int *lda, const int *dlda, const double *b, double *db,
                        const int *ldb, const int *dldb, const double *beta, double *dbeta, double *c, double *dc,
                        const int *ldc, const int *dldc, size_t la, size_t lb, void *tape) {
  (void)la, (void)lb;
  f_dgemm_rev(ta, dta, tb, dtb, m, dm, n, dn, k, dk, alpha, dalpha, a, da, lda, dlda, b, db, ldb, dldb, beta, dbeta, c,
              dc, ldc, dldc, tape);
}
REGISTER void *__enzyme_register_derivative_dgemm_[2] = {(void *)dgemm_, (void *)h_dgemm_fwd};
REGISTER void *__enzyme_register_gradient_dgemm_[3] = {(void *)dgemm_, (void *)h_dgemm_aug, (void *)h_dgemm_rev};
