/*
 * builtins_data.c — data files: load_csv(FILE) and save_csv(x, FILE).
 *
 * A CSV file here is numbers separated by commas (or, on a line without a
 * comma, by blanks), one row a line; blank lines are skipped, and a first
 * line with no number in it is a header. save_csv writes what load_csv
 * reads back exactly: each number in Python's shortest round-trip form.
 * It is not a general CSV reader: no quotes, no strings, no missing fields.
 */
#define _XOPEN_SOURCE 700 /* realpath: save_csv writes beside a link's target */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtins.h"
#include "files.h"

/* The growing array of values read so far, and the table's shape. */
typedef struct {
    double *values;
    int64_t count, cap;
    int64_t rows, cols;
} Table;

static bool table_push(Table *t, double v) {
    if (t->count == t->cap) {
        int64_t cap = t->cap ? t->cap * 2 : 1024;
        /* bounded by the memory limit, as a tensor of that size would be */
        if (ag_memory_limit() > 0 && cap * (int64_t)sizeof(double) > ag_memory_limit()) {
            if (t->count * (int64_t)sizeof(double) >= ag_memory_limit()) return false;
            cap = ag_memory_limit() / (int64_t)sizeof(double);
        }
        double *bigger = realloc(t->values, (size_t)cap * sizeof *bigger);
        if (!bigger) return false;
        t->values = bigger;
        t->cap = cap;
    }
    t->values[t->count++] = v;
    return true;
}

/* One field as a number: all of it, after blanks are trimmed, of any
 * length (Python's float() reads 0.000...0001 with a thousand digits).
 * False when it is not one. */
