/* Differentiates through a function of a shared library with no rule: the
 * build must fail and say where the body is. */
double __enzyme_autodiff(void *, ...);
double mystery_kernel(double);
static double f(double x) { return mystery_kernel(x) * x; }
int main(void) { return __enzyme_autodiff((void *)f, 0.7) > 0; }
