/* The single-pass text rewrites of the per-document hot loop, compiled: each reads a text once and returns it
 * unchanged (the same object) when it has nothing to change.
 *
 * The references, and the fallbacks where no compiler was at hand at install, are the `python_*` functions of
 * transforms/text/passes.py; tests/transforms/text/test_passes.py checks each pair agrees on every code point and on real
 * and random texts. "Whitespace" is what `str.split()` and `str.strip()` split and strip, Py_UNICODE_ISSPACE.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "../_char_classes.h"

/* `passes._HSPACE`: the horizontal spaces a run of which becomes one " ". */
static inline int is_hspace(Py_UCS4 ch) {
    if (ch < 0x80)
        return ch == ' ' || ch == '\t';
    return ch == 0xA0 || (ch >= 0x2000 && ch <= 0x200B) || ch == 0x3000 || ch == 0xFEFF;
}

static int check_str(PyObject *text, const char *name) {
    if (PyUnicode_Check(text))
        return 0;
    PyErr_Format(PyExc_TypeError, "%s() takes a str, not %.100s", name, Py_TYPE(text)->tp_name);
    return -1;
}

/* What a line's strip removes once its horizontal runs are " ": whitespace, and the zero-width spaces. */
static inline int is_strippable(Py_UCS4 ch) { return is_space(ch) || is_hspace(ch); }

/* A writer of code points of at most the text's own width; `done` makes the str (of the smallest width). */
typedef struct {
    int kind;
    void *data;
    Py_ssize_t length;
} Out;

