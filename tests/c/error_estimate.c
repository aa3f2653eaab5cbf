/* `__enzyme_error_estimate(f, x, ex, ...)`: forward mode whose tangents are
 * floating-point error estimates, in Enzyme's model: an operation's error
 * is the larger of one unit in the last place of its result and the sum of
 * its operands' errors scaled by their condition numbers,
 * `max(|r - r'|, sum |e(a) * a * dr/da / r|)`. Checked three ways: against
 * Enzyme's own published values (cos at 1e-7: one ulp; the cancellation
 * in (1 - cos x) / x^2 at 1e-7: 2.22e-2), against the model written out
 * by hand below for each program (relative 1e-12), and against the actual
 * error of the cancelling expression measured in long double (the estimate
 * must not be below it). Through a loop over memory and a call kept a call. */
#include <stdint.h>
#include <string.h>
#include "check.h"
#include "error_model.h"

/* The model below rounds each operation; a fused multiply-add would round
 * once (and its estimate would be the fma's). */
#pragma STDC FP_CONTRACT OFF

double __enzyme_error_estimate(void *, ...);
extern int enzyme_dup, enzyme_const;

/* Relative comparison, for values far below 1. */
static void check_rel(const char *what, double got, double want, double tol, int line) {
  check_count++;
  if (!(fabs(got - want) <= tol * fabs(want))) {
    check_failures++;
    printf("%s:%d: FAIL %s: got %.17g, want %.17g (relative %g)\n", __FILE__, line, what, got, want, tol);
  }
}
#define CHECK_REL(what, got, want, tol) check_rel(what, (got), (want), (tol), __LINE__)


static double just_cos(double x) { return cos(x); }

static double cancelling(double x) {
  double v1 = cos(x);
  double v2 = 1 - v1;
  double v3 = x * x;
  return v2 / v3;
}

static double quotient(double x, double y) { return x / y; }
static double product_exp(double x, double y) { return exp(x) * y; }

/* Through memory: each element's error given by its shadow. */
static double sum_squares(const double *a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * a[i];
  return s;
}

__attribute__((noinline)) static double scaled_sqrt(double x, double k) { return sqrt(x) * k; }
static double calls(double x) { return scaled_sqrt(x, 3.0) + scaled_sqrt(x + 1, 0.5); }

int main(void) {
  /* Enzyme's published values. */
  double x = 1e-7;
  CHECK_REL("cos at 1e-7, exact input", __enzyme_error_estimate((void *)just_cos, x, 0.0), 1.110223e-16, 1e-6);
  double e = __enzyme_error_estimate((void *)cancelling, x, 0.0);
  CHECK_REL("(1 - cos x) / x^2 at 1e-7", e, 2.2222222222e-2, 1e-4);

  /* The model by hand. */
  {
    double v1 = cos(x), v2 = 1 - v1, v3 = x * x, v4 = v2 / v3;
    double e1 = err(v1, 0), e2 = err(v2, fabs(e1 * v1 / v2)), e3 = err(v3, 0);
    double e4 = err(v4, fabs(e2 * v2 / v4 / v3) + fabs(e3 * v3 / v4 * (-v4 / v3)));
    CHECK_REL("cancelling, model", e, e4, 1e-12);
    /* The estimate bounds the actual error (measured in long double). */
    long double xl = x, exact = (1.0L - cosl(xl)) / (xl * xl);
    double actual = (double)fabsl(((long double)cancelling(x) - exact) / exact);
    if (!(e >= actual)) {
      check_failures++;
      printf("FAIL estimate %.3g below the actual relative error %.3g\n", e, actual);
    }
    check_count++;
  }
  {
    double a = 3.0, b = 7.0, ea = 1e-10, eb = 3e-9;
    /* x / y: both condition numbers 1. */
    CHECK_REL("x / y", __enzyme_error_estimate((void *)quotient, a, ea, b, eb), err(a / b, ea + eb), 1e-12);
    /* exp(x) * y: exp's condition number is |x|. */
    double ex = exp(a), eexp = err(ex, fabs(ea * a * ex / ex)), r = ex * b;
    CHECK_REL("exp(x) * y", __enzyme_error_estimate((void *)product_exp, a, ea, b, eb), err(r, eexp + eb), 1e-12);
  }
  {
    double a[4] = {1.5, -2.25, 0.125, 3.0}, ea[4] = {1e-12, 2e-12, 0, 5e-13};
    double got = __enzyme_error_estimate((void *)sum_squares, enzyme_dup, a, ea, enzyme_const, 4);
    double s = 0, es = 0;
    for (int i = 0; i < 4; i++) {
      double sq = a[i] * a[i];
      double esq = err(sq, 2 * fabs(ea[i] * a[i] * a[i] / sq));
      double t = s + sq;
      es = err(t, (s == 0 ? 0 : fabs(es * s / t)) + fabs(esq * sq / t));
      s = t;
    }
    CHECK_REL("sum of squares through memory", got, es, 1e-12);
  }
  {
    double y = 2.0, ey = 1e-9;
    double s1 = sqrt(y), r1 = s1 * 3.0, es1 = err(s1, fabs(ey * y * (0.5 / s1) / s1));
    double er1 = err(r1, es1);
    double y1 = y + 1, ey1 = err(y1, fabs(ey * y / y1));
    double s2 = sqrt(y1), r2 = s2 * 0.5, es2 = err(s2, fabs(ey1 * y1 * (0.5 / s2) / s2));
    double er2 = err(r2, es2);
    double r = r1 + r2;
    double want = err(r, fabs(er1 * r1 / r) + fabs(er2 * r2 / r));
    CHECK_REL("through calls", __enzyme_error_estimate((void *)calls, y, ey), want, 1e-12);
  }
  printf("%d checks, %d failed\n", check_count, check_failures);
  return check_failures != 0;
}
