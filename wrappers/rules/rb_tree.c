// Bodies for libstdc++'s red-black tree primitives (`std::map`, `std::set`
// and their multi forms call them; their bodies live in libstdc++.so, out of
// the engine's sight). Given a body, the engine differentiates them as any
// pointer code: each link written in a primal node is written in its shadow
// too, so the shadow tree keeps the primal's shape through inserts, erases
// and rebalancing. The driver links them only into programs that declare
// them, as internal functions, so the program's own calls use them as well.
//
// The layout and conventions are libstdc++'s (`bits/stl_tree.h`): a node is
// {color, parent, left, right} with red = 0; the tree's header node has the
// root as its parent, the leftmost node as its left and the rightmost as its
// right, and the root's parent is the header. An empty tree's header points
// to itself on both sides.

#include <stdbool.h>
#include <stddef.h>

enum { RED = 0, BLACK = 1 };

typedef struct node {
    int color;
    struct node *parent, *left, *right;
} node;

#define BODY(name) __asm__(name) __attribute__((used))

static bool is_header(const node *x) {
    // Only the header is red with itself as its grandparent (the root's
    // parent is the header, and the header's parent is the root).
    return x->color == RED && x->parent != NULL && x->parent->parent == x;
}

static node *next(node *x) {
    if (x->right != NULL) {
        x = x->right;
        while (x->left != NULL)
            x = x->left;
        return x;
    }
    node *up = x->parent;
    while (x == up->right) {
        x = up;
        up = up->parent;
    }
    // Climbing from the rightmost node of a one-node tree ends on the root
    // with `up` the header: the header is the end.
    return x->right != up ? up : x;
}

static node *previous(node *x) {
    if (is_header(x))
        return x->right;
    if (x->left != NULL) {
        x = x->left;
        while (x->right != NULL)
            x = x->right;
        return x;
    }
    node *up = x->parent;
    while (x == up->left) {
        x = up;
        up = up->parent;
    }
    return up;
}

node *increment(node *x) BODY("_ZSt18_Rb_tree_incrementPSt18_Rb_tree_node_base");
node *increment(node *x) { return next(x); }
const node *increment_const(const node *x) BODY("_ZSt18_Rb_tree_incrementPKSt18_Rb_tree_node_base");
const node *increment_const(const node *x) { return next((node *)x); }
node *decrement(node *x) BODY("_ZSt18_Rb_tree_decrementPSt18_Rb_tree_node_base");
node *decrement(node *x) { return previous(x); }
const node *decrement_const(const node *x) BODY("_ZSt18_Rb_tree_decrementPKSt18_Rb_tree_node_base");
const node *decrement_const(const node *x) { return previous((node *)x); }

// The child of `x` on side `d` (0: left, 1: right): the balancing cases
// come in mirrored pairs, written once over `d`.
static node **child(node *x, int d) { return d ? &x->right : &x->left; }

// Rotates `x` down to side `d`: its child on the other side takes its place
// and `x` becomes that child's child on side `d` (d = 0: a left rotation).
static void rotate(node *x, int d, node **root) {
    node *y = *child(x, !d);
    *child(x, !d) = *child(y, d);
    if (*child(y, d) != NULL)
        (*child(y, d))->parent = x;
    y->parent = x->parent;
    if (x == *root)
        *root = y;
    else if (x == x->parent->left)
        x->parent->left = y;
    else
        x->parent->right = y;
    *child(y, d) = x;
    x->parent = y;
}

static bool black(const node *x) { return x == NULL || x->color == BLACK; }

void insert_and_rebalance(bool insert_left, node *x, node *p, node *header)
    BODY("_ZSt29_Rb_tree_insert_and_rebalancebPSt18_Rb_tree_node_baseS0_RS_");
