/*
 * fuzz_shell.c — the libFuzzer harness: any bytes, run as a script through
 * the shell's whole path (scan, parse, evaluate, print, backward, shell
 * commands), with errors not stopping it. Files are off (:load, :dot FILE).
 * A finding is a crash, a sanitizer report, a hang past -timeout, or a
 * tensor still alive once the session and the graph are freed (a leak).
 *
 * Built by make fuzz (clang -fsanitize=fuzzer,address,undefined).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "run.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static FILE *sink;
    if (!sink) {
        sink = fopen("/dev/null", "w");
        ag_set_memory_limit(32 << 20); /* keeps each input quick */
    }
    ag_seed(0);
    Session s;
    session_init(&s, sink, sink, false);
    s.allow_files = false;
    s.quiet_notes = true;
    s.gradcheck_max_elements = 2000;
    s.loop_budget = 20000; /* while True { } ends, as Ctrl-C would end it */
    Source src = {.name = "<fuzz>", .text = (const char *)data, .text_len = size, .keep_going = true};
    run_source(&s, &src);
    session_free(&s);
    ag_graph_free();
    AgStats st = ag_stats();
    if (st.live_tensors != 0) {
        fprintf(stderr, "fuzz: %lld tensors leaked\n", (long long)st.live_tensors);
        abort();
    }
    return 0;
}
