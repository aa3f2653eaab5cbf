/* Reverse mode through OpenMP critical sections and reductions other than
 * sums (and `atomic read`s of a shared value, at the end): their reverses must run in the reverse of the order the threads
 * went through them (a `max` sends the adjoint to whichever thread stored
 * last; a product's adjoint depends on who multiplied before and after).
 * Each thread takes a ticket as it leaves a section, and the reverses run
 * one at a time in descending ticket order. Checked against closed forms
 * (the results do not depend on the threads' order, their derivatives do
 * through it), forward mode, and central differences; at any thread count. */
#include <math.h>
#include <stdio.h>
#include <omp.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_autodiff_d(void *, ...);
double __enzyme_fwddiff(void *, ...);

enum { N = 64 };
static int failures, checks;
static void check(const char *what, double got, double want, double tol) {
  checks++;
  if (!(fabs(got - want) <= tol * (1 + fabs(want)))) {
    failures++;
    printf("FAIL %s: got %.17g, want %.17g\n", what, got, want);
  }
}

/* The largest square, by hand in a critical section (many entries per thread). */
static double largest_square(const double *x, int n) {
  double best = -1;
#pragma omp parallel for schedule(dynamic, 3)
  for (int i = 0; i < n; i++) {
    double v = x[i] * x[i];
#pragma omp critical
    {
      if (v > best) best = v;
    }
  }
  return best;
}

static double reduce_max(const double *x, int n) {
  double m = -1e300;
#pragma omp parallel for reduction(max : m)
  for (int i = 0; i < n; i++) m = fmax(m, sin(x[i]) + x[i]);
  return m;
}

static double reduce_min(const double *x, int n) {
  double m = 1e300;
#pragma omp parallel for reduction(min : m)
  for (int i = 0; i < n; i++) m = fmin(m, x[i] * x[i] - x[i]);
  return m;
}

static double reduce_product(const double *x, int n) {
  double p = 1;
#pragma omp parallel for reduction(* : p)
  for (int i = 0; i < n; i++) p *= 1 + 0.1 * sin(x[i]);
  return p;
}

/* Two sections per iteration, and a sum reduction beside them. */
static double two_sections(const double *x, int n) {
  double hi = -1e300, lo = 1e300, s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++) {
    double v = cos(x[i]) * x[i];
#pragma omp critical(high)
    hi = v > hi ? v : hi;
#pragma omp critical(low)
    lo = v < lo ? v : lo;
    s += v;
  }
  return hi - 2 * lo + 0.01 * s;
}

/* `atomic read` of a shared value that `atomic` updates built in an earlier region. */
static double atomic_reads(const double *x, int n) {
  double acc = 0, total = 0;
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
#pragma omp atomic
    acc += 0.01 * x[i];
  }
#pragma omp parallel for reduction(+ : total)
  for (int i = 0; i < n; i++) {
    double v;
#pragma omp atomic read
    v = acc;
    total += v * sin(x[i]);
  }
  return total;
}

typedef double (*fn)(const double *, int);

static void check_one(const char *name, fn f, const double *x) {
  double g[N] = {0};
  __enzyme_autodiff((void *)f, enzyme_dup, x, g, enzyme_const, N);
  /* Against forward mode in a few directions, and differences. */
  for (int d = 0; d < 3; d++) {
    double v[N], xp[N], xm[N], dot = 0, h = 1e-7;
    for (int i = 0; i < N; i++) {
      v[i] = (d == 0 && i == 0) ? 1 : cos(1.7 * i + d);
      dot += g[i] * v[i];
      xp[i] = x[i] + h * v[i];
      xm[i] = x[i] - h * v[i];
    }
    double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, v, enzyme_const, N);
    char what[96];
    snprintf(what, sizeof what, "%s: reverse . v against forward", name);
    check(what, dot, t, 1e-10);
    snprintf(what, sizeof what, "%s: reverse . v against differences", name);
    check(what, dot, (f(xp, N) - f(xm, N)) / (2 * h), 1e-5);
  }
}

int main(void) {
  double x[N];
  for (int i = 0; i < N; i++) x[i] = sin(0.37 * i * i + 0.2) * (1 + 0.01 * i);
  /* Closed forms: the winners (distinct values, so each has one). */
  int imax = 0, jmax = 0, kmin = 0;
  for (int i = 1; i < N; i++) {
    if (x[i] * x[i] > x[imax] * x[imax]) imax = i;
    if (sin(x[i]) + x[i] > sin(x[jmax]) + x[jmax]) jmax = i;
    if (x[i] * x[i] - x[i] < x[kmin] * x[kmin] - x[kmin]) kmin = i;
  }
  for (int round = 0; round < 3; round++) {
    double g[N] = {0};
    __enzyme_autodiff((void *)largest_square, enzyme_dup, x, g, enzyme_const, N);
    for (int i = 0; i < N; i++) check("largest_square: closed form", g[i], i == imax ? 2 * x[i] : 0, 1e-12);
    double r[N] = {0};
    __enzyme_autodiff((void *)reduce_max, enzyme_dup, x, r, enzyme_const, N);
    for (int i = 0; i < N; i++) check("max reduction: closed form", r[i], i == jmax ? cos(x[i]) + 1 : 0, 1e-12);
    double m[N] = {0};
    __enzyme_autodiff((void *)reduce_min, enzyme_dup, x, m, enzyme_const, N);
    for (int i = 0; i < N; i++) check("min reduction: closed form", m[i], i == kmin ? 2 * x[i] - 1 : 0, 1e-12);
    double p[N] = {0}, prod = reduce_product(x, N);
    __enzyme_autodiff((void *)reduce_product, enzyme_dup, x, p, enzyme_const, N);
    for (int i = 0; i < N; i++)
      check("product reduction: closed form", p[i], prod / (1 + 0.1 * sin(x[i])) * 0.1 * cos(x[i]), 1e-10);
    double a[N] = {0}, acc = 0, sines = 0;
    for (int i = 0; i < N; i++) acc += 0.01 * x[i], sines += sin(x[i]);
    __enzyme_autodiff((void *)atomic_reads, enzyme_dup, x, a, enzyme_const, N);
    for (int i = 0; i < N; i++) check("atomic read: closed form", a[i], 0.01 * sines + acc * cos(x[i]), 1e-10);
  }
  check_one("largest_square", largest_square, x);
  check_one("reduce_max", reduce_max, x);
  check_one("reduce_min", reduce_min, x);
  check_one("reduce_product", reduce_product, x);
  check_one("two_sections", two_sections, x);
  check_one("atomic_reads", atomic_reads, x);
  if (failures) {
    printf("%d of %d checks failed (%d threads)\n", failures, checks, omp_get_max_threads());
    return 1;
  }
  printf("%d checks passed (%d threads)\n", checks, omp_get_max_threads());
  return 0;
}
