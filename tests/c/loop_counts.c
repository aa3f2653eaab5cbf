/* Loops whose iterations per entry the reverse sweep computes from their
 * bounds instead of keeping (a triangular nest, whose inner count changes
 * with the outer counter; counting down through zero; unsigned and 64-bit
 * counters; a do-while; an inner loop skipped on some outer iterations; a
 * loop left early, which must keep its count). Reverse mode against forward
 * mode and central differences, n = 1 to 7. */
#include <string.h>
#include "check.h"

static double loops(const double *x, int n) {
  double s = 0;
  int off = 0;
  for (int j = 0; j < n; j++)
    for (int i = j + 1; i < n; i++, off++) s += x[off % n] * x[i] * sin(x[j]);
  for (int i = n - 1; i >= 0; i--) s += sin(x[i]) * (i + 1);
  for (unsigned u = 3; u != 11; u++) s += x[u % n] * x[(u + 1) % n];
  long k = 5;
  do {
    s += cos(x[(k + 8) % n]) * (double)k;
    k--;
  } while (k != -3);
  for (long a = 0; a < n; a++)
    if (a % 2 == 0)
      for (long b = a; b < 2 * n; b++) s += x[b % n] * x[a] * 0.25;
  for (int i = 0; i < 4 * n; i++) {
    if (x[i % n] * i > 2.5) break; /* another exit: counted by its instances */
    s += x[i % n] * x[i % n];
  }
  return s;
}

int main(void) {
  double x[7] = {0.3, -0.5, 0.7, 0.2, -0.9, 0.4, 0.6};
  for (int n = 1; n <= 7; n++) {
    double dx[7] = {0};
    __enzyme_autodiff((void *)loops, enzyme_dup, x, dx, enzyme_const, n);
    for (int j = 0; j < n; j++) {
      double e[7] = {0}, xp[7], xm[7], h = 1e-6;
      e[j] = 1;
      double t = __enzyme_fwddiff((void *)loops, enzyme_dup, x, e, enzyme_const, n);
      memcpy(xp, x, sizeof x), memcpy(xm, x, sizeof x);
      xp[j] += h, xm[j] -= h;
      CHECK("forward against reverse", t, dx[j], TOL_MODES);
      CHECK("reverse against central differences", dx[j], (loops(xp, n) - loops(xm, n)) / (2 * h), TOL_FD);
    }
  }
  return CHECK_DONE();
}
