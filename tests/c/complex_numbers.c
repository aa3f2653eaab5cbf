/* C99 complex arithmetic built with -fcx-limited-range semantics (the
 * pragma below): products and quotients become plain arithmetic on the
 * real and imaginary parts. A Mandelbrot-style iteration, a complex
 * quotient, and the modulus, against finite differences. */
#include <complex.h>
#include "check.h"
#pragma STDC CX_LIMITED_RANGE ON

static double iterate(double x) {
  double complex c = x + 0.3 * I, z = 0;
  for (int i = 0; i < 6; i++) z = z * z + c;
  return creal(z) + 2 * cimag(z);
}

static double quotient(double x) {
  double complex a = x + 2 * x * I, b = 1 + x * x * I;
  double complex q = a / b;
  return creal(q) * cimag(q);
}

static double modulus(double x) {
  double complex z = (x + I) * (2 - x * I);
  return sqrt(creal(z) * creal(z) + cimag(z) * cimag(z));
}

#define CHECK_FD(f, x)                                                      \
  do {                                                                      \
    double r_ = __enzyme_autodiff((void *)f, (x));                          \
    CHECK(#f " reverse vs finite difference", r_, central_diff(f, (x)), TOL_FD); \
    CHECK(#f " forward vs reverse", __enzyme_fwddiff((void *)f, (x), 1.0), r_, TOL_MODES); \
  } while (0)

int main(void) {
  for (double x = -0.9; x < 1.0; x += 0.3) {
    CHECK_FD(iterate, x);
    CHECK_FD(quotient, x);
    CHECK_FD(modulus, x);
  }
  return CHECK_DONE();
}