static bool field_number(const char *start, const char *end, double *out) {
    while (start < end && (*start == ' ' || *start == '\t')) start++;
    while (end > start && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r')) end--;
    if (start == end) return false;
    size_t n = (size_t)(end - start);
    char small[64], *buf = n < sizeof small ? small : malloc(n + 1);
    if (!buf) return false;
    memcpy(buf, start, n);
    buf[n] = '\0';
    bool ok = !(buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X')); /* no hex floats */
    char *stop = buf;
    if (ok) *out = strtod(buf, &stop);
    ok = ok && stop != buf && *stop == '\0';
    if (buf != small) free(buf);
    return ok;
}

enum { CSV_MAX_LINE = 16 << 20 }; /* bytes in one line, as in a script */

typedef struct {
    const char *path;
    int line;
    char error[400];
} Reader;

/* "'TEXT'" of a field for a message: its first 40 bytes, control bytes and
 * other non-printable ones escaped (a file's bytes never reach the
 * terminal raw). */
static void quote_field(char *buf, size_t size, const char *p, const char *stop) {
    StrBuf sb;
    strbuf_init(&sb);
    size_t n = (size_t)(stop - p);
    strbuf_append_escaped(&sb, p, n > 40 ? 40 : n);
    snprintf(buf, size, "'%s'%s", sb.data, n > 40 ? " (cut)" : "");
    strbuf_free(&sb);
}

/* The fields of one line, parsed into t. The first line of the file with
 * fields (first) is a header, reported with *header and leaving t as it
 * was, when none of its fields is a number: a row with a number in it is
 * data, and a bad field in it an error. False with r->error set. */
static bool read_row(Reader *r, const char *line, const char *end, Table *t, bool first,
                     bool *header) {
    bool commas = memchr(line, ',', (size_t)(end - line)) != NULL;
    int64_t before = t->count, fields = 0, numbers = 0;
    const char *bad = NULL, *bad_stop = NULL; /* the first field that is not a number */
    *header = false;
    for (const char *p = line; p <= end;) {
        if (!commas) { /* blanks separate: skip them, take the next run */
            while (p < end && (*p == ' ' || *p == '\t' || *p == '\r')) p++;
            if (p == end) break;
        }
        const char *stop = p;
        while (stop < end && (commas ? *stop != ',' : (*stop != ' ' && *stop != '\t'))) stop++;
        const char *nul = memchr(p, '\0', (size_t)(stop - p));
        if (nul) {
            snprintf(r->error, sizeof r->error, "%s: line %d, column %d: a NUL byte in a field "
                     "(not a text file?)", r->path, r->line, (int)(nul - line) + 1);
            t->count = before;
            return false;
        }
        double v;
        if (!field_number(p, stop, &v)) {
            if (!bad) bad = p, bad_stop = stop;
            if (!first) break;
        } else {
            numbers++;
            if (!table_push(t, v)) {
                snprintf(r->error, sizeof r->error, "%s: line %d: the file does not fit in the "
                         "memory limit", r->path, r->line);
                return false;
            }
        }
        fields++;
        p = stop + 1;
    }
    if (bad && first && numbers == 0) { /* a first line of words: a header */
        t->count = before;
        *header = true;
        return true;
    }
    if (bad) {
        char quoted[200];
        quote_field(quoted, sizeof quoted, bad, bad_stop);
        snprintf(r->error, sizeof r->error, "%s: line %d, column %d: %s is not a number",
                 r->path, r->line, (int)(bad - line) + 1, quoted);
        t->count = before;
        return false;
    }
    if (fields == 0) return true; /* a blank line */
    if (t->cols == 0) t->cols = fields;
    if (fields != t->cols) {
        snprintf(r->error, sizeof r->error, "%s: line %d has %lld field%s, the rows before it "
                 "have %lld", r->path, r->line, (long long)fields, fields == 1 ? "" : "s",
                 (long long)t->cols);
        return false;
    }
    t->rows++;
    return true;
}

/* Reads one line of f (without its '\n') into *line, NUL bytes kept; a
 * line is bounded (load_csv("/dev/zero") ends here, not in memory). 1: a
 * line, 0: the end, -1: too long or out of memory (r->error set). */
static int read_line(Reader *r, FILE *f, StrBuf *line) {
    line->len = 0;
    char chunk[4096];
    size_t n = 0;
    int c;
    bool any = false;
    while ((c = getc(f)) != EOF) {
        any = true;
        if (c == '\n') break;
        if (line->len + n >= CSV_MAX_LINE) {
            snprintf(r->error, sizeof r->error, "%s: line %d is longer than 16 MiB (not a CSV "
                     "file?)", r->path, r->line + 1);
            return -1;
        }
        chunk[n++] = (char)c;
        if (n == sizeof chunk) strbuf_appendn(line, chunk, n), n = 0;
    }
    strbuf_appendn(line, chunk, n);
    if (line->oom) {
        snprintf(r->error, sizeof r->error, "%s: line %d: out of memory", r->path, r->line + 1);
        return -1;
    }
    return any;
}

/* Reads the whole file into t. False with r->error set. */
static bool read_table(Reader *r, FILE *f, Table *t) {
    StrBuf line;
    strbuf_init(&line);
    bool ok = true, first = true; /* first: no line of fields read yet */
    int got;
    while (ok && (got = read_line(r, f, &line)) > 0) {
        r->line++;
        bool header;
        int64_t rows_before = t->rows;
        ok = read_row(r, line.data, line.data + line.len, t, first, &header);
        if (header || t->rows > rows_before) first = false;
    }
    if (ok && got < 0) ok = false;
    if (ok && ferror(f)) {
        snprintf(r->error, sizeof r->error, "%s: cannot read it: %s", r->path, strerror(errno));
        ok = false;
    }
    strbuf_free(&line);
    if (ok && t->rows == 0) {
        snprintf(r->error, sizeof r->error, "%s: no rows of numbers in it", r->path);
        ok = false;
    }
    return ok;
}

/* A file name argument as a C string (into buf). */
bool arg_path(Session *s, CallArgs *a, int i, char *buf, size_t size) {
    const char *text;
    size_t len;
    if (!arg_string(s, a, i, &text, &len)) return false;
    if (len == 0 || len >= size || memchr(text, '\0', len))
        return arg_error(s, a, i, "not a usable file name");
    memcpy(buf, text, len);
    buf[len] = '\0';
    if (!s->allow_files) return arg_error(s, a, i, "files are off here");
    return true;
}

/* load_csv(file) */
static BUILTIN(bi_load_csv) {
    char path[4096];
    if (!arg_path(s, a, 0, path, sizeof path)) return false;
    FILE *f = files_open_read(path); /* a FIFO waits for its writer, until Ctrl-C */
    if (!f && errno == EINTR)
        return session_fail(s, a->line, a->col, "interrupted while waiting for a writer to '%s'", path);
    if (!f) return arg_error(s, a, 0, "cannot open '%s': %s", path, strerror(errno));
    StrBuf shown; /* the path for messages, escaped as the fields are */
    strbuf_init(&shown);
    strbuf_append_escaped(&shown, path, strlen(path));
    Reader r = {.path = shown.data};
    Table t = {0};
    bool ok = read_table(&r, f, &t);
    fclose(f);
    strbuf_free(&shown);
    if (!ok) {
        free(t.values);
        return session_fail(s, a->line, a->col, "load_csv: %s", r.error);
    }
    Tensor *x = tensor_create(2, (int64_t[]){t.rows, t.cols}, t.values, false);
    free(t.values);
    return result_tensor(s, a, x, out);
}

/* One value as load_csv reads it back: Python's shortest round-trip form. */
static void write_number(FILE *f, double v) {
    StrBuf sb;
    strbuf_init(&sb);
    format_number(&sb, v);
    fputs(sb.data, f);
    strbuf_free(&sb);
}

/* Writes x's rows to f; false when a write failed (errno says why). */
static bool write_rows(FILE *f, const Tensor *x) {
    int64_t rows = x->shape[0], cols = x->ndim == 2 ? x->shape[1] : 1;
    for (int64_t i = 0; i < rows && !ferror(f); i++) {
        for (int64_t j = 0; j < cols; j++) {
            if (j) fputc(',', f);
            write_number(f, tensor_values(x)[i * cols + j]);
        }
        fputc('\n', f);
    }
    return fflush(f) == 0 && !ferror(f);
}

/* Writes x to path so that a failure (a full disk, a file-size limit, a
 * signal) never leaves a truncated file: into a temporary file beside it,
 * synced, then renamed over it; the temporary is removed on failure, and
 * the old file stays as it was. Something that is not a regular file (a
 * FIFO, /dev/stdout) is written in place. NULL, or why not (errno's). */
static const char *save_rows(const char *path, const Tensor *x) {
    char target[4096];
    struct stat st;
    if (realpath(path, target) == NULL) { /* a new file (or a dangling link) */
        if (strlen(path) >= sizeof target) return strerror(ENAMETOOLONG);
        strcpy(target, path);
    }
    bool exists = stat(target, &st) == 0;
    if (exists && !S_ISREG(st.st_mode)) {
        FILE *f = files_open_write(target); /* a FIFO waits for its reader, until Ctrl-C */
        if (!f) return errno == EINTR ? "interrupted while waiting for a reader" : strerror(errno);
        bool written = write_rows(f, x);
        int saved = errno;
        if (fclose(f) != 0 && written) return strerror(errno);
        return written ? NULL : strerror(saved);
    }
    char tmp[4096 + 16];
    snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", target);
    int fd = mkstemp(tmp);
    if (fd < 0) return strerror(errno);
    mode_t mask = umask(0);
    umask(mask);
    /* the mode the old file had, or a new file's (mkstemp's is 0600) */
    FILE *f = fchmod(fd, exists ? st.st_mode & 07777 : 0666 & ~mask) == 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        int saved = errno;
        close(fd);
        unlink(tmp);
        return strerror(saved);
    }
    bool ok = write_rows(f, x) && fsync(fileno(f)) == 0;
    int saved = errno;
    if (fclose(f) != 0 && ok) ok = false, saved = errno;
    if (ok && rename(tmp, target) != 0) ok = false, saved = errno;
    if (!ok) unlink(tmp);
    return ok ? NULL : strerror(saved);
}

/* save_csv(x, file): a 2-D tensor row by row; a 1-D one as a column. */
static BUILTIN(bi_save_csv) {
    (void)out;
    Tensor *x;
    char path[4096];
    if (!arg_tensor(s, a, 0, &x) || !arg_path(s, a, 1, path, sizeof path)) return false;
    if (x->ndim < 1 || x->ndim > 2) {
        char shape[AG_SHAPE_STR_MAX];
        return arg_error(s, a, 0, "save_csv writes a 1-D or 2-D tensor, not shape %s",
                         tensor_shape_str(x, shape, sizeof shape));
    }
    const char *why = save_rows(path, x);
    if (why) return arg_error(s, a, 1, "cannot write '%s': %s", path, why);
    return true;
}

/* ======================================================================
 * Text files for Python's open() (pyio.c's TextIOWrapper calls these)
 * ====================================================================== */

/* The error open() raises for path, as CPython words it (errno's class). */
static bool os_error(Session *s, const CallArgs *a, const char *path) {
    int e = errno;
    const char *kind = e == ENOENT ? "FileNotFoundError" : e == EISDIR ? "IsADirectoryError"
                       : e == EACCES || e == EPERM ? "PermissionError"
                       : e == ENOTDIR ? "NotADirectoryError" : e == EEXIST ? "FileExistsError"
                       : "OSError";
    return session_fail(s, a->line, a->col, "%s: [Errno %d] %s: '%s'", kind, e, strerror(e), path);
}

/* __ag_read_file__(file): the whole text of a file. */
static BUILTIN(bi_read_file) {
    char path[4096];
    if (!arg_path(s, a, 0, path, sizeof path)) return false;
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) return errno = EISDIR, os_error(s, a, path);
    FILE *f = fopen(path, "rb");
    if (!f) return os_error(s, a, path);
    StrBuf text;
    strbuf_init(&text);
    bool bad = !strbuf_append_file(&text, f);
    fclose(f);
    bool ok = !bad && value_string(text.len ? text.data : "", text.len, out);
    strbuf_free(&text);
    return ok || session_fail(s, a->line, a->col, bad ? "OSError: reading '%s' failed" :
                              "MemoryError", path);
}