void insert_and_rebalance(bool insert_left, node *x, node *p, node *header) {
    node **root = &header->parent;
    x->parent = p;
    x->left = NULL;
    x->right = NULL;
    x->color = RED;
    if (insert_left) {
        p->left = x; // the leftmost too when `p` is the header
        if (p == header) {
            header->parent = x;
            header->right = x;
        } else if (p == header->left) {
            header->left = x;
        }
    } else {
        p->right = x;
        if (p == header->right)
            header->right = x;
    }
    // A red node under a red parent: recolour while the uncle is red, else
    // one or two rotations end it.
    while (x != *root && x->parent->color == RED) {
        node *grand = x->parent->parent;
        int d = x->parent == grand->left ? 0 : 1; // the parent's side
        node *uncle = *child(grand, !d);
        if (!black(uncle)) {
            x->parent->color = BLACK;
            uncle->color = BLACK;
            grand->color = RED;
            x = grand;
        } else {
            if (x == *child(x->parent, !d)) {
                x = x->parent;
                rotate(x, d, root);
            }
            x->parent->color = BLACK;
            grand->color = RED;
            rotate(grand, !d, root);
        }
    }
    (*root)->color = BLACK;
}

static node *lowest(node *x) {
    while (x->left != NULL)
        x = x->left;
    return x;
}

static node *highest(node *x) {
    while (x->right != NULL)
        x = x->right;
    return x;
}

// Unlinks `z` from the tree and restores the red-black properties; returns
// `z` for the caller to destroy. Nodes are relinked, never copied: element
// addresses stay valid.
node *rebalance_for_erase(node *z, node *header) BODY("_ZSt28_Rb_tree_rebalance_for_erasePSt18_Rb_tree_node_baseRS_");
node *rebalance_for_erase(node *z, node *header) {
    node **root = &header->parent;
    node *y = z; // the node whose position is vacated (z's successor when z has two children)
    node *x;     // the child that moves up into it (may be null)
    node *x_parent;
    if (z->left == NULL)
        x = z->right;
    else if (z->right == NULL)
        x = z->left;
    else {
        y = lowest(z->right); // z's successor, which has no left child
        x = y->right;
    }
    if (y != z) {
        // Two children: the successor takes z's place, links and colour.
        z->left->parent = y;
        y->left = z->left;
        if (y != z->right) {
            x_parent = y->parent;
            if (x != NULL)
                x->parent = y->parent;
            y->parent->left = x;
            y->right = z->right;
            z->right->parent = y;
        } else {
            x_parent = y;
        }
        if (*root == z)
            *root = y;
        else if (z->parent->left == z)
            z->parent->left = y;
        else
            z->parent->right = y;
        y->parent = z->parent;
        int c = y->color;
        y->color = z->color;
        z->color = c; // the colour of the position vacated
    } else {
        // At most one child: it replaces z.
        x_parent = y->parent;
        if (x != NULL)
            x->parent = y->parent;
        if (*root == z)
            *root = x;
        else if (z->parent->left == z)
            z->parent->left = x;
        else
            z->parent->right = x;
        if (header->left == z)
            header->left = z->right == NULL ? z->parent : lowest(x);
        if (header->right == z)
            header->right = z->left == NULL ? z->parent : highest(x);
    }
    if (z->color != RED) {
        // A black node left: `x` carries an extra black to push up or absorb.
        while (x != *root && black(x)) {
            int d = x == x_parent->left ? 0 : 1; // x's side
            node *w = *child(x_parent, !d);        // its sibling
            if (w->color == RED) {
                w->color = BLACK;
                x_parent->color = RED;
                rotate(x_parent, d, root);
                w = *child(x_parent, !d);
            }
            if (black(w->left) && black(w->right)) {
                w->color = RED;
                x = x_parent;
                x_parent = x_parent->parent;
            } else {
                if (black(*child(w, !d))) {
                    (*child(w, d))->color = BLACK;
                    w->color = RED;
                    rotate(w, !d, root);
                    w = *child(x_parent, !d);
                }
                w->color = x_parent->color;
                x_parent->color = BLACK;
                if (*child(w, !d) != NULL)
                    (*child(w, !d))->color = BLACK;
                rotate(x_parent, d, root);
                break;
            }
        }
        if (x != NULL)
            x->color = BLACK;
    }
    // Always `z` itself: the optimiser marks the parameter `returned`, so
    // callers (and the engine) see that the node freed is the one passed.
    return z;
}
