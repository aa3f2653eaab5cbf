// expect: `sq` has a custom reverse-mode derivative but none for split forward mode; register one with `__enzyme_register_splitderivative_sq`
// expect: custom_split_missing.c:27
// expect: `half` has a custom split forward-mode derivative but none for reverse mode; register one with `__enzyme_register_gradient_half`
// expect: custom_split_missing.c:31
/* A custom gradient only, used by split forward mode; a split forward rule
 * only, used by reverse mode. */
void *__enzyme_augmentfwd(void *, ...);
double __enzyme_fwdsplit(void *, ...);
double __enzyme_autodiff(void *, ...);

static double sq(double x) { return x * x; }
static double sq_aug(double x) { return x * x; }
static double sq_rev(double x, double d) { return 2 * x * d; }
void *__enzyme_register_gradient_sq[3] = {(void *)sq, (void *)sq_aug, (void *)sq_rev};

static double half(double x) { return x / 2; }
static double half_aug(double x) { return x / 2; }
static double half_split(double x, double dx) {
  (void)x;
  return dx / 2;
}
void *__enzyme_register_splitderivative_half[3] = {(void *)half, (void *)half_aug, (void *)half_split};

__attribute__((noinline)) static double f(double x) {
  double y = x + 1;
  return
      sq(y);
}
__attribute__((noinline)) static double g(double x) {
  double y = x + 1;
  return half(y) * y;
}

int main(void) {
  void *tape = __enzyme_augmentfwd((void *)f, 2.0);
  double d = __enzyme_fwdsplit((void *)f, 2.0, 1.0, tape);
  return (int)(d + __enzyme_autodiff((void *)g, 2.0));
}
