/* Floats moved as lanes of integer vectors, as a vectoriser writes copies
 * (Rust's LTO vectorises before enzyme-cc sees the code): a reversed copy
 * whose lanes are shuffled, pairs swapped inside a heap block, and 32-bit
 * lanes of floats. The bits are floats (the memory says so), so their
 * derivatives move with them; before, the integer stores were taken for
 * integers written over floats and the derivatives silently became zero. */
#include "check.h"
#include <string.h>

float __enzyme_fwddiff_float(void *, ...);
typedef long v2i __attribute__((vector_size(16)));
typedef int v4i __attribute__((vector_size(16)));

/* buf = x reversed, two at a time through a lane swap. */
static double reversed(const double *x, int n) {
  double buf[8];
  for (int i = 0; i + 2 <= n; i += 2) {
    v2i v;
    memcpy(&v, &x[n - 2 - i], 16);
    v = __builtin_shufflevector(v, v, 1, 0);
    memcpy(&buf[i], &v, 16);
  }
  double s = 0;
  for (int i = 0; i < n; i++)
    s += (i + 1) * buf[i] * buf[i];
  return s;
}

/* Neighbours swapped pairwise inside a heap block. */
static double swapped(const double *x, int n) {
  double *h = malloc(sizeof(double) * n);
  for (int i = 0; i < n; i++)
    h[i] = x[i] * x[i];
  for (int i = 0; i + 2 <= n; i += 2) {
    v2i v;
    memcpy(&v, &h[i], 16);
    v = __builtin_shufflevector(v, v, 1, 0);
    memcpy(&h[i], &v, 16);
  }
  double s = 0;
  for (int i = 0; i < n; i++)
    s += (i + 1) * h[i];
  free(h);
  return s;
}

/* Single precision: four lanes rotated by one. */
static float rotated(const float *x) {
  float buf[4];
  v4i v;
  memcpy(&v, x, 16);
  v = __builtin_shufflevector(v, v, 1, 2, 3, 0);
  memcpy(buf, &v, 16);
  return buf[0] * buf[0] + 2 * buf[1] + 3 * buf[2] * buf[3];
}

int main(void) {
  double x[8] = {0.5, -1.25, 2.0, 0.75, -0.3, 1.6, 0.9, -2.2};
  int n = 8;
  /* reversed: x[i] lands at n - 1 - i; swapped: x[i]^2 at i ^ 1. */
#define CHECK_COPIES(f, want_at)                                                       \
  do {                                                                                 \
    double d[8] = {0};                                                                 \
    __enzyme_autodiff((void *)f, enzyme_dup, x, d, enzyme_const, n);                   \
    for (int i = 0; i < n; i++) {                                                      \
      double want = (want_at);                                                         \
      CHECK(#f ": reverse vs analytic", d[i], want, TOL_EXACT);                       \
      double dx[8] = {0};                                                              \
      dx[i] = 1;                                                                       \
      double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, dx, enzyme_const, n);      \
      CHECK(#f ": forward vs reverse", t, d[i], TOL_MODES);                           \
      double xp[8], xm[8], h = 1e-6;                                                   \
      memcpy(xp, x, sizeof x), memcpy(xm, x, sizeof x);                                \
      xp[i] += h, xm[i] -= h;                                                          \
      CHECK(#f ": finite difference vs analytic", (f(xp, n) - f(xm, n)) / (2 * h), want, TOL_FD); \
    }                                                                                  \
  } while (0)
  CHECK_COPIES(reversed, 2.0 * (n - i) * x[i]);
  CHECK_COPIES(swapped, (double)((i ^ 1) + 1) * 2 * x[i]);
  float xf[4] = {0.5f, -1.5f, 2.0f, 0.25f}, df[4] = {0};
  __enzyme_autodiff((void *)rotated, enzyme_dup, xf, df);
  /* buf = {x1, x2, x3, x0}: x1^2 + 2 x2 + 3 x3 x0. */
  float wantf[4] = {3 * xf[3], 2 * xf[1], 2.0f, 3 * xf[0]};
  for (int i = 0; i < 4; i++) {
    CHECK("float lanes: reverse vs analytic", df[i], wantf[i], TOL_FLOAT);
    float dxf[4] = {0};
    dxf[i] = 1;
    float t = __enzyme_fwddiff_float((void *)rotated, enzyme_dup, xf, dxf);
    CHECK("float lanes: forward vs reverse", t, df[i], TOL_FLOAT);
  }
  return CHECK_DONE();
}
