// expect: cannot differentiate indirect call of code outside the program, with floating-point arguments or result in `f`
// expect: the target is in a shared library
/* A call through a pointer that no function of the program can be (it comes
 * from dlsym): its target has no derivative here. */
#define _GNU_SOURCE
#include <dlfcn.h>
double __enzyme_autodiff(void *, ...);
static double (*g)(double);
static double f(double x) { return g(x) * x; }
int main(void) {
  g = (double (*)(double))dlsym(RTLD_DEFAULT, "cos");
  return __enzyme_autodiff((void *)f, 1.5) > 0;
}
