/* `text_ngram_repetition_reason(text, min_words, top_fractions, dup_fractions)`, compiled: Gopher's word
 * n-gram rules over one document's text, in one call.
 *
 * The reference, and the fallback where no compiler was at hand at install, is
 * `python_text_ngram_repetition_reason` in transforms/rules/repetition.py (`words` + `ngram_repetition_reason`);
 * tests/transforms/rules/test_ngram_repetition.py checks the two agree on real, random and adversarial texts.
 *
 * Words: each run of non-space characters (`str.split`, Py_UNICODE_ISSPACE) keeps its letters and digits
 * (Py_UNICODE_ISALNUM, what `re`'s `\w` tests besides `_`); a run without any is no word. A word's id is its
 * rank among the distinct words in order of first occurrence; an n-gram's is its rank among the distinct
 * n-grams in the same order, found from the pair (id of its first n - 1 words, id of its last word), so a
 * tie between the most frequent n-grams goes to the one that occurs first, as in the reference.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "../_char_classes.h"

#define NO_ID (-1)

static inline uint64_t mix(uint64_t x) { /* splitmix64's finalizer */
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static size_t table_size(Py_ssize_t items) {
    size_t slots = 16;
    while (slots < (size_t)items * 2)
        slots <<= 1;
    return slots;
}

/* One document's words, and its n-grams for the last n built. */
typedef struct {
    Py_ssize_t words;      /* number of words */
    Py_ssize_t distinct;   /* number of distinct words */
    Py_ssize_t total;      /* letters in all words */
    Py_ssize_t *ids;       /* per word: its id */
    Py_ssize_t *lengths;   /* per word: its letters */
    Py_ssize_t *ranks;     /* per n-gram position: the n-gram's id (the word ids for n = 1) */
    Py_ssize_t *counts;    /* per n-gram id: occurrences */
    Py_ssize_t *slots;     /* hash table of n-gram ids (NO_ID: empty) */
    uint64_t *keys;        /* the key of the n-gram in each slot */
    char *covered;         /* per word: covered by a chosen n-gram */
    size_t mask;           /* slots - 1 */
    Py_ssize_t n;          /* the n the ranks are for */
    Py_ssize_t positions;  /* number of n-grams: words - n + 1, at least 0 */
    Py_ssize_t kinds;      /* number of distinct n-grams */
} Grams;

static void grams_free(Grams *g) {
    PyMem_Free(g->ids);
    PyMem_Free(g->lengths);
    PyMem_Free(g->ranks);
    PyMem_Free(g->counts);
    PyMem_Free(g->slots);
    PyMem_Free(g->keys);
    PyMem_Free(g->covered);
}

/* The words of `text`: their ids and lengths. Returns -1 (with MemoryError) on failure. */
static int read_words(Grams *g, PyObject *text) {
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    const int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    /* A word holds at least one letter and ends at a space or the end: at most n / 2 + 1 of them. */
    const Py_ssize_t most_words = n / 2 + 1;
    Py_UCS4 *letters = PyMem_Malloc((size_t)(n + 1) * sizeof(Py_UCS4));
    Py_ssize_t *starts = PyMem_Malloc((size_t)most_words * sizeof(Py_ssize_t));
    g->ids = PyMem_Malloc((size_t)most_words * sizeof(Py_ssize_t));
    g->lengths = PyMem_Malloc((size_t)most_words * sizeof(Py_ssize_t));
    const size_t word_slots = table_size(most_words);
    Py_ssize_t *table = PyMem_Malloc(word_slots * sizeof(Py_ssize_t)); /* a word's index (first occurrence) */
    if (!letters || !starts || !g->ids || !g->lengths || !table) {
        PyMem_Free(letters);
        PyMem_Free(starts);
        PyMem_Free(table);
        PyErr_NoMemory();
        return -1;
    }
    memset(table, 0xFF, word_slots * sizeof(Py_ssize_t)); /* all NO_ID */
    const size_t mask = word_slots - 1;
    Py_ssize_t words = 0, distinct = 0, used = 0, total = 0, start = 0;
    uint64_t hash = 0xCBF29CE484222325ull; /* FNV-1a over the word's letters */
    for (Py_ssize_t i = 0; i <= n; i++) {
        const Py_UCS4 ch = i < n ? PyUnicode_READ(kind, data, i) : ' ';
        if (!is_space(ch)) {
            if (is_letter(ch)) {
                letters[used++] = ch;
                hash = (hash ^ ch) * 0x100000001B3ull;
            }
            continue;
        }
        const Py_ssize_t length = used - start;
        if (length == 0)
            continue;
        size_t slot = mix(hash) & mask;
        Py_ssize_t id = NO_ID;
        while (table[slot] != NO_ID) {
            const Py_ssize_t seen = table[slot];
            if (g->lengths[seen] == length &&
                memcmp(letters + starts[seen], letters + start, (size_t)length * sizeof(Py_UCS4)) == 0) {
                id = g->ids[seen];
                break;
            }
            slot = (slot + 1) & mask;
        }
        if (id == NO_ID) {
            table[slot] = words;
            id = distinct++;
        }
        starts[words] = start;
        g->ids[words] = id;
        g->lengths[words] = length;
        words++;
        total += length;
        start = used;
        hash = 0xCBF29CE484222325ull;
    }
    PyMem_Free(letters);
    PyMem_Free(starts);
    PyMem_Free(table);
    g->words = words;
    g->distinct = distinct;
    g->total = total;
    return 0;
}

