/* The fix the error message suggests, as it suggests it: a gradient rule for
 * the shared library's function. d/dx [k(x) x] with k = sin(x) x. */
#include <math.h>
#include <stdio.h>
double __enzyme_autodiff(void *, ...);
double mystery_kernel(double);
double mystery_kernel_aug(double x) { return mystery_kernel(x); }
double mystery_kernel_rev(double x, double d_result) { return d_result * (cos(x) * x + sin(x)); }
void *__enzyme_register_gradient_mystery_kernel[3] = {(void *)mystery_kernel, (void *)mystery_kernel_aug,
                                                      (void *)mystery_kernel_rev};
static double f(double x) { return mystery_kernel(x) * x; }
int main(void) {
  double x = 0.7, g = __enzyme_autodiff((void *)f, x), want = 2 * x * sin(x) + x * x * cos(x);
  printf("d/dx = %.15g, closed form %.15g\n", g, want);
  return fabs(g - want) > 1e-12;
}
