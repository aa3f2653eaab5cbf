/* A local table filled once and then only read in a loop: the reverse sweep
 * reads it again instead of keeping each value read (GMM's exp(q) per
 * component). Beside it, a table that is written again after the loop that
 * reads it (the reverse sweep must use what the loop read, not what is
 * there later), and one rewritten inside the reading loop. Gradients
 * against the closed form where there is one, forward mode and central
 * differences. */
#include <string.h>
#include "check.h"

#define N 6
#define M 40

static double tables(const double *x, const double *w) {
  double settled[N], later[N], inside[N];
  for (int i = 0; i < N; i++) settled[i] = exp(x[i]), later[i] = x[i] * x[i], inside[i] = x[i];
  double s = 0;
  for (int k = 0; k < M; k++) {
    int i = k % N;
    s += w[k] * settled[i] * later[i] + sin(inside[i]);
    inside[(k + 1) % N] = inside[i] * 0.5 + x[(k + 2) % N]; /* written where it is read */
  }
  for (int i = 0; i < N; i++) later[i] = cos(x[i]); /* written after the loop that read it */
  for (int i = 0; i < N; i++) s += later[i] * settled[i];
  return s;
}

int main(void) {
  double x[N] = {0.3, -0.2, 0.5, 0.1, -0.4, 0.2}, w[M];
  for (int k = 0; k < M; k++) w[k] = 0.1 * (k % 7) - 0.2;
  double dx[N] = {0}, dw[M] = {0};
  __enzyme_autodiff((void *)tables, enzyme_dup, x, dx, enzyme_dup, w, dw);
  for (int j = 0; j < N; j++) {
    double e[N] = {0}, zw[M] = {0};
    e[j] = 1;
    double t = __enzyme_fwddiff((void *)tables, enzyme_dup, x, e, enzyme_dup, w, zw);
    double xp[N], xm[N], h = 1e-6;
    memcpy(xp, x, sizeof x), memcpy(xm, x, sizeof x);
    xp[j] += h, xm[j] -= h;
    CHECK("forward against reverse", t, dx[j], TOL_MODES);
    CHECK("reverse against central differences", dx[j], (tables(xp, w) - tables(xm, w)) / (2 * h), TOL_FD);
  }
  /* d/dw[k] = settled[i] * later[i] with the values the loop read. */
  for (int k = 0; k < M; k++) {
    int i = k % N;
    CHECK("closed form in w", dw[k], exp(x[i]) * x[i] * x[i], TOL_EXACT);
  }
  return CHECK_DONE();
}
