"""Personal data in Korean text: find it, replace it with a typed token, count it per type.

Types, in the order they are searched (an earlier type's token hides its digits from the later ones):

| type | token | what matches |
|---|---|---|
| `email` | `[EMAIL]` | `local@host.tld` |
| `rrn` | `[RRN]` | resident registration numbers `YYMMDD-SNNNNNN`: a real date, a sex/century digit 1-8; without the hyphen the check digit must hold as well (numbers issued since Oct 2020 have none, so a hyphenated one is not checked); `YYMMDD-S******` too |
| `card` | `[CARD]` | 15-16 digits, as 4-4-4-4 / 4-6-5 groups or unbroken, starting 3-6 or 9, passing the Luhn check |
| `mobile` | `[PHONE]` | `010-1234-5678`, `010.1234.5678`, `010 1234 5678`, `01012345678`, `+82 10-1234-5678` (010, 011, 016-019) |
| `landline` | `[PHONE]` | area code 02, 031-033, 041-044, 051-055, 061-064 or 070 (`02-`, `(02)`, `02)`, `+82 2-`), then 3-4 and 4 digits with `-` or `.`; or unbroken (`0442013393`) |
| `account` | `[ACCOUNT]` | bank-account-like groups: 3-4 hyphenated groups (the first of 3, 4 or 6 digits, the others 2-7), 10-14 digits in all, not an ISBN or a date |
| `ip` | `[IP]` | IPv4 addresses: four octets 0-255, not all of one digit (`1.2.3.4.` numbers a list) |

URLs are left alone (their digits are paths and ids, and `clean()` removes URLs later); dates
(`2017-08-25`), prices (`15,000원`), times, versions, years and short counts do not match any type.
"""

from __future__ import annotations

import collections
import dataclasses
import re
from collections.abc import Callable, Mapping

PII_MODES = ("mask", "drop", "keep")
TOKENS: Mapping[str, str] = {
    "email": "[EMAIL]",
    "rrn": "[RRN]",
    "card": "[CARD]",
    "mobile": "[PHONE]",
    "landline": "[PHONE]",
    "account": "[ACCOUNT]",
    "ip": "[IP]",
}

# A number starts where no digit, hyphen or dot precedes it and ends where no digit (or "-digit") follows.
# The test of the character before sits after the number's first character (`_after(FIRST)`), not before it:
# a pattern that starts with a character class lets `re` skip ahead to the next candidate in C, where one
# that starts with a lookbehind is tried at every position (the patterns cost 3x as much that way).
_NOT_AFTER_NUMBER = r"[0-9\-.]"
_NOT_AFTER_PHONE = r"[0-9\-.+]"
_END = r"(?![0-9]|[-.][0-9])"
_AREA = r"(?:2|3[1-3]|4[1-4]|5[1-5]|6[1-4]|70)"
_URL = re.compile(r"(?:https?://|www\.)\S+", re.IGNORECASE)
_CANDIDATE = re.compile(r"[0-9]|@")
# Every numeric type has 5+ digits with at most two separator characters between two of them ("02) 6744"):
# one scan for that spares the six number patterns on most texts (PII costs a third as much on Wikipedia).
_NUMBER_RUN = re.compile(r"\d(?:[-. )]{0,2}\d){4}")
# What an IPv4 address holds for sure (its last three octets with their dots): the IP pattern, whose octets
# start with alternatives (no class to skip ahead with), runs only where this is found.
_IP_HINT = re.compile(r"\.\d{1,3}\.\d{1,3}\.\d")
_RRN_CHECK_WEIGHTS = (2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5)
_DAYS_IN_MONTH = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _after(first: str, not_before: str = _NOT_AFTER_NUMBER) -> str:
    """`first` (one character's pattern), then: the character before it is not one of `not_before`."""
    return rf"{first}(?<!{not_before}{first})"


_FIRST_DIGIT = _after(r"\d")
_FIRST_PLUS = _after(r"\+", _NOT_AFTER_PHONE)
_FIRST_PAREN = _after(r"\(", _NOT_AFTER_PHONE)
_FIRST_ZERO = _after("0", _NOT_AFTER_PHONE)
_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
_LOCAL = r"\d{3,4}[-.]\d{4}"  # a landline's exchange and line numbers
_PATTERNS: Mapping[str, re.Pattern[str]] = {
    "email": re.compile(
        r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"
    ),
    "rrn": re.compile(
        rf"(?P<date>{_FIRST_DIGIT}\d{{5}})(?P<sep>\s?[-–]\s?)?(?P<sex>[1-8])(?P<rest>\d{{6}}|[*xX]{{6}})" + _END
    ),
    "card": re.compile(
        rf"(?P<digits>{_after('[3-69]')}"
        r"(?:\d{3}(?P<sep>[- ]?)\d{4}(?P=sep)\d{4}(?P=sep)\d{4}|(?<=3)\d{3}-\d{6}-\d{5}))"
        + _END
    ),
    "mobile": re.compile(
        rf"(?:{_FIRST_PLUS}82[-\s.]?(?:\(0\))?|{_FIRST_ZERO})"
        r"1[016789](?P<sep>[-. ]?)\d{3,4}(?P=sep)\d{4}" + _END
    ),
    # The alternatives of "+82 2-", "(02) ", "02-" and "0212345678", in that order, each with what follows.
    "landline": re.compile(
        rf"(?:{_FIRST_PLUS}82[-\s.]?{_AREA}[-. ]?{_LOCAL}"
        rf"|{_FIRST_PAREN}0{_AREA}\)\s?{_LOCAL}"
        rf"|{_FIRST_ZERO}(?:{_AREA}(?:\)\s?|[-. ])?{_LOCAL}|{_AREA}\d{{7,8}}))"
        + _END
    ),
    # The first group of 3-4 or 6 digits: a first digit, then 2-3 or 5 more, tried in the same order.
    "account": re.compile(rf"{_FIRST_DIGIT}(?:\d{{2,3}}|\d{{5}})(?:-\d{{2,7}}){{2,3}}" + _END),
    "ip": re.compile(rf"(?<!{_NOT_AFTER_NUMBER})(?:{_OCTET}\.){{3}}{_OCTET}" + _END),
}
# A text without it cannot hold the type (every match contains it): the pattern is not run.
_HINTS: Mapping[str, Callable[[str], bool]] = {
    "email": lambda text: "@" in text,
    "account": lambda text: "-" in text,
    "ip": lambda text: _IP_HINT.search(text) is not None,
}


