/* Vector forward mode: `enzyme_width, N` gives N tangent lanes in one call
 * (the primal runs once). Every lane is checked against the width-1
 * derivative in that direction and against finite differences; Jacobians
 * are checked against reverse mode row by row. */
#include "check.h"

#include <string.h>

#include "vector_kernels.h"

extern int enzyme_width, enzyme_dupv, enzyme_dupnoneedv, enzyme_primal_return, enzyme_const_return;

typedef struct {
  double d0, d1;
} lanes2;
typedef struct {
  double d0, d1, d2;
} lanes3;
typedef struct {
  double d[4];
} lanes4;
typedef struct {
  double y, d0, d1;
} primal_and_lanes2;
typedef double vec2 __attribute__((ext_vector_type(2)));

lanes2 __enzyme_fwddiff_2(void *, ...);
lanes3 __enzyme_fwddiff_3(void *, ...);
lanes4 __enzyme_fwddiff_4(void *, ...);
vec2 __enzyme_fwddiff_v2(void *, ...);
primal_and_lanes2 __enzyme_fwddiff_p2(void *, ...);
void __enzyme_fwddiff_void(void *, ...);
void __enzyme_autodiff_void(void *, ...);

__attribute__((noinline)) double scalar3(double x, double y, double z) {
  return sqrt(x * x + y * y + z * z) * cos(x * z) + log(1.0 + y * y);
}

static double fd_scalar3(double x, double y, double z, int dir) {
  double h = 1e-6, a[3] = {x, y, z}, b[3] = {x, y, z};
  a[dir] += h;
  b[dir] -= h;
  return (scalar3(a[0], a[1], a[2]) - scalar3(b[0], b[1], b[2])) / (2 * h);
}

/* A float result of a loop over a caller's array, with a branch. */
__attribute__((noinline)) double norm_soft(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i] > 0 ? x[i] * x[i] : 0.5 * x[i] * x[i] * x[i];
  return sqrt(s + 1.0);
}

/* Recursion stays a call: its derivative has the same width. */
__attribute__((noinline)) double power_rec(double x, int n) { return n == 0 ? 1.0 : x * power_rec(x, n - 1); }
__attribute__((noinline)) double uses_rec(double x, double y) { return power_rec(x, 5) + power_rec(y, 3) * x; }

/* A custom forward rule of floats only: called once per lane. The rule
 * deliberately differs from the true derivative (by a factor 3), so the
 * check tells that the rule was used. */
__attribute__((noinline)) double cube(double x) { return x * x * x; }
__attribute__((noinline)) double cube_fwd(double x, double dx) { return 3 * (3 * x * x) * dx; }
void *__enzyme_register_derivative_cube[] = {(void *)cube, (void *)cube_fwd};
__attribute__((noinline)) double uses_cube(double x, double y) { return cube(x * y) + y; }

/* Float lanes. */
__attribute__((noinline)) float scalar2f(float x, float y) { return x * x * y + sinf(x); }

static void check_layer_jacobian(const double *x, const double *jac /* [N][M]: column j = dy/dx_j */,
                                 const char *what) {
  /* Reverse mode: row i of the Jacobian. */
  for (int i = 0; i < M; i++) {
    double xb[N] = {0}, y[M], yb[M] = {0};
    yb[i] = 1.0;
    __enzyme_autodiff_void((void *)layer, enzyme_dup, x, xb, enzyme_dupnoneed, y, yb);
    for (int j = 0; j < N; j++)
      CHECK(what, jac[j * M + i], xb[j], 1e-12);
  }
  /* Finite differences. */
  for (int j = 0; j < N; j++) {
    double col[M];
    layer_fd_column(x, j, col);
    for (int i = 0; i < M; i++)
      CHECK("layer finite difference", jac[j * M + i], col[i], 1e-6);
  }
}

