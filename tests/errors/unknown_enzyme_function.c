// expect: `__enzyme_iter` is not supported
// expect: unknown_enzyme_function.c:8
/* A function of Enzyme's API the engine does not implement: an error where
 * it is called, not a link failure or an ignored call. */
double __enzyme_autodiff(void *, ...);
double __enzyme_iter(double, ...);
static double f(double x) {
  return __enzyme_iter(x) * x;
}
int main(void) { return (int)__enzyme_autodiff((void *)f, 2.0); }
