/* Calls that hand the differentiated code only integers and reach outside
 * plain code (atomics, thread-locals, the system): they run as they are,
 * once per call in both modes (counted), never recomputed in the reverse
 * sweep. And a pointer chosen between heap memory and a read-only table
 * without floats (Rust's HashMap keeps its empty table so). */
#include "check.h"
#include <stdatomic.h>
#include <unistd.h>

static atomic_long tickets;
static _Thread_local long per_thread;

/* A call counter through an atomic and a thread-local, and the process id
 * from the system: nothing here has a derivative. */
__attribute__((noinline)) static long next_ticket(long salt) {
  per_thread += 1;
  long pid = (long)getpid();
  return atomic_fetch_add(&tickets, 1) + (pid > 0 ? 0 : salt);
}

/* A library function of integers only: runs as it is. */
__attribute__((noinline)) static int scaled(int k) { return k + (int)(sysconf(_SC_PAGESIZE) > 0); }

/* The ticket picks the branch; the gradient must follow the one the primal took. */
static double f(double *x, int n) {
  long t = next_ticket(7);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += (t % 2 == 0) ? x[i] * x[i] : sin(x[i]);
  return s * scaled(1);
}

/* Rust's HashMap: no table yet is a shared read-only group of control bytes. */
static const long EMPTY_GROUP[2] = {-1, -1};

__attribute__((noinline)) static double g(double *x, int n) {
  double *buf = n > 1 ? (double *)malloc(sizeof(double) * n) : (double *)EMPTY_GROUP;
  double s = x[0];
  if (n > 1) {
    for (int i = 0; i < n; i++)
      buf[i] = x[i] * x[i];
    for (int i = 0; i < n; i++)
      s += buf[i] * x[i];
  }
  if (buf != (double *)EMPTY_GROUP)
    free(buf);
  return s;
}

int main(void) {
  double x[3] = {0.3, -1.1, 2.0};
  int n = 3;
  for (int round = 0; round < 4; round++) {
    long before = atomic_load(&tickets), parity = before % 2;
    double d[3] = {0};
    __enzyme_autodiff((void *)f, enzyme_dup, x, d, enzyme_const, n);
    CHECK("reverse mode takes one ticket", (double)(atomic_load(&tickets) - before), 1.0, TOL_EXACT);
    for (int i = 0; i < n; i++) {
      double want = 2 * (parity == 0 ? 2 * x[i] : cos(x[i]));
      CHECK("reverse vs analytic", d[i], want, TOL_EXACT);
      /* Forward mode takes the next ticket: the other parity. */
      double dx[3] = {0};
      dx[i] = 1.0;
      before = atomic_load(&tickets);
      double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, dx, enzyme_const, n);
      CHECK("forward mode takes one ticket", (double)(atomic_load(&tickets) - before), 1.0, TOL_EXACT);
      double wantf = 2 * (before % 2 == 0 ? 2 * x[i] : cos(x[i]));
      CHECK("forward vs analytic", t, wantf, TOL_EXACT);
      /* The primal's own branch, by finite differences at the same parity. */
      double h = 1e-6, xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]};
      xp[i] += h;
      xm[i] -= h;
      long b2 = atomic_load(&tickets);
      double fp = f(xp, n);
      atomic_store(&tickets, b2); /* the same ticket for both */
      double fm = f(xm, n);
      double wantfd = 2 * (b2 % 2 == 0 ? 2 * x[i] : cos(x[i]));
      CHECK("finite difference vs analytic", (fp - fm) / (2 * h), wantfd, TOL_FD);
    }
  }
  /* Four rounds of one reverse, three forward and six primal calls. */
  CHECK("thread-local counter ran once per call", (double)per_thread, 40.0, TOL_EXACT);
  for (int m = 1; m <= 3; m++) {
    double d[3] = {0};
    __enzyme_autodiff((void *)g, enzyme_dup, x, d, enzyme_const, m);
    for (int i = 0; i < m; i++) {
      double want = m > 1 ? 3 * x[i] * x[i] + (i == 0) : 1.0;
      CHECK("reverse vs analytic (shared empty table)", d[i], want, TOL_EXACT);
      double dx[3] = {0};
      dx[i] = 1.0;
      double t = __enzyme_fwddiff((void *)g, enzyme_dup, x, dx, enzyme_const, m);
      CHECK("forward vs reverse (shared empty table)", t, d[i], TOL_MODES);
      double h = 1e-6, xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]};
      xp[i] += h;
      xm[i] -= h;
      CHECK("finite difference vs analytic (shared empty table)", (g(xp, m) - g(xm, m)) / (2 * h), want, TOL_FD);
    }
  }
  return CHECK_DONE();
}
