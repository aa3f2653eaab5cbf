/* -g: derivative code keeps the lines of the code it comes from, in both
 * modes (run-driver-tests.sh reads them back from the line table). */
#include <math.h>
#include <stdio.h>
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
static double f(double x) {
  double y = sin(x);
  double z = y * x;
  return z / (1 + x * x);
}
int main(void) {
  double x = 0.7, d = __enzyme_autodiff((void *)f, x), t = __enzyme_fwddiff((void *)f, x, 1.0);
  double want = ((cos(x) * x + sin(x)) * (1 + x * x) - sin(x) * x * 2 * x) / ((1 + x * x) * (1 + x * x));
  printf("reverse %.15g forward %.15g closed form %.15g\n", d, t, want);
  return fabs(d - want) > 1e-12 || fabs(t - want) > 1e-12;
}
