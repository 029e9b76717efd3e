/*
 * strbuf.c — the growable string buffer of strbuf.h.
 *
 * Growth doubles the capacity (so appending n bytes costs O(n) amortised);
 * when memory runs out the text is cut at what fits and `oom` is set, since a
 * shell that cannot print one value should say so, not crash.
 */
#include "strbuf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What data points at before the first allocation: one shared NUL, never
 * written (cap 0 means "nothing owned, no room"). */
static char empty_string[1];

void strbuf_init(StrBuf *sb) {
    sb->data = empty_string;
    sb->len = 0;
    sb->cap = 0;
    sb->oom = false;
}

bool strbuf_append_file(StrBuf *sb, FILE *f) {
    char chunk[8192];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) strbuf_appendn(sb, chunk, n);
    return !ferror(f) && !sb->oom;
}

void strbuf_free(StrBuf *sb) {
    if (sb->cap > 0) free(sb->data);
    strbuf_init(sb);
}

/* Makes room for `extra` more bytes plus the NUL. Returns false (and sets
 * oom) if it could not; the buffer is then unchanged. */
static bool reserve(StrBuf *sb, size_t extra) {
    if (sb->cap > 0 && extra < sb->cap - sb->len) return true;
    if (extra > SIZE_MAX / 2 - sb->len - 1) {
        sb->oom = true;
        return false;
    }
    size_t need = sb->len + extra + 1;
    size_t cap = sb->cap > 0 ? sb->cap : 64;
    while (cap < need) cap *= 2;
    char *grown = sb->cap > 0 ? realloc(sb->data, cap) : malloc(cap);
    if (!grown) {
        sb->oom = true;
        return false;
    }
    if (sb->cap == 0) grown[0] = '\0';
    sb->data = grown;
    sb->cap = cap;
    return true;
}

/* Bytes that can still be appended without growing (the NUL needs one). */
static size_t room(const StrBuf *sb) {
    return sb->cap > 0 ? sb->cap - sb->len - 1 : 0;
}

void strbuf_appendn(StrBuf *sb, const char *s, size_t n) {
    if (!reserve(sb, n) && n > room(sb)) n = room(sb);
    if (n == 0) return;
    memcpy(sb->data + sb->len, s, n);
    sb->len += n;
    sb->data[sb->len] = '\0';
}

void strbuf_append(StrBuf *sb, const char *s) {
    if (s) strbuf_appendn(sb, s, strlen(s));
}

void strbuf_appendf(StrBuf *sb, const char *fmt, ...) {
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    /* First pass measures; the second writes into the room we have, which
     * vsnprintf truncates by itself if growing failed. */
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n > 0) {
        reserve(sb, (size_t)n);
        size_t fit = room(sb);
        if (fit > 0) {
            vsnprintf(sb->data + sb->len, fit + 1, fmt, again);
            sb->len += (size_t)n < fit ? (size_t)n : fit;
        }
    }
    va_end(again);
}

void strbuf_append_escaped(StrBuf *sb, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 32 && c < 127) strbuf_appendn(sb, &s[i], 1);
        else strbuf_appendf(sb, "\\x%02X", c);
    }
}
