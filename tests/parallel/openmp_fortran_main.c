/* Tangents of the Fortran parallel loops in openmp_fortran.f90, against
 * the analytic tangents (1e-12), and their gradients (reverse mode, the
 * reverse of each region on a team too) against the tangents:
 * <w, J dx> = <J^T w, dx> (1e-12). The checksum line (of the tangents)
 * must not depend on the number of threads. */
#include <math.h>
#include <stdio.h>
#include <string.h>

extern int enzyme_const;
void __enzyme_fwddiff(void *, ...);
void __enzyme_autodiff(void *, ...);
void smooth(int n, double *x, double *y);
void pairs(int n, double *x, double *z);

enum { N = 100, P = 9 };
static int failures, checks;
static unsigned long long checksum;

static void check(const char *what, int k, double got, double want) {
  checks++;
  if (!(fabs(got - want) <= 1e-12 * (1 + fabs(want)))) {
    failures++;
    printf("FAIL %s[%d]: %.17g, want %.17g\n", what, k, got, want);
  }
  unsigned long long bits;
  memcpy(&bits, &got, sizeof bits);
  checksum = checksum * 1099511628211ULL + bits;
}

int main(void) {
  double x[N], dx[N], y[N], dy[N];
  for (int i = 0; i < N; i++) x[i] = 0.01 * i, dx[i] = 1.0 + 0.1 * (i % 3);
  __enzyme_fwddiff((void *)smooth, enzyme_const, N, x, dx, y, dy);
  for (int i = 0; i < N; i++) {
    int j = (i + 1) % N;
    check("parallel do", i, dy[i], (cos(x[i]) * x[i] + sin(x[i])) * dx[i] + 2 * x[j] * dx[j]);
  }
  double z[P * P], dz[P * P];
  __enzyme_fwddiff((void *)pairs, enzyme_const, P, x, dx, z, dz);
  for (int j = 0; j < P; j++)
    for (int i = 0; i < P; i++) {
      double e = exp(-0.1 * x[i] * x[j]);
      double want = -0.1 * e * (dx[i] * x[j] + x[i] * dx[j]) + dx[j];
      check("collapse(2) dynamic", j * P + i, dz[j * P + i], want);
    }
  {
    double w[N], gx[N] = {0}, lhs = 0, rhs = 0;
    for (int i = 0; i < N; i++) w[i] = 1 + 0.01 * i;
    for (int i = 0; i < N; i++) lhs += w[i] * dy[i];
    __enzyme_autodiff((void *)smooth, enzyme_const, N, x, gx, y, w);
    for (int i = 0; i < N; i++) rhs += gx[i] * dx[i];
    checks++;
    if (!(fabs(lhs - rhs) <= 1e-12 * (1 + fabs(lhs)))) failures++, printf("FAIL parallel do gradient: %.17g, want %.17g\n", rhs, lhs);
  }
  {
    double w[P * P], gx[N] = {0}, lhs = 0, rhs = 0;
    for (int i = 0; i < P * P; i++) w[i] = 1 - 0.01 * i;
    for (int i = 0; i < P * P; i++) lhs += w[i] * dz[i];
    __enzyme_autodiff((void *)pairs, enzyme_const, P, x, gx, z, w);
    for (int i = 0; i < P; i++) rhs += gx[i] * dx[i];
    checks++;
    if (!(fabs(lhs - rhs) <= 1e-12 * (1 + fabs(lhs)))) failures++, printf("FAIL collapse(2) gradient: %.17g, want %.17g\n", rhs, lhs);
  }
  printf("openmp (Fortran): %d checks, %d failed\n", checks, failures);
  printf("checksum %016llx\n", checksum);
  return failures != 0;
}
