/* Regression (enzyme-fuzz, reduced): a double constant stored as integer bits beside memmoves on a heap block (was refused: no known type). Fixed; kept as a test.
   was: build failed:
   was: error: cannot differentiate memory copy (`memcpy`/`memmove`) whose contents have no known type in `f3`
   was:  |
   was:  = note: in function `f3`
   was:  = note: instruction: tail call void @llvm.memmove.p0.p0.i64(ptr noundef nonnull align 8 dereferenceable(24) %27, ptr noundef nonnull align 8 dereferenceable(24) %12, i64 24, i1 false)
   was:  = note: needed by the `__enzyme_autodiff` call in `main`
   was:  = note: compile with -g to see the source line
   was:  = help: reverse mode must know which copied bytes are floats; say what the memory holds with `__enzyme_double(ptr)` (or `__enzyme_float`, `__enzyme_integer`, `__enzyme_pointer`) before the copy
   was: enzyme-cc: error: differentiation failed with 1 error; no output was written
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const, enzyme_out;
void __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);

struct rec {
  double p;
  int k;
  double q[2];
};

/* Sizes known only at run time (0 to 3). */
int runtime_n;

static void copy_n(double *d, const double *s, int k) {
  if (k > 0)
    memcpy(d, s, k * sizeof(double));
}
static void scale_n(double *p, int k, double c) {
  for (int i = 0; i < k; i++) p[i] *= tanh(c);
}
static double sum_n(const double *p, int k) {
  double t = 0;
  for (int i = 0; i < k; i++) t += p[i];
  return tanh(t);
}
static double mix(double p, double q) { return sin(p) * tanh(q) + 0.5 * p * tanh(p); }
#define NX 4
#define NY 4

static void f3(const double *x, double *y) {
  int n = runtime_n;
  double v0 = x[0], v1 = x[1], v2 = x[2], v3 = x[3];
  double a[8];
  for (int j = 0; j < 8; j++) a[j] = x[j % 4] * (0.5 + 0.1 * j);
  double *h = (double *)malloc(8 * sizeof(double));
  for (int j = 0; j < 8; j++) h[j] = x[(j + 1) % 4] - 0.05 * j;
  struct rec s = {x[1] * x[2], 3, {x[2], x[3] * 0.5}};
  h[0] = tanh(fabs((log(1.1 + (double)s.k * 0.833 * (double)s.k * 0.833) + 0.118)));
  memmove(h + 1, h, 3 * sizeof(double));
  memmove(h + 1, h, 1 * sizeof(double));
  y[0] = v0 + v1 * 0.5 + v2 * v3;
  y[1] = 0;
  for (int j = 0; j < 8; j++) y[1] += a[j] * (j + 1) * 0.1;
  y[2] = s.p + 2.0 * s.q[0] - s.q[1];
  for (int j = 0; j < 8; j++) y[2] += h[j] * (j % 3 + 1) * 0.1;
  y[3] = v0 * a[1] + h[2] * s.q[1] + sin(v3 + h[0]);
  free(h);
}

int main(void) {
  const double base[NX] = {-0.628063, 0.734493, 0.886957, 0.430763};
  int checks = 0, failures = 0, skipped = 0;
  for (int nn = 0; nn < 3; nn++) {
    runtime_n = nn == 2 ? 3 : nn;
    double x0[NX], y0[NY];
    for (int i = 0; i < NX; i++) x0[i] = base[i];
    f3(x0, y0);
    int finite = 1;
    for (int j = 0; j < NY; j++) finite &= isfinite(y0[j]);
    if (!finite) { printf("skip %s n=%d: non-finite primal\n", "f3", runtime_n); skipped++; continue; }
    double rev[NY][NX], fwd[NY][NX], fd[NY][NX], fd2[NY][NX];
    for (int i = 0; i < NX; i++) {
      double xp[NX], xm[NX], yp[NY], ym[NY];
      for (int hs = 0; hs < 2; hs++) {
        double hh = hs ? 5e-7 : 1e-6;
        for (int k = 0; k < NX; k++) xp[k] = xm[k] = x0[k];
        xp[i] += hh; xm[i] -= hh;
        f3(xp, yp); f3(xm, ym);
        for (int j = 0; j < NY; j++) (hs ? fd2 : fd)[j][i] = (yp[j] - ym[j]) / (2 * hh);
      }
    }
    for (int j = 0; j < NY; j++) {
      double x[NX], dx[NX] = {0}, y[NY], dy[NY] = {0};
      for (int k = 0; k < NX; k++) x[k] = x0[k];
      dy[j] = 1;
      __enzyme_autodiff((void *)f3, enzyme_dup, x, dx, enzyme_dup, y, dy);
      for (int k = 0; k < NY; k++) if (!(fabs(y[k] - y0[k]) <= 1e-13 * (1 + fabs(y0[k])))) { printf("FAIL %s n=%d: primal y[%d] from reverse mode %.17g != %.17g\n", "f3", runtime_n, k, y[k], y0[k]); failures++; }
      for (int i = 0; i < NX; i++) rev[j][i] = dx[i];
    }
    for (int i = 0; i < NX; i++) {
      double x[NX], tx[NX] = {0}, y[NY], ty[NY] = {0};
      for (int k = 0; k < NX; k++) x[k] = x0[k];
      tx[i] = 1;
      __enzyme_fwddiff((void *)f3, enzyme_dup, x, tx, enzyme_dup, y, ty);
      for (int k = 0; k < NY; k++) if (!(fabs(y[k] - y0[k]) <= 1e-13 * (1 + fabs(y0[k])))) { printf("FAIL %s n=%d: primal y[%d] from forward mode %.17g != %.17g\n", "f3", runtime_n, k, y[k], y0[k]); failures++; }
      for (int j = 0; j < NY; j++) fwd[j][i] = ty[j];
    }
    for (int j = 0; j < NY; j++)
      for (int i = 0; i < NX; i++) {
        double r = rev[j][i], f = fwd[j][i], d = fd[j][i], d2 = fd2[j][i];
        checks++;
        if (!(fabs(f - r) <= 1e-9 * (1 + fabs(r)))) {
          printf("FAIL %s n=%d J[%d][%d]: forward %.17g, reverse %.17g, finite difference %.10g\n", "f3", runtime_n, j, i, f, r, d);
          failures++;
        } else if (fabs(d - d2) > 1e-6 * (1 + fabs(d))) {
          skipped++;
        } else if (!(fabs(r - d) <= 1e-5 * (1 + fabs(d)))) {
          printf("FAIL %s n=%d J[%d][%d]: reverse %.17g and forward %.17g, finite difference %.10g\n", "f3", runtime_n, j, i, r, f, d);
          failures++;
        }
      }
  }
  printf("entries checked %d, failed %d, not smooth enough to check against differences %d\n", checks, failures, skipped);
  return failures != 0;
}
