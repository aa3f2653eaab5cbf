// expect: `sq` is given two augmented forward functions, `sq_aug` and `sq_aug_other`
// expect: custom_two_augments.c:15
// expect: register the same augmented function
/* One augmented call serves both __enzyme_reverse and __enzyme_fwdsplit, so a
 * gradient and a split forward rule of one function share their augmented
 * function. */
double __enzyme_autodiff(void *, ...);

static double sq(double x) { return x * x; }
static double sq_aug(double x) { return x * x; }
static double sq_aug_other(double x) { return x * x; }
static double sq_rev(double x, double d) { return 2 * x * d; }
static double sq_split(double x, double dx) { return 2 * x * dx; }
void *__enzyme_register_gradient_sq[3] = {(void *)sq, (void *)sq_aug, (void *)sq_rev};
void *__enzyme_register_splitderivative_sq[3] = {
    (void *)sq,
    (void *)sq_aug_other, (void *)sq_split};

int main(void) { return (int)__enzyme_autodiff((void *)sq, 2.0); }
