// expect: augmented forward function `clamp_aug` of `clamp` does not return `clamp`'s result, and `clamp` may write memory
// expect: custom_augment_result.c:24
/* The engine would have to call `clamp` again for its result, and its writes
 * would happen twice. */
double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

__attribute__((noinline)) static int clamp(double *v, int n) {
  int c = 0;
  for (int i = 0; i < n; i++)
    if (v[i] > 1) v[i] = 1, c++;
  return c;
}
static void *clamp_aug(double *v, double *dv, int n) {
  (void)dv;
  clamp(v, n);
  return 0;
}
static void clamp_rev(double *v, double *dv, int n, void *tape) { (void)v, (void)dv, (void)n, (void)tape; }
void *__enzyme_register_gradient_clamp[3] = {(void *)clamp, (void *)clamp_aug, (void *)clamp_rev};

static double f(double *v, int n) {
  int c =
      clamp(v, n);
  return v[0] * c;
}

int main(void) {
  double v[2] = {2, 0.5}, dv[2] = {0};
  __enzyme_autodiff((void *)f, enzyme_dup, v, dv, enzyme_const, 2);
  return 0;
}
