/* Tapes across calls: a loop of constant count with a small tape (made on the
 * stack), one with a large tape (made once per call), and one of run-time count
 * whose tape starts at the size it reached in the last call and takes a kept
 * buffer. Gradients are taken many times, sizes growing and shrinking and
 * functions interleaved, so kept buffers are taken by other tapes and calls of
 * other sizes; every element of every gradient against the closed form, forward
 * mode against reverse. */
#include <stdlib.h>
#include "check.h"

enum { BIG = 20000 };

static double small_loop(const double *x) { /* 3 iterations */
  double s = 0;
  for (int i = 0; i < 3; i++) s += sin(x[i]) * x[(i + 1) % 3];
  return s;
}
static double big_loop(const double *x) { /* BIG iterations, a tape of at least 160 kB */
  double s = 0;
  for (int i = 0; i < BIG; i++) s += exp(0.001 * x[i]) * x[i];
  return s;
}
static double any_loop(const double *x, int n) { /* n iterations */
  double s = 0;
  for (int i = 0; i < n; i++) s += log(1 + x[i] * x[i]) * sin(x[i]);
  return s;
}
/* A nest of constant counts around one of run-time count. */
static double nest(const double *x, int n) {
  double s = 0;
  for (int r = 0; r < 4; r++)
    for (int i = 0; i < n; i++) s += cos(x[i] * (r + 1)) * x[(i + r) % n];
  return s;
}

static void fill(double *x, int n, double phase) {
  for (int i = 0; i < n; i++) x[i] = 0.7 * sin(0.37 * i + phase) + 0.1;
}

static void check_small(double phase) {
  double x[3], d[3] = {0};
  fill(x, 3, phase);
  __enzyme_autodiff((void *)small_loop, enzyme_dup, x, d);
  for (int i = 0; i < 3; i++) {
    double want = cos(x[i]) * x[(i + 1) % 3] + sin(x[(i + 2) % 3]);
    CHECK("small_loop gradient", d[i], want, TOL_EXACT);
  }
}

static void check_big(double phase) {
  double *x = malloc(BIG * sizeof *x), *d = calloc(BIG, sizeof *d);
  fill(x, BIG, phase);
  __enzyme_autodiff((void *)big_loop, enzyme_dup, x, d);
  int bad = 0;
  for (int i = 0; i < BIG; i++) {
    double want = exp(0.001 * x[i]) * (1 + 0.001 * x[i]);
    if (!close_enough(d[i], want, TOL_EXACT) && bad++ == 0) CHECK("big_loop gradient", d[i], want, TOL_EXACT);
  }
  CHECK("big_loop gradient elements wrong", bad, 0, 0);
  free(x), free(d);
}

static void check_any(int n, double phase) {
  double *x = malloc(n * sizeof *x), *d = calloc(n, sizeof *d), *t = malloc(n * sizeof *t);
  fill(x, n, phase);
  __enzyme_autodiff((void *)any_loop, enzyme_dup, x, d, enzyme_const, n);
  int bad = 0;
  double dot = 0;
  for (int i = 0; i < n; i++) {
    double l = log(1 + x[i] * x[i]);
    double want = 2 * x[i] / (1 + x[i] * x[i]) * sin(x[i]) + l * cos(x[i]);
    if (!close_enough(d[i], want, TOL_EXACT) && bad++ == 0) CHECK("any_loop gradient", d[i], want, TOL_EXACT);
    t[i] = cos(0.1 * i);
    dot += d[i] * t[i];
  }
  CHECK("any_loop gradient elements wrong", bad, 0, 0);
  double tangent = __enzyme_fwddiff((void *)any_loop, enzyme_dup, x, t, enzyme_const, n);
  CHECK("any_loop forward against reverse", tangent, dot, 1e-10);
  free(x), free(d), free(t);
}

static void check_nest(int n, double phase) {
  double *x = malloc(n * sizeof *x), *d = calloc(n, sizeof *d), *want = calloc(n, sizeof *want);
  fill(x, n, phase);
  __enzyme_autodiff((void *)nest, enzyme_dup, x, d, enzyme_const, n);
  for (int r = 0; r < 4; r++)
    for (int i = 0; i < n; i++) {
      want[i] -= sin(x[i] * (r + 1)) * (r + 1) * x[(i + r) % n];
      want[(i + r) % n] += cos(x[i] * (r + 1));
    }
  int bad = 0;
  for (int i = 0; i < n; i++)
    if (!close_enough(d[i], want[i], TOL_EXACT) && bad++ == 0) CHECK("nest gradient", d[i], want[i], TOL_EXACT);
  CHECK("nest gradient elements wrong", bad, 0, 0);
  free(x), free(d), free(want);
}

int main(void) {
  static const int sizes[] = {10, 200000, 50, 300000, 1000, 300000, 7, 120000};
  for (int k = 0; k < (int)(sizeof sizes / sizeof *sizes); k++) {
    double phase = 0.3 * k;
    check_any(sizes[k], phase);
    check_big(phase);
    check_small(phase);
    check_nest(sizes[k] / 10 + 5, phase);
  }
  return CHECK_DONE();
}
