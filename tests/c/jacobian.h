/*
 * Jacobian checks for functions `void f(const double *x, double *y)` with N
 * inputs and M outputs: the full Jacobian three ways (reverse mode, one row
 * per output seed; forward mode, one column per input tangent; central
 * finite differences), every entry compared with a stated tolerance.
 */
#ifndef JACOBIAN_H
#define JACOBIAN_H
#include "check.h"

void __enzyme_autodiff_v(void *, ...);
void __enzyme_fwddiff_v(void *, ...);

#define CHECK_JACOBIAN(f, N, M, ...)                                                    \
  do {                                                                                  \
    const double x0_[N] = {__VA_ARGS__};                                                \
    double x_[N], dx_[N], y_[M], yp_[M], ym_[M], dy_[M], tx_[N], ty_[M];                \
    double fd_[M][N], rev_[M][N];                                                       \
    for (int i = 0; i < N; i++) {                                                       \
      double h = 1e-6 * (fabs(x0_[i]) > 1 ? fabs(x0_[i]) : 1);                          \
      for (int k = 0; k < N; k++) x_[k] = x0_[k];                                       \
      x_[i] = x0_[i] + h;                                                               \
      f(x_, yp_);                                                                       \
      x_[i] = x0_[i] - h;                                                               \
      f(x_, ym_);                                                                       \
      for (int j = 0; j < M; j++) fd_[j][i] = (yp_[j] - ym_[j]) / (2 * h);              \
    }                                                                                   \
    for (int j = 0; j < M; j++) {                                                       \
      for (int k = 0; k < N; k++) { x_[k] = x0_[k]; dx_[k] = 0; }                       \
      for (int k = 0; k < M; k++) dy_[k] = k == j;                                      \
      __enzyme_autodiff_v((void *)f, enzyme_dup, x_, dx_, enzyme_dup, y_, dy_);         \
      for (int i = 0; i < N; i++) {                                                     \
        rev_[j][i] = dx_[i];                                                            \
        CHECK(#f " reverse J[j][i] vs finite difference", dx_[i], fd_[j][i], TOL_FD);   \
        CHECK(#f " inputs unchanged by reverse", x_[i], x0_[i], 0);                     \
      }                                                                                 \
    }                                                                                   \
    for (int i = 0; i < N; i++) {                                                       \
      for (int k = 0; k < N; k++) { x_[k] = x0_[k]; tx_[k] = k == i; }                  \
      __enzyme_fwddiff_v((void *)f, enzyme_dup, x_, tx_, enzyme_dup, y_, ty_);          \
      for (int j = 0; j < M; j++)                                                       \
        CHECK(#f " forward J[j][i] vs reverse", ty_[j], rev_[j][i], TOL_MODES);         \
    }                                                                                   \
  } while (0)

#endif
