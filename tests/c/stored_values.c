/* Local arrays filled by one loop and read by later loops (GMM's
 * `xc = x - mean`): the reverse sweep may compute what a load reads again
 * from the stored value instead of taping it (ad/src/generate/reverse/stored_values.rs),
 * also where the read is in a loop inside the reading loop, and where the
 * reader counts from 1 (the writer's counter is the reader's less one).
 * Besides the case it is made for, the cases where it must not: a reader
 * that runs when the writer did not (it reads the last outer iteration's
 * values), a store on some iterations only, a recurrence in the writer,
 * two writers, a shifted index. Each gradient against central differences,
 * forward mode against reverse, at every optimisation level. */
#include "check.h"

enum { N = 6, K = 4 };

/* The pattern: xc filled from inputs, read by two later loops. */
static double centred(const double *x, const double *mu) {
  double xc[N], s = 0;
  for (int k = 0; k < K; k++) {
    for (int i = 0; i < N; i++) xc[i] = x[i] - mu[k * N + i] * (1.0 + 0.1 * k);
    double q = 0;
    for (int i = 0; i < N; i++) q += exp(0.2 * xc[i]) * xc[i];
    for (int j = 0; j < N; j++) q += xc[j] * xc[j] * (j + 1);
    s += log(1.0 + q * q);
  }
  return s;
}

/* GMM's triangle: xc[j] read in a loop inside the reading loop (forwarded:
 * its index is the reading loop's counter), xc[i] by a loop that starts at
 * j + 1 (counted differently: taped). */
static double triangle(const double *x, const double *mu) {
  double xc[N], s = 0;
  for (int k = 0; k < K; k++) {
    for (int i = 0; i < N; i++) xc[i] = x[i] * (1.0 + 0.2 * k) - mu[k * N + i];
    double q = 0;
    for (int j = 0; j < N; j++)
      for (int i = j + 1; i < N; i++) q += xc[i] * xc[j] * mu[k * N + i];
    s += q * q;
  }
  return s;
}

/* The reader counts from 1 (a[j - 1]): the same elements, a counter offset. */
static double from_one(const double *x, const double *mu) {
  double a[N], s = 0;
  for (int k = 0; k < K; k++) {
    for (int i = 0; i < N; i++) a[i] = x[i] * mu[k * N + i] + 0.1 * k;
    for (int j = 1; j <= N; j++) s += a[j - 1] * a[j - 1] * j;
  }
  return s;
}

/* The writer runs on even outer iterations only: on odd ones the reader
 * sees the last even iteration's values. */
static double skipped(const double *x, const double *mu) {
  double a[N], s = 0;
  for (int k = 0; k < K; k++) {
    if (k % 2 == 0)
      for (int i = 0; i < N; i++) a[i] = x[i] * mu[k * N + i];
    for (int i = 0; i < N; i++) s += sin(a[i]) * (k + 1);
  }
  return s;
}

/* Stores on some iterations only: on odd outer iterations the elements
 * past the third keep the last even iteration's values. */
static double partial(const double *x, const double *mu) {
  double a[N], s = 0;
  for (int k = 0; k < K; k++) {
    for (int i = 0; i < N; i++)
      if (k % 2 == 0 || i < 3) a[i] = x[i] * mu[k * N + i];
    for (int i = 0; i < N; i++) s += a[i] * a[i] * (k + 1);
  }
  return s;
}

/* A recurrence in the writing loop: the stored value is not recomputable. */
static double running(const double *x, const double *mu) {
  double a[N], s = 0;
  for (int k = 0; k < K; k++) {
    double c = 1.0;
    for (int i = 0; i < N; i++) {
      c = c * (0.5 + 0.1 * x[i]) + mu[k * N + i];
      a[i] = c;
    }
    for (int i = 0; i < N; i++) s += cos(a[i]) * a[i];
  }
  return s;
}

/* Two writers of the same array, and a shifted read. */
static double twice(const double *x, const double *mu) {
  double a[N + 1], s = 0;
  for (int k = 0; k < K; k++) {
    for (int i = 0; i < N; i++) a[i] = x[i] + mu[k * N + i];
    a[N] = x[0] * x[1];
    for (int i = 0; i < N; i++) s += a[i + 1] * a[i] * (k + 1);
  }
  return s;
}

/* A macro, so that each differentiated function is a constant at its call. */
#define CHECK_ONE(name, f)                                                                                   \
  do {                                                                                                       \
    double x[N], mu[K * N], dx[N] = {0}, dmu[K * N] = {0};                                                   \
    for (int i = 0; i < N; i++) x[i] = 0.3 + 0.17 * i - 0.05 * i * i;                                       \
    for (int i = 0; i < K * N; i++) mu[i] = 0.4 * sin(1.3 * i + 0.2);                                       \
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_dup, mu, dmu);                                    \
    const double h = 1e-6;                                                                                   \
    for (int i = 0; i < N + K * N; i++) {                                                                    \
      double *p = i < N ? &x[i] : &mu[i - N], g = i < N ? dx[i] : dmu[i - N], keep = *p;                     \
      *p = keep + h;                                                                                         \
      double fp = f(x, mu);                                                                                  \
      *p = keep - h;                                                                                         \
      double fm = f(x, mu);                                                                                  \
      *p = keep;                                                                                             \
      CHECK(name, g, (fp - fm) / (2 * h), TOL_FD);                                                           \
      double tx[N] = {0}, tmu[K * N] = {0};                                                                  \
      if (i < N)                                                                                             \
        tx[i] = 1;                                                                                           \
      else                                                                                                   \
        tmu[i - N] = 1;                                                                                      \
      CHECK(name, __enzyme_fwddiff((void *)f, enzyme_dup, x, tx, enzyme_dup, mu, tmu), g, TOL_MODES);        \
    }                                                                                                        \
  } while (0)

int main(void) {
  CHECK_ONE("local array read by later loops", centred);
  CHECK_ONE("a read inside the reading loop", triangle);
  CHECK_ONE("a reader counting from 1", from_one);
  CHECK_ONE("writer skipped on odd iterations", skipped);
  CHECK_ONE("stores on some iterations", partial);
  CHECK_ONE("recurrence in the writer", running);
  CHECK_ONE("two writers, shifted read", twice);
  return CHECK_DONE();
}