int main(void) {
  /* Width 2 on scalars: both directions in one call. */
  for (int k = 0; k < 3; k++) {
    double x = 0.7 + 0.4 * k, y = -0.3 + 0.5 * k;
    lanes2 d = __enzyme_fwddiff_2((void *)scalar2, enzyme_width, 2, x, 1.0, 0.0, y, 0.0, 1.0);
    double dx = __enzyme_fwddiff((void *)scalar2, x, 1.0, y, 0.0);
    double dy = __enzyme_fwddiff((void *)scalar2, x, 0.0, y, 1.0);
    CHECK("scalar2 lane 0 vs width 1", d.d0, dx, 1e-14);
    CHECK("scalar2 lane 1 vs width 1", d.d1, dy, 1e-14);
    CHECK("scalar2 lane 0 vs analytic", d.d0, y - 1.0 / (x * x) + 0.5 * sin(y) * exp(0.5 * x), 1e-12);
    CHECK("scalar2 lane 1 finite difference", d.d1, central_diff2(scalar2, x, y, 1), 1e-6);
    /* Mixed directions, a constant argument, the primal too. */
    primal_and_lanes2 p = __enzyme_fwddiff_p2((void *)scalar2, enzyme_width, 2, enzyme_primal_return, x, 2.0,
                                              -1.0, enzyme_const, y);
    CHECK("scalar2 primal with lanes", p.y, scalar2(x, y), 1e-15);
    CHECK("scalar2 lane 0 (2 dx)", p.d0, 2 * dx, 1e-12);
    CHECK("scalar2 lane 1 (-dx)", p.d1, -dx, 1e-12);
  }

  /* Width 3 (returned through memory), the gradient; width 2 as a vector. */
  {
    double x = 0.4, y = 1.3, z = -0.8;
    lanes3 d = __enzyme_fwddiff_3((void *)scalar3, enzyme_width, 3, x, 1.0, 0.0, 0.0, y, 0.0, 1.0, 0.0, z, 0.0, 0.0,
                                  1.0);
    double g[3] = {d.d0, d.d1, d.d2};
    for (int j = 0; j < 3; j++)
      CHECK("scalar3 lane vs finite difference", g[j], fd_scalar3(x, y, z, j), 1e-6);
    vec2 v = __enzyme_fwddiff_v2((void *)scalar3, enzyme_width, 2, x, 0.0, 2.0, y, 1.0, 3.0, z, 0.0, -1.0);
    CHECK("scalar3 vector lane 0", v[0], g[1], 1e-14);
    CHECK("scalar3 vector lane 1 (combination)", v[1], 2 * g[0] + 3 * g[1] - g[2], 1e-12);
  }

  /* The Jacobian of a layer: N shadows of x (unit vectors) and of y. */
  {
    double x[N] = {0.3, -0.5, 0.8, 0.1}, y[M];
    double e[N][N] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}};
    double jac[N][M];
    __enzyme_fwddiff_void((void *)layer, enzyme_width, 4, enzyme_dup, x, e[0], e[1], e[2], e[3], enzyme_dup, y,
                          jac[0], jac[1], jac[2], jac[3]);
    double y_ref[M];
    layer(x, y_ref);
    for (int i = 0; i < M; i++)
      CHECK("layer primal in vector mode", y[i], y_ref[i], 1e-15);
    check_layer_jacobian(x, &jac[0][0], "layer Jacobian (enzyme_dup) vs reverse");
    /* The same with one strided buffer per argument. */
    double jac2[N][M];
    __enzyme_fwddiff_void((void *)layer, enzyme_width, 4, enzyme_dupv, sizeof(double) * N, x, &e[0][0],
                          enzyme_dupnoneedv, sizeof(double) * M, y, &jac2[0][0]);
    check_layer_jacobian(x, &jac2[0][0], "layer Jacobian (enzyme_dupv) vs reverse");
  }

  /* A float result from a caller's array: four directions at once. */
  {
    double x[5] = {0.4, -0.6, 1.2, -0.2, 0.9};
    double dirs[4][5] = {{1, 0, 0, 0, 0}, {0, 0, 1, 0, 0}, {0.5, 0.5, 0, 0, -1}, {0, 0, 0, 1, 1}};
    lanes4 d = __enzyme_fwddiff_4((void *)norm_soft, enzyme_width, 4, x, dirs[0], dirs[1], dirs[2], dirs[3],
                                  enzyme_const, 5);
    for (int k = 0; k < 4; k++) {
      double one = __enzyme_fwddiff((void *)norm_soft, x, dirs[k], enzyme_const, 5);
      CHECK("norm_soft lane vs width 1", d.d[k], one, 1e-14);
      double xp[5], xm[5], h = 1e-6;
      for (int j = 0; j < 5; j++) {
        xp[j] = x[j] + h * dirs[k][j];
        xm[j] = x[j] - h * dirs[k][j];
      }
      CHECK("norm_soft lane finite difference", d.d[k], (norm_soft(xp, 5) - norm_soft(xm, 5)) / (2 * h), 1e-6);
    }
  }

  /* A global's shadow per lane. */
  {
    double x[N] = {0.5, 1.5, -0.5, 2.0};
    double e[2][N] = {{1, 0, 0, 0}, {0, 0, 1, 1}};
    lanes2 d = __enzyme_fwddiff_2((void *)through_global, enzyme_width, 2, x, e[0], e[1]);
    for (int k = 0; k < 2; k++) {
      double one = __enzyme_fwddiff((void *)through_global, x, e[k]);
      CHECK("through_global lane vs width 1", k ? d.d1 : d.d0, one, 1e-14);
    }
    /* d/dx0 of x0^2 x1 + x1^2 x2 + x2^2 x3 + x3^2 x0 = 2 x0 x1 + x3^2. */
    CHECK("through_global lane 0 analytic", d.d0, 2 * x[0] * x[1] + x[3] * x[3], 1e-12);
  }

  /* Recursion. */
  {
    double x = 1.1, y = 0.7;
    lanes2 d = __enzyme_fwddiff_2((void *)uses_rec, enzyme_width, 2, x, 1.0, 0.0, y, 0.0, 1.0);
    CHECK("recursion lane 0", d.d0, 5 * pow(x, 4) + pow(y, 3), 1e-12);
    CHECK("recursion lane 1", d.d1, 3 * y * y * x, 1e-12);
  }

  /* A custom forward rule, once per lane. */
  {
    double x = 0.6, y = 1.3;
    lanes2 d = __enzyme_fwddiff_2((void *)uses_cube, enzyme_width, 2, x, 1.0, 0.0, y, 0.0, 1.0);
    double q = x * y;
    CHECK("custom rule lane 0", d.d0, 9 * q * q * y, 1e-12);
    CHECK("custom rule lane 1", d.d1, 9 * q * q * x + 1, 1e-12);
    CHECK("custom rule lane 0 vs width 1", d.d0, __enzyme_fwddiff((void *)uses_cube, x, 1.0, y, 0.0), 1e-14);
  }

  /* Floats. */
  {
    typedef struct {
      float d0, d1;
    } lanes2f;
    lanes2f __enzyme_fwddiff_2f(void *, ...);
    float x = 0.8f, y = 1.7f;
    lanes2f d = __enzyme_fwddiff_2f((void *)scalar2f, enzyme_width, 2, x, 1.0f, 0.0f, y, 0.0f, 1.0f);
    CHECK("float lane 0", d.d0, 2 * x * y + cos(x), TOL_FLOAT);
    CHECK("float lane 1", d.d1, x * x, TOL_FLOAT);
  }
  return CHECK_DONE();
}
