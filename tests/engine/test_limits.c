/*
 * test_limits.c — the ops at the edges of their shapes and of memory: the
 * allocation message, shapes whose dimensions multiply past int64 (run
 * under UBSan by make test), and tensors with no elements but huge
 * dimensions, which must cost nothing.
 */
#include "harness.h"

/* ======================================================================
 * The allocation message: its figures are the ones the check compares
 * ====================================================================== */

/* Reads "needs N bytes, M of the" from the last message. */
static bool read_alloc_figures(long long *need, long long *avail) {
    const char *p = strstr(ag_error(), "needs ");
    return p && sscanf(p, "needs %lld bytes, %lld of the", need, avail) == 2;
}

static void test_alloc_message(void) {
    int64_t limit = ag_memory_limit();
    /* A tensor's block is a header and its data rounded up to 64 bytes; an
     * empty tensor's block is the header alone. */
    int64_t before = ag_stats().live_bytes;
    Tensor *empty = tensor_zeros(SHAPE(0), false);
    int64_t header = ag_stats().live_bytes - before;
    tensor_release(empty);
    CHECK(header > 0 && header % 64 == 0, "header of %lld bytes", (long long)header);

    /* Room for exactly one tensor of 80 doubles (640 bytes) and its header. */
    AgStats s = ag_stats();
    int64_t free_bytes = header + 640;
    ag_set_memory_limit(s.live_bytes + s.arena_bytes + free_bytes);
    Tensor *over = tensor_zeros(SHAPE(81), false);
    long long need = 0, avail = 0;
    CHECK(over == NULL && read_alloc_figures(&need, &avail), "81 doubles refused: %s", ag_error());
    CHECK(need == header + 704 && avail == free_bytes && need > avail,
          "the figures are the check's: needs %lld, %lld free (header %lld)", need, avail,
          (long long)header);
    Tensor *fits = tensor_zeros(SHAPE(80), false);
    CHECK(fits != NULL, "a tensor needing exactly the free figure is made: %s", ag_error());
    tensor_release(fits);

    /* Live tensors past the limit (it was lowered under them): nothing is
     * free, not a negative amount. */
    ag_set_memory_limit(limit);
    Tensor *held = tensor_zeros(SHAPE(1000), false);
    ag_set_memory_limit(ag_stats().live_bytes / 2);
    Tensor *more = tensor_zeros(SHAPE(1), false);
    CHECK(more == NULL && read_alloc_figures(&need, &avail) && avail == 0 && need == header + 64,
          "over the limit: needs %lld, %lld free: %s", need, avail, ag_error());
    tensor_release(more);
    tensor_release(held);
    ag_set_memory_limit(limit);
    ag_clear_error();
}

void test_limits(void) {
    int64_t base = live_tensors();
    test_alloc_message();
    CHECK(live_tensors() == base, "limit tests leaked %lld tensors",
          (long long)(live_tensors() - base));
}
