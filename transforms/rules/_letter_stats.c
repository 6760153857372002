/* `letter_stats(text)`, compiled: the counts the sentence rules take from a sentence's letters, in one pass.
 *
 * The reference, and the fallback where no compiler was at hand at install, is `python_letter_stats` in
 * transforms/rules/letter_stats.py; tests/transforms/rules/test_letter_stats.py checks the two agree on every code point
 * and on real and random texts. A letter is what `re`'s `[^\W_]` matches in a str pattern: a character
 * `Py_UNICODE_ISALNUM` accepts (sre's own test), so both use CPython's Unicode tables.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "../_char_classes.h"

/* Open-addressing tables of at least twice the letters: on the stack up to this many slots. */
#define STACK_SLOTS 512
#define EMPTY_LETTER 0xFFFFFFFFu /* above every code point */

/* `korean.HANGUL_LETTER_CLASS`: the syllables 가-힣 and the compatibility jamo ㄱ-ㆎ. */
static inline int is_hangul_letter(Py_UCS4 ch) {
    return (ch >= 0xAC00 && ch <= 0xD7A3) || (ch >= 0x3131 && ch <= 0x318E);
}

typedef struct {
    Py_ssize_t start, length; /* a token's span in the text; length 0: an empty slot */
} Span;

static PyObject *letter_stats(PyObject *module, PyObject *text) {
    (void)module;
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "letter_stats() takes a str, not %.100s", Py_TYPE(text)->tp_name);
        return NULL;
    }
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    const int kind = PyUnicode_KIND(text);
    const char *data = PyUnicode_DATA(text);

    size_t slots = 16;
    while (slots < (size_t)n * 2)
        slots <<= 1;
    const size_t mask = slots - 1;
    uint32_t letters_on_stack[STACK_SLOTS];
    Span tokens_on_stack[STACK_SLOTS];
    uint32_t *letter_table = letters_on_stack;
    Span *token_table = tokens_on_stack;
    if (slots > STACK_SLOTS) {
        letter_table = PyMem_Malloc(slots * sizeof(uint32_t));
        token_table = PyMem_Malloc(slots * sizeof(Span));
        if (letter_table == NULL || token_table == NULL) {
            PyMem_Free(letter_table);
            PyMem_Free(token_table);
            return PyErr_NoMemory();
        }
    }
    memset(letter_table, 0xFF, slots * sizeof(uint32_t));
    memset(token_table, 0, slots * sizeof(Span));

    Py_ssize_t tokens = 0, letters = 0, hangul = 0, distinct_letters = 0, distinct_tokens = 0;
    Py_ssize_t start = -1; /* the start of the token being read, -1 between tokens */
    uint64_t token_hash = 0;
    for (Py_ssize_t i = 0; i <= n; i++) {
        const Py_UCS4 ch = i < n ? PyUnicode_READ(kind, data, i) : 0;
        if (i < n && is_letter(ch)) {
            letters++;
            hangul += is_hangul_letter(ch);
            size_t slot = ((uint64_t)ch * 0x9E3779B97F4A7C15ull >> 32) & mask;
            while (letter_table[slot] != ch && letter_table[slot] != EMPTY_LETTER)
                slot = (slot + 1) & mask;
            if (letter_table[slot] == EMPTY_LETTER) {
                letter_table[slot] = ch;
                distinct_letters++;
            }
            if (start < 0) {
                start = i;
                token_hash = 0xCBF29CE484222325ull; /* FNV-1a over the code points */
            }
            token_hash = (token_hash ^ ch) * 0x100000001B3ull;
            continue;
        }
        if (start < 0)
            continue;
        const Py_ssize_t length = i - start;
        tokens++;
        size_t slot = (token_hash ^ (token_hash >> 29)) & mask;
        while (token_table[slot].length != 0) {
            const Span seen = token_table[slot];
            if (seen.length == length &&
                memcmp(data + seen.start * kind, data + start * kind, (size_t)length * kind) == 0)
                break;
            slot = (slot + 1) & mask;
        }
        if (token_table[slot].length == 0) {
            token_table[slot].start = start;
            token_table[slot].length = length;
            distinct_tokens++;
        }
        start = -1;
    }
    if (slots > STACK_SLOTS) {
        PyMem_Free(letter_table);
        PyMem_Free(token_table);
    }
    return Py_BuildValue("(nnnnn)", tokens, letters, hangul, distinct_letters, distinct_tokens);
}

static PyMethodDef letter_stats_methods[] = {
    {"letter_stats", letter_stats, METH_O,
     "letter_stats(text) -> (tokens, letters, hangul, distinct_letters, distinct_tokens)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef letter_stats_module = {
    PyModuleDef_HEAD_INIT, "_letter_stats", "The sentence rules' letter counts, compiled.", -1, letter_stats_methods,
};

PyMODINIT_FUNC PyInit__letter_stats(void) { return PyModule_Create(&letter_stats_module); }
