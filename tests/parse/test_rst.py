"""reStructuredText with Sphinx: the whole CPython 3.8 documentation plus edge cases."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from contextbase.parse import parse_document
from contextbase.parse.base import ParsedDocument
from tests.parse.conftest import fences, headings, prose

CPYTHON = "cpython-3.8-rst"
LEAKS = [
    (r":[A-Za-z][\w.+-]*(?::[\w.+-]+)?:`", "role"),
    (r"^\s*\.\. \S", "directive, comment or target"),
    (r"`[^`\n]+`__?(?!\w)", "hyperlink reference"),
    (r"^\s*([=~^\"'*+-])\1{3,}\s*$", "section adornment"),
    (r"^\s*\+[-=+]{3,}\+\s*$", "grid table border"),
    (r"^\s*=+(?:\s+=+)+\s*$", "simple table border"),
]


def rst(source: str, path: str = "doc.rst") -> ParsedDocument:
    doc = parse_document(source, path)
    assert doc is not None
    assert doc.format == "rst"
    return doc


def test_whole_cpython_corpus_converts_without_leaks(corpora: Path) -> None:
    files = sorted((corpora / CPYTHON).rglob("*.rst"))
    assert len(files) > 350
    problems: list[str] = []
    for path in files:
        doc = parse_document(path.read_bytes(), str(path))
        assert doc is not None, path
        assert doc.title, path
        text = prose(doc.markdown)
        for pattern, what in LEAKS:
            match = re.search(pattern, text, re.M)
            if match:
                problems.append(f"{path.relative_to(corpora)}: {what}: {match.group(0)!r}")
    assert problems == []


def test_os_path_signatures_headings_and_metadata(corpora: Path) -> None:
    path = corpora / CPYTHON / "library" / "os.path.rst"
    doc = rst(path.read_text(encoding="utf-8"), str(path))
    assert doc.title == "os.path — Common pathname manipulations"
    assert doc.metadata == {"module": "os.path", "synopsis": "Operations on pathnames."}
    found = headings(doc.markdown)
    assert found[0] == "# `os.path` — Common pathname manipulations"
    assert "## `os.path.join(path, *paths)`" in found
    assert "## `os.path.commonprefix(list)`" in found
    assert (
        "pycon",
        ">>> os.path.commonprefix(['/usr/lib', '/usr/local/lib'])\n'/usr/l'\n\n"
        ">>> os.path.commonpath(['/usr/lib', '/usr/local/lib'])\n'/usr'",
    ) in fences(doc.markdown)
    assert "**Changed in version 3.6:** Accepts a path-like object." in doc.markdown
    assert "*Added in version 3.5.*" in doc.markdown
    assert "**Availability:** Unix, Windows." in doc.markdown
    assert "to read or\nwrite files see `open()`" in doc.markdown.replace("To read", "to read")


def test_classes_methods_and_nesting(corpora: Path) -> None:
    path = corpora / CPYTHON / "library" / "asyncio-queue.rst"
    found = headings(rst(path.read_text(encoding="utf-8"), str(path)).markdown)
    assert "### class `asyncio.Queue(maxsize=0, *, loop=None)`" in found
    assert "#### coroutine `asyncio.Queue.get()`" in found
    assert "### exception `asyncio.QueueEmpty`" in found
    stdtypes = corpora / CPYTHON / "library" / "stdtypes.rst"
    found = headings(rst(stdtypes.read_text(encoding="utf-8"), str(stdtypes)).markdown)
    assert "#### classmethod `int.from_bytes(bytes, byteorder, *, signed=False)`" in found
    assert "##### `list.sort(*, key=None, reverse=False)`" in found


def test_opcodes_tables_and_code_languages(corpora: Path) -> None:
    dis = corpora / CPYTHON / "library" / "dis.rst"
    doc = rst(dis.read_text(encoding="utf-8"), str(dis))
    assert "### `BINARY_ADD`" in headings(doc.markdown)
    functions = corpora / CPYTHON / "library" / "functions.rst"
    doc = rst(functions.read_text(encoding="utf-8"), str(functions))
    assert "`abs()` | `delattr()` | `hash()` | `memoryview()` | `set()`" in doc.markdown
    future = corpora / CPYTHON / "library" / "__future__.rst"
    doc = rst(future.read_text(encoding="utf-8"), str(future))
    assert "nested_scopes | 2.1.0b1 | 2.2 | PEP 227: *Statically Nested Scopes*" in doc.markdown
    shutil_doc = corpora / CPYTHON / "library" / "shutil.rst"
    languages = {lang for lang, _ in fences(rst(shutil_doc.read_text(), str(shutil_doc)).markdown)}
    assert {"python", "shell-session"} <= languages


ROLE_CASES = [
    (":func:`os.path.join`", "`os.path.join()`"),
    (":func:`len()`", "`len()`"),
    (":meth:`str.split`", "`str.split()`"),
    (":class:`~collections.abc.Mapping`", "`Mapping`"),
    (":class:`!Foo`", "`Foo`"),
    (":ref:`the tutorial <tut-intro>`", "the tutorial"),
    (":term:`path-like objects <path-like object>`", "path-like objects"),
    (":term:`iterable`", "iterable"),
    (":mod:`os`", "`os`"),
    (":data:`sys.path`", "`sys.path`"),
    (":const:`None`", "`None`"),
    (":envvar:`PYTHONPATH`", "`PYTHONPATH`"),
    (":option:`-m`", "`-m`"),
    (":pep:`8`", "PEP 8"),
    (":rfc:`2822#section-3.3`", "RFC 2822"),
    (":file:`setup.cfg`", "`setup.cfg`"),
    (":program:`pip`", "`pip`"),
    (":kbd:`Ctrl-C`", "`Ctrl-C`"),
    (":samp:`print({name})`", "`print(name)`"),
    (":abbr:`LIFO (last-in, first-out)`", "LIFO (last-in, first-out)"),
    (":dfn:`decorator`", "*decorator*"),
    (":exc:`ValueError`", "`ValueError`"),
    (":attr:`__dict__`", "`__dict__`"),
    (":keyword:`with`", "`with`"),
    (":token:`expression`", "`expression`"),
    (":source:`Lib/os.py`", "`Lib/os.py`"),
    (":opcode:`LOAD_CONST`", "`LOAD_CONST`"),
    (":c:func:`PyList_New`", "`PyList_New()`"),
    (":c:type:`PyObject`", "`PyObject`"),
    (":c:macro:`Py_RETURN_NONE`", "`Py_RETURN_NONE`"),
    (":c:data:`Py_None`", "`Py_None`"),
    (":c:member:`PyTypeObject.tp_name`", "`PyTypeObject.tp_name`"),
    (":py:class:`int`", "`int`"),
    (":cpp:func:`std::sort`", "`std::sort()`"),
    (":unknownrole:`anything`", "anything"),
    ("``literal *not emphasis*``", "`literal *not emphasis*`"),
    ("**bold** and *em*", "**bold** and *em*"),
    ("`Python <https://www.python.org/>`_", "Python"),
    ("`named target`_", "named target"),
    ("footnote [#]_ here", "footnote  here"),
    ("escaped \\*star\\*", "escaped *star*"),
]


@pytest.mark.parametrize(("source", "expected"), ROLE_CASES)
def test_inline_markup_and_roles(source: str, expected: str) -> None:
    assert rst(f"Title\n=====\n\nSee {source} now.\n").markdown.endswith(f"See {expected} now.\n")


def test_sections_levels_follow_first_appearance() -> None:
    source = (
        "#####\nBook\n#####\n\nChapter\n*******\n\nSection\n=======\n\nText.\n\n"
        "Other chapter\n*************\n\nSub\n===\n\nDeeper\n------\n"
    )
    doc = rst(source)
    assert headings(doc.markdown) == [
        "# Book", "## Chapter", "### Section", "## Other chapter", "### Sub", "#### Deeper",
    ]  # fmt: skip
    assert doc.title == "Book"


def test_directives_become_text_headings_or_nothing() -> None:
    source = """\
