/* Shadows of large `malloc` blocks come from the pool of kept buffers in
 * reverse mode (a gradient called in a loop would otherwise fault in fresh
 * pages for them each time, and for the primal's own block once the heap is
 * trimmed). A pooled buffer holds the last call's adjoints: each call's
 * shadow must start at zero. Checked over repeated calls with different
 * inputs and sizes (a buffer larger than asked, blocks alive at once, a
 * block given to realloc, which is not pooled), against the analytic
 * gradient and central differences; forward mode, whose shadows go back to
 * the pool where the primal frees the blocks, against the same. */
#include <string.h>
#include "check.h"

extern int enzyme_dup, enzyme_const;

/* f(x) = sum_i w_i * (x_{i mod m})^2 through two heap temporaries. */
static double through_heap(const double *x, int m, int n) {
  double *t = malloc(n * sizeof *t), *u = malloc(2 * n * sizeof *u);
  for (int i = 0; i < n; i++) t[i] = x[i % m] * x[i % m];
  for (int i = 0; i < n; i++) u[2 * i] = t[i] * (1 + (i % 3)), u[2 * i + 1] = 0.5 * t[n - 1 - i];
  double s = 0;
  for (int i = 0; i < 2 * n; i++) s += u[i];
  free(t), free(u);
  return s;
}

/* The same sum, its temporary grown by realloc half way. */
static double through_realloc(const double *x, int m, int n) {
  double *t = malloc(n / 2 * sizeof *t);
  for (int i = 0; i < n / 2; i++) t[i] = x[i % m] * x[i % m];
  t = realloc(t, n * sizeof *t);
  for (int i = n / 2; i < n; i++) t[i] = x[i % m] * x[i % m];
  double s = 0;
  for (int i = 0; i < n; i++) s += t[i] * (1 + (i % 3)) + 0.5 * t[n - 1 - i];
  free(t);
  return s;
}

/* d/dx_j: 2 x_j * sum over i = j mod m of (1 + i mod 3) + 0.5 (and the mirrored 0.5). */
static double analytic(const double *x, int m, int n, int j) {
  double w = 0;
  for (int i = 0; i < n; i++)
    if (i % m == j) w += (1 + (i % 3)) + 0.5;
  return 2 * x[j] * w;
}

int main(void) {
  enum { M = 7 };
  double x[M], dx[M];
  int sizes[] = {20000, 50000, 9000, 50000, 30000};
  for (int call = 0; call < 5; call++) {
    int n = sizes[call];
    for (int j = 0; j < M; j++) x[j] = 0.3 * (j + 1) - 0.1 * call;
    for (int f = 0; f < 2; f++) {
      double (*fn)(const double *, int, int) = f ? through_realloc : through_heap;
      memset(dx, 0, sizeof dx);
      __enzyme_autodiff((void *)fn, enzyme_dup, x, dx, enzyme_const, M, enzyme_const, n);
      /* Forward mode: the shadows go back to the pool where the blocks are freed. */
      double tx[M] = {0};
      tx[call % M] = 1;
      double tangent = __enzyme_fwddiff((void *)fn, enzyme_dup, x, tx, enzyme_const, M, enzyme_const, n);
      CHECK(f ? "realloc tangent" : "heap tangent", tangent, analytic(x, M, n, call % M), TOL_EXACT);
      for (int j = 0; j < M; j++) {
        double want = analytic(x, M, n, j);
        CHECK(f ? "realloc gradient" : "heap gradient", dx[j], want, TOL_EXACT);
        if (call == 0 && j < 2) {
          double h = 1e-6, xp[M], xm[M];
          memcpy(xp, x, sizeof x), memcpy(xm, x, sizeof x);
          xp[j] += h, xm[j] -= h;
          CHECK("central difference", (fn(xp, M, n) - fn(xm, M, n)) / (2 * h), want, TOL_FD);
        }
      }
    }
  }
  printf("%d checks, %d failed\n", check_count, check_failures);
  return check_failures != 0;
}
