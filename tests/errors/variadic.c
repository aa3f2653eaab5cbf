// expect: cannot differentiate `sum`: it takes a variable number of arguments
#include <stdarg.h>
double __enzyme_autodiff(void *, ...);

double sum(double x, ...) {
  va_list ap;
  va_start(ap, x);
  double y = va_arg(ap, double);
  va_end(ap);
  return x * y;
}

int main(void) { return (int)__enzyme_autodiff((void *)sum, 2.0, 3.0); }
