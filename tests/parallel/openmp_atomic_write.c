/* `#pragma omp atomic write`, `atomic capture` and an atomic product (a
 * compare-and-swap loop) of doubles in a parallel region, both modes.
 * Which thread writes a place last depends on the schedule, so the result
 * does: the derivative must be that of the run that happened. Each of two
 * places ends up holding sin(x[j]) for one j (the last writer); reverse
 * mode must give x[j] alone the adjoint w * cos(x[j]), and forward mode the
 * tangent cos(x[j]) * t[j], for the j whose value is there. A capture
 * (`old = acc; acc += x[i]`) sees the sum of the values added before it, in
 * the order the threads went: the gradient, computed from the order the run
 * shows, is checked exactly. A product's derivative does not depend on the
 * order: checked against its closed form. At any number of threads; at one
 * thread, j is the last index of its parity. */
#include <math.h>
#include <omp.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

enum { N = 40 };
static int failures, checks;
static void check(const char *what, double got, double want) {
  checks++;
  if (!(fabs(got - want) <= 1e-12 * (1 + fabs(want)))) {
    failures++;
    printf("FAIL %s: got %.17g, want %.17g\n", what, got, want);
  }
}

static double last_writes(const double *x, double *out, int n) {
#pragma omp parallel for schedule(dynamic, 2)
  for (int i = 0; i < n; i++) {
    double v = sin(x[i]);
#pragma omp atomic write
    out[i % 2] = v;
  }
  return 2 * out[0] + 3 * out[1];
}

/* acc plus, per i, what acc held when i added to it, times x[i]. */
static double captured(const double *x, double *acc, double *seen, int n) {
#pragma omp parallel for schedule(dynamic, 3)
  for (int i = 0; i < n; i++) {
    double old;
#pragma omp atomic capture
    {
      old = acc[0];
      acc[0] += x[i];
    }
    seen[i] = old * x[i];
  }
  double s = acc[0];
  for (int i = 0; i < n; i++) s += seen[i];
  return s;
}

/* Two places multiplied by every other v[i] (clang's compare-and-swap loop). */
static double products(const double *v, double *p, int n) {
#pragma omp parallel for schedule(dynamic, 3)
  for (int i = 0; i < n; i++) {
#pragma omp atomic
    p[i % 2] *= v[i];
  }
  return p[0] + 2 * p[1];
}

/* The index whose sine place k holds (-1 if none). */
static int writer(const double *x, const double *out, int k) {
  int found = -1;
  for (int j = k; j < N; j += 2)
    if (sin(x[j]) == out[k]) found = j;
  return found;
}

int main(void) {
  double x[N], dx[N] = {0}, out[2], dout[2] = {0, 0};
  for (int i = 0; i < N; i++) x[i] = 0.05 * i + 0.1 * cos(3.0 * i);
  __enzyme_autodiff((void *)last_writes, enzyme_dup, x, dx, enzyme_dup, out, dout, enzyme_const, N);
  const double w[2] = {2, 3};
  for (int k = 0; k < 2; k++) {
    int j = writer(x, out, k);
    check("reverse: a writer of the place was found", j >= 0, 1);
    if (omp_get_max_threads() == 1) check("reverse: one thread writes in order", j, N - 2 + k);
    for (int i = k; i < N; i += 2)
      check("reverse: only the last writer gets the adjoint", dx[i], i == j ? w[k] * cos(x[i]) : 0);
  }
  double t[N];
  for (int i = 0; i < N; i++) t[i] = 1 + 0.1 * i;
  double tout[2] = {0, 0};
  double dy = __enzyme_fwddiff((void *)last_writes, enzyme_dup, x, t, enzyme_dup, out, tout, enzyme_const, N);
  for (int k = 0; k < 2; k++) {
    int j = writer(x, out, k);
    check("forward: a writer of the place was found", j >= 0, 1);
    if (j >= 0) check("forward: the place's tangent is its writer's", tout[k], cos(x[j]) * t[j]);
  }
  check("forward: the result's tangent", dy, 2 * tout[0] + 3 * tout[1]);

  /* The capture, on positive inputs (so the sums grow and show the order):
   * olds[i] = seen[i] / y[i], the sum of the y added before i (acc starts at
   * 0.5). d/dy[j] = 1 + olds[j] + the sum of the y added after j. */
  double y[N], dyv[N] = {0}, ty[N];
  for (int i = 0; i < N; i++) y[i] = 0.3 + 0.01 * i + 0.05 * sin(i), ty[i] = 1 - 0.02 * i;
  double acc = 0.5, dacc = 0, seen[N], dseen[N] = {0};
  __enzyme_autodiff((void *)captured, enzyme_dup, y, dyv, enzyme_dup, &acc, &dacc, enzyme_dup, seen, dseen,
                    enzyme_const, N);
  double olds[N], total = 0;
  for (int i = 0; i < N; i++) olds[i] = seen[i] / y[i], total += y[i];
  for (int j = 0; j < N; j++) {
    double later = 0;
    for (int i = 0; i < N; i++)
      if (olds[i] > olds[j]) later += y[i];
    check("capture: reverse against the run's order", dyv[j], 1 + olds[j] + later);
  }
  check("capture: the initial value's adjoint", dacc, 1 + total);
  double acc2 = 0.5, tacc = 0, seen2[N], tseen[N] = {0};
  double dyc = __enzyme_fwddiff((void *)captured, enzyme_dup, y, ty, enzyme_dup, &acc2, &tacc, enzyme_dup, seen2,
                                tseen, enzyme_const, N);
  double want = 0;
  for (int i = 0; i < N; i++) {
    double old = seen2[i] / y[i], told = 0;
    for (int l = 0; l < N; l++)
      if (seen2[l] / y[l] < old) told += ty[l];
    want += ty[i] + told * y[i] + old * ty[i];
  }
  check("capture: forward against the run's order", dyc, want);

  /* The product: d/dv[j] = w * p[j % 2] / v[j], whatever the order. */
  double v[N], dv[N] = {0}, pr[2] = {1.5, 0.5}, dpr[2] = {0, 0};
  for (int i = 0; i < N; i++) v[i] = 1 + 0.01 * sin(2.0 * i) + 0.003 * i;
  __enzyme_autodiff((void *)products, enzyme_dup, v, dv, enzyme_dup, pr, dpr, enzyme_const, N);
  const double wp[2] = {1, 2}, p0[2] = {1.5, 0.5};
  for (int j = 0; j < N; j++) check("product: reverse against its closed form", dv[j], wp[j % 2] * pr[j % 2] / v[j]);
  for (int k = 0; k < 2; k++) check("product: the initial value's adjoint", dpr[k], wp[k] * pr[k] / p0[k]);
  double tv[N], pr2[2] = {1.5, 0.5}, tpr[2] = {0, 0}, wantp = 0;
  for (int i = 0; i < N; i++) tv[i] = 0.5 - 0.01 * i;
  double dyp = __enzyme_fwddiff((void *)products, enzyme_dup, v, tv, enzyme_dup, pr2, tpr, enzyme_const, N);
  for (int i = 0; i < N; i++) wantp += wp[i % 2] * pr2[i % 2] / v[i] * tv[i];
  check("product: forward against its closed form", dyp, wantp);
  printf("openmp atomic write: %d of %d checks passed (%d threads)\n", checks - failures, checks,
         omp_get_max_threads());
  return failures != 0;
}
