/* Integer atomics inside differentiated code (a flag set once, a lazily
 * computed integer, as Rust's HashMap keys and C libraries use): plain
 * integer accesses to the engine. Full Jacobians: reverse against finite
 * differences, forward against reverse. */
#include "jacobian.h"

static int ready;
static long calls;

static int steps(void) {
  if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) __atomic_store_n(&ready, 3, __ATOMIC_RELEASE);
  return __atomic_load_n(&ready, __ATOMIC_RELAXED);
}

static void f(const double *x, double *y) {
  __atomic_store_n(&calls, __atomic_load_n(&calls, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
  double s = 0;
  for (int k = 0; k < steps(); k++) s += sin(x[k] * (k + 1)) * x[(k + 1) % 3];
  y[0] = s;
  y[1] = x[0] * x[1] * x[2] * steps();
}

int main(void) {
  CHECK_JACOBIAN(f, 3, 2, 0.3, -0.7, 1.1);
  return CHECK_DONE();
}
