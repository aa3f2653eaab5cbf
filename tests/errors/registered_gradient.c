// expect: `__enzyme_register_gradient_square` registers a custom reverse-mode derivative for `square`, which is not supported yet
// expect: registered_gradient.c:14
/* Enzyme's custom gradient registration: until the engine implements it, a
 * build error, never a derivative of the function's own body in its place. */
double __enzyme_autodiff(void *, ...);

static double square(double x) { return x * x; }
static double aug_square(double x) { return x * x; }
static void rev_square(double x, double d) {
  (void)x;
  (void)d;
}

void *__enzyme_register_gradient_square[3] = {(void *)square, (void *)aug_square,
                                              (void *)rev_square};

static double f(double x) { return square(x) * 3.0; }

int main(void) { return (int)__enzyme_autodiff((void *)f, 2.0); }