/* __ag_write_file__(file, text, append): writes text, after what the file
 * holds (append) or in its place. */
static BUILTIN(bi_write_file) {
    char path[4096];
    const char *text;
    size_t len;
    bool append;
    if (!arg_path(s, a, 0, path, sizeof path) || !arg_string(s, a, 1, &text, &len) ||
        !arg_bool(s, a, 2, &append))
        return false;
    FILE *f = fopen(path, append ? "ab" : "wb");
    if (!f) return os_error(s, a, path);
    bool ok = fwrite(text, 1, len, f) == len;
    ok = fclose(f) == 0 && ok;
    *out = value_none();
    return ok || session_fail(s, a->line, a->col, "OSError: writing '%s' failed", path);
}

/* __ag_os__(op, path=None): os's and os.path's calls into the file system
 * (pyio.c): 'exists', 'isfile', 'isdir' (bools), 'getsize', 'listdir' (the
 * names in readdir's order, as CPython's), 'mkdir', 'remove', 'rmdir',
 * 'getcwd', 'getenv' (NAME in path), 'environ' (a dict of the environment),
 * 'cpu_count'. */
static bool os_query(Session *s, CallArgs *a, const char *op, const char *path, Value *out) {
    struct stat st;
    bool found = stat(path, &st) == 0;
    if (strcmp(op, "exists") == 0) return *out = value_bool(found), true;
    if (strcmp(op, "isfile") == 0) return *out = value_bool(found && S_ISREG(st.st_mode)), true;
    if (strcmp(op, "isdir") == 0) return *out = value_bool(found && S_ISDIR(st.st_mode)), true;
    if (!found) return os_error(s, a, path);
    *out = value_integer((int64_t)st.st_size);
    return true;
}

