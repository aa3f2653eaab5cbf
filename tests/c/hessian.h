/*
 * Second derivatives by nesting entry points, as Enzyme's users write them:
 * for `double f(const double *x)` with N inputs, the full Hessian four ways
 * (forward over reverse, reverse over reverse, forward over forward,
 * reverse over forward), each entry compared with central differences of
 * the gradient, and the four with each other.
 */
#ifndef HESSIAN_H
#define HESSIAN_H
#include "check.h"

void __enzyme_autodiff_v(void *, ...);
void __enzyme_fwddiff_v(void *, ...);

/* f_grad(x, g): g = ∇f(x) by reverse mode; f_dir(x, v) = ∇f(x)·v by forward mode. */
#define DEFINE_HESSIAN_HELPERS(f, N)                                           \
  static void f##_grad(const double *x, double *g) {                           \
    double dx_[N] = {0};                                                       \
    __enzyme_autodiff_v((void *)f, enzyme_dup, x, dx_);                        \
    for (int i_ = 0; i_ < N; i_++) g[i_] = dx_[i_];                            \
  }                                                                            \
  static double f##_dir(const double *x, const double *v) {                    \
    return __enzyme_fwddiff((void *)f, enzyme_dup, x, v);                      \
  }

#define CHECK_HESSIAN(f, N, ...)                                                        \
  do {                                                                                  \
    const double x0_[N] = {__VA_ARGS__};                                                \
    double x_[N], H_fr[N][N], H_rr[N][N], H_ff[N][N], H_rf[N][N], fd_[N][N];           \
    for (int j = 0; j < N; j++) { /* central differences of the gradient */             \
      double xp_[N], xm_[N], gp_[N], gm_[N];                                            \
      double h_ = 1e-5 * (fabs(x0_[j]) > 1 ? fabs(x0_[j]) : 1);                         \
      for (int k = 0; k < N; k++) xp_[k] = xm_[k] = x0_[k];                             \
      xp_[j] += h_;                                                                     \
      xm_[j] -= h_;                                                                     \
      f##_grad(xp_, gp_);                                                               \
      f##_grad(xm_, gm_);                                                               \
      for (int i = 0; i < N; i++) fd_[i][j] = (gp_[i] - gm_[i]) / (2 * h_);             \
    }                                                                                   \
    for (int j = 0; j < N; j++) {                                                       \
      double v_[N] = {0}, g_[N], hv_[N] = {0};                                          \
      for (int k = 0; k < N; k++) x_[k] = x0_[k];                                       \
      v_[j] = 1;                                                                        \
      /* forward over reverse: column j */                                              \
      __enzyme_fwddiff_v((void *)f##_grad, enzyme_dup, x_, v_, enzyme_dup, g_, hv_);    \
      for (int i = 0; i < N; i++) H_fr[i][j] = hv_[i];                                  \
      /* reverse over reverse: row j */                                                 \
      double dx_[N] = {0}, dg_[N] = {0};                                                \
      dg_[j] = 1;                                                                       \
      __enzyme_autodiff_v((void *)f##_grad, enzyme_dup, x_, dx_, enzyme_dup, g_, dg_);  \
      for (int i = 0; i < N; i++) H_rr[j][i] = dx_[i];                                  \
      /* forward over forward: H[j][i] = d/dx_i of ∇f·e_j */                            \
      for (int i = 0; i < N; i++) {                                                     \
        double t_[N] = {0};                                                             \
        t_[i] = 1;                                                                      \
        H_ff[j][i] = __enzyme_fwddiff((void *)f##_dir, enzyme_dup, x_, t_, enzyme_const, v_); \
      }                                                                                 \
      /* reverse over forward: row j = ∇(∇f·e_j) */                                     \
      double dr_[N] = {0};                                                              \
      __enzyme_autodiff_v((void *)f##_dir, enzyme_dup, x_, dr_, enzyme_const, v_);      \
      for (int i = 0; i < N; i++) H_rf[j][i] = dr_[i];                                  \
    }                                                                                   \
    for (int i = 0; i < N; i++)                                                         \
      for (int j = 0; j < N; j++) {                                                     \
        CHECK(#f " H forward over reverse vs differences of the gradient", H_fr[i][j], fd_[i][j], 1e-5); \
        CHECK(#f " H reverse over reverse vs forward over reverse", H_rr[i][j], H_fr[i][j], 1e-10); \
        CHECK(#f " H forward over forward vs forward over reverse", H_ff[i][j], H_fr[i][j], 1e-10); \
        CHECK(#f " H reverse over forward vs forward over reverse", H_rf[i][j], H_fr[i][j], 1e-10); \
      }                                                                                 \
  } while (0)

#endif
