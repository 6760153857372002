/* The character classes kcorpus's C modules share, each what CPython itself tests, with ASCII and the Hangul
 * syllables decided without a table lookup. Included by transforms/_*.c; the tests of each module check them
 * against `re` and `str` on every code point. */
#ifndef KCORPUS_CHAR_CLASSES_H
#define KCORPUS_CHAR_CLASSES_H

#include <Python.h>

/* A letter or digit: `Py_UNICODE_ISALNUM`, what `re`'s `[^\W_]` tests in a str pattern. */
static inline int is_letter(Py_UCS4 ch) {
    if (ch < 0x80)
        return (ch >= '0' && ch <= '9') || ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'z');
    if (ch >= 0xAC00 && ch <= 0xD7A3) /* the Hangul syllables, all letters */
        return 1;
    return Py_UNICODE_ISALNUM(ch);
}

/* Whitespace: `Py_UNICODE_ISSPACE`, what `str.split()`, `str.strip()` and `re`'s `\s` split, strip and match. */
static inline int is_space(Py_UCS4 ch) {
    if (ch < 0x80)
        return ch == ' ' || (ch >= 0x09 && ch <= 0x0D) || (ch >= 0x1C && ch <= 0x1F);
    return Py_UNICODE_ISSPACE(ch);
}

#endif
