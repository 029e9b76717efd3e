/*
 * scan.h — the scanner: turns source text into tokens, allocating nothing.
 * A token is a slice of the source plus its line and column; a lexical
 * error is a token too (TOK_ERROR, its message in the token).
 */
#ifndef AG_SCAN_H
#define AG_SCAN_H

#include <stddef.h>

enum { SCAN_TRACKED_BRACKETS = 256 };

typedef enum {
    TOK_NUMBER, TOK_NAME,
    TOK_PLUS, TOK_MINUS, TOK_STAR, TOK_SLASH, TOK_AT, TOK_STARSTAR,
    TOK_EQUAL, TOK_LPAREN, TOK_RPAREN, TOK_LBRACKET, TOK_RBRACKET,
    TOK_COMMA, TOK_DOT,
    TOK_END_STMT, /* newline or ';' outside brackets */
    TOK_EOF, TOK_ERROR,
} TokenType;

typedef struct {
    TokenType type;
    const char *start; /* into the source; for TOK_ERROR, the message */
    size_t length;
    int line, col;     /* 1-based; col counts bytes */
} Token;

typedef struct {
    const char *start, *current, *end;
    const char *line_start;
    int line;
    int depth;        /* open brackets: newlines inside them do not end a statement */
    /* where the innermost open brackets are, for "'(' at 1:5 is never closed" */
    int open_line[SCAN_TRACKED_BRACKETS], open_col[SCAN_TRACKED_BRACKETS];
} Scanner;

void scanner_init(Scanner *s, const char *src, size_t len, int first_line);
Token scan_token(Scanner *s);
/* The bracket depth after scanning text, starting from depth (a cheap
 * incompleteness test for long statements, a line at a time). */
int scan_depth(const char *text, size_t len, int depth);
/* "'+'", "end of input", "name 'x'": how a token is named in messages.
 * Writes into buf and returns it. */
const char *token_describe(const Token *t, char *buf, size_t size);

#endif
