/*
 * Self-checking helpers for the end-to-end C tests.
 *
 * Every derivative is checked three ways:
 *   - reverse mode (__enzyme_autodiff) against the analytic derivative,
 *   - forward mode (__enzyme_fwddiff) against reverse mode,
 *   - a central finite difference of the primal against the analytic value,
 * each with a stated relative tolerance. A program exits non-zero if any
 * check fails, and prints what failed.
 *
 * The declarations below are written out by hand, as most Enzyme users do,
 * instead of including <enzyme/enzyme.h> (other tests include the header).
 */
#ifndef CHECK_H
#define CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

extern int enzyme_dup, enzyme_dupnoneed, enzyme_out, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

/* Tolerances (relative, with an absolute floor of the same size). */
#define TOL_EXACT 1e-12 /* AD against analytic, double */
#define TOL_MODES 1e-12 /* forward against reverse, double */
#define TOL_FD 1e-6     /* central difference against analytic, double */
#define TOL_FLOAT 2e-5  /* anything computed in float */

static int check_failures = 0;
static int check_count = 0;

static int close_enough(double got, double want, double tol) {
  if (isnan(got) || isnan(want))
    return isnan(got) && isnan(want);
  return fabs(got - want) <= tol * (1.0 + fabs(want));
}

static void check_close(const char *what, double got, double want, double tol, const char *file, int line) {
  check_count++;
  if (!close_enough(got, want, tol)) {
    check_failures++;
    printf("%s:%d: FAIL %s: got %.17g, want %.17g (tolerance %g)\n", file, line, what, got, want, tol);
  }
}

#define CHECK(what, got, want, tol) check_close(what, (got), (want), (tol), __FILE__, __LINE__)

/* Central finite difference of a double -> double function. */
static double central_diff(double (*f)(double), double x) {
  double h = 1e-6 * (fabs(x) > 1 ? fabs(x) : 1);
  return (f(x + h) - f(x - h)) / (2 * h);
}

/* Checks d/dx f at x, both modes, against `analytic` and a finite difference. */
#define CHECK_UNARY(f, x, analytic)                                          \
  do {                                                                       \
    double x_ = (x), a_ = (analytic);                                        \
    double rev_ = __enzyme_autodiff((void *)f, x_);                          \
    double fwd_ = __enzyme_fwddiff((void *)f, enzyme_dup, x_, 1.0);          \
    CHECK(#f " reverse vs analytic", rev_, a_, TOL_EXACT);                   \
    CHECK(#f " forward vs reverse", fwd_, rev_, TOL_MODES);                  \
    CHECK(#f " finite difference vs analytic", central_diff(f, x_), a_, TOL_FD); \
  } while (0)

/* The same for float -> float functions (arguments promote to double in the
 * variadic call; the engine converts them back). */
#define CHECK_UNARY_F(f, x, analytic)                                        \
  do {                                                                       \
    float x_ = (x);                                                          \
    double a_ = (analytic);                                                  \
    double rev_ = __enzyme_autodiff((void *)f, x_);                          \
    double fwd_ = __enzyme_fwddiff((void *)f, enzyme_dup, x_, 1.0f);         \
    CHECK(#f " reverse vs analytic (float)", rev_, a_, TOL_FLOAT);           \
    CHECK(#f " forward vs reverse (float)", fwd_, rev_, TOL_FLOAT);          \
  } while (0)

/* Two-argument functions: gradient as a struct, forward mode per direction. */
typedef struct {
  double dx, dy;
} grad2;
grad2 __enzyme_autodiff_2(void *, ...);

static double central_diff2(double (*f)(double, double), double x, double y, int dir) {
  double h = 1e-6;
  if (dir == 0)
    return (f(x + h, y) - f(x - h, y)) / (2 * h);
  return (f(x, y + h) - f(x, y - h)) / (2 * h);
}

#define CHECK_BINARY(f, x, y, ax, ay)                                                \
  do {                                                                               \
    double x_ = (x), y_ = (y), ax_ = (ax), ay_ = (ay);                               \
    grad2 g_ = __enzyme_autodiff_2((void *)f, x_, y_);                               \
    double fx_ = __enzyme_fwddiff((void *)f, enzyme_dup, x_, 1.0, enzyme_dup, y_, 0.0); \
    double fy_ = __enzyme_fwddiff((void *)f, enzyme_dup, x_, 0.0, enzyme_dup, y_, 1.0); \
    CHECK(#f " reverse d/dx vs analytic", g_.dx, ax_, TOL_EXACT);                    \
    CHECK(#f " reverse d/dy vs analytic", g_.dy, ay_, TOL_EXACT);                    \
    CHECK(#f " forward d/dx vs reverse", fx_, g_.dx, TOL_MODES);                     \
    CHECK(#f " forward d/dy vs reverse", fy_, g_.dy, TOL_MODES);                     \
    CHECK(#f " finite difference d/dx", central_diff2(f, x_, y_, 0), ax_, TOL_FD);   \
    CHECK(#f " finite difference d/dy", central_diff2(f, x_, y_, 1), ay_, TOL_FD);   \
  } while (0)

typedef struct {
  float dx, dy;
} grad2f;
grad2f __enzyme_autodiff_2f(void *, ...);

#define CHECK_BINARY_F(f, x, y, ax, ay)                                                  \
  do {                                                                                   \
    float x_ = (x), y_ = (y);                                                            \
    double ax_ = (ax), ay_ = (ay);                                                       \
    grad2f g_ = __enzyme_autodiff_2f((void *)f, x_, y_);                                 \
    double fx_ = __enzyme_fwddiff((void *)f, enzyme_dup, x_, 1.0f, enzyme_dup, y_, 0.0f); \
    double fy_ = __enzyme_fwddiff((void *)f, enzyme_dup, x_, 0.0f, enzyme_dup, y_, 1.0f); \
    CHECK(#f " reverse d/dx (float)", g_.dx, ax_, TOL_FLOAT);                            \
    CHECK(#f " reverse d/dy (float)", g_.dy, ay_, TOL_FLOAT);                            \
    CHECK(#f " forward d/dx vs reverse (float)", fx_, g_.dx, TOL_FLOAT);                 \
    CHECK(#f " forward d/dy vs reverse (float)", fy_, g_.dy, TOL_FLOAT);                 \
  } while (0)

static int check_done(const char *name) {
  if (check_count == 0) {
    printf("%s: FAIL: no checks ran\n", name);
    return 1;
  }
  if (check_failures) {
    printf("%s: %d of %d checks failed\n", name, check_failures, check_count);
    return 1;
  }
  printf("%s: %d checks passed\n", name, check_count);
  return 0;
}

#define CHECK_DONE() check_done(__FILE__)

#endif
