// expect: `f` calls `g`, which has a custom derivative given memory: not supported in vector mode yet
// expect: vector_custom_rule.c:17
/* A custom forward rule that writes memory: called once per lane it could
 * apply its effect more than once. */
extern int enzyme_width;
typedef struct { double a, b; } two;
two __enzyme_fwddiff(void *, ...);
__attribute__((noinline)) void g(const double *x, double *y) { *y += *x * *x; }
__attribute__((noinline)) void g_fwd(const double *x, const double *dx, double *y, double *dy) {
  *y += *x * *x, *dy += 2 * *x * *dx;
}
void *__enzyme_register_derivative_g[] = {(void *)g, (void *)g_fwd};
__attribute__((noinline)) double f(double x) { double y = 1; g(&x, &y); return y; }

int main(void) {
  two t =
      __enzyme_fwddiff((void *)f, enzyme_width, 2, 3.0, 1.0, 2.0);
  return t.a > 0;
}
