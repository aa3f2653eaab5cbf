/* Recursive functions that write memory: each call's forward part runs once
 * (writing primal and shadow memory), keeps what its reverse needs, and its
 * reverse runs when the caller's reverse reaches the call. Divide-and-conquer
 * fills, an in-place merge sort with heap buffers, an in-place recursive
 * scan, a float result written through a pointer too, recursion called in a
 * loop, and mutual recursion. */
#include <stdlib.h>
#include <string.h>
#include "jacobian.h"

#define N 7

/* out[i] = x[i]^2 sin(x[i]), split in halves. */
static void fill(double *out, const double *x, int lo, int hi) {
  if (hi - lo == 1) {
    out[lo] = x[lo] * x[lo] * sin(x[lo]);
    return;
  }
  int mid = (lo + hi) / 2;
  fill(out, x, lo, mid);
  fill(out, x, mid, hi);
}

static void fills(const double *x, double *y) {
  double buf[N];
  fill(buf, x, 0, N);
  for (int i = 0; i < N; i++) y[i] = buf[i] * (1 + 0.1 * i);
}

/* Merge sort in place, a heap buffer per merge: the sorted order decides
 * where each adjoint goes. */
static void merge_sort(double *a, int n) {
  if (n < 2) return;
  int h = n / 2;
  merge_sort(a, h);
  merge_sort(a + h, n - h);
  double *t = malloc(n * sizeof *t);
  int i = 0, j = h, k = 0;
  while (i < h && j < n) t[k++] = a[i] <= a[j] ? a[i++] : a[j++];
  while (i < h) t[k++] = a[i++];
  while (j < n) t[k++] = a[j++];
  memcpy(a, t, n * sizeof *t);
  free(t);
}

static void sorted_weights(const double *x, double *y) {
  double a[N];
  for (int i = 0; i < N; i++) a[i] = x[i] * x[i] - x[i];
  merge_sort(a, N);
  double s = 0;
  for (int i = 0; i < N; i++) s += a[i] * (i + 1);
  y[0] = s;
  y[1] = a[0] * a[N - 1];
}

/* In-place recursive smoothing scan: left half, then the right half sees
 * the updated left edge. */
static void scan(double *a, int n) {
  if (n == 1) {
    a[0] = a[0] + 0.5 * sin(a[0]);
    return;
  }
  int h = n / 2;
  scan(a, h);
  a[h] += 0.3 * a[h - 1] * a[h - 1];
  scan(a + h, n - h);
}

static void scans(const double *x, double *y) {
  double a[N];
  for (int i = 0; i < N; i++) a[i] = x[i];
  scan(a, N);
  for (int i = 0; i < N; i++) y[i] = a[i];
}

/* A float result and a write through a pointer, with the recursion's
 * result used after the write. */
static double tree(double *acc, const double *x, int lo, int hi) {
  if (hi - lo == 1) {
    *acc += x[lo] * x[lo];
    return cos(x[lo]);
  }
  int mid = (lo + hi) / 2;
  double l = tree(acc, x, lo, mid);
  double r = tree(acc, x, mid, hi);
  *acc *= 0.9;
  return l * r + *acc;
}

static void trees(const double *x, double *y) {
  double acc = 0.5;
  y[0] = tree(&acc, x, 0, N);
  y[1] = acc;
}

/* Recursion called in a loop: each iteration's call keeps its own frame. */
static void pow_into(double *out, double v, int k) {
  if (k == 0) {
    *out = 1;
    return;
  }
  pow_into(out, v, k - 1);
  *out = *out * v + 0.1 * k;
}

static void looped(const double *x, double *y) {
  double s = 0;
  for (int i = 0; i < N; i++) {
    double p;
    pow_into(&p, x[i], i % 4 + 1);
    s += p * x[(i + 1) % N];
  }
  y[0] = s;
}

/* Mutual recursion writing a shared buffer. */
static void odd_step(double *a, int n);
static void even_step(double *a, int n) {
  if (n == 0) return;
  a[n - 1] = a[n - 1] * a[n % N] + 0.1;
  odd_step(a, n - 1);
}
static void odd_step(double *a, int n) {
  if (n == 0) return;
  a[n - 1] = sin(a[n - 1]) + a[(n + 1) % N];
  even_step(a, n - 1);
}

static void mutual(const double *x, double *y) {
  double a[N];
  for (int i = 0; i < N; i++) a[i] = x[i];
  even_step(a, N);
  for (int i = 0; i < N; i++) y[i] = a[i];
}

int main(void) {
  CHECK_JACOBIAN(fills, N, N, 0.3, -0.7, 1.1, 0.5, -0.2, 0.9, 1.4);
  CHECK_JACOBIAN(sorted_weights, N, 2, 0.3, -0.7, 1.1, 0.5, -0.2, 0.9, 1.4);
  CHECK_JACOBIAN(scans, N, N, 0.3, -0.7, 1.1, 0.5, -0.2, 0.9, 1.4);
  CHECK_JACOBIAN(trees, N, 2, 0.3, -0.7, 1.1, 0.5, -0.2, 0.9, 1.4);
  CHECK_JACOBIAN(looped, N, 1, 0.3, -0.7, 1.1, 0.5, -0.2, 0.9, 1.4);
  CHECK_JACOBIAN(mutual, N, N, 0.3, -0.7, 1.1, 0.5, -0.2, 0.9, 1.4);
  return CHECK_DONE();
}
