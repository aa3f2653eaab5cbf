// Inline assembly on floats has no derivative: refused by name, with the
// assembly's text, not as an indirect call.
// expect: inline assembly `sqrtsd
// expect: on floating-point values
// expect: inline_asm.c:11
#include <enzyme/enzyme.h>
#include <stdio.h>

static double root(double x) {
  double r;
  __asm__("sqrtsd %1, %0" : "=x"(r) : "x"(x));
  return r * x;
}

int main(void) {
  printf("%f\n", __enzyme_autodiff((void *)root, 2.0));
  return 0;
}
