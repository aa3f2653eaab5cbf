/* Vector reverse mode: `enzyme_width, N` runs the primal once and sweeps N
 * seeds back at once (N shadows per duplicated pointer, N adjoints per
 * active float). Every lane is checked against the width-1 reverse call
 * with that seed, and Jacobians against forward mode and finite
 * differences. */
#include "check.h"

#include <string.h>

#include "vector_kernels.h"

extern int enzyme_width, enzyme_dupv, enzyme_primal_return;

typedef struct {
  double x0, x1, y0, y1;
} adj2x2;
typedef struct {
  double y, a0, a1;
} primal_adj2;
typedef struct {
  double a0, a1;
} adj2;
typedef struct {
  double d[3];
} adj3;
typedef struct {
  double x, y;
} adj_xy;

adj2x2 __enzyme_autodiff_2x2(void *, ...);
adj_xy __enzyme_autodiff_xy(void *, ...);
primal_adj2 __enzyme_autodiff_p2(void *, ...);
adj2 __enzyme_autodiff_a2(void *, ...);
adj3 __enzyme_autodiff_a3(void *, ...);
void __enzyme_autodiff_void(void *, ...);
void __enzyme_fwddiff_void(void *, ...);

/* An active scalar and an array, an in-place update over time steps. */
__attribute__((noinline)) double evolve(double k, double *u, int steps) {
  for (int t = 0; t < steps; t++) {
    double prev = u[N - 1];
    for (int i = 0; i < N; i++) {
      double cur = u[i];
      u[i] = cur + 0.1 * k * (prev - cur) * cos(cur);
      prev = cur;
    }
  }
  double s = 0;
  for (int i = 0; i < N; i++)
    s += u[i] * u[i] * (i + 1);
  return s;
}

int main(void) {
  /* Scalars: two seeds, two adjoints per active argument. */
  for (int k = 0; k < 3; k++) {
    double x = 0.7 + 0.4 * k, y = -0.3 + 0.5 * k;
    adj2x2 g = __enzyme_autodiff_2x2((void *)scalar2, enzyme_width, 2, x, y, 1.0, -2.5);
    adj_xy one = __enzyme_autodiff_xy((void *)scalar2, x, y);
    CHECK("scalar2 lane 0 d/dx", g.x0, one.x, 1e-14);
    CHECK("scalar2 lane 1 d/dx (seed -2.5)", g.x1, -2.5 * one.x, 1e-14);
    CHECK("scalar2 lane 0 d/dy", g.y0, one.y, 1e-14);
    CHECK("scalar2 lane 1 d/dy (seed -2.5)", g.y1, -2.5 * one.y, 1e-14);
    CHECK("scalar2 d/dx analytic", g.x0, y - 1.0 / (x * x) + 0.5 * sin(y) * exp(0.5 * x), 1e-12);
    CHECK("scalar2 d/dy finite difference", g.y0, central_diff2(scalar2, x, y, 1), 1e-6);
    /* Default seeds (1 in every lane), the primal first, a constant argument. */
    extern int enzyme_const;
    primal_adj2 p = __enzyme_autodiff_p2((void *)scalar2, enzyme_width, 2, enzyme_primal_return, x, enzyme_const, y);
    CHECK("scalar2 primal", p.y, scalar2(x, y), 1e-15);
    CHECK("scalar2 default seed lane 0", p.a0, one.x, 1e-14);
    CHECK("scalar2 default seed lane 1", p.a1, one.x, 1e-14);
  }

  /* The Jacobian of a layer, three rows at once: seeds are unit rows of the output's shadows. */
  {
    double x[N] = {0.3, -0.5, 0.8, 0.1}, y[M];
    double xb[M][N] = {{0}}, yb[M][M] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    __enzyme_autodiff_void((void *)layer, enzyme_width, 3, enzyme_dup, x, xb[0], xb[1], xb[2], enzyme_dupnoneed, y,
                           yb[0], yb[1], yb[2]);
    /* Forward mode, one column per call. */
    for (int j = 0; j < N; j++) {
      double dx[N] = {0}, yy[M], dy[M];
      dx[j] = 1.0;
      __enzyme_fwddiff_void((void *)layer, enzyme_dup, x, dx, enzyme_dup, yy, dy);
      for (int i = 0; i < M; i++)
        CHECK("layer Jacobian row (reverse lanes) vs forward", xb[i][j], dy[i], 1e-12);
      double col[M];
      layer_fd_column(x, j, col);
      for (int i = 0; i < M; i++)
        CHECK("layer Jacobian row finite difference", xb[i][j], col[i], 1e-6);
    }
    /* The same with strided shadows (one buffer per argument). */
    double xb2[M][N] = {{0}}, yb2[M][M] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    __enzyme_autodiff_void((void *)layer, enzyme_width, 3, enzyme_dupv, sizeof(double) * N, x, &xb2[0][0],
                           enzyme_dupv, sizeof(double) * M, y, &yb2[0][0]);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++)
        CHECK("layer Jacobian (enzyme_dupv) vs enzyme_dup", xb2[i][j], xb[i][j], 1e-15);
  }

  /* An active scalar with a duplicated array updated in place, over steps. */
  {
    double u0[N] = {0.4, -0.3, 0.9, 0.2}, k = 0.8;
    double u[N], ub[2][N] = {{0}};
    memcpy(u, u0, sizeof u);
    adj2 dk = __enzyme_autodiff_a2((void *)evolve, enzyme_width, 2, k, enzyme_dup, u, ub[0], ub[1], enzyme_const, 25,
                                   1.0, 0.5);
    for (int lane = 0; lane < 2; lane++) {
      double seed = lane ? 0.5 : 1.0;
      double u1[N], ub1[N] = {0};
      memcpy(u1, u0, sizeof u1);
      double dk1 = __enzyme_autodiff((void *)evolve, k, enzyme_dup, u1, ub1, enzyme_const, 25, seed);
      CHECK("evolve d/dk lane vs width 1", lane ? dk.a1 : dk.a0, dk1, 1e-13);
      for (int i = 0; i < N; i++)
        CHECK("evolve d/du0 lane vs width 1", ub[lane][i], ub1[i], 1e-13);
    }
    double up[N], um[N], h = 1e-6;
    memcpy(up, u0, sizeof up);
    memcpy(um, u0, sizeof um);
    CHECK("evolve d/dk finite difference", dk.a0, (evolve(k + h, up, 25) - evolve(k - h, um, 25)) / (2 * h), 1e-6);
  }

  /* A global's shadow per lane; three lanes with different seeds. */
  {
    double x[N] = {0.5, 1.5, -0.5, 2.0}, xb[3][N] = {{0}};
    __enzyme_autodiff_void((void *)through_global, enzyme_width, 3, x, xb[0], xb[1], xb[2], 1.0, 2.0, -1.0);
    double x1[N], xb1[N] = {0};
    memcpy(x1, x, sizeof x1);
    __enzyme_autodiff_void((void *)through_global, x1, xb1);
    double seeds[3] = {1.0, 2.0, -1.0};
    for (int lane = 0; lane < 3; lane++)
      for (int i = 0; i < N; i++)
        CHECK("through_global lane vs width 1", xb[lane][i], seeds[lane] * xb1[i], 1e-13);
    CHECK("through_global d/dx0 analytic", xb[0][0], 2 * x[0] * x[1] + x[3] * x[3], 1e-12);
  }
  return CHECK_DONE();
}