Title
=====

.. module:: spam.eggs
   :synopsis: Eggs.

.. index:: single: spam

.. _spam-label:

.. toctree::
   :maxdepth: 2

   intro

.. highlight:: c

.. note:: Short note
   continued.

.. warning::

   Mind this.

.. seealso:: :mod:`ham`

.. versionadded:: 3.5
   The *x* parameter.

.. versionchanged:: 3.7

.. deprecated-removed:: 3.4 3.9
   Use :func:`other` instead.

.. function:: cook(kind, *, temperature=180)
              cook(kind, minutes)
   :noindex:

   Cook the eggs.

   .. versionadded:: 3.6

.. class:: Pan(size)

   A pan.

   .. method:: heat(level)

      Heat it.

   .. attribute:: size

.. decorator:: fried

.. c:function:: PyObject* Spam_New(int size)

   Make spam.

.. cmdoption:: -v, --verbose

   Talk more.

.. testsetup::

   import secret_setup

.. literalinclude:: ../includes/example.py
   :lines: 1-5

.. only:: html

   Only in HTML.

.. tabularcolumns:: |l|l|

.. This is a comment
   spanning two lines.

A literal block::

   int main(void) { return 0; }

.. code-block:: python3

   print("hi")

.. sourcecode:: javascript

   let a = 1;

