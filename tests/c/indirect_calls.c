/* Calls through function pointers inside differentiated code: a callback in
 * a struct, a table of binary operations indexed in a loop, a function
 * pointer handed to a helper, and pointers to libm functions. The targets
 * are chosen at run time (a volatile), so no optimisation makes the calls
 * direct. Full Jacobians: reverse against finite differences, forward
 * against reverse. */
#include "jacobian.h"

static volatile int which = 1;

static double law_a(double v) { return sin(v) * v; }
static double law_b(double v) { return exp(0.5 * v) - v * v; }
static double (*const laws[2])(double) = {law_a, law_b};
struct model {
  double (*law)(double);
  double k;
};
static void callback(const double *x, double *y) {
  struct model m = {laws[which], 1.5};
  y[0] = 0;
  for (int i = 0; i < 5; i++) y[0] += m.law(x[i]) * m.k;
  m.law = laws[1 - which];
  y[1] = m.law(x[0] * x[1]) + m.law(x[4]);
}

static double add(double a, double b) { return a + b; }
static double mul(double a, double b) { return a * b; }
static double hyp(double a, double b) { return sqrt(a * a + b * b); }
static double (*ops[3])(double, double) = {add, mul, hyp};
static void table(const double *x, double *y) {
  double acc = x[0];
  for (int i = 1; i < 5; i++) acc = ops[(i + which) % 3](acc, x[i]);
  y[0] = acc;
  y[1] = ops[which](x[2], x[3]) * ops[2](x[0], x[4]);
}

__attribute__((noinline)) static double integrate(double (*g)(double), double a, double b, int n) {
  double h = (b - a) / n, s = 0;
  for (int i = 0; i < n; i++) s += g(a + (i + 0.5) * h) * h;
  return s;
}
static void handed_on(const double *x, double *y) {
  y[0] = integrate(laws[which], x[0], x[1], 8);
  y[1] = integrate(laws[1 - which], x[2], x[3] + 1, 6) * x[4];
}

static void libm_pointers(const double *x, double *y) {
  double (*f)(double) = which ? sin : cos;
  double (*g)(double) = which ? exp : log;
  y[0] = f(x[0] * x[1]) + g(x[2]);
  y[1] = f(x[3]) * g(x[4] * x[4]);
}

int main(void) {
  CHECK_JACOBIAN(callback, 5, 2, 0.3, -0.7, 1.1, 0.4, -0.2);
  CHECK_JACOBIAN(table, 5, 2, 0.3, -0.7, 1.1, 0.4, -0.2);
  CHECK_JACOBIAN(handed_on, 5, 2, 0.3, -0.7, 1.1, 0.4, -0.2);
  CHECK_JACOBIAN(libm_pointers, 5, 2, 0.3, -0.7, 1.1, 0.4, -0.2);
  return CHECK_DONE();
}