/* Room for the n-gram tables; the ranks start as the word ids (n = 1). */
static int grams_init(Grams *g) {
    const Py_ssize_t w = g->words > 0 ? g->words : 1;
    const size_t slots = table_size(w);
    g->ranks = PyMem_Malloc((size_t)w * sizeof(Py_ssize_t));
    g->counts = PyMem_Malloc((size_t)w * sizeof(Py_ssize_t));
    g->slots = PyMem_Malloc(slots * sizeof(Py_ssize_t));
    g->keys = PyMem_Malloc(slots * sizeof(uint64_t));
    g->covered = PyMem_Malloc((size_t)w);
    if (!g->ranks || !g->counts || !g->slots || !g->keys || !g->covered) {
        PyErr_NoMemory();
        return -1;
    }
    g->mask = slots - 1;
    g->n = 1;
    return 0;
}

/* Advances the ranks from n to n + 1: the n-gram at i is (n-gram at i, word at i + n). */
static void grams_next(Grams *g) {
    const Py_ssize_t positions = g->words - g->n; /* (words - (n + 1) + 1) */
    memset(g->slots, 0xFF, (g->mask + 1) * sizeof(Py_ssize_t));
    Py_ssize_t kinds = 0;
    for (Py_ssize_t i = 0; i < positions; i++) {
        const uint64_t key = (uint64_t)g->ranks[i] * (uint64_t)g->words + (uint64_t)g->ids[i + g->n];
        size_t slot = mix(key) & g->mask;
        while (g->slots[slot] != NO_ID && g->keys[slot] != key)
            slot = (slot + 1) & g->mask;
        if (g->slots[slot] == NO_ID) {
            g->slots[slot] = kinds;
            g->keys[slot] = key;
            g->counts[kinds++] = 0;
        }
        const Py_ssize_t rank = g->slots[slot];
        g->ranks[i] = rank; /* position i is read before it is written */
        g->counts[rank]++;
    }
    g->n++;
    g->positions = positions > 0 ? positions : 0;
    g->kinds = kinds;
}

/* The ranks for `n` >= 2: from those of the last n built, or from the words again for a smaller n. */
static void grams_of(Grams *g, Py_ssize_t n) {
    if (n < g->n) {
        memcpy(g->ranks, g->ids, (size_t)g->words * sizeof(Py_ssize_t));
        g->n = 1;
    }
    while (g->n < n)
        grams_next(g);
}

/* Letters of the words covered by the n-grams at the positions whose rank `chosen` accepts (-1: those that
 * occur more than once; otherwise that rank only). */
static Py_ssize_t covered_letters(Grams *g, Py_ssize_t chosen) {
    memset(g->covered, 0, (size_t)g->words);
    for (Py_ssize_t i = 0; i < g->positions; i++) {
        const Py_ssize_t rank = g->ranks[i];
        if (chosen < 0 ? g->counts[rank] > 1 : rank == chosen)
            memset(g->covered + i, 1, (size_t)g->n);
    }
    Py_ssize_t letters = 0;
    for (Py_ssize_t i = 0; i < g->words; i++)
        if (g->covered[i])
            letters += g->lengths[i];
    return letters;
}

/* The share of letters covered by the most frequent n-gram (ties: the first to occur), 0 without repeats. */
static double top_share(Grams *g, Py_ssize_t n) {
    grams_of(g, n);
    if (g->kinds >= g->positions)
        return 0.0;
    Py_ssize_t top = 0;
    for (Py_ssize_t rank = 1; rank < g->kinds; rank++)
        if (g->counts[rank] > g->counts[top])
            top = rank;
    return (double)covered_letters(g, top) / (double)g->total;
}

/* The share of letters covered by the n-grams that occur more than once. */
static double dup_share(Grams *g, Py_ssize_t n) {
    grams_of(g, n);
    if (g->kinds >= g->positions)
        return 0.0;
    return (double)covered_letters(g, -1) / (double)g->total;
}