static int out_init(Out *out, int kind, Py_ssize_t capacity) {
    out->kind = kind;
    out->length = 0;
    out->data = PyMem_Malloc((size_t)(capacity > 0 ? capacity : 1) * (size_t)kind);
    if (out->data == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static inline void out_put(Out *out, Py_UCS4 ch) { PyUnicode_WRITE(out->kind, out->data, out->length++, ch); }

static PyObject *out_done(Out *out) {
    PyObject *result = PyUnicode_FromKindAndData(out->kind, out->data, out->length);
    PyMem_Free(out->data);
    return result;
}

/* `" ".join(text.split())`: the words, one space between two. */
static PyObject *collapse_whitespace(PyObject *module, PyObject *text) {
    (void)module;
    if (check_str(text, "collapse_whitespace") < 0)
        return NULL;
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    const int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    /* Unchanged: no space at either end, and every space a single " " between two words. */
    Py_ssize_t i = 0;
    int after_space = 1;
    for (; i < n; i++) {
        const Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        if (!is_space(ch)) {
            after_space = 0;
            continue;
        }
        if (after_space || ch != ' ')
            break;
        after_space = 1;
    }
    if (i == n && (n == 0 || !after_space))
        return Py_NewRef(text);
    Out out;
    if (out_init(&out, kind, n) < 0)
        return NULL;
    int pending = 0; /* a space is owed before the next word */
    for (Py_ssize_t j = 0; j < n; j++) {
        const Py_UCS4 ch = PyUnicode_READ(kind, data, j);
        if (is_space(ch)) {
            pending = out.length > 0;
            continue;
        }
        if (pending) {
            out_put(&out, ' ');
            pending = 0;
        }
        out_put(&out, ch);
    }
    return out_done(&out);
}

/* `passes.python_collapse_spaces`: every run of horizontal spaces one " ", then every "\n"-separated line stripped of
 * whitespace at both ends. */
static PyObject *collapse_spaces(PyObject *module, PyObject *text) {
    (void)module;
    if (check_str(text, "collapse_spaces") < 0)
        return NULL;
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    const int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    /* Unchanged: no whitespace or zero-width space but "\n" and single " "s inside a line. */
    Py_ssize_t i = 0;
    for (; i < n; i++) {
        const Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        if (ch == '\n' || !is_strippable(ch))
            continue;
        if (ch != ' ' || i == 0 || i == n - 1)
            break;
        if (is_strippable(PyUnicode_READ(kind, data, i - 1)) || is_strippable(PyUnicode_READ(kind, data, i + 1)))
            break;
    }
    if (i == n)
        return Py_NewRef(text);
    Out out;
    if (out_init(&out, kind, n) < 0)
        return NULL;
    Py_ssize_t line_start = 0;
    for (Py_ssize_t j = 0; j <= n; j++) {
        if (j < n && PyUnicode_READ(kind, data, j) != '\n')
            continue;
        /* The line [line_start, j): its whitespace ends dropped, its inner horizontal runs made " ". */
        Py_ssize_t start = line_start, end = j;
        while (start < end && is_strippable(PyUnicode_READ(kind, data, start)))
            start++;
        while (end > start && is_strippable(PyUnicode_READ(kind, data, end - 1)))
            end--;
        for (Py_ssize_t k = start; k < end; k++) {
            const Py_UCS4 ch = PyUnicode_READ(kind, data, k);
            if (!is_hspace(ch)) {
                out_put(&out, ch);
                continue;
            }
            out_put(&out, ' ');
            while (k + 1 < end && is_hspace(PyUnicode_READ(kind, data, k + 1)))
                k++;
        }
        if (j < n)
            out_put(&out, '\n');
        line_start = j + 1;
    }
    return out_done(&out);
}

/* Whether some character occurs 4 times in a row (`passes.ANY_RUN_OF_4`). */
static PyObject *has_run_of_4(PyObject *module, PyObject *text) {
    (void)module;
    if (check_str(text, "has_run_of_4") < 0)
        return NULL;
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    const int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t run = 0;
    Py_UCS4 last = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        const Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        run = (i > 0 && ch == last) ? run + 1 : 1;
        if (run == 4)
            Py_RETURN_TRUE;
        last = ch;
    }
    Py_RETURN_FALSE;
}

/* Whether `ch` is in one of the sorted, disjoint `count` ranges `bounds` (start, end, start, end, ...). */
static inline int in_ranges(Py_UCS4 ch, const uint32_t *bounds, Py_ssize_t count) {
    Py_ssize_t low = 0, high = count; /* the first range that ends at or after ch is in [low, high] */
    while (low < high) {
        const Py_ssize_t mid = (low + high) / 2;
        if (bounds[2 * mid + 1] < ch)
            low = mid + 1;
        else
            high = mid;
    }
    return low < count && bounds[2 * low] <= ch;
}

/* Every run of characters outside `ranges` (native uint32 pairs start, end: sorted, disjoint) made one " ". */
static PyObject *replace_outside(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *text, *ranges;
    if (!PyArg_ParseTuple(args, "US:replace_outside", &text, &ranges))
        return NULL;
    const Py_ssize_t size = PyBytes_GET_SIZE(ranges);
    if (size % (2 * (Py_ssize_t)sizeof(uint32_t)) != 0) {
        PyErr_SetString(PyExc_ValueError, "replace_outside() takes ranges as pairs of uint32");
        return NULL;
    }
    uint32_t small[64];
    uint32_t *bounds = small; /* a copy: bytes need not be aligned for uint32 reads */
    if (size > (Py_ssize_t)sizeof(small) && (bounds = PyMem_Malloc((size_t)size)) == NULL)
        return PyErr_NoMemory();
    memcpy(bounds, PyBytes_AS_STRING(ranges), (size_t)size);
    const Py_ssize_t count = size / (2 * (Py_ssize_t)sizeof(uint32_t));
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    const int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    PyObject *result = NULL;
    Py_ssize_t i = 0;
    while (i < n && in_ranges(PyUnicode_READ(kind, data, i), bounds, count))
        i++;
    if (i == n) {
        result = Py_NewRef(text);
    } else {
        Out out;
        if (out_init(&out, kind, n) == 0) {
            for (Py_ssize_t j = 0; j < i; j++)
                out_put(&out, PyUnicode_READ(kind, data, j));
            int outside = 0; /* in a run of characters outside */
            for (; i < n; i++) {
                const Py_UCS4 ch = PyUnicode_READ(kind, data, i);
                if (in_ranges(ch, bounds, count)) {
                    out_put(&out, ch);
                    outside = 0;
                } else if (!outside) {
                    out_put(&out, ' ');
                    outside = 1;
                }
            }
            result = out_done(&out);
        }
    }
    if (bounds != small)
        PyMem_Free(bounds);
    return result;
}

static PyMethodDef passes_methods[] = {
    {"collapse_whitespace", collapse_whitespace, METH_O, "collapse_whitespace(text) -> ' '.join(text.split())"},
    {"collapse_spaces", collapse_spaces, METH_O,
     "collapse_spaces(text) -> horizontal space runs made ' ', every line stripped"},
    {"has_run_of_4", has_run_of_4, METH_O, "has_run_of_4(text) -> whether a character occurs 4 times in a row"},
    {"replace_outside", replace_outside, METH_VARARGS,
     "replace_outside(text, ranges) -> every run of characters outside ranges made ' '"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef passes_module = {
    PyModuleDef_HEAD_INIT, "_passes", "The single-pass text rewrites of the hot loop, compiled.", -1, passes_methods,
};

PyMODINIT_FUNC PyInit__passes(void) { return PyModule_Create(&passes_module); }
