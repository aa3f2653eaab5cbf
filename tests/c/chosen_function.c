/* The function given to __enzyme_autodiff / __enzyme_fwddiff chosen at run
 * time: calls in the two arms of an `if` (which the optimiser merges into one
 * call of a `select`ed function) and an element of a constant table of
 * functions. Each becomes a test of the pointer and one request per
 * function; every derivative is checked against its closed form and a
 * finite difference, and forward mode against reverse mode. */
#include "check.h"

static double sq(double x) { return x * x * sin(x); }
static double cube(double x) { return x * x * x + exp(0.5 * x); }
static double wave(double x) { return cos(3 * x) / (1 + x * x); }

static double dsq(double x) { return 2 * x * sin(x) + x * x * cos(x); }
static double dcube(double x) { return 3 * x * x + 0.5 * exp(0.5 * x); }
static double dwave(double x) { return (-3 * sin(3 * x) * (1 + x * x) - cos(3 * x) * 2 * x) / ((1 + x * x) * (1 + x * x)); }

static double (*const table[3])(double) = {sq, cube, wave};
static double (*const closed[3])(double) = {dsq, dcube, dwave};

__attribute__((noinline)) static double gradient_of_either(int which, double x) {
  if (which)
    return __enzyme_autodiff((void *)sq, x);
  else
    return __enzyme_autodiff((void *)cube, x);
}

__attribute__((noinline)) static double tangent_of_either(int which, double x) {
  if (which)
    return __enzyme_fwddiff((void *)sq, enzyme_dup, x, 1.0);
  else
    return __enzyme_fwddiff((void *)cube, enzyme_dup, x, 1.0);
}

__attribute__((noinline)) static double gradient_from_table(int k, double x) {
  return __enzyme_autodiff((void *)table[k], x);
}

__attribute__((noinline)) static double tangent_from_table(int k, double x) {
  return __enzyme_fwddiff((void *)table[k], enzyme_dup, x, 1.0);
}

/* Gradients into shadows only, the result of the call unused. */
static double sum_sq(const double *v, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += v[i] * v[i];
  return s;
}
static double sum_cube(const double *v, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += v[i] * v[i] * v[i];
  return s;
}

__attribute__((noinline)) static void shadows_of_either(int which, const double *v, double *d, int n) {
  double (*f)(const double *, int) = which ? sum_sq : sum_cube;
  __enzyme_autodiff((void *)f, enzyme_dup, v, d, enzyme_const, n);
}

int main(void) {
  const double xs[3] = {0.3, -1.2, 2.1};
  for (int i = 0; i < 3; i++) {
    double x = xs[i];
    for (int w = 0; w < 2; w++) {
      double want = w ? dsq(x) : dcube(x);
      CHECK("if/else: reverse vs closed form", gradient_of_either(w, x), want, TOL_EXACT);
      CHECK("if/else: forward vs reverse", tangent_of_either(w, x), gradient_of_either(w, x), TOL_MODES);
      CHECK("if/else: finite difference vs closed form", central_diff(w ? sq : cube, x), want, TOL_FD);
    }
    for (int k = 0; k < 3; k++) {
      double want = closed[k](x);
      CHECK("table: reverse vs closed form", gradient_from_table(k, x), want, TOL_EXACT);
      CHECK("table: forward vs reverse", tangent_from_table(k, x), gradient_from_table(k, x), TOL_MODES);
      CHECK("table: finite difference vs closed form", central_diff(table[k], x), want, TOL_FD);
    }
  }
  const double v[3] = {0.4, -1.5, 2.2};
  for (int w = 0; w < 2; w++) {
    double d[3] = {0};
    shadows_of_either(w, v, d, 3);
    for (int i = 0; i < 3; i++)
      CHECK("chosen, result unused: reverse vs closed form", d[i], w ? 2 * v[i] : 3 * v[i] * v[i], TOL_EXACT);
  }
  if (check_failures) {
    printf("%d of %d checks failed\n", check_failures, check_count);
    return 1;
  }
  printf("chosen_function: %d checks passed\n", check_count);
  return 0;
}