/* The floats of a sequence, in a new array (freed by the caller); NULL with an exception on failure. */
static double *read_fractions(PyObject *sequence, Py_ssize_t *count) {
    PyObject *fast = PySequence_Fast(sequence, "the fractions must be a sequence");
    if (fast == NULL)
        return NULL;
    *count = PySequence_Fast_GET_SIZE(fast);
    double *out = PyMem_Malloc((size_t)(*count + 1) * sizeof(double));
    if (out == NULL) {
        Py_DECREF(fast);
        return (double *)PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < *count; i++) {
        out[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(fast, i));
        if (out[i] == -1.0 && PyErr_Occurred()) {
            PyMem_Free(out);
            Py_DECREF(fast);
            return NULL;
        }
    }
    Py_DECREF(fast);
    return out;
}

/* Gopher's n-gram rules, in the reference's order, with its bounds: a rule is only counted out where a
 * bound does not already keep it under its limit. */
static PyObject *reason(Grams *g, const double *top, Py_ssize_t tops, const double *dup, Py_ssize_t dups) {
    if (g->distinct == g->words || g->total == 0) /* no word repeats, so no n-gram does */
        Py_RETURN_NONE;
    Py_ssize_t *word_counts = g->counts; /* free until the first n-gram is built */
    memset(word_counts, 0, (size_t)g->distinct * sizeof(Py_ssize_t));
    for (Py_ssize_t i = 0; i < g->words; i++)
        word_counts[g->ids[i]]++;
    /* The top n-gram covers at most n * `most` letters: `most` is the largest letters-times-count of a word. */
    Py_ssize_t most = 0, in_repeats = 0;
    for (Py_ssize_t i = 0; i < g->words; i++) {
        const Py_ssize_t count = word_counts[g->ids[i]];
        if (g->lengths[i] * count > most)
            most = g->lengths[i] * count;
        if (count > 1)
            in_repeats += g->lengths[i];
    }
    memcpy(g->ranks, g->ids, (size_t)g->words * sizeof(Py_ssize_t));
    const double total = (double)g->total;
    for (Py_ssize_t k = 0; k < tops; k++) {
        const Py_ssize_t n = k + 2;
        const double limit = top[k];
        if (limit != 0.0 && (double)(n * most) / total > limit && top_share(g, n) > limit)
            return PyUnicode_FromFormat("top_%zdgram", n);
    }
    /* Repeated n-grams cover only words that occur twice or more. */
    for (Py_ssize_t k = 0; k < dups; k++) {
        const Py_ssize_t n = k + 5;
        const double limit = dup[k];
        if (limit == 0.0 || (double)in_repeats / total <= limit)
            continue;
        const double share = dup_share(g, n);
        if (share > limit)
            return PyUnicode_FromFormat("dup_%zdgram", n);
        if (share == 0.0) /* no repeated n-gram: no repeated longer one either */
            break;
    }
    Py_RETURN_NONE;
}

static PyObject *text_ngram_repetition_reason(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *text, *top_fractions, *dup_fractions;
    Py_ssize_t min_words;
    if (!PyArg_ParseTuple(args, "UnOO:text_ngram_repetition_reason", &text, &min_words, &top_fractions,
                          &dup_fractions))
        return NULL;
    Py_ssize_t tops = 0, dups = 0;
    double *top = read_fractions(top_fractions, &tops);
    double *dup = top == NULL ? NULL : read_fractions(dup_fractions, &dups);
    if (dup == NULL) {
        PyMem_Free(top);
        return NULL;
    }
    Grams g;
    memset(&g, 0, sizeof(g));
    PyObject *result = NULL;
    if (read_words(&g, text) == 0) {
        if (g.words < min_words)
            result = Py_NewRef(Py_None);
        else if (grams_init(&g) == 0)
            result = reason(&g, top, tops, dup, dups);
    }
    grams_free(&g);
    PyMem_Free(top);
    PyMem_Free(dup);
    return result;
}

static PyMethodDef ngram_repetition_methods[] = {
    {"text_ngram_repetition_reason", text_ngram_repetition_reason, METH_VARARGS,
     "text_ngram_repetition_reason(text, min_words, top_fractions, dup_fractions) -> str | None"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef ngram_repetition_module = {
    PyModuleDef_HEAD_INIT, "_ngram_repetition", "Gopher's word n-gram rules, compiled.", -1,
    ngram_repetition_methods,
};

PyMODINIT_FUNC PyInit__ngram_repetition(void) { return PyModule_Create(&ngram_repetition_module); }
