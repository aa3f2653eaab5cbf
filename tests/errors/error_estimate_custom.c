// expect: `f` calls `g`, which has a custom derivative: not supported by `__enzyme_error_estimate`
// expect: error_estimate_custom.c:14
/* A custom forward rule gives a tangent, not an error estimate: using it
 * would mix the two silently. */
double __enzyme_error_estimate(void *, ...);
__attribute__((noinline)) double g(double x) { return x * x; }
__attribute__((noinline)) double g_fwd(double x, double dx) { return 2 * x * dx; }
void *__enzyme_register_derivative_g[] = {(void *)g, (void *)g_fwd};
__attribute__((noinline)) double f(double x) { return g(x) + 1; }

int main(void) {
  double e;
  e =
      __enzyme_error_estimate((void *)f, 3.0, 0.0);
  return e > 0;
}
