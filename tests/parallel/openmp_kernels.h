/* The OpenMP kernels of openmp_forward.c and openmp_reverse.c: parallel
 * loops with static, dynamic and guided schedules, collapse, a stencil, an
 * inner loop with a call, a region with several loops and barriers,
 * `single`, `master`, explicit barriers, work split by thread number, a
 * shared local scalar read by every iteration, reductions, `critical` and
 * `atomic`. */
#include <math.h>
#include <omp.h>

enum { N = 203, M = 7 };

/* parallel for, static schedule; a shared scalar read by every thread. */
static void scale_sin(const double *x, double *y, const double *a) {
#pragma omp parallel for
  for (int i = 0; i < N; i++) y[i] = a[0] * sin(x[i]) * x[i];
}

/* Dynamic schedule, a stencil reading neighbours. */
static void stencil(const double *x, double *y) {
#pragma omp parallel for schedule(dynamic, 3)
  for (int i = 1; i < N - 1; i++) y[i] = x[i - 1] * x[i + 1] + exp(0.1 * x[i]);
}

/* Guided schedule with an inner loop and a call inside. */
static double soft(double v) { return v / (1 + fabs(v)); }
static void dense(const double *x, double *y) {
#pragma omp parallel for schedule(guided)
  for (int i = 0; i < N; i++) {
    double s = 0;
    for (int j = 0; j < M; j++) s += cos(0.01 * (i + j)) * soft(x[(i + j) % N]);
    y[i] = s;
  }
}

/* collapse(2), a private temporary. */
static void outer(const double *x, double *z) {
  double t;
#pragma omp parallel for collapse(2) private(t)
  for (int i = 0; i < M; i++)
    for (int j = 0; j < M; j++) {
      t = x[i] * x[j + M];
      z[i * M + j] = t + sqrt(1 + t * t);
    }
}

/* A region with two loops (the first's results read by other threads
 * after the barrier between them), `single`, `master` and `critical`. */
static void phases(const double *x, double *t, double *y, double *shared) {
#pragma omp parallel
  {
#pragma omp single
    shared[0] = x[0] * x[1];
#pragma omp for
    for (int i = 0; i < N; i++) t[i] = x[i] * x[i] * shared[0];
#pragma omp for
    for (int i = 0; i < N; i++) y[i] = t[(i + 1) % N] - t[(i + N - 1) % N];
#pragma omp master
    shared[1] = y[0] * 2;
#pragma omp barrier
#pragma omp single
    shared[2] = shared[1] * x[2];
  }
}

/* Reductions: a sum (both modes), and a max and a product (forward mode;
 * reverse mode refuses them). */
static void sums(const double *x, double *out) {
  double s = 0, q = 0;
#pragma omp parallel for reduction(+ : s, q) schedule(dynamic, 5)
  for (int i = 0; i < N; i++) {
    s += x[i] * x[i];
    q += sin(x[i]) * x[(i + 1) % N];
  }
  out[0] = s, out[1] = q;
}

static void extremes(const double *x, double *out) {
  double m = -1e300, p = 1;
#pragma omp parallel for reduction(max : m) reduction(* : p)
  for (int i = 0; i < N; i++) {
    m = fmax(m, sin(3 * x[i] + 0.001 * i)); /* no ties: one winner */
    p *= 1 + 0.01 * x[i];
  }
  out[0] = m, out[1] = p;
}

/* A `critical` section (forward mode; refused in reverse mode, whose
 * sections would have to run in the reverse of the threads' order). */
static void critical_sum(const double *x, double *out) {
  double s = 0;
#pragma omp parallel for
  for (int i = 0; i < N; i++) {
    double v = x[i] * x[i];
#pragma omp critical
    s += v;
  }
  out[0] = s;
}

/* Work split by hand with the thread number. */
static void by_thread(const double *x, double *y) {
#pragma omp parallel
  {
    int t = omp_get_thread_num(), nt = omp_get_num_threads();
    for (int i = t; i < N; i += nt) y[i] = tanh(x[i]) + x[i] * x[(i + 3) % N];
  }
}

/* A local scalar of the forking function, shared (by address) and read by
 * every iteration: in reverse mode each thread sums its adjoint privately. */
static void shared_scalar(const double *x, double *y) {
  double c = x[0] * x[1] + 1;
#pragma omp parallel for
  for (int i = 0; i < N; i++) y[i] = c * sin(x[i]) + c * c;
}

/* `atomic` updates of a shared sum. */
static void atomic_sum(const double *x, double *out) {
  double s = 0, t = 1;
#pragma omp parallel for
  for (int i = 0; i < N; i++) {
    double v = x[i] * sin(x[i]);
#pragma omp atomic
    s += v;
#pragma omp atomic
    t -= 0.5 * v * x[(i + 1) % N];
  }
  out[0] = s * t, out[1] = s;
}

/* A constant array (passed `enzyme_const`) read in the region: the slot
 * through which the region gets its address has no shadow. */
static double COEFFS[N];
static void coeff_weighted(const double *x, double *y, const double *c) {
#pragma omp parallel for
  for (int i = 0; i < N; i++) y[i] = c[i] * x[i] * x[(i + 2) % N];
}
