// expect: unknown Enzyme registration global `__enzyme_checkpointed`
// expect: unknown_registration.c:8
/* A registration global in Enzyme's spelling that the engine does not know. */
double __enzyme_autodiff(void *, ...);

static double f(double x) { return x * x; }

void *__enzyme_checkpointed[1] = {(void *)f};
int main(void) { return (int)__enzyme_autodiff((void *)f, 2.0); }
