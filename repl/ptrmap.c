/*
 * ptrmap.c — pointer -> int hash map (ptrmap.h).
 */
#include "ptrmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static size_t slot_of(const PtrMap *m, const void *key) {
    uint64_t h = (uint64_t)(uintptr_t)key * 0x9e3779b97f4a7c15ULL; /* Fibonacci hashing */
    size_t mask = (size_t)m->cap - 1, i = (size_t)(h >> 32) & mask;
    while (m->keys[i] && m->keys[i] != key) i = (i + 1) & mask;
    return i;
}

int ptrmap_get(const PtrMap *m, const void *key) {
    if (!m->cap) return 0;
    size_t i = slot_of(m, key);
    return m->keys[i] ? m->values[i] : 0;
}

static bool grow(PtrMap *m) {
    PtrMap bigger = {.cap = m->cap ? m->cap * 2 : 64};
    bigger.keys = calloc((size_t)bigger.cap, sizeof *bigger.keys);
    bigger.values = malloc((size_t)bigger.cap * sizeof *bigger.values);
    if (!bigger.keys || !bigger.values) {
        free(bigger.keys);
        free(bigger.values);
        return false;
    }
    for (int i = 0; i < m->cap; i++)
        if (m->keys[i]) {
            size_t j = slot_of(&bigger, m->keys[i]);
            bigger.keys[j] = m->keys[i];
            bigger.values[j] = m->values[i];
        }
    bigger.count = m->count;
    free(m->keys);
    free(m->values);
    *m = bigger;
    return true;
}

bool ptrmap_put(PtrMap *m, const void *key, int value) {
    if ((m->count + 1) * 2 > m->cap && !grow(m)) return false;
    size_t i = slot_of(m, key);
    if (!m->keys[i]) m->count++;
    m->keys[i] = key;
    m->values[i] = value;
    return true;
}

void ptrmap_clear(PtrMap *m) {
    free(m->keys);
    free(m->values);
    memset(m, 0, sizeof *m);
}
