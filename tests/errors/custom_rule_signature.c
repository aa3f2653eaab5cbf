// expect: cannot use the custom derivative of `square`
// expect: reverse function `square_rev` of `square` takes (double), but must take (double, double)
// expect: custom_rule_signature.c:17
/* A custom gradient whose reverse function forgets the result's adjoint:
 * refused with the signature it must have, not called wrongly. */
double __enzyme_autodiff(void *, ...);

static double square(double x) { return x * x; }
static double square_aug(double x) { return x * x; }
static double square_rev(double x) { return 2 * x; }

void *__enzyme_register_gradient_square[3] = {(void *)square, (void *)square_aug,
                                              (void *)square_rev};

static double f(double x) {
  double s = 0;
  s += square(x) * 3.0;
  return s;
}

int main(void) { return (int)__enzyme_autodiff((void *)f, 2.0); }
