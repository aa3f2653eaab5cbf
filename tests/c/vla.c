/* Variable-size stack memory: C99 VLAs (one- and two-dimensional, inside
 * loops where each iteration's array is released by stackrestore), alloca,
 * and a VLA handed to a helper that updates it in place. The sizes come
 * from a volatile, so the optimiser cannot make them constant. Full
 * Jacobians: reverse against finite differences, forward against reverse. */
#include <alloca.h>
#include "jacobian.h"

static volatile int size_n = 5;

/* Differences of neighbours in a VLA of n - 1. */
static void vla_diff(const double *x, double *y) {
  int n = size_n;
  double d[n - 1];
  for (int i = 0; i < n - 1; i++) d[i] = sin(x[i + 1]) - x[i] * x[i];
  double s = 0, p = 1;
  for (int i = 0; i < n - 1; i++) {
    s += d[i] * d[i];
    p *= 1 + 0.5 * d[i];
  }
  y[0] = s;
  y[1] = p;
}

/* A new VLA in every iteration (stacksave/stackrestore around each). */
static void vla_in_loop(const double *x, double *y) {
  int n = size_n;
  y[0] = y[1] = 0;
  for (int k = 1; k <= n; k++) {
    double w[k];
    for (int j = 0; j < k; j++) w[j] = x[j] * x[(j + k) % n];
    double s = 0;
    for (int j = 0; j < k; j++) s += w[j] * w[k - 1 - j];
    y[k % 2] += s / k;
  }
}

/* alloca(3), filled in one loop and read back in another. */
static void with_alloca(const double *x, double *y) {
  int n = size_n;
  double *t = alloca(n * sizeof(double));
  double run = 0;
  for (int i = 0; i < n; i++) {
    run += exp(0.3 * x[i]);
    t[i] = run * x[i];
  }
  y[0] = 0;
  for (int i = 0; i < n; i++) y[0] += t[i] * t[n - 1 - i];
  y[1] = t[n - 1] / (1 + t[0] * t[0]);
}

/* A VLA updated in place by a helper that is not inlined. */
__attribute__((noinline)) static void smooth(double *a, int n) {
  for (int i = n - 1; i > 0; i--) a[i] = 0.5 * (a[i] + a[i - 1] * a[i - 1]);
}
static void vla_to_helper(const double *x, double *y) {
  int n = size_n;
  double a[n];
  for (int i = 0; i < n; i++) a[i] = cos(x[i]) + x[i];
  smooth(a, n);
  smooth(a, n);
  y[0] = a[n - 1];
  y[1] = a[n / 2] * a[1];
}

/* A two-dimensional VLA. */
static void vla_2d(const double *x, double *y) {
  int n = size_n;
  double a[n][n];
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) a[i][j] = x[i] * x[j] + sin(x[j] - x[i]);
  double tr = 0, sq = 0;
  for (int i = 0; i < n; i++) {
    tr += a[i][i] * a[i][(i + 1) % n];
    for (int j = 0; j < n; j++) sq += a[i][j] * a[j][i];
  }
  y[0] = tr;
  y[1] = sq;
}

int main(void) {
  CHECK_JACOBIAN(vla_diff, 5, 2, 0.3, -0.7, 1.1, 0.4, -0.2);
  CHECK_JACOBIAN(vla_in_loop, 5, 2, 0.3, -0.7, 1.1, 0.4, -0.2);
  CHECK_JACOBIAN(with_alloca, 5, 2, 0.3, -0.7, 1.1, 0.4, -0.2);
  CHECK_JACOBIAN(vla_to_helper, 5, 2, 0.3, -0.7, 1.1, 0.4, -0.2);
  CHECK_JACOBIAN(vla_2d, 5, 2, 0.3, -0.7, 1.1, 0.4, -0.2);
  return CHECK_DONE();
}
