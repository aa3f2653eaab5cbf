/* Forward mode through OpenMP parallel regions: the derivative runs the
 * region's tangents on a team of threads too. Each kernel's tangent in a
 * random direction is checked against a central difference of the whole
 * parallel computation (1e-6) and, where written out, against the
 * analytic tangent (1e-12). The last line is a checksum of every tangent
 * (bit for bit; the reductions' are left out, since their sums come in any order): the test
 * script runs the program with OMP_NUM_THREADS=1, 2
 * and 4 and requires the same line, since each element's tangent is
 * computed the same way whichever thread computes it. */
#include <stdio.h>
#include <string.h>

extern int enzyme_const, enzyme_dup;
void __enzyme_fwddiff(void *, ...);

#include "openmp_kernels.h"

static int failures, checks;
static unsigned long long checksum;
/* Reductions' results depend on the order the threads combine them in. */
static int in_checksum = 1;

static void check(const char *what, int k, double got, double want, double tol) {
  checks++;
  if (!(fabs(got - want) <= tol * (1 + fabs(want)))) {
    failures++;
    printf("FAIL %s[%d]: %.17g, want %.17g\n", what, k, got, want);
  }
  unsigned long long bits;
  memcpy(&bits, &got, sizeof bits);
  if (in_checksum) checksum = checksum * 1099511628211ULL + bits;
}

static double X[2 * N], DX[2 * N];

static void inputs(void) {
  for (int i = 0; i < 2 * N; i++) {
    /* Multiples of 1/64: the critical section's sum is exact in any order. */
    X[i] = (double)((i * 37) % 61 - 30) / 64;
    DX[i] = (double)((i * 11) % 17 - 8) / 64;
  }
}

/* A kernel's outputs at X + s * DX. */
typedef void (*kernel)(const double *x, double *out);
static void run_at(kernel k, double s, double *out) {
  double x[2 * N];
  for (int i = 0; i < 2 * N; i++) x[i] = X[i] + s * DX[i];
  k(x, out);
}

static void fd_check(const char *what, kernel k, const double *tangent, int n) {
  double h = 1e-6, p[N * 3], m[N * 3];
  run_at(k, h, p);
  run_at(k, -h, m);
  for (int i = 0; i < n; i++) check(what, i, tangent[i], (p[i] - m[i]) / (2 * h), 1e-6);
}

/* The kernels as x -> outputs, for the differences. */
static void scale_sin_k(const double *x, double *out) { scale_sin(x, out, x + N); }
static void stencil_k(const double *x, double *out) {
  out[0] = out[N - 1] = 0;
  stencil(x, out);
}
static void dense_k(const double *x, double *out) { dense(x, out); }
static void outer_k(const double *x, double *out) { outer(x, out); }
static void phases_k(const double *x, double *out) {
  double t[N], shared[3] = {0, 0, 0};
  phases(x, t, out, shared);
  out[N] = shared[0], out[N + 1] = shared[1], out[N + 2] = shared[2];
}
static void by_thread_k(const double *x, double *out) { by_thread(x, out); }
static void shared_scalar_k(const double *x, double *out) { shared_scalar(x, out); }
static void sums_k(const double *x, double *out) { sums(x, out); }
static void extremes_k(const double *x, double *out) { extremes(x, out); }
static void critical_k(const double *x, double *out) { critical_sum(x, out); }
static void atomic_k(const double *x, double *out) { atomic_sum(x, out); }

int main(void) {
  inputs();
  double y[N], dy[N];
  {
    __enzyme_fwddiff((void *)scale_sin, X, DX, y, dy, X + N, DX + N);
    for (int i = 0; i < N; i++) {
      double want = DX[N] * sin(X[i]) * X[i] + X[N] * (cos(X[i]) * X[i] + sin(X[i])) * DX[i];
      check("parallel for", i, dy[i], want, 1e-12);
    }
    fd_check("parallel for (differences)", scale_sin_k, dy, N);
  }
  {
    memset(dy, 0, sizeof dy);
    __enzyme_fwddiff((void *)stencil, X, DX, y, dy);
    fd_check("schedule(dynamic)", stencil_k, dy, N);
  }
  {
    __enzyme_fwddiff((void *)dense, X, DX, y, dy);
    fd_check("schedule(guided)", dense_k, dy, N);
  }
  {
    double z[M * M], dz[M * M];
    __enzyme_fwddiff((void *)outer, X, DX, z, dz);
    fd_check("collapse(2)", outer_k, dz, M * M);
  }
  {
    double t[N], dt[N] = {0}, out[N + 3], dout[N + 3], shared[3] = {0, 0, 0}, dshared[3] = {0, 0, 0};
    __enzyme_fwddiff((void *)phases, X, DX, t, dt, out, dout, shared, dshared);
    dout[N] = dshared[0], dout[N + 1] = dshared[1], dout[N + 2] = dshared[2];
    fd_check("single, barriers, master", phases_k, dout, N + 3);
  }
  {
    __enzyme_fwddiff((void *)by_thread, X, DX, y, dy);
    fd_check("omp_get_thread_num", by_thread_k, dy, N);
  }
  {
    __enzyme_fwddiff((void *)shared_scalar, X, DX, y, dy);
    fd_check("shared scalar", shared_scalar_k, dy, N);
  }
  in_checksum = 0;
  {
    double o[2], d[2];
    __enzyme_fwddiff((void *)sums, X, DX, o, d);
    fd_check("reduction(+)", sums_k, d, 2);
    __enzyme_fwddiff((void *)extremes, X, DX, o, d);
    fd_check("reduction(max), reduction(*)", extremes_k, d, 2);
    __enzyme_fwddiff((void *)critical_sum, X, DX, o, d);
    double want = 0;
    for (int i = 0; i < N; i++) want += 2 * X[i] * DX[i];
    check("critical", 0, d[0], want, 1e-12);
    fd_check("critical", critical_k, d, 1);
    __enzyme_fwddiff((void *)atomic_sum, X, DX, o, d);
    fd_check("atomic", atomic_k, d, 2);
  }
  printf("openmp forward: %d checks, %d failed\n", checks, failures);
  printf("checksum %016llx\n", checksum);
  return failures != 0;
}
