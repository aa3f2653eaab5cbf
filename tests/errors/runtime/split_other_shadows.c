/* The reverse part of split mode takes other shadows than the forward part
 * was given only where the forward part used them for address arithmetic
 * alone. Here it stored one (a pointer's shadow into the shadow of the
 * struct holding it), so a reverse call passing others stops with a message
 * instead of computing with the wrong memory. */
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);
extern int enzyme_dup;
typedef struct {
  double *p;
} holder;
static double g(holder *h, double *x) {
  h->p = x;
  return h->p[0] * 3.0;
}
int main(void) {
  holder h, dh;
  double y[1] = {5}, dy1[1] = {0}, dy2[1] = {0};
  void *t = __enzyme_augmentfwd((void *)g, enzyme_dup, &h, &dh, enzyme_dup, y, dy1);
  __enzyme_reverse((void *)g, enzyme_dup, &h, &dh, enzyme_dup, y, dy2, 1.0, t);
  return 0;
}
