// expect: cannot differentiate complex multiplication or division (`__muldc3`
// expect: complex_multiply.c:9
// expect: compile with -fcx-limited-range
#include <complex.h>
double __enzyme_autodiff(void *, ...);

double square_modulus(double x) {
  double complex z = x + 2.0 * I * x;
  z = z * z;
  return creal(z) * cimag(z);
}

int main(void) { return (int)__enzyme_autodiff((void *)square_modulus, 0.5); }
