/*
 * ptrmap.h — a hash map from pointers to integers (open addressing, linear
 * probing, grown by doubling): the labels :graph, :dot and :trace give to
 * Functions and tensors, found in constant time however big the graph.
 */
#ifndef AG_PTRMAP_H
#define AG_PTRMAP_H

#include <stdbool.h>

typedef struct {
    const void **keys;  /* NULL: an empty slot */
    int *values;
    int cap, count;
} PtrMap;

/* The value stored for key, or 0 when there is none. */
int ptrmap_get(const PtrMap *m, const void *key);
/* Stores value (not 0) for key; false when memory runs out. */
bool ptrmap_put(PtrMap *m, const void *key, int value);
void ptrmap_clear(PtrMap *m); /* frees it; an empty map needs no init */

#endif