>>> 1 + 1
2
"""
    doc = rst(source)
    md = doc.markdown
    assert doc.metadata["module"] == "spam.eggs"
    assert headings(md) == [
        "# Title",
        "## `spam.eggs.cook(kind, *, temperature=180)`",
        "## class `spam.eggs.Pan(size)`",
        "### `spam.eggs.Pan.heat(level)`",
        "### `spam.eggs.Pan.size`",
        "## `@spam.eggs.fried`",
        "## `PyObject* Spam_New(int size)`",
        "## `-v, --verbose`",
    ]
    assert "`spam.eggs.cook(kind, minutes)`\n\nCook the eggs." in md
    assert "**Note:** Short note\ncontinued." in md
    assert "**Warning:** Mind this." in md
    assert "**See also:** `ham`" in md
    assert "**Added in version 3.5:** The *x* parameter." in md
    assert "*Changed in version 3.7.*" in md
    assert "**Deprecated since version 3.4, will be removed in version 3.9:** Use `other()`" in md
    assert "(code from ../includes/example.py)" in md
    assert "Only in HTML." in md
    assert "A literal block:\n\n```c\nint main(void) { return 0; }\n```" in md
    assert '```python\nprint("hi")\n```' in md
    assert "```javascript\nlet a = 1;\n```" in md
    assert "```pycon\n>>> 1 + 1\n2\n```" in md
    for gone in ("secret_setup", "comment", "maxdepth", "intro", "spam-label", "single:", "|l|l|"):
        assert gone not in md, gone


def test_literal_block_languages_are_guessed_without_highlight() -> None:
    md = rst(
        "Code::\n\n   for x in y:\n       pass\n\n"
        "Output: ::\n\n   $ ls -l\n\n::\n\n   not python at all ::\n"
    ).markdown
    assert "Code:\n\n```python\nfor x in y:\n    pass\n```" in md
    assert "Output:\n\n```console\n$ ls -l\n```" in md
    assert "```text\nnot python at all ::\n```" in md


def test_tables_lists_fields_and_definitions() -> None:
    source = """\
+--------+----------------+
| Header | Other          |
+========+================+
| ``a``  | first line     |
|        | second line    |
+--------+----------------+

=====  =====
Col A  Col B
=====  =====
one    two
three  four
=====  =====

.. list-table::
   :header-rows: 1

   * - Name
     - Meaning
   * - :const:`X`
     - The X.

- bullet one
- bullet two

  continued

#. first
#. second

:Author: Jane Doe
:Version: 1.0

term
   Its definition.

.. |name| replace:: **contextbase**

Built by |name|.
"""
    md = rst(source).markdown
    assert "Header | Other\n`a` | first line second line" in md
    assert "Col A | Col B\none | two\nthree | four" in md
    assert "Name | Meaning\n`X` | The X." in md
    assert "- bullet one\n- bullet two\n\n  continued" in md
    assert "1. first\n2. second" in md
    assert "**Author:** Jane Doe" in md
    assert "**term**\n\nIts definition." in md
    assert "Built by **contextbase**." in md
    assert "+--" not in md and "=====" not in md
