// expect: `f` calls `g`, which has a custom derivative: not supported in vector mode yet
// expect: vector_custom_rule.c:15
/* A custom forward rule takes one tangent. */
extern int enzyme_width;
typedef struct { double a, b; } two;
two __enzyme_fwddiff(void *, ...);
__attribute__((noinline)) double g(double x) { return x * x; }
__attribute__((noinline)) double g_fwd(double x, double dx) { return 2 * x * dx; }
void *__enzyme_register_derivative_g[] = {(void *)g, (void *)g_fwd};
__attribute__((noinline)) double f(double x) { return g(x) + x; }

int main(void) {
  // (a line of its own, so the location below is the call's)
  two t =
      __enzyme_fwddiff(
      (void *)f, enzyme_width, 2, 3.0, 1.0, 2.0);
  return t.a > 0;
}
