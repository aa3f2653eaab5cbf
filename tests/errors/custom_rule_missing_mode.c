// expect: `cube` has a custom forward-mode derivative but none for reverse mode; register one with `__enzyme_register_gradient_cube`
// expect: custom_rule_missing_mode.c:11
/* A forward rule only, differentiated in reverse mode. */
double __enzyme_autodiff(void *, ...);

static double cube(double x) { return x * x * x; }
static double cube_fwd(double x, double dx) { return 3 * x * x * dx; }
void *__enzyme_register_derivative_cube[2] = {(void *)cube, (void *)cube_fwd};

static double f(double x) {
  return cube(x) + 1.0;
}

int main(void) { return (int)__enzyme_autodiff((void *)f, 2.0); }