def valid_date(yymmdd: str) -> bool:
    """Whether `YYMMDD` is a calendar day (February 29 is allowed: the century is not known here)."""
    month, day = int(yymmdd[2:4]), int(yymmdd[4:6])
    return 1 <= month <= 12 and 1 <= day <= _DAYS_IN_MONTH[month - 1]


def rrn_check_digit_ok(digits: str) -> bool:
    """The pre-October-2020 check digit of a 13-digit resident registration number."""
    total = sum(int(d) * w for d, w in zip(digits[:12], _RRN_CHECK_WEIGHTS, strict=True))
    return (11 - total % 11) % 10 == int(digits[12])


def luhn_ok(digits: str) -> bool:
    """The Luhn check of a card number (digits only)."""
    total = 0
    for i, d in enumerate(reversed(digits)):
        n = int(d) * (2 if i % 2 else 1)
        total += n - 9 if n > 9 else n
    return total % 10 == 0


def _is_rrn(m: re.Match[str]) -> bool:
    if not valid_date(m["date"]):
        return False
    if m["sep"] is None:  # 13 bare digits: too many things look like this, so the check digit must hold
        return m["rest"].isdigit() and rrn_check_digit_ok(m["date"] + m["sex"] + m["rest"])
    return True


def _is_card(m: re.Match[str]) -> bool:
    return luhn_ok(re.sub(r"\D", "", m["digits"]))


def _is_account(m: re.Match[str]) -> bool:
    groups = m.group().split("-")
    digits = sum(len(g) for g in groups)
    # ISBN-13 (978/979-...) and dates (2017-08-25-...) are not accounts.
    if groups[0] in ("978", "979") or (re.fullmatch(r"(?:19|20)\d\d", groups[0]) and int(groups[1]) <= 12):
        return False
    return 10 <= digits <= 14


def _is_ip(m: re.Match[str]) -> bool:
    return len(m.group()) > len("1.2.3.4")


_VALID: Mapping[str, Callable[[re.Match[str]], bool]] = {
    "rrn": _is_rrn,
    "ip": _is_ip,
    "card": _is_card,
    "account": _is_account,
}


@dataclasses.dataclass(frozen=True)
class Masked:
    """A text with its personal data replaced; `counts` is `type -> matches` for the types found."""

    text: str
    counts: Mapping[str, int]


def may_hold_pii(text: str) -> bool:
    """False when `mask_pii` leaves `text` as it is for sure (most texts): a test that builds nothing."""
    # Without "@" no piece can hold an email, and without a number run no piece a number type.
    return bool(_CANDIDATE.search(text)) and ("@" in text or _NUMBER_RUN.search(text) is not None)


def mask_pii(text: str) -> Masked:
    """Replace every PII match in `text` (outside URLs) with its type's token."""
    if not may_hold_pii(text):
        return Masked(text, {})
    counts: collections.Counter[str] = collections.Counter()
    parts: list[str] = []
    last = 0
    for url in _URL.finditer(text):
        parts += [_mask_span(text[last : url.start()], counts), url.group()]
        last = url.end()
    parts.append(_mask_span(text[last:], counts))
    return Masked("".join(parts), dict(counts))


def _mask_span(text: str, counts: collections.Counter[str]) -> str:
    if not _CANDIDATE.search(text):
        return text
    numbers = _NUMBER_RUN.search(text) is not None
    for kind, pattern in _PATTERNS.items():
        if not (numbers or kind == "email"):
            continue
        hint = _HINTS.get(kind)
        if hint is not None and not hint(text):
            continue
        valid = _VALID.get(kind)

        def replace(m: re.Match[str], kind: str = kind, valid: Callable | None = valid) -> str:
            if valid is not None and not valid(m):
                return m.group()
            counts[kind] += 1
            return TOKENS[kind]

        text = pattern.sub(replace, text)
    return text