static bool os_listdir(Session *s, CallArgs *a, const char *path, Value *out) {
    DIR *d = opendir(path);
    if (!d) return os_error(s, a, path);
    ValueList *l = value_list_new(0, false);
    bool ok = l != NULL;
    for (struct dirent *e; ok && (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        Value name;
        ok = value_string(e->d_name, strlen(e->d_name), &name) && value_list_append(l, name);
    }
    closedir(d);
    if (l) *out = (Value){.kind = VAL_LIST, .as.list = l};
    if (!ok && l) value_release(out);
    return ok || session_fail(s, a->line, a->col, "MemoryError");
}

static bool os_environ(Session *s, CallArgs *a, Value *out) {
    extern char **environ;
    ValueDict *d = value_dict_new(false);
    bool ok = d != NULL;
    for (char **e = environ; ok && *e; e++) {
        const char *eq = strchr(*e, '=');
        Value k, v;
        if (!eq) continue;
        ok = value_string(*e, (size_t)(eq - *e), &k);
        if (ok && !value_string(eq + 1, strlen(eq + 1), &v)) value_release(&k), ok = false;
        ok = ok && value_dict_set(d, k, v);
    }
    if (d) *out = (Value){.kind = VAL_DICT, .as.dict = d};
    if (!ok && d) value_release(out);
    return ok || session_fail(s, a->line, a->col, "MemoryError");
}

static BUILTIN(bi_os) {
    const char *op, *text;
    size_t op_len, len;
    char path[4096], cwd[4096];
    if (!arg_string(s, a, 0, &op, &op_len)) return false;
    char name[16];
    snprintf(name, sizeof name, "%.*s", (int)(op_len < 15 ? op_len : 15), op);
    if (strcmp(name, "environ") == 0) return os_environ(s, a, out);
    if (strcmp(name, "cpu_count") == 0) return *out = value_integer(sysconf(_SC_NPROCESSORS_ONLN)), true;
    if (strcmp(name, "getcwd") == 0)
        return getcwd(cwd, sizeof cwd) ? value_string(cwd, strlen(cwd), out) ||
                                             session_fail(s, a->line, a->col, "MemoryError")
                                       : os_error(s, a, ".");
    if (strcmp(name, "getenv") == 0) {
        if (!arg_string(s, a, 1, &text, &len)) return false;
        snprintf(path, sizeof path, "%.*s", (int)(len < sizeof path ? len : sizeof path - 1), text);
        const char *v = getenv(path);
        *out = value_none();
        return !v || value_string(v, strlen(v), out) || session_fail(s, a->line, a->col, "MemoryError");
    }
    if (!arg_path(s, a, 1, path, sizeof path)) return false;
    if (strcmp(name, "listdir") == 0) return os_listdir(s, a, path, out);
    *out = value_none();
    if (strcmp(name, "mkdir") == 0) return mkdir(path, 0777) == 0 || os_error(s, a, path);
    if (strcmp(name, "remove") == 0) return unlink(path) == 0 || os_error(s, a, path);
    if (strcmp(name, "rmdir") == 0) return rmdir(path) == 0 || os_error(s, a, path);
    return os_query(s, a, name, path, out);
}

/* ======================================================================
 * The rows of this file's builtins (builtins.c puts every file's in one
 * list, in :help's order)
 * ====================================================================== */

const Builtin data_builtins[] = {
    {"load_csv", "load_csv(file)", "a 2-D tensor of the numbers in a CSV file (a first line "
     "of names is skipped)", "numbers separated by commas, or by blanks on a line without a "
     "comma; a bad field is an error naming its line and column", bi_load_csv, 0, VAL_VOID, NULL},
    {"save_csv", "save_csv(input, file)", "writes a 1-D (as a column) or 2-D tensor so that "
     "load_csv reads it back exactly", NULL, bi_save_csv, BI_VOID | BI_METHOD, VAL_VOID, NULL},
    {"__ag_read_file__", "__ag_read_file__(file)", "open()'s reading: the whole text of a file",
     NULL, bi_read_file, 0, VAL_VOID, NULL},
    {"__ag_write_file__", "__ag_write_file__(file, text, append)", "open()'s writing: text into "
     "a file, after what it holds or in its place", NULL, bi_write_file, 0, VAL_VOID, NULL},
    {"__ag_os__", "__ag_os__(op, path=None)", "os's and os.path's file system calls: exists, "
     "isfile, isdir, getsize, listdir, mkdir, remove, rmdir, getcwd, getenv, environ, cpu_count",
     NULL, bi_os, 0, VAL_VOID, NULL},
};
const int num_data_builtins = sizeof data_builtins / sizeof data_builtins[0];
