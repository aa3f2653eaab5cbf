/* Functions differentiated at the top level that return a pointer (into
 * their arguments, for chaining): the result carries no derivative; the
 * derivatives are in the shadows. */
#include <string.h>
#include "check.h"

void __enzyme_autodiff_v(void *, ...);
void __enzyme_fwddiff_v(void *, ...);

/* y = a·x + y, returns y (BLAS-style chaining). */
static double *axpy(double a, const double *x, double *y, int n) {
  for (int i = 0; i < n; i++) y[i] += a * x[i];
  return y;
}

/* In place: squares, then returns the element after the largest. */
static double *square_and_find(double *x, int n) {
  int best = 0;
  for (int i = 0; i < n; i++) {
    x[i] = x[i] * x[i] + sin(x[i]);
    if (x[i] > x[best]) best = i;
  }
  return x + (best + 1) % n;
}

int main(void) {
  enum { N = 4 };
  const double x0[N] = {0.5, -1.5, 2.0, 0.25}, y0[N] = {1, 2, 3, 4};
  double x[N], y[N], dx[N], dy[N];

  /* reverse: seed dy = (1, 2, 3, 4); d a = Σ dy_i x_i, dx_i = a dy_i, dy unchanged */
  memcpy(x, x0, sizeof x);
  memcpy(y, y0, sizeof y);
  for (int i = 0; i < N; i++) { dx[i] = 0; dy[i] = i + 1; }
  double da = __enzyme_autodiff((void *)axpy, 0.7, enzyme_dup, x, dx, enzyme_dup, y, dy, N);
  double want_da = 0;
  for (int i = 0; i < N; i++) want_da += (i + 1) * x0[i];
  CHECK("axpy reverse d/da", da, want_da, TOL_EXACT);
  for (int i = 0; i < N; i++) {
    CHECK("axpy reverse d/dx", dx[i], 0.7 * (i + 1), TOL_EXACT);
    CHECK("axpy reverse d/dy", dy[i], i + 1, TOL_EXACT);
    CHECK("axpy primal result", y[i], y0[i] + 0.7 * x0[i], TOL_EXACT);
  }
  /* forward: tangent of a only */
  memcpy(y, y0, sizeof y);
  double tx[N] = {0}, ty[N] = {0};
  __enzyme_fwddiff_v((void *)axpy, 0.7, 1.0, enzyme_dup, x0, tx, enzyme_dup, y, ty, N);
  for (int i = 0; i < N; i++) CHECK("axpy forward d/da", ty[i], x0[i], TOL_EXACT);

  /* in place: d(x² + sin x) = 2x + cos x, both modes */
  memcpy(x, x0, sizeof x);
  for (int i = 0; i < N; i++) dx[i] = 1;
  __enzyme_autodiff_v((void *)square_and_find, x, dx, N);
  for (int i = 0; i < N; i++) CHECK("square_and_find reverse", dx[i], 2 * x0[i] + cos(x0[i]), TOL_EXACT);
  memcpy(x, x0, sizeof x);
  for (int i = 0; i < N; i++) tx[i] = 1;
  __enzyme_fwddiff_v((void *)square_and_find, x, tx, N);
  for (int i = 0; i < N; i++) CHECK("square_and_find forward", tx[i], 2 * x0[i] + cos(x0[i]), TOL_MODES);
  return CHECK_DONE();
}
