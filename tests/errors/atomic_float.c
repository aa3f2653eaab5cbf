// expect: cannot differentiate
// expect: in `f`
/* An atomic load of a float inside differentiated code: refused (clang
 * loads it as an integer and reinterprets the bits; atomic integer
 * accesses, flags and counters, are differentiated as plain ones). */
#include <stdatomic.h>
double __enzyme_autodiff(void *, ...);
static _Atomic double scale;
static double f(double x) { return atomic_load(&scale) * x * x; }
int main(int argc, char **argv) {
  (void)argv;
  atomic_store(&scale, argc + 1.0);
  return __enzyme_autodiff((void *)f, 1.5) > 0;
}
