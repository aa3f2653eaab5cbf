/*
 * Benchmark harness. A kernel file includes bench.h first, then defines
 *   static const char *NAME;
 *   static void setup(int n);      sizes and fills its inputs
 *   static double primal(void);    one evaluation
 *   static void reverse(void);     our gradient (__enzyme_autodiff) into its adjoint arrays
 * and optionally (each announced by a macro before harness.h):
 *   HAVE_FORWARD: static double forward(void);  one directional derivative
 *                 (__enzyme_fwddiff) along the tangents `tx` of PARAMS
 *   HAVE_HAND:    static void hand(void);       a hand-written adjoint into `dx`
 *   HAVE_ANALYTIC: static void analytic(void);  a closed-form gradient into `dx`
 *                 (checked against reverse, not timed)
 * A scalar objective describes its inputs with
 *   static int params(struct param *p);  fills up to MAX_PARAMS, returns how many
 * and the harness checks everything for it: reverse against central finite
 * differences (FD_H, FD_TOL), forward against reverse·tangent, hand and analytic
 * against reverse. A kernel with another shape (a Jacobian) defines CUSTOM_CHECK with
 *   static int check(void); static void dump(void);
 * zeroes its own outputs, and has `static void forward(void)`. harness.h (the `main`) is included last.
 *
 * `./kernel MODE N [REPS]`, MODE one of
 *   modes                 the timed modes this kernel has, on one line
 *   check                 the checks above; exit status 1 on a failure
 *   dump                  the reverse-mode derivative, one number per line (peers compare)
 *   none                  setup only (the baseline for instruction counts)
 *   primal|reverse|forward|hand   best of REPS timed runs after one warm-up;
 *                         prints `name mode n best_ms peak_rss_kb`
 * The process pins itself to core 0 when it can.
 */
#define _GNU_SOURCE
#include <enzyme/enzyme.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

enum { MAX_PARAMS = 8 };
/* One input array of a scalar objective: its values, its adjoint (written
 * by reverse and hand) and its tangent (read by forward). */
struct param {
  const char *name;
  double *x, *dx, *tx;
  int n;
};

static double primal(void);
/* Never inlined into `main`, so a profile can tell the derivative's code
 * (inlined into it) from the rest. */
static void reverse(void) __attribute__((noinline));

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* Relative-tolerance comparison; prints the failure. */
static int check_close(const char *what, double got, double want, double tol) {
  if (fabs(got - want) <= tol * (1 + fabs(want))) return 0;
  printf("FAIL %s: got %.12g, expected %.12g\n", what, got, want);
  return 1;
}

/* Central difference of `primal` in one input. */
static double fd_of(double *x, double h) {
  double keep = *x;
  *x = keep + h;
  double p = primal();
  *x = keep - h;
  double m = primal();
  *x = keep;
  return (p - m) / (2 * h);
}
