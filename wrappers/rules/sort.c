/*
 * Derivative of the C library's `qsort`, written as Enzyme custom rules
 * (conventions: the top of blas.c). Sorting moves elements: the comparisons
 * carry no derivative, the permutation does. The rules sort an array of
 * element indices with the program's comparison, then move the elements and
 * their shadows by that permutation, so every shadow (tangent, adjoint, or a
 * pointer's shadow inside a struct) goes where its element goes. The reverse
 * rule moves the adjoints back. Elements the comparison finds equal may end
 * in either order, as with qsort itself; the shadow always follows its own
 * element.
 */
#include <stdlib.h>
#include <string.h>

#define REGISTER static __attribute__((used))

typedef int (*compare_fn)(const void *, const void *);

/* A stable merge sort of the indices `idx[0..n)` by the elements they name. */
static void sort_indices(size_t *idx, size_t *scratch, size_t n, const char *base, size_t size, compare_fn cmp) {
  if (n < 2)
    return;
  size_t half = n / 2;
  sort_indices(idx, scratch, half, base, size, cmp);
  sort_indices(idx + half, scratch, n - half, base, size, cmp);
  size_t a = 0, b = half, k = 0;
  while (a < half && b < n) {
    if (cmp(base + idx[b] * size, base + idx[a] * size) < 0)
      scratch[k++] = idx[b++];
    else
      scratch[k++] = idx[a++];
  }
  while (a < half)
    scratch[k++] = idx[a++];
  while (b < n)
    scratch[k++] = idx[b++];
  memcpy(idx, scratch, n * sizeof(size_t));
}

/* The order qsort would put the elements in: element `perm[k]` goes to `k`. */
static size_t *sorting_permutation(const void *base, size_t n, size_t size, compare_fn cmp) {
  size_t *perm = malloc((n ? n : 1) * sizeof(size_t));
  size_t *scratch = malloc((n ? n : 1) * sizeof(size_t));
  for (size_t k = 0; k < n; k++)
    perm[k] = k;
  sort_indices(perm, scratch, n, base, size, cmp);
  free(scratch);
  return perm;
}

/* new[k] = old[perm[k]]; with `inverse`, old[perm[k]] = new[k]. */
static void permute(void *data, const size_t *perm, size_t n, size_t size, int inverse) {
  if (!data || n < 2 || size == 0)
    return;
  char *tmp = malloc(n * size), *p = data;
  for (size_t k = 0; k < n; k++) {
    if (inverse)
      memcpy(tmp + perm[k] * size, p + k * size, size);
    else
      memcpy(tmp + k * size, p + perm[k] * size, size);
  }
  memcpy(data, tmp, n * size);
  free(tmp);
}

static void qsort_fwd(void *base, void *dbase, size_t n, size_t size, compare_fn cmp, compare_fn dcmp) {
  (void)dcmp;
  size_t *perm = sorting_permutation(base, n, size, cmp);
  permute(base, perm, n, size, 0);
  permute(dbase, perm, n, size, 0);
  free(perm);
}
static void *qsort_aug(void *base, void *dbase, size_t n, size_t size, compare_fn cmp, compare_fn dcmp) {
  (void)dcmp;
  size_t *perm = sorting_permutation(base, n, size, cmp);
  permute(base, perm, n, size, 0);
  permute(dbase, perm, n, size, 0);
  return perm;
}
/* Every element was read once and every slot written once: the adjoints
 * (and pointer shadows) go back to the slots their elements came from. */
static void qsort_rev(void *base, void *dbase, size_t n, size_t size, compare_fn cmp, compare_fn dcmp, void *tape) {
  (void)base, (void)cmp, (void)dcmp;
  permute(dbase, tape, n, size, 1);
  free(tape);
}
REGISTER void *__enzyme_register_derivative_qsort[2] = {(void *)qsort, (void *)qsort_fwd};
REGISTER void *__enzyme_register_gradient_qsort[3] = {(void *)qsort, (void *)qsort_aug, (void *)qsort_rev};
