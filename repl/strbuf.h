/*
 * strbuf.h — a tiny growable, always NUL-terminated string buffer for the
 * shell's output (the tensor printer builds its text in one).
 *
 * It is: append-only text, growing by doubling. It is NOT: a general string
 * library (no insert, no search), nor thread-shared.
 *
 * Allocation failure never crashes: the buffer keeps what fits in the memory
 * it already has, truncating the text, and sets `oom`. Later appends keep
 * trying to grow, so the flag is sticky but the buffer stays usable.
 * `data` is never NULL: after strbuf_init it points at a valid empty string.
 */
#ifndef AG_STRBUF_H
#define AG_STRBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct StrBuf {
    char *data;  /* the text, NUL-terminated; never NULL */
    size_t len;  /* bytes of text, not counting the NUL */
    size_t cap;  /* bytes allocated; 0 while data is the shared empty string */
    bool oom;    /* an append was truncated for lack of memory */
} StrBuf;

#if defined(__GNUC__) || defined(__clang__)
#define STRBUF_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define STRBUF_PRINTF(f, a)
#endif

void strbuf_init(StrBuf *sb);
/* Appends the NUL-terminated s (NULL appends nothing). */
void strbuf_append(StrBuf *sb, const char *s);
/* Appends the first n bytes of s. */
void strbuf_appendn(StrBuf *sb, const char *s, size_t n);
/* Appends printf-style formatted text. */
void strbuf_appendf(StrBuf *sb, const char *fmt, ...) STRBUF_PRINTF(2, 3);
/* Appends the first n bytes of s for a message: printable ASCII as it is,
 * any other byte (control bytes, escape sequences, NUL, non-ASCII) as
 * \xNN, so that text from a file never drives the terminal. */
void strbuf_append_escaped(StrBuf *sb, const char *s, size_t n);
/* Appends the rest of the open file f; false when reading failed or
 * memory ran out. */
bool strbuf_append_file(StrBuf *sb, FILE *f);
/* Releases the memory and leaves sb as after strbuf_init. */
void strbuf_free(StrBuf *sb);

#endif /* AG_STRBUF_H */
