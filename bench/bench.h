/*
 * Benchmark harness: each kernel file defines
 *   static const char *NAME;
 *   static void setup(int n);          sizes and fills its inputs
 *   static double primal(void);        one evaluation
 *   static void gradient(void);        one gradient (reverse mode), into its own arrays
 *   static int check(void);            gradient against finite differences: failures
 * and includes bench.h first and harness.h (the `main`) last. `./bench MODE N REPS` with MODE primal|gradient|check
 * prints one line: name mode n best_ms peak_rss_kb. The process is pinned to
 * one core when it can be; the best of REPS runs is kept.
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

static double primal(void);

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* Central difference of `primal` in one input, relative tolerance check. */
static int check_close(const char *what, double got, double want, double tol) {
  if (fabs(got - want) <= tol * (1 + fabs(want))) return 0;
  printf("FAIL %s: gradient %.12g, finite difference %.12g\n", what, got, want);
  return 1;
}

static double fd_of(double *x, double h) {
  double keep = *x;
  *x = keep + h;
  double p = primal();
  *x = keep - h;
  double m = primal();
  *x = keep;
  return (p - m) / (2 * h);
}

